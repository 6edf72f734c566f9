#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: live
# tier: normal build (the kernel under load; ASan runs this code in t-record, t-top, t-leaks)
# record --kmem on this machine's kernel (issue 25): what is live at the end is a leak
# suspect unless something explains it (a workload that frees everything leaves none;
# one that holds 100 open files shows them); every figure of slab and page events
# says which source it is (folded, pprof, diff, HTML); page allocations without a
# stack are named by their order, GFP flags (as stock trace-cmd prints them) and
# migrate type, with a stack by their first frame outside the page allocator.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/live.sh"
FD=$ATAG_BUILD/tests/progs/atag-fdhold
live_tier "record --kmem recordings of this kernel" --progs trace-cmd,jq \
	--events kmalloc,kfree,kmem_cache_alloc,kmem_cache_free,mm_page_alloc,mm_page_free

rec() {	# rec NAME ARGS... -- COMMAND: record --kmem into NAME.dat, stderr in NAME.err
	name=$1; shift
	"$C" record --kmem -b 16384 -o "$T_TMP/$name.dat" "$@" > /dev/null 2> "$T_TMP/$name.err" ||
		fail "record --kmem $*" "$(tail -5 "$T_TMP/$name.err")"
}
json() { "$C" report -f json -n 0 "$@" 2> /dev/null; }
jq_eq() { check_eq "$1" "$(jq -r "$2" "$3" 2>&1)" "$4"; }
# the suspects of a report, one line each, for a failure's message
suspects() { jq -r '.live[] | select(.suspect) | "\(.source) \(.function) \(.comm)"' "$1" |
	sort | uniq -c | sort -rn | head -n 10; }

# ------------------------------------------------------------------ leak suspects

# A workload that frees what it allocates: nothing suspect, with the defaults (the
# recording lingers so that what the kernel frees after an RCU grace period lands)
rec true -- /bin/true
json "$T_TMP/true.dat" > "$T_TMP/true.json"
check_grep "/bin/true: record says how long it lingered past the workload" \
	"^trace-cmd-alloc-tag record: recorded [0-9]+ ms past the workload's end, for what the kernel frees after an RCU grace period \(--linger, --no-linger\)$" \
	"$T_TMP/true.err"
n=$(jq '.totals.live_suspects' "$T_TMP/true.json")
if [ "$n" = 0 ]; then
	ok "/bin/true: no leak suspect (of $(jq '.totals.live' "$T_TMP/true.json") live at the end)"
else
	fail "/bin/true: no leak suspect" "$n suspects:" "$(suspects "$T_TMP/true.json")"
fi
jq_eq "/bin/true: each source's suspects add up to the total" \
	'([.sources[].totals.live_suspects] | add) == .totals.live_suspects' "$T_TMP/true.json" true
jq_eq "/bin/true: every live allocation not suspect says why" \
	'[.live[] | select(.suspect | not) | .suspect_why | type == "string" and length > 0] | all' \
	"$T_TMP/true.json" true
"$C" report "$T_TMP/true.dat" > "$T_TMP/true.txt" 2>&1
# (the line is there when something is live at the end)
check_nogrep "/bin/true: the text names no suspect" '^ +[1-9][0-9]* leak suspects?, ' \
	"$T_TMP/true.txt"

# 100 open files handed to a child that keeps them past the recording's end
rm -f "$T_TMP/fd.pid"
rec fd -- "$FD" --pid "$T_TMP/fd.pid" 100 /etc/hostname
holder=$(cat "$T_TMP/fd.pid" 2>/dev/null)
[ -n "$holder" ] && kill "$holder" 2>/dev/null
json "$T_TMP/fd.dat" > "$T_TMP/fd.json"
files=$(jq '[.live[] | select(.suspect and .source == "kmem" and .function == "alloc_empty_file")] | length' \
	"$T_TMP/fd.json")
check "100 open files held at the end: 100 or more suspects at alloc_empty_file (kmem: $files)" \
	test "$files" -ge 100
check "100 open files: 100 or more suspects in all ($(jq .totals.live_suspects "$T_TMP/fd.json"))" \
	test "$(jq .totals.live_suspects "$T_TMP/fd.json")" -ge 100
"$C" report --live -n 0 "$T_TMP/fd.dat" > "$T_TMP/fd.txt" 2>&1
check_grep "100 open files: the text's leak suspects table" \
	'^leak suspects: live at the end of the trace, nothing explaining it' "$T_TMP/fd.txt"
check_grep "100 open files: alloc_empty_file among them, with its task" \
	' atag-fdhold +exited +alloc_empty_file\+0x[0-9a-f]+$' "$T_TMP/fd.txt"

# the task that opened them still runs at the end: marked with it
rm -f "$T_TMP/stay.pid"
rec stay -- sh -c "'$FD' --stay --pid '$T_TMP/stay.pid' 100 /etc/hostname > /dev/null &
	'$ATAG_BUILD/tests/progs/atag-await' -t 10 file '$T_TMP/stay.pid'"
stay=$(cat "$T_TMP/stay.pid" 2>/dev/null)
[ -n "$stay" ] && kill "$stay" 2>/dev/null
json "$T_TMP/stay.dat" > "$T_TMP/stay.json"
check_eq "a running task's 100 open files: suspects marked with the task, running" \
	"$(jq "[.live[] | select(.suspect and .function == \"alloc_empty_file\" and .pid == ${stay:-0} and .task_running)] | length >= 100" \
	   "$T_TMP/stay.json")" true

# ------------------------------------------------------------------ page names

# without stacks: order, GFP flags as stock trace-cmd prints them, migrate type
rec nostack --no-stack -- sh -c 'cat /usr/share/doc/*/copyright > /dev/null'
json "$T_TMP/nostack.dat" > "$T_TMP/nostack.json"
jq -r '.tags[] | select(.source == "page") | .function' "$T_TMP/nostack.json" > "$T_TMP/ns.names"
check "--no-stack: page call sites" test -s "$T_TMP/ns.names"
check_eq "--no-stack: no page call site without a name or named by an address" \
	"$(grep -cvE '^pages of order [0-9]+, ' "$T_TMP/ns.names")" 0
sed -n 's/^pages of order \([0-9]*\), \(.*\), \(unmovable\|movable\|reclaimable\|migratetype [0-9]*\): no stack$/\1 \2/p' \
	"$T_TMP/ns.names" | sort -u > "$T_TMP/ns.ours"
env $ATAG_TRACECMD_ENV trace-cmd report -i "$T_TMP/nostack.dat" 2> /dev/null |
	sed -n 's/.* mm_page_alloc: .* order=\([0-9]*\) migratetype=[0-9]* gfp_flags=\([^ ]*\).*/\1 \2/p' |
	sort -u > "$T_TMP/ns.stock"
check "--no-stack: allocations named by their order and GFP flags ($(wc -l < "$T_TMP/ns.ours"))" \
	test -s "$T_TMP/ns.ours"
check_eq "--no-stack: each name's order and GFP flags are an event's, as stock trace-cmd prints them" \
	"$(comm -23 "$T_TMP/ns.ours" "$T_TMP/ns.stock")" ""

# with stacks: the first frame outside the page allocator (mm/page_alloc.c, its
# mempolicy and folio entry points) and the tracing machinery
jq -r '.tags[] | select(.source == "page") | .function // "(none)"' "$T_TMP/fd.json" |
	sort -u > "$T_TMP/fd.pages"
check "with stacks: page call sites ($(wc -l < "$T_TMP/fd.pages"))" test -s "$T_TMP/fd.pages"
check_eq "with stacks: no page call site is the page allocator's or the tracer's" \
	"$(grep -E '^(\(none\)|0x|__alloc_pages|alloc_pages|__alloc_frozen_pages|alloc_frozen_pages|get_page_from_freelist|__folio_alloc|folio_alloc|alloc_pages_mpol|rmqueue|__rmqueue|prep_new_page|post_alloc_hook|__alloc_pages_bulk|alloc_pages_bulk|trace_event_raw_event|perf_trace|__traceiter|trace_)' \
	   "$T_TMP/fd.pages" | grep -v '^pages of order ')" ""

# ------------------------------------------------------------------ one source, one label

# folded: a root frame per source; each adds up to that source's figures
"$C" report -f folded -n 0 "$T_TMP/fd.dat" > "$T_TMP/fd.folded" 2> /dev/null
check_eq "folded: every line rooted in its source" \
	"$(cut -d';' -f1 "$T_TMP/fd.folded" | sort -u | tr '\n' ' ')" "[kmem] [page] "
"$C" report -f folded -n 0 --weight alloc_objects "$T_TMP/fd.dat" 2> /dev/null |
	awk '{ split($1, a, ";"); s[a[1]] += $NF } END { for (k in s) print k, s[k] }' |
	sort > "$T_TMP/fd.froots"
jq -r '.sources[] | "[\(.source)] \(.totals.allocs)"' "$T_TMP/fd.json" | sort > "$T_TMP/fd.totals"
check_eq "folded: page allocations add up to the page source's, exactly" \
	"$(grep '^\[page\]' "$T_TMP/fd.froots")" "$(grep '^\[page\]' "$T_TMP/fd.totals")"
# slab stacks are sampled: a call site's stacks stand for its allocations, rounded
# so that they add up (a CI run once had 494 of 489, each rounded alone)
check_eq "folded: slab allocations add up to the kmem source's, exactly (sampled stacks)" \
	"$(grep '^\[kmem\]' "$T_TMP/fd.froots")" "$(grep '^\[kmem\]' "$T_TMP/fd.totals")"

# pprof: every sample labelled with its source, the page ones the page source's
if command -v go > /dev/null 2>&1; then
	"$C" report -f pprof -n 0 -o "$T_TMP/fd.pb" "$T_TMP/fd.dat" 2> /dev/null
	go tool pprof -raw -symbolize=none "$T_TMP/fd.pb" > "$T_TMP/fd.raw" 2> /dev/null
	check_grep "pprof: the file's sources named, not the first alone" \
		"^Comment: file: $T_TMP/fd.dat \(kmem, page\)$" "$T_TMP/fd.raw"
	awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+:/ { n = $1; next }
	     /^ +source:\[/ { sub(/^ +source:\[/, ""); sub(/\]$/, ""); s[$0] += n; n = 0 }
	     END { for (k in s) print "[" k "]", s[k] }' "$T_TMP/fd.raw" | sort > "$T_TMP/fd.plabels"
	check_eq "pprof: page samples add up to the page source's allocations" \
		"$(grep '^\[page\]' "$T_TMP/fd.plabels")" "$(grep '^\[page\]' "$T_TMP/fd.totals")"
	check_eq "pprof: no sample without a source label" \
		"$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+:' "$T_TMP/fd.raw")" "$(awk '/source:\[/ { n++ } END { print n + 0 }' "$T_TMP/fd.raw")"
else
	skip "pprof labels" "go is not installed (golang-go)"
fi

# diff: a totals table per source, each the reports' own; every call site within one
"$C" diff -f json "$T_TMP/true.dat" "$T_TMP/fd.dat" > "$T_TMP/diff.json" 2> /dev/null
check_eq "diff: each source's totals are its report's, before and after" \
	"$(jq -c '[.sources[] | [.name, .before.allocs, .after.allocs, .after.live_bytes]]' "$T_TMP/diff.json")" \
	"$(jq -sc '[.[0].sources as $b | .[1].sources[] | . as $a |
		[$a.source, ($b[] | select(.source == $a.source) | .totals.allocs), $a.totals.allocs,
		 $a.totals.live_bytes]]' "$T_TMP/true.json" "$T_TMP/fd.json")"
jq_eq "diff: every call site of one source" \
	'[.sites[].source] | unique | map(. == "kmem" or . == "page") | all' "$T_TMP/diff.json" true
"$C" diff "$T_TMP/true.dat" "$T_TMP/fd.dat" > "$T_TMP/diff.txt" 2> /dev/null
check_eq "diff text: a totals table per source, no sum of them" \
	"$(grep -cE '^(kmem|page) +BEFORE +AFTER +CHANGE$' "$T_TMP/diff.txt"):$(grep -c '^ +BEFORE' "$T_TMP/diff.txt")" "2:0"
check_grep "diff text: the call sites' SOURCE column" '^LIVE BYTES .* SOURCE +CALL SITE$' \
	"$T_TMP/diff.txt"

# HTML: at a glance, a row per source with that source's own figures
if ! command -v chromium > /dev/null; then
	skip "HTML at a glance per source" "chromium is not installed (scripts/deps.sh installs it)"
elif [ -n "$ASAN_OPTIONS" ]; then
	skip "HTML at a glance per source" "the sanitizer build: the browser runs with the normal build"
else
	"$C" report -f html -o "$T_TMP/fd.html" "$T_TMP/fd.dat" 2> /dev/null
	profile=$(mktemp -d)
	at_exit "rm -rf '$profile'"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --proxy-server=socks5://127.0.0.1:9 \
		--host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir="$profile" \
		--virtual-time-budget=5000 --dump-dom "file://$T_TMP/fd.html" \
		> "$T_TMP/fd.dom" 2> /dev/null
	python3 - "$T_TMP/fd.dom" "$T_TMP/fd.json" > "$T_TMP/glance" 2>&1 <<'EOF'
import json, sys
from html.parser import HTMLParser

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.row, self.rows, self.flame = None, {}, set()
        self.in_flame, self.text = 0, False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'tr' and a.get('id', '').startswith('glance-'):
            self.row = a['id'][7:]
            self.rows[self.row] = []
        elif tag == 'td' and self.row:
            self.rows[self.row].append(a)
        if tag == 'div' and a.get('id') == 'flame-alloc':
            self.in_flame = 1
        self.text = self.in_flame and tag in ('text', 'title')
    def handle_endtag(self, tag):
        if tag == 'tr':
            self.row = None
        if tag == 'div' and self.in_flame:
            self.in_flame = 0
    def handle_data(self, data):
        if self.text and data.startswith('['):
            self.flame.add(data.split()[0])

d = Dom()
d.feed(open(sys.argv[1]).read())
rep = json.load(open(sys.argv[2]))
print('rows', ' '.join(sorted(d.rows)))
for s in rep['sources']:
    c, t = d.rows.get(s['source'], []), s['totals']
    print(s['source'], len(c) == 7 and c[1].get('data-count') == str(t['allocs']) and
          c[3].get('data-bytes') == str(t['live_bytes']) and
          c[4].get('data-count') == str(t['live_suspects']))
print('flame roots', ' '.join(sorted(x for x in d.flame if x in ('[kmem]', '[page]'))))
EOF
	check_eq "HTML: at a glance, each source's row holds its own totals; the flame graph a tower each" \
		"$(cat "$T_TMP/glance")" "rows kmem page
kmem True
page True
flame roots [kmem] [page]"
fi
check_eq "nothing left behind" "$(instances_left "$TFS")" ""

done_testing
