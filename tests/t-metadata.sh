#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# Damaged metadata no figure depends on: report reads the events, and names the damage.
# Saved comms written cut short, as trace-cmd record (3.1.6, and 3.4 still) writes them
# when the kernel's table changes between its two reads of saved_cmdlines: the size of
# the first read is declared, the bytes of the second follow. report reads every event
# and says what the comms lost (a remark: no figure depends on them, unless comms choose
# the tasks); atag_trace_mend() (record's read-back, here through tests/progs/trace-mend)
# makes the file whole, and stock trace-cmd, the independent reader, agrees.
# Files: generated version 6 files, and their version 7 copies made by stock
# `trace-cmd convert` (uncompressed, so that a declared size can be changed in place;
# t-record-integrity provokes the compressed case for real).
. "$(dirname "$0")/lib.sh"

DAMAGE=$ATAG_BUILD/tests/progs/trace-damage
MEND=$ATAG_BUILD/tests/progs/trace-mend
export LC_ALL=C

cat > "$T_TMP/c.txt" <<'EOF'
cpus 2
comm 100 first
comm 200 second-task
comm 300 third
kallsyms ffffffff81001000 T foo_create
ev 0 1000 100 hit 0xa1 NONE mm/foo.c foo_create 12
ev 0 1001 100 alloced 0x1000 0xa1 64
ev 1 1002 200 alloced 0x2000 0xa1 32
ev 1 1003 300 freed 0x2000 0xa1 32
ev 0 1004 300 alloced 0x3000 0xa1 16
EOF
mkfixture -o "$T_TMP/c6.dat" "$T_TMP/c.txt" || fail "fixture"

# u64 at a file offset
u64_at() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
# the comm of each event line of stock trace-cmd report: "COMM-PID" words
tc_tasks() { tracecmd report -i "$1" 2>/dev/null | awk '/alloc_tag_mem/ { print $1 }' | tr '\n' ' '; }
# what report counts, without the file's name
counts() { "$ATAG_CMD" report -f json "$1" 2>/dev/null | jq -c '[.totals.allocs, .totals.frees, .totals.live, .complete]'; }
remarks() { "$ATAG_CMD" report -f json "$1" 2>/dev/null | jq -r '.remarks[]' | grep 'saved comms'; }

want_tasks="first-100 second-task-200 third-300 third-300 "
check_eq "stock trace-cmd reads the generated file's comms" "$(tc_tasks "$T_TMP/c6.dat")" "$want_tasks"
want=$(counts "$T_TMP/c6.dat")
check_eq "report of the sound file: 3 allocations, 1 free, 2 live, complete" "$want" '[3,1,2,true]'

# check_cut NAME FILE AT LEN DECLARED: the file's comms declare DECLARED bytes where LEN
# are written (the u64 at AT): report reads it all and says so; trace-mend mends it
check_cut() {
	cn=$1 f=$2 at=$3 len=$4 decl=$5
	cp "$f" "$T_TMP/cut.dat"
	"$DAMAGE" "$T_TMP/cut.dat" poke "$at" u64 "$decl" || fail "$cn: damage"
	"$ATAG_CMD" report "$T_TMP/cut.dat" > "$T_TMP/cut.out" 2> "$T_TMP/cut.err"
	check_eq "$cn: report reads it, exit 0, nothing on stderr" "$?:$(cat "$T_TMP/cut.err")" "0:"
	check_eq "$cn: every event counted, data complete" "$(counts "$T_TMP/cut.dat")" "$want"
	check_eq "$cn: the remark says what was declared and written" "$(remarks "$T_TMP/cut.dat")" \
		"$T_TMP/cut.dat: its saved comms are cut ($decl bytes declared, $len written: the kernel's table changed while trace-cmd record read it); 3 comms read: tasks without one show as <...>"
	check_grep "$cn: the text shows the remark" "saved comms are cut" "$T_TMP/cut.out"
	"$ATAG_CMD" report --comm third "$T_TMP/cut.dat" > "$T_TMP/cut.comm" 2>&1
	check_grep "$cn: with tasks chosen by comm, a notice: data incomplete" \
		"^data +INCOMPLETE" "$T_TMP/cut.comm"
	out=$("$MEND" "$T_TMP/cut.dat"); rc=$?
	check_eq "$cn: mended" "$rc:$out" "0:its saved comms were cut ($decl bytes declared, $len written: the kernel's table changed while trace-cmd read it twice): $6, 3 comms"
	check_eq "$cn: stock trace-cmd reads the mended file's comms" "$(tc_tasks "$T_TMP/cut.dat")" \
		"$want_tasks"
	check_eq "$cn: report of the mended file: no remark, the same counts" \
		"$(remarks "$T_TMP/cut.dat"):$(counts "$T_TMP/cut.dat")" ":$want"
	out=$("$MEND" "$T_TMP/cut.dat"); rc=$?
	check_eq "$cn: mended once: nothing more to mend" "$rc:$out" "3:"
}

# version 6: the comms inline, then the CPU count and "options  " / "flyrecord"
at6=$(($(grep -obUa "100 first" "$T_TMP/c6.dat" | cut -d: -f1) - 8))
len6=$(u64_at "$T_TMP/c6.dat" $at6)
check_eq "v6: the generated comms: their three lines" "$len6" \
	"$(printf '100 first\n200 second-task\n300 third\n' | wc -c)"
check_cut "v6, 5 bytes more declared" "$T_TMP/c6.dat" $at6 $len6 $((len6 + 5)) \
	"declared as written"
check_cut "v6, 3 bytes fewer declared (its last line cut)" "$T_TMP/c6.dat" $at6 $len6 \
	$((len6 - 3)) "declared as written"

# version 7, converted by stock trace-cmd, uncompressed: {section header, u64 size, text}
if tracecmd convert -i "$T_TMP/c6.dat" -o "$T_TMP/c7.dat" --file-version 7 \
	--compression none > /dev/null 2>&1; then
	sec=$(tracecmd dump --cmd-lines -i "$T_TMP/c7.dat" 2>/dev/null |
	      sed -n 's/.*Section 21 @ \([0-9]*\):.*/\1/p')
	at7=$((sec + 16))
	len7=$(u64_at "$T_TMP/c7.dat" $at7)
	check_eq "v7: stock trace-cmd's copy holds the same comms" "$len7" "$len6"
	# fewer declared: libtracecmd reads the cut last line "300 thi" as its comm
	cp "$T_TMP/c7.dat" "$T_TMP/c7-short.dat"
	"$DAMAGE" "$T_TMP/c7-short.dat" poke $at7 u64 $((len7 - 3)) || fail "v7: damage"
	check_eq "v7, its last line cut: stock trace-cmd shows the wrong comm" \
		"$(tc_tasks "$T_TMP/c7-short.dat")" "first-100 second-task-200 thi-300 thi-300 "
	check_cut "v7, 3 bytes fewer declared" "$T_TMP/c7.dat" $at7 $len7 $((len7 - 3)) \
		"rewritten in whole lines"
	check_cut "v7, 5 bytes more declared" "$T_TMP/c7.dat" $at7 $len7 $((len7 + 5)) \
		"rewritten in whole lines"
	check_eq "v7: the mend added one section, pointed at from the options" \
		"$(tracecmd dump --summary -i "$T_TMP/cut.dat" 2>/dev/null | grep -c 'Section 21 @')" \
		"$(tracecmd dump --summary -i "$T_TMP/c7.dat" 2>/dev/null | grep -c 'Section 21 @')"
else
	skip "v7 copies of the damaged files" "trace-cmd convert cannot write version 7 here"
fi

# a malformed line in the middle: left out alone (libtraceevent stops at it)
cp "$T_TMP/c6.dat" "$T_TMP/bad.dat"
"$DAMAGE" "$T_TMP/bad.dat" poke $((at6 + 8 + 10 + 3)) u8 120 || fail "damage"	# "200x..."
check_eq "a malformed comm line: report reads every event" "$(counts "$T_TMP/bad.dat")" "$want"
check_eq "a malformed comm line: the remark counts it" "$(remarks "$T_TMP/bad.dat")" \
	"$T_TMP/bad.dat: its saved comms hold 1 malformed line (left out); 2 comms read: tasks without one show as <...>"
"$ATAG_CMD" report --live -n 0 "$T_TMP/bad.dat" > "$T_TMP/bad.live" 2>&1
check_grep "a malformed comm line: the comm after it still named" " third " "$T_TMP/bad.live"
out=$("$MEND" "$T_TMP/bad.dat" 2>&1); rc=$?
check_eq "a malformed comm line in a version 6 file: not mended in place, said why" "$rc:$out" \
	"1:trace-mend: $T_TMP/bad.dat: 1 malformed comm line inside a version 6 file cannot be left out in place"

# a file walked through libtracecmd (ATAG_PAGES=0) would be misread: refused, said why
cp "$T_TMP/c6.dat" "$T_TMP/lib.dat"
"$DAMAGE" "$T_TMP/lib.dat" poke $at6 u64 $((len6 + 5)) || fail "damage"
out=$(ATAG_PAGES=0 "$ATAG_CMD" report "$T_TMP/lib.dat" 2>&1); rc=$?
check_eq "through libtracecmd: refused with the reason" "$rc:$(echo "$out" | head -n 1)" \
	"1:trace-cmd-alloc-tag: $T_TMP/lib.dat: its saved comms are cut ($((len6 + 5)) bytes declared, $len6 written: the kernel's table changed while trace-cmd record read it); 3 comms read: tasks without one show as <...>, and ATAG_PAGES=0 asks for it: libtracecmd, which must read it, would misread them (atag_trace_mend() rewrites them)"

# saved comms that cannot be found at all still refuse the file
cp "$T_TMP/c6.dat" "$T_TMP/lost.dat"
"$DAMAGE" "$T_TMP/lost.dat" poke $at6 u64 $((len6 + 3000000)) || fail "damage"
"$DAMAGE" "$T_TMP/lost.dat" poke $((at6 + 8 + len6)) u8 0 || fail "damage"	# no CPU count
out=$("$ATAG_CMD" report "$T_TMP/lost.dat" 2>&1); rc=$?
check_eq "comms whose end cannot be found: refused" "$rc:$out" \
	"1:trace-cmd-alloc-tag: $T_TMP/lost.dat: cut inside its headers (saved comms)"

# kallsyms lines of another shape: left out, counted, every event read
cp "$T_TMP/c6.dat" "$T_TMP/ksym.dat"
k=$(grep -obUa "ffffffff81001000 T foo_create" "$T_TMP/ksym.dat" | cut -d: -f1)
"$DAMAGE" "$T_TMP/ksym.dat" poke $((k + 16)) u8 10 || fail "damage"	# "ADDR\nT foo_create"
check_eq "malformed kallsyms lines: report reads every event" "$(counts "$T_TMP/ksym.dat")" "$want"
check_eq "malformed kallsyms lines: the remark counts them" \
	"$("$ATAG_CMD" report -f json "$T_TMP/ksym.dat" | jq -r '.remarks[]' | grep kallsyms)" \
	"$T_TMP/ksym.dat: its kallsyms hold 2 malformed lines (left out): addresses in the symbols they named show as addresses"

done_testing
