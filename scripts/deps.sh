#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the build and the tests need, when they are missing.
#   scripts/deps.sh          build, tests and man pages
#   scripts/deps.sh --vm     also what the VM tier needs (make check-vm)
#   scripts/deps.sh --package  also what the Debian package needs (make deb, check-package)
#   scripts/deps.sh --list   print the package names and exit
# As root the missing ones are installed with apt-get; otherwise the exact apt-get
# command is printed and the script fails.

BUILD="gcc make pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev libglib2.0-dev
 libjson-glib-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libzstd-dev libfuse3-dev libdw-dev"
TEST="trace-cmd libtraceevent1-plugin libcunit1-dev fuse3 jq valgrind zstd golang-go
 clang libclang-rt-14-dev
 bash-completion"
# t-lifetimes: DuckDB's client from the npm registry (NodeSource's nodejs carries its own npm)
TEST="$TEST nodejs"; command -v npm > /dev/null || TEST="$TEST npm"
BUILD="$BUILD node-d3"		# report -f html embeds its d3
TEST="$TEST chromium"		# tests/t-html.sh opens the HTML report headless
DOC="asciidoc-base xmlto docbook-xsl docbook-xml"
VM="qemu-system-x86 busybox-static linux-source-6.12 ccache flex bison bc libelf-dev
 libssl-dev cpio xz-utils"
PACKAGE="dpkg-dev debhelper lintian fakeroot man-db dpkg-repack"

want="$BUILD $TEST $DOC"
case "$1" in
--vm)	want="$want $VM" ;;
--package)	want="$want $PACKAGE" ;;
--list)	echo $want; exit 0 ;;
"")	;;
*)	echo "usage: $0 [--vm|--package|--list]" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case "$s" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
	{ echo "deps: '$cmd' failed" >&2; exit 1; }
