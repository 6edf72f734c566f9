#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# list, enable and disable: on text files (any user), then through the real ioctl
# path against the /proc/allocinfo FUSE double (root).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakeinfo.sh"

unset ATAG_ALLOCINFO
export LC_ALL=C
C=$ATAG_CMD
E="trace-cmd-alloc-tag:"
SERIES='it comes with the patch series "alloc_tag: Introduce selective tracing for MAP"'
NOTOGGLE="this kernel lacks per-tag tracing (no TOGGLE_TRACE ioctl); $SERIES"
NOSTATE="--traced/--untraced need the per-tag trace state, which this kernel does not report; $SERIES"
EPERM="operation not permitted: turning tracing on or off needs CAP_SYS_ADMIN"

# ------------------------------------------------------------------ without a kernel

if [ ! -e /proc/allocinfo ]; then
	"$C" list > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	check_eq "no /proc/allocinfo: exit 1" "$rc" 1
	check_eq "no /proc/allocinfo: one line naming the missing config" "$(cat "$T_TMP/err")" \
		"$E /proc/allocinfo: no such file: this kernel lacks CONFIG_MEM_ALLOC_PROFILING (memory allocation profiling)"
	check_status "enable without /proc/allocinfo: exit 1" 1 "$C" enable --all
else
	skip "no /proc/allocinfo message" "this kernel has /proc/allocinfo"
fi

cat > "$T_TMP/v2.txt" <<'EOF'
allocinfo - version: 2.0
#     <size>  <calls> <tag info>
        4096        1 mm/slub.c:4100 func:kmalloc_trace 
        1024        2 drivers/foo/foo.c:12 [foo] func:foo_alloc 
           0        0 arch/x86/kernel/alternative.c:127 func:__its_alloc accurate:no 
         300        3 drivers/foo/bar.c:40 [foo] func:foo_bar 
       70000        9 fs/ext4/super.c:1200 [ext4] func:ext4_alloc_inode 
EOF

"$C" list --allocinfo "$T_TMP/v2.txt" > "$T_TMP/out" 2>&1; rc=$?
check_eq "text: list exits 0" "$rc" 0
check_eq "text: sorted by bytes, trace state unknown" "$(cat "$T_TMP/out")" \
"       BYTES      CALLS  TRACED  ACCURATE  CALL SITE
    68.3 KiB          9  -       yes       ext4_alloc_inode fs/ext4/super.c:1200 [ext4]
    4.00 KiB          1  -       yes       kmalloc_trace mm/slub.c:4100
    1.00 KiB          2  -       yes       foo_alloc drivers/foo/foo.c:12 [foo]
       300 B          3  -       yes       foo_bar drivers/foo/bar.c:40 [foo]
         0 B          0  -       no        __its_alloc arch/x86/kernel/alternative.c:127"

out=$("$C" list --allocinfo "$T_TMP/v2.txt" -s calls -n 2 | awk 'NR > 1 { print $NF, $(NF-1) }')
check_eq "text: -s calls -n 2" "$out" "[ext4] fs/ext4/super.c:1200
[foo] drivers/foo/bar.c:40"
out=$("$C" list --allocinfo "$T_TMP/v2.txt" -s function | awk 'NR > 1 { print $6 }' | tr '\n' ' ')
check_eq "text: -s function" "$out" "__its_alloc ext4_alloc_inode foo_alloc foo_bar kmalloc_trace "
out=$("$C" list --allocinfo "$T_TMP/v2.txt" -s module | awk 'NR > 1 { print $6 }' | tr '\n' ' ')
check_eq "text: -s module (built-in first, then by file)" "$out" \
	"__its_alloc kmalloc_trace ext4_alloc_inode foo_bar foo_alloc "

ATAG_ALLOCINFO=$T_TMP/v2.txt "$C" list --format json > "$T_TMP/json" 2>&1
check_eq "text: \$ATAG_ALLOCINFO selects the file; json source and trace state" \
	"$(jq -c '[.source, .trace_state, (.tags | length), .tags[0]]' "$T_TMP/json" 2>&1)" \
	'["text",false,5,{"function":"ext4_alloc_inode","file":"fs/ext4/super.c","line":1200,"module":"ext4","bytes":70000,"calls":9,"accurate":true,"traced":null}]'
check_eq "text: json module null for built-in, accurate false" \
	"$(jq -c '.tags[] | select(.function == "__its_alloc") | [.module, .accurate]' "$T_TMP/json")" \
	'[null,false]'
# names with bytes that are not UTF-8 or need escaping still give valid JSON
printf 'allocinfo - version: 2.0\n#     <size>  <calls> <tag info>\n' > "$T_TMP/odd.txt"
printf '  64  1 fs/a\377\\b".c:7 [m\303] func:f\342\202\254_x \n' >> "$T_TMP/odd.txt"
"$C" list --allocinfo "$T_TMP/odd.txt" --format json > "$T_TMP/odd.json" 2>&1
check "odd bytes: strict UTF-8" "$ATAG_BUILD/tests/progs/utf8-check" "$T_TMP/odd.json"
check_eq "odd bytes: escaped, bad bytes replaced" \
	"$(jq -c '.tags[0] | [.function, .file, .module]' "$T_TMP/odd.json" 2>&1)" \
	'["f€_x","fs/a�\\b\".c","m�"]'
ATAG_ALLOCINFO=/nonexistent "$C" list --allocinfo "$T_TMP/v2.txt" > /dev/null 2>&1
check_eq "--allocinfo overrides \$ATAG_ALLOCINFO" "$?" 0

# memory allocation profiling switched off (vm.mem_profiling; $ATAG_MEM_PROFILING
# names the file here): the counters stand still, said on stderr, the listing as ever
OFF="memory allocation profiling is off (vm.mem_profiling = 0)"
printf '0\n' > "$T_TMP/mp0"; chmod 644 "$T_TMP/mp0"
printf '1\n' > "$T_TMP/mp1"
ATAG_MEM_PROFILING=$T_TMP/mp0 "$C" list --allocinfo "$T_TMP/v2.txt" > "$T_TMP/out" 2> "$T_TMP/err"
check_eq "profiling off: list says so in one line, lists as ever" \
	"$?:$(cat "$T_TMP/err"):$(wc -l < "$T_TMP/out")" \
	"0:trace-cmd-alloc-tag list: $OFF: these counters do not move and traced tags emit no events while it is off:6"
cp "$T_TMP/mp0" "$T_TMP/mp0ro"; chmod 444 "$T_TMP/mp0ro"
ATAG_MEM_PROFILING=$T_TMP/mp0ro "$C" list --allocinfo "$T_TMP/v2.txt" 2>&1 > /dev/null |
	grep -c "$OFF, and the sysctl is read-only: it stays off until the next boot: these counters" \
	> "$T_TMP/n"
check_eq "profiling off for good (a read-only sysctl, \"never\" at boot): said" "$(cat "$T_TMP/n")" 1
for f in mp1 nosuch; do
	ATAG_MEM_PROFILING=$T_TMP/$f "$C" list --allocinfo "$T_TMP/v2.txt" > /dev/null 2> "$T_TMP/err"
	check_eq "profiling switch $f: nothing said" "$?:$(cat "$T_TMP/err")" "0:"
done
printf 'on\n' > "$T_TMP/mpx"
ATAG_MEM_PROFILING=$T_TMP/mpx "$C" list --allocinfo "$T_TMP/v2.txt" > /dev/null 2> "$T_TMP/err"
check_eq "profiling switch neither 0 nor 1: unknown, nothing said" "$?:$(cat "$T_TMP/err")" "0:"

# filters applied in userspace on the text
lst() { "$C" list --allocinfo "$T_TMP/v2.txt" "$@" | awk 'NR > 1 { print $6 }' | sort | tr '\n' ' '; }
check_eq "text: --module ''" "$(lst --module '')" "__its_alloc kmalloc_trace "
check_eq "text: --module foo" "$(lst --module foo)" "foo_alloc foo_bar "
check_eq "text: --function glob" "$(lst --function '*alloc*')" \
	"__its_alloc ext4_alloc_inode foo_alloc kmalloc_trace "
check_eq "text: --file glob and --line" "$(lst --file 'drivers/*' --line 40)" "foo_bar "
check_eq "text: --min-size 1K" "$(lst --min-size 1K)" "ext4_alloc_inode foo_alloc kmalloc_trace "
check_eq "text: --max-size 300" "$(lst --max-size 300)" "__its_alloc foo_bar "
check_eq "text: --inaccurate" "$(lst --inaccurate)" "__its_alloc "
check_eq "text: --accurate --module ''" "$(lst --accurate --module '')" "kmalloc_trace "

"$C" list --allocinfo "$T_TMP/v2.txt" --traced > "$T_TMP/out" 2>&1; rc=$?
check_eq "text: --traced fails, naming the series" "$rc:$(cat "$T_TMP/out")" \
	"1:$E $T_TMP/v2.txt: $NOSTATE"
for cmd in enable disable; do
	"$C" $cmd --allocinfo "$T_TMP/v2.txt" --function foo_bar > "$T_TMP/out" 2>&1; rc=$?
	check_eq "text: $cmd says the kernel lacks per-tag tracing" "$rc:$(cat "$T_TMP/out")" \
		"1:$E $T_TMP/v2.txt: $NOTOGGLE"
done

printf 'allocinfo - version: 1.0\n#     <size>  <calls> <tag info>\n         512        4 kernel/fork.c:300 func:dup_task\n' > "$T_TMP/v1.txt"
check_eq "text: version 1.0" "$("$C" list --allocinfo "$T_TMP/v1.txt" | tail -n 1)" \
	"       512 B          4  -       yes       dup_task kernel/fork.c:300"
printf 'allocinfo - version: 2.0\n#\n 1 1 a.c:1 func:f \n 1 1 a.c func:g \n' > "$T_TMP/bad.txt"
"$C" list --allocinfo "$T_TMP/bad.txt" > "$T_TMP/out" 2>&1; rc=$?
check_eq "text: a malformed line is named" "$rc:$(cat "$T_TMP/out")" \
	"1:$E $T_TMP/bad.txt:4: not in the /proc/allocinfo text format"
printf 'allocinfo - version: 3.0\n' > "$T_TMP/v3.txt"
"$C" list --allocinfo "$T_TMP/v3.txt" > "$T_TMP/out" 2>&1; rc=$?
check_eq "text: an unknown version is named" "$rc:$(cat "$T_TMP/out")" \
	"1:$E $T_TMP/v3.txt:1: unsupported allocinfo version (known: 1.x and 2.x)"
"$C" list --allocinfo "$T_TMP/nope" > "$T_TMP/out" 2>&1; rc=$?
check_grep "a missing --allocinfo file is named" "^$E $T_TMP/nope: no such file" \
	"$T_TMP/out"

# usage errors: exit 2, the reason, then a hint to --help: two lines
usage_case() {
	name=$1 want=$2; shift 2
	"$C" "$@" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	if [ "$rc" = 2 ] && head -n 1 "$T_TMP/err" | grep -qF -- "$want" &&
	   [ "$(sed -n '2,$p' "$T_TMP/err")" = "Try 'trace-cmd-alloc-tag $1 --help'." ] &&
	   [ ! -s "$T_TMP/out" ]; then
		ok "usage: $name"
	else
		fail "usage: $name" "exit $rc, want 2 and '$want'" "$(cat "$T_TMP/err")"
	fi
}
usage_case "min-size above max-size" "--min-size (2048) is larger than --max-size (1024)" \
	list --min-size 2K --max-size 1K
usage_case "bad size" "--min-size: 'abc' is not a size" list --min-size abc
usage_case "bad line" "--line: 'x' is not a line number" enable --line x
usage_case "accurate and inaccurate" "--inaccurate and --accurate exclude each other" \
	list --accurate --inaccurate
usage_case "traced and untraced" "--untraced and --traced exclude each other" \
	disable --traced --untraced
usage_case "unknown sort key" "-s: unknown sort key 'size'" list -s size
usage_case "-n not a count" "-n: 'x' is not a row count" list -n x
usage_case "bad format" "--format: unknown value 'xml'" list --format xml
usage_case "enable without a filter" "enable: give a filter, or --all to trace every call site" \
	enable
usage_case "disable without a filter" "disable: give a filter, or --all to turn off every call site" \
	disable
usage_case "disable --all with a filter" "--all and a filter exclude each other" \
	disable --all --line 3
usage_case "enable --all with a filter" "--all and a filter exclude each other" \
	enable --all --module foo
usage_case "list with an argument" "unexpected argument 'foo'" list foo
usage_case "record without a filter" "give a filter, or --all to trace every call site" record
usage_case "record --kmem with a filter" "--kmem records every allocation: no tag filter" \
	record --kmem --function foo
usage_case "record bad duration" "--duration: 'soon' is not a duration" \
	record --all --duration soon
usage_case "record bad -b" "-b: 'big' is not a size in KiB" record --all -b big
usage_case "reset with an argument" "unexpected argument 'x'" reset x

# ------------------------------------------------------------------ the FUSE double

reason=$(fakeinfo_skip_reason)
if [ -n "$reason" ]; then
	skip "list/enable/disable through the ioctls" "$reason"
	done_testing
	exit
fi

LONGF=a_function_name_that_is_longer_than_sixty_three_characters_abcdefghij
LONGT=$(printf %s "$LONGF" | tail -c 63)	# what the ioctls carry
cat > "$T_TMP/series.desc" <<EOF
tag 4096 1 mm/slub.c:4100 func:kmalloc_trace
tag 1024 2 drivers/foo/foo.c:12 [foo] func:foo_alloc traced
tag 0 0 arch/x86/kernel/alternative.c:127 func:__its_alloc accurate:no
tag 300 3 drivers/foo/bar.c:40 [foo] func:foo_bar
tag 70000 9 fs/ext4/super.c:1200 [ext4] func:ext4_alloc_inode
tag 8 1 lib/long.c:7 func:$LONGF
EOF
M=$T_TMP/series
fakeinfo_mount "$T_TMP/series.desc" "$M" || fail "mount the double" "$(cat "$M.log")"
export ATAG_ALLOCINFO=$M/allocinfo

"$C" list > "$T_TMP/out" 2>&1; rc=$?
check_eq "ioctl: list" "$rc:$(cat "$T_TMP/out")" \
"0:       BYTES      CALLS  TRACED  ACCURATE  CALL SITE
    68.3 KiB          9  no      yes       ext4_alloc_inode fs/ext4/super.c:1200 [ext4]
    4.00 KiB          1  no      yes       kmalloc_trace mm/slub.c:4100
    1.00 KiB          2  yes     yes       foo_alloc drivers/foo/foo.c:12 [foo]
       300 B          3  no      yes       foo_bar drivers/foo/bar.c:40 [foo]
         8 B          1  no      yes       $LONGT lib/long.c:7
         0 B          0  no      no        __its_alloc arch/x86/kernel/alternative.c:127"
check_eq "ioctl: json source and trace state" \
	"$("$C" list --format json | jq -c '[.source, .trace_state, ([.tags[] | select(.traced)] | map(.function))]')" \
	'["ioctl",true,["foo_alloc"]]'

lst() { "$C" list "$@" | awk 'NR > 1 { print $6 }' | sort | tr '\n' ' '; }
check_eq "ioctl: --traced" "$(lst --traced)" "foo_alloc "
check_eq "ioctl: --untraced --module foo" "$(lst --untraced --module foo)" "foo_bar "
check_eq "ioctl: --module '' --accurate" "$(lst --module '' --accurate)" \
	"kmalloc_trace $LONGT "
check_eq "ioctl: kernel filter plus glob" "$(lst --module foo --function '*bar')" "foo_bar "
check_eq "ioctl: --file --line" "$(lst --file drivers/foo/foo.c --line 12)" "foo_alloc "
check_eq "ioctl: sizes" "$(lst --min-size 300 --max-size 4K)" "foo_alloc foo_bar kmalloc_trace "
check_eq "ioctl: --inaccurate" "$(lst --inaccurate)" "__its_alloc "
check_eq "ioctl: a 70-character name matches on its trailing 63, like the kernel" \
	"$(lst --function "X$LONGF")" "$LONGT "
check_eq "ioctl: listing toggles nothing" "$(fakeinfo_field "$M" toggles)" 0

"$C" enable --dry-run --module foo > "$T_TMP/out" 2>&1; rc=$?
check_eq "enable --dry-run: lists what would change" "$rc:$(cat "$T_TMP/out")" \
"0:would enable: foo_bar drivers/foo/bar.c:40 [foo]
1 tag would change state (tracing on), 1 already on"
check_eq "enable --dry-run: changes nothing" "$(fakeinfo_field "$M" toggles):$(fakeinfo_traced "$M")" \
	"0:kmalloc_trace=0 foo_alloc=1 __its_alloc=0 foo_bar=0 ext4_alloc_inode=0 $LONGF=0"

"$C" enable --module foo > "$T_TMP/out" 2>&1; rc=$?
check_eq "enable --module: one TOGGLE_TRACE" "$rc:$(cat "$T_TMP/out"):$(fakeinfo_field "$M" toggles)" \
	"0:1 tag changed state (tracing on), 1 already on:1"
check_eq "enable --module: the module's tags are traced" "$(fakeinfo_traced "$M")" \
	"kmalloc_trace=0 foo_alloc=1 __its_alloc=0 foo_bar=1 ext4_alloc_inode=0 $LONGF=0"
"$C" enable --function 'ext4_*' --min-size 1K > "$T_TMP/out" 2>&1; rc=$?
check_eq "enable with a glob: toggled tag by tag" "$rc:$(cat "$T_TMP/out"):$(fakeinfo_field "$M" toggles)" \
	"0:1 tag changed state (tracing on), 0 already on:2"
"$C" enable --function "$LONGF" > "$T_TMP/out" 2>&1; rc=$?
check_eq "enable a 70-character name" "$rc:$(cat "$T_TMP/out")" \
	"0:1 tag changed state (tracing on), 0 already on"
check_eq "enable: the state" "$(fakeinfo_traced "$M")" \
	"kmalloc_trace=0 foo_alloc=1 __its_alloc=0 foo_bar=1 ext4_alloc_inode=1 $LONGF=1"
"$C" enable --module foo > "$T_TMP/out" 2>&1; rc=$?
check_eq "enable again: nothing changes, no ioctl" "$rc:$(cat "$T_TMP/out"):$(fakeinfo_field "$M" toggles)" \
	"0:0 tags changed state (tracing on), 2 already on:3"

# profiling switched off: enable traces, and says the tags emit nothing meanwhile
ATAG_MEM_PROFILING=$T_TMP/mp0 "$C" enable --module foo > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "profiling off: enable works and says what it means" \
	"$rc:$(cat "$T_TMP/out"):$(cat "$T_TMP/err"):$(fakeinfo_field "$M" toggles)" \
	"0:0 tags changed state (tracing on), 2 already on:trace-cmd-alloc-tag enable: $OFF: the traced tags emit no events while it is off (sysctl vm.mem_profiling=1 turns it on):3"
ATAG_MEM_PROFILING=$T_TMP/mp0 "$C" disable --dry-run --module foo > /dev/null 2> "$T_TMP/err"
check_eq "profiling off: disable has nothing to say about it" "$(cat "$T_TMP/err")" ""

"$C" disable --dry-run --untraced > "$T_TMP/out" 2>&1; rc=$?
check_eq "disable --dry-run --untraced" "$rc:$(cat "$T_TMP/out")" \
	"0:0 tags would change state (tracing off), 2 already off"
"$C" disable > "$T_TMP/out" 2>&1; rc=$?
check_eq "disable without a filter: refused, nothing changed" \
	"$rc:$(head -n 1 "$T_TMP/out"):$(fakeinfo_field "$M" toggles)" \
	"2:$E disable: give a filter, or --all to turn off every call site:3"
"$C" disable --all > "$T_TMP/out" 2>&1; rc=$?
check_eq "disable --all: all off" "$rc:$(cat "$T_TMP/out")" \
	"0:4 tags changed state (tracing off), 2 already off"
check_eq "disable: the state" "$(fakeinfo_traced "$M")" \
	"kmalloc_trace=0 foo_alloc=0 __its_alloc=0 foo_bar=0 ext4_alloc_inode=0 $LONGF=0"

"$C" enable --function nothing_like_this > "$T_TMP/out" 2>&1; rc=$?
check_eq "enable: no tag matches" "$rc:$(cat "$T_TMP/out")" \
	"1:$E $M/allocinfo: no tag matches the filter (--function nothing_like_this)"
"$C" disable --module nomod --line 3 > "$T_TMP/out" 2>&1; rc=$?
check_eq "disable: no tag matches, the filter as given" "$rc:$(cat "$T_TMP/out")" \
	"1:$E $M/allocinfo: no tag matches the filter (--module nomod --line 3)"

if command -v setpriv > /dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$C" list > "$T_TMP/out" 2>&1; rc=$?
	check_eq "list as an ordinary user: permission denied" "$rc:$(cat "$T_TMP/out")" \
		"1:$E $M/allocinfo: permission denied: run as root"
	setpriv --inh-caps=-all --bounding-set=-sys_admin "$C" enable --all > "$T_TMP/out" 2>&1; rc=$?
	check_eq "enable without CAP_SYS_ADMIN: EPERM" "$rc:$(cat "$T_TMP/out")" \
		"1:$E $M/allocinfo: $EPERM"
	setpriv --inh-caps=-all --bounding-set=-sys_admin "$C" enable --function 'foo_*' \
		> "$T_TMP/out" 2>&1; rc=$?
	check_eq "enable tag by tag without CAP_SYS_ADMIN: EPERM" "$rc:$(tail -n 1 "$T_TMP/out")" \
		"1:$E $M/allocinfo: $EPERM"
	check_eq "EPERM: nothing changed" "$(fakeinfo_field "$M" toggles):$(fakeinfo_traced "$M")" \
		"4:kmalloc_trace=0 foo_alloc=0 __its_alloc=0 foo_bar=0 ext4_alloc_inode=0 $LONGF=0"
	setpriv --inh-caps=-all --bounding-set=-sys_admin "$C" list --traced > "$T_TMP/out" 2>&1
	check_eq "listing needs no CAP_SYS_ADMIN" "$?" 0
else
	skip "EPERM without CAP_SYS_ADMIN" "setpriv is not installed"
fi
fakeinfo_umount "$M"

# with_double NAME LINES: the series description with LINES first, mounted as $M
with_double() {
	printf '%b' "$2" | cat - "$T_TMP/series.desc" > "$T_TMP/$1.desc"
	M=$T_TMP/$1
	fakeinfo_mount "$T_TMP/$1.desc" "$M" || fail "mount the $1 double" "$(cat "$M.log")"
	export ATAG_ALLOCINFO=$M/allocinfo
}

# the 7.3 layout only: listed, but no trace state and no toggle
with_double v73 'ioctl v73\n'
check_eq "v73: listed through the 7.3 GET_AT, trace state unknown" \
	"$("$C" list --format json | jq -c '[.source, .trace_state, (.tags | length), ([.tags[].traced] | unique)]')" \
	'["ioctl-7.3",false,6,[null]]'
check_eq "v73: kernel filters work" "$(lst --module foo --min-size 1K)" "foo_alloc "
"$C" list --untraced > "$T_TMP/out" 2>&1; rc=$?
check_grep "v73: --untraced needs the trace state" \
	"^$E $M/allocinfo: --traced/--untraced need the per-tag trace state" "$T_TMP/out"
"$C" disable --function foo_alloc > "$T_TMP/out" 2>&1; rc=$?
check_eq "v73: disable says the kernel lacks per-tag tracing" "$rc:$(cat "$T_TMP/out")" \
	"1:$E $M/allocinfo: $NOTOGGLE"
fakeinfo_umount "$M"

# no ioctls at all: the text, version 1.0
with_double none 'ioctl none\nversion 1.0\n'
check_eq "no ioctls: the text is parsed" \
	"$("$C" list --format json | jq -c '[.source, (.tags | length), ([.tags[] | select(.accurate | not)] | length)]')" \
	'["text",6,0]'
check_eq "no ioctls: the full name from the text" "$(lst --function 'a_function_*')" "$LONGF "
"$C" enable --all > "$T_TMP/out" 2>&1
check_grep "no ioctls: enable names the series" "lacks per-tag tracing .*Introduce selective tracing for MAP" \
	"$T_TMP/out"
fakeinfo_umount "$M"

# a module loads in the middle of the scan: CONTENT_ID changes, the scan is redone
with_double modload 'modload 3\nmodule 64 1 net/m/m.c:5 [m] func:m_alloc\n'
"$C" list > "$T_TMP/out" 2>&1; rc=$?
check_eq "module load during the scan: retried, the module's tag is listed" \
	"$rc:$(grep -c . "$T_TMP/out"):$(grep -c 'm_alloc net/m/m.c:5 \[m\]' "$T_TMP/out"):$(fakeinfo_field "$M" content_id)" \
	"0:8:1:2"
fakeinfo_umount "$M"

with_double churn 'churn 1 1000000\n'
"$C" list > "$T_TMP/out" 2>&1; rc=$?
check_eq "tags that never settle: bounded retry, then a clear error" "$rc:$(cat "$T_TMP/out")" \
	"1:$E $M/allocinfo: the tags kept changing while being listed (modules loading or unloading, 11 tries); try again"
fakeinfo_umount "$M"

# a kernel that rejects filter bits: the message names the option
with_double reject 'reject_mask 0xa0\n'
"$C" list --traced > "$T_TMP/out" 2>&1; rc=$?
check_eq "EINVAL for the trace-state bit names --traced" "$rc:$(cat "$T_TMP/out")" \
	"1:$E $M/allocinfo: the kernel rejected --traced: it does not know the trace-state filter (invalid argument)"
"$C" disable --min-size 1 --module foo > "$T_TMP/out" 2>&1; rc=$?
check_eq "EINVAL otherwise names the options given" "$rc:$(cat "$T_TMP/out")" \
	"1:$E $M/allocinfo: the kernel rejected the filter --min-size 1 --module foo (invalid argument)"
check_eq "the plain listing still works there" "$("$C" list | grep -c .)" 7
fakeinfo_umount "$M"

done_testing
