#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: normal build (make install, uninstall and the man pages)
# make install / uninstall lay out the binary, the plugin (where libtraceevent looks),
# the man pages and the bash completion; uninstall removes them and the directories
# install made, and only those.
. "$(dirname "$0")/lib.sh"

mk() { make -s -C "$ATAG_SRC" O="$ATAG_BUILD" "$@" > "$T_TMP/make.log" 2>&1; }

# libtraceevent's own plugin directory: its compiled-in path, the one in its
# pkg-config libdir (Debian: /usr/lib/<triplet>/traceevent/plugins)
sys=$(pkg-config --variable=libdir libtraceevent)/traceevent/plugins
lib=$(ls /usr/lib/*/libtraceevent.so.1 /usr/lib/libtraceevent.so.1 2>/dev/null | head -n 1)
if [ -n "$lib" ]; then
	check "libtraceevent's compiled-in plugin path is $sys" grep -qaF "$sys" "$lib"
fi

D=$T_TMP/stage
mk install DESTDIR="$D"
check_eq "make install DESTDIR=... succeeds" "$?" 0
check "binary in PREFIX/bin" test -x "$D/usr/local/bin/trace-cmd-alloc-tag"
check "default prefix: plugin in libtraceevent's directory" test -f "$D$sys/plugin_alloc_tag.so"
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
check_nogrep "default prefix: no TRACEEVENT_PLUGIN_DIR hint" "TRACEEVENT_PLUGIN_DIR" "$T_TMP/make.log"
comp=$D/usr/local/share/bash-completion/completions/trace-cmd-alloc-tag
check "completion in PREFIX/share/bash-completion/completions" test -f "$comp"
# bash-completion loads it from there (XDG_DATA_DIRS: /usr/local/share by default)
BC=/usr/share/bash-completion/bash_completion
if [ -f "$BC" ]; then
	got=$(XDG_DATA_DIRS=$D/usr/local/share bash -c \
		'. "$1"; __load_completion trace-cmd-alloc-tag; complete -p trace-cmd-alloc-tag' - "$BC" 2>&1)
	check_eq "bash-completion's loader finds the installed completion" "$got" \
		"complete -F _trace_cmd_alloc_tag trace-cmd-alloc-tag"
else
	skip "bash-completion's loader finds the installed completion" "bash-completion not installed"
fi
check_eq "the installed binary runs" \
	"$("$D/usr/local/bin/trace-cmd-alloc-tag" --version | cut -d' ' -f1)" trace-cmd-alloc-tag
mk install DESTDIR="$D"
check_eq "make install twice succeeds" "$?" 0
mk uninstall DESTDIR="$D"
check_eq "make uninstall leaves nothing behind" "$(find "$D" -mindepth 1 | head -n 5)" ""

# directories that were there before stay, with what else they hold
P=$T_TMP/pre
mkdir -p "$P/usr/local/share/man/man7" "$P/usr/local/bin"
echo other > "$P/usr/local/bin/other"
mk install DESTDIR="$P"
mk uninstall DESTDIR="$P"
check "uninstall keeps an empty directory that was there before" \
	test -d "$P/usr/local/share/man/man7"
check "uninstall keeps another program" test -f "$P/usr/local/bin/other"
check_eq "uninstall removes every other directory it made" \
	"$(cd "$P" && find . -mindepth 1 | sort | tr '\n' ' ')" \
	"./usr ./usr/local ./usr/local/bin ./usr/local/bin/other ./usr/local/share ./usr/local/share/man ./usr/local/share/man/man7 "

# plugin_dir elsewhere: installed there, with the hint libtraceevent needs
mk install DESTDIR="$T_TMP/opt" plugin_dir=/opt/atag/plugins
check "plugin_dir=DIR: plugin there" test -f "$T_TMP/opt/opt/atag/plugins/plugin_alloc_tag.so"
check_grep "plugin_dir=DIR: the TRACEEVENT_PLUGIN_DIR hint is printed" \
	"export TRACEEVENT_PLUGIN_DIR=/opt/atag/plugins" "$T_TMP/make.log"

# PREFIX=~/.local: everything in the home, the plugin in the per-user directory
# libtraceevent also searches
H=$T_TMP/home
mkdir -p "$H"
HOME=$H mk install PREFIX="$H/.local"
check "PREFIX=~/.local: plugin in ~/.local/lib/traceevent/plugins" \
	test -f "$H/.local/lib/traceevent/plugins/plugin_alloc_tag.so"
check "PREFIX=~/.local: completion in ~/.local/share/bash-completion/completions" \
	test -f "$H/.local/share/bash-completion/completions/trace-cmd-alloc-tag"
check_nogrep "PREFIX=~/.local: no hint needed" "TRACEEVENT_PLUGIN_DIR" "$T_TMP/make.log"
HOME=$H mk uninstall PREFIX="$H/.local"
check_eq "PREFIX=~/.local: uninstall leaves nothing behind" "$(find "$H" -mindepth 1 | head -n 5)" ""

mk install DESTDIR="$T_TMP/sys" PREFIX=/usr
check "PREFIX=/usr: plugin in libtraceevent's system directory" \
	test -f "$T_TMP/sys$sys/plugin_alloc_tag.so"
check "PREFIX=/usr: binary in /usr/bin" test -x "$T_TMP/sys/usr/bin/trace-cmd-alloc-tag"
check "PREFIX=/usr: completion in bash-completion's completionsdir" \
	test -f "$T_TMP/sys$(pkg-config --variable=completionsdir bash-completion 2>/dev/null ||
		echo /usr/share/bash-completion/completions)/trace-cmd-alloc-tag"
check_nogrep "PREFIX=/usr: no hint needed" "TRACEEVENT_PLUGIN_DIR" "$T_TMP/make.log"

done_testing
