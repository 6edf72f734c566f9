#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Record the bundled sample trace, tests/data/sample.dat (what `make run`
# reports on), on the VM tier's kernel with the project's own record.
#
#   tests/vm/record-sample.sh [BUILD_DIR]      as root; BUILD_DIR default build
#
# Builds the project (make build-all) and boots the test kernel like
# `make check-vm`, but runs tests/vm/guest-sample.sh in the guest instead of the
# checks (the results share BUILD_DIR/tests/vm/share is replaced, as by a
# check-vm run).  The trace is copied out to tests/data/sample.dat.  Needs what
# the VM tier needs (scripts/deps.sh --vm) and the same environment variables.
set -eu

SRC=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-build}
case "$B" in /*) ;; *) B=$SRC/$B ;; esac

[ "$(id -u)" = 0 ] || { echo "record-sample: run as root (QEMU shares the host's / with the guest)" >&2; exit 1; }
nice make -C "$SRC" --no-print-directory O="$B" build-all >/dev/null
ATAG_VM_SCRIPT=$SRC/tests/vm/guest-sample.sh "$SRC/tests/vm/run-vm-tests.sh" "$B"
out=$B/tests/vm/share/sample.dat
[ -s "$out" ] || { echo "record-sample: the guest wrote no $out" >&2; exit 1; }
cp "$out" "$SRC/tests/data/sample.dat"
echo "record-sample: wrote tests/data/sample.dat, $(wc -c <"$SRC/tests/data/sample.dat") bytes"
"$SRC/scripts/run-sample.sh" "$B" "$SRC/tests/data/sample.dat"
