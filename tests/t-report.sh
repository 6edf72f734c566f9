#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# report on generated trace.dat files: every stitching rule end to end, sources,
# buffers, lost events, truncated and corrupt files, filters, views, JSON.
. "$(dirname "$0")/lib.sh"

D=$ATAG_SRC/tests/data
report() { "$ATAG_CMD" report "$@"; }
json() { report -f json "$@" 2> "$T_TMP/json.err"; }
# jq_eq NAME FILTER EXPECTED FILE: the filter's compact output is EXPECTED. FILTER and
# EXPECTED may span lines: tabs and newlines are dropped from EXPECTED.
jq_eq() { check_eq "$1" "$(jq -c "$2" "$4" 2>&1)" "$(printf '%s' "$3" | tr -d '\n\t')"; }
# the call sites of a text report, by their file:line (else the last word of their rows)
sites() {
	awk '/CALL SITE/ { on = 1; next } /^\[reused/ { on = 0 }
	     on && NF { w = $NF; for (i = 1; i <= NF; i++) if ($i ~ /:[0-9]+$/) { w = $i; break }
			print w }' "$@"
}

mkfixture -o "$T_TMP/lt.dat" "$D/lifetimes.txt" || fail "lifetimes fixture"
json "$T_TMP/lt.dat" > "$T_TMP/lt.json"
check_eq "report -f json exits 0" "$?" 0
check "JSON parses" jq -e . "$T_TMP/lt.json"
jq_eq "complete" .complete true "$T_TMP/lt.json"
jq_eq "totals" .totals \
	'{"allocs":6,"frees":4,"matched_frees":3,"unmatched_frees":1,"partial_frees":1,"replaced":1,
	"live":2,"live_bytes":384,"bytes_alloced":8960,"bytes_freed":4256,"live_suspects":1}' \
	"$T_TMP/lt.json"
foo='.tags[] | select(.function == "foo_create")'
bar='.tags[] | select(.function == "bar_open")'
jq_eq "call site learned from hits" "[$foo | .file, .line, .module, .tag]" \
	'["mm/foo.c",10,null,"0xffffffff82000000"]' "$T_TMP/lt.json"
jq_eq "module call site" "[$bar | .file, .line, .module]" '["drivers/bar.c",20,"bar"]' \
	"$T_TMP/lt.json"
counts='.allocs, .frees, .unmatched_frees, .partial_frees, .replaced, .live, .live_bytes,
	.peak_live_bytes, .bytes_alloced, .bytes_freed'
jq_eq "foo_create counts" "[$foo | $counts]" '[3,2,1,0,0,1,128,256,256,160]' "$T_TMP/lt.json"
jq_eq "bar_open: partial free, replaced, peak" "[$bar | $counts]" \
	'[3,1,0,1,1,1,256,8192,8704,4096]' "$T_TMP/lt.json"
# a2 (2002 .. 9002 by task 100) spans task 100's capture of 3000 .. 3001: 1 ns out;
# a1 is freed by task 200: raw, and counted as such
jq_eq "lifetimes: count, exact min and max (capture time out)" \
	"$foo | .lifetime_ns | [.count, .min, .max, .inflated, .observer_ns, .other_task]" \
	'[2,4000,6999,1,1,1]' "$T_TMP/lt.json"
json --raw-lifetimes "$T_TMP/lt.dat" > "$T_TMP/ltraw.json"
jq_eq "--raw-lifetimes: as the timestamps say" "$foo | .lifetime_ns | [.count, .min, .max]" \
	'[2,4000,7000]' "$T_TMP/ltraw.json"
jq_eq "--raw-lifetimes: said" '.observer.lifetimes' '"raw"' "$T_TMP/ltraw.json"
jq_eq "lifetime percentiles within 1% (nearest rank)" \
	"$foo | .lifetime_ns | [(.p50 - 4000 | fabs) <= 40, (.p90 - 7000 | fabs) <= 70,
		.p99 == 7000]" \
	'[true,true,true]' "$T_TMP/ltraw.json"
jq_eq "the observer: captures per CPU (hit to stack, 1 ns each)" \
	'[.files[0].observer[] | [.cpu, .stacks, .ns, .p50_ns]]' '[[0,2,2,1],[1,2,2,1]]' \
	"$T_TMP/lt.json"
jq_eq "the stack of each allocation, machinery frames dropped" \
	"[$foo | .stacks[] | [.frames, .allocs, .live, .live_bytes]]" \
	'[[["foo_create+0x10","foo_ioctl+0x20","__x64_sys_ioctl+0x30"],2,0,0],
	[["foo_create+0x10","bar_open+0x40","do_sys_open+0x50"],1,1,128]]' \
	"$T_TMP/lt.json"
# b2's stack stays cached under (200, bar_open): the allocation at 8502, with no
# hit of its own, has it too (looked up by pid and tag, not consumed)
jq_eq "a hit without a stack gives the empty stack; a cached stack serves every allocation" \
	"[$bar | .stacks[] | [.frames, .allocs, .live]]" \
	'[[["bar_open+0x10","do_sys_open+0x20"],2,1],[[],1,0]]' "$T_TMP/lt.json"
jq_eq "a hit that allocated nothing is no row" \
	'[.tags[] | select(.function == "baz_alloc")] | length' 0 "$T_TMP/lt.json"
jq_eq "live allocations, oldest first, age to the last event" \
	'[.live[] | [.ptr, .tag, .bytes, .pid, .comm, .alloc_ts, .age_ns, .frames]]' \
	'[["0xffff888000000300","0xffffffff82000000",128,100,"foo-daemon",3002,6998,
	["foo_create+0x10","bar_open+0x40","do_sys_open+0x50"]],
	["0xffff888000002000","0xffffffff82000040",256,200,"bar-tool",8502,1498,
	["bar_open+0x10","do_sys_open+0x20"]]]' \
	"$T_TMP/lt.json"
jq_eq "events read per type" '.files[0].events' \
	'{"alloc_tag:alloc_tag_hit":6,"alloc_tag:alloc_tag_mem_alloced":6,
	"alloc_tag:alloc_tag_mem_freed":4,"ftrace:kernel_stack":4}' \
	"$T_TMP/lt.json"
jq_eq "lifetime_ns values null without lifetimes" \
	'[.tags[] | select(.lifetime_ns.count == 0)] | length' 0 "$T_TMP/lt.json"

# Split and migrated pages (shared/seeds/001, 1/4, "Limitations"): the kernel emits no
# event when a page allocation is split or migrated, so a split allocation's tail is
# freed under its own page (unmatched), its head with fewer bytes (partial), and a
# migrated allocation under the page it moved to (unmatched) while its own record stays.
# ptr is the head struct page. By hand: split_fn 2 allocations, 1 matched (partial)
# free, 1 unmatched, 1 live (the second, untouched): up to min(1, 1 + 1) = 1 of its live
# allocations may be gone; migrate_fn 2 allocations, 1 unmatched free, 2 live (the
# migrated one's stale record and the other): up to 1; plain_fn nothing to explain.
# slab_fn's objects are 64 bytes, not pages: its unmatched free (of an object made
# before tracing) explains none of its 2 live ones. mixed_fn takes 64 bytes and two
# pages, the pages freed in part: only pages are, so its one live allocation may be
# gone (up to min(1, 1)).
{
	echo 'cpus 1'
	echo 'kallsyms ffffffff81001000 T split_fn'
	echo 'kallsyms ffffffff81010000 T _etext'
	echo 'ev 0 1000 7 hit 0xa0 NONE mm/s.c split_fn 1'
	echo 'ev 0 1001 7 alloced 0xffffea0000001000 0xa0 16384'
	echo 'ev 0 1100 7 freed 0xffffea0000001040 0xa0 4096'
	echo 'ev 0 1200 7 freed 0xffffea0000001000 0xa0 4096'
	echo 'ev 0 1300 7 hit 0xa0 NONE mm/s.c split_fn 1'
	echo 'ev 0 1301 7 alloced 0xffffea0000002000 0xa0 16384'
	echo 'ev 0 2000 7 hit 0xb0 NONE mm/m.c migrate_fn 2'
	echo 'ev 0 2001 7 alloced 0xffffea0000003000 0xb0 4096'
	echo 'ev 0 2100 7 freed 0xffffea0000004000 0xb0 4096'
	echo 'ev 0 2200 7 hit 0xb0 NONE mm/m.c migrate_fn 2'
	echo 'ev 0 2201 7 alloced 0xffffea0000005000 0xb0 4096'
	echo 'ev 0 3000 7 hit 0xc0 NONE mm/p.c plain_fn 3'
	echo 'ev 0 3001 7 alloced 0xffff888000001000 0xc0 64'
	echo 'ev 0 3100 7 freed 0xffff888000001000 0xc0 64'
	echo 'ev 0 4000 7 hit 0xd0 NONE mm/b.c slab_fn 4'
	echo 'ev 0 4001 7 alloced 0xffff888000002000 0xd0 64'
	echo 'ev 0 4002 7 hit 0xd0 NONE mm/b.c slab_fn 4'
	echo 'ev 0 4003 7 alloced 0xffff888000003000 0xd0 64'
	echo 'ev 0 4100 7 freed 0xffff888000004000 0xd0 64'
	echo 'ev 0 5000 7 hit 0xe0 NONE mm/x.c mixed_fn 5'
	echo 'ev 0 5001 7 alloced 0xffff888000005000 0xe0 64'
	echo 'ev 0 5002 7 hit 0xe0 NONE mm/x.c mixed_fn 5'
	echo 'ev 0 5003 7 alloced 0xffffea0000006000 0xe0 8192'
	echo 'ev 0 5100 7 freed 0xffffea0000006000 0xe0 4096'
} > "$T_TMP/split.txt"
mkfixture -o "$T_TMP/split.dat" "$T_TMP/split.txt" || fail "split and migration fixture"
json "$T_TMP/split.dat" > "$T_TMP/split.json"
jq_eq "split and migrated pages: counts and live_maybe_freed per call site" \
	'[.tags | sort_by(.function)[] | [.function, .allocs, .frees, .unmatched_frees,
		.partial_frees, .live, .live_maybe_freed]]' \
	'[["migrate_fn",2,0,1,0,2,1],["mixed_fn",2,1,0,1,1,1],["plain_fn",1,1,0,0,0,0],["slab_fn",2,0,1,0,2,0],["split_fn",2,1,1,1,1,1]]' \
	"$T_TMP/split.json"
report --live "$T_TMP/split.dat" > "$T_TMP/split.out" 2>&1
check_grep "split and migrated pages: the summary says how many live may be gone" \
	'^              up to 3 of them may be freed already: split or migrated pages \(see below\)$' \
	"$T_TMP/split.out"
check_grep "split and migrated pages: the call-site table explains, per call site" \
	'^  migrate_fn mm/m\.c:2: 1 unmatched, 0 partial: may account for up to 1 of its 2 live allocations$' \
	"$T_TMP/split.out"
check_grep "split and migrated pages: the split call site too" \
	'^  split_fn mm/s\.c:1: 1 unmatched, 1 partial: may account for up to 1 of its 1 live allocations$' \
	"$T_TMP/split.out"
check_grep "split and migrated pages: the live view says how many" \
	'^  migrate_fn mm/m\.c:2: up to 1 of its 2 live allocations$' "$T_TMP/split.out"
check_nogrep "split and migrated pages: nothing said of a call site without such frees" \
	'^  plain_fn mm/p\.c:3:' "$T_TMP/split.out"
check_grep "split and migrated pages: a call site of objects under a page is not pages" \
	'^  slab_fn mm/b\.c:4: 1 unmatched, 0 partial: not pages \(a size not a whole number of pages\): allocated before tracing began$' \
	"$T_TMP/split.out"
check_nogrep "split and migrated pages: the live view says nothing of it" \
	'^  slab_fn mm/b\.c:4: up to' "$T_TMP/split.out"

# --raw-stacks keeps the trigger's frames
json --raw-stacks "$T_TMP/lt.dat" > "$T_TMP/raw.json"
jq_eq "--raw-stacks keeps the machinery" "[$foo | .stacks[0].frames[0:4][]]" \
	'["stacktrace_trigger+0x10","event_triggers_call+0x10","trace_event_buffer_commit+0x10",
	"trace_event_raw_event_alloc_tag_hit+0x10"]' \
	"$T_TMP/raw.json"

# strings from trace records are bytes, not always UTF-8: the JSON must be UTF-8 all the
# same (RFC 8259), well-formed sequences kept and every other byte \ufffd. jq repairs
# bad bytes silently, so the raw output is checked, and by strict validators.
{
	echo 'kallsyms ffffffff81001000 T ok_fn'
	printf 'kallsyms ffffffff81002000 T bad\377\376fn\n'
	echo 'kallsyms ffffffff81010000 T _etext'
	printf 'comm 100 c\351m\n'
	printf 'ev 0 1000 100 hit 0xa0 m\300\257 f\355\240\200.c fn\303 7\n'
	echo 'ev 0 1001 100 stack 0xffffffff81001010 0xffffffff81002020'
	echo 'ev 0 1002 100 alloced 0x10 0xa0 64'
	printf 'ev 1 2000 100 hit 0xb0 NONE \364\220\200\200.c x\342\202y\200 9\n'
	echo 'ev 1 2002 100 alloced 0x20 0xb0 64'
	printf 'ev 1 3000 100 hit 0xc0 NONE \303\251t\303\251.c caf\303\251_\360\237\230\200 11\n'
	echo 'ev 1 3002 100 alloced 0x30 0xc0 64'
} > "$T_TMP/utf8.txt"
mkfixture -o "$T_TMP/utf8.dat" "$T_TMP/utf8.txt" || fail "fixture with strings not UTF-8"
json "$T_TMP/utf8.dat" > "$T_TMP/utf8.json"
check_eq "not UTF-8: exit 0" "$?" 0
check "not UTF-8: the JSON is strict UTF-8" "$ATAG_BUILD/tests/progs/utf8-check" "$T_TMP/utf8.json"
check "not UTF-8: jq parses it" jq -e . "$T_TMP/utf8.json"
if command -v python3 > /dev/null; then
	check "not UTF-8: python3's json.load accepts it" python3 -c \
		'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' \
		"$T_TMP/utf8.json"
else
	skip "not UTF-8: python3's json.load accepts it" "no python3; utf8-check and jq checked it"
fi
raw() { grep -Fo -- "$1" "$T_TMP/utf8.json" | wc -l | tr -d ' '; }
want='"function":"fn\ufffd","file":"f\ufffd\ufffd\ufffd.c","line":7,"module":"m\ufffd\ufffd"'
check_eq "not UTF-8: a \\ufffd for each bad byte of function, file, module" "$(raw "$want")" 1
check_eq "not UTF-8: truncated sequences, code points above U+10FFFF" \
	"$(raw '"function":"x\ufffd\ufffdy\ufffd","file":"\ufffd\ufffd\ufffd\ufffd.c"')" 1
check_eq "not UTF-8: frames (tag and live) and comms (3 live)" \
	"$(raw '"bad\ufffd\ufffdfn+0x20"'):$(raw '"comm":"c\ufffdm"')" "2:3"
want=$(printf '"function":"caf\303\251_\360\237\230\200","file":"\303\251t\303\251.c"')
check_eq "UTF-8 passes unescaped" "$(raw "$want")" 1

# text views
report "$T_TMP/lt.dat" > "$T_TMP/text" 2>&1
check_eq "text report exits 0" "$?" 0
check_grep "summary: allocs" '^allocs +6 \(8.75 KiB\)$' "$T_TMP/text"
check_grep "summary: frees" '^frees +4 \(4.15 KiB\): matched 3, unmatched 1, partial 1$' \
	"$T_TMP/text"
check_grep "summary: live" '^live at end +2 \(384 B\)$' "$T_TMP/text"
check_grep "summary: complete" '^data +complete$' "$T_TMP/text"
check_grep "table header" \
	'^ALLOCS +FREES +UNMATCHED +LIVE +LIVE BYTES +PEAK LIVE +ALLOCATED +P50 +P90 +P99 +MAX +CALL SITE$' \
	"$T_TMP/text"
check_grep "sorted by live bytes: bar_open first, marked: reused while live" \
	'^ +3 +1 +0 +1 +256 B +8.00 KiB +8.50 KiB .*bar_open drivers/bar.c:20 \[bar\]  \[reused while live 1x: untraced frees\]$' \
	"$T_TMP/text"
check_grep "the mark is explained" '^\[reused while live: untraced frees\]: the call site' "$T_TMP/text"
check_grep "the observer's cost stated" '^  stacks: 4 captures took 4 ns \(CPU 0 2, median 1 ns; CPU 1 2, median 1 ns\)$' \
	"$T_TMP/text"
check_grep "which lifetimes it inflates" \
	"^lifetimes +1 spanned stack captures of their task: taken out \(1 ns summed over them; --raw-lifetimes keeps it\); 1 ended by another task's free: raw, captures unknown$" \
	"$T_TMP/text"
report --raw-lifetimes "$T_TMP/lt.dat" > "$T_TMP/rawtext" 2>&1
check_grep "--raw-lifetimes: the text says they are raw, and by how much" \
	"^lifetimes +raw: 1 spanned stack captures of their task \\(1 ns summed over them; taken out without --raw-lifetimes\\); 1 ended by another task's free: raw, captures unknown$" \
	"$T_TMP/rawtext"
check_grep "a file without description: said" \
	'^  - .*lt.dat: no recording description .*every task and every tag counted$' "$T_TMP/text"
check_grep "FREES are matched frees, UNMATCHED the others" \
	'^ +3 +2 +1 +1 +128 B .*foo_create mm/foo.c:10$' "$T_TMP/text"
check_eq "row order" "$(sites "$T_TMP/text" | head -2 | tr '\n' ' ')" "drivers/bar.c:20 mm/foo.c:10 "
report -s allocs -n 1 "$T_TMP/lt.dat" > "$T_TMP/n1" 2>&1
check_grep "-n 1 says how many more" '^\.\.\. 1 more call sites' "$T_TMP/n1"
report -s site "$T_TMP/lt.dat" 2>&1 | sites > "$T_TMP/site"
check_eq "-s site sorts by name" "$(head -1 "$T_TMP/site")" "drivers/bar.c:20"
report -s frees "$T_TMP/lt.dat" 2>&1 | sites > "$T_TMP/frees"
check_eq "-s frees" "$(head -1 "$T_TMP/frees")" "mm/foo.c:10"
report --stacks "$T_TMP/lt.dat" > "$T_TMP/stacks" 2>&1
check_grep "--stacks: share of allocs and live bytes" \
	'66.7% of allocs, +0.0% of live bytes \(2 allocs, 0 live\):' "$T_TMP/stacks"
check_grep "--stacks: frames" '^ +foo_ioctl\+0x20$' "$T_TMP/stacks"
report --live "$T_TMP/lt.dat" > "$T_TMP/live" 2>&1
check_grep "--live: oldest first with pid and comm" \
	'^7.0 us +0xffff888000000300 +128 +100 +foo-daemon +foo_create mm/foo.c:10$' "$T_TMP/live"
check_grep "--live: a live allocation of a call site reused while live is explained, not suspect" \
	'^  1  bar_open drivers/bar.c:20 \[bar\]: its call site.s objects were allocated again while live: some of its frees are not traced$' \
	"$T_TMP/live"
check_nogrep "--live: it is not among the suspects" '0xffff888000002000' "$T_TMP/live"
report -f csv --live "$T_TMP/lt.dat" > "$T_TMP/live.csv" 2>&1
check_eq "--live -f csv: the suspect columns last, as the JSON's" \
	"$(head -n 1 "$T_TMP/live.csv" | cut -d, -f12-; sed 1d "$T_TMP/live.csv" | awk -F, '{ print $1, $14 }')" \
	"stack,source,suspect,suspect_why,task_running
$(jq -r '.live[] | "\(.ptr) \(if .suspect then 1 else 0 end)"' "$T_TMP/lt.json")"
jq_eq "JSON: reused while live, per call site and live allocation" \
	'[([.tags[] | [.function, .reused_while_live]] | sort), [.live[] | .reused_while_live]]' \
	'[[["bar_open",true],["foo_create",false]],[false,true]]' "$T_TMP/lt.json"
check_grep "--live: the stack under the row" '^ +do_sys_open\+0x50$' "$T_TMP/live"
report --live --min-age 5us "$T_TMP/lt.dat" > "$T_TMP/age" 2>&1
check_nogrep "--min-age drops younger ones" '0xffff888000002000' "$T_TMP/age"
check_grep "--min-age keeps older ones" '0xffff888000000300' "$T_TMP/age"
report --hist "$T_TMP/lt.dat" > "$T_TMP/hist" 2>&1
check_grep "--hist: log2 buckets with bars" '4.1 us \.\. 8.2 us +\|#+ *\| 1$' "$T_TMP/hist"

# filters
json --function 'bar_*' "$T_TMP/lt.dat" > "$T_TMP/f.json"
jq_eq "--function glob selects call sites, totals follow" \
	'[.totals.allocs, [.tags[].function], (.live | length)]' '[3,["bar_open"],1]' \
	"$T_TMP/f.json"
json --module bar "$T_TMP/lt.dat" > "$T_TMP/m.json"
jq_eq "--module" '[.tags[].function]' '["bar_open"]' "$T_TMP/m.json"
json --file 'mm/*' "$T_TMP/lt.dat" > "$T_TMP/fi.json"
jq_eq "--file" '[.tags[].function]' '["foo_create"]' "$T_TMP/fi.json"
json --pid 200 "$T_TMP/lt.dat" > "$T_TMP/p.json"
jq_eq "--pid counts only that task's allocations" \
	'[.totals.allocs, .totals.live, [.tags[] | [.function, .allocs]]]' \
	'[3,1,[["bar_open",3]]]' "$T_TMP/p.json"
json --comm 'foo-*' "$T_TMP/lt.dat" > "$T_TMP/c.json"
jq_eq "--comm glob" '[.totals.allocs, .totals.unmatched_frees]' '[3,1]' "$T_TMP/c.json"
json --start 0.000005 "$T_TMP/lt.dat" > "$T_TMP/s.json"
jq_eq "--start: earlier events ignored, their frees unmatched" \
	'[.totals.allocs, .totals.unmatched_frees, .files[0].first_ts]' '[3,2,5002]' "$T_TMP/s.json"
json --end 3002ns "$T_TMP/lt.dat" > "$T_TMP/e.json"
jq_eq "--end in ns" '[.totals.allocs, .totals.live, .files[0].last_ts]' '[3,3,3002]' "$T_TMP/e.json"
# a window past the trace (issue 31: it said "holds no records" and "complete"): named,
# with the records' span, and the result not complete. lifetimes.txt: the first event at
# 1000 ns, the last at 10000 ns (its "ev" lines)
json --start 1 "$T_TMP/lt.dat" > "$T_TMP/w.json"
n=$(grep -c '^ev' "$D/lifetimes.txt")
jq_eq "--start past the end: the empty window named with the records' span, incomplete" \
	'[.complete, .notices[0], .totals.allocs]' \
	"[false,\"$T_TMP/lt.dat: the time window --start 1.000000 holds none of the $n records of buffer top, which run from 0.000001 to 0.000010\",0]" \
	"$T_TMP/w.json"
json -n 1 "$T_TMP/lt.dat" > "$T_TMP/n.json"
jq_eq "-n limits machine lists" '[(.tags | length), (.live | length)]' '[1,1]' "$T_TMP/n.json"

# interrupts nest between an event and its stack: an interrupt allocates between
# the task's hit and the stack the trigger records for it
cat > "$T_TMP/irq.txt" <<'DESC'
kallsyms ffffffff81000000 T stacktrace_trigger
kallsyms ffffffff81000100 T trace_event_raw_event_alloc_tag_hit
kallsyms ffffffff81001000 T task_alloc
kallsyms ffffffff81002000 T irq_alloc
kallsyms ffffffff81010000 T _etext
ev 0 1000 7 hit 0xa0 NONE t.c task_alloc 1
ev 0 1001 7 hit 0xb0 NONE i.c irq_alloc 2
ev 0 1002 7 stack 0xffffffff81000010 0xffffffff81000110 0xffffffff81002010
ev 0 1003 7 alloced 0x10 0xb0 8
ev 0 1004 7 stack 0xffffffff81000010 0xffffffff81000110 0xffffffff81001010
ev 0 1005 7 alloced 0x20 0xa0 8
DESC
mkfixture -o "$T_TMP/irq.dat" "$T_TMP/irq.txt"
json "$T_TMP/irq.dat" > "$T_TMP/irq.json"
jq_eq "nested interrupt: each allocation gets its own stack" \
	'[.tags[] | [.function, .stacks[0].frames[0]]] | sort' \
	'[["irq_alloc","irq_alloc+0x10"],["task_alloc","task_alloc+0x10"]]' "$T_TMP/irq.json"

# buffers: the events only in an instance; then in both
cat > "$T_TMP/inst.txt" <<'DESC'
buffer alloc_tag-42
ev alloc_tag-42:0 1000 1 alloced 0x10 0xa0 8
ev alloc_tag-42:1 2000 1 freed 0x10 0xa0 8
DESC
mkfixture -o "$T_TMP/inst.dat" "$T_TMP/inst.txt"
json "$T_TMP/inst.dat" > "$T_TMP/inst.json"
jq_eq "the first instance holding the events is read" \
	'[.files[0].buffer, .totals.allocs, .totals.matched_frees]' '["alloc_tag-42",1,1]' \
	"$T_TMP/inst.json"
json -B top "$T_TMP/inst.dat" > "$T_TMP/top.json"
jq_eq "-B top reads the (empty) top buffer" '[.files[0].buffer, .totals.allocs]' '["",0]' \
	"$T_TMP/top.json"
report -B nosuch "$T_TMP/inst.dat" > "$T_TMP/out" 2> "$T_TMP/err"
check_eq "-B with a missing buffer: exit 1" "$?" 1
check_eq "-B with a missing buffer: one line naming file and buffer" "$(cat "$T_TMP/err")" \
	"trace-cmd-alloc-tag: $T_TMP/inst.dat: has no buffer 'nosuch'"
printf 'ev 0 500 1 alloced 0x90 0xa0 8\n' >> "$T_TMP/inst.txt"
mkfixture -o "$T_TMP/both.dat" "$T_TMP/inst.txt"
json "$T_TMP/both.dat" > "$T_TMP/both.json"
jq_eq "top first when it holds events; the instance is named" \
	'[.files[0].buffer, .files[0].also_in_buffers]' '["",["alloc_tag-42"]]' "$T_TMP/both.json"
report "$T_TMP/both.dat" > "$T_TMP/both.txt" 2>&1
check_grep "text names the other buffer" 'buffer top \(also in buffer alloc_tag-42\)' \
	"$T_TMP/both.txt"

# lost events: reported with buffer, CPU and count; data incomplete
cat > "$T_TMP/lost.txt" <<'DESC'
cpus 2
ev 0 1000 1 alloced 0x10 0xa0 8
missed 1 17
ev 1 2000 1 freed 0x10 0xa0 8
missed 0
ev 0 3000 1 alloced 0x20 0xa0 8
DESC
mkfixture -o "$T_TMP/lost.dat" "$T_TMP/lost.txt"
json "$T_TMP/lost.dat" > "$T_TMP/lost.json"
check_eq "lost events: still exit 0" "$?" 0
jq_eq "lost events: incomplete" .complete false "$T_TMP/lost.json"
jq_eq "lost events: buffer, CPU and count" '.notices' \
	"[\"$T_TMP/lost.dat: buffer top, CPU 0: events were lost (count unknown)\",
	\"$T_TMP/lost.dat: buffer top, CPU 1: 17 events were lost\"]" \
	"$T_TMP/lost.json"
check_grep "lost events: warned on stderr" "warning: .*CPU 1: 17 events were lost" "$T_TMP/json.err"
report "$T_TMP/lost.dat" > "$T_TMP/lost.text" 2>/dev/null
check_grep "lost events: the text says incomplete" '^data +INCOMPLETE' "$T_TMP/lost.text"
# an idle CPU is no loss
json "$T_TMP/inst.dat" | jq -e '.complete' > /dev/null
check_eq "an idle CPU with no data is not a loss" "$?" 0

# truncated file: what could be read is reported, with a warning naming the file
mkfixture -o "$T_TMP/big.dat" --generate 20000 --seed 5 --live 50 --cpus 2
size=$(stat -c %s "$T_TMP/big.dat")
head -c $((size - 300000)) "$T_TMP/big.dat" > "$T_TMP/cut.dat"
json "$T_TMP/cut.dat" > "$T_TMP/cut.json"
check_eq "truncated: exit 0" "$?" 0
jq_eq "truncated: incomplete, flagged" '[.complete, .files[0].truncated]' '[false,true]' \
	"$T_TMP/cut.json"
jq_eq "truncated: still read what is there" '.totals.allocs > 1000' true "$T_TMP/cut.json"
check_grep "truncated: warning names the file" \
	"warning: $T_TMP/cut.dat: truncated \\($((size - 300000)) of $size bytes\\)" \
	"$T_TMP/json.err"
check_eq "truncated: nothing of libtracecmd's own on stdout" "$(head -c 1 "$T_TMP/cut.json")" "{"
head -c 2000 "$T_TMP/big.dat" > "$T_TMP/head.dat"
report "$T_TMP/head.dat" > "$T_TMP/out" 2> "$T_TMP/err"
check_eq "cut inside the headers: exit 1" "$?" 1
check_grep "cut inside the headers: one line naming the file" \
	"^trace-cmd-alloc-tag: $T_TMP/head.dat: " "$T_TMP/err"
check_eq "cut inside the headers: one line" "$(wc -l < "$T_TMP/err")" 1

# corrupt, missing, not a trace
printf 'hello world, not a trace\n' > "$T_TMP/text.dat"
check_status "not a trace.dat: exit 1" 1 "$ATAG_CMD" report "$T_TMP/text.dat"
check_eq "not a trace.dat: the reason" "$(report "$T_TMP/text.dat" 2>&1)" \
	"trace-cmd-alloc-tag: $T_TMP/text.dat: not a trace.dat file (no trace-cmd magic at its start)"
check_eq "missing file" "$(report "$T_TMP/nope.dat" 2>&1)" \
	"trace-cmd-alloc-tag: $T_TMP/nope.dat: No such file or directory"
: > "$T_TMP/empty.dat"
check_status "empty file: exit 1" 1 "$ATAG_CMD" report "$T_TMP/empty.dat"
# ring-buffer pages overwritten with noise: no crash, no hang, no silent numbers
noise() {
	awk -v seed="$1" 'BEGIN { srand(seed)
		for (i = 0; i < 122880; i++) printf "%c", int(rand() * 256) }'
}
for seed in 1 2 3 4 5 6; do
	cp "$T_TMP/big.dat" "$T_TMP/noise.dat"
	noise $seed |
		dd of="$T_TMP/noise.dat" bs=4096 seek=$((12 + seed * 9)) conv=notrunc 2>/dev/null
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 60 \
		"$ATAG_CMD" report -f json "$T_TMP/noise.dat" > "$T_TMP/noise.json" \
		2> "$T_TMP/noise.err"
	rc=$?
	if [ $rc = 0 ] && [ "$(jq -c '[.complete, (.notices | length > 0)]' \
		"$T_TMP/noise.json")" = "[false,true]" ]; then
		ok "corrupt pages ($seed): read up to the damage, flagged incomplete"
	elif [ $rc = 1 ] && [ "$(wc -l < "$T_TMP/noise.err")" = 1 ]; then
		ok "corrupt pages ($seed): a one-line error"
	else
		fail "corrupt pages ($seed)" "exit $rc" "$(head -c 300 "$T_TMP/noise.json")" \
			"$(tail -5 "$T_TMP/noise.err")"
	fi
done

# missing events
printf 'ev 0 10 1 stack 0x1\n' > "$T_TMP/nostack.txt"
mkfixture -o "$T_TMP/noev.dat" "$T_TMP/nostack.txt"
check_eq "no allocation events: the reason" "$(report "$T_TMP/noev.dat" 2>&1)" \
	"trace-cmd-alloc-tag: $T_TMP/noev.dat: has no allocation events: record alloc_tag:* or kmem:* (trace-cmd-alloc-tag record)"
check_eq "--source forced but absent" "$(report --source kmem "$T_TMP/lt.dat" 2>&1)" \
	"trace-cmd-alloc-tag: $T_TMP/lt.dat: has no kmem events (kmem:kmalloc, kmem_cache_alloc, kfree, kmem_cache_free)"
check_status "--source with an unknown name: usage error" 2 \
	"$ATAG_CMD" report --source nope "$T_TMP/lt.dat"

# kmem source
mkfixture -o "$T_TMP/kmem.dat" "$D/kmem.txt"
json "$T_TMP/kmem.dat" > "$T_TMP/kmem.json"
jq_eq "kmem: detected" '.files[0].source' '"kmem"' "$T_TMP/kmem.json"
jq_eq "kmem: totals (kfree(NULL) and failed allocations ignored)" \
	'[.totals.allocs, .totals.frees, .totals.matched_frees, .totals.unmatched_frees,
		.totals.live, .totals.bytes_alloced, .totals.bytes_freed]' \
	'[3,2,1,1,2,1280,512]' "$T_TMP/kmem.json"
jq_eq "kmem: call sites named from kallsyms" \
	'[.tags[] | [.tag, .function, .offset, .file, .allocs]]' \
	'[["0xffffffff81002045","alloc_bprm",69,null,2],["0xffffffff81006030","d_alloc",48,null,1],
	["0xffffffff81005010","free_bprm",16,null,0]]' \
	"$T_TMP/kmem.json"
jq_eq "kmem: the allocation's own -T stack" '.tags[0].stacks[0].frames' \
	'["__kmalloc_noprof+0x23f","alloc_bprm+0x45","do_execveat_common+0x10"]' "$T_TMP/kmem.json"
report "$T_TMP/kmem.dat" 2>/dev/null | grep -q 'alloc_bprm+0x45$'
check_eq "kmem: text shows function+offset" "$?" 0
# folded: functions; the call site is the leaf for its own frame (the allocator's
# frame inside it left out), never repeated
check_eq "kmem folded: functions, the call site once, as the leaf" \
	"$(report -f folded "$T_TMP/kmem.dat" 2>&1)" "do_execveat_common;alloc_bprm+0x45 1024
d_alloc+0x30 256"
check_eq "--keep-offsets: the frames' offsets kept" \
	"$(report -f folded --keep-offsets "$T_TMP/kmem.dat" 2>&1)" \
	"do_execveat_common+0x10;alloc_bprm+0x45 1024
d_alloc+0x30 256"
# b2's stack S3 also serves the allocation at 8502 (task 200, bar_open): 2 x 256 bytes;
# b1 (8192 bytes, a hit without a stack) alone under the bare call site
check_eq "alloc_tag folded: the call site stands for the frame of its function" \
	"$(report -f folded "$T_TMP/lt.dat" 2>&1)" "do_sys_open;bar_open@drivers/bar.c:20[bar] 512
bar_open@drivers/bar.c:20[bar] 8192
__x64_sys_ioctl;foo_ioctl;foo_create@mm/foo.c:10 128
do_sys_open;bar_open;foo_create@mm/foo.c:10 128"

# kmem call sites and frames in modules: named from the kallsyms [module] column
cat > "$T_TMP/km.txt" <<'DESC'
cpus 1
kallsyms ffffffff81000000 T trace_event_raw_event_kmalloc
kallsyms ffffffff81001000 T __kmalloc_noprof
kallsyms ffffffff81002000 T core_fn
kallsyms ffffffffc0001000 t foo_alloc foo
kallsyms ffffffffc0002000 t foo_ioctl foo
kallsyms ffffffffc0010000 T _etext
ev 0 1000 1 kmalloc 0xffffffffc0001010 0x100 8 8
ev 0 1001 1 stack 0xffffffff81000010 0xffffffff81001020 0xffffffffc0001010 0xffffffffc0002030 0xffffffff81002040
ev 0 2000 1 kmalloc 0xffffffff81002044 0x200 8 8
DESC
mkfixture -o "$T_TMP/km.dat" "$T_TMP/km.txt"
json "$T_TMP/km.dat" > "$T_TMP/km.json"
jq_eq "kmem: a call site in a module names it, a built-in one has null" \
	'[.tags[] | [.function, .module]] | sort' '[["core_fn",null],["foo_alloc","foo"]]' "$T_TMP/km.json"
jq_eq "frames in modules say so" '[.tags[] | select(.module == "foo") | .stacks[0].frames[]]' \
	'["__kmalloc_noprof+0x20","foo_alloc+0x10 [foo]","foo_ioctl+0x30 [foo]","core_fn+0x40"]' "$T_TMP/km.json"
json --module foo "$T_TMP/km.dat" > "$T_TMP/kmf.json"
jq_eq "--module selects module call sites of the kmem source" '[.tags[].function]' '["foo_alloc"]' \
	"$T_TMP/kmf.json"
if trace-cmd convert -i "$T_TMP/km.dat" -o "$T_TMP/km7.dat" --file-version 7 --compression zstd \
		> /dev/null 2>&1; then
	json "$T_TMP/km7.dat" > "$T_TMP/km7.json"
	check_eq "modules from the kallsyms section of a v7 file" \
		"$(jq -c '[.tags[] | [.function, .module]] | sort' "$T_TMP/km7.json")" \
		'[["core_fn",null],["foo_alloc","foo"]]'
fi

# page source: forced over kmem, call site from the stack
mkfixture -o "$T_TMP/page.dat" "$D/page.txt"
json --source page "$T_TMP/page.dat" > "$T_TMP/page.json"
jq_eq "page: bytes are page size << order, failed allocations ignored" \
	'[.totals.allocs, .totals.live, .totals.live_bytes, .totals.bytes_alloced,
		.totals.bytes_freed]' \
	'[2,1,16384,20480,4096]' "$T_TMP/page.json"
jq_eq "page: call site is the first frame outside the allocator" \
	'[.tags[] | [.function, .offset]] | sort' '[["ksys_write",96],["pipe_write",64]]' \
	"$T_TMP/page.json"
# without a stack: named by order, GFP flags as the event's format names them (stock
# trace-cmd prints the same) and migrate type; a free of a page allocated before the
# trace by its order (issue 25: never "0x0")
{ grep -v '^ev 0 [0-9]*1 400 stack' "$D/page.txt"; echo 'ev 0 5000 400 page_free 0x9000 3'; } \
	> "$T_TMP/page-ns.txt"
mkfixture -o "$T_TMP/page-ns.dat" "$T_TMP/page-ns.txt"
json --source page "$T_TMP/page-ns.dat" > "$T_TMP/page-ns.json"
gfp=$(trace-cmd report -i "$T_TMP/page-ns.dat" 2> /dev/null | sed -n 's/.*order=2 .* gfp_flags=\([^ ]*\).*/\1/p')
check_eq "page, no stack: stock trace-cmd names the fixture's GFP flags" "$gfp" GFP_KERNEL
jq_eq "page, no stack: named by order, GFP flags, migrate type; an earlier page by its order" \
	'[.tags[] | [.function, .offset, .allocs, .unmatched_frees]] | sort' \
	"[[\"pages of order 0, $gfp, unmovable: no stack\",null,1,0],[\"pages of order 2, $gfp, unmovable: no stack\",null,1,0],[\"pages of order 3, allocated before the trace\",null,0,1]]" \
	"$T_TMP/page-ns.json"

# the earlier 'ref' key
sed 's/^cpus 2/cpus 2\nref/' "$D/lifetimes.txt" > "$T_TMP/ref.txt"
mkfixture -o "$T_TMP/ref.dat" "$T_TMP/ref.txt"
json "$T_TMP/ref.dat" > "$T_TMP/ref.json"
check_eq "'ref' key: same totals" "$(jq -c .totals "$T_TMP/ref.json")" \
	"$(jq -c .totals "$T_TMP/lt.json")"

# several files: call sites merged by name
json "$T_TMP/lt.dat" "$T_TMP/ref.dat" > "$T_TMP/two.json"
jq_eq "two files: call sites merged" \
	'[(.tags | length), .totals.allocs, (.files | length), (.live | length)]' '[2,12,2,4]' \
	"$T_TMP/two.json"
jq_eq "two files: each live allocation names its trace as trace (file is a source file)" \
	'[.live[] | [.trace, has("file")]] | unique' \
	"[[\"$T_TMP/lt.dat\",false],[\"$T_TMP/ref.dat\",false]]" "$T_TMP/two.json"
json -i "$T_TMP/lt.dat" -i "$T_TMP/ref.dat" > "$T_TMP/two-i.json"
check_eq "-i FILE -i FILE = FILE FILE" "$(jq -c .totals "$T_TMP/two-i.json")" \
	"$(jq -c .totals "$T_TMP/two.json")"

# the generator's ground truth, alloc_tag and kmem
for src in alloc_tag kmem; do
	mkfixture -o "$T_TMP/g.dat" --generate 60000 --seed 11 --live 300 --cpus 3 --source $src \
		--expect "$T_TMP/g.exp"
	json "$T_TMP/g.dat" > "$T_TMP/g.json"
	exp=$(awk '$1 == "allocs" { a = $2 } $1 == "frees" { f = $2 } $1 == "live" { l = $2 }
		   $1 == "live_bytes" { b = $2 }
		   END { printf "[%s,%s,%s,%s,0]", a, f, l, b }' "$T_TMP/g.exp")
	jq_eq "$src generator: allocs, frees, live, live bytes as generated" \
		'[.totals.allocs, .totals.matched_frees, .totals.live, .totals.live_bytes,
			.totals.unmatched_frees]' \
		"$exp" "$T_TMP/g.json"
	jq_eq "$src generator: every allocation has its stack" \
		'[.tags[].stacks[] | select(.frames | length == 0)] | length' 0 "$T_TMP/g.json"
done

# a progress bar on a terminal for a large file, none otherwise
mkfixture -o "$T_TMP/prog.dat" --generate 700000 --seed 3 --live 100
json "$T_TMP/prog.dat" > /dev/null
check_nogrep "no progress bar when stderr is not a terminal" '%' "$T_TMP/json.err"
if command -v script > /dev/null; then
	script -qec "'$ATAG_CMD' report -f json -o '$T_TMP/prog.json' '$T_TMP/prog.dat'" /dev/null \
		> "$T_TMP/tty.out" 2>&1
	check_grep "a progress bar on a terminal" "prog.dat: \[#+ *\] +[0-9]+%" "$T_TMP/tty.out"
	cmd="'$ATAG_CMD' report --no-progress -f json -o '$T_TMP/prog.json'"
	script -qec "$cmd '$T_TMP/prog.dat'" /dev/null > "$T_TMP/tty2.out" 2>&1
	check_nogrep "--no-progress" '%' "$T_TMP/tty2.out"
else
	skip "a progress bar on a terminal" "script(1) is missing"
fi

# reading in a thread of its own (ATAG_THREADS=2) gives what one thread gives, and so
# do two threads going on with one from the first look on (2to1: what a busy CPU
# makes report do)
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	mkfixture -o "$T_TMP/thr.dat" --generate 200000 --seed 8 --live 500 --cpus 4 --stacks 64
	for run in 2:thr 2:cut 2:lost 2:km 2to1:thr; do
		mode=${run%%:*} f=${run#*:}
		what="threaded"
		[ "$mode" = 2to1 ] && what="two threads going on with one"
		ATAG_THREADS=$mode "$ATAG_CMD" report -f json -n 100000 "$T_TMP/$f.dat" \
			> "$T_TMP/thr2.json" 2> "$T_TMP/thr2.err"
		ATAG_THREADS=1 "$ATAG_CMD" report -f json -n 100000 "$T_TMP/$f.dat" \
			> "$T_TMP/thr1.json" 2> "$T_TMP/thr1.err"
		if cmp -s "$T_TMP/thr1.json" "$T_TMP/thr2.json" && cmp -s "$T_TMP/thr1.err" "$T_TMP/thr2.err" &&
		   [ -s "$T_TMP/thr1.json" ]; then
			ok "$f.dat: $what and ATAG_THREADS=1 reports are identical"
		else
			fail "$f.dat: $what and ATAG_THREADS=1 reports differ" \
				"$(diff "$T_TMP/thr1.json" "$T_TMP/thr2.json" | head -5)" \
				"$(diff "$T_TMP/thr1.err" "$T_TMP/thr2.err" | head -5)"
		fi
	done
else
	skip "threaded and single-threaded reports are identical" "one CPU online"
fi

# a trace.dat whose header claims a long size other than 4 or 8
for ls in 0 3; do
	cp "$T_TMP/lt.dat" "$T_TMP/ls.dat"
	printf "\\$ls" | dd of="$T_TMP/ls.dat" bs=1 seek=13 conv=notrunc 2>/dev/null
	report "$T_TMP/ls.dat" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	check_eq "long size $ls: exit 1, one line naming the file" "$rc:$(wc -l < "$T_TMP/err")" "1:1"
	check_grep "long size $ls: the reason" "^trace-cmd-alloc-tag: $T_TMP/ls.dat: corrupt header: a long of $ls bytes \\(4 or 8 expected\\)$" "$T_TMP/err"
done

# output that cannot be written is an error, not a silent short report
for f in text json csv folded; do
	if [ -w /dev/full ]; then
		report -f $f "$T_TMP/lt.dat" > /dev/full 2> "$T_TMP/err"; rc=$?
		check_eq "-f $f > /dev/full: exit 1, one line" "$rc:$(wc -l < "$T_TMP/err")" "1:1"
		check_grep "-f $f > /dev/full: says why" "No space left on device" "$T_TMP/err"
	else
		skip "-f $f > /dev/full" "no writable /dev/full"
	fi
done
report -f json -o "$T_TMP/nodir/x.json" "$T_TMP/lt.dat" > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "-o into a missing directory: exit 1, one line" "$rc:$(wc -l < "$T_TMP/err")" "1:1"
check_grep "-o into a missing directory: names the file" "$T_TMP/nodir/x.json: No such file" "$T_TMP/err"

# usage errors
check_status "unknown option: exit 2" 2 "$ATAG_CMD" report --frobnicate
check_status "bad -n: exit 2" 2 "$ATAG_CMD" report -n many "$T_TMP/lt.dat"
check_status "bad --sort: exit 2" 2 "$ATAG_CMD" report -s nope "$T_TMP/lt.dat"
check_status "bad --start: exit 2" 2 "$ATAG_CMD" report --start yesterday "$T_TMP/lt.dat"
check_status "--min-age without --live: exit 2" 2 "$ATAG_CMD" report --min-age 1s "$T_TMP/lt.dat"
"$ATAG_CMD" report -s nope "$T_TMP/lt.dat" 2> "$T_TMP/err" > /dev/null
check_grep "usage errors name the option" "^trace-cmd-alloc-tag: --sort: unknown value 'nope'" \
	"$T_TMP/err"
(cd "$T_TMP" && cp lt.dat trace.dat && "$ATAG_CMD" report -f json > dflt.json 2>/dev/null)
check_eq "default input is ./trace.dat" "$(jq -c .totals "$T_TMP/dflt.json")" \
	"$(jq -c .totals "$T_TMP/lt.json")"

# report never needs root
if is_root && id nobody > /dev/null 2>&1; then
	chmod 755 "$T_TMP"; chmod 644 "$T_TMP/lt.dat"
	out=$(su nobody -s /bin/sh -c "'$ATAG_CMD' report -f json '$T_TMP/lt.dat'" 2>&1 |
		jq -c .totals.allocs)
	check_eq "report as an unprivileged user" "$out" 6
else
	skip "report as an unprivileged user" "needs root to switch to nobody"
fi

# ------------------------------------------------------------------ JSON documents as input
# report -f json's document read back: the call sites as the trace gives them (their
# counters, not their lifetimes), the suspects unknown, the one-by-one views refused
"$ATAG_CMD" report -f json -o "$T_TMP/big.json" "$T_TMP/big.dat"
"$ATAG_CMD" report -n 0 -f csv "$T_TMP/big.dat" | cut -d, -f1-12 > "$T_TMP/big.trace.csv"
"$ATAG_CMD" report -n 0 -f csv "$T_TMP/big.json" | cut -d, -f1-12 > "$T_TMP/big.doc.csv"
check_eq "a JSON document: its call sites' counters are the trace's ($(wc -l < "$T_TMP/big.trace.csv") rows)" \
	"$(cmp "$T_TMP/big.trace.csv" "$T_TMP/big.doc.csv" 2>&1)" ""
check_eq "a JSON document: leak suspects unknown (null), live counted" \
	"$("$ATAG_CMD" report -f json "$T_TMP/big.json" | jq -c '[.totals.live_suspects, .totals.live]')" \
	"$(jq -c '[null, .totals.live]' "$T_TMP/big.json")"
check_grep "a JSON document: the text says the suspects are unknown" 'leak suspects unknown' \
	"$("$ATAG_CMD" report "$T_TMP/big.json" > "$T_TMP/doc.txt"; echo "$T_TMP/doc.txt")"
out=$("$ATAG_CMD" report --timeline "$T_TMP/big.json" 2>&1); rc=$?
check_eq "a JSON document: --timeline refused, one line naming the file" "$rc:$out" \
	"1:trace-cmd-alloc-tag: $T_TMP/big.json: a JSON document keeps no allocations one by one: --timeline reads trace.dat files only"
out=$("$ATAG_CMD" report -f lifetimes -o "$T_TMP/rows.csv" "$T_TMP/big.json" 2>&1); rc=$?
check_eq "a JSON document: -f lifetimes refused, no output written" \
	"$rc:$(echo "$out" | wc -l):$([ -e "$T_TMP/rows.csv" ] && echo written)" "1:1:"
"$ATAG_CMD" report -f html -o "$T_TMP/doc.html" "$T_TMP/big.json"
check_eq "a JSON document: the HTML page is written, its suspects unknown" \
	"$?:$(grep -q '"live_suspects":null' "$T_TMP/doc.html" && echo null)" "0:null"

done_testing
