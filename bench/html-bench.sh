#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# html-bench.sh BUILD_DIR: the HTML report of large traces (make bench-html; not
# part of make check).
#
#  1. report -f html of generated alloc_tag traces of BENCH_SIZES events (default
#     2 and 20 million: run-bench.sh's traces, made the same way when missing):
#     wall time and peak RSS (bench/atag-bench-run), median of $RUNS runs, next
#     to report -f json of the same file. Flat memory: the 20 M page takes about
#     the peak RSS of the 2 M one (the live allocations and stacks are alike), and
#     its size does not grow with events.
#  2. each page opened in headless Chromium (as tests/t-html.sh does): the time the
#     page took to draw (its data-render-ms: navigation to the last drawing, in the
#     browser's clock) and the browser's wall time, start-up included. The issue's
#     bar: the 20 M page draws in under 5 s.
# Results in $B/html-bench.md. BENCH_DIR (default BUILD_DIR/bench-data) keeps the
# traces and pages.
set -u
B=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
SIZES=${BENCH_SIZES:-"2000000 20000000"}
RUNS=${RUNS:-3}
DIR=${BENCH_DIR:-$B/bench-data}
CMD=$B/trace-cmd-alloc-tag
RESULTS=$B/html-bench.md
mkdir -p "$DIR" || exit 1

gen() {	# gen EVENTS FILE: as run-bench.sh makes them
	[ -s "$2" ] && return 0
	echo "generating $1 events into $2"
	"$B/tests/atag-mkfixture" -o "$2.tmp" --generate "$1" --seed 42 --live 10000 --cpus 4 \
		--tags 256 --stacks 8 --depth 14 > /dev/null && mv "$2.tmp" "$2"
}

# median of the first fields of stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# measure NAME COMMAND...: "wall rss" medians of $RUNS runs
measure() {
	: > "$DIR/html-runs.txt"
	i=0
	while [ $i -lt "$RUNS" ]; do
		"$B/bench/atag-bench-run" "$@" >> "$DIR/html-runs.txt" 2>> "$DIR/html-stderr.log" ||
			{ echo "FAILED: $*" >&2; return 1; }
		i=$((i + 1))
	done
	echo "$(cut -d' ' -f1 "$DIR/html-runs.txt" | median) $(cut -d' ' -f2 "$DIR/html-runs.txt" | median)"
}

# browse PAGE: "draw_ms wall_ms" of the page in headless Chromium
browse() {
	profile=$(mktemp -d)
	t0=$(date +%s%N)
	timeout 300 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --proxy-server=socks5://127.0.0.1:9 \
		--host-resolver-rules='MAP * ~NOTFOUND' \
		--user-data-dir="$profile" --virtual-time-budget=5000 \
		--enable-logging=stderr --v=0 --dump-dom "file://$1" > "$1.dom" 2> "$1.log"
	t1=$(date +%s%N)
	rm -rf "$profile"
	grep -q ':CONSOLE' "$1.log" && echo "console messages: $(grep ':CONSOLE' "$1.log")" >&2
	ms=$(sed -n 's/.*data-render-ms="\([0-9]*\)".*/\1/p' "$1.dom" | head -1)
	echo "${ms:-none} $(((t1 - t0) / 1000000))"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "| events | html: wall s | html: peak RSS KiB | json: wall s | json: peak RSS KiB |" \
	     "page KiB | page drawn in ms | chromium wall ms |"
	echo "|---|---|---|---|---|---|---|---|"
} > "$RESULTS"
bar=ok
for n in $SIZES; do
	f=$DIR/alloc-$n.dat
	gen "$n" "$f" || exit 1
	set -- $(measure "$CMD" report -f html -o "$DIR/alloc-$n.html" "$f") || exit 1
	hw=$1 hr=$2
	set -- $(measure "$CMD" report -f json "$f") || exit 1
	jw=$1 jr=$2
	kib=$(($(stat -c %s "$DIR/alloc-$n.html") / 1024))
	if command -v chromium > /dev/null; then
		set -- $(browse "$DIR/alloc-$n.html")
		draw=$1 wall=$2
	else
		draw="no chromium" wall="-"
	fi
	echo "| $n | $hw | $hr | $jw | $jr | $kib | $draw | $wall |" >> "$RESULTS"
	[ "$n" = 20000000 ] && { [ "$draw" = none ] || [ "$draw" -ge 5000 ] 2>/dev/null; } &&
		bar="MISSED (the 20 M page drew in $draw ms)"
done
echo >> "$RESULTS"
echo "load average at the start: $load0; at the end: $(cut -d' ' -f1-3 /proc/loadavg)" \
	>> "$RESULTS"
echo "the 20 M page under 5 s: $bar" >> "$RESULTS"
cat "$RESULTS"
