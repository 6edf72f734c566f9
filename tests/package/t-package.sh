#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Debian package (make check-package, after make deb; not part of make check):
# lintian without errors, its contents, then installed on this machine with apt-get
# (as root): stock trace-cmd report formats the alloc_tag events with no environment
# variable, the command runs from /usr/bin, man finds its pages, bash-completion
# loads its completion. Then purged, or the package that was installed before put
# back; files of the package's paths that no package owned (a make install) are
# kept aside and restored. Environment: ATAG_SRC, ATAG_DEB_DIR (where make deb put
# the package).
: "${ATAG_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ATAG_SRC/tests/lib.sh"

PKG=trace-cmd-alloc-tag
: "${ATAG_DEB_DIR:=$ATAG_SRC/build/deb}"
cd "$ATAG_SRC" || exit 2
ver=$(dpkg-parsechangelog -l debian/changelog -S Version)
arch=$(dpkg --print-architecture)
DEB=$ATAG_DEB_DIR/${PKG}_${ver}_$arch.deb
CHANGES=$ATAG_DEB_DIR/${PKG}_${ver}_$arch.changes
if [ ! -f "$DEB" ]; then
	fail "make deb made $DEB"
	done_testing; exit
fi
ok "make deb made $(basename "$DEB")"
check_eq "debian/changelog's version is the Makefile's" "$ver" \
	"$(sed -n 's/^VERSION[[:space:]]*:= *//p' Makefile)"

# lintian: errors fail, the rest is shown
lintian --fail-on error --info --display-info "$CHANGES" > "$T_TMP/lintian" 2>&1
rc=$?
grep -v '^running with root privileges' "$T_TMP/lintian" | sed 's/^/    lintian: /'
check_eq "lintian: exit status 0 (no error)" "$rc" 0
check_nogrep "lintian: no E: tag" '^E: ' "$T_TMP/lintian"

# what the package holds
sys=$(pkg-config --variable=libdir libtraceevent)/traceevent/plugins
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\./|/|' > "$T_TMP/contents"
for f in /usr/bin/trace-cmd-alloc-tag "$sys/plugin_alloc_tag.so" \
	 /usr/share/bash-completion/completions/trace-cmd-alloc-tag \
	 /usr/share/man/man1/trace-cmd-alloc-tag.1.gz /usr/share/man/man1/trace-cmd-alloc-tag-report.1.gz \
	 /usr/share/man/man7/trace-cmd-alloc-tag-plugin.7.gz /usr/share/doc/trace-cmd-alloc-tag/copyright; do
	check "the package holds $f" grep -qxF "$f" "$T_TMP/contents"
done
dpkg-deb -f "$DEB" Depends > "$T_TMP/depends"
for d in trace-cmd libtraceevent1 libtracecmd1 libtracefs1; do
	check_grep "Depends: $d" "(^|, )$d( |,|$)" "$T_TMP/depends"
done

if ! is_root; then
	skip "install the package" "not root: apt-get install needs root"
	done_testing; exit
fi

# the state to put back: the package installed before, files no package owns
before=$(dpkg-query -W -f='${db:Status-Status}' "$PKG" 2>/dev/null)
if [ "$before" = installed ]; then
	(cd "$T_TMP" && dpkg-repack "$PKG" > /dev/null 2>&1) ||
		{ fail "dpkg-repack the installed $PKG (to put it back)"; done_testing; exit; }
	echo "# $PKG $(dpkg-query -W -f='${Version}' "$PKG") was installed: put back at the end"
fi
mkdir -p "$T_TMP/aside"
while read -r f; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	dpkg -S "$f" > /dev/null 2>&1 && continue
	echo "# $f belongs to no package: kept aside, restored at the end"
	mkdir -p "$T_TMP/aside$(dirname "$f")"
	mv "$f" "$T_TMP/aside$f" && echo "$f" >> "$T_TMP/aside.list"
done < "$T_TMP/contents"

restore() {
	if [ "$before" = installed ]; then
		dpkg -i "$T_TMP"/${PKG}_*.deb > /dev/null 2>&1
	elif dpkg-query -W -f='${db:Status-Status}' "$PKG" 2>/dev/null | grep -qv not-installed; then
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$PKG" > /dev/null 2>&1
	fi
	[ -f "$T_TMP/aside.list" ] && while read -r f; do
		mkdir -p "$(dirname "$f")" && mv "$T_TMP/aside$f" "$f"
	done < "$T_TMP/aside.list"
	rm -f "$T_TMP/aside.list"
}
at_exit restore

DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$DEB" \
	> "$T_TMP/apt.log" 2>&1
check_eq "apt-get install ./$(basename "$DEB")" "$?:$(dpkg-query -W -f='${db:Status-Status}' "$PKG")" \
	"0:installed"

# stock trace-cmd, no environment: libtraceevent loads the plugin from its directory
clean() { env -i PATH=/usr/bin:/bin "$@"; }
clean trace-cmd list -P > "$T_TMP/plugins" 2>&1
check_grep "trace-cmd list -P: the plugin in $sys" "^ *$sys/plugin_alloc_tag.so\$" "$T_TMP/plugins"
clean trace-cmd report -i tests/data/sample.dat > "$T_TMP/report" 2> "$T_TMP/report.err"
check_eq "trace-cmd report of the sample exits 0" "$?" 0
# as tests/t-plugin.sh: the call site resolved on alloced and freed lines
check_grep "alloced: ptr, bytes and the call site" \
	'alloc_tag_mem_alloced: ptr=0xff11000000b4dab8 bytes=512 alloc_bprm fs/exec.c:1563$' "$T_TMP/report"
check_grep "freed: ptr, bytes and the call site" \
	'alloc_tag_mem_freed: +ptr=0xff11000000b4dab8 bytes=512 alloc_bprm fs/exec.c:1563$' "$T_TMP/report"
check_nogrep "no alloc_tag line in the kernel's own format (plugin not loaded)" \
	'alloc_tag_mem_[a-z]+: +ptr 0x' "$T_TMP/report"
allocs=$(grep -c 'alloc_tag_mem_alloced:' "$T_TMP/report")

# the command from /usr/bin; its count of allocations is stock trace-cmd's
check_eq "trace-cmd-alloc-tag is /usr/bin's" "$(clean sh -c 'command -v trace-cmd-alloc-tag')" \
	/usr/bin/trace-cmd-alloc-tag
clean trace-cmd-alloc-tag report tests/data/sample.dat > "$T_TMP/atag" 2>&1
check_eq "trace-cmd-alloc-tag report of the sample exits 0" "$?" 0
check_grep "report counts the $allocs allocations trace-cmd shows" "^allocs +$allocs " "$T_TMP/atag"

# man pages and completion where man and bash-completion look
check_eq "man -w trace-cmd-alloc-tag-report" "$(clean man -w trace-cmd-alloc-tag-report 2>&1)" \
	/usr/share/man/man1/trace-cmd-alloc-tag-report.1.gz
# the alias is a link to the page that documents both
check_eq "man -w trace-cmd-alloc-tag-disable: the enable page" \
	"$(clean man -w trace-cmd-alloc-tag-disable 2>&1)" /usr/share/man/man1/trace-cmd-alloc-tag-enable.1.gz
got=$(clean bash -c '. /usr/share/bash-completion/bash_completion
	__load_completion trace-cmd-alloc-tag; complete -p trace-cmd-alloc-tag' 2>&1)
check_eq "bash-completion loads the completion" "$got" \
	"complete -F _trace_cmd_alloc_tag trace-cmd-alloc-tag"
got=$(clean bash -c '. /usr/share/bash-completion/bash_completion
	__load_completion trace-cmd-alloc-tag
	COMP_WORDS=(trace-cmd-alloc-tag report --sou); COMP_CWORD=2
	COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
	_trace_cmd_alloc_tag; echo "${COMPREPLY[*]}"' 2>&1)
check_eq "the installed completion completes the installed command" "$got" --source

# purged, nothing of it is left
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$PKG" > "$T_TMP/apt.log" 2>&1
check_eq "apt-get purge" "$?" 0
left=$(while read -r f; do [ -e "$f" ] && [ ! -d "$f" ] && echo "$f"; done < "$T_TMP/contents")
check_eq "no file of the package left after purge" "$left" ""

done_testing
