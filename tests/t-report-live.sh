#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: live
# tier: normal build (the kernel under load; ASan runs this code in t-record, t-top, t-leaks)
# report on a kmem workload recorded on this machine's real tracefs, checked
# against an independent count of the same trace made with stock trace-cmd.
. "$(dirname "$0")/lib.sh"

if ! is_root; then
	skip "kmem workload on the real tracefs" "needs root to record"
	done_testing
	exit
fi
T=$(tracefs_dir)
if [ -z "$T" ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && at_exit "umount /sys/kernel/tracing"
	T=$(tracefs_dir)
fi
if [ -z "$T" ] || [ ! -d "$T/events/kmem/kmalloc" ]; then
	skip "kmem workload on the real tracefs" "no tracefs with kmem events"
	done_testing
	exit
fi

inst=atag-test-$$
at_exit "rmdir '$T/instances/$inst'"
top_before=$(cat "$T/tracing_on" "$T/set_event" "$T/options/stacktrace" 2>/dev/null | md5sum)
# trace-cmd record needs -d -k on these machines (tracecmd-integration.md 3.8);
# -k leaves the instance, which at_exit removes
trace-cmd record -q -d -k -B "$inst" -b 8000 -T -e kmem:kmalloc -e kmem:kfree \
	-o "$T_TMP/live.dat" sh -c 'for i in $(seq 60); do cat /proc/self/status > /dev/null; done' \
	> "$T_TMP/rec.log" 2>&1
check_eq "trace-cmd record of the workload" "$?" 0
rmdir "$T/instances/$inst" 2>/dev/null
check "the test's instance is gone" test ! -d "$T/instances/$inst"
check_eq "the top buffer is as it was" "$(cat "$T/tracing_on" "$T/set_event" "$T/options/stacktrace" 2>/dev/null | md5sum)" "$top_before"

# the independent count: stock trace-cmd's own decoding of the same file
env $ATAG_TRACECMD_ENV trace-cmd report -N -i "$T_TMP/live.dat" > "$T_TMP/tc.txt" 2>/dev/null
# per call site the kmalloc events, less the inner events of nested allocations
awk -f "$ATAG_SRC/tests/kmem-count.awk" "$T_TMP/tc.txt" | grep -v '^nested ' | sort > "$T_TMP/tc.count"
frees=$(grep ' kfree: ' "$T_TMP/tc.txt" | grep -vc 'ptr=(nil)')
allocs=$(awk '{ s += $2 } END { print s + 0 }' "$T_TMP/tc.count")
if [ "$allocs" -lt 100 ]; then
	fail "the workload made allocations" "only $allocs kmalloc events"
fi

"$ATAG_CMD" report -f csv -n 0 "$T_TMP/live.dat" > "$T_TMP/our.csv" 2> "$T_TMP/our.err"
check_eq "report reads the recording" "$?" 0
# columns: tag,function,file,line,module,offset,allocs,...
awk -F, 'NR > 1 && $7 > 0 { printf "%s+%s %s\n", $2, $6, $7 }' "$T_TMP/our.csv" | sort > "$T_TMP/our.count"
if cmp -s "$T_TMP/tc.count" "$T_TMP/our.count"; then
	ok "per-call-site allocations match trace-cmd's count ($allocs in $(wc -l < "$T_TMP/our.count") call sites)"
else
	fail "per-call-site allocations match trace-cmd's count" "$(diff "$T_TMP/tc.count" "$T_TMP/our.count" | head -20)"
fi
"$ATAG_CMD" report -f json "$T_TMP/live.dat" > "$T_TMP/our.json" 2>/dev/null
check_eq "every kfree of a real pointer is counted" "$(jq .totals.frees "$T_TMP/our.json")" "$frees"
check_eq "allocs total" "$(jq .totals.allocs "$T_TMP/our.json")" "$allocs"
check_eq "the instance buffer was found and named" "$(jq -r '.files[0].buffer' "$T_TMP/our.json")" "$inst"
check_eq "live = allocs - matched frees - replaced" \
	"$(jq '.totals | .allocs - .matched_frees - .replaced' "$T_TMP/our.json")" \
	"$(jq .totals.live "$T_TMP/our.json")"
check_eq "stacks from -T: most allocations have one" \
	"$(jq '([.tags[].stacks[] | select(.frames | length > 0) | .allocs] | add) as $s |
	       ([.tags[].allocs] | add) as $a | $s * 10 >= $a * 9' "$T_TMP/our.json")" true
check_eq "no tracing machinery at the top of stacks" \
	"$(jq '[.tags[].stacks[].frames[0] // empty | select(startswith("trace_event_raw_event"))] | length' "$T_TMP/our.json")" 0

done_testing
