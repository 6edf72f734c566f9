#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The checks run inside the VM, as root, chrooted into the host's root file
# system (read-only; /tmp and /run are tmpfs).  Started by the run.sh that
# tests/vm/run-vm-tests.sh writes into the results share, with:
#
#   ATAG_VM_SRC      the checkout                 ATAG_VM_BUILD   the build directory
#   ATAG_VM_PROBE    the atag-vm-probe binary     ATAG_VM_MODULE  atag_test.ko
#   ATAG_VM_RESULTS  the rw results share: results.txt gets "PASS|FAIL|SKIP name [reason]"
#                    lines and logs/NAME.log the output of each test
#
# To add a test: write a function (or use a command line) and call
#   run_test NAME COMMAND [ARGS...]
# (guest-lib.sh).  Its exit status decides: 0 passed, 77 skipped, anything
# else failed.  After every test the kernel state is checked: no tag left
# traced, no tracefs instance left besides those present at boot.  Phase 1
# checks the kernel's interfaces with the probe (atag-vm-probe.c), phase 2
# the project's commands (guest-commands.sh).
set -u

# shellcheck source=tests/vm/guest-lib.sh
. "$ATAG_VM_SRC/tests/vm/guest-lib.sh"

# ------------------------------------------------------------------ tests

# shellcheck source=tests/vm/guest-commands.sh
. "$ATAG_VM_SRC/tests/vm/guest-commands.sh"

t_interfaces() {
	ok=0
	echo "kernel: $(uname -r)"
	for f in /proc/allocinfo "$T/events/alloc_tag/alloc_tag_hit" \
		 "$T/events/alloc_tag/alloc_tag_mem_alloced" "$T/events/alloc_tag/alloc_tag_mem_freed" \
		 "$T/trace_stats/memory_usage_kb"; do
		if [ -e "$f" ]; then echo "ok - $f"; else echo "not ok - $f missing"; ok=1; fi
	done
	echo "vm.mem_profiling = $(cat /proc/sys/vm/mem_profiling)"
	[ "$(cat /proc/sys/vm/mem_profiling)" = 1 ] || ok=1
	return $ok
}

# memory_usage_kb against the buffer files while instances and snapshots change
t_memusage() {
	co=0
	for arg in $(cat /proc/cmdline); do
		case "$arg" in
		reserve_mem=*)
			size=${arg#reserve_mem=}
			size=${size%%:*}
			case "$size" in
			*M) co=$((${size%M} * 1024)) ;;
			*K) co=${size%K} ;;
			*) co=$((size / 1024)) ;;
			esac ;;
		esac
	done
	echo "carve-out from the command line: $co KiB"
	ncpu=$(ls -d "$T"/per_cpu/cpu* | wc -l)
	a=$T/instances/atag-vm-a
	b=$T/instances/atag-vm-b
	get() {
		while read -r k v; do
			[ "$k" = "$1:" ] && echo "$v"
		done <"$T/trace_stats/memory_usage_kb"
	}
	fails=0
	step() {
		echo "## $* (uptime $(uptime) s)"
		"$PROBE" memusage "$co" || fails=$((fails + 1))
	}
	step "at boot"
	i0=$(get instances)
	s0=$(get snapshots)
	mkdir "$a" && echo 512 >"$a/buffer_size_kb"
	step "instance a, 512 KiB per CPU"
	# by hand: 512 KiB of 4080-byte pages = 129 sub-buffers + 1 reader page, per CPU
	want=$(( (129 + 1) * 4 * ncpu ))
	got=$(( $(get instances) - i0 ))
	if [ "$got" = "$want" ]; then echo "ok - instances grew by $got KiB"
	else echo "not ok - instances grew by $got KiB, want $want"; fails=$((fails + 1)); fi
	got=$(( $(get snapshots) - s0 ))
	want=$(( 3 * 4 * ncpu ))
	if [ "$got" = "$want" ]; then echo "ok - snapshots grew by $got KiB (unallocated snapshot buffer)"
	else echo "not ok - snapshots grew by $got KiB, want $want"; fails=$((fails + 1)); fi
	mkdir "$b" && echo 100 >"$b/buffer_size_kb" && echo 8 >"$b/buffer_subbuf_size_kb"
	step "instance b, 100 KiB per CPU in 8 KiB sub-buffers"
	echo 1 >"$a/snapshot"
	step "snapshot of a allocated"
	echo 1024 >"$a/buffer_size_kb"
	step "a resized to 1024 KiB, with its snapshot"
	echo 0 >"$a/snapshot"
	step "snapshot of a freed"
	echo 1 >"$T/snapshot"
	step "top level snapshot allocated"
	echo 0 >"$T/snapshot"
	step "top level snapshot freed"
	rmdir "$a" "$b"
	step "instances removed"
	if [ "$(get instances)" = "$i0" ] && [ "$(get snapshots)" = "$s0" ]; then
		echo "ok - back to the boot values"
	else
		echo "not ok - not back to the boot values"; fails=$((fails + 1))
	fi
	[ $fails = 0 ]
}

# the kernel log must not have warnings, oopses or lockdep splats
t_kernel_log() {
	if ! command -v dmesg >/dev/null; then
		skip "no dmesg"
		return
	fi
	if [ -e /proc/lockdep_stats ]; then
		echo "lockdep is on: $(grep 'lock-classes:' /proc/lockdep_stats | tr -s ' ')"
	fi
	if dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|possible .*deadlock'; then
		echo "not ok - kernel log has warnings"
		dmesg | tail -n 80
		return 1
	fi
	echo "ok - kernel log clean"
}

echo "atag-vm: guest tests on $(uname -r), $(nproc) CPUs"
run_test interfaces t_interfaces
run_test event-formats "$PROBE" formats
run_test module-load "$PROBE" modload "$KO"
run_test ioctl "$PROBE" ioctl
run_test toggle-trace "$PROBE" toggle
run_test eperm-nonroot "$PROBE" eperm
run_test events-slab "$PROBE" events slab 100 3
run_test events-slab-longname "$PROBE" events long 40 2
run_test events-kmalloc-large "$PROBE" events large 20000 2
run_test events-page "$PROBE" events page 0 3
run_test events-page-order2 "$PROBE" events page 2 2
run_test events-split-page "$PROBE" events split 2 2
run_test events-pinned-page "$PROBE" events pinned 2 2
run_test events-migrate "$PROBE" events migrate 0 2
# 24 x 8 KiB per CPU: more than the first chunk holds (it is not accounted)
run_test events-percpu "$PROBE" events percpu 8192 24
run_test events-builtin-pipe "$PROBE" events-pipe
run_test hooks "$PROBE" hooks
run_test memory-usage t_memusage
run_test remote "$PROBE" remote
run_test content-id-modules "$PROBE" modules "$KO"
run_test module-unload "$PROBE" modunload
# Phase 2: the project's commands against this kernel (guest-commands.sh)
run_test cmd-module-load "$PROBE" modload "$KO"
run_test cmd-list-text t_cmd_list_text
run_test cmd-list-ioctl t_cmd_list_ioctl
run_test cmd-enable-disable t_cmd_enable
run_test cmd-errors t_cmd_errors
run_test cmd-record-module t_cmd_record_module
run_test cmd-plugin t_cmd_plugin
run_test cmd-record-pages t_cmd_record_pages
run_test cmd-record-stacks t_cmd_record_stacks
run_test cmd-record-pipe t_cmd_record_pipe
run_test cmd-record-kmem t_cmd_record_kmem
run_test cmd-record-sampled t_cmd_record_sampled
run_test cmd-record-complete t_cmd_record_complete
run_test cmd-record-old-frees t_cmd_record_old_frees
run_test cmd-record-signals t_cmd_record_signals
run_test cmd-stat t_cmd_stat
run_test cmd-stat-persistent t_cmd_stat_persistent
run_test cmd-profiling-off t_cmd_profiling_off
run_test cmd-top t_cmd_top
run_test cmd-leaks t_cmd_leaks
run_test cmd-diff t_cmd_diff
run_test cmd-module-unload "$PROBE" modunload
run_test kernel-log t_kernel_log

finish
