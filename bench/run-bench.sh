#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-bench.sh BUILD_DIR: the report benchmark (make bench).
#
# Every comparison runs its two commands side by side, A B A B ... ($RUNS pairs,
# default 5), and gives the median wall time of each, the median of the pair
# ratios (B's time over A's: how many times faster A is) and their spread (min ..
# max); machines drift, pairs keep the ratio honest. The commands' stdout goes to
# /dev/null (bench/atag-bench-run, which also gives peak RSS).
#
#  1. report --format json against the barest libtracecmd loop, as a plain user of
#     the library writes it (bench/atag-bare-count: tracecmd_open(FILE, 0), the
#     records of every buffer counted by tracecmd_iterate_events()), on generated
#     alloc_tag traces of BENCH_SIZES events (default 2 and 20 million; 10 000 live
#     allocations, 256 call sites, 14-frame stacks), uncompressed v6 and a zstd v7
#     copy made by trace-cmd convert; report with the default choice of threads,
#     and at 2 M with one thread and two (ATAG_THREADS=1, 2). libtracecmd 1.3.1
#     needs minutes on a large zstd file (up to a quarter of an hour at 20 M on a
#     busy 2-core machine): that loop runs once ($SLOW_RUNS) there, against report.
#     Also report's reading alone (bench/atag-bench-read: records decoded into
#     events, not stitched) against the same loop.
#  2. shapes: the same comparison on the generator's other shapes ($SHAPES below:
#     one stack a call site, 100 000 and 50 000 distinct stacks, 16 and 64 CPUs, a
#     live set of a million, quarter-page records, lifetimes from a microsecond to
#     two hours), each v6 and zstd v7.
#  3. recorded: the same comparison on a recording made now by record --kmem of
#     find /usr/lib (slab and page events, sampled stacks, record's instance
#     buffer); needs root and tracefs.
#  4. vm: the same comparison on an alloc_tag recording of the VM tier's guest
#     (tests/vm/record-bench.sh), kept in the VM tier's cache; BENCH_VM below.
#  5. report against "trace-cmd report > /dev/null" at 2 M events (one pair).
#  6. startup: report against trace-cmd report on the bundled sample trace.
#  7. report --source kmem against perf kmem --caller stat, each on its own
#     recording of the same workload (a 100 000-iteration open/read/close loop,
#     and find over /usr), recorded by "record --kmem --no-stack" and by "perf kmem
#     record" (both system-wide, no stacks); needs root, tracefs and perf.
#  8. peak RSS of report at each size: memory follows the live allocations, not
#     the events.
#  9. the observer: a workload (find /usr/lib -name '*.so*', warm cache, its own time
#     measured inside the recording) recorded by record --kmem with the default
#     sampled stacks and with --all-stacks, each against --no-stack, side by side
#     ($RUNS pairs): the workload's time, and the p90 lifetime of every call site
#     with 2 000 frees or more in both (the median of those ratios); needs root.
# 10. leaks' memory over time (issue 27): leaks --kmem with its default sampled
#     stacks on a churning workload (short-lived processes opening, reading and
#     closing files, mapping and unmapping memory), its RSS after 10 s and after
#     LEAKS_LONG s (default 600: ten minutes), and their ratio; needs root.
# BENCH_PARTS chooses parts (default "loop shapes recorded vm tc startup perf
# observer leaks": 1 and 8, 2, 3, 4, 5, 6, 7, 9, 10).
# Then the ratios against the targets of issues 13 and 28, and the speed table of
# bench/README.md ($B/bench-results.md; BENCH_README=1 writes it into
# bench/README.md between its markers).
#
# BENCH_DIR (default BUILD_DIR/bench-data) keeps the generated traces.
set -u
B=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
SIZES=${BENCH_SIZES:-"2000000 20000000"}
RUNS=${RUNS:-5}
PARTS=${BENCH_PARTS:-"loop shapes recorded vm tc startup perf observer leaks"}
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
SLOW_RUNS=${SLOW_RUNS:-1}
SLOW_SHAPE_RUNS=${SLOW_SHAPE_RUNS:-3}
DIR=${BENCH_DIR:-$B/bench-data}
CMD=$B/trace-cmd-alloc-tag
BARE=$B/bench/atag-bare-count
READ=$B/bench/atag-bench-read
RESULTS=$B/bench-results.md
mkdir -p "$DIR" || exit 1
set -f
# the load average (1, 5, 15 min) at the start and the end: how quiet the machine was
load0=$(cut -d' ' -f1-3 /proc/loadavg)

gen() {	# gen EVENTS FILE
	[ -s "$2" ] && return 0
	echo "generating $1 events into $2"
	"$B/tests/atag-mkfixture" -o "$2.tmp" --generate "$1" --seed 42 --live 10000 --cpus 4 \
		--tags 256 --stacks 8 --depth 14 > /dev/null && mv "$2.tmp" "$2"
}
zstd_copy() {	# zstd_copy V6 V7
	[ -s "$2" ] && return 0
	echo "converting $1 to zstd v7 with trace-cmd convert"
	trace-cmd convert -i "$1" -o "$2.tmp" --file-version 7 --compression zstd \
		> /dev/null 2>&1 && mv "$2.tmp" "$2"
}

# side NAME PAIRS "COMMAND A" "COMMAND B": one line of figures, and into $RESULTS
# "name|tA|tB|ratio|min|max|pairs|A's peak RSS (MiB)"; A's peak RSS (KiB) in $rss.
# The files the commands name are read once first: a machine may reclaim the page
# cache behind a file not read for a while (this one's kdamond does), and the
# command that came first would read it from disk, in the first pair only.
side() {
	name=$1 pairs=$2 a=$3 b=$4
	: > "$DIR/side.txt"
	for w in $a $b; do
		[ -f "$w" ] && [ "$(stat -c %s "$w")" -gt 1048576 ] && cat "$w" > /dev/null
	done
	i=0
	while [ $i -lt "$pairs" ]; do
		ra=$("$B/bench/atag-bench-run" $a 2>> "$DIR/stderr.log") ||
			{ echo "FAILED: $a" >&2; return 1; }
		rb=$("$B/bench/atag-bench-run" $b 2>> "$DIR/stderr.log") ||
			{ echo "FAILED: $b" >&2; return 1; }
		echo "$ra $rb" >> "$DIR/side.txt"
		i=$((i + 1))
	done
	set -- $(awk '
		function med(v, n,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		{ n++; ta[n] = $1; tb[n] = $3; r[n] = $3 / $1; rr[n] = r[n]; rs[n] = $2
		  if (n == 1 || r[n] < lo) lo = r[n]; if (n == 1 || r[n] > hi) hi = r[n] }
		END { printf "%.3f %.3f %.2f %.2f %.2f %d\n", med(ta, n), med(tb, n), med(rr, n),
			lo, hi, med(rs, n) }' "$DIR/side.txt")
	printf '%-46s %8ss %8ss %6sx  (%s .. %s, %s pairs)\n' "$name" "$1" "$2" "$3" "$4" "$5" \
		"$pairs"
	echo "$name|$1|$2|$3|$4|$5|$pairs|$(($6 / 1024))" >> "$DIR/results.txt"
	rss=$6
	last_ratio=$3
}

# why_not PART: why a part that records is not measured (not asked for, not root,
# no tracefs), or nothing
why_not() {
	if ! part "$1"; then
		echo "not asked for (BENCH_PARTS)"
	elif [ "$(id -u)" != 0 ]; then
		echo "needs root to record"
	elif [ -z "$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)" ]; then
		echo "no tracefs"
	fi
}

: > "$DIR/results.txt"
if part loop; then
	echo "== report --format json against the bare libtracecmd count loop (B/A: times faster)"
	printf '%-46s %9s %9s %7s\n' "" "A" "B" "B/A"
	for n in $SIZES; do
		v6=$DIR/alloc-$n.dat v7=$DIR/alloc-$n-zstd.dat
		gen "$n" "$v6" || exit 1
		zstd_copy "$v6" "$v7" || exit 1
		m=$(awk -v n="$n" 'BEGIN { printf "%g M", n / 1e6 }')
		side "report / bare loop, v6, $m" "$RUNS" "$CMD report -f json $v6" "$BARE $v6" || exit 1
		eval "rss_$n=\$rss"
		side "  reading alone / bare loop, v6, $m" "$RUNS" "$READ $v6" "$BARE $v6" || exit 1
		if [ "$n" = "$(echo $SIZES | cut -d' ' -f1)" ]; then
			side "  one thread (ATAG_THREADS=1), v6, $m" "$RUNS" \
				"env ATAG_THREADS=1 $CMD report -f json $v6" "$BARE $v6" || exit 1
			side "  two threads (ATAG_THREADS=2), v6, $m" "$RUNS" \
				"env ATAG_THREADS=2 $CMD report -f json $v6" "$BARE $v6" || exit 1
		fi
		p=$RUNS
		[ "$n" -gt 5000000 ] && p=$SLOW_RUNS
		side "report / bare loop, zstd v7, $m" "$p" "$CMD report -f json $v7" "$BARE $v7" || exit 1
		# the baseline takes minutes a run there: once is enough
		if [ "$p" = "$RUNS" ]; then
			side "  reading alone / bare loop, zstd v7, $m" "$p" "$READ $v7" "$BARE $v7" || exit 1
		fi
	done
fi

# The shapes of issue 28: the generator with other parameters, each uncompressed v6
# and zstd v7 ("name|events|mkfixture arguments")
SHAPES="one stack per hit, live 1 000|2000000|--seed 7 --tags 64 --stacks 1 --live 1000 --cpus 4
100k distinct stacks|2000000|--seed 8 --tags 256 --stacks 400 --vary-returns --live 10000 --depth 14
50k distinct stacks, 16 CPUs|2000000|--seed 9 --tags 256 --stacks 210 --vary-returns --live 10000 --cpus 16 --depth 14
16 CPUs|2000000|--seed 10 --tags 256 --stacks 8 --live 10000 --cpus 16 --depth 14
64 CPUs|2000000|--seed 11 --tags 256 --stacks 8 --live 10000 --cpus 64 --depth 14
live set of 1 M|6000000|--seed 12 --tags 256 --stacks 8 --live 1000000 --depth 14
quarter-page records (124 frames)|2000000|--seed 13 --tags 256 --stacks 8 --live 10000 --depth 124
lifetimes 1 us .. 2 h|2000000|--seed 14 --tags 256 --stacks 8 --lifetimes 1000:7200000000000 --depth 14"
if part shapes; then
	echo
	echo "== report --format json against the bare loop, on other shapes (B/A: times faster)"
	echo "$SHAPES" | while IFS="|" read -r shape n args; do
		f=$DIR/shape-$(echo "$shape" | tr -c 'a-zA-Z0-9\n' - | tr -s -)
		if [ ! -s "$f.dat" ]; then
			echo "generating $shape ($n events) into $f.dat"
			"$B/tests/atag-mkfixture" -o "$f.tmp" --generate "$n" $args > /dev/null &&
				mv "$f.tmp" "$f.dat" || exit 1
		fi
		zstd_copy "$f.dat" "$f-zstd.dat" || exit 1
		side "shape: $shape, v6" "$RUNS" "$CMD report -f json $f.dat" "$BARE $f.dat" || exit 1
		# libtracecmd's zstd reading grows with the file (a minute and more a run
		# on the largest): fewer pairs where one run of the loop takes over 20 s
		p=$RUNS
		t=$("$B/bench/atag-bench-run" $BARE "$f-zstd.dat" | cut -d' ' -f1)
		awk -v t="$t" 'BEGIN { exit !(t > 20) }' && [ "$p" -gt "$SLOW_SHAPE_RUNS" ] &&
			p=$SLOW_SHAPE_RUNS
		side "shape: $shape, zstd v7" "$p" "$CMD report -f json $f-zstd.dat" \
			"$BARE $f-zstd.dat" || exit 1
	done || exit 1
fi

# A real recording of this machine, made now: record --kmem (slab and page events,
# the default sampled stacks, recorded in record's instance buffer) of find /usr/lib
echo
echo "== report --format json against the bare loop, on recordings"
why=$(why_not recorded)
if [ -z "$why" ]; then
	find /usr/lib > /dev/null
	if "$CMD" record --kmem -b 16384 -o "$DIR/kmem-find-stacks.dat" -- find /usr/lib \
			> "$DIR/rec.log" 2>&1; then
		echo "recorded: $("$BARE" "$DIR/kmem-find-stacks.dat")," \
			"$(wc -c < "$DIR/kmem-find-stacks.dat") bytes"
		side "recorded now: record --kmem of find /usr/lib" "$RUNS" \
			"$CMD report -f json $DIR/kmem-find-stacks.dat" \
			"$BARE $DIR/kmem-find-stacks.dat" || exit 1
	else
		why="record --kmem failed: $(tail -1 "$DIR/rec.log")"
	fi
fi
[ -n "$why" ] && echo "record --kmem not measured: $why"

# An alloc_tag recording of the VM tier's guest (tests/vm/record-bench.sh: the test
# kernel under QEMU, guest-bench.sh's workload). Kept in the VM tier's cache beside
# the kernels, made again when guest-bench.sh changes: BENCH_VM=0 skips it, 1 makes
# it again; unset, it boots the VM only when the cache has none.
why=""
part vm || why="not asked for (BENCH_PARTS)"
VMC=${ATAG_VM_CACHE:-/var/cache/trace-cmd-alloc-tag/vm}
key=$(cksum < "$SRC/tests/vm/guest-bench.sh" | cut -d' ' -f1)
vmdat=$VMC/bench-alloc-tag-$key.dat
[ -z "$why" ] && [ "${BENCH_VM:-}" = 0 ] && why="BENCH_VM=0"
if [ -z "$why" ] && { [ "${BENCH_VM:-}" = 1 ] || [ ! -s "$vmdat" ]; }; then
	echo "recording the VM guest's alloc_tag trace (tests/vm/record-bench.sh, a few minutes)"
	mkdir -p "$VMC" 2> /dev/null
	if ! "$SRC/tests/vm/record-bench.sh" "$B" "$vmdat" > "$DIR/vm.log" 2>&1; then
		why="the VM did not record it: $(tail -1 "$DIR/vm.log") ($DIR/vm.log)"
		rm -f "$vmdat"
	fi
fi
if [ -z "$why" ]; then
	echo "the VM guest's recording: $vmdat, $("$BARE" "$vmdat")"
	side "VM guest: record --traced, alloc_tag" "$RUNS" "$CMD report -f json $vmdat" \
		"$BARE $vmdat" || exit 1
fi
[ -n "$why" ] && echo "the VM guest's recording not measured: $why"

first=$(echo $SIZES | cut -d' ' -f1)
echo
echo "== against trace-cmd report (one pair), and startup on the bundled sample"
if part tc; then
	gen "$first" "$DIR/alloc-$first.dat" || exit 1
	side "report / trace-cmd report, v6, $(awk -v n="$first" 'BEGIN { printf "%g M", n / 1e6 }')" \
		1 "$CMD report -f json $DIR/alloc-$first.dat" "trace-cmd report -i $DIR/alloc-$first.dat" ||
		exit 1
fi
if part startup; then
	side "startup: report / trace-cmd report, sample" 9 "$CMD report $SRC/tests/data/sample.dat" \
		"trace-cmd report -i $SRC/tests/data/sample.dat" || exit 1
fi

echo
echo "== report --source kmem against perf kmem --caller stat, same workload recorded both ways"
why=$(why_not perf)
[ -z "$why" ] && ! command -v perf > /dev/null && why="no perf"
if [ -z "$why" ]; then
	for w in loop find; do
		case $w in
		loop) work="$B/bench/atag-bench-loop 100000" ;;
		find) work="find /usr -xdev" ;;
		esac
		ours=$DIR/kmem-$w.dat theirs=$DIR/kmem-$w.perf
		if ! "$CMD" record --kmem --no-stack -b 65536 -o "$ours" -- $work \
				> "$DIR/rec.log" 2>&1; then
			why="record --kmem failed: $(tail -1 "$DIR/rec.log")"
			break
		fi
		if ! perf kmem record -o "$theirs" -- $work > "$DIR/rec.log" 2>&1; then
			why="perf kmem record failed: $(tail -1 "$DIR/rec.log")"
			break
		fi
		eo=$("$CMD" report --source kmem -f json "$ours" 2>/dev/null | jq '.files[0].records')
		et=$(perf script -i "$theirs" -F event 2>/dev/null | wc -l)
		echo "$w: $eo events recorded by record --kmem, $et by perf kmem record" \
			"(system-wide: what else ran differs)"
		side "report --source kmem / perf kmem, $w" "$RUNS" \
			"$CMD report --source kmem -f json $ours" \
			"perf kmem -i $theirs --caller stat" || exit 1
		awk -v r="$last_ratio" -v eo="$eo" -v et="$et" 'BEGIN {
			printf "%-46s %6.2fx  (per event recorded)\n", "", r * eo / et }'
	done
fi
[ -n "$why" ] && echo "not measured: $why"

echo
echo "== the observer: record --kmem of find /usr/lib, stacks against --no-stack"
why=$(why_not observer)
# obs NAME ARGS...: one recording; the workload's own time (s) in $DIR/NAME.s, the
# p90 of its busy call sites in $DIR/NAME.p90 ("site p90" lines)
obs() {
	name=$1; shift
	printf 't0=$(date +%%s%%N); find /usr/lib -name "*.so*" > /dev/null; ' > "$DIR/obs.sh"
	printf 'echo $(($(date +%%s%%N) - t0)) > %s/%s.ns\n' "$DIR" "$name" >> "$DIR/obs.sh"
	"$CMD" record --kmem -b 16384 "$@" -o "$DIR/$name.dat" -- sh "$DIR/obs.sh" \
		> "$DIR/rec.log" 2>&1 || return 1
	awk '{ printf "%.4f\n", $1 / 1e9 }' "$DIR/$name.ns" > "$DIR/$name.s"
	"$CMD" report -f json -n 0 "$DIR/$name.dat" 2>/dev/null | jq -r '.tags[] |
		select(.frees >= 2000) | "\(.source):\(.function) \(.lifetime_ns.p90)"' |
		sort > "$DIR/$name.p90"
}
if [ -z "$why" ]; then
	find /usr/lib -name '*.so*' > /dev/null
	for mode in sampled all; do
		: > "$DIR/obs-$mode.txt"
		i=0
		while [ $i -lt "$RUNS" ]; do
			flag=; [ $mode = all ] && flag=--all-stacks
			obs none --no-stack && obs $mode $flag ||
				{ why="record --kmem failed: $(tail -1 "$DIR/rec.log")"; break 2; }
			p90=$(join "$DIR/none.p90" "$DIR/$mode.p90" | awk '$2 > 0 { print $3 / $2 }' |
			      sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }')
			echo "$(cat "$DIR/$mode.s") $(cat "$DIR/none.s") $p90" >> "$DIR/obs-$mode.txt"
			i=$((i + 1))
		done
		set -- $(awk '
			function med(v, n,   i, j, t) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
					if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
				return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			}
			{ n++; a[n] = $1; b[n] = $2; r[n] = $1 / $2; p[n] = $3
			  if (n == 1 || r[n] < lo) lo = r[n]; if (n == 1 || r[n] > hi) hi = r[n] }
			END { printf "%.3f %.3f %.2f %.2f %.2f %.2f\n", med(a, n), med(b, n), med(r, n),
				lo, hi, med(p, n) }' "$DIR/obs-$mode.txt")
		label="find: ${mode} stacks / --no-stack"
		[ $mode = sampled ] && label="find: sampled stacks (default) / --no-stack"
		printf '%-46s %8ss %8ss %6sx  (%s .. %s, %s pairs; p90 lifetimes %sx)\n' \
			"$label" "$1" "$2" "$3" "$4" "$5" "$RUNS" "$6"
		echo "observer $label|$1|$2|$3|$4|$5|$RUNS|$6" >> "$DIR/results.txt"
	done
fi
[ -n "$why" ] && echo "not measured: $why"

echo
echo "== memory"
set -- $SIZES
rss_a=$(eval echo "\${rss_$1:-0}") rss_b=$(eval echo "\${rss_${2:-$1}:-0}")
growth=$(awk -v a="$rss_a" -v b="$rss_b" 'BEGIN { printf "%+.1f", a ? (b - a) / a * 100 : 0 }')
if part loop; then
	echo "peak RSS of report: $rss_a KiB at $1 events, $rss_b KiB at ${2:-$1} events ($growth%)"
	echo "peak RSS|$rss_a|$rss_b|$growth" >> "$DIR/results.txt"
fi

# leaks_rss: part 10, a line of figures, and "leaks RSS|10 s|long|ratio" into results.txt
leaks_rss() {
	long=${LEAKS_LONG:-600}
	wl=$B/tests/progs/atag-workload
	echo
	echo "== leaks: RSS over time on a churning workload (issue 27)"
	if [ "$(id -u)" != 0 ] || [ ! -d /sys/kernel/tracing/events/kmem/kmalloc ]; then
		echo "not measured: needs root and the kmem events"
		return
	fi
	if [ "$long" -le 10 ]; then
		echo "not measured: LEAKS_LONG ($long s) must be more than 10 s"
		return
	fi
	out=$DIR/leaks-churn.json
	"$CMD" leaks --kmem -m 2s -d 1s -t "${long}s" -f json -- sh -c \
		"while :; do '$wl' loop 300; '$wl' vma 100; sleep 0.1; done" \
		> "$out" 2> "$DIR/leaks-churn.err" &
	lp=$!
	# an interval a second: RSS at the 10th line, and at the last one but one
	"$B/tests/progs/atag-await" -t 60 lines "$out" 10
	r10=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$lp/status" 2>/dev/null)
	"$B/tests/progs/atag-await" -t $((long + 60)) lines "$out" $((long - 1))
	rlong=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$lp/status" 2>/dev/null)
	"$B/tests/progs/atag-await" -t 30 exit $lp || kill -INT $lp
	wait $lp
	recs=$(tail -n 1 "$out" | jq .records 2>/dev/null)
	ratio=$(awk -v a="${r10:-0}" -v b="${rlong:-0}" 'BEGIN { printf "%.2f", a ? b / a : 0 }')
	echo "RSS of leaks --kmem: ${r10:-?} KiB after 10 s, ${rlong:-?} KiB after $long s" \
		"(${ratio}x; ${recs:-?} records read)"
	echo "leaks RSS|${r10:-0}|${rlong:-0}|$ratio" >> "$DIR/results.txt"
	awk -v r="$ratio" -v l="$long" 'BEGIN { printf "%-46s %6sx  target <= 1.3: %s\n",
		"leaks RSS after " l " s / after 10 s", r, (r > 0 && r <= 1.3) ? "met" : "NOT MET" }'
}
part leaks && leaks_rss

echo
echo "== targets (issues 13 and 28)"
verdict() {	# verdict NAME-PATTERN TARGET
	awk -F'|' -v p="$1" -v t="$2" 'index($1, p) == 1 {
		printf "%-46s %6sx  target >= %s: %s\n", $1, $4, t, ($4 >= t) ? "met" : "NOT MET" }' \
		"$DIR/results.txt"
}
verdict "report / bare loop" 1.5
verdict "shape: " 1.5
verdict "recorded now: " 1.5
verdict "VM guest: " 1.5
verdict "report --source kmem" 1.0
verdict "startup" 1.0
part loop && awk -v g="$growth" 'BEGIN { printf "%-46s %6s%%  target: flat: %s\n", "RSS growth with the events", g,
	(g < 10 && g > -10) ? "met" : "NOT MET" }'
# issue 24: the workload at most 1.5 times as long with the default stacks
awk -F'|' 'index($1, "observer find: sampled") == 1 {
	printf "%-46s %6sx  target <= 1.5: %s; p90 lifetimes %sx, target within 25%%: %s\n",
		substr($1, 10), $4, ($4 <= 1.5) ? "met" : "NOT MET", $8,
		($8 >= 0.75 && $8 <= 1.25) ? "met" : "NOT MET" }' "$DIR/results.txt"

# the speed table of bench/README.md
load1=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "| measured side by side (A against B)               |      A |      B | A faster | spread      | pairs | A's RSS |"
	echo "| ------------------------------------------------- | -----: | -----: | -------: | ----------- | ----: | ------: |"
	awk -F'|' 'NF == 8 && !/^observer / {
		printf "| %-49s | %5.2fs | %5.2fs | %7.2fx | %4.2f .. %4.2f | %5d | %3d MiB |\n",
		$1, $2, $3, $4, $5, $6, $7, $8 }' "$DIR/results.txt"
	echo
	if grep -q '^observer ' "$DIR/results.txt"; then
		echo "| the workload's own time, recorded (A) against --no-stack (B) | A | B | A/B | spread | pairs | p90 lifetimes |"
		echo "| ------------------------------------------------- | -----: | -----: | -------: | ----------- | ----: | ----: |"
		awk -F'|' '/^observer / { printf "| %-49s | %5.2fs | %5.2fs | %7.2fx | %4.2f .. %4.2f | %5d | %5.2fx |\n",
			substr($1, 10), $2, $3, $4, $5, $6, $7, $8 }' "$DIR/results.txt"
		echo
	fi
	if part loop; then
		echo "Peak RSS of report: $rss_a KiB at $1 events, $rss_b KiB at ${2:-$1} events" \
			"($growth%)."
	fi
	echo "Load average (1, 5, 15 min): $load0 at the start, $load1 at the end."
} > "$RESULTS"
echo
echo "the speed table written to $RESULTS"
if [ "${BENCH_README:-}" = 1 ]; then
	awk -v f="$RESULTS" '
		/<!-- bench:end -->/ { skip = 0 }
		!skip { print }
		/<!-- bench:begin -->/ { while ((getline l < f) > 0) print l; skip = 1 }' \
		"$SRC/bench/README.md" > "$DIR/README.new" &&
		mv "$DIR/README.new" "$SRC/bench/README.md" && echo "bench/README.md updated"
fi
