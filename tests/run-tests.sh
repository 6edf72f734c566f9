#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh BUILD_DIR [asan|tsan|quick]: run every test tier against one build:
# the CUnit suites, then each tests/t-*.sh script (quick: only those with a line
# "# tier: quick", generated files alone: no root, no tracefs, seconds). Appends "name passed failed
# skipped" lines to BUILD_DIR/check-results and prints the totals. A tsan build
# (make TSAN=1) holds only the suites of the two-thread pipeline, and its shell
# tiers are tests/tsan-*.sh.

[ -d "$1" ] || { echo "usage: $0 BUILD_DIR [asan|tsan]" >&2; exit 2; }
ATAG_BUILD=$(cd "$1" && pwd)
ATAG_SRC=$(cd "$(dirname "$0")/.." && pwd)
ATAG_RESULTS=$ATAG_BUILD/check-results
MODE=$2
export ATAG_BUILD ATAG_SRC ATAG_RESULTS
: > "$ATAG_RESULTS"
: > "$ATAG_BUILD/tier-times"	# "seconds tier", the slowest shown at the end

if [ "$MODE" = asan ]; then
	# stock trace-cmd loads our sanitized plugin: give it the runtime first
	ATAG_TRACECMD_ENV="LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0"
	export ATAG_TRACECMD_ENV
	export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99"
	export LSAN_OPTIONS="suppressions=$ATAG_SRC/tests/lsan.supp:print_suppressions=0"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=99"
	echo "== tests in $ATAG_BUILD (ASan+UBSan)"
elif [ "$MODE" = quick ]; then
	echo "== tests in $ATAG_BUILD (quick: the unit tests and the generated-file tiers)"
elif [ "$MODE" = tsan ]; then
	# a data race is a failure: the program ends with status 66 at the first one
	export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1"
	echo "== tests in $ATAG_BUILD (ThreadSanitizer)"
else
	echo "== tests in $ATAG_BUILD"
fi
cd "$ATAG_SRC" || exit 2

# 0. tracefs: as root, mounted where it is not (a fresh machine may have none mounted:
# the live tiers would skip), and unmounted again at the end
mounted_tracefs=
if [ "$MODE" != quick ] && [ "$(id -u)" = 0 ] && ! awk '$3 == "tracefs" { f = 1 } END { exit !f }' /proc/mounts &&
   [ -d /sys/kernel/tracing ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	mounted_tracefs=/sys/kernel/tracing
	echo "tracefs was not mounted: mounted on $mounted_tracefs for the tiers"
fi

# the top-level tracefs settings, to compare at the end (root only: as another
# user the tiers cannot change them)
state_before=$ATAG_BUILD/tracefs-state.before
instances_before=
rm -f "$state_before"
if [ "$MODE" = quick ]; then
	state_why="the quick tiers do not touch tracefs"
elif [ "$(id -u)" = 0 ] && sh tests/tracefs-state.sh > "$state_before.tmp" 2>&1; then
	mv "$state_before.tmp" "$state_before"
	# and the tool's instances there are (another run's): none may be added
	tfs_dir=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	instances_before=$ATAG_BUILD/instances.before
	ls "$tfs_dir/instances" 2>/dev/null | grep '^trace-cmd-alloc-tag-' > "$instances_before"
else
	state_why=$(if [ "$(id -u)" != 0 ]; then echo "not root"; else cat "$state_before.tmp"; fi)
	rm -f "$state_before.tmp"
fi

# 1. CUnit: the counts come from its Run Summary ("tests  total ran passed failed inactive")
log=$ATAG_BUILD/utest.log
"$ATAG_BUILD/tests/atag-utest" > "$log" 2>&1
rc=$?
grep -Ev '^\s*Test: .*passed$' "$log" | grep -v '^$' | tail -n 40
set -- $(awk '$1 == "tests" { print $3, $4, $5 }' "$log")
ran=${1:-0} passed=${2:-0} failed=${3:-0}
if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
	echo "atag-utest exited $rc without reporting a failure: counted as one"
	failed=1
fi
[ "$ran" = 0 ] && { echo "atag-utest ran no test"; failed=$((failed + 1)); }
echo "utest $passed $failed 0" >> "$ATAG_RESULTS"

# 2. the shell tiers, two at a time (three under ASan; $ATAG_JOBS): they mostly wait (on processes,
# the kernel, valgrind's start), so two keep both cores busy. A tier that changes
# the live kernel's tracing (a line "# tier: live") never runs beside another
# such tier, which would see its instances and processes as left behind. One
# that measures timing on the kernel (a line "# tier: alone") runs first, by
# itself. Each
# tier's output is shown whole when it ends; the longest ones start first.
tiers=$(ls tests/t-*.sh)
[ "$MODE" = tsan ] && tiers=$(ls tests/tsan-*.sh)
[ "$MODE" = quick ] && tiers=$(grep -l '^# tier: quick' tests/t-*.sh)
# A tier that tests no code of ours a sanitizer would watch beyond what the normal
# build runs (make install, bash completion, the layering, the README's commands,
# recordings of the kernel under load whose code other tiers run under ASan: a
# line "# tier: normal build") runs in the normal build only.
if [ "$MODE" = asan ]; then
	normal=$(grep -l '^# tier: normal build' $tiers)
	echo "normal build only:" $(basename -s .sh $normal)
	tiers=$(echo "$tiers" | grep -vxF "$normal")
fi
# under a sanitizer the timing of an "alone" tier means nothing: it runs with the others
alone=$([ "$MODE" = asan ] || grep -l '^# tier: alone' $tiers)	# first, one by one
tiers=$(echo "$tiers" | grep -vxF "$alone")
# a tier that mostly waits (a line "# tier: background") runs beside the workers, from
# when the alone tiers are done, rather than taking one of them for its whole length
background=$(grep -l '^# tier: background' $tiers)
tiers=$(echo "$tiers" | grep -vxF "$background")
tiers="$(echo "$tiers" | grep -E 't-(valgrind|record)\.sh$') $(echo "$tiers" | grep -vE 't-(valgrind|record)\.sh$')"
# under ASan the tiers wait less than they compute: three keep two cores busy
jobs=${ATAG_JOBS:-$([ "$MODE" = asan ] && echo 3 || echo 2)}
queue=$ATAG_BUILD/tiers.queue
lock=$ATAG_BUILD/tiers.lock
ATAG_LIVE_LOCK=$lock.live	# a tier that only briefly touches tracefs may take it itself
export ATAG_LIVE_LOCK
echo $tiers | tr ' ' '\n' > "$queue"
grep -l '^# tier: live' $tiers > "$queue.live"

run_tier() {	# run_tier SCRIPT: its output into a log, shown when it ends
	name=$(basename "$1" .sh)
	log=$ATAG_BUILD/$name.log
	t0=$(date +%s)
	if grep -q '^# tier: live' "$1"; then
		flock "$lock.live" sh "$1" > "$log" 2>&1
	else
		sh "$1" > "$log" 2>&1
	fi
	echo "$(($(date +%s) - t0)) $name" >> "$ATAG_BUILD/tier-times"
	flock "$lock" sh -c '
		cat "$1"
		grep -q "^$2 " "$3" || { echo "FAIL - $4 ended without done_testing"; echo "$2 0 1 0" >> "$3"; }
	' - "$log" "$name" "$ATAG_RESULTS" "$1"
}

# The next tier off the queue: the first one that can start now. A live tier waits
# while another holds the live lock: a worker takes the next tier that is not live
# instead, and blocks on the lock only when live tiers are all that is left (a
# worker blocked on the lock is a core the others cannot use).
next_tier() {
	flock "$lock.queue" sh -c '
		q=$1 live=$2 lk=$3 pick=
		while read -r t; do
			grep -qxF "$t" "$live" && ! flock -n "$lk" true && continue
			pick=$t
			break
		done < "$q"
		[ -n "$pick" ] || pick=$(head -n 1 "$q")
		[ -n "$pick" ] || exit 0
		grep -vxF "$pick" "$q" > "$q.new"
		mv "$q.new" "$q"
		echo "$pick"
	' - "$queue" "$queue.live" "$lock.live"
}

worker() {	# take tiers off the queue until it is empty
	while t=$(next_tier) && [ -n "$t" ]; do
		run_tier "$t"
	done
}

for t in $alone; do
	run_tier "$t"
done
# $ATAG_AFTER_ALONE: a command started once the alone tiers are done, waited for below
# (make check compiles the sanitizer builds then, not while the timing is measured)
[ -n "${ATAG_AFTER_ALONE:-}" ] && sh -c "$ATAG_AFTER_ALONE" &
for t in $background; do
	run_tier "$t" &
done
i=0
while [ $i -lt "$jobs" ]; do
	worker &
	i=$((i + 1))
done
wait
rm -f "$queue" "$queue.live" "$lock" "$lock.queue" "$lock.live"

# 3. the suite leaves no instance of the tool's behind (a tier sees only its own:
# instances_left in tests/lib.sh), and the top-level tracefs settings as it found them
if [ -n "$instances_before" ]; then
	ls "$tfs_dir/instances" 2>/dev/null | grep '^trace-cmd-alloc-tag-' |
		grep -vxF -f "$instances_before" > "$ATAG_BUILD/instances.left"
	if [ -s "$ATAG_BUILD/instances.left" ]; then
		echo "FAIL - tracefs-instances: the suite left instances behind:" \
			$(cat "$ATAG_BUILD/instances.left")
		echo "tracefs-instances 0 1 0" >> "$ATAG_RESULTS"
	else
		echo "ok - tracefs-instances: no instance of the tool's left behind"
		echo "tracefs-instances 1 0 0" >> "$ATAG_RESULTS"
	fi
fi
if [ -f "$state_before" ]; then
	sh tests/tracefs-state.sh > "$ATAG_BUILD/tracefs-state.after" 2>&1
	if diff -u "$state_before" "$ATAG_BUILD/tracefs-state.after" > "$ATAG_BUILD/tracefs-state.diff"
	then
		echo "ok - tracefs-state: top-level tracefs settings as the suite found them"
		echo "tracefs-state 1 0 0" >> "$ATAG_RESULTS"
	else
		echo "FAIL - tracefs-state: the suite changed top-level tracefs settings:"
		sed -n '3,$p' "$ATAG_BUILD/tracefs-state.diff" | grep '^[-+]' | head -20 |
			sed 's/^/    | /'
		echo "tracefs-state 0 1 0" >> "$ATAG_RESULTS"
	fi
else
	echo "skip - tracefs-state: $state_why"
	echo "tracefs-state 0 0 1" >> "$ATAG_RESULTS"
fi

if [ -n "$mounted_tracefs" ]; then
	umount "$mounted_tracefs" 2>/dev/null || echo "tracefs: cannot unmount $mounted_tracefs (busy): left mounted"
fi
echo "slowest tiers (s): $(sort -rn "$ATAG_BUILD/tier-times" | head -n 4 | tr '\n' ' ')"
awk '{ p += $2; f += $3; s += $4 } END { printf "%s: %d passed, %d failed, %d skipped\n", "'"$(basename "$ATAG_BUILD")"'", p, f, s }' "$ATAG_RESULTS"
