#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: live
# leaks on this machine's real tracefs, as root (kmem and page events; the alloc_tag
# source is the VM tier's cmd-leaks): a task holding 100 open files shows
# alloc_empty_file with 100 or more old allocations, with a stack, held by it (leak
# suspects); every interval is a JSON line, an empty one too; -o writes report's
# JSON shape (the keys of report -f json's live[], checked against report's own
# output), which diff reads; COMMAND from the first operand on, as top; what leaks
# set up is undone on Ctrl-C, SIGTERM and COMMAND's end, and by reset after SIGKILL;
# tracefs is left as found. The 40 s churn of its memory is
# tests/t-leaks-churn.sh.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/live.sh"
FDHOLD=$ATAG_BUILD/tests/progs/atag-fdhold
AWAIT=$ATAG_BUILD/tests/progs/atag-await
N=100
live_tier "leaks on the real tracefs" --events kmalloc --progs jq
at_exit "'$C' reset"

top_files() {
	(cd "$TFS" && grep -H '' tracing_on trace_clock buffer_size_kb current_tracer set_event \
		set_event_pid tracing_cpumask buffer_percent events/kmem/kmalloc/trigger \
		events/kmem/kmalloc/enable 2>/dev/null)
}
top_files > "$T_TMP/top.before"
leftovers() {
	top_files > "$T_TMP/top.now"
	diff "$T_TMP/top.before" "$T_TMP/top.now" | sed -n 's/^[<>] /top-level file changed: /p'
	instances_left "$TFS"
	ls "$ATAG_STATE_DIR" 2>/dev/null | grep -vx tags | sed 's/^/state file /'
}
wait_lines() { "$AWAIT" -t 20 lines "$1" "$2"; }
# every line of FILE is one JSON object with sites[]: "true" once
json_lines() { jq -c 'has("sites") and has("interval") and has("lost")' "$1" 2>&1 | sort -u; }

# ------------------------------------------------------------------ usage

check_status "--no-pages without --kmem: usage error" 2 "$C" leaks --all --no-pages
check_status "-d below 100ms: usage error" 2 "$C" leaks --kmem -d 10ms
check_status "--no-stack with --all-stacks: usage error" 2 "$C" leaks --kmem --no-stack --all-stacks
check_status "--stack-every 3: usage error" 2 "$C" leaks --kmem --stack-every 3
"$C" leaks --kmem --min-age soon > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "a bad --min-age: named" "$rc:$(head -n 1 "$T_TMP/err")" \
	"2:trace-cmd-alloc-tag: --min-age: 'soon' is not a duration"
"$C" leaks --help > "$T_TMP/help"
check_grep "--help: the usage line" '^usage: trace-cmd-alloc-tag leaks ' "$T_TMP/help"

# ------------------------------------------------------------------ 100 open files held

# the workload says "ready", waits for "go", opens N files and keeps them (--stay)
mkfifo "$T_TMP/ready" "$T_TMP/go"
exec 5<> "$T_TMP/ready" 6<> "$T_TMP/go"
"$FDHOLD" --ready 5 --go 6 --stay $N /dev/null &
W=$!
at_exit "kill $W"
read -r said <&5
check_eq "the workload is ready" "$said" ready
"$C" leaks --kmem --all-stacks --pid $W --min-age 1s -d 300ms -f json -o "$T_TMP/save.json" \
	> "$T_TMP/fd.json" 2> "$T_TMP/fd.err" 5>&- 6>&- &
lp=$!
if ! wait_lines "$T_TMP/fd.json" 1; then
	fail "leaks shows a first interval" "$(cat "$T_TMP/fd.err")"
fi
echo go >&6
read -r said <&5
check_eq "the workload opened its files" "$said" opened
# past --min-age: the files are old in the last intervals
n=$(wc -l < "$T_TMP/fd.json")
wait_lines "$T_TMP/fd.json" $((n + 5))
kill -INT $lp
wait_exit $lp
check_eq "SIGINT ends leaks, exit 0" "$rc:$(cat "$T_TMP/fd.err")" "0:"
check_eq "nothing left behind (instance, state file, top-level files)" "$(leftovers)" ""
check_eq "every interval is one JSON line with sites[]" "$(json_lines "$T_TMP/fd.json")" true
check_eq "the intervals are numbered 1, 2, 3 ..." \
	"$(jq -s -c '[.[].interval] == [range(1; length + 1)]' "$T_TMP/fd.json")" true
tail -n 1 "$T_TMP/fd.json" > "$T_TMP/last.json"
# the call site of the open (the function may have others, with a few allocations)
jq -c '[.sites[] | select(.function == "alloc_empty_file")] | max_by(.allocs)' "$T_TMP/last.json" \
	> "$T_TMP/site.json"
check_eq "alloc_empty_file: $N or more allocations older than --min-age, all suspects, with a stack" \
	"$(jq -c '[.allocs >= '$N', .oldest_ns >= 1000000000, .suspects == .allocs,
		   ([.stacks[] | select(.frames | length > 0)] | length > 0),
		   (.stacks[0].frames | map(startswith("alloc_empty_file+")) | any)]' "$T_TMP/site.json")" \
	"[true,true,true,true,true]"
check_eq "alloc_empty_file: made by the workload, which still runs" \
	"$(jq -c '[.tasks[0].pid, .tasks[0].comm, .tasks[0].exited, .tasks[0].allocs >= '$N']' "$T_TMP/site.json")" \
	"[$W,\"atag-fdhold\",false,true]"
check_eq "alloc_empty_file: three example pointers, the site's stacks add up to it" \
	"$(jq -c '[(.ptrs | length), ([.stacks[].allocs] | add) == .allocs]' "$T_TMP/site.json")" \
	"[3,true]"
check_eq "the interval's totals: no loss, old allocations at least the files" \
	"$(jq -c '[.lost, .uncertain, .old.allocs >= '$N', .stack_every, .sources]' "$T_TMP/last.json")" \
	'[0,false,true,1,["kmem","page"]]'

# -o: report's JSON shape, the keys of live[] as report -f json writes them
check_eq "-o: $N or more live allocations at alloc_empty_file, suspects held by the workload" \
	"$(jq -c '[([.live[] | select(.function == "alloc_empty_file" and .suspect and .task_running and .pid == '$W')] | length >= '$N'), ((.live | length) == .totals.live)]' "$T_TMP/save.json")" \
	"[true,true]"
"$C" report -f json -n 0 "$ATAG_SRC/tests/data/sample.dat" > "$T_TMP/report.json" 2> /dev/null
keys() { jq -c "[$2 | keys] | add | unique" "$1"; }
check_eq "-o: the keys of live[] are report's" "$(keys "$T_TMP/save.json" '.live[]')" \
	"$(keys "$T_TMP/report.json" '.live[] | del(.frame_lines)')"
check_eq "-o: the keys of tags[] and totals are report's" \
	"$(keys "$T_TMP/save.json" '.tags[]'):$(keys "$T_TMP/save.json" '.totals')" \
	"$(keys "$T_TMP/report.json" '.tags[]'):$(keys "$T_TMP/report.json" '.totals')"
check_eq "-o: a stack's keys are report's (with its frames)" \
	"$(keys "$T_TMP/save.json" '.tags[].stacks[]')" \
	"$(keys "$T_TMP/report.json" '.tags[].stacks[] | del(.estimate)')"
# -o as a side of diff (offline): against itself no change; against the same
# document with no call site, alloc_empty_file's live allocations and bytes those of
# its entries in live[] (kmem call sites of one function are one row in a diff)
"$C" diff -f json "$T_TMP/save.json" "$T_TMP/save.json" > "$T_TMP/dself.json" 2>&1
check_eq "-o, diff with itself: no call site changed" \
	"$(jq -c '[.summary.changed, .summary.appeared, .summary.disappeared]' "$T_TMP/dself.json" 2>&1)" \
	"[0,0,0]"
jq '.tags = [] | .live = []' "$T_TMP/save.json" > "$T_TMP/none.json"
"$C" diff -f json --source kmem --function alloc_empty_file "$T_TMP/none.json" "$T_TMP/save.json" \
	> "$T_TMP/dnone.json" 2>&1
check_eq "-o, diff from nothing: alloc_empty_file appeared with live[]'s count and bytes" \
	"$(jq -c '[.sites[] | [.status, .after.live, .after.live_bytes]]' "$T_TMP/dnone.json" 2>&1)" \
	"$(jq -c '[.live[] | select(.source == "kmem" and .function == "alloc_empty_file")] |
		[["appeared", length, (map(.bytes) | add)]]' "$T_TMP/save.json")"

kill $W

# text: fits the width given, the call site named, its stack on a line
# (the child that keeps the files runs until a signal: killed by its pid, as it holds
# this tier's descriptors, the live tiers' lock among them)
COLUMNS=100 "$C" leaks --kmem --all-stacks --min-age 0 -d 200ms -- \
	"$FDHOLD" --pid "$T_TMP/fd20.pid" 20 /dev/null \
	> "$T_TMP/fd.txt" 2>&1; rc=$?
kill "$(cat "$T_TMP/fd20.pid")" 2> /dev/null
check_eq "text: exit 0, no line wider than COLUMNS" \
	"$rc:$(awk 'length > 100' "$T_TMP/fd.txt" | head -n 3)" "0:"
check_grep "text: the header" '^leaks: kmem and page events, atag-fdhold and its children: ' \
	"$T_TMP/fd.txt"
check_grep "text: alloc_empty_file's row, its task" \
	"^ +[0-9]+ .* atag-fdhold [0-9]+ .*alloc_empty_file\\+0x" "$T_TMP/fd.txt"
check_grep "text: its stack on a line" "^ +[0-9]+ .* < alloc_empty_file\\+0x[0-9a-f]+ < " "$T_TMP/fd.txt"

# ------------------------------------------------------------------ empty intervals

sleep 30 &
S=$!
at_exit "kill $S"
"$C" leaks --kmem --pid $S -d 200ms -t 1s -f json > "$T_TMP/empty.json" 2> "$T_TMP/empty.err"
rc=$?
kill $S
check_eq "a task that allocates nothing: exit 0, an object per interval, each empty" \
	"$rc:$(jq -s -c '[length >= 4, ([.[] | .nr_sites == 0 and .sites == [] and .old.allocs == 0] | all)]' "$T_TMP/empty.json")" \
	"0:[true,true]"
check_eq "--duration: nothing left behind" "$(leftovers)" ""

# ------------------------------------------------------------------ COMMAND, signals, reset

"$C" leaks --kmem -m 0 -d 200ms -f json -- "$FDHOLD" --pid "$T_TMP/fd10.pid" 10 /dev/null \
	> "$T_TMP/c.json" 2> "$T_TMP/c.err"; rc=$?
kill "$(cat "$T_TMP/fd10.pid")" 2> /dev/null
check_eq "-- COMMAND: ends with it, exit 0, nothing left behind" \
	"$rc:$(cat "$T_TMP/c.err"):$(leftovers)" "0::"
check_eq "-- COMMAND: its files, its comm, its task exited (the child holds them)" \
	"$(tail -n 1 "$T_TMP/c.json" | jq -c '[.sites[] | select(.function == "alloc_empty_file") | .allocs >= 10] | any')" \
	true

# COMMAND from the first operand on, as top and record take it (issue 31): the
# options after it are COMMAND's own
"$C" leaks --kmem -m 0 -d 200ms -f json sh -c 'echo "$*"' sh -f x -n 2 > "$T_TMP/op.out" \
	2> "$T_TMP/op.err"; rc=$?
check_eq "leaks OPTIONS COMMAND -f x -n 2: the options after COMMAND are its own" \
	"$rc:$(grep -v '^{' "$T_TMP/op.out"):$(grep -c '^{' "$T_TMP/op.out" | sed 's/^[1-9][0-9]*$/json/'):$(cat "$T_TMP/op.err")" \
	"0:-f x -n 2:json:"

"$C" leaks --kmem -d 200ms -f json > "$T_TMP/t.json" 2> "$T_TMP/t.err" &
lp=$!
wait_lines "$T_TMP/t.json" 2
check_eq "while leaks runs: its instance and state file" \
	"$(ls "$ATAG_STATE_DIR" | grep -vx tags):$(ls "$TFS/instances" | grep -c "^trace-cmd-alloc-tag-$lp\$")" \
	"record-$lp.state:1"
# the sampler moves its pattern by removing the trigger and adding the next (the
# kernel takes one stacktrace trigger an event): between the two there is none
# for a grace period, so look a few times
for i in 1 2 3 4 5 6 7 8 9 10; do
	trig="$(grep -c ^stacktrace "$TFS/instances/trace-cmd-alloc-tag-$lp/events/kmem/kmalloc/trigger"):$(grep -c ^stacktrace "$TFS/events/kmem/kmalloc/trigger")"
	[ "$trig" = 1:0 ] && break
	sleep 0.05
done
check_eq "while leaks runs: its stack triggers are in its instance alone" "$trig" "1:0"
kill -TERM $lp
wait_exit $lp
check_eq "SIGTERM: exit 0, the last interval written, nothing left behind" \
	"$rc:$(cat "$T_TMP/t.err"):$(json_lines "$T_TMP/t.json"):$(leftovers)" "0::true:"

"$C" leaks --kmem -d 200ms -f json > "$T_TMP/k.json" 2>&1 &
lp=$!
wait_lines "$T_TMP/k.json" 1
kill -KILL $lp
wait $lp 2> /dev/null
check_eq "after SIGKILL: the instance and the state file are left" \
	"$(leftovers | sed "s/$lp/N/g")" "instance trace-cmd-alloc-tag-N
state file record-N.state"
"$C" reset > "$T_TMP/reset" 2>&1; rc=$?
check_eq "reset undoes a killed leaks" "$rc:$(cat "$T_TMP/reset")" \
	"0:reset: record $lp: turned tracing off on 0 tags, removed tracefs instance trace-cmd-alloc-tag-$lp"
check_eq "after reset: nothing left behind" "$(leftovers)" ""

done_testing
