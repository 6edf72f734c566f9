#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report -f html: one self-contained page, opened in headless Chromium with no
# network: it draws without a console error, and the figures it shows (each source's
# row at a glance: its totals, peak, top call site; table cells) are the JSON
# report's for the same trace; a click on a table header sorts it; the timeline, flame graphs and
# histograms are drawn.
. "$(dirname "$0")/lib.sh"

report() { "$ATAG_CMD" report "$@"; }
SAMPLE=$ATAG_SRC/tests/data/sample.dat

report -f html -o "$T_TMP/s.html" "$SAMPLE" 2> "$T_TMP/s.err"
check_eq "report -f html exits 0" "$?" 0
check_nogrep "nothing on stderr but notices" "^[^:]*: (error|out of memory)" "$T_TMP/s.err"
check_grep "one page" "^<!DOCTYPE html>" "$T_TMP/s.html"
check_nogrep "no external script, style or link" \
	"<(script|link|img|iframe)[^>]* (src|href)=" "$T_TMP/s.html"
check_nogrep "no http(s) URL in a src or href" "(src|href) *= *[\"']?(https?:)?//" \
	"$T_TMP/s.html"
check_grep "d3 embedded, its copyright line kept" "^// https://d3js.org v5[.0-9]* Copyright" \
	"$T_TMP/s.html"

# The embedded data: the JSON report (sites by their peak) and the timelines.
report -f json --sort peak -n 1000 "$SAMPLE" > "$T_TMP/s.json" 2>/dev/null
report -f json --timeline -n 1000 "$SAMPLE" > "$T_TMP/t.json" 2>/dev/null
python3 - "$T_TMP/s.html" "$T_TMP/s.json" "$T_TMP/t.json" > "$T_TMP/embed.out" 2>&1 <<'EOF'
import json, re, sys
page = open(sys.argv[1]).read()
def data(id):
    m = re.search(r'<script type="application/json" id="%s">\n(.*?)</script>' % id, page, re.S)
    return json.loads(m.group(1))
rep, tl = data('atag-report'), data('atag-timelines')
print('report', rep == json.load(open(sys.argv[2])))
print('timelines', tl['timelines'] == json.load(open(sys.argv[3]))['timelines'])
print('histograms', len(tl['lifetimes']) == len(rep['tags']))
EOF
check_eq "the page's data is the JSON report's and the timelines'" "$(cat "$T_TMP/embed.out")" \
	"report True
timelines True
histograms True"
# a task whose comm would end the data's script element (its live allocation names it)
sed 's|^comm 100 foo-daemon$|comm 100 </script><script>alert(1)//|' \
	"$ATAG_SRC/tests/data/lifetimes.txt" > "$T_TMP/esc.txt"
mkfixture -o "$T_TMP/esc.dat" "$T_TMP/esc.txt" || fail "fixture with a hostile comm"
report -f html "$T_TMP/esc.dat" > "$T_TMP/esc.html" 2>/dev/null
report -f json "$T_TMP/esc.dat" > "$T_TMP/esc.json" 2>/dev/null
check_grep "the hostile comm is in the JSON report" '"comm":"</script><script>alert' \
	"$T_TMP/esc.json"
check_nogrep "a string of the trace cannot close a script element" "</script><script>alert" \
	"$T_TMP/esc.html"
check_grep "it is there, escaped" '"comm":"\\u003c/script>\\u003cscript>alert' "$T_TMP/esc.html"

if [ -n "$ASAN_OPTIONS" ]; then
	skip "browser" "the sanitizer build: the page is the normal build's (checked above); the browser runs there"
	done_testing
	exit
fi
if ! command -v chromium > /dev/null; then
	skip "browser" "chromium is not installed (scripts/deps.sh installs it)"
	done_testing
	exit
fi

# Headless, the network off: no name resolves, every connection goes to a closed
# port (the browser's own update and time checks too); its network log must show
# no request of the page.
# One page opened: the one written, with a click on the call-site table's "allocs"
# header added after the page's script (sorting is the page's; the click is a user's).
sed 's|</body>|<script>document.querySelector("#site-table th[data-key=allocs]").dispatchEvent(new MouseEvent("click"));</script></body>|' \
	"$T_TMP/s.html" > "$T_TMP/click.html"
profile=$(mktemp -d)
at_exit "rm -rf '$profile'"
t0=$(date +%s%N)
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--disable-dev-shm-usage --proxy-server=socks5://127.0.0.1:9 \
	--host-resolver-rules='MAP * ~NOTFOUND' --log-net-log="$T_TMP/netlog.json" \
	--user-data-dir="$profile" --virtual-time-budget=5000 \
	--enable-logging=stderr --v=0 --dump-dom "file://$T_TMP/click.html" \
	> "$T_TMP/dom.html" 2> "$T_TMP/chromium.log"
check_eq "chromium dumps the DOM" "$?" 0
echo "# chromium: $((($(date +%s%N) - t0) / 1000000)) ms wall, start-up included"
check_nogrep "no console message, no uncaught exception" ":CONSOLE|Uncaught" "$T_TMP/chromium.log"
grep -o '"url":"[a-z]*://[^"/]*' "$T_TMP/netlog.json" | sort -u |
	grep -vE '://([a-z0-9-]+\.)*(google\.com|googleapis\.com)$' > "$T_TMP/requests"
check_eq "the page requested nothing (the browser's own checks aside)" \
	"$(cat "$T_TMP/requests")" ""

# The DOM as drawn, against the JSON report.
python3 - "$T_TMP/dom.html" "$T_TMP/s.json" "$T_TMP/t.json" > "$T_TMP/dom.out" \
	2> "$T_TMP/dom.err" <<'EOF'
import json, sys
from html.parser import HTMLParser

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.stack, self.rows, self.paths = {}, [], [], {}
        self.rects, self.text_of = {}, None
        self.table = None
        self.body = {}
        self.glance = {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'body':
            self.body = a
        if 'id' in a:
            self.ids[a['id']] = dict(a, text='')
            self.text_of = a['id']
        sec = next((s for s in reversed(self.stack) if s), None)
        self.stack.append(a.get('id'))
        if tag in ('br', 'meta', 'link', 'img', 'input', 'hr', 'wbr'):
            self.stack.pop()
        if tag == 'tr' and sec == 'site-table' and 'data-function' in a:
            self.rows.append({'function': a['data-function']})
        if tag == 'td' and sec and sec.startswith('glance-'):
            self.glance.setdefault(sec[7:], []).append(a)
        if tag == 'td' and sec == 'site-table' and self.rows:
            self.rows[-1][a.get('data-key')] = a.get('data-value')
        if tag == 'path' and a.get('d'):
            self.paths.setdefault((sec, a.get('class')), 0)
            self.paths[(sec, a.get('class'))] += 1
        if tag == 'rect' and float(a.get('width', 0) or 0) > 0:
            self.rects[sec] = self.rects.get(sec, 0) + 1
    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()
        self.text_of = None
    def handle_data(self, data):
        if self.text_of:
            self.ids[self.text_of]['text'] += data

d = Dom()
d.feed(open(sys.argv[1]).read())
rep = json.load(open(sys.argv[2]))
tls = json.load(open(sys.argv[3]))['timelines']
tl = tls[0]
print('rendered', d.body.get('data-rendered'))
# at a glance: a row per source, each cell that source's figure alone
print('a glance row per source', sorted(d.glance) == sorted(s['source'] for s in rep['sources']))
for s in rep['sources']:
    src, t, c = s['source'], s['totals'], d.glance.get(s['source'], [{}] * 7)
    stl = [x for x in tls if x['source'] == src][:1]
    top = [x for x in rep['tags'] if x['source'] == src][:1]
    print(src, 'totals', c[1].get('data-count') == str(t['allocs']) and
          c[2].get('data-count') == str(t['frees']) and
          c[3].get('data-bytes') == str(t['live_bytes']) and
          c[3].get('data-count') == str(t['live']) and
          c[4].get('data-count') == str(t['live_suspects']))
    print(src, 'peak', bool(stl) and c[5].get('data-bytes') == str(stl[0]['peak']['live_bytes'])
          and c[5].get('data-ts') == str(stl[0]['peak']['ts']))
    print(src, 'top site', bool(top) and c[6].get('data-function') == (top[0]['function'] or '')
          and c[6].get('data-bytes') == str(top[0]['live_bytes']))
print('table rows', len(d.rows) == len(rep['tags']))
# sorted by the click: allocs, most first (ties keep the report's order)
by_allocs = sorted(rep['tags'], key=lambda t: -t['allocs'])
ok = all(r['function'] == t['function'] and r['allocs'] == str(t['allocs']) and
         r['live_bytes'] == str(t['live_bytes']) and
         r['bytes_alloced'] == str(t['bytes_alloced'])
         for r, t in zip(d.rows[:5], by_allocs[:5]))
print('table cells, sorted by a click on allocs', ok and
      [r['function'] for r in d.rows] != [t['function'] for t in rep['tags']])
print('timeline total drawn', d.paths.get(('timeline-charts', 'total'), 0) == 1)
print('timeline sites drawn', d.paths.get(('timeline-charts', 'series'), 0) ==
      min(8, len(tl['sites'])))
print('flame alloc drawn', d.rects.get('flame-alloc', 0) > 10)
print('flame live drawn', d.rects.get('flame-live', 0) > 5)
print('histograms drawn', d.rects.get('hist-charts', 0) > 0)
print('# the page drew in', d.body.get('data-render-ms'), 'ms', file=sys.stderr)
EOF
grep -v '^#' "$T_TMP/dom.err"
grep '^#' "$T_TMP/dom.err"
check_eq "the page's figures are the JSON report's; its charts are drawn" \
	"$(cat "$T_TMP/dom.out")" "rendered yes
a glance row per source True
alloc_tag totals True
alloc_tag peak True
alloc_tag top site True
table rows True
table cells, sorted by a click on allocs True
timeline total drawn True
timeline sites drawn True
flame alloc drawn True
flame live drawn True
histograms drawn True"

# A page made from a JSON document (report -f json's, as leaks -o writes one): no
# timeline, no lifetimes, suspects unknown; it still draws without an error.
report -f json -o "$T_TMP/doc.json" "$SAMPLE" 2> /dev/null
report -f html -o "$T_TMP/doc.html" "$T_TMP/doc.json"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--disable-dev-shm-usage --proxy-server=socks5://127.0.0.1:9 \
	--host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir="$profile" \
	--virtual-time-budget=5000 --enable-logging=stderr --v=0 \
	--dump-dom "file://$T_TMP/doc.html" > "$T_TMP/doc.dom" 2> "$T_TMP/doc.log"
check_eq "a JSON document's page: drawn (data-render-ms set)" \
	"$?:$(grep -c 'data-render-ms=' "$T_TMP/doc.dom")" "0:1"
check_nogrep "a JSON document's page: no console message, no uncaught exception" \
	":CONSOLE|Uncaught" "$T_TMP/doc.log"
check_grep "a JSON document's page: the suspects said unknown" '>unknown<' "$T_TMP/doc.dom"

done_testing
