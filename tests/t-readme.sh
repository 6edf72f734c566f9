#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: normal build (the README's commands, which t-report and t-plugin also run)
# The README's examples run: each block of README.md after a marker line
#
#   <!-- example -->              run offline from the top of the tree, "$ " commands
#   <!-- example: demo -->        run as root in the environment of scripts/demo.sh
#                                 (make demo), "# " commands, blocks in README order
#   <!-- example: demo; not compared: WHY -->  a demo block rewritten by --update
#                                 but never compared (what else runs on the machine
#                                 shows in it)
#   <!-- example: live; not compared: WHY -->  run as root on this machine's kernel
#                                 (its real tracefs), "# " commands, each of which
#                                 must exit 0; rewritten by --update, never compared
#   <!-- example: not run: WHY -->  shown only; its programs, subcommands and build/
#                                 or tests/ files must exist (the README has none)
#
# is an indented block of command lines ("$ CMD" or "# CMD") each followed by what
# CMD writes (stdout and stderr, as into a pipe, COLUMNS unset, LC_ALL=C), with the
# environment the README states: PATH starting with the build directory,
# TRACEEVENT_PLUGIN_DIR its plugins/. A block fails when what its commands write now
# differs from it, after normalising, on both sides, only (sed -E, norm() below)
#   times:      \b[0-9]+\.[0-9]{6}\b (a trace's timestamp), and a number with a
#               unit ns, us, ms or s: \b[0-9]+(\.[0-9]+)? ?(ns|us|ms|s)\b
#   addresses:  \b0x[0-9a-f]+\b, and \b[0-9a-f]{16}\b (stack frames)
# each with the spaces around it (columns move with its width). An indented block
# starting with "$ " or "# " without a marker fails: every example is run or says
# why not. The speed table (make bench) is no example.
#
#   tests/t-readme.sh [--live] [--update]
# --live also runs the demo blocks (root, tracefs, /dev/fuse, uprobes; about 5 s)
# and the live ones (root, tracefs): tests/t-readme-live.sh, a live tier, runs it so;
# --update rewrites README.md's blocks from fresh runs (the demo and live blocks too
# when it can run them: make readme).

# run_block N PROMPT: the block's commands run in the current directory, each
# printed as "PROMPT CMD" and followed by what it wrote, into $W/N.new
run_block() {
	: > "$W/$1.new"
	grep "^$2 " "$W/$1.text" | while IFS= read -r c; do
		printf '%s\n' "$c" >> "$W/$1.new"
		sh -c "${c#"$2 "}" < /dev/null >> "$W/$1.new" 2>&1 ||
			echo "$c: exit status $?" >> "$W/$1.rc"
	done
	# trailing empty lines would end the indented block: none on either side
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$W/$1.new" > "$W/$1.tmp" && mv "$W/$1.tmp" "$W/$1.new"
}

# Called back inside scripts/demo.sh: run the demo blocks in order in its directory.
if [ "${1:-}" = --demo-exec ]; then
	W=$2
	for k in $(ls "$W" | sed -n 's/\.kind$//p' | sort -n); do
		case $(cat "$W/$k.kind") in demo|shown\ *) run_block "$k" "#" ;; esac
	done
	exit 0
fi

. "$(dirname "$0")/lib.sh"

LIVE= UPDATE=
for a; do
	case $a in
	--live) LIVE=1 ;;
	--update) UPDATE=1 LIVE=1 ;;
	*) echo "usage: $0 [--live] [--update]" >&2; exit 2 ;;
	esac
done
README=$ATAG_SRC/README.md
W=$T_TMP/blocks
mkdir -p "$W"

# blocks: README.md into $W/N.kind (offline, demo or "skip REASON"), $W/N.text (the
# block, unindented) and $W/N.lines ("FIRST LAST": its lines in README.md)
awk -v w="$W" '
function flush() {
	if (n && last) { printf "%d %d\n", first, last > (w "/" n ".lines"); close(w "/" n ".lines") }
	inblk = 0; want = 0; pend = 0
}
/^<!-- example(: .*)? -->$/ {
	flush(); n++; want = 1; first = last = 0
	k = $0; sub(/^<!-- example:? ?/, "", k); sub(/ ?-->$/, "", k)
	if (k == "") k = "offline"
	else if (k ~ /^not run: /) { sub(/^not run: /, "", k); k = "skip " k }
	else if (k ~ /^demo; not compared: /) { sub(/^demo; not compared: /, "", k); k = "shown " k }
	else if (k ~ /^live; not compared: /) { sub(/^live; not compared: /, "", k); k = "live " k }
	print k > (w "/" n ".kind"); close(w "/" n ".kind")
	next
}
want && !inblk && /^$/ { next }
!want && prev == "" && /^    [$#] / { printf "%d: %s\n", NR, substr($0, 5) > (w "/unmarked") }
{ prev = $0 }
want && /^    / { inblk = 1; if (!first) first = NR; last = NR
	for (; pend > 0; pend--) print "" > (w "/" n ".text")
	print substr($0, 5) > (w "/" n ".text"); next }
want && inblk && /^$/ { pend++; next }
want { flush() }
END { flush() }
' "$README"

# The environment the README states, with the build under test: stock trace-cmd
# gets ATAG_TRACECMD_ENV (the ASan runtime for the sanitized plugin).
mkdir -p "$T_TMP/bin" "$T_TMP/tree"
if [ -n "$ATAG_TRACECMD_ENV" ]; then
	printf '#!/bin/sh\nexec env %s %s "$@"\n' "$ATAG_TRACECMD_ENV" "$(command -v trace-cmd)" \
		> "$T_TMP/bin/trace-cmd"
	chmod 755 "$T_TMP/bin/trace-cmd"
fi
# the tree as a reader's clone, with the build under test as build/; files the
# examples write land here
for f in "$ATAG_SRC"/*; do
	[ "$(basename "$f")" = build ] || ln -s "$f" "$T_TMP/tree/"
done
ln -s "$ATAG_BUILD" "$T_TMP/tree/build"
export PATH="$T_TMP/bin:$ATAG_BUILD:$PATH" TRACEEVENT_PLUGIN_DIR="$ATAG_BUILD/plugins" LC_ALL=C
unset COLUMNS ATAG_ALLOCINFO ATAG_TRACEFS ATAG_THREADS

cd "$T_TMP/tree" || exit 1
for k in $(ls "$W" | sed -n 's/\.kind$//p' | sort -n); do
	[ "$(cat "$W/$k.kind")" = offline ] && run_block "$k" '$'
done
# the live blocks: as root, on this machine's kernel, from the tree
nlive=$(grep -l '^live ' "$W"/*.kind 2>/dev/null | wc -l)
lwhy=
if [ "$nlive" -gt 0 ] && [ -n "$LIVE" ] && [ "$(id -u)" = 0 ] && [ -d "$(tracefs_dir)" ]; then
	for k in $(ls "$W" | sed -n 's/\.kind$//p' | sort -n); do
		case $(cat "$W/$k.kind") in live\ *) run_block "$k" '#' ;; esac
	done
elif [ "$nlive" -gt 0 ] && [ -n "$LIVE" ]; then
	lwhy="needs root and tracefs"
elif [ "$nlive" -gt 0 ]; then
	lwhy="run by tests/t-readme-live.sh (root, tracefs)"
fi
cd "$ATAG_SRC" || exit 1

demo=$(grep -lE '^(demo|shown .*)$' "$W"/*.kind 2>/dev/null | wc -l)
why=
if [ "$demo" -gt 0 ] && [ -n "$LIVE" ]; then
	if sh "$ATAG_SRC/scripts/demo.sh" "$ATAG_BUILD" -- \
		sh "$ATAG_SRC/tests/t-readme.sh" --demo-exec "$W" > "$T_TMP/demo.log" 2>&1; then
		:
	else
		why="scripts/demo.sh failed: $(tail -n 1 "$T_TMP/demo.log")"
		# what a failed run wrote is neither compared nor written into the README
		for k in $(grep -lE '^(demo|shown .*)$' "$W"/*.kind); do rm -f "${k%.kind}.new"; done
	fi
elif [ "$demo" -gt 0 ]; then
	why="run by tests/t-readme-live.sh (root, tracefs, /dev/fuse, uprobes)"
fi

# normalise: times and addresses, with the spaces around them
norm() {
	sed -E -e 's/ *\b[0-9]+\.[0-9]{6}\b */ T /g' \
		-e 's/ *\b[0-9]+(\.[0-9]+)? ?(ns|us|ms|s)\b */ T /g' \
		-e 's/ *\b0x[0-9a-f]+\b */ A /g' -e 's/ *\b[0-9a-f]{16}\b */ A /g'
}

# a front door, not the manual (that is in the man pages)
n=$(LC_ALL=C.UTF-8 wc -m < "$README")
if [ "$n" -le 12000 ]; then ok "README.md: $n characters, at most 12000"
else fail "README.md: $n characters, more than 12000: the manual goes to the man pages"; fi
if [ -s "$W/unmarked" ]; then
	fail "README.md: examples without a marker line (<!-- example... -->) before them" \
		"$(cat "$W/unmarked")"
else
	ok "README.md: every example ($(ls "$W" | grep -c '\.kind$')) has a marker"
fi
for k in $(ls "$W" | sed -n 's/\.kind$//p' | sort -n); do
	kind=$(cat "$W/$k.kind")
	first=$(head -n 1 "$W/$k.text" 2>/dev/null)
	name="README block $k ($first)"
	[ -f "$W/$k.lines" ] || { fail "$name: a marker without an indented block after it"; continue; }
	case $kind in
	offline|demo|shown\ *|live\ *) ;;
	skip\ *)
		# not run, but its programs and subcommands exist
		missing=$(cd "$T_TMP/tree" && grep '^# ' "$W/$k.text" | while read -r _ prog sub _; do
			command -v "$prog" > /dev/null || echo "$prog"
			[ "$prog" != trace-cmd-alloc-tag ] ||
				"$prog" "$sub" --help > /dev/null 2>&1 || echo "$prog $sub"
		done
		grep '^# ' "$W/$k.text" | tr ' ' '\n' | grep -E '^(build|tests)/' |
			while read -r f; do [ -e "$T_TMP/tree/$f" ] || echo "$f"; done)
		if [ -n "$missing" ]; then
			fail "$name: not run, and it names what does not exist:" "$missing"
		else
			skip "$name" "not run: ${kind#skip }"
		fi
		continue ;;
	*) fail "$name: unknown marker kind '$kind'"; continue ;;
	esac
	p='$'; [ "$kind" = offline ] || p='#'
	if ! grep -q "^$p " "$W/$k.text"; then
		fail "$name: no command line ('$p CMD') in the block"
		continue
	fi
	if [ "${kind%% *}" = live ] && [ -n "$lwhy" ]; then
		skip "$name" "$lwhy"
		continue
	fi
	if [ "$kind" != offline ] && [ "${kind%% *}" != live ] && [ -n "$why" ]; then
		skip "$name" "$why"
		continue
	fi
	if [ ! -f "$W/$k.new" ]; then
		fail "$name: was not run"
		continue
	fi
	if [ "${kind%% *}" = shown ] || [ "${kind%% *}" = live ]; then
		if [ -s "$W/$k.rc" ]; then
			fail "$name: a command failed" "$(cat "$W/$k.rc")" "$(tail -n 20 "$W/$k.new")"
		elif [ -z "$UPDATE" ]; then
			ok "$name: every command exited 0 (output not compared: ${kind#* })"
		fi
		[ -n "$UPDATE" ] || continue
	fi
	norm < "$W/$k.text" > "$W/$k.want"
	norm < "$W/$k.new" > "$W/$k.got"
	if [ -n "$UPDATE" ]; then
		if cmp -s "$W/$k.text" "$W/$k.new"; then ok "$name: unchanged"
		else ok "$name: updated"; fi
	elif diff -u "$W/$k.want" "$W/$k.got" > "$W/$k.diff"; then
		ok "$name"
	else
		fail "$name: the output differs from the README (- README, + now, normalised)" \
			"$(sed -n '3,$p' "$W/$k.diff")"
	fi
done

# --update: each block run replaced by what it wrote now, indented
if [ -n "$UPDATE" ]; then
	for k in $(ls "$W" | sed -n 's/\.lines$//p' | sort -n); do
		[ -f "$W/$k.new" ] && echo "$(cat "$W/$k.lines") $W/$k.new"
	done > "$W/replace"
	awk -v list="$W/replace" '
	BEGIN { while ((getline l < list) > 0) { split(l, f, " "); from[f[1]] = f[2]; file[f[1]] = f[3] } }
	FNR in from {
		while ((getline l < file[FNR]) > 0) print (l == "" ? "" : "    " l)
		close(file[FNR]); upto = from[FNR]; next
	}
	upto && FNR <= upto { next }
	{ print }' "$README" > "$W/README.md" && cat "$W/README.md" > "$README" &&
		echo "README.md: $(wc -l < "$W/replace") blocks rewritten from fresh runs"
fi
done_testing
