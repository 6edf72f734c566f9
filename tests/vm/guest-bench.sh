#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Records the benchmark's alloc_tag trace in the VM (run by tests/vm/record-bench.sh
# through run-vm-tests.sh, ATAG_VM_SCRIPT): `record --traced` with the default sampled
# stacks, the test module's call sites and those of pipes, fork, exec, files and
# dentries traced, while a shell loop has the module allocate and free slab objects
# and pages by the hundred thousand and writes, sorts and removes files. (`record --all` on
# TCG traced trace-cmd's own writing faster than it wrote: its stop timed out.) The
# trace is written to $ATAG_VM_RESULTS/bench-alloc-tag.dat (on the 9p share, not on
# tmpfs, so that trace-cmd's own file pages are not traced).
set -u

# shellcheck source=tests/vm/guest-lib.sh
. "$ATAG_VM_SRC/tests/vm/guest-lib.sh"

C=$ATAG_VM_BUILD/trace-cmd-alloc-tag
S=/tmp/atag-bench

t_bench() {
	rm -rf "$S"
	mkdir -p "$S/files"
	cat >"$S/workload.sh" <<-'EOW'
	ATP=/proc/atag_test
	D=/tmp/atag-bench/files
	i=0
	while [ $i -lt 800 ]; do
		echo "slab 192 200" >$ATP
		echo "slab 64 50" >$ATP
		[ $((i % 4)) = 0 ] && echo "page 0 4" >$ATP
		printf 'round %d\n' $i >"$D/f.$i"
		sort "$D/f.$i" | uniq -c >/dev/null
		[ $((i % 2)) = 0 ] && rm "$D/f.$i"
		echo free >$ATP
		i=$((i + 1))
	done
	EOW
	out=$ATAG_VM_RESULTS/bench-alloc-tag.dat
	rm -f "$out"
	"$C" enable --module atag_test >/dev/null || return 1
	for f in "--file fs/pipe.c" "--function alloc_bprm" "--file kernel/fork.c" \
		"--function alloc_empty_file" "--function __d_alloc"; do
		"$C" enable $f >/dev/null || return 1
	done
	"$C" record --traced -b 8192 -o "$out" -- sh "$S/workload.sh"
	rc=$?
	"$C" disable --all >/dev/null
	echo free >/proc/atag_test
	[ $rc = 0 ] || return 1
	"$C" report -n 5 --no-progress "$out"
}

echo "atag-vm: recording the benchmark's alloc_tag trace on $(uname -r)"
run_test module-load "$PROBE" modload "$KO"
run_test record-bench t_bench
run_test module-unload "$PROBE" modunload
finish
