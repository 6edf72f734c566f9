#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make install / uninstall lay out the binary, the plugin and the man pages.
. "$(dirname "$0")/lib.sh"

mk() { make -s -C "$ATAG_SRC" O="$ATAG_BUILD" "$@" > "$T_TMP/make.log" 2>&1; }

D=$T_TMP/stage
mk install DESTDIR="$D"
check_eq "make install DESTDIR=... succeeds" "$?" 0
check "binary in PREFIX/bin" test -x "$D/usr/local/bin/trace-cmd-alloc-tag"
check "plugin in PREFIX/lib/traceevent/plugins" \
	test -f "$D/usr/local/lib/traceevent/plugins/plugin_alloc_tag.so"
check "overview man page" test -f "$D/usr/local/share/man/man1/trace-cmd-alloc-tag.1"
for t in "$ATAG_SRC"/Documentation/*.[1-9].txt; do
	m=$(basename "$t" .txt)
	check "man page $m installed" test -f "$D/usr/local/share/man/man${m##*.}/$m"
done
for alias in disable reset; do
	check "man page alias for $alias" test -f "$D/usr/local/share/man/man1/trace-cmd-alloc-tag-$alias.1"
done
MANWIDTH=80 man -l "$D/usr/local/share/man/man1/trace-cmd-alloc-tag-report.1" > "$T_TMP/man" 2>/dev/null
check_grep "man -l renders the installed report page" '^ +trace-cmd-alloc-tag report \[OPTIONS\]' "$T_TMP/man"
# at 80 columns the header (TITLE(1)  manual  TITLE(1)) and the footer of every page
# keep their parts apart: groff overlaps them when they do not fit
for m in "$D"/usr/local/share/man/man[1-9]/trace-cmd-alloc-tag*.[1-9]; do
	[ -L "$m" ] || grep -q '^\.so ' "$m" && continue
	MANWIDTH=80 man -l "$m" 2>/dev/null | sed -n '1p;$p' > "$T_TMP/hf"
	t=$(basename "$m" | sed 's/\.\([1-9]\)$/(\1)/' | tr a-z A-Z)
	check_eq "$(basename "$m"): header and footer fit 80 columns apart" \
		"$(awk -v t="$t" 'length($0) <= 80 && substr($0, length($0) - length(t) + 1) == t &&
			(NR == 2 || index($0, t "  ") == 1) && $0 ~ /[^ ]  +[^ ]+( [^ ]+)*  +[^ ]/ { n++ }
			END { print n + 0 }' "$T_TMP/hf")" 2
done
check_grep "the TRACEEVENT_PLUGIN_DIR hint is printed" \
	"export TRACEEVENT_PLUGIN_DIR=/usr/local/lib/traceevent/plugins" "$T_TMP/make.log"
check_eq "the installed binary runs" \
	"$("$D/usr/local/bin/trace-cmd-alloc-tag" --version | cut -d' ' -f1)" trace-cmd-alloc-tag
mk uninstall DESTDIR="$D"
check_eq "make uninstall removes every file" "$(find "$D" -type f | wc -l)" 0

sys=$(pkg-config --variable=libdir libtraceevent)/traceevent/plugins
mk install DESTDIR="$T_TMP/sys" PREFIX=/usr
check "PREFIX=/usr: plugin in libtraceevent's system directory" \
	test -f "$T_TMP/sys$sys/plugin_alloc_tag.so"
check "PREFIX=/usr: binary in /usr/bin" test -x "$T_TMP/sys/usr/bin/trace-cmd-alloc-tag"
check_nogrep "PREFIX=/usr: no hint needed" "TRACEEVENT_PLUGIN_DIR" "$T_TMP/make.log"

done_testing
