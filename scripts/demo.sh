#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [BUILD_DIR] [-- COMMAND...]: the tour of list, enable, record and report on a
# kernel without the alloc_tag tracing series (make demo), through the test doubles:
#
#   - build/tests/progs/atag-fakeinfo serves a /proc/allocinfo with the series' ioctls
#     (a FUSE file system; its tags: tests/data/allocinfo.txt), and ATAG_ALLOCINFO
#     points the command at it;
#   - build/tests/progs/atag-sim creates uprobe events named alloc_tag:alloc_tag_hit,
#     alloc_tag_mem_alloced and alloc_tag_mem_freed on its own functions ("atag-sim
#     install"), and "atag-sim run" emits them for the tags the double says are
#     traced, as the kernel would;
#   - PATH finds trace-cmd-alloc-tag and atag-sim in the build, TRACEEVENT_PLUGIN_DIR
#     lets stock trace-cmd report load our plugin, ATAG_STATE_DIR keeps the state
#     files of this demo's sessions apart from anyone else's.
#
# Each command is printed ("# COMMAND", as root types it) before it runs. With a
# COMMAND, runs that instead of the tour, in the same environment (tests/t-readme.sh
# runs the README's examples so). Everything it started or made is undone when it
# ends, also on Ctrl-C, SIGTERM, a closed output (| head) and errors: the simulator's uprobe events, the
# double (unmounted), any session a record left (reset), the temporary directory
# (ATAG_DEMO_KEEP=1 keeps it, with the trace.dat). Needs root, tracefs, /dev/fuse,
# uprobes, x86-64 and trace-cmd. While it runs it holds the lock the test tiers take
# for the global alloc_tag event group (/tmp/atag-alloc_tag-uprobes.lock).

B=build
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	B=$1
	shift
fi
[ "${1:-}" = -- ] && shift
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$B" 2>/dev/null && pwd) || { echo "demo: no build directory: run make first" >&2; exit 1; }
LOCK=/tmp/atag-alloc_tag-uprobes.lock

die() { echo "demo: $*" >&2; exit 1; }

TFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ "$(id -u)" = 0 ] || die "needs root (a FUSE mount, uprobe events, tracefs instances): run it as root"
[ -n "$TFS" ] || die "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
[ "$(uname -m)" = x86_64 ] || die "the uprobe simulator is x86-64 only"
[ -c /dev/fuse ] || die "/dev/fuse is missing (modprobe fuse)"
[ -w "$TFS/uprobe_events" ] || die "$TFS/uprobe_events is not writable: this kernel lacks uprobe events"
command -v trace-cmd > /dev/null || die "trace-cmd is not installed (apt-get install trace-cmd)"
for p in trace-cmd-alloc-tag tests/progs/atag-fakeinfo tests/progs/atag-sim tests/progs/atag-await; do
	[ -x "$B/$p" ] || die "$B/$p is missing: run make first"
done

exec 9> "$LOCK"
if ! flock -n 9; then
	echo "demo: waiting for $LOCK (a test tier or another demo uses the alloc_tag events)" >&2
	flock -w 300 9 || die "$LOCK stayed locked for 5 minutes"
fi
if [ -e "$TFS/events/alloc_tag" ]; then
	die "$TFS/events/alloc_tag exists already (a kernel with the series, or someone's probes): not touching it"
fi

T=$(mktemp -d /tmp/atag-demo.XXXXXX) || exit 1
M=$T/allocinfo
FPID=
SIM_UP=

cleanup() {
	# once: not cut short by a second Ctrl-C, nor by a reader gone (| head)
	trap - EXIT
	trap '' INT TERM HUP PIPE
	cd /
	ls "$T/state"/*.state > /dev/null 2>&1 && "$B/trace-cmd-alloc-tag" reset > /dev/null 2>&1
	[ -n "$SIM_UP" ] && "$B/tests/progs/atag-sim" remove --force > /dev/null 2>&1
	if [ -n "$FPID" ]; then
		kill "$FPID" 2> /dev/null
		"$B/tests/progs/atag-await" -t 5 unmount "$M" || fusermount3 -uz "$M" 2> /dev/null
	fi
	if [ -n "${ATAG_DEMO_KEEP:-}" ]; then
		echo "demo: kept $T" >&2
	else
		rm -rf "$T"
	fi
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 141' PIPE

# say COMMAND...: print it as root would type it, then run it
say() {
	echo "# $*"
	"$@" 2>&1
}

echo "# export PATH=$B:$B/tests/progs:\$PATH"
export PATH="$B:$B/tests/progs:$PATH"
echo "# export TRACEEVENT_PLUGIN_DIR=$B/plugins"
export TRACEEVENT_PLUGIN_DIR="$B/plugins"
echo "# export ATAG_STATE_DIR=$T/state"
export ATAG_STATE_DIR="$T/state"
export LC_ALL=C

echo "# mkdir $M"
mkdir -p "$M"
echo "# atag-fakeinfo tests/data/allocinfo.txt $M &"
atag-fakeinfo "$SRC/tests/data/allocinfo.txt" "$M" > "$T/fakeinfo.log" 2>&1 9>&- &
FPID=$!
atag-await -t 5 -p "$FPID" mount "$M" ||
	die "the allocinfo double did not come up: $(tail -n 1 "$T/fakeinfo.log")"
echo "# export ATAG_ALLOCINFO=$M/allocinfo"
export ATAG_ALLOCINFO="$M/allocinfo"
SIM_UP=1
say atag-sim install || die "atag-sim install failed"

cd "$T" || exit 1
if [ $# -gt 0 ]; then
	"$@" 2>&1
	exit
fi

set -e
say trace-cmd-alloc-tag list -n 4
say trace-cmd-alloc-tag enable --dry-run --module ext4
say trace-cmd-alloc-tag record --module ext4 -o ext4.dat -- atag-sim run -r 3
say trace-cmd-alloc-tag list --traced
say trace-cmd-alloc-tag report ext4.dat
echo "# trace-cmd report -i ext4.dat | grep -m 3 ' alloc_tag_[a-z_]*:'"
trace-cmd report -i ext4.dat | grep -m 3 ' alloc_tag_[a-z_]*:'
say trace-cmd-alloc-tag enable --function __d_alloc
say trace-cmd-alloc-tag disable --function __d_alloc
echo "demo: done; undoing the uprobe events and the double"
