#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# tier: normal build (AddressSanitizer's strcmp would come before the counting one)
# No step of report grows faster than n log n in the distinct stacks of a call site,
# measured without a clock: the strcmp() and memcmp() calls report makes (counted by
# tests/preload/atag-count-strcmp.so) on generated traces of one call site with 4 000
# and 16 000 distinct stacks (return addresses varying, as real kernels' do). A fold
# that compares each stack with the site's others made 16 times the calls for 4
# times the stacks (by their names' strings: 13.8 M and 218.6 M; by their names'
# pointers, memcmp: 6.9 M and 108.7 M); n log n makes about 4.6 times.
# The same counts stay flat in the tasks (1 000 and 16 000 tasks, the live allocations
# and their comms listed; atag-mkfixture --tasks): 79 020 in JSON, 94 897 in text.
# One step is measured with a clock, against report itself: --timeline (which prints
# the timeline alone) on 16 000 stacks all live at the peak took 11 times the time of
# a report of them when it scanned the peak's stacks found so far for each (64 000
# stacks: 12 s), 0.6 times since.
. "$(dirname "$0")/lib.sh"

COUNT=$ATAG_BUILD/tests/preload/atag-count-strcmp.so
# count N: strcmp and memcmp calls of report -f json on a trace with N distinct stacks,
# and the stacks
count() {
	mkfixture -o "$T_TMP/s$1.dat" --generate $(($1 * 10)) --tags 1 --stacks "$1" \
		--vary-returns --cpus 2 || { echo "fixture failed"; return; }
	ATAG_COUNT_FILE=$T_TMP/c$1 LD_PRELOAD=$COUNT "$ATAG_CMD" report -f json "$T_TMP/s$1.dat" \
		> "$T_TMP/s$1.json" 2>&1
	echo "$(cat "$T_TMP/c$1" 2>/dev/null) $(jq '.tags[0].stacks | length' "$T_TMP/s$1.json")"
}
set -- $(count 4000)
small=$1 stacks_small=$2
set -- $(count 16000)
big=$1 stacks_big=$2
check "the traces have the stacks asked for (about 3 700 and 14 700 distinct)" \
	test "${stacks_small:-0}" -gt 3000 -a "${stacks_big:-0}" -gt 12000
ratio=$(awk -v a="$small" -v b="$big" 'BEGIN { if (a > 0) printf "%.1f", b / a; else print "none" }')
check "4 times the stacks, at most 8 times the comparisons (counted: $small, $big: ${ratio}x)" \
	awk -v r="$ratio" 'BEGIN { exit !(r != "none" && r <= 8) }'

# tasks N FORMAT: strcmp and memcmp calls of report (its live allocations) with N tasks
tasks() {
	[ -f "$T_TMP/t$1.dat" ] || mkfixture -o "$T_TMP/t$1.dat" --generate 160000 --tasks "$1" \
		--tags 64 --live 16000 > /dev/null || { echo "fixture failed"; return; }
	view=
	[ "$2" = text ] && view=--live
	ATAG_COUNT_FILE=$T_TMP/ct$1 LD_PRELOAD=$COUNT "$ATAG_CMD" report -f "$2" $view \
		"$T_TMP/t$1.dat" > "$T_TMP/t$1.$2" 2>&1
	cat "$T_TMP/ct$1" 2> /dev/null
}
for fmt in json text; do
	small=$(tasks 1000 $fmt)
	big=$(tasks 16000 $fmt)
	ratio=$(awk -v a="$small" -v b="$big" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "none" }')
	check "$fmt: 16 times the tasks, at most twice the comparisons ($small, $big: ${ratio}x)" \
		awk -v r="$ratio" 'BEGIN { exit !(r != "none" && r <= 2) }'
done
comms=$(jq '[.live[].comm] | unique | length' "$T_TMP/t16000.json")
check "the live allocations are of thousands of tasks, named ($comms comms)" test "${comms:-0}" -gt 4000

# best FILE ARGS...: the least wall time of three runs of report ARGS on FILE
best() {
	f=$1
	shift
	for i in 1 2 3; do
		"$ATAG_BUILD/bench/atag-bench-run" "$ATAG_CMD" report "$@" "$f" | cut -d' ' -f1
	done | sort -n | head -n 1
}
mkfixture -o "$T_TMP/peak.dat" --generate 160000 --tags 1 --stacks 16000 --vary-returns \
	--cpus 2 --live 64000 > /dev/null || fail "fixture of stacks live at the peak"
at_peak=$("$ATAG_CMD" report --timeline -n 0 -f json "$T_TMP/peak.dat" |
	  jq '.timelines[0].peak.stacks | length')
check "the timeline's peak holds the stacks asked for (about 15 000: $at_peak)" \
	test "${at_peak:-0}" -gt 12000
plain=$(best "$T_TMP/peak.dat" -f json)
timeline=$(best "$T_TMP/peak.dat" --timeline -f json)
ratio=$(awk -v a="$plain" -v b="$timeline" 'BEGIN { printf "%.1f", (a > 0 ? b / a : 99) }')
check "--timeline at most 4 times report's time ($timeline s, $plain s: ${ratio}x)" \
	awk -v r="$ratio" 'BEGIN { exit !(r <= 4) }'

done_testing
