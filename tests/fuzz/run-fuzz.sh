#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-fuzz.sh [--check] FUZZ_BUILD SECONDS [TARGET...]: run the libFuzzer targets
# of tests/fuzz/ (built by "make fuzz" into FUZZ_BUILD with ASan+UBSan), each for
# SECONDS, two at a time (default: all of them). --check keeps what the run
# finds in a scratch directory emptied first, so that every such run replays the
# same inputs: the seeds and the regression files.
#
# run-fuzz.sh --replay ASAN_BUILD [TARGET...] (make check): no fuzzing; each
# target's corpus and seeds replayed once by the replay-TARGET programs of the
# ASan+UBSan build (tests/fuzz/replay.c), results into ASAN_BUILD/fuzz-results.
#
# Each target starts from every input of tests/fuzz/corpus/TARGET/ (the seeds and
# the regression files: every crash found is added there), the seeds made from
# the fixtures into FUZZ_BUILD/seeds/TARGET/, and what earlier runs found
# (FUZZ_BUILD/corpus/TARGET/, where new inputs go). Before fuzzing, libFuzzer
# runs every one of those inputs once, so the regression files are checked at
# each run. A crash, a leak, a timeout (10 s) or 2 GiB of RSS stops the target;
# its input lands in FUZZ_BUILD/crashes/ and the script fails.
#
# Prints one line per target (executions, executions per second, corpus size) and
# appends "fuzz-TARGET passed failed skipped" lines to FUZZ_BUILD/check-results.
set -u
CHECK= REPLAY=
[ "${1:-}" = --check ] && { CHECK=1; shift; }
[ "${1:-}" = --replay ] && { REPLAY=1; shift; }
if [ -n "$REPLAY" ]; then
	[ $# -ge 1 ] || { echo "usage: $0 --replay ASAN_BUILD [TARGET...]" >&2; exit 2; }
	B=$(cd "$1" && pwd) || exit 2
	SECS=0
	shift
else
	[ $# -ge 2 ] || { echo "usage: $0 [--check] FUZZ_BUILD SECONDS [TARGET...]" >&2; exit 2; }
	B=$(cd "$1" && pwd) || exit 2
	SECS=$2
	shift 2
fi
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TARGETS=${*:-report pages plugin kallsyms allocinfo-text allocinfo-ioctl stat state}
RESULTS=$B/check-results
[ -n "$REPLAY" ] && RESULTS=$B/fuzz-results
: > "$RESULTS"
mkdir -p "$B/crashes" "$B/corpus" "$B/seeds"
# no allocation stacks and a small quarantine: the targets allocate much (libtraceevent's
# format parser), and these make them several times faster; a crash's report still
# has its stack (rerun an input with the defaults to see where its memory came from)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1:malloc_context_size=0:quarantine_size_mb=16"
# libtraceevent leaks on some formats it cannot parse: not ours to find
export LSAN_OPTIONS="suppressions=$SRC/tests/fuzz/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# Seeds made from the fixtures and the bundled trace, once per build.
seeds() {
	s=$B/seeds
	# made again when fuzz-seeds or this script changed (the seeds follow their layouts)
	[ -f "$s/.done" ] && [ "$s/.done" -nt "$B/tests/fuzz/fuzz-seeds" ] &&
		[ "$s/.done" -nt "$0" ] && return 0
	mk=$B/tests/atag-mkfixture
	mkdir -p "$s/report" "$s/kallsyms"
	for t in lifetimes kmem page; do
		"$mk" -o "$s/report/$t.dat" "$SRC/tests/data/$t.txt" > /dev/null || return 1
	done
	"$mk" -o "$s/report/gen.dat" --generate 600 --seed 3 --cpus 3 --live 20 --tags 8 \
		--stacks 2 --depth 4 > /dev/null || return 1
	"$mk" -o "$s/report/genk.dat" --generate 400 --seed 4 --cpus 2 --live 20 --tags 4 \
		--source kmem > /dev/null || return 1
	for c in zstd none; do
		trace-cmd convert -i "$s/report/lifetimes.dat" -o "$s/report/lifetimes-v7-$c.dat" \
			--file-version 7 --compression $c > /dev/null 2>&1
	done
	# files whose timestamps are converted: options DATE ("0x1000"), OFFSET ("100"),
	# TSC2NSEC (mult 1, shift 0, offset 1000); and one it does not know
	for o in date:"1 30783130303000" offset:"7 3130303000" \
		 tsc2nsec:"14 0100000000000000e803000000000000" unknown:"99 0102"; do
		{ cat "$SRC/tests/data/lifetimes.txt"; echo "option ${o#*:}"; } |
			"$mk" -o "$s/report/lifetimes-${o%%:*}.dat" - > /dev/null || return 1
	done
	head -c 65536 "$SRC/tests/data/sample.dat" > "$s/report/sample-head.dat"
	trace-cmd dump --kallsyms -i "$SRC/tests/data/sample.dat" 2>/dev/null |
		grep -v '^\s*\[' | head -c 16384 > "$s/kallsyms/sample"
	for t in lifetimes kmem; do
		trace-cmd dump --kallsyms -i "$s/report/$t.dat" 2>/dev/null | grep -v '^\s*\[' \
			> "$s/kallsyms/$t"
	done
	"$B/tests/fuzz/fuzz-seeds" "$s" || return 1
	# pages: u8 source, u16 bytes of CPU 0, then two pages of each CPU of a fixture
	mkdir -p "$s/pages"
	for f in lifetimes:0 kmem:1 page:2 gen:0 genk:1; do
		name=${f%:*} src=${f#*:}
		set -- $(trace-cmd dump --flyrecord -i "$s/report/$name.dat" 2>/dev/null |
			 awk '/offset, size of cpu/ { print $1, $2 }' | head -2 | tr '\n' ' ')
		[ $# = 4 ] || continue
		n0=$(($2 < 8192 ? $2 : 8192)) n1=$(($4 < 8192 ? $4 : 8192))
		{
			printf "\\$(printf %o "$src")\\$(printf %o $((n0 % 256)))\\$(printf %o $((n0 / 256)))"
			dd if="$s/report/$name.dat" bs=4096 skip=$(($1 / 4096)) count=$((n0 / 4096)) \
				2>/dev/null
			dd if="$s/report/$name.dat" bs=4096 skip=$(($3 / 4096)) count=$((n1 / 4096)) \
				2>/dev/null
		} > "$s/pages/$name"
	done
	touch "$s/.done"
}
if ! seeds; then
	echo "run-fuzz: cannot make the seeds"
	exit 1
fi

# Is target $t's program $bin there? If not, its lines say so (a failure).
built() {
	[ -x "$bin" ] && return 0
	echo "fuzz-$t: not built" > "$res"
	echo "fuzz-$t 0 1 0" > "$B/fuzz-$t.res"
	return 1
}

# one target's inputs replayed: its line into $B/fuzz-$t.result, its results line into
# $B/fuzz-$t.res
replay_target() {
	t=$1
	bin=$B/tests/fuzz/replay-$t
	res=$B/fuzz-$t.result
	built || return
	set --
	for d in "$SRC/tests/fuzz/corpus/$t" "$B/seeds/$t"; do
		[ -d "$d" ] && set -- "$@" "$d"
	done
	log=$B/fuzz-$t.log
	"$bin" "$@" > "$log.out" 2> "$log"
	rc=$?
	if [ "$rc" = 0 ]; then
		printf 'fuzz-%-16s %s replayed\n' "$t" "$(cat "$log.out")" > "$res"
		echo "fuzz-$t 1 0 0" > "$B/fuzz-$t.res"
	else
		{
			echo "FAIL - fuzz-$t: exit $rc on $(sed -n 's/^input: //p' "$log" | tail -n 1)" \
				"(log $log):"
			grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -10 | sed 's/^/    | /'
		} > "$res"
		echo "fuzz-$t 0 1 0" > "$B/fuzz-$t.res"
	fi
	rm -f "$log.out"
}

# one target: its line into $B/fuzz-$t.result, its results line into $B/fuzz-$t.res
run_target() {
	t=$1
	bin=$B/tests/fuzz/fuzz-$t
	res=$B/fuzz-$t.result
	built || return
	out=$B/corpus/$t
	[ -n "$CHECK" ] && { out=$B/check-corpus/$t; rm -rf "$out"; }
	mkdir -p "$out"
	set -- "$out"
	for d in "$SRC/tests/fuzz/corpus/$t" "$B/seeds/$t"; do
		[ -d "$d" ] && set -- "$@" "$d"
	done
	maxlen=4096 leaks=1
	# report: libtraceevent leaks on the formats fuzzing breaks, and checking every
	# such run for leaks (suppressed, tests/fuzz/lsan.supp) would cost most of the
	# time; the pages target and the ASan tier of make check look for leaks of ours
	[ "$t" = report ] && maxlen=65536 leaks=0
	[ "$t" = pages ] && maxlen=16387
	log=$B/fuzz-$t.log
	"$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=$maxlen \
		-detect_leaks=$leaks \
		-print_final_stats=1 -artifact_prefix="$B/crashes/$t-" "$@" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	units=$(ls "$out" | wc -l)
	if [ "$rc" = 0 ] && ! ls "$B/crashes" | grep -q "^$t-"; then
		printf 'fuzz-%-16s %10s runs %8s/s  %5s inputs found\n' "$t" "${execs:-?}" \
			"${rate:-?}" "$units" > "$res"
		echo "fuzz-$t 1 0 0" > "$B/fuzz-$t.res"
	else
		{
			echo "FAIL - fuzz-$t: exit $rc; the input is in $B/crashes/ (add it to" \
				"tests/fuzz/corpus/$t/ once fixed); log $log:"
			grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -10 |
				sed 's/^/    | /'
		} > "$res"
		echo "fuzz-$t 0 1 0" > "$B/fuzz-$t.res"
	fi
}

# two at a time (the machines it runs on have two cores or more)
run=run_target
[ -n "$REPLAY" ] && run=replay_target
set -- $TARGETS
while [ $# -gt 0 ]; do
	$run "$1" &
	if [ $# -gt 1 ]; then
		$run "$2" &
		shift
	fi
	shift
	wait
done
status=0
for t in $TARGETS; do
	cat "$B/fuzz-$t.result"
	cat "$B/fuzz-$t.res" >> "$RESULTS"
	grep -q ' 0 1 0$' "$B/fuzz-$t.res" && status=1
	rm -f "$B/fuzz-$t.result" "$B/fuzz-$t.res"
done
exit $status
