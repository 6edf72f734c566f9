# SPDX-License-Identifier: GPL-2.0
#
# The alloc_tag doubles of the live tiers that need no more of them than this
# (sourced after tests/lib.sh and tests/fakeinfo.sh):
#
#   doubles_up WHAT DESCRIPTION   take the lock of the global event group alloc_tag
#                                 for the rest of the script, and mount the
#                                 /proc/allocinfo double serving DESCRIPTION: sets M
#                                 (its directory), ATAG_ALLOCINFO, and INITIAL (the
#                                 traced flags of its tags). Non-zero, after a skip
#                                 or a failure of WHAT saying why, when they cannot.
#   sim_install                   create the simulator's uprobe events (removed at
#                                 exit); non-zero after a failure saying why.

SIM=$ATAG_BUILD/tests/progs/atag-sim
SIM_LOCK=/tmp/atag-alloc_tag-uprobes.lock

doubles_up() {
	tfs=$(tracefs_dir)
	reason=$(
		if [ "$(uname -m)" != x86_64 ]; then echo "the uprobe simulator is x86-64 only"
		elif [ ! -w "$tfs/uprobe_events" ]; then echo "$tfs/uprobe_events is not writable"
		else fakeinfo_skip_reason; fi)
	if [ -n "$reason" ]; then
		skip "$1" "$reason"
		return 1
	fi
	exec 9> "$SIM_LOCK"
	if ! flock -w 300 9; then
		skip "$1" "$SIM_LOCK stayed locked for 5 minutes"
		return 1
	fi
	if [ -e "$tfs/events/alloc_tag" ]; then
		skip "$1" "$tfs/events/alloc_tag exists already: not touching it"
		return 1
	fi
	M=$T_TMP/fake
	if ! fakeinfo_mount "$2" "$M"; then
		fail "$1: mount the double" "$(cat "$M.log")"
		return 1
	fi
	export ATAG_ALLOCINFO=$M/allocinfo
	INITIAL=$(fakeinfo_traced "$M")
}

sim_install() {
	if ! "$SIM" install > "$T_TMP/sim.out" 2>&1; then
		fail "install the uprobe simulator" "$(cat "$T_TMP/sim.out")"
		return 1
	fi
	at_exit "'$SIM' remove --force"
}
