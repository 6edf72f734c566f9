#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/install.sh install|uninstall: what make install and make uninstall do.
# The Makefile passes, in the environment: DESTDIR, bindir, plugin_dir, mandir,
# completionsdir, install_manifest (empty: none) and, to install, CMD, PLUGIN,
# MANPAGES (the built pages) and COMPLETION.
#
# install records in $install_manifest each directory it had to make (below
# DESTDIR); uninstall removes the files, then those directories when empty, so
# that directories which were there before, or hold other files, stay.
set -e

# missing DIR: DIR and its missing parents (below DESTDIR), outermost first
missing() {
	d=$1 out=
	while [ ! -d "$DESTDIR$d" ] && [ "$d" != / ] && [ "$d" != . ]; do
		out="$d
$out"
		d=$(dirname "$d")
	done
	printf '%s' "$out"
}

do_install() {
	dirs="$bindir $plugin_dir $completionsdir"
	for m in $MANPAGES; do
		dirs="$dirs $mandir/man${m##*.}"
	done
	[ -n "$install_manifest" ] && dirs="$dirs $(dirname "$install_manifest")"
	made=
	for d in $dirs; do
		new=$(missing "$d")
		[ -n "$new" ] || continue
		install -d "$DESTDIR$d"
		made="$made$new
"
	done

	install -m 0755 "$CMD" "$DESTDIR$bindir/trace-cmd-alloc-tag"
	install -m 0644 "$PLUGIN" "$DESTDIR$plugin_dir/plugin_alloc_tag.so"
	# the pages, and the aliases xmlto made for pages naming two commands
	for m in $MANPAGES; do
		install -m 0644 "$m" "$DESTDIR$mandir/man${m##*.}/"
	done
	install -m 0644 "$COMPLETION" "$DESTDIR$completionsdir/trace-cmd-alloc-tag"

	if [ -n "$install_manifest" ]; then
		f=$DESTDIR$install_manifest
		{ [ -f "$f" ] && cat "$f"; printf '%s' "$made"; } | grep -v '^$' | sort -u > "$f.new"
		mv "$f.new" "$f"
		chmod 0644 "$f"
	fi
}

do_uninstall() {
	rm -f "$DESTDIR$bindir/trace-cmd-alloc-tag" "$DESTDIR$plugin_dir/plugin_alloc_tag.so" \
		"$DESTDIR$completionsdir/trace-cmd-alloc-tag"
	for m in "$DESTDIR$mandir"/man[1-9]/trace-cmd-alloc-tag.[1-9] \
		 "$DESTDIR$mandir"/man[1-9]/trace-cmd-alloc-tag-*.[1-9]; do
		[ -f "$m" ] && rm -f "$m"
	done
	[ -n "$install_manifest" ] && [ -f "$DESTDIR$install_manifest" ] || return 0
	f=$DESTDIR$install_manifest
	dirs=$(sort -r "$f")	# the deepest first
	rm -f "$f"
	for d in $dirs; do
		rmdir "$DESTDIR$d" 2>/dev/null || true
	done
}

case $1 in
install)	do_install ;;
uninstall)	do_uninstall ;;
*)		echo "usage: $0 install|uninstall" >&2; exit 2 ;;
esac
