#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Record the benchmark's alloc_tag trace on the VM tier's kernel (make bench
# measures report on it).
#
#   tests/vm/record-bench.sh BUILD_DIR OUT      as root
#
# Boots the test kernel like `make check-vm`, but runs tests/vm/guest-bench.sh in
# the guest instead of the checks (the results share BUILD_DIR/tests/vm/share is
# replaced, as by a check-vm run), and copies the trace it wrote to OUT. Needs
# what the VM tier needs (scripts/deps.sh --vm), the project built in BUILD_DIR
# and the same environment variables.
set -eu

SRC=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:?usage: $0 BUILD_DIR OUT}
OUT=${2:?usage: $0 BUILD_DIR OUT}
case "$B" in /*) ;; *) B=$(pwd)/$B ;; esac

[ "$(id -u)" = 0 ] || { echo "record-bench: run as root (QEMU shares the host's / with the guest)" >&2; exit 1; }
ATAG_VM_SCRIPT=$SRC/tests/vm/guest-bench.sh "$SRC/tests/vm/run-vm-tests.sh" "$B"
t=$B/tests/vm/share/bench-alloc-tag.dat
[ -s "$t" ] || { echo "record-bench: the guest wrote no $t" >&2; exit 1; }
cp "$t" "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
echo "record-bench: wrote $OUT, $(wc -c <"$OUT") bytes"
