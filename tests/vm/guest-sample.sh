#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Records the bundled sample trace in the VM (run by tests/vm/record-sample.sh
# through run-vm-tests.sh, ATAG_VM_SCRIPT).  It records with the project's own
# `record --traced` while a shell loop works: the test module's call sites are
# traced from the start, those of pipes, fork, exec and tmpfs files are turned
# on by the workload once recording runs, so that the recorder's own start-up
# (its processes, pipes and files) is not in the sample.  Some of the memory is
# freed, some still held at the end (the module's last allocations, the files
# left in place).  A split page and a migrated one (its target untraced) are
# freed half-way and another of each held, so that the sample has the unmatched
# and partial frees such pages leave.  The trace is written to $ATAG_VM_RESULTS/sample.dat (on the
# 9p share, not on tmpfs, so that trace-cmd's own file pages are not traced),
# its report to logs/record-sample.log.
set -u

# shellcheck source=tests/vm/guest-lib.sh
. "$ATAG_VM_SRC/tests/vm/guest-lib.sh"

C=$ATAG_VM_BUILD/trace-cmd-alloc-tag
S=/tmp/atag-sample

# the workload (sh workload.sh COMMAND): more call sites traced, then 12 rounds
# of module allocations, a file written, read through a pipeline of two programs,
# every third file removed again
write_workload() {
	cat >"$S/workload.sh" <<-'EOF'
	for f in "--file fs/pipe.c" "--function alloc_bprm" "--file kernel/fork.c" \
		"--function alloc_empty_file" "--function __d_alloc" "--function shmem_alloc_*"; do
		"$1" enable $f >/dev/null || exit 1
	done
	ATP=/proc/atag_test
	D=/tmp/atag-sample/files
	i=0
	while [ $i -lt 12 ]; do
		echo "slab 192 2" >$ATP
		[ $((i % 4)) = 0 ] && echo "page 1 1" >$ATP
		[ $i = 2 ] && echo "split 2 1" >$ATP && echo "migrate 0 1" >$ATP
		printf 'round %d\n' $i >"$D/log.$i"
		sort "$D/log.$i" | uniq -c >/dev/null
		[ $((i % 3)) = 0 ] && rm "$D/log.$i"
		[ $i = 5 ] && echo free >$ATP
		i=$((i + 1))
	done
	echo "percpu 4096 2" >$ATP
	echo "large 32768 1" >$ATP
	echo "split 2 1" >$ATP
	echo "migrate 0 1" >$ATP
	EOF
}

t_sample() {
	rm -rf "$S"
	mkdir -p "$S/files"
	write_workload
	out=$ATAG_VM_RESULTS/sample.dat
	rm -f "$out"
	"$C" enable --module atag_test || return 1
	# the migration target untraced, as the kernel's own targets are: the
	# migrated page's free comes unmatched, its record stays (report says so)
	"$C" disable --function atag_test_migration_target_alloc >/dev/null || return 1
	"$C" record --traced -b 4096 -o "$out" -- sh "$S/workload.sh" "$C"
	rc=$?
	"$C" list --traced
	"$C" disable --all >/dev/null
	echo free >/proc/atag_test
	[ $rc = 0 ] || return 1
	cp "$out" "$S/sample.dat"
	"$C" report -n 10 --live --no-progress "$S/sample.dat" >"$S/report.txt"
	rc=$?
	cat "$S/report.txt"
	[ $rc = 0 ] && grep -q '^data  *complete$' "$S/report.txt"
}

echo "atag-vm: recording the sample trace on $(uname -r)"
run_test module-load "$PROBE" modload "$KO"
run_test record-sample t_sample
run_test module-unload "$PROBE" modunload
finish
