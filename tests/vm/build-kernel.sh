#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the VM tier's kernel and test module, or reuse a cached build.
#
#   tests/vm/build-kernel.sh        prints the directory holding bzImage,
#                                   atag_test.ko and config
#
# The kernel is Debian's linux-source-6.12 with tests/vm/patches/*.patch
# applied in order, configured as tinyconfig + tests/vm/kernel.config.  The
# result is cached under $ATAG_VM_CACHE (default /var/cache/trace-cmd-alloc-tag/vm)
# in kernel-KEY/, KEY being a hash of the Debian package version, the config
# fragment, the patches and the test module's sources; nothing is rebuilt while
# those stay the same.  The cache keeps one source tree (src/), one kbuild
# output directory (out/, reused so that a changed patch only recompiles what
# depends on it), the ccache (ccache/) and the latest kernel-KEY/.
#
# Environment: ATAG_VM_CACHE, ATAG_VM_JOBS (default: number of CPUs).
set -eu

VMDIR=$(cd "$(dirname "$0")" && pwd)
CACHE=${ATAG_VM_CACHE:-/var/cache/trace-cmd-alloc-tag/vm}
JOBS=${ATAG_VM_JOBS:-$(nproc)}
KPKG=linux-source-6.12
# Bump when the way the kernel is built changes, to force a rebuild.
FORMAT=1

msg() { echo "build-kernel: $*" >&2; }
die() { msg "ERROR: $*"; exit 1; }

ver=$(dpkg-query -W -f='${Version}' $KPKG 2>/dev/null) ||
	die "$KPKG is not installed (scripts/deps.sh --vm)"
tarball=$(dpkg -L $KPKG | grep "/$KPKG.tar.xz\$") || die "no source tarball in $KPKG"

key=$(
	cd "$VMDIR"
	echo "format $FORMAT"
	echo "$KPKG $ver"
	for f in kernel.config patches/*.patch module/*; do
		echo "== $f"
		cat "$f"
	done | sha256sum
)
key=$(echo "$key" | sha256sum | cut -c1-16)
art=$CACHE/kernel-$key

if [ -f "$art/bzImage" ] && [ -f "$art/atag_test.ko" ]; then
	echo "$art"
	exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
# someone else may have built it while we waited
if [ -f "$art/bzImage" ] && [ -f "$art/atag_test.ko" ]; then
	echo "$art"
	exit 0
fi

SRC=$CACHE/src/$KPKG
OUT=$CACHE/out
LOG=$CACHE/build.log
: >"$LOG"
start=$(date +%s)

# A different Debian source can change any file: start from a clean out/.
if [ "$(cat "$OUT/.atag-source" 2>/dev/null)" != "$KPKG $ver" ] ||
   { [ -d "$OUT" ] && [ ! -f "$OUT/.atag-patched" ]; }; then
	rm -rf "$OUT"
fi

# The patched source tree, for this key.
if [ "$(cat "$CACHE/src/.key" 2>/dev/null)" != "$key" ]; then
	msg "unpacking $KPKG $ver and applying $(ls "$VMDIR"/patches/*.patch | wc -l) patches"
	rm -rf "$CACHE/src.new"
	mkdir -p "$CACHE/src.new"
	tar -xf "$tarball" -C "$CACHE/src.new"
	for p in "$VMDIR"/patches/*.patch; do
		# not inside any git repository the cache may sit in
		(cd "$CACHE/src.new/$KPKG" &&
		 GIT_CEILING_DIRECTORIES="$CACHE/src.new" git apply --whitespace=nowarn "$p") ||
			die "patch $(basename "$p") does not apply"
	done
	rm -rf "$CACHE/src"
	mv "$CACHE/src.new" "$CACHE/src"
	echo "$key" >"$CACHE/src/.key"
fi

# Unpacked files keep the tarball's mtimes, older than the objects in out/.
# Files the patches of the last build or of this one touch get a fresh
# mtime, so that make rebuilds what depends on them.  A file a patch created
# and that is gone now would leave dangling dependencies: start over then.
grep -h '^+++ b/' "$VMDIR"/patches/*.patch | cut -c7- | sort -u >"$CACHE/patched.new"
if [ -d "$OUT" ]; then
	sort -u "$OUT/.atag-patched" "$CACHE/patched.new" >"$CACHE/patched.all"
	while read -r f; do
		if [ -e "$SRC/$f" ]; then touch "$SRC/$f"; else echo "$f"; fi
	done <"$CACHE/patched.all" >"$CACHE/patched.gone"
	if [ -s "$CACHE/patched.gone" ]; then
		rm -rf "$OUT"
	fi
	rm -f "$CACHE/patched.gone"
fi
mkdir -p "$OUT"
echo "$KPKG $ver" >"$OUT/.atag-source"
# Until this build succeeds, out/ may hold objects of both patch sets.
{ cat "$CACHE/patched.new"; cat "$CACHE/patched.all" 2>/dev/null || true; } |
	sort -u >"$OUT/.atag-patched"
rm -f "$CACHE/patched.all"

CC=gcc
if command -v ccache >/dev/null; then
	CC="ccache gcc"
	export CCACHE_DIR="$CACHE/ccache" CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
fi
export KBUILD_BUILD_USER=atag-vm KBUILD_BUILD_HOST=atag-vm
kmake() { nice -n 19 make -C "$SRC" O="$OUT" CC="$CC" "$@" >>"$LOG" 2>&1; }

msg "configuring (tinyconfig + kernel.config)"
kmake tinyconfig || die "make tinyconfig failed, see $LOG"
# (merge_config.sh leaves its temporary files in the current directory)
(cd "$OUT" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" \
	"$VMDIR/kernel.config") >>"$LOG" 2>&1 || die "merge_config.sh failed, see $LOG"
kmake olddefconfig || die "make olddefconfig failed, see $LOG"
missing=$(grep -o '^CONFIG_[A-Z0-9_]*=.*' "$VMDIR/kernel.config" | while read -r opt; do
	grep -qx "$opt" "$OUT/.config" || echo "$opt"
done)
[ -z "$missing" ] || die "options of kernel.config not in the final config:" $missing

msg "building bzImage with $JOBS jobs (about 7 minutes from a cold cache; log: $LOG)"
kmake -j"$JOBS" bzImage modules || { tail -n 40 "$LOG" >&2; die "kernel build failed"; }

msg "building the test module"
rm -rf "$CACHE/module"
cp -r "$VMDIR/module" "$CACHE/module"
kmake M="$CACHE/module" modules || { tail -n 40 "$LOG" >&2; die "module build failed"; }

rm -rf "$art.new"
mkdir -p "$art.new"
cp "$OUT/arch/x86/boot/bzImage" "$CACHE/module/atag_test.ko" "$art.new/"
cp "$OUT/.config" "$art.new/config"
mv "$CACHE/patched.new" "$OUT/.atag-patched"
rm -rf "$art"
mv "$art.new" "$art"
# keep only this kernel
for d in "$CACHE"/kernel-*; do
	[ "$d" = "$art" ] || rm -rf "$d"
done
msg "built in $(($(date +%s) - start)) s: $art"
echo "$art"
