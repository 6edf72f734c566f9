#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The command dispatcher: help, version, unknown commands.
. "$(dirname "$0")/lib.sh"

out=$("$ATAG_CMD" --help); rc=$?
check_eq "--help exits 0" "$rc" 0
case "$out" in *"usage: trace-cmd-alloc-tag"*report*stat*) ok "--help lists the commands" ;;
*) fail "--help lists the commands" "$out" ;; esac
check_eq "-h is --help" "$("$ATAG_CMD" -h)" "$out"
check_eq "help without a command is --help" "$("$ATAG_CMD" help)" "$out"

ver=$("$ATAG_CMD" --version)
case "$ver" in "trace-cmd-alloc-tag version "[0-9]*) ok "--version" ;;
*) fail "--version" "$ver" ;; esac

"$ATAG_CMD" frobnicate > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "unknown command: exit status" "$rc" 2
check_eq "unknown command: nothing on stdout" "$(cat "$T_TMP/out")" ""
check_eq "unknown command: one line naming it, one hint line" "$(cat "$T_TMP/err")" \
"trace-cmd-alloc-tag: 'frobnicate' is not a command
Try 'trace-cmd-alloc-tag --help'."

"$ATAG_CMD" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "no command: exit 2" "$rc" 2
check_grep "no command: usage on stderr" "^usage:" "$T_TMP/err"

"$ATAG_CMD" help frobnicate > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "help for an unknown command: exit 2, one line and the hint" "$rc:$(cat "$T_TMP/err")" \
"2:trace-cmd-alloc-tag: no such command 'frobnicate'
Try 'trace-cmd-alloc-tag --help'."

# every command answers --help (its own usage on stdout, exit 0), and bad
# options get one line naming the option (getopt's own message silenced), then
# one line pointing to --help (never the help itself), exit 2
for c in $("$ATAG_CMD" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }'); do
	"$ATAG_CMD" "$c" --help > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	if [ "$rc" = 0 ] && grep -q "$c" "$T_TMP/out"; then
		ok "$c --help"
	else
		fail "$c --help" "exit $rc" "$(cat "$T_TMP/out" "$T_TMP/err")"
	fi
	h=$("$ATAG_CMD" help "$c" 2>&1); hrc=$?
	check_eq "help $c is $c --help" "$hrc:$h" "$rc:$(cat "$T_TMP/out" "$T_TMP/err")"

	"$ATAG_CMD" "$c" -Q > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	check_eq "$c -Q: the option named, a hint to --help, exit 2" "$rc:$(cat "$T_TMP/err")" \
		"2:trace-cmd-alloc-tag: unknown option '-Q'
Try 'trace-cmd-alloc-tag $c --help'."
	check_eq "$c -Q: nothing on stdout" "$(cat "$T_TMP/out")" ""
	"$ATAG_CMD" "$c" --no-such-option > /dev/null 2> "$T_TMP/err"; rc=$?
	check_eq "$c --no-such-option" "$rc:$(head -n 1 "$T_TMP/err")" \
		"2:trace-cmd-alloc-tag: unknown option '--no-such-option'"
	"$ATAG_CMD" "$c" --help=yes > /dev/null 2> "$T_TMP/err"; rc=$?
	check_eq "$c --help=yes" "$rc:$(head -n 1 "$T_TMP/err")" \
		"2:trace-cmd-alloc-tag: option '--help' takes no value"
done

# an option missing its value, short and long, in each command that has one
for args in "report -o" "report --output" "report -n" "report --sort" "list -s" "list --sort" \
	    "stat -B" "stat --watch" "record -o" "record --duration" "enable --function"; do
	set -- $args
	"$ATAG_CMD" "$@" > /dev/null 2> "$T_TMP/err"; rc=$?
	check_eq "$args: needs a value" "$rc:$(head -n 1 "$T_TMP/err")" \
		"2:trace-cmd-alloc-tag: option '$2' needs a value"
done

# 26.9: record -o '' is refused as the other commands' is (it said "cannot make a
# private directory beside it: Is a directory")
"$ATAG_CMD" record -o '' -- true > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "26.9 record -o '': an empty file name, exit 2" "$rc:$(head -n 1 "$T_TMP/err")" \
	"2:trace-cmd-alloc-tag: --output: an empty file name"

# ------------------------------------------------------------------ -f and -o
# every command that writes a result takes -f FMT and -o FILE; an existing FILE is
# kept as FILE.old (said once on stderr), a failure before writing keeps it as it was
mkfixture -o "$T_TMP/lt.dat" "$ATAG_SRC/tests/data/lifetimes.txt" || fail "lifetimes fixture"
AI=$T_TMP/allocinfo.txt
printf '%s\n' 'allocinfo - version: 2.0' '#     <size>  <calls> <tag info>' \
	'       4096        1 mm/slub.c:4100 func:kmalloc_trace' \
	'        300        3 drivers/foo/bar.c:40 [foo] func:foo_bar' \
	'          0        0 "odd, name".c:7 func:odd' > "$AI"
for args in "list --allocinfo $AI" "report $T_TMP/lt.dat" "diff $T_TMP/lt.dat $T_TMP/lt.dat"; do
	set -- $args
	cmd=$1; shift
	rm -f "$T_TMP/o.json" "$T_TMP/o.json.old"
	"$ATAG_CMD" $cmd -f json -o "$T_TMP/o.json" "$@" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	check_eq "$cmd -f json -o FILE: nothing on stdout or stderr" \
		"$rc:$(cat "$T_TMP/out" "$T_TMP/err")" "0:"
	check "$cmd -o FILE: JSON in FILE" jq -e . "$T_TMP/o.json"
	"$ATAG_CMD" $cmd --format text --output "$T_TMP/o.json" "$@" > /dev/null 2> "$T_TMP/err"; rc=$?
	check_eq "$cmd -o FILE again: FILE kept as FILE.old, said once" "$rc:$(cat "$T_TMP/err")" \
		"0:trace-cmd-alloc-tag: $T_TMP/o.json existed: kept as $T_TMP/o.json.old"
	check "$cmd: FILE.old is the first output" jq -e . "$T_TMP/o.json.old"
	check_eq "$cmd: FILE is the second" "$("$ATAG_CMD" $cmd -f text "$@")" "$(cat "$T_TMP/o.json")"
	"$ATAG_CMD" $cmd -f csv -o /dev/null "$@" 2> "$T_TMP/err"; rc=$?
	check_eq "$cmd -f csv -o /dev/null: written through, nothing kept" \
		"$rc:$(cat "$T_TMP/err"):$(ls /dev/null.old 2>&1 >/dev/null | wc -l)" "0::1"
done
rm -f "$T_TMP/st.csv" "$T_TMP/st.csv.old"
for i in 1 2; do
	"$ATAG_CMD" report -f lifetimes --stacks-out "$T_TMP/st.csv" -o /dev/null "$T_TMP/lt.dat" \
		2> "$T_TMP/err"
done
check_eq "report --stacks-out FILE again: kept as FILE.old, said once" \
	"$(cat "$T_TMP/err"):$(cmp "$T_TMP/st.csv" "$T_TMP/st.csv.old" && echo same)" \
	"trace-cmd-alloc-tag: $T_TMP/st.csv existed: kept as $T_TMP/st.csv.old:same"
check_eq "report: a file that cannot be read keeps -o FILE as it was" \
	"$("$ATAG_CMD" report "$T_TMP/nope.dat" -o "$T_TMP/o.json" 2>/dev/null; echo $?):$(cmp -s "$T_TMP/o.json" "$T_TMP/o.json.old"; echo $?)" "1:1"
check_eq "list -f csv: a header, a tag a line, quoted where needed" \
	"$("$ATAG_CMD" list --allocinfo "$AI" -f csv)" \
'bytes,calls,traced,accurate,function,file,line,module
4096,1,,1,kmalloc_trace,mm/slub.c,4100,
300,3,,1,foo_bar,drivers/foo/bar.c,40,foo
0,0,,1,odd,"""odd, name"".c",7,'
check_eq "list -n 0 is all, as in report" "$("$ATAG_CMD" list --allocinfo "$AI" -n 0 | wc -l)" 4
check_eq "list --rows 1" "$("$ATAG_CMD" list --allocinfo "$AI" --rows 1 | wc -l)" 2
for c in list report diff stat top; do
	"$ATAG_CMD" $c -f xml > /dev/null 2> "$T_TMP/err"; rc=$?
	check_eq "$c -f xml: usage error" "$rc:$(head -n 1 "$T_TMP/err")" \
		"2:trace-cmd-alloc-tag: --format: unknown value 'xml'"
	"$ATAG_CMD" $c --help > "$T_TMP/help"
	check_grep "$c --help: -f, --format" "^  -f, --format FMT " "$T_TMP/help"
	check_grep "$c --help: -o, --output" "^  -o, --output FILE " "$T_TMP/help"
done

# ------------------------------------------------------------------ options after operands
# (issue 31) as git and perf take them: anywhere before '--'; the same output as with the
# options first. record and top run COMMAND from their first operand on (as perf record
# and strace do): what follows it is COMMAND's (t-record checks that).
S=$ATAG_SRC/tests/data/sample.dat
check_eq "report FILE -n 2 -s allocs: as report -n 2 -s allocs FILE" \
	"$("$ATAG_CMD" report "$S" -n 2 -s allocs 2>&1)" "$("$ATAG_CMD" report -n 2 -s allocs "$S" 2>&1)"
check_eq "report FILE -f json --sort peak: as with the options first" \
	"$("$ATAG_CMD" report "$S" -f json --sort peak 2>&1)" \
	"$("$ATAG_CMD" report -f json --sort peak "$S" 2>&1)"
check_eq "diff A B -n 1 -f json: as with the options first" \
	"$("$ATAG_CMD" diff "$T_TMP/lt.dat" "$S" -n 1 -f json 2>&1)" \
	"$("$ATAG_CMD" diff -n 1 -f json "$T_TMP/lt.dat" "$S" 2>&1)"
check_eq "report A -- -n: after '--' an operand, a file named -n" \
	"$("$ATAG_CMD" report "$S" -- -n 2>&1 | tail -n 1)" \
	"trace-cmd-alloc-tag: -n: No such file or directory"
"$ATAG_CMD" report "$S" --bogus > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "report FILE --bogus: the unknown option named, exit 2" "$rc:$(head -n 1 "$T_TMP/err")" \
	"2:trace-cmd-alloc-tag: unknown option '--bogus'"

# ------------------------------------------------------------------ one parser for report and diff
# the options they share take the same values and refuse the same ones alike
same_err=
for o in "--source nope" "-s nope" "-n x" "--weight nope" "-f nope" "--comm" "-B"; do
	r=$("$ATAG_CMD" report "$T_TMP/lt.dat" $o 2>&1 >/dev/null | head -n 1)
	d=$("$ATAG_CMD" diff "$T_TMP/lt.dat" "$T_TMP/lt.dat" $o 2>&1 >/dev/null | head -n 1)
	[ "$r" = "$d" ] && [ -n "$r" ] || same_err="$same_err
$o: report '$r', diff '$d'"
done
check_eq "report and diff: the shared options refused alike (7 of them)" "$same_err" ""

# ------------------------------------------------------------------ options x formats
# every option that only some formats use, with every format: used (0, no word),
# harmless (0, one warning line), refused (2, one line and the hint); the table of
# the report and diff man pages (OPTIONS AND FORMATS)
# (the normal build only: 84 runs of one parsing path, which the checks above run
# under ASan+UBSan too)
matrix() {	# CMD OPTION FORMAT... (u: used, w: warned, r: refused, -: no such format)
	cmd=$1 opt=$2; shift 2
	[ -n "$ATAG_TRACECMD_ENV" ] && return
	for fmt in text json csv folded pprof html lifetimes; do
		want=$1; shift
		[ "$want" = - ] && continue
		# shellcheck disable=SC2086
		"$ATAG_CMD" $cmd -f $fmt $opt -o "$T_TMP/m.out" $(cmd_files $cmd) > /dev/null 2> "$T_TMP/err"
		rc=$?
		case "$want:$rc:$(wc -l < "$T_TMP/err")" in
		u:0:0) ok "$cmd -f $fmt $opt: used" ;;
		w:0:1) check_grep "$cmd -f $fmt $opt: a warning" \
			"^trace-cmd-alloc-tag: warning: ${opt%% *} does nothing with --format $fmt$" "$T_TMP/err" ;;
		r:2:2) check_grep "$cmd -f $fmt $opt: refused" \
			"^trace-cmd-alloc-tag: ${opt%% *} goes with --format " "$T_TMP/err" ;;
		*) fail "$cmd -f $fmt $opt: want $want" "exit $rc" "$(cat "$T_TMP/err")" ;;
		esac
		rm -f "$T_TMP/m.out" "$T_TMP/m.out.old"
	done
}
cmd_files() { if [ "$1" = diff ]; then echo "$T_TMP/lt.dat $T_TMP/lt.dat"; else echo "$T_TMP/lt.dat"; fi; }
[ -n "$ATAG_TRACECMD_ENV" ] &&
	skip "options x formats" "the ASan build: the normal build runs the matrix"
#              option                 text json csv folded pprof html lifetimes
matrix report "--weight inuse_space"  r    r    r   u      u     r    r
matrix report --keep-offsets          r    r    r   u      u     r    r
matrix report --hist                  u    r    r   r      r     w    r
matrix report --stacks                u    w    r   w      w     w    r
matrix report --live                  u    w    u   r      r     w    r
matrix report "--live --min-age 1ns"  u    u    u   r      r     u    r
matrix report "-n 0"                  u    u    u   u      u     u    w
matrix report "--sort peak"           u    u    u   u      u     u    w
matrix diff   "--weight inuse_space"  r    r    r   u      -     -    -
matrix diff   --stacks                u    w    r   w      -     -    -
matrix diff   --all                   u    u    u   w      -     -    -
matrix diff   "-n 0"                  u    u    u   u      -     -    -
for opt in --stacks --live --hist; do
	"$ATAG_CMD" report --timeline $opt "$T_TMP/lt.dat" > /dev/null 2> "$T_TMP/err"; rc=$?
	check_eq "report --timeline $opt: refused" "$rc:$(head -n 1 "$T_TMP/err")" \
		"2:trace-cmd-alloc-tag: --timeline replaces the views: no --stacks, --live or --hist"
done

# ------------------------------------------------------------------ the terminal's width
# with COLUMNS (or a terminal), text tables are cut to it by eliding the call site in
# its middle; the columns before it stay whole; a pipe without COLUMNS: no limit
LONG=a_function_name_long_enough_to_need_cutting_somewhere
printf '%s\n' 'allocinfo - version: 2.0' '#     <size>  <calls> <tag info>' \
	"    1048576     4096 drivers/some/long/path/to/a/source_file.c:1234 [a_module] func:$LONG" \
	'        300        3 a.c:4 func:f' > "$T_TMP/wide.txt"
# fits NAME WIDTH PREFIX OUT FULL: each line of OUT within WIDTH, its first PREFIX
# columns those of FULL (the output without a limit)
fits() {
	check_eq "$1: every line fits" "$(printf '%s\n' "$4" | awk -v w="$2" 'length($0) > w' | wc -l)" 0
	check_eq "$1: the columns before the call site whole" \
		"$(printf '%s\n' "$4" | cut -c1-"$3")" "$(printf '%s\n' "$5" | cut -c1-"$3")"
}
full=$(env -u COLUMNS "$ATAG_CMD" list --allocinfo "$T_TMP/wide.txt")
check_grep "list to a pipe, no COLUMNS: no limit" \
	" $LONG drivers/some/long/path/to/a/source_file.c:1234 \\[a_module\\]$" "$(printf '%s\n' "$full" > "$T_TMP/full"; echo "$T_TMP/full")"
for w in 60 80 200; do
	fits "list, COLUMNS=$w" $w 43 "$(COLUMNS=$w "$ATAG_CMD" list --allocinfo "$T_TMP/wide.txt")" \
		"$full"
done
# 60 - 43 = 17 columns: 7 of the start, "...", 7 of the end (hand count)
check_eq "list, COLUMNS=60: the call site's start and end kept" \
	"$(COLUMNS=60 "$ATAG_CMD" list --allocinfo "$T_TMP/wide.txt" | sed -n 2p | cut -c44-)" \
	"a_funct...module]"
check_eq "list, COLUMNS=200: nothing cut" "$(COLUMNS=200 "$ATAG_CMD" list --allocinfo "$T_TMP/wide.txt")" "$full"
check_eq "list -f csv ignores COLUMNS" "$(COLUMNS=60 "$ATAG_CMD" list --allocinfo "$T_TMP/wide.txt" -f csv)" \
	"$("$ATAG_CMD" list --allocinfo "$T_TMP/wide.txt" -f csv)"
# report's live table: 52 columns before the call site in this fixture, so 80
# leaves the call site 28 columns; 60 leaves it less than 12: PID goes (see below)
rfull=$(env -u COLUMNS "$ATAG_CMD" report --live "$T_TMP/lt.dat")
rows() { sed -n '/^ *AGE /,/^$/p' | grep -E '^( *AGE | *[0-9.]+ [num]?s  0x)'; }
for w in 80 200; do
	fits "report --live, COLUMNS=$w: the live table" $w 52 \
		"$(COLUMNS=$w "$ATAG_CMD" report --live "$T_TMP/lt.dat" | rows)" "$(printf '%s\n' "$rfull" | rows)"
done
# the leak suspect foo_create, given a long name and path
sed 's|mm/foo.c foo_create 10|drivers/some/long/path/foo.c foo_create_with_a_long_name 10|' \
	"$ATAG_SRC/tests/data/lifetimes.txt" > "$T_TMP/lt2.txt"
mkfixture -o "$T_TMP/lt2.dat" "$T_TMP/lt2.txt" || fail "lifetimes fixture, long names"
check_eq "report --live, COLUMNS=80: the call site cut to 28 columns: 13, '...', 12 (hand count)" \
	"$(COLUMNS=80 "$ATAG_CMD" report --live "$T_TMP/lt2.dat" | rows | sed -n 2p | cut -c53-)" \
	"foo_create_wi...ath/foo.c:10"

# When the columns before the call site leave it less than 12 columns, whole
# columns are left out, in the order the man pages give, until it fits, and one
# line after the table names them. tcells NAMES: the cells of the table on stdin
# (its header first), one "ROW<tab>NAME<tab>VALUE" a line, for the columns of NAMES
# ("A|B|...", in their order) the header has; the call site's left out (it is cut).
tcells() {
	awk -v names="$1" '
	function trim(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); return s }
	BEGIN { n = split(names, nm, "|") }
	NR == 1 {
		h = "  " $0 "  "; from = 1
		for (i = 1; i <= n; i++) {
			p = index(substr(h, from), "  " nm[i] "  ")
			if (!p)
				continue
			p += from - 1
			k++; col[k] = nm[i]; end[k] = p + length(nm[i]) - 1
			from = p + 2 + length(nm[i])
			print "H\t" nm[i]
		}
		next
	}
	{
		prev = 0
		for (i = 1; i <= k; i++) {
			if (col[i] != "CALL SITE")
				print NR - 1 "\t" col[i] "\t" trim(substr($0, prev + 1, end[i] - prev))
			prev = end[i]
		}
	}'
}
# fit NAME WIDTH NAMES DROP NARROW FULL: every line of the table NARROW within
# WIDTH; the cells of its columns those of FULL (the table without a limit); the
# columns of FULL it lacks named in the one line after it, in the order DROP
fit() {
	check_eq "$1: every line fits $2" \
		"$(printf '%s\n' "$5" | awk -v w="$2" 'length($0) > w' | wc -l)" 0
	tbl() { awk '/^columns left out/ { exit } !/^          / { print }'; }
	printf '%s\n' "$5" | tbl | tcells "$3" > "$T_TMP/narrow"
	printf '%s\n' "$6" | tbl | tcells "$3" > "$T_TMP/full"
	check_eq "$1: the columns kept, cell by cell as without a limit" \
		"$(grep -v '^H' "$T_TMP/narrow")" \
		"$(awk -F '\t' 'NR == FNR { if ($1 == "H") k[$2] = 1; next } $1 != "H" && ($2 in k)' \
			"$T_TMP/narrow" "$T_TMP/full")"
	check_eq "$1: the columns never left out kept" "$(awk -v n="$3" -v d="$4" '
		BEGIN { k = split(n, a, "|"); split(d, b, "|"); for (i in b) x[b[i]] = 1 }
		NR == FNR && /^H/ { sub(/^H\t/, ""); h[$0] = 1; next }
		END { for (i = 1; i <= k; i++) if (!(a[i] in x) && !(a[i] in h)) print a[i] }' \
		"$T_TMP/narrow")" ""
	left=$(printf '%s\n' "$4" | tr '|' '\n' | while read -r c; do
		grep -qx "H	$c" "$T_TMP/full" && ! grep -qx "H	$c" "$T_TMP/narrow" && printf '%s, ' "$c"
	done)
	if [ -n "$left" ]; then
		check_eq "$1: the line naming the columns left out" \
			"$(printf '%s\n' "$5" | note)" "columns left out to fit $2: ${left%, } (-f csv has all)"
	else
		check_eq "$1: no column left out, no line" "$(printf '%s\n' "$5" | grep -c '^columns left out')" 0
	fi
}
SITE_NAMES='ALLOCS|FREES|UNMATCHED|LIVE|LIVE BYTES|PEAK LIVE|ALLOCATED|P50|P90|P99|MAX|CALL SITE'
SITE_DROP='P90|P99|UNMATCHED|FREES|PEAK LIVE|MAX|P50|LIVE'
# table HEADER: the table on stdin whose header matches HEADER, to its end
table() { awk -v h="$1" '$0 ~ h { on = 1 } on && (/^$/ || /^\[/ || /^\.\.\. /) { exit } on'; }
# note: the line naming the columns left out, its continuations (indented by 2) joined
note() {
	awk '/^columns left out/ { on = 1; l = $0; next }
	     on && /^  [^ ]/ { sub(/^  /, ""); l = l " " $0; next } on { exit }
	     END { if (l != "") print l }'
}
sitetable() { table '^ALLOCS '; }
sfull=$(env -u COLUMNS "$ATAG_CMD" report "$ATAG_SRC/tests/data/sample.dat" | sitetable)
for w in 60 80 100 200; do
	fit "report, COLUMNS=$w: the call-site table" $w "$SITE_NAMES" "$SITE_DROP" \
		"$(COLUMNS=$w "$ATAG_CMD" report "$ATAG_SRC/tests/data/sample.dat" | sitetable)" "$sfull"
done
# by hand: the widths of sample.dat's columns plus their 2-blank separators:
# ALLOCS 8, FREES 7, UNMATCHED 11, LIVE 6, LIVE BYTES 12, PEAK LIVE 11, ALLOCATED 11,
# P50 P90 P99 MAX 11 each: 110, and 12 for the call site: 122; 80 needs P90 (111),
# P99 (100), UNMATCHED (89), FREES (82), PEAK LIVE (71) left out
check_eq "report, COLUMNS=80: the columns left out (hand count)" \
	"$(COLUMNS=80 "$ATAG_CMD" report "$ATAG_SRC/tests/data/sample.dat" | sitetable | note)" \
	"columns left out to fit 80: P90, P99, UNMATCHED, FREES, PEAK LIVE (-f csv has all)"
check_eq "report, COLUMNS=80: the header kept" \
	"$(COLUMNS=80 "$ATAG_CMD" report "$ATAG_SRC/tests/data/sample.dat" | grep '^ALLOCS ')" \
	"ALLOCS  LIVE  LIVE BYTES  ALLOCATED        P50        MAX  CALL SITE"
# the least a call-site table takes here: ALLOCS LIVE BYTES ALLOCATED and 12 of the
# call site: 8 + 12 + 11 + 12 = 43; 40 cannot fit: all of the list left out, not cut
check_eq "report, COLUMNS=40: too narrow even so: the call site whole" \
	"$(COLUMNS=40 "$ATAG_CMD" report "$ATAG_SRC/tests/data/sample.dat" | sitetable | sed -n 2p)" \
	"    70    48.0 KiB    224 KiB  alloc_thread_stack_node kernel/fork.c:322"
check_eq "report -f csv ignores COLUMNS" \
	"$(COLUMNS=60 "$ATAG_CMD" report -f csv "$ATAG_SRC/tests/data/sample.dat")" \
	"$("$ATAG_CMD" report -f csv "$ATAG_SRC/tests/data/sample.dat")"
# the live table: PID, COMM, PTR go first; 60 leaves out PID (52 - 5 = 47 + 12 = 59)
LIVE_NAMES='AGE|PTR|BYTES|PID|COMM|CALL SITE'
livetable() { table '^ *AGE '; }
lfull=$(env -u COLUMNS "$ATAG_CMD" report --live "$T_TMP/lt.dat" | livetable)
for w in 60 80 100 200; do
	fit "report --live, COLUMNS=$w: the live table" $w "$LIVE_NAMES" "PID|COMM|PTR" \
		"$(COLUMNS=$w "$ATAG_CMD" report --live "$T_TMP/lt.dat" | livetable)" "$lfull"
done
check_eq "report --live, COLUMNS=60: PID left out (hand count)" \
	"$(COLUMNS=60 "$ATAG_CMD" report --live "$T_TMP/lt.dat" | livetable | note)" \
	"columns left out to fit 60: PID (-f csv has all)"
# diff's table: two generated traces, every column filled
mkfixture -o "$T_TMP/g1.dat" --generate 3000 --seed 5 --live 50 --cpus 2 > /dev/null &&
	mkfixture -o "$T_TMP/g2.dat" --generate 3000 --seed 6 --live 50 --cpus 2 > /dev/null ||
	fail "generated traces"
DIFF_NAMES='LIVE BYTES|LIVE|ALLOCS|FREES|PEAK LIVE|ALLOCATED|P50|P99|MAX|CALL SITE'
difftable() { table '^LIVE BYTES '; }
dfull=$(env -u COLUMNS "$ATAG_CMD" diff "$T_TMP/g1.dat" "$T_TMP/g2.dat" | difftable)
for w in 60 80 100 200; do
	fit "diff, COLUMNS=$w: the call-site table" $w "$DIFF_NAMES" \
		'P99|FREES|PEAK LIVE|MAX|P50|LIVE' \
		"$(COLUMNS=$w "$ATAG_CMD" diff "$T_TMP/g1.dat" "$T_TMP/g2.dat" | difftable)" "$dfull"
done
# list: its columns before the call site take 43, so it fits down to 55 without
# leaving any out
lfull=$(env -u COLUMNS "$ATAG_CMD" list --allocinfo "$T_TMP/wide.txt")
for w in 60 80 100 200; do
	fit "list, COLUMNS=$w" $w 'BYTES|CALLS|TRACED|ACCURATE|CALL SITE' '' \
		"$(COLUMNS=$w "$ATAG_CMD" list --allocinfo "$T_TMP/wide.txt")" "$lfull"
done

done_testing
