#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tracefs-state.sh: the top-level tracing settings of this machine, one per line,
# so that two snapshots compare with diff: tracing_on, current_tracer, trace_clock,
# buffer_size_kb, tracing_cpumask, the events enabled at the top level (set_event,
# set_event_pid, events/enable) and every option (trace_options). Triggers and
# filters of single events are not read: thousands of files, minutes.
# tests/run-tests.sh takes one snapshot before the tiers and one after: the suite
# must leave them as it found them.
# Exits 2 (and prints why) when there is no tracefs to read.
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$T" ] && [ -r "$T/tracing_on" ] || { echo "no readable tracefs"; exit 2; }
for f in tracing_on current_tracer trace_clock buffer_size_kb tracing_cpumask \
	 set_event set_event_pid events/enable trace_options; do
	[ -r "$T/$f" ] || continue
	sed "s|^|$f: |" "$T/$f"
done
exit 0
