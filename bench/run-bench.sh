#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-bench.sh BUILD_DIR: the report benchmark (make bench).
#
# Generates with the fixture writer a 20-million-event alloc_tag trace
# (uncompressed v6), a zstd v7 copy of it made by trace-cmd convert, and a
# 10-million-event trace with the same live set; then measures, side by side:
#   - events/s of "report --format json" on both files,
#   - events/s of a bare libtracecmd loop that only counts (the library's limit),
#   - events/s of "trace-cmd report > /dev/null",
#   - peak RSS of report at 10 M and 20 M events,
# best of $RUNS runs each (one run of the two slow baselines), and prints the
# ratios against the targets.
# BENCH_EVENTS (default 20000000) and BENCH_DIR (default BUILD_DIR/bench-data)
# may be set.
set -u
B=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
N=${BENCH_EVENTS:-20000000}
RUNS=${RUNS:-3}
DIR=${BENCH_DIR:-$B/bench-data}
LIVE=10000
mkdir -p "$DIR" || exit 1
run() { "$B/bench/atag-bench-run" "$@"; }

gen() {	# gen EVENTS FILE
	[ -s "$2" ] && return 0
	echo "generating $1 events into $2"
	"$B/tests/atag-mkfixture" -o "$2.tmp" --generate "$1" --seed 42 --live $LIVE --cpus 4 \
		--tags 256 --stacks 8 --depth 14 && mv "$2.tmp" "$2"
}
v6=$DIR/alloc-$N.dat
half=$DIR/alloc-$((N / 2)).dat
v7=$DIR/alloc-$N-zstd.dat
gen "$N" "$v6" || exit 1
gen $((N / 2)) "$half" || exit 1
if [ ! -s "$v7" ]; then
	echo "converting to a zstd v7 copy with trace-cmd convert"
	trace-cmd convert -i "$v6" -o "$v7.tmp" --file-version 7 --compression zstd \
		> /dev/null 2>&1 && mv "$v7.tmp" "$v7" || { echo "trace-cmd convert failed"; exit 1; }
fi

# best (shortest) wall time and its peak RSS over RUNS runs
best() {
	b=""
	for i in $(seq "$RUNS"); do
		r=$(run "$@") || { echo "FAILED: $*" >&2; echo "0 0"; return; }
		if [ -z "$b" ] || [ "$(echo "$r $b" | awk '{ print ($1 < $3) }')" = 1 ]; then b=$r; fi
	done
	echo "$b"
}
events() { "$B/bench/atag-bare-count" "$1" | awk '{ print $1 }'; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.2f", n / t / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }

ev=$(events "$v6")
evh=$(events "$half")
echo
echo "events: $ev in $(basename "$v6") ($(du -h "$v6" | cut -f1)), $(du -h "$v7" | cut -f1) as zstd v7"
set -- $(best "$B/bench/atag-bare-count" "$v6");			bare6=$1
set -- $(best "$B/trace-cmd-alloc-tag" report -f json "$v6");		rep6=$1 rss=$2
# libtracecmd 1.3.1 needs minutes on the zstd copy (its chunk lookups grow with the
# file): one run of it is the baseline
set -- $(RUNS=1 best "$B/bench/atag-bare-count" "$v7");		bare7=$1
set -- $(best "$B/trace-cmd-alloc-tag" report -f json "$v7");		rep7=$1 rss7=$2
set -- $(best "$B/trace-cmd-alloc-tag" report -f json "$half");	reph=$1 rssh=$2
set -- $(RUNS=1 best trace-cmd report -i "$v6");			tc6=$1

printf '\n%-44s %10s %10s\n' "" "M ev/s" "seconds"
printf '%-44s %10s %10s\n' "bare libtracecmd count loop, v6" "$(rate "$ev" "$bare6")" "$bare6"
printf '%-44s %10s %10s\n' "report --format json, v6" "$(rate "$ev" "$rep6")" "$rep6"
printf '%-44s %10s %10s\n' "bare libtracecmd count loop, v7 zstd" "$(rate "$ev" "$bare7")" "$bare7"
printf '%-44s %10s %10s\n' "report --format json, v7 zstd" "$(rate "$ev" "$rep7")" "$rep7"
printf '%-44s %10s %10s\n' "trace-cmd report > /dev/null, v6" "$(rate "$ev" "$tc6")" "$tc6"
echo
r6=$(ratio "$rep6" "$bare6")
r7=$(ratio "$rep7" "$bare7")
rt=$(ratio "$rep6" "$tc6")
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v >= t) ? "ok" : "BELOW TARGET" }'; }
echo "report / bare loop, v6:        ${r6}x  (target >= 0.7: $(verdict "$r6" 0.7))"
echo "report / bare loop, v7 zstd:   ${r7}x  (target >= 0.7: $(verdict "$r7" 0.7))"
echo "report / trace-cmd report:     ${rt}x  (target >= 10: $(verdict "$rt" 10))"
echo "peak RSS of report: $rssh KiB at $evh events, $rss KiB at $ev events (v6);" \
     "$rss7 KiB on the zstd copy"
awk -v a="$rssh" -v b="$rss" 'BEGIN { g = (b - a) / a * 100;
	printf "RSS growth when the events double with the same live set: %+.1f%% (%s)\n", g,
	(g < 10) ? "ok: does not grow" : "GROWS" }'
