#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: normal build (the layering of the source tree)
#
# The shape of lib/: its parts depend on each other one way only.
#
#   util     shared helpers (errors, units, the hash map, the JSON writer)
#   read     trace.dat files and the source adapters        -> util
#   stitch   the stitcher: lifetimes, stacks, aggregates     -> read, util
#   queue    events from the reading to the stitching thread -> read, util
#   report   the engine: files run into a report, diffs      -> queue, stitch, read, util
#   render   text, JSON, CSV, folded, pprof                  -> report, stitch, read, util
#   kernel   allocinfo, filters, recording sessions          -> util
#   live     top's engine: its instance read as events come  -> kernel, stitch, read, util
#   bufstat  ring-buffer memory (its own archive)            -> util
#
# Checked two ways: the #include lines of every lib/ file (a header belongs to the
# part that implements it), and the symbols of the built objects (nm: a file that
# uses a symbol another defines depends on it). Either graph must have no cycle
# between files, and no arrow against the order above. Also: include/ holds the
# public API only, and no two source files of the tree share a name.
. "$(dirname "$0")/lib.sh"

export LC_ALL=C
cd "$ATAG_SRC" || exit 2

# Which parts each part may use (itself included).
RULES="util:util;read:util read;stitch:util read stitch;queue:util read queue"
RULES="$RULES;report:util read stitch queue report"
RULES="$RULES;render:util read stitch report render"
RULES="$RULES;kernel:util kernel;bufstat:util bufstat;live:util read stitch kernel live"

# The part of a public header, by name; internal headers are in their part's folder.
header_part() {
	case $1 in
	lib/*/*)	echo "$1" | cut -d/ -f2 ;;
	include/atag-utils.h|include/atag-json.h|include/atag-outbuf.h|include/atag-bigmem.h|\
	include/atag-marker.h) echo util ;;
	include/atag-read.h|include/atag-trace.h|include/atag-source.h|include/atag-event.h) echo read ;;
	include/atag-lifetime.h|include/atag-counters.h|include/atag-timeline.h) echo stitch ;;
	include/atag-report.h|include/atag-report-diff.h|include/atag-sort.h) echo report ;;
	include/atag-render.h|include/atag-render-diff.h) echo render ;;
	include/atag-allocinfo.h|include/atag-allocinfo-uapi.h|include/atag-filter.h|\
	include/atag-recorder.h|include/atag-state.h|include/atag-session.h|\
	include/atag-tracefs.h|include/atag-profiling.h) echo kernel ;;
	include/atag-bufstat.h) echo bufstat ;;
	include/atag-live.h) echo live ;;
	*) echo unknown ;;
	esac
}

# Every quoted include of lib/ and include/, resolved where the compiler finds it
# (the including file's folder, include/, the parts' folders), one "file header" a line.
files=$(find lib include -name '*.[ch]' | sort)
dirs=$(find lib -mindepth 1 -maxdepth 1 -type d | sort)
for f in $files; do
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r h; do
		for d in "$(dirname "$f")" include $dirs; do
			[ -f "$d/$h" ] && { echo "$f $d/$h"; break; }
		done		# not found: generated (profile.pb-c.h)
	done
done > "$T_TMP/inc.edges"

# The part of every file at either end of an edge, then the edges against the order.
awk '{ print $1; print $2 }' "$T_TMP/inc.edges" | sort -u | while read -r f; do
	p=$(header_part "$f")
	[ "$p" = unknown ] && case $f in lib/*/*) p=$(echo "$f" | cut -d/ -f2) ;; esac
	echo "$f $p"
done > "$T_TMP/parts"
bad=$(awk -v rules="$RULES" '
	BEGIN { n = split(rules, r, ";"); for (i = 1; i <= n; i++) { split(r[i], kv, ":"); ok[kv[1]] = " " kv[2] " " } }
	FNR == NR { part[$1] = $2; next }
	{ fp = part[$1]; hp = part[$2]
	  if (hp == "unknown") print $2 ": a header of no known part (add it to tests/t-layers.sh)"
	  else if (index(ok[fp], " " hp " ") == 0) print $1 " (" fp ") includes " $2 " (" hp ")" }' \
	"$T_TMP/parts" "$T_TMP/inc.edges" | sort -u)
check_eq "includes: every lib/ file uses only the parts below its own" "$bad" ""

# cycles FILE: the strongly connected components of more than one node of the
# graph "a b" (a depends on b), one line each; empty when there is none.
cycles() {
	awk '
	{ if (!($1 in id)) { id[$1] = ++n; name[n] = $1 }
	  if (!($2 in id)) { id[$2] = ++n; name[n] = $2 }
	  a = id[$1]; b = id[$2]; if (a != b) { adj[a, ++deg[a]] = b } }
	function visit(v,   i, w, top, comp, cnt) {
		idx[v] = low[v] = ++counter; stack[++sp] = v; on[v] = 1
		for (i = 1; i <= deg[v]; i++) {
			w = adj[v, i]
			if (!(w in idx)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
			else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
		}
		if (low[v] == idx[v]) {
			comp = ""; cnt = 0
			do { top = stack[sp--]; on[top] = 0; comp = comp " " name[top]; cnt++ } while (top != v)
			if (cnt > 1) print "cycle:" comp
		}
	}
	END { for (v = 1; v <= n; v++) if (!(v in idx)) visit(v) }' "$1"
}

check_eq "includes: no cycle between files" "$(cycles "$T_TMP/inc.edges")" ""

# include/ holds the public API alone: the headers the command, the plugin and the
# benchmarks include, and those these include. A header only lib/ uses sits beside
# the file that implements it.
incs() { sed -n 's/^#include "\(atag-[^"]*\.h\)".*/\1/p' "$@" /dev/null | sort -u; }
pub=$(incs utils/*.[ch] plugins/*.c bench/*.c)
while :; do
	more=$( (echo "$pub"; for h in $pub; do [ -f "include/$h" ] && incs "include/$h"; done) | sort -u)
	[ "$more" = "$pub" ] && break
	pub=$more
done
private=$(for f in include/*.h; do
	echo "$pub" | grep -qx "${f#include/}" || echo "$f: lib/ alone uses it"
done)
check_eq "include/ holds the public API only" "$private" ""

# One name, one file: no two sources of the tree share a basename.
dups=$(find . \( -path './build*' -o -path ./.git \) -prune -o -name '*.[ch]' -print |
	sed 's|.*/||' | sort | uniq -d)
check_eq "no two source files share a name" "$dups" ""

# The objects: which file's symbols each file uses.
# the objects of today's sources (a build directory may hold stale ones)
objs=$(for c in $(find lib -name '*.c' | sort); do
	[ -f "$ATAG_BUILD/${c%.c}.o" ] && echo "$ATAG_BUILD/${c%.c}.o"
done)
if [ -z "$objs" ] || ! command -v nm > /dev/null; then
	skip "symbols: no cycle between objects" "no objects in $ATAG_BUILD/lib, or no nm"
	skip "symbols: every lib/ object uses only the parts below its own" "as above"
	done_testing
	exit
fi
nm -A $objs | sed "s|^$ATAG_BUILD/||" | awk '
	{ split($1, a, ":"); f = a[1] }
	NF == 3 && $2 == "U" { print "U", f, $3 }
	NF == 3 && $2 ~ /^[TDBRVW]$/ { print "D", f, $3 }' > "$T_TMP/syms"
awk '$1 == "D" { def[$3] = $2 } $1 == "U" { use[++n] = $2 " " $3 }
     END { for (i = 1; i <= n; i++) { split(use[i], u, " "); if (u[2] in def && def[u[2]] != u[1]) print u[1], def[u[2]], u[2] } }' \
	"$T_TMP/syms" | sort -u > "$T_TMP/obj.uses"
awk '{ print $1, $2 }' "$T_TMP/obj.uses" | sort -u > "$T_TMP/obj.edges"
check_eq "symbols: no cycle between objects" "$(cycles "$T_TMP/obj.edges")" ""

bad=$(awk -v rules="$RULES" '
	BEGIN { n = split(rules, r, ";"); for (i = 1; i <= n; i++) { split(r[i], kv, ":"); ok[kv[1]] = " " kv[2] " " } }
	{ split($1, a, "/"); split($2, b, "/")
	  if (index(ok[a[2]], " " b[2] " ") == 0) { key = $1 " (" a[2] ") uses " $2 " (" b[2] "):"; s[key] = s[key] " " $3 } }
	END { for (k in s) print k s[k] }' "$T_TMP/obj.uses" | sort)
check_eq "symbols: every lib/ object uses only the parts below its own" "$bad" ""

# The offline path (lib/ but the kernel and live parts) reads untrusted files safe by
# construction: it forks no process and handles no signal (no fault guard).
bad=$(awk '$1 == "U" && $2 !~ /^lib\/(kernel|live)\// &&
	   $3 ~ /^(fork|vfork|clone|clone3|posix_spawnp?|system|popen|sigaction|signal|sigset|__sysv_signal|__sigsetjmp|sigsetjmp|_setjmp|setjmp|siglongjmp|longjmp|__longjmp_chk)$/ {
		print $2 ": " $3 }' "$T_TMP/syms" | sort -u)
check_eq "symbols: the offline path forks no process, handles no signal" "$bad" ""

# tests/lsan.supp suppresses the leaks of sscanf()'s "%m" strings (libtracecmd's):
# none of ours may hide there
bad=$(grep -rnE '%[0-9]*m[][a-zA-Z]' --include='*.[ch]' lib utils plugins include tests |
      grep -E 'scanf' | grep -v '^tests/t-')
check_eq "sources: no scanf \"%m\" conversion (tests/lsan.supp suppresses its leaks)" "$bad" ""

# GCC (12) takes a function that only prefetches for one without effects: the calls it
# did not inline early are dropped, prefetch and all (the stitcher's look-ahead lost its
# live-map prefetch that way). A static function that prefetches is always inlined.
bad=$(awk '
	FNR == 1 { head = ""; body = 0 }
	!body && /^static / { head = $0; next }
	!body && head != "" && /^\{/ { body = 1; pf = 0; next }
	!body && head != "" { head = head " " $0; next }
	body && /__builtin_prefetch\(|atag_map_prefetch\(/ { pf = 1 }
	body && /^\}/ { if (pf && head !~ /always_inline/) print FILENAME ": " head
			 body = 0; head = "" }' $(find lib include -name '*.[ch]' | sort))
check_eq "sources: every static function that prefetches is always inlined" "$bad" ""

# A file the layering does not know is a file in the wrong place.
stray=$(find lib -maxdepth 1 -type f -name '*.[ch]')
check_eq "lib/ holds its parts' folders, no loose source files" "$stray" ""

done_testing
