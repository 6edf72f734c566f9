#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: normal build (bash completion: a bash script driving the command's --help)
# bash completion (completion/trace-cmd-alloc-tag.bash), driven as bash drives it:
# bash-completion and our file sourced in a non-interactive bash, COMP_WORDS,
# COMP_CWORD, COMP_LINE and COMP_POINT set, the function called, COMPREPLY read.
# The subcommands, every long option each subcommand's --help prints, the values of
# --source, -f and --sort, files, the buffers of a trace.dat, and stat -B's tracefs
# instances: of a --tracefs tree made here, and (as root) of the real tracefs, in an
# instance this tier creates under a unique name and removes, also on failure: that
# part alone holds the live tiers' lock ($ATAG_LIVE_LOCK), so that they never see it.
. "$(dirname "$0")/lib.sh"

BC=/usr/share/bash-completion/bash_completion
COMPLETION=$ATAG_SRC/completion/trace-cmd-alloc-tag.bash
if [ ! -f "$BC" ]; then
	skip "bash completion" "bash-completion is not installed ($BC): make deps"
	done_testing; exit
fi

# The queries are answered by one bash (sourcing bash-completion costs): "q ID
# WORD..." asks for the completions of the last WORD (the command before them is the
# build's), run_queries answers them all, "got ID" prints the answers, one a line.
: > "$T_TMP/queries"
q() {
	id=$1; shift
	printf '%s' "$id" >> "$T_TMP/queries"
	for w in "${QCMD:-$ATAG_CMD}" "$@"; do printf '\t%s' "${w:-@empty@}" >> "$T_TMP/queries"; done
	echo >> "$T_TMP/queries"
}
run_queries() {
	bash -c '
		. "$1" && . "$2" || exit 1
		while IFS=$'"'\t'"' read -r -a w; do
			id=${w[0]}
			COMP_WORDS=("${w[@]:1}")
			COMP_WORDS=("${COMP_WORDS[@]/#@empty@/}")
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMP_LINE="${COMP_WORDS[*]}"
			COMP_POINT=${#COMP_LINE}
			COMPREPLY=()
			_trace_cmd_alloc_tag 2>/dev/null
			for r in "${COMPREPLY[@]}"; do printf "%s\t%s\n" "$id" "$r"; done
		done
	' - "$BC" "$COMPLETION" < "$T_TMP/queries" > "$T_TMP/answers"
}
got() { awk -F '\t' -v id="$1" '$1 == id && $2 != "" { print $2 }' "$T_TMP/answers" | LC_ALL=C sort -u; }

# offers ID NAME EXPECTED...: each EXPECTED is among the answers to query ID
offers() {
	id=$1 name=$2; shift 2
	miss=
	for e in "$@"; do
		got "$id" | grep -qxF -- "$e" || miss="$miss $e"
	done
	if [ -z "$miss" ]; then ok "$name"; else
		fail "$name" "not offered:$miss" "offered: $(got "$id" | tr '\n' ' ')"; fi
}

cd "$ATAG_SRC" || exit 2
SUBS="list enable disable record report diff top leaks stat reset"

q sub ''
q sub-re re
q help help st
q sub-zz zz
for sub in $SUBS; do
	q "long-$sub" "$sub" --
done
q short report -
q source report --source ''
q source-diff diff --source k
q format report -f ''
q format-eq report --format=
q sort report --sort ''
q sort-list list -s ''
q weight report --weight ''
q rows report -n ''
q file report tests/data/sam
q file-i report -i tests/data/sam
q file-diff diff tests/data/sample.dat tests/data/sam
q command record -- tru
q leaks-f leaks -f ''
q leaks-m leaks --m
q leaks-cmd leaks --kmem -- tru
q leaks-o leaks -o tests/data/sam
q buffer report tests/data/sample.dat -B ''

# the help parser on a command of the test's own, in the shapes --help uses
cat > "$T_TMP/fake" <<'FAKE'
#!/bin/sh
case "$1 $2" in
"--help ")
	printf 'usage: fake [--version] <command>\n\ncommands:\n  one       the first\n  two       the second\n\nmore.\n' ;;
"one --help")
	cat <<'HELP'
usage: fake one [options] [FILE...]

Prose that names --not-an-option at the start of a line:
--neither
  -f, --format FMT      a (default), b-c, or d
                        and e_f: what they are, g and h
      --duration TIME stop after TIME (1s, 2s)
      --flag, --other   flags
  -k KEY                x; or y
  --to DIR              a directory
HELP
	;;
esac
FAKE
chmod +x "$T_TMP/fake"
QCMD=$T_TMP/fake
q fake-sub ''
q fake-opts one --
q fake-short one -
q fake-f one -f ''
q fake-k one -k ''
q fake-dur one --duration ''
q fake-file one "$T_TMP/fa"
QCMD=
mkdir -p "$T_TMP/tfs/instances/inst-one" "$T_TMP/tfs/instances/inst-two"
q tracefs stat --tracefs "$T_TMP/tfs" -B ''

run_queries

# an instance of the real tracefs, made here under a unique name (as root), asked
# for in a run of its own under the live tiers' lock
TFS=$(tracefs_dir)
I=atag-completion-$$
live=
if ! is_root; then
	live="not root: tracefs needs root"
elif [ -z "$TFS" ]; then
	live="tracefs is not mounted"
else
	mv "$T_TMP/answers" "$T_TMP/answers.all"
	: > "$T_TMP/queries"
	q instance stat -B atag-completion-
	at_exit "rmdir '$TFS/instances/$I' 2> /dev/null"
	# the live tiers' lock (tests/run-tests.sh), held while the instance exists
	[ -n "${ATAG_LIVE_LOCK:-}" ] && exec 9> "$ATAG_LIVE_LOCK" && flock 9
	if mkdir "$TFS/instances/$I"; then
		run_queries
		rmdir "$TFS/instances/$I"
	else
		live="could not create the tracefs instance $I"
	fi
	[ -n "${ATAG_LIVE_LOCK:-}" ] && flock -u 9 && exec 9>&-
	cat "$T_TMP/answers" >> "$T_TMP/answers.all" 2> /dev/null
	mv "$T_TMP/answers.all" "$T_TMP/answers"
fi

# the subcommands, as the overview man page lists them
offers sub "subcommands" list enable disable record report diff top leaks stat reset help
offers sub-re "subcommands by prefix" record report reset
offers help "help SUBCOMMAND" stat
check_eq "no subcommand for a prefix that has none" "$(got sub-zz)" ""

# every long option each subcommand's --help prints, on an option's line
for sub in $SUBS; do
	"$ATAG_CMD" "$sub" --help 2>&1 | grep -E '^[[:space:]]+-' |
		grep -oE -- '--[a-z][a-z0-9-]*' | LC_ALL=C sort -u > "$T_TMP/want.$sub"
	got "long-$sub" > "$T_TMP/got.$sub"
	miss=$(LC_ALL=C comm -23 "$T_TMP/want.$sub" "$T_TMP/got.$sub" | tr '\n' ' ')
	if [ -s "$T_TMP/want.$sub" ] && [ -z "$miss" ]; then
		ok "$sub: all $(wc -l < "$T_TMP/want.$sub") long options of --help offered"
	else
		fail "$sub: long options of --help not offered: $miss" "$(cat "$T_TMP/got.$sub")"
	fi
done
offers short "short options too (report -)" -i -B -s -n -f -o -h

# values: the sources are the adapters of lib/read/atag-source-*.c
check_eq "report --source: the three sources" "$(got source | tr '\n' ' ')" "alloc_tag kmem page "
offers source-diff "diff --source k" kmem
offers format "report -f: the formats" text json csv folded pprof lifetimes lifetimes-json
offers format-eq "report --format=VALUE" json
offers sort "report --sort: keys" live_bytes peak allocs p99 site
offers sort-list "list -s: keys" bytes calls function file module
offers weight "report --weight" alloc_space inuse_objects
check_eq "nothing offered for a number (-n)" "$(got rows)" ""

# the parser of --help
check_eq "commands: as listed under commands:" "$(got fake-sub | tr '\n' ' ')" "help one two "
check_eq "options: those of option lines, prose left out" "$(got fake-opts | tr '\n' ' ')" \
	"--duration --flag --format --other --to "
offers fake-short "options: short ones" -f -k
check_eq "values: a list over two lines, parentheses left out" "$(got fake-f | tr '\n' ' ')" \
	"a b-c d e_f "
check_eq "values: '; or'" "$(got fake-k | tr '\n' ' ')" "x y "
check_eq "no values for a TIME (one space before its description)" "$(got fake-dur)" ""
check_eq "files for FILE... operands" "$(got fake-file)" "$T_TMP/fake"

# files: report's trace.dat arguments, -i, diff's two files; a command after --
offers file "report FILE" tests/data/sample.dat
offers file-i "report -i FILE" tests/data/sample.dat
offers file-diff "diff BEFORE.dat AFTER.dat" tests/data/sample.dat
offers command "record -- COMMAND" true
offers long-record "record: -- offered (record runs a COMMAND after it)" --
check_eq "report: no -- offered" "$(got long-report | grep -cx -- --)" 0

# leaks (issue 27): its options and their values, from its --help
offers long-leaks "leaks: -- offered (leaks runs a COMMAND after it)" --
offers long-leaks "leaks: its own options" --min-age --interval --duration --kmem --all-stacks \
	--stack-every --no-pages --output
check_eq "leaks -f: text and json" "$(got leaks-f | tr '\n' ' ')" "json text "
check_eq "leaks --m: --min-age and the tag filters --max-size, --min-size, --module" \
	"$(got leaks-m | tr '\n' ' ')" "--max-size --min-age --min-size --module "
offers leaks-cmd "leaks --kmem -- COMMAND" true
offers leaks-o "leaks -o FILE: files" tests/data/sample.dat

# report -B: the buffers of the trace.dat on the line (trace-cmd dump --options
# names it; the sample was recorded in the instance of pid 82)
offers buffer "report -B: the buffers of the file" trace-cmd-alloc-tag-82

# stat -B: the instances of the tracefs tree given with --tracefs, of the real one
check_eq "stat --tracefs DIR -B: that tree's instances" "$(got tracefs | tr '\n' ' ')" \
	"inst-one inst-two "
if [ -z "$live" ]; then
	offers instance "stat -B: an instance of the real tracefs" "$I"
else
	skip "stat -B: an instance of the real tracefs" "$live"
fi

done_testing
