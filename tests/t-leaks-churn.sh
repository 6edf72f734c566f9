#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: touches tracefs (an instance of its own), beside the other tiers
# leaks' memory on a churning workload (issue 27): leaks --kmem with its default
# sampled stacks watches, for 40 s, processes that come and go and allocate and free
# (new pids, new tasks' names, the same call sites); its RSS at 40 s stays within
# 1.3 times its RSS at 10 s. Memory follows the live allocations and the distinct
# stacks, never the events or the time.
#
# Not a "live" tier: it only adds an instance of its own (instances_left counts what
# is ours), and its 40 s overlap the live tiers instead of adding to their chain. Its
# workload sleeps between bursts, to leave the machine to the other tiers; it mostly
# waits, so it runs beside the two workers rather than taking one:
# tier: background
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/live.sh"
WL=$ATAG_BUILD/tests/progs/atag-workload
AWAIT=$ATAG_BUILD/tests/progs/atag-await
SECONDS_RUN=${ATAG_LEAKS_CHURN_S:-40}
live_tier "leaks' memory on a churning workload" --events kmalloc --progs jq \
	--why "$(case ${ATAG_BUILD##*-} in asan|tsan)
		echo "a sanitizer build: its allocator keeps freed memory (quarantine)" ;; esac)"
at_exit "'$C' reset"

rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null; }

# churn: short-lived processes, each opening, reading and closing files
"$C" leaks --kmem -m 2s -d 1s -t "${SECONDS_RUN}s" -f json -- sh -c \
	"while :; do '$WL' loop 300; '$WL' vma 100; sleep 0.1; done" \
	> "$T_TMP/churn.json" 2> "$T_TMP/churn.err" &
lp=$!
at_exit "kill $lp"
"$AWAIT" -t 30 lines "$T_TMP/churn.json" 10
rss10=$(rss $lp)
lines10=$(wc -l < "$T_TMP/churn.json")
"$AWAIT" -t 30 lines "$T_TMP/churn.json" $((SECONDS_RUN - 1))
rss40=$(rss $lp)
if ! "$AWAIT" -t 30 exit $lp; then
	kill -INT $lp
fi
wait $lp
rc=$?
last=$(tail -n 1 "$T_TMP/churn.json")
recs=$(echo "$last" | jq .records)
echo "# RSS ${rss10:-?} KiB at ${lines10} intervals, ${rss40:-?} KiB at $SECONDS_RUN s;" \
	"$recs records, $(echo "$last" | jq .live) live, $(echo "$last" | jq .tasks) tasks named"
check_eq "the churn ran, exit 0, every interval a JSON line" \
	"$rc:$(cat "$T_TMP/churn.err"):$(jq -c 'has("sites")' "$T_TMP/churn.json" | sort -u)" "0::true"
check "events kept coming: 100 000 records or more ($recs)" test "${recs:-0}" -ge 100000
check "RSS at $SECONDS_RUN s (${rss40:-?} KiB) within 1.3 times RSS at 10 s (${rss10:-?} KiB)" \
	test "$((${rss40:-999999} * 10))" -le "$((${rss10:-0} * 13))"
check_eq "nothing left behind" "$(instances_left "$TFS"; ls "$ATAG_STATE_DIR" 2>/dev/null | grep -vx tags)" ""

done_testing
