#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The shape of lib/: its parts depend on each other one way only.
#
#   util     shared helpers (errors, units, the hash map, the JSON writer)
#   read     trace.dat files and the source adapters        -> util
#   stitch   stitching, aggregates, the report of files     -> read, util
#   render   text, JSON, CSV, folded, pprof                  -> stitch, read, util
#   kernel   allocinfo, filters, recording sessions          -> util
#   bufstat  ring-buffer memory (its own archive)            -> util
#
# Checked two ways: the #include lines of every lib/ file (a header belongs to the
# part that implements it), and the symbols of the built objects (nm: a file that
# uses a symbol another defines depends on it). Either graph must have no cycle
# between files, and no arrow against the order above.
. "$(dirname "$0")/lib.sh"

export LC_ALL=C
cd "$ATAG_SRC" || exit 2

# part CAN_USE...: which parts a part may depend on
allowed() {
	case $1 in
	util)	echo "util" ;;
	read)	echo "util read" ;;
	stitch)	echo "util read stitch" ;;
	render)	echo "util read stitch render" ;;
	kernel)	echo "util kernel" ;;
	bufstat) echo "util bufstat" ;;
	esac
}

# The part of a public header, by name; internal headers are in their part's folder.
header_part() {
	case $1 in
	lib/*/*)	echo "$1" | cut -d/ -f2 ;;
	include/atag-utils.h|include/atag-json.h|include/atag-map.h) echo util ;;
	include/atag-read.h|include/atag-trace.h|include/atag-source.h|include/atag-symbols.h|\
	include/atag-event.h|include/atag-debuginfo.h) echo read ;;
	include/atag-stitch.h|include/atag-lifetime.h|include/atag-report.h|\
	include/atag-counters.h) echo stitch ;;
	include/atag-render.h) echo render ;;
	include/atag-allocinfo.h|include/atag-allocinfo-uapi.h|include/atag-filter.h|\
	include/atag-record.h|include/atag-state.h|include/atag-session.h|\
	include/atag-tracefs.h) echo kernel ;;
	include/atag-bufstat.h) echo bufstat ;;
	*) echo unknown ;;
	esac
}

# Where a quoted include of NAME from FILE resolves: FILE's folder, include/, lib/util/.
resolve() {
	for d in "$(dirname "$1")" include lib/util; do
		[ -f "$d/$2" ] && { echo "$d/$2"; return; }
	done
}

files=$(find lib include -name '*.[ch]' | sort)
: > "$T_TMP/inc.edges"
bad=""
for f in $files; do
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		r=$(resolve "$f" "$h")
		[ -n "$r" ] || continue		# generated (profile.pb-c.h)
		echo "$f $r" >> "$T_TMP/inc.edges"
		fp=$(header_part "$f") hp=$(header_part "$r")
		[ "$fp" = unknown ] && fp=$(echo "$f" | cut -d/ -f2)
		if [ "$hp" = unknown ]; then
			bad="$bad
$r: a header of no known part (add it to tests/t-layers.sh)"
			continue
		fi
		case " $(allowed "$fp") " in
		*" $hp "*) ;;
		*) bad="$bad
$f ($fp) includes $r ($hp)" ;;
		esac
	done
done
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
for o in $objs; do
	rel=${o#"$ATAG_BUILD"/}
	nm "$o" | awk -v f="$rel" '$1 == "U" { print "U", f, $2 } NF == 3 && $2 ~ /^[TDBRVW]$/ { print "D", f, $3 }'
done > "$T_TMP/syms"
awk '$1 == "D" { def[$3] = $2 } $1 == "U" { use[++n] = $2 " " $3 }
     END { for (i = 1; i <= n; i++) { split(use[i], u, " "); if (u[2] in def && def[u[2]] != u[1]) print u[1], def[u[2]] } }' \
	"$T_TMP/syms" | sort -u > "$T_TMP/obj.edges"
check_eq "symbols: no cycle between objects" "$(cycles "$T_TMP/obj.edges")" ""

bad=""
while read -r a b; do
	ap=$(echo "$a" | cut -d/ -f2) bp=$(echo "$b" | cut -d/ -f2)
	case " $(allowed "$ap") " in
	*" $bp "*) ;;
	*) bad="$bad
$a ($ap) uses $b ($bp): $(awk -v a="$a" -v b="$b" '$1 == "D" && $2 == b { d[$3] = 1 }
	$1 == "U" && $2 == a { u[$3] = 1 } END { for (s in u) if (s in d) printf "%s ", s }' "$T_TMP/syms")" ;;
	esac
done < "$T_TMP/obj.edges"
check_eq "symbols: every lib/ object uses only the parts below its own" "$bad" ""

# A file the layering does not know is a file in the wrong place.
stray=$(find lib -maxdepth 1 -type f -name '*.[ch]')
check_eq "lib/ holds its parts' folders, no loose source files" "$stray" ""

done_testing
