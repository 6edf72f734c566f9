#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A stand-in for `trace-cmd record -d -k -B INSTANCE [-b KB] -e EVENT... -o FILE` that
# never reads the buffer: it sets up the instance like trace-cmd, switches it on, waits
# for SIGINT (in wait, which a trapped signal ends at once), and then writes FILE: a
# trace.dat holding the instance's buffer, empty (atag-mkfixture; $ATAG_MKFIXTURE), or
# without it a line saying it is none. With a small buffer the kernel overwrites events,
# so record's lost-event report can be tested (ATAG_TRACE_CMD=tests/fake-trace-cmd.sh).
# With FAKE_TC_FDS set, it first writes the numbers of its open files there; with
# FAKE_TC_STARTUP=N, it ignores SIGINT for its first N seconds (a trace-cmd that misses
# the first SIGINT while it sets up). Its readers hold each CPU's trace_pipe_raw open,
# as trace-cmd's do; with FAKE_TC_LATE_READERS set to a file, they open them 0.3 s
# after tracing_on is switched on (trace-cmd switches it on once it forked its
# readers, not once they run) and then create that file.
[ -n "$FAKE_TC_FDS" ] && ls /proc/$$/fd > "$FAKE_TC_FDS"
TFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
inst= kb= events= out=trace.dat
while [ $# -gt 0 ]; do
	case $1 in
	-B) inst=$2; shift ;;
	-b) kb=$2; shift ;;
	-e) events="$events $2"; shift ;;
	-o) out=$2; shift ;;
	esac
	shift
done
if [ -n "$FAKE_TC_STARTUP" ]; then
	trap '' INT
	sleep "$FAKE_TC_STARTUP"
fi
I=$TFS/instances/$inst
[ -d "$I" ] || { echo "fake-trace-cmd: no instance $inst" >&2; exit 1; }
[ -n "$kb" ] && echo "$kb" > "$I/buffer_size_kb"
for e in $events; do
	echo 1 > "$I/events/${e%%:*}/${e#*:}/enable" || exit 1
done
readers() {
	for c in "$I"/per_cpu/cpu*; do
		sleep 1000000 < "$c/trace_pipe_raw" &
		idle="$idle $!"
	done
}
write_out() {
	if [ -n "$ATAG_MKFIXTURE" ]; then
		echo "buffer $inst" | "$ATAG_MKFIXTURE" -o "$out" -
	else
		echo "fake-trace-cmd: not a trace.dat" > "$out"
	fi
}
idle=
trap 'kill $idle; wait; write_out; exit 0' INT
if [ -n "$FAKE_TC_LATE_READERS" ]; then
	echo 1 > "$I/tracing_on"
	sleep 0.3
	readers
	: > "$FAKE_TC_LATE_READERS"
else
	readers
	echo 1 > "$I/tracing_on"
fi
wait
