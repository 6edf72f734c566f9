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

done_testing
