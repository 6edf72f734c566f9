# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the shell tiers that use the /proc/allocinfo FUSE double
# (build/tests/progs/atag-fakeinfo); sourced after tests/lib.sh.

FAKEINFO=$ATAG_BUILD/tests/progs/atag-fakeinfo
AWAIT=$ATAG_BUILD/tests/progs/atag-await

# Why the double cannot run here, or nothing when it can.
fakeinfo_skip_reason() {
	if ! is_root; then echo "not root: mounting the FUSE double needs root"; return; fi
	if [ ! -c /dev/fuse ]; then echo "/dev/fuse is missing"; return; fi
	if [ ! -x "$FAKEINFO" ]; then echo "$FAKEINFO was not built"; return; fi
	printf 'tag 1 1 a.c:1 func:probe\n' > "$T_TMP/fuse-probe.desc"
	if ! fakeinfo_mount "$T_TMP/fuse-probe.desc" "$T_TMP/fuse-probe"; then
		echo "/dev/fuse is unusable: $(tail -n 1 "$T_TMP/fuse-probe.log" 2>/dev/null)"
		return
	fi
	fakeinfo_umount "$T_TMP/fuse-probe"
}

# fakeinfo_mount DESCRIPTION DIR: serve DIR/allocinfo, DIR/state, DIR/ctl until
# fakeinfo_umount DIR (also registered with at_exit). Fails when it does not come up
# within 5 s. The daemon does not get fd 9, which callers use for their lock.
fakeinfo_mount() {
	mkdir -p "$2"
	"$FAKEINFO" "$1" "$2" > "$2.log" 2>&1 9>&- &
	echo $! > "$2.pid"
	at_exit "fakeinfo_umount '$2'"
	"$AWAIT" -t 5 -p "$(cat "$2.pid")" mount "$2" && [ -e "$2/state" ]
}

fakeinfo_umount() {
	[ -f "$1.pid" ] || return 0
	pid=$(cat "$1.pid")
	rm -f "$1.pid"
	kill "$pid" 2>/dev/null
	"$AWAIT" -t 5 unmount "$1" || fusermount3 -uz "$1"
	return 0
}

# The traced flag of every tag of the double: "FUNCTION=0|1 ..." in state order.
fakeinfo_traced() {
	awk '$1 == "tag" { printf "%s%s=%s", sep, $6, $2; sep = " " } END { print "" }' "$1/state"
}

# A field of the double's state: fakeinfo_field DIR toggles|content_id
fakeinfo_field() {
	awk -v k="$2" '$1 == k { print $2 }' "$1/state"
}
