#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The two-thread pipeline under ThreadSanitizer (make check runs it on a TSAN=1
# build, with TSAN_OPTIONS from tests/run-tests.sh: the first data race ends a
# program with status 66). The pipe's unit tests ran before, from atag-utest; here
# reports of generated traces, one per source and one with the task filter over
# two files, are read on two threads and compared with ATAG_THREADS=1.
. "$(dirname "$0")/lib.sh"

D=$ATAG_SRC/tests/data

if nm "$ATAG_CMD" 2> /dev/null | grep -q __tsan_init; then
	ok "the command is built with ThreadSanitizer"
else
	fail "the command is built with ThreadSanitizer" "no __tsan_init in $ATAG_CMD"
fi

if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
	skip "threaded reports under ThreadSanitizer" "one CPU online: report stitches on one thread"
	done_testing
	exit
fi

mkfixture -o "$T_TMP/at.dat" --generate 100000 --seed 21 --live 400 --cpus 4 --stacks 32 ||
	fail "alloc_tag fixture"
mkfixture -o "$T_TMP/km.dat" --generate 60000 --seed 22 --live 200 --cpus 3 --source kmem ||
	fail "kmem fixture"
mkfixture -o "$T_TMP/many.dat" --generate 200000 --seed 3 --tags 4 --stacks 8000 \
	--vary-returns --cpus 3 --depth 14 > /dev/null || fail "many-stacks fixture"
mkfixture -o "$T_TMP/pg.dat" "$D/page.txt" || fail "page fixture"
mkfixture -o "$T_TMP/lt.dat" "$D/lifetimes.txt" || fail "lifetimes fixture"

# tsan_report NAME ARGS...: a threaded report is race-free and the same as with one thread
tsan_report() {
	name=$1
	shift
	ATAG_THREADS=${TWO:-2} "$ATAG_CMD" report -f json -n 0 "$@" > "$T_TMP/t2.json" 2> "$T_TMP/t2.err"
	rc2=$?
	ATAG_THREADS=1 "$ATAG_CMD" report -f json -n 0 "$@" > "$T_TMP/t1.json" 2> "$T_TMP/t1.err"
	rc1=$?
	if [ "$rc2" != 0 ] || grep -q ThreadSanitizer "$T_TMP/t2.err"; then
		fail "$name: two threads, no data race" "exit $rc2" "$(head -n 30 "$T_TMP/t2.err")"
	else
		ok "$name: two threads, no data race"
	fi
	if [ "$rc1" = 0 ] && [ -s "$T_TMP/t1.json" ] && cmp -s "$T_TMP/t1.json" "$T_TMP/t2.json" &&
	   cmp -s "$T_TMP/t1.err" "$T_TMP/t2.err"; then
		ok "$name: the same report as ATAG_THREADS=1"
	else
		fail "$name: the same report as ATAG_THREADS=1" "exit $rc1" \
			"$(diff "$T_TMP/t1.json" "$T_TMP/t2.json" | head -5)" \
			"$(diff "$T_TMP/t1.err" "$T_TMP/t2.err" | head -5)"
	fi
}

tsan_report "alloc_tag, stacks on 4 CPUs" "$T_TMP/at.dat"
tsan_report "kmem" "$T_TMP/km.dat"
# past 200 000 frames and stacks, the JSON's rows are written on two threads too
tsan_report "25 000 stacks: the rows written on two threads" "$T_TMP/many.dat"
tsan_report "page: call sites from stacks" --source page "$T_TMP/pg.dat"
tsan_report "task filter, two files" --comm 'foo-*' --pid 200 "$T_TMP/lt.dat" "$T_TMP/at.dat"
tsan_report "lifetimes: rows queued by the stitching thread, written by the reader" \
	-f lifetimes "$T_TMP/at.dat" "$T_TMP/km.dat"
tsan_report "report --diff: two reports, one diff" --diff "$T_TMP/lt.dat" "$T_TMP/at.dat"
# two threads, then one (what a busy CPU makes report do): the stitcher handed over
TWO=2to1 tsan_report "two threads going on with one" -f lifetimes "$T_TMP/at.dat"

done_testing
