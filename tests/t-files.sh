#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The files the commands read and write, when they are not what they should be:
# inputs that are FIFOs, devices or far too large (read without blocking, under a
# size limit that says so), outputs where a link or a device already is. One test per
# defect of issue 26 (items 4 and 5); each failed before the fix. No root needed.
. "$(dirname "$0")/lib.sh"

C=$ATAG_CMD
E="trace-cmd-alloc-tag:"
NOTREG="not a regular file (a FIFO, a device or a socket)"
mkfixture -o "$T_TMP/lt.dat" "$ATAG_SRC/tests/data/lifetimes.txt" || fail "lifetimes fixture"
cd "$T_TMP" || exit 1

# run_in NAME CMD...: CMD's status and stderr within 10 s (124: it hung)
run_in() {
	timeout 10 "$@" > /dev/null 2> err < /dev/null
}

# ------------------------------------------------------------------ 26.4: inputs
mkfifo fifo
run_in "$C" report fifo
check_eq "26.4 report FIFO: refused at once" "$?:$(cat err)" "1:$E fifo: $NOTREG"
run_in "$C" report --vmlinux fifo lt.dat
check_eq "26.4 report --vmlinux FIFO: refused at once" "$?:$(cat err)" \
	"1:$E lt.dat: fifo: $NOTREG"
run_in "$C" list --allocinfo fifo
check_eq "26.4 list --allocinfo FIFO: refused at once" "$?:$(cat err)" "1:$E fifo: $NOTREG"
run_in "$C" list --allocinfo /dev/zero
check_eq "26.4 list --allocinfo /dev/zero: refused, not read" "$?:$(cat err)" \
	"1:$E /dev/zero: $NOTREG"
# a regular file of 300 MiB (sparse): read up to the limit, then said
truncate -s 300M big
run_in "$C" list --allocinfo big
check_eq "26.4 list --allocinfo of 300 MiB: the size limit said" "$?:$(cat err)" \
	"1:$E big: cannot list the tags: larger than 256 MiB: not read"

# stat --tracefs DIR: a FIFO where a tracefs file should be
mkdir -p tfs/instances tfs/per_cpu/cpu0
echo 7 > tfs/buffer_size_kb
mkfifo tfs/per_cpu/cpu0/stats
run_in "$C" stat --tracefs tfs
check_eq "26.4 stat --tracefs DIR with a FIFO inside: refused at once" "$?:$(cat err)" \
	"1:$E tfs/per_cpu/cpu0/stats: $NOTREG"
rm tfs/buffer_size_kb
mkfifo tfs/buffer_size_kb
run_in "$C" stat --tracefs tfs
check_eq "26.4 stat --tracefs DIR whose buffer_size_kb is a FIFO: refused at once" \
	"$?:$(cat err)" "1:$E tfs/buffer_size_kb: $NOTREG"

# reset: state files that are a FIFO, a link to /dev/zero, 300 MiB; none touches tracefs
mkdir -m 700 state
mkfifo state/record-1.state
ln -s /dev/zero state/record-2.state
truncate -s 300M state/record-3.state
ATAG_STATE_DIR=$T_TMP/state run_in "$C" reset
check_eq "26.4 reset: a FIFO, /dev/zero and 300 MiB state files refused, each said" \
	"$?:$(cat err)" "1:$E $T_TMP/state/record-1.state: $NOTREG: left alone
$E $T_TMP/state/record-2.state: $NOTREG: left alone
$E $T_TMP/state/record-3.state: larger than 256 MiB: not read: left alone"
check_eq "26.4 reset: the files refused are left as they were" \
	"$(ls -l state | awk 'NR > 1 { print substr($1, 1, 1), $NF }' | tr '\n' ' ')" \
	"p record-1.state l /dev/zero - record-3.state "

done_testing
