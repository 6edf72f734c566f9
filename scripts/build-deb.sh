#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build-deb.sh OUTDIR: the Debian binary package, built by dpkg-buildpackage from a
# copy of the files git tracks (as they are in the work tree) in
# OUTDIR/trace-cmd-alloc-tag-VERSION/; the .deb and .changes land in OUTDIR.
# The work tree is left as it was.
set -e
[ $# = 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"
git rev-parse --git-dir > /dev/null 2>&1 ||
	{ echo "build-deb: $src is not a git work tree (the package is built from git's file list)" >&2; exit 1; }
ver=$(dpkg-parsechangelog -l debian/changelog -S Version)
mkver=$(sed -n 's/^VERSION[[:space:]]*:= *//p' Makefile)
[ "$ver" = "$mkver" ] ||
	{ echo "build-deb: debian/changelog is at $ver, the Makefile's VERSION at $mkver" >&2; exit 1; }

mkdir -p "$1"
out=$(cd "$1" && pwd)
tree=$out/trace-cmd-alloc-tag-$ver
rm -rf "$tree" "$out"/trace-cmd-alloc-tag_* "$out"/trace-cmd-alloc-tag-dbgsym_*
mkdir -p "$tree"
# tracked files that exist (a deleted one is not an error)
git ls-files -z | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf - | tar -xf - -C "$tree"

cd "$tree"
echo "build-deb: dpkg-buildpackage in $tree (log: $out/build.log)"
if ! dpkg-buildpackage -b -uc -us > "$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
	exit 1
fi
ls "$out"/trace-cmd-alloc-tag_"$ver"_*.deb
