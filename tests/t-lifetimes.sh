#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# report -f lifetimes / lifetimes-json and --stacks-out on generated trace.dat files:
# the rows against stock trace-cmd's events paired by ptr (tests/lifetimes-pair.awk),
# the stacks against the JSON report's, one thread against two, and report(1)'s
# fleet query in DuckDB against report -f json of the same files.
. "$(dirname "$0")/lib.sh"

D=$ATAG_SRC/tests/data
report() { "$ATAG_CMD" report "$@"; }
NPM_DIR=${ATAG_NPM_DIR:-/var/cache/trace-cmd-alloc-tag/npm}
DUCKDB_PKG=@duckdb/node-api@1.5.6-r.1

# three recordings: two alloc_tag ones of two hosts, a kmem one of a third
# (the uname option after "cpus", which comes first)
with_host() { sed "/^cpus /a uname Linux $1 6.18.0 #1 SMP x86_64" "$2"; }
with_host host-a "$D/lifetimes.txt" > "$T_TMP/a.txt"
with_host host-c "$D/lifetimes.txt" > "$T_TMP/c.txt"
with_host host-b "$D/kmem.txt" > "$T_TMP/b.txt"
for f in a b c; do
	mkfixture -o "$T_TMP/$f.dat" "$T_TMP/$f.txt" || fail "fixture $f"
done
cd "$T_TMP" || exit 1

report -f lifetimes --stacks-out a-stacks.csv a.dat > a.csv 2> a.err
check_eq "-f lifetimes exits 0" "$?" 0
h="trace,host,source,tag,function,file,line,module,offset,stack_id,pid,comm,ptr,bytes"
check_eq "the header line" "$(head -n 1 a.csv)" "$h,alloc_ns,free_ns,lifetime_ns,state"
check_eq "trace and host: the path given, uname's node name" \
	"$(tail -n +2 a.csv | cut -d, -f1,2 | sort -u)" "a.dat,host-a"

# the rows as the pairing script prints them: SITE PTR BYTES ALLOC FREE LIFETIME STATE
project() {
	tail -n +2 "$1" | awk -F, '{ s = $5; if ($9 != "") s = s "+" $9
		print s, $13, $14, $15, ($16 == "" ? "-" : $16), ($17 == "" ? "-" : $17), $18 }'
}
for f in a b; do
	tracecmd report -t $f.dat 2> /dev/null | awk -f "$ATAG_SRC/tests/lifetimes-pair.awk" \
		> $f.pairs
	report -f lifetimes --raw-lifetimes $f.dat > $f.raw.csv 2> /dev/null
	check_eq "$f: rows = stock trace-cmd's events paired by ptr, in the order they end" \
		"$(project $f.raw.csv)" "$(cat $f.pairs)"
done
check_eq "... which are 6 and 3" "$(cat a.pairs b.pairs | wc -l)" 9
check_eq "a: six allocations (3 freed, 1 replaced, 2 live)" \
	"$(tail -n +2 a.csv | cut -d, -f18 | sort | uniq -c | awk '{ printf "%s %s ", $2, $1 }')" \
	"freed 3 live 2 replaced 1 "
# a2 (2002 .. 9002, freed by its own task) spans its capture of 3000 .. 3001: 1 ns out
check_eq "lifetime_ns less the task's stack-capture time (as report's histograms)" \
	"$(awk -F, '$13 == "0xffff888000000200" { print $17 }' a.csv)" 6999
report -f json a.dat > a.json 2> /dev/null
check_eq "per site: row lifetimes = the JSON report's count, min, max" \
	"$(awk -F, '$18 == "freed" { n[$5]++; s = $5
		if (!(s in mn) || $17 < mn[s]) mn[s] = $17; if ($17 > mx[s]) mx[s] = $17 }
		END { for (s in n) print s, n[s], mn[s], mx[s] }' a.csv | sort)" \
	"$(jq -r '.tags[] | select(.lifetime_ns.count > 0) |
		"\(.function) \(.lifetime_ns.count) \(.lifetime_ns.min) \(.lifetime_ns.max)"' a.json |
		sort)"
check_eq "kmem: call site as function+offset, no file:line" \
	"$(report -f lifetimes b.dat 2>/dev/null | tail -n +2 |
		cut -d, -f3,5-9 | sort -u)" "kmem,alloc_bprm,,,,0x45
kmem,d_alloc,,,,0x30"

# stacks: every id a row names is in the stacks file, with the JSON report's frames
check_eq "stacks file header" "$(head -n 1 a-stacks.csv)" "stack_id,depth,frame"
rowstacks() {	# FUNCTION FRAMES;... per allocation, from rows + stacks CSVs
	awk -F, 'NR == FNR { if (FNR > 1) { if ($1 in f) f[$1] = f[$1] ";" $3; else f[$1] = $3 }
			next }
		FNR > 1 { print $5, ($10 == "" ? "-" : f[$10]) }' "$2" "$1" | sort | uniq -c
}
check_eq "a row's stack_id names the frames the report gives its allocation" \
	"$(rowstacks a.csv a-stacks.csv)" \
	"$(jq -r '.tags[] | .function as $f | .stacks[] | range(.allocs) as $i |
		"\($f) \(if (.frames | length) > 0 then .frames | join(";") else "-" end)"' a.json |
		sort | uniq -c)"

# JSON lines: the same rows and stacks
report -f lifetimes-json --stacks-out a-stacks.json a.dat > a.jsonl 2> /dev/null
check_eq "lifetimes-json: a JSON object a line" "$(jq -c 'type' a.jsonl | sort -u)" '"object"'
check_eq "lifetimes-json: the rows of the CSV" \
	"$(jq -r '[.trace, .host, .source, .tag, .function, .file, .line, .module,
		(if .offset then "x" else null end), .stack_id, .pid, .comm, .ptr, .bytes,
		.alloc_ns, .free_ns, .lifetime_ns, .state] | map(. // "") | map(tostring) |
		join(",")' a.jsonl)" "$(tail -n +2 a.csv)"
check_eq "lifetimes-json: stacks a line each" \
	"$(jq -r '.stack_id as $id | .frames | to_entries[] | "\($id),\(.key),\(.value)"' \
		a-stacks.json)" "$(tail -n +2 a-stacks.csv)"

# several traces in one run: one output, each row its own trace and host, ids shared
report -f lifetimes --stacks-out ac-stacks.csv a.dat c.dat b.dat > ac.csv 2> /dev/null
check_eq "several traces: rows of each, in the order given" \
	"$(tail -n +2 ac.csv | cut -d, -f1,2 | uniq)" "a.dat,host-a
c.dat,host-c
b.dat,host-b"
check_eq "several traces: same frames, same stack id" \
	"$(awk -F, '$1 == "c.dat" { print $10 }' ac.csv)" \
	"$(awk -F, '$1 == "a.dat" { print $10 }' ac.csv)"
check_eq "several traces: each stack written once, every id a row names" \
	"$(tail -n +2 ac-stacks.csv | cut -d, -f1 | uniq | tr '\n' ' ')" \
	"$(tail -n +2 ac.csv | cut -d, -f10 | grep . | sort -un | tr '\n' ' ')"

# the view's call-site globs and the recording's selection hold for rows too
check_eq "--function selects rows" \
	"$(report -f lifetimes --function 'bar*' a.dat 2>/dev/null | tail -n +2 | cut -d, -f5 |
		sort -u)" "bar_open"
# a recording that describes itself: its workload's allocations of the tags it selected
cat > sel.txt <<'DESC'
cpus 2
comm 50 trace-cmd-alloc
comm 100 work
ev 0 1000 50 marker record 50 alloc_tag no
ev 0 1001 50 marker recorder 50 trace-cmd-alloc
ev 0 1002 50 marker select - mm/foo.c 10 foo_create
ev 0 1003 50 marker also-traced - mm/other.c 5 other_alloc
ev 0 1004 50 marker workload 100 work
ev 1 2000 100 hit 0xa0 NONE mm/foo.c foo_create 10
ev 1 2001 100 alloced 0x10 0xa0 64
ev 0 2250 50 hit 0xa0 NONE mm/foo.c foo_create 10
ev 0 2251 50 alloced 0x60 0xa0 128
ev 1 2400 100 hit 0xc0 NONE mm/other.c other_alloc 5
ev 1 2401 100 alloced 0x40 0xc0 16
ev 1 2402 100 freed 0x10 0xa0 64
ev 0 3200 50 marker end command-exited
DESC
mkfixture -o sel.dat sel.txt || fail "recording fixture"
check_eq "a recording: the workload's allocations of the selected tags only" \
	"$(report -f lifetimes sel.dat 2>/dev/null | tail -n +2 | cut -d, -f5,11,14,18)" \
	"foo_create,100,64,freed"
check_eq "... --all-tags: the other tag's too" \
	"$(report -f lifetimes --all-tags sel.dat 2>/dev/null | tail -n +2 | cut -d, -f5 |
		tr '\n' ' ')" "foo_create other_alloc "
check_status "--stacks-out needs -f lifetimes" 2 "$ATAG_CMD" report --stacks-out x.csv a.dat
report -f lifetimes -o /dev/full a.dat > full.out 2>&1
check_eq "a write error fails the command" "$?" 1
check_grep "... and says so" "No space left|write error" full.out

# one thread or two: the same bytes (a generated trace big enough to matter)
mkfixture -o gen.dat --generate 60000 --stacks 40 --live 200 --seed 3 || fail "generated"
ATAG_THREADS=1 report -f lifetimes --stacks-out g1-stacks.csv gen.dat > g1.csv 2> /dev/null
ATAG_THREADS=2 report -f lifetimes --stacks-out g2-stacks.csv gen.dat > g2.csv 2> /dev/null
check "ATAG_THREADS=1 and 2 write the same rows" cmp g1.csv g2.csv
check "ATAG_THREADS=1 and 2 write the same stacks" cmp g1-stacks.csv g2-stacks.csv
ATAG_THREADS=2to1 report -f lifetimes --stacks-out g21-stacks.csv gen.dat > g21.csv 2> /dev/null
check "two threads going on with one: the same rows" cmp g1.csv g21.csv
check "two threads going on with one: the same stacks" cmp g1-stacks.csv g21-stacks.csv
report -f json gen.dat > gen.json 2> /dev/null
check_eq "generated: rows per state = the JSON report's allocs, live, replaced" \
	"$(tail -n +2 g2.csv | awk -F, '{ n++; s[$18]++ } END { print n, s["live"] + 0,
		s["replaced"] + 0, s["freed"] + 0 }')" \
	"$(jq -r '"\(.totals.allocs) \(.totals.live) \(.totals.replaced) \(.totals.matched_frees)"' \
		gen.json)"


# 26.2: nothing live at the end (one allocation, freed): no empty list sorted (the
# ASan+UBSan build stopped on qsort(NULL, 0) and wrote nothing)
cat > freed.txt <<'DESC'
cpus 1
ev 0 1000 7 hit 0xffffffff82000000 NONE mm/foo.c foo_create 10
ev 0 1001 7 alloced 0xffff888000000100 0xffffffff82000000 64
ev 0 2001 7 freed 0xffff888000000100 0xffffffff82000000 64
DESC
mkfixture -o freed.dat freed.txt || fail "fixture freed"
for fmt in lifetimes lifetimes-json; do
	report -f $fmt --stacks-out freed-$fmt.stacks freed.dat > freed-$fmt.out 2> freed.err
	check_eq "26.2 -f $fmt, nothing live at the end: exit 0, the freed row" \
		"$?:$(grep -c 'freed' freed-$fmt.out)" "0:1"
done
# DuckDB: report(1)'s fleet query over per-host exports = report -f json of the files
duckdb_setup() {
	[ -f "$NPM_DIR/node_modules/@duckdb/node-api/package.json" ] && return 0
	command -v npm > /dev/null || { echo "npm is not installed (scripts/deps.sh)"; return 1; }
	mkdir -p "$NPM_DIR" || return 1
	flock "$NPM_DIR" npm install --prefix "$NPM_DIR" --no-audit --no-fund --silent \
		"$DUCKDB_PKG" > npm.log 2>&1 || { tail -n 5 npm.log; return 1; }
}
if ! command -v node > /dev/null; then
	echo "*** t-lifetimes: NO node (scripts/deps.sh installs nodejs): THE FLEET QUERY IS NOT TESTED ***"
	skip "DuckDB fleet query" "node is not installed (scripts/deps.sh installs nodejs)"
elif ! why=$(duckdb_setup); then
	echo "*** t-lifetimes: DuckDB FROM NPM COULD NOT BE INSTALLED: THE FLEET QUERY IS NOT TESTED ***"
	skip "DuckDB fleet query" "npm install $DUCKDB_PKG failed: $why"
else
	mkdir -p exports/rows exports/stacks
	for f in a b c; do
		host=$(sed -n 's/^uname Linux \([^ ]*\).*/\1/p' $f.txt)
		report -f lifetimes -o exports/rows/$host.csv --stacks-out exports/stacks/$host.csv \
			$f.dat 2> /dev/null
	done
	# the fleet query of report(1)'s EXAMPLES, as it is written there
	awk '/^A fleet:/ { on = 1 } on && /^SELECT/ { q = 1 } q && /^----$/ { exit } q' \
		"$ATAG_SRC/Documentation/trace-cmd-alloc-tag-report.1.txt" > fleet.sql
	check_grep "report(1) has the fleet query" "read_csv_auto\('exports/rows/\*\.csv'" fleet.sql
	node "$ATAG_SRC/tests/lifetimes-duckdb.js" fleet.sql > fleet.out 2> fleet.err
	check_eq "DuckDB runs report(1)'s query" "$?" 0
	report -f json a.dat b.dat c.dat > abc.json 2> /dev/null
	# the report's call sites with allocations: source function file line module offset
	# allocs live_bytes ('-' for null; DuckDB reads the CSV's "0x45" offsets as numbers)
	jq -r '.tags[] | select(.allocs > 0) | [.source, .function, .file, .line, .module,
		.offset, .allocs, .live_bytes] | map(. // "-" | tostring) | join("\t")' abc.json |
		sort > report.sites
	cut -f1-8 fleet.out | sort > fleet.sites
	check_eq "allocations and live bytes per call site: DuckDB over 3 hosts = report -f json" \
		"$(cat fleet.sites)" "$(cat report.sites)"
	check_eq "the query sees the hosts" "$(cut -f9 fleet.out | sort -u | tr '\n' ' ')" "1 2 "
	check_eq "... and found rows" "$(wc -l < fleet.sites)" 4
	# stacks joined per export, as report(1) says: per call site and stack, allocations
	cat > stacks.sql <<-'EOF'
	WITH s AS (
	  SELECT parse_filename(filename) AS export, stack_id,
	         string_agg(frame, ';' ORDER BY depth) AS frames
	  FROM read_csv_auto('exports/stacks/*.csv', filename = true) GROUP BY ALL)
	SELECT r.function, coalesce(s.frames, '-'), count(*)
	FROM read_csv_auto('exports/rows/*.csv', filename = true, union_by_name = true) r
	LEFT JOIN s ON parse_filename(r.filename) = s.export AND r.stack_id = s.stack_id
	GROUP BY ALL ORDER BY ALL;
	EOF
	node "$ATAG_SRC/tests/lifetimes-duckdb.js" stacks.sql > stacks.out 2>> fleet.err
	check_eq "stacks joined per export: allocations per stack = report -f json's" \
		"$(sort stacks.out)" \
		"$(jq -r '.tags[] | .function as $f | .stacks[] | select(.allocs > 0) |
			[$f, (if (.frames | length) > 0 then .frames | join(";") else "-" end),
			(.allocs | tostring)] | join("\t")' abc.json |
			awk -F'\t' '{ n[$1 "\t" $2] += $3 } END { for (k in n) print k "\t" n[k] }' |
			sort)"
fi

done_testing
