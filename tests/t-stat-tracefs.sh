#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: live
# stat on this machine's real tracefs, as root: two instances of our own with known
# sizes (unique names with our pid), every figure the tool reports checked against
# what we wrote and what the kernel files say; the instances are removed at exit,
# also on failure. Nothing else in tracefs is changed.
. "$(dirname "$0")/lib.sh"

TFS=$(tracefs_dir)
if ! is_root; then
	skip "stat on the real tracefs" "not root: tracefs needs root"
	done_testing; exit
fi
if [ -z "$TFS" ]; then
	skip "stat on the real tracefs" \
		"tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
	done_testing; exit
fi

A=atag-stat-$$-a
B=atag-stat-$$-b
IA=$TFS/instances/$A
IB=$TFS/instances/$B
at_exit "rmdir '$IA' '$IB'"
mkdir "$IA" "$IB" || { fail "create instances $A and $B"; done_testing; exit; }

# A: 2048 KiB per CPU, 4 KiB sub-buffers. B: 8 KiB sub-buffers, then 1024 KiB.
echo 2048 > "$IA/buffer_size_kb"
SUBB=4
if [ -e "$IB/buffer_subbuf_size_kb" ] && echo 8 > "$IB/buffer_subbuf_size_kb" 2>/dev/null; then
	SUBB=8
fi
echo 1024 > "$IB/buffer_size_kb"
echo 0 > "$IB/tracing_on"
# three 3000-byte markers into A on CPU 0 (nothing else writes into our instance)
m=$(printf '%3000s' '' | tr ' ' x)
taskset -c 0 sh -c "for i in 1 2 3; do echo $m > '$IA/trace_marker'; done"

NCPU=$(ls -d "$IA"/per_cpu/cpu* | wc -l)
HDR=$(sed -n 's/.*field: char data;[[:space:]]*offset:\([0-9]*\);.*/\1/p' "$TFS/events/header_page")
: "${HDR:=16}"

# memory per CPU from what we wrote: (ceil(KiB * 1024 / (sub-buffer - header)) + 1) sub-buffers
mem_kb() { # mem_kb WRITTEN_KB SUBBUF_KB
	awk -v kb="$1" -v sb="$2" -v h="$HDR" 'BEGIN {
		d = sb * 1024 - h; n = int((kb * 1024 + d - 1) / d); if (n < 2) n = 2
		print (n + 1) * sb }'
}
MEM_A=$(mem_kb 2048 4)
MEM_B=$(mem_kb 1024 "$SUBB")

before=$(cat "$IA/buffer_size_kb" "$IA/tracing_on" "$IB/buffer_size_kb" "$IB/tracing_on" \
	"$IA/per_cpu/cpu0/stats" | grep -v '^now ts')

"$ATAG_CMD" stat -B "$A" -B "$B" --format json > "$T_TMP/ab.json" 2> "$T_TMP/err"; rc=$?
check_eq "stat -B ours: exit 0, nothing on stderr" "$rc:$(cat "$T_TMP/err")" "0:"

# the kernel's own files, in the shape of the tool's JSON
kernel_view() { # kernel_view DIR
	d=$1
	printf '[%s,%s,%s,%s,[' "$(cat "$d/buffer_size_kb")" "$(cat "$d/buffer_total_size_kb")" \
		"$(cat "$d/buffer_subbuf_size_kb" 2>/dev/null || echo null)" \
		"$( [ "$(cat "$d/tracing_on")" = 1 ] && echo true || echo false)"
	sep=
	for c in $(ls "$d/per_cpu" | sed 's/cpu//' | sort -n); do
		s=$d/per_cpu/cpu$c/stats
		v() { awk -F': *' -v k="$1" '$1 == k { print $2 }' "$s"; }
		printf '%s[%s,%s,%s,%s,%s,%s,%s,"%s"]' "$sep" "$c" \
			"$(cat "$d/per_cpu/cpu$c/buffer_size_kb")" \
			"$(v entries)" "$(v overrun)" "$(v bytes)" "$(v 'dropped events')" \
			"$(v 'read events')" "$(v 'oldest event ts' | tr -d ' ')"
		sep=,
	done
	printf ']]\n'
}
tool_view='[.buffer_size_kb, .buffer_total_size_kb, .subbuf_size_kb, .tracing_on,
	[.cpus[] | [.cpu, .buffer_size_kb, .entries, .overrun, .bytes, .dropped_events,
		.read_events, .oldest_ts]]]'
check_eq "instance A: every figure as the kernel files say" \
	"$(jq -c ".instances[0] | $tool_view" "$T_TMP/ab.json")" "$(kernel_view "$IA")"
check_eq "instance B: every figure as the kernel files say" \
	"$(jq -c ".instances[1] | $tool_view" "$T_TMP/ab.json")" "$(kernel_view "$IB")"

check_eq "A: what we wrote, as the tool reports it" \
	"$(jq -c '.instances[0] | [.name, .subbuf_size_kb, .tracing_on, .persistent, .memory_kind,
		.memory_kb, ([.cpus[].entries] | add), .cpus[0].entries]' "$T_TMP/ab.json")" \
	"[\"$A\",4,true,false,\"system\",$((MEM_A * NCPU)),3,3]"
check_eq "A: buffer_size_kb is the data size of those sub-buffers" \
	"$(cat "$IA/buffer_size_kb")" \
	"$(awk -v m="$MEM_A" -v h="$HDR" 'BEGIN { print int((m / 4 - 1) * (4096 - h) / 1024) }')"
check_eq "B: what we wrote, as the tool reports it" \
	"$(jq -c '.instances[1] | [.name, .subbuf_size_kb, .tracing_on, .memory_kb,
		([.cpus[].memory_kb] | unique), ([.cpus[].entries] | add)]' "$T_TMP/ab.json")" \
	"[\"$B\",$SUBB,false,$((MEM_B * NCPU)),[$MEM_B],0]"
[ "$SUBB" = 8 ] ||
	skip "B with 8 KiB sub-buffers" "buffer_subbuf_size_kb not writable on this kernel"

fill=$(awk -F': *' '$1 == "bytes" { b = $2 } END { printf "%.1f", b * 100 / (kb * 1024) }' \
	kb="$(cat "$IA/per_cpu/cpu0/buffer_size_kb")" "$IA/per_cpu/cpu0/stats")
check_eq "A: fill rate of cpu0 from its bytes" \
	"$(jq -r '.instances[0].cpus[0].fill_percent | . * 10 | round / 10 | tostring' \
		"$T_TMP/ab.json")" \
	"$(echo "$fill" | sed 's/\.0$//')"
check_eq "A: now ts is after the oldest event" \
	"$(jq -r '.instances[0].cpus[0] | (.now_ts | tonumber) >= (.oldest_ts | tonumber)' \
		"$T_TMP/ab.json")" true

if [ -e "$IA/snapshot" ]; then
	echo 1 > "$IA/snapshot"
	"$ATAG_CMD" stat -B "$A" --format json > "$T_TMP/snap.json"
	check_eq "A: snapshot allocated, the size of its buffer" \
		"$(jq -c '.instances[0] | [.snapshot.state, .snapshot.size_kb == .memory_kb]' \
			"$T_TMP/snap.json")" \
		'["allocated",true]'
	echo 0 > "$IA/snapshot"
else
	check_eq "A: no snapshot file, so no snapshot buffer" \
		"$(jq -c '[.instances[0].snapshot.state, .instances[0].snapshot.size_kb]' \
			"$T_TMP/ab.json")" \
		'["unsupported",0]'
	skip "snapshot allocation on the real tracefs" \
		"CONFIG_TRACER_SNAPSHOT is not set on this kernel; the VM tier and the fake trees test it"
fi

# text: human-readable, per-CPU size as the kernel says it
"$ATAG_CMD" stat -B "$A" > "$T_TMP/a.txt"
check_grep "text: instance header" "^Instance: $A\$" "$T_TMP/a.txt"
check_grep "text: per-CPU size in MiB" '^  buffer size +2\.00 MiB per CPU' "$T_TMP/a.txt"
check_grep "text: cpu0 row with our three events" \
	"^ +0 +2\.00 MiB +2\.01 MiB +3 +0 " "$T_TMP/a.txt"

# everything: the top buffer as its files say, the totals add up
"$ATAG_CMD" stat --format json > "$T_TMP/all.json" 2> "$T_TMP/err"; rc=$?
check_eq "stat: exit 0" "$rc:$(cat "$T_TMP/err")" "0:"
top=$(cat "$TFS/buffer_size_kb")
case "$top" in
*expanded*)	want="[$(echo "$top" | sed 's/ (expanded: /,/; s/)//')]" ;;
*)		want="[$top,null]" ;;
esac
check_eq "top buffer: size and expansion as buffer_size_kb says ($top)" \
	"$(jq -c '.instances[0] | [.buffer_size_kb, .expanded_kb]' "$T_TMP/all.json")" "$want"
check_eq "top buffer: per-CPU sizes as the kernel files say" \
	"$(jq -c '[.instances[0].cpus[] | .buffer_size_kb] | sort' "$T_TMP/all.json")" \
	"[$(cat "$TFS"/per_cpu/cpu*/buffer_size_kb | sort -n | paste -sd, -)]"
check_eq "stat: our instances are listed" \
	"$(jq -c "[.instances[] | select(.name == \"$A\" or .name == \"$B\") | .memory_kb]" \
		"$T_TMP/all.json")" \
	"[$((MEM_A * NCPU)),$((MEM_B * NCPU))]"
# as trace_stats v5 counts: global has the temp_buffer (3 pages on each CPU of the
# top buffer), total_system has the remotes, total_carveout is the persistents
check_eq "stat: the totals add up" \
	"$(jq -c '.aggregate.computed as $c | [$c.global == .instances[0].memory_kb + .aggregate.temp_buffer_kb,
		.aggregate.temp_buffer_kb == 3 * .page_size_kb * '"$NCPU"',
		$c.total_system == $c.global + $c.instances + $c.snapshots + $c.remotes,
		$c.total_carveout == $c.persistents,
		$c.instances >= '"$(( (MEM_A + MEM_B) * NCPU ))"']' "$T_TMP/all.json")" \
	'[true,true,true,true,true]'
if [ -e "$TFS/trace_stats/memory_usage_kb" ]; then
	skip "no trace_stats here: marked computed" "this kernel has trace_stats/memory_usage_kb"
else
	check_eq "no trace_stats here: kernel figures null" \
		"$(jq -c '.aggregate.kernel' "$T_TMP/all.json")" null
	"$ATAG_CMD" stat > "$T_TMP/all.txt"
	check_grep "no trace_stats here: totals marked computed" \
		'^Totals, computed from the per-buffer files' \
		"$T_TMP/all.txt"
	case "$top" in
	*expanded*) check_grep "text: the unexpanded top buffer as the kernel writes it" \
		"^  not expanded +buffer_size_kb \"$(echo "$top" | sed 's/[()]/\\&/g')\": " \
		"$T_TMP/all.txt" ;;
	esac
fi

after=$(cat "$IA/buffer_size_kb" "$IA/tracing_on" "$IB/buffer_size_kb" "$IB/tracing_on" \
	"$IA/per_cpu/cpu0/stats" | grep -v '^now ts')
check_eq "stat changed nothing in our instances" "$after" "$before"

# errors: not root, no tracefs mounted
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ATAG_CMD" stat --tracefs "$TFS" \
		> "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	check_eq "not root: exit 1, one line saying root is needed" "$rc:$(cat "$T_TMP/err")" \
		"1:trace-cmd-alloc-tag: cannot read $TFS/buffer_size_kb: Permission denied; reading tracefs needs root"
else
	skip "not root: says root is needed" "setpriv cannot drop to nobody here"
fi
# in a private mount namespace, with every tracefs mount taken away
if unshare -m true 2>/dev/null; then
	unshare -m sh -c '
		for m in $(awk "\$3 == \"tracefs\" { print \$2 }" /proc/mounts | sort -r); do
			umount "$m" || exit 3
		done
		exec "$0" stat' "$ATAG_CMD" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	check_eq "no tracefs mounted: exit 1, says how to mount it" "$rc:$(cat "$T_TMP/err")" \
		"1:trace-cmd-alloc-tag: tracefs is not mounted; mount it with: mount -t tracefs nodev /sys/kernel/tracing"
	check_eq "still mounted outside the namespace" "$(tracefs_dir)" "$TFS"
else
	skip "no tracefs mounted: says how to mount it" "unshare -m is not allowed here"
fi

rmdir "$IA" "$IB"
check_eq "our instances are gone" "$(ls -d "$IA" "$IB" 2>/dev/null)" ""

done_testing
