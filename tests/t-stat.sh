#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# stat on fake tracefs trees: what this machine's kernel lacks (trace_stats in both
# postings, persistent buffers, remotes, snapshots), malformed and missing files,
# the options. No root needed.
. "$(dirname "$0")/lib.sh"

# mk ROOT FILE TEXT...: write the lines TEXT to ROOT/FILE, making directories
mk() {
	mk_root=$1 mk_file=$2; shift 2
	mk_dir=$mk_root
	case $mk_file in */*) mk_dir=$mk_root/${mk_file%/*} ;; esac
	[ -d "$mk_dir" ] || mkdir -p "$mk_dir"
	printf '%s\n' "$@" > "$mk_root/$mk_file"
}

stats() { # stats ROOT DIR entries overrun bytes dropped read oldest now
	mk "$1" "$2/stats" "entries: $3" "overrun: $4" "commit overrun: 0" "bytes: $5" \
		"oldest event ts:   $8" "now ts:   $9" "dropped events: $6" "read events: $7"
}

header_page() {
	{
		printf '\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n'
		printf '\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n'
		printf '\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n'
		printf '\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n'
	} > "$1/events/header_page"
}

# A whole system, two CPUs, 4 KiB pages:
#   top   7 KiB not expanded (1408), snapshot freed      -> 24 KiB, snapshot 24 KiB
#   a     2051 KiB, snapshot allocated                   -> 4128 KiB, snapshot 4128 KiB
#   boot  persistent, buffer_meta 257 x 4096 per CPU      -> 2056 KiB carve-out
#   temp_buffer (in global): 3 pages per CPU              -> 24 KiB
#   remotes hypervisor 7 KiB loaded (16 KiB per CPU of its buffer, CPUs unknown:
#   its per_cpu/ lists every possible CPU, as the merged code has it), test
#   unloaded (0)
make_base() {
	t=$1
	mk "$t" buffer_size_kb "7 (expanded: 1408)"
	mk "$t" buffer_total_size_kb "14 (expanded: 2816)"
	mk "$t" buffer_subbuf_size_kb 4
	mk "$t" tracing_on 1
	mk "$t" available_tracers "function nop"
	mk "$t" snapshot "# tracer: nop" "#" "#" "# * Snapshot is freed *" "#" \
		"# Snapshot commands:"
	mkdir -p "$t/events"; header_page "$t"
	for c in 0 1; do
		mk "$t" per_cpu/cpu$c/buffer_size_kb 7
		stats "$t" per_cpu/cpu$c 0 0 0 0 0 0.000000 616.317050
	done
	a=$t/instances/a
	mk "$a" buffer_size_kb 2051
	mk "$a" buffer_total_size_kb 4102
	mk "$a" buffer_subbuf_size_kb 4
	mk "$a" tracing_on 0
	mk "$a" snapshot "# tracer: nop" "#" "#" "# * Snapshot is allocated *" "#"
	mk "$a" per_cpu/cpu0/buffer_size_kb 2051
	stats "$a" per_cpu/cpu0 3 0 1050112 1 2 723.330290 723.332085
	mk "$a" per_cpu/cpu1/buffer_size_kb 2051
	stats "$a" per_cpu/cpu1 9000 12 2100224 0 0 700.000001 723.332090
	b=$t/instances/boot
	mk "$b" buffer_size_kb 1023
	mk "$b" buffer_total_size_kb 2046
	mk "$b" buffer_subbuf_size_kb 4
	mk "$b" tracing_on 1
	mk "$b" last_boot_info "ffffffff81000000	[kernel]" \
		"ffffffffc0200000	virtio_net"
	for c in 0 1; do
		mk "$b" per_cpu/cpu$c/buffer_size_kb 1023
		stats "$b" per_cpu/cpu$c 0 0 0 0 0 0.000000 616.317050
		mk "$b" per_cpu/cpu$c/buffer_meta "head_buffer:   0" "commit_buffer: 0" \
			"subbuf_size:   4096" "nr_subbufs:    257" "buffer[0]:    0"
	done
	for r in hypervisor test; do
		mkdir -p "$t/remotes/$r/per_cpu/cpu0" "$t/remotes/$r/per_cpu/cpu1"
	done
	mk "$t" remotes/hypervisor/buffer_size_kb "7 (loaded)"
	mk "$t" remotes/hypervisor/tracing_on 1
	mk "$t" remotes/test/buffer_size_kb "7 (unloaded)"
	mk "$t" remotes/test/tracing_on 0
}

make_base "$T_TMP/base"
make_tree() { cp -R "$T_TMP/base" "$1"; }

# jq_eq NAME FILTER EXPECTED FILE: the checks on one file are batched into a single
# jq run (jq_flush), which keeps this script fast on a loaded machine. FILTER and
# EXPECTED may span lines; tabs and newlines are dropped from EXPECTED.
JQ_FILE=
jq_eq() {
	[ "$4" = "$JQ_FILE" ] || jq_flush
	JQ_FILE=$4
	printf '%s\n' "$1" >> "$T_TMP/jq.name"
	printf '%s\n' "$2" | tr '\n\t' '  ' >> "$T_TMP/jq.filter"
	echo >> "$T_TMP/jq.filter"
	printf '%s\n' "$3" | tr -d '\n\t' >> "$T_TMP/jq.want"
	echo >> "$T_TMP/jq.want"
}
jq_flush() {
	[ -n "$JQ_FILE" ] || return 0
	jq -c "$(awk '{ printf "%s(%s)", (NR > 1 ? ", " : ""), $0 }' "$T_TMP/jq.filter")" \
		"$JQ_FILE" > "$T_TMP/jq.out" 2> "$T_TMP/jq.err"
	n=0
	while IFS= read -r name; do
		n=$((n + 1))
		got=$(sed -n "${n}p" "$T_TMP/jq.out")$(cat "$T_TMP/jq.err")
		check_eq "$name" "$got" "$(sed -n "${n}p" "$T_TMP/jq.want")"
	done < "$T_TMP/jq.name"
	rm -f "$T_TMP/jq.name" "$T_TMP/jq.filter" "$T_TMP/jq.want"
	JQ_FILE=
}

stat_cmd() { "$ATAG_CMD" stat "$@"; }

# ---------------------------------------------------------------- split format (latest)
T=$T_TMP/v5
make_tree "$T"
# v5 2/4's rows; global has a cached read page per CPU that no file shows (8 KiB)
mk "$T" trace_stats/memory_usage_kb "global: 56" "instances: 4128" "snapshots: 4152" \
	"persistents: 2056" "remotes: 0" "total_system: 8336" "total_carveout: 2056" "future: x"

stat_cmd --tracefs "$T" --format json > "$T_TMP/v5.json"; rc=$?
check_eq "split: json exits 0" "$rc" 0
jq_eq "split: json is one document" 'type' '"object"' "$T_TMP/v5.json"
jq_eq "split: instances, top first" '[.instances[] | .name]' '[null,"a","boot"]' "$T_TMP/v5.json"
jq_eq "split: top buffer figures" \
	'.instances[0] | [.top, .buffer_size_kb, .expanded_kb, .buffer_total_size_kb,
		.subbuf_size_kb, .tracing_on, .memory_kb, .snapshot.state, .snapshot.size_kb]' \
	'[true,7,1408,14,4,true,24,"freed",24]' "$T_TMP/v5.json"
jq_eq "split: instance a figures" \
	'.instances[1] | [.buffer_size_kb, .expanded_kb, .buffer_total_size_kb, .tracing_on,
		.persistent, .memory_kind, .memory_kb, .snapshot.state, .snapshot.size_kb]' \
	'[2051,null,4102,false,false,"system",4128,"allocated",4128]' "$T_TMP/v5.json"
jq_eq "split: per-CPU stats of a, cpu0" \
	'.instances[1].cpus[0] | [.cpu, .buffer_size_kb, .memory_kb, .entries, .overrun, .bytes,
		.dropped_events, .read_events, .oldest_ts, .now_ts, .fill_percent]' \
	'[0,2051,2064,3,0,1050112,1,2,"723.330290","723.332085",50]' "$T_TMP/v5.json"
jq_eq "split: a full CPU fills 100%" \
	'.instances[1].cpus[1] | [.entries, .overrun, .fill_percent]' '[9000,12,100]' \
	"$T_TMP/v5.json"
jq_eq "split: persistent instance" \
	'.instances[2] | [.persistent, .memory_kind, .memory_kb, .snapshot.state,
		.snapshot.size_kb, .last_boot_info]' \
	'[true,"carveout",2056,"none",0,"ffffffff81000000\t[kernel]"]' "$T_TMP/v5.json"
# a loaded remote: its memory per CPU, on CPUs no file names; page allocator memory
jq_eq "split: remotes" \
	'[.remotes[] | [.name, .buffer_size_kb, .loaded, .tracing_on, .cpus, .memory_kind,
		.memory_per_cpu_kb, .memory_kb]]' \
	'[["hypervisor",7,true,true,null,"system",16,null],["test",7,false,false,null,"system",0,0]]' \
	"$T_TMP/v5.json"
# v5 2/4: temp_buffer in global; remotes in total_system (unknown while one is
# loaded), not in total_carveout = persistents
jq_eq "split: computed totals" \
	'[.aggregate.computed, .aggregate.temp_buffer_kb, .aggregate.total_system_without_remotes_kb]' \
	'[{"global":48,"instances":4128,"snapshots":4152,"persistents":2056,"remotes":null,
	"total_system":null,"total_carveout":2056,"buffers":6208,"snapshot_buffers":4152},24,8328]' \
	"$T_TMP/v5.json"
jq_eq "split: kernel figures, unknown line ignored" \
	'[.aggregate.kernel_format, .aggregate.kernel]' \
	'["split",{"global":56,"instances":4128,"snapshots":4152,"persistents":2056,"remotes":0,
	"total_system":8336,"total_carveout":2056}]' \
	"$T_TMP/v5.json"
jq_eq "split: differences, kernel minus computed; none where the computed figure is unknown" \
	'[.aggregate.differences[] | [.row, .computed_kb, .kernel_kb, .difference_kb]]' \
	'[["global",48,56,8]]' \
	"$T_TMP/v5.json"
jq_eq "split: why global differs" \
	'[.aggregate.differences[0].reasons[]
		| select(test("read page|not yet expanded|page rounding|metadata"))] | length' \
	4 "$T_TMP/v5.json"
jq_eq "split: why global differs: not the temp_buffer, which is computed" \
	'[.aggregate.differences[0].reasons[] | select(test("temp_buffer"))] | length' \
	0 "$T_TMP/v5.json"
jq_eq "split: the loaded remote's bounds and the known total in the notes" \
	'[.notes[] | select(test("^remotes/hypervisor: loaded, 16 KiB per CPU of its buffer, on 1 to 2 CPUs \\(16 to 32 KiB\\): no file says which CPUs") or test("^total_system without the loaded remotes: 8328 KiB$"))] | length' \
	2 "$T_TMP/v5.json"
jq_eq "split: no per-CPU kernel files" '.aggregate.kernel_per_cpu' '[]' "$T_TMP/v5.json"

stat_cmd --tracefs "$T" > "$T_TMP/v5.txt"; rc=$?
check_eq "split: text exits 0" "$rc" 0
check_grep "text: top buffer not yet expanded, as the kernel wrote it" \
	'^  not expanded +buffer_size_kb "7 \(expanded: 1408\)": 1\.37 MiB per CPU once tracing uses it$' \
	"$T_TMP/v5.txt"
check_grep "text: human-readable sizes" \
	'^  buffer size +2\.00 MiB per CPU, 4\.00 MiB total$' "$T_TMP/v5.txt"
check_grep "text: snapshot freed keeps the minimal spare" \
	'^  snapshot +freed; the minimal spare buffer remains: 24\.0 KiB$' "$T_TMP/v5.txt"
check_grep "text: snapshot allocated" '^  snapshot +allocated: 4\.03 MiB$' "$T_TMP/v5.txt"
check_grep "text: memory of a, with its snapshot" \
	'^  memory +4\.03 MiB page allocator, \+ 4\.03 MiB snapshot$' "$T_TMP/v5.txt"
check_grep "text: persistent buffer is carve-out" \
	'^  memory +2\.00 MiB carve-out \(reserved memory\)$' \
	"$T_TMP/v5.txt"
check_grep "text: persistent, previous boot" \
	"^  persistent +yes: boot-mapped, reserved memory; holds the previous boot's trace$" \
	"$T_TMP/v5.txt"
check_grep "text: persistent, its last_boot_info" '^  last boot +ffffffff81000000	\[kernel\]$' \
	"$T_TMP/v5.txt"
check_grep "text: persistent has no snapshot" \
	'^  snapshot +none \(a persistent buffer has no snapshot\)$' \
	"$T_TMP/v5.txt"
check_grep "text: per-CPU row with stats and fill" \
	'^ +0 +2\.00 MiB +2\.01 MiB +3 +0 +1\.00 MiB +1 +2 +723\.330290 +723\.332085 +50\.0%$' \
	"$T_TMP/v5.txt"
check_grep "text: remote loaded: per CPU, pages inferred, page allocator, CPUs unknown" \
	'^  hypervisor +7\.00 KiB loaded +on +\? 16\.0 KiB per CPU of its buffer \(pages inferred\), page allocator$' \
	"$T_TMP/v5.txt"
# what v10 05/30 (the seed) defines of a remote, and what is inferred beyond it
check_grep "text: the remote files read are the seed's, the later ones named" \
	'^  - remotes: read are each remote.s tracing_on and buffer_size_kb \("N \(loaded\)" or "N \(unloaded\)", N KiB per CPU\), the files v10 05/30 of the series "tracing: Introduce trace remotes" defines; its per_cpu/, trace, trace_pipe and events/ come with later parts of the series and are not read$' \
	"$T_TMP/v5.txt"
check_grep "text: a loaded remote's pages are inferred, the seed's words beside" \
	'^  - remotes: the pages of a loaded buffer are inferred: max\(ceil\(buffer_size_kb \* 1024 / page\), 2\) \+ 1 data pages and a meta page per CPU, as the merged series allocates them; v10 05/30 says only that they are enough to cover buffer_size_kb on each CPU of the remote.s cpumask$' \
	"$T_TMP/v5.txt"
check_grep "text: remote unloaded" \
	'^  test +7\.00 KiB unloaded +off +\? 0 B \(nothing until loaded\)$' \
	"$T_TMP/v5.txt"
check_grep "text: totals side by side" \
	'^  global +48\.0 KiB +56\.0 KiB +\+8\.00 KiB$' "$T_TMP/v5.txt"
check_grep "text: equal rows say so" '^  instances +4\.03 MiB +4\.03 MiB +same$' "$T_TMP/v5.txt"
check_grep "text: carve-out is the persistent buffers only" \
	'^  total_carveout +2\.00 MiB +2\.00 MiB +same$' "$T_TMP/v5.txt"
check_grep "text: remotes unknown while one is loaded" '^  remotes +unknown +0 B +-$' \
	"$T_TMP/v5.txt"
check_grep "text: total_system unknown while a remote is loaded" \
	'^  total_system +unknown +8\.14 MiB +-$' "$T_TMP/v5.txt"
check_grep "text: the temp_buffer in global" \
	'^  global includes the temp_buffer: 24\.0 KiB \(boot-time, 3 pages per CPU\)$' \
	"$T_TMP/v5.txt"
check_grep "text: why the remote's memory is unknown" \
	"^  - remotes/hypervisor: loaded, 16 KiB per CPU of its buffer, on 1 to 2 CPUs \(16 to 32 KiB\): no file says which CPUs a remote's buffer covers \(the cpumask the remote gives, v10 05/30\), so remotes and total_system are unknown$" \
	"$T_TMP/v5.txt"
check_grep "text: why global differs: expansion" \
	"^  - global: a buffer not yet expanded counts at its current size" \
	"$T_TMP/v5.txt"
check_nogrep "text: earlier-posting rows hidden with the split format" \
	'^  (buffers|snapshot_buffers) ' \
	"$T_TMP/v5.txt"
check_nogrep "text: no note about absent files" 'not on this kernel|absent' "$T_TMP/v5.txt"

# ---------------------------------------------------------------- persistent buffers, kernel higher
# v5 2/4 adds a persistent buffer's ring_buffer_memory_size() to persistents like any
# buffer's to its row: a difference there is that helper's (a read page per CPU
# here, 8 KiB), never the reserved range, and never an expansion
T=$T_TMP/v5p
make_tree "$T"
mk "$T" trace_stats/memory_usage_kb "global: 48" "instances: 4128" "snapshots: 4152" \
	"persistents: 2064" "remotes: 0" "total_system: 8328" "total_carveout: 2064"
stat_cmd --tracefs "$T" --format json > "$T_TMP/v5p.json"
jq_eq "persistent, kernel 8 KiB higher: the rows that differ" \
	'[.aggregate.differences[] | [.row, .computed_kb, .kernel_kb, .difference_kb]]' \
	'[["persistents",2056,2064,8],["total_carveout",2056,2064,8]]' "$T_TMP/v5p.json"
jq_eq "persistent: the helper's extras, as for any buffer" \
	'[.aggregate.differences[0].reasons[] | select(test("read page|meta page|metadata"))]
		| length' 3 "$T_TMP/v5p.json"
jq_eq "persistent: the helper is inferred, not the reserved range" \
	'[.aggregate.differences[0].reasons[]
		| select(test("ring_buffer_memory_size\\(\\), which its patch 1/4 defines and this tool has not seen.*not the reserved range"))]
		| length' 1 "$T_TMP/v5p.json"
jq_eq "persistent: no reason says the kernel counts the range, nor an expansion, nor rounding" \
	'[.aggregate.differences[].reasons[]
		| select(test("counts the whole|reserved range \\(|not yet expanded|page rounding"))]
		| length' 0 "$T_TMP/v5p.json"

# ---------------------------------------------------------------- earlier posting
T=$T_TMP/v4
make_tree "$T"
mk "$T" trace_stats/memory_usage_kb "buffers: 6208" "snapshot_buffers: 4152"
mk "$T" trace_stats/per_cpu/cpu0/memory_usage_kb "buffers: 3104" "snapshot_buffers: 2076"
mk "$T" trace_stats/per_cpu/cpu1/memory_usage_kb "buffers: 3100" "snapshot_buffers: 2076"
stat_cmd --tracefs "$T" --format json > "$T_TMP/v4.json"
jq_eq "earlier: kernel figures" '[.aggregate.kernel_format, .aggregate.kernel]' \
	'["buffers",{"buffers":6208,"snapshot_buffers":4152}]' "$T_TMP/v4.json"
jq_eq "earlier: agreeing rows have no differences" '.aggregate.differences' '[]' "$T_TMP/v4.json"
jq_eq "earlier: per-CPU kernel and computed" \
	'[.aggregate.kernel_per_cpu[] | [.cpu, .kernel.buffers, .computed.buffers,
		.kernel.snapshot_buffers, .computed.snapshot_buffers]]' \
	'[[0,3104,3104,2076,2076],[1,3100,3104,2076,2076]]' "$T_TMP/v4.json"
stat_cmd --tracefs "$T" > "$T_TMP/v4.txt"
check_grep "earlier: buffers row side by side" \
	'^  buffers +6\.06 MiB +6\.06 MiB +same$' "$T_TMP/v4.txt"
check_grep "earlier: rows the file lacks show no kernel figure" \
	'^  global +48\.0 KiB +- +-$' "$T_TMP/v4.txt"
check_grep "earlier: per-CPU line" \
	'^  cpu1: buffers 3\.02 MiB \(computed 3\.03 MiB\) snapshot_buffers 2\.02 MiB \(computed 2\.02 MiB\)$' \
	"$T_TMP/v4.txt"

# ---------------------------------------------------------------- no trace_stats
T=$T_TMP/none
make_tree "$T"
stat_cmd --tracefs "$T" > "$T_TMP/none.txt"
check_grep "no trace_stats: totals marked computed" \
	'^Totals, computed from the per-buffer files \(no trace_stats/memory_usage_kb\)$' \
	"$T_TMP/none.txt"
check_grep "no trace_stats: each row marked" \
	'^  global +48\.0 KiB \(computed\)$' "$T_TMP/none.txt"
check_grep "no trace_stats: unknown rows marked" \
	'^  total_system +unknown \(computed\)$' "$T_TMP/none.txt"
check_grep "no trace_stats: says which feature provides it" \
	'trace_stats/memory_usage_kb: not on this kernel; .*"tracing: add aggregate buffer memory usage statistics"' \
	"$T_TMP/none.txt"
stat_cmd --tracefs "$T" --format json > "$T_TMP/none.json"
jq_eq "no trace_stats: json kernel null, computed kept" \
	'[.aggregate.kernel_format, .aggregate.kernel, .aggregate.computed.global,
		.aggregate.computed.total_system, .aggregate.total_system_without_remotes_kb]' \
	'[null,null,48,null,8328]' \
	"$T_TMP/none.json"
# the remote unloaded: every row known
T=$T_TMP/unl
make_tree "$T"
mk "$T" remotes/hypervisor/buffer_size_kb "7 (unloaded)"
mk "$T" remotes/hypervisor/tracing_on 0
mk "$T" trace_stats/memory_usage_kb "global: 48" "instances: 4128" "snapshots: 4152" \
	"persistents: 2056" "remotes: 0" "total_system: 8328" "total_carveout: 2056"
stat_cmd --tracefs "$T" --format json > "$T_TMP/unl.json"
jq_eq "remotes unloaded: computed = kernel on every row, no difference" \
	'[(.aggregate.computed | del(.buffers, .snapshot_buffers)) == .aggregate.kernel,
		.aggregate.differences, .aggregate.computed.total_system]' \
	'[true,[],8328]' "$T_TMP/unl.json"

# ---------------------------------------------------------------- the backup instance
# A later kernel than the seeds' copies the persistent instance boot into a vmalloc'd
# instance backup at boot (trace_instance=backup=boot): range-backed like it, so with
# last_boot_info and buffer_meta, and no tracefs file says it is a copy; the command
# line does. v5 2/4 skips it in every row ("already accounted in VmallocUsed"): the
# kernel figures below are the seed's sums without it, by hand.
T=$T_TMP/bk
make_tree "$T"
mk "$T" remotes/hypervisor/buffer_size_kb "7 (unloaded)"
mk "$T" remotes/hypervisor/tracing_on 0
# the copy: boot's files, buffer_meta and last_boot_info included
bk=$T/instances/backup
cp -R "$T/instances/boot" "$bk"
mk "$bk" tracing_on 0
mk "$T" trace_stats/memory_usage_kb "global: 48" "instances: 4128" "snapshots: 4152" \
	"persistents: 2056" "remotes: 0" "total_system: 8328" "total_carveout: 2056"
mk "$T_TMP" cmdline.bk 'BOOT_IMAGE=/vmlinuz "trace_instance=boot^traceoff@trace,sched:*" quiet' \
	'trace_instance=backup=boot reserve_mem=12M:4M:trace -- trace_instance=x=y'
stat_cmd --tracefs "$T" --cmdline "$T_TMP/cmdline.bk" --format json > "$T_TMP/bk.json"; rc=$?
check_eq "backup: exits 0" "$rc" 0
jq_eq "backup: its instance, a copy of boot in vmalloc'd memory, its sub-buffers" \
	'.instances[] | select(.name == "backup") | [.persistent, .backup_of, .memory_kind,
		.memory_kb, .snapshot.state]' \
	'[true,"boot","vmalloc",2056,"none"]' "$T_TMP/bk.json"
jq_eq "backup: the persistent instance it copies stays carve-out" \
	'.instances[] | select(.name == "boot") | [.backup_of, .memory_kind, .memory_kb]' \
	'[null,"carveout",2056]' "$T_TMP/bk.json"
jq_eq "backup: skipped in every row as v5 does: computed = the kernel's, no difference" \
	'[(.aggregate.computed | del(.buffers, .snapshot_buffers)) == .aggregate.kernel,
		.aggregate.differences, .aggregate.computed.persistents,
		.aggregate.computed.total_carveout]' \
	'[true,[],2056,2056]' "$T_TMP/bk.json"
jq_eq "backup: on a line of its own, with the reason" '.aggregate.in_no_row' \
	'[{"name":"backup","backup_of":"boot","memory_kind":"vmalloc","memory_kb":2056,
	"reason":"v5 skips the backup instance: its vmalloc'"'"'d copy is already accounted in VmallocUsed"}]' \
	"$T_TMP/bk.json"
jq_eq "backup: a note says how it was told apart, and that it is inferred" \
	'[.notes[] | select(test("^backup: the backup instance of boot, as the kernel command line says \\(trace_instance=backup=boot\\); no tracefs file marks a backup.*inferred"))]
		| length' 1 "$T_TMP/bk.json"
jq_eq "backup: per CPU it is in no row either" \
	'.aggregate.kernel_per_cpu' '[]' "$T_TMP/bk.json"
stat_cmd --tracefs "$T" --cmdline "$T_TMP/cmdline.bk" > "$T_TMP/bk.txt"
check_grep "backup text: what it is" \
	"^  persistent +backup of boot: its copy, made at boot in vmalloc'd memory; holds the previous boot's trace$" \
	"$T_TMP/bk.txt"
check_grep "backup text: its memory is vmalloc, in no total" \
	'^  memory +2\.00 MiB vmalloc \(in no total, see below\)$' "$T_TMP/bk.txt"
check_grep "backup text: its line under the totals, with the reason" \
	"^  in no row: backup backup \(of boot\), 2\.00 MiB vmalloc: v5 skips the backup instance: its vmalloc'd copy is already accounted in VmallocUsed$" \
	"$T_TMP/bk.txt"
check_grep "backup text: the persistents are boot's alone" \
	'^  persistents +2\.00 MiB +2\.00 MiB +same$' "$T_TMP/bk.txt"
# without the command line's word it is one more persistent instance: the
# computed persistents are then twice the kernel's, which skips it
mk "$T_TMP" cmdline.none 'BOOT_IMAGE=/vmlinuz trace_instance=boot@trace quiet'
stat_cmd --tracefs "$T" --cmdline "$T_TMP/cmdline.none" --format json > "$T_TMP/bk0.json"
jq_eq "backup not named on the command line: counted as persistent" \
	'[(.instances[] | select(.name == "backup") | [.backup_of, .memory_kind]),
		.aggregate.in_no_row, .aggregate.computed.persistents]' \
	'[[null,"carveout"],[],4112]' "$T_TMP/bk0.json"
stat_cmd --tracefs "$T" --cmdline "$T_TMP/nosuch" --format json > "$T_TMP/bk1.json"; rc=$?
jq_eq "command line unreadable: exit 0, a note says what that means" \
	'[.notes[] | select(test("nosuch: not readable, so no backup instance is recognised"))]
		| length' 1 "$T_TMP/bk1.json"
check_eq "command line unreadable: exit 0" "$rc" 0
stat_cmd --tracefs "$T" --cmdline "$T_TMP/cmdline.bk" -B backup --format json \
	> "$T_TMP/bk2.json"
jq_eq "-B backup: recognised too" '[.instances[] | [.name, .backup_of, .memory_kind]]' \
	'[["backup","boot","vmalloc"]]' "$T_TMP/bk2.json"

# ---------------------------------------------------------------- an older kernel: files missing
T=$T_TMP/old
mk "$T" buffer_size_kb 1408
mk "$T" per_cpu/cpu0/buffer_size_kb 1408
mk "$T" per_cpu/cpu0/stats "entries: 5" "overrun: 0" "commit overrun: 0" "bytes: 300"
stat_cmd --tracefs "$T" --format json > "$T_TMP/old.json"; rc=$?
check_eq "old kernel: exits 0" "$rc" 0
jq_eq "old kernel: unknown figures are null, not 0" \
	'.instances[0] | [.subbuf_size_kb, .tracing_on, .buffer_total_size_kb,
		.cpus[0].dropped_events, .cpus[0].read_events, .cpus[0].oldest_ts]' \
	'[null,null,null,null,null,null]' "$T_TMP/old.json"
jq_eq "old kernel: a sub-buffer is a page, header assumed" \
	'[.instances[0].memory_kb, .subbuf_header_bytes, .instances[0].cpus[0].entries]' \
	'[1420,16,5]' \
	"$T_TMP/old.json"
stat_cmd --tracefs "$T" > "$T_TMP/old.txt"
check_grep "old kernel: CPU row leaves unknowns out" \
	'^ +0 +1\.37 MiB +1\.38 MiB +5 +0 +300 B +- +- +- +- +0\.0%$' "$T_TMP/old.txt"
check_grep "old kernel: names buffer_subbuf_size_kb" \
	'buffer_subbuf_size_kb: not on this kernel \(Linux 6\.8 added it\)' "$T_TMP/old.txt"
check_grep "old kernel: names the missing stats line" \
	"per_cpu/cpuN/stats: this kernel's file has no 'dropped events' line" "$T_TMP/old.txt"
check_grep "old kernel: header_page assumed" 'events/header_page: not readable; assumed a 16-byte' \
	"$T_TMP/old.txt"
check_grep "old kernel: tracing state unknown" '^  tracing +unknown$' "$T_TMP/old.txt"
check_grep "old kernel: no remotes/ explained, the release inferred" \
	'remotes/: absent; trace_remote_register\(\) creates it when a remote registers \(v10 05/30 of "tracing: Introduce trace remotes", merged for Linux 7\.1 by its date: inferred\)' \
	"$T_TMP/old.txt"
check_nogrep "old kernel: no remote, no note about remote files" '^  - remotes: ' \
	"$T_TMP/old.txt"
check_grep "old kernel: no snapshot file explained" \
	'^  snapshot +not available \(needs CONFIG_TRACER_SNAPSHOT\)$' \
	"$T_TMP/old.txt"

# ---------------------------------------------------------------- this boot's persistent data
T=$T_TMP/cur
mk "$T" buffer_size_kb 7
mk "$T" per_cpu/cpu0/buffer_size_kb 7
mk "$T" instances/boot2/buffer_size_kb 1023
mk "$T" instances/boot2/last_boot_info "# Current"
mk "$T" instances/boot2/per_cpu/cpu0/buffer_size_kb 1023
mk "$T" remotes/r/buffer_size_kb 7
stat_cmd --tracefs "$T" --format json > "$T_TMP/cur.json"
jq_eq "no buffer_meta: carve-out from buffer_size_kb (257 + 1 sub-buffers)" \
	'.instances[1] | [.persistent, .memory_kind, .memory_kb, .last_boot_info]' \
	'[true,"carveout",1032,"# Current"]' "$T_TMP/cur.json"
jq_eq "remote without a state: memory unknown, not 0" \
	'[.remotes[0].loaded, .remotes[0].memory_kb, .aggregate.computed.remotes,
		.aggregate.computed.total_system, .aggregate.computed.total_carveout,
		.aggregate.computed.persistents]' \
	'[null,null,null,null,1032,1032]' "$T_TMP/cur.json"
stat_cmd --tracefs "$T" > "$T_TMP/cur.txt"
check_grep "persistent with this boot's data" \
	"^  persistent +yes: boot-mapped, reserved memory; holds this boot's trace$" "$T_TMP/cur.txt"
check_grep "no buffer_meta: says it is estimated" \
	'boot2: per_cpu/cpuN/buffer_meta missing; its carve-out is estimated from buffer_size_kb' \
	"$T_TMP/cur.txt"
check_grep "remote without a state: says so" \
	'^  r +7\.00 KiB unknown +unknown +\? unknown$' "$T_TMP/cur.txt"
check_grep "remote without a state: totals unknown" '^  remotes +unknown \(computed\)$' \
	"$T_TMP/cur.txt"

# ---------------------------------------------------------------- latency tracers' spare buffers
T=$T_TMP/lat
mk "$T" buffer_size_kb 2051
mk "$T" buffer_subbuf_size_kb 4
mk "$T" available_tracers "irqsoff wakeup function nop"
mk "$T" current_tracer irqsoff
mk "$T" per_cpu/cpu0/buffer_size_kb 2051
mk "$T" instances/i/buffer_size_kb 7
mk "$T" instances/i/current_tracer nop
mk "$T" instances/i/per_cpu/cpu0/buffer_size_kb 7
stat_cmd --tracefs "$T" --format json > "$T_TMP/lat.json"
jq_eq "latency tracers: spare buffers counted as snapshots" \
	'[.instances[] | [.snapshot.state, .snapshot.size_kb]]' \
	'[["spare-allocated",2064],["spare",12]]' \
	"$T_TMP/lat.json"

# ---------------------------------------------------------------- -B and -t
T=$T_TMP/v5
stat_cmd --tracefs "$T" -B a > "$T_TMP/b.txt"; rc=$?
check_eq "-B: exits 0" "$rc" 0
check_grep "-B: the instance" '^Instance: a$' "$T_TMP/b.txt"
check_nogrep "-B: nothing else" '^(Top buffer|Instance: boot|Remotes|Totals)' "$T_TMP/b.txt"
stat_cmd --tracefs "$T" -B boot -t --format json > "$T_TMP/bt.json"
jq_eq "-B -t: top and the instance, no remotes or aggregate" \
	'[[.instances[] | .name], has("remotes"), has("aggregate")]' '[[null,"boot"],false,false]' \
	"$T_TMP/bt.json"
stat_cmd --tracefs "$T" -B a -B boot --format json > "$T_TMP/bb.json"
jq_eq "-B twice" '[.instances[] | .name]' '["a","boot"]' "$T_TMP/bb.json"
stat_cmd --tracefs "$T" -B nosuch > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "-B unknown instance: exit 1" "$rc" 1
check_eq "-B unknown instance: one line naming it" "$(cat "$T_TMP/err")" \
	"trace-cmd-alloc-tag: $T/instances/nosuch: no such instance"
check_status "-t alone is a usage error" 2 stat_cmd --tracefs "$T" -t
check_status "--format other is a usage error" 2 stat_cmd --tracefs "$T" --format xml
stat_cmd --tracefs "$T" -f json -o "$T_TMP/st.json" > "$T_TMP/out" 2>&1
stat_cmd --tracefs "$T" -o "$T_TMP/st.json" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "-o FILE twice: the first kept as FILE.old, said" "$rc:$(cat "$T_TMP/out" "$T_TMP/err")" \
	"0:trace-cmd-alloc-tag: $T_TMP/st.json existed: kept as $T_TMP/st.json.old"
jq_eq "-f json -o: the JSON in FILE.old" '[.instances[] | .name] | length > 0' 'true' \
	"$T_TMP/st.json.old"
check_eq "-o FILE: the text in FILE" "$(cat "$T_TMP/st.json")" "$(stat_cmd --tracefs "$T")"
check_status "--watch 0 is a usage error" 2 stat_cmd --tracefs "$T" --watch 0
check_status "--count without --watch is a usage error" 2 stat_cmd --tracefs "$T" --count 2
check_status "an argument is a usage error" 2 stat_cmd --tracefs "$T" extra

# ---------------------------------------------------------------- where tracefs is
ATAG_TRACEFS=$T "$ATAG_CMD" stat --format json > "$T_TMP/env.json"
jq_eq "ATAG_TRACEFS picks the tree" '.tracefs' "\"$T\"" "$T_TMP/env.json"
stat_cmd --tracefs "$T//" --format json > "$T_TMP/slash.json"
jq_eq "--tracefs DIR/ is DIR" '.tracefs' "\"$T\"" "$T_TMP/slash.json"
ATAG_TRACEFS=/nonexistent "$ATAG_CMD" stat --tracefs "$T" --format json > "$T_TMP/env2.json"
jq_eq "--tracefs wins over ATAG_TRACEFS" '.tracefs' "\"$T\"" "$T_TMP/env2.json"
stat_cmd --tracefs /nonexistent/tfs > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "missing tracefs dir: exit 1, one line" "$rc:$(cat "$T_TMP/err")" \
	"1:trace-cmd-alloc-tag: /nonexistent/tfs: No such file or directory"
mkdir -p "$T_TMP/empty"
stat_cmd --tracefs "$T_TMP/empty" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "not a tracefs dir: exit 1, one line" "$rc:$(cat "$T_TMP/err")" \
	"1:trace-cmd-alloc-tag: $T_TMP/empty/buffer_size_kb: not a tracefs directory: no buffer_size_kb"

# ---------------------------------------------------------------- malformed files
bad() { # bad NAME FILE LINE TEXT: a tree whose FILE is malformed at LINE
	n=$1 f=$2 l=$3; shift 3
	T=$T_TMP/bad-$n
	make_tree "$T"
	mk "$T" "$f" "$@"
	stat_cmd --tracefs "$T" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	check_eq "malformed $f: exit 1 naming file and line" "$rc:$(cat "$T_TMP/err")" \
		"1:trace-cmd-alloc-tag: $T/$f:$l: malformed line '$(sed -n "${l}p" "$T/$f")'"
	check_eq "malformed $f: nothing on stdout" "$(cat "$T_TMP/out")" ""
}
bad mu trace_stats/memory_usage_kb 2 "global: 48" "instances: lots" "remotes: 0"
bad mucolon trace_stats/memory_usage_kb 1 "global 48"
bad mucpu trace_stats/per_cpu/cpu1/memory_usage_kb 1 "buffers: -1"
bad size instances/a/buffer_size_kb 1 "2051 KiB"
bad stats instances/a/per_cpu/cpu1/stats 4 "entries: 1" "overrun: 0" "commit overrun: 0" \
	"bytes: 12x"
bad meta instances/boot/per_cpu/cpu0/buffer_meta 2 "subbuf_size: 4096" "nr_subbufs: many"
bad remote remotes/test/buffer_size_kb 1 "7 (asleep)"
bad subbuf buffer_subbuf_size_kb 1 "four"
bad flag remotes/test/tracing_on 1 "yes"

# ---------------------------------------------------------------- permission (non-root only)
if is_root; then
	skip "unreadable file says root is needed" \
		"running as root; t-stat-tracefs.sh tests it as nobody"
else
	T=$T_TMP/perm
	make_tree "$T"
	chmod 000 "$T/instances/a/per_cpu/cpu0/stats"
	stat_cmd --tracefs "$T" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	check_eq "unreadable file says root is needed" "$rc:$(cat "$T_TMP/err")" \
		"1:trace-cmd-alloc-tag: cannot read $T/instances/a/per_cpu/cpu0/stats: Permission denied; reading tracefs needs root"
fi

# ---------------------------------------------------------------- --watch
T=$T_TMP/v5
stat_cmd --tracefs "$T" --watch 0.02 --count 3 > "$T_TMP/w.txt"; rc=$?
check_eq "--watch --count 3: exits 0" "$rc" 0
check_eq "--watch --count 3: three reports" "$(grep -c '^tracefs ' "$T_TMP/w.txt")" 3
esc=$(printf '\033')
check_nogrep "--watch not on a terminal: no escape codes" "$esc" "$T_TMP/w.txt"
stat_cmd --tracefs "$T" --watch 0.02 --count 2 --format json > "$T_TMP/w.json"
check_eq "--watch json: a document per refresh" "$(jq -s length "$T_TMP/w.json" 2>&1)" 2
if script -qec "true" /dev/null > /dev/null 2>&1; then
	script -qec "$ATAG_CMD stat --tracefs $T --watch 0.02 --count 2" /dev/null \
		> "$T_TMP/tty.txt" 2>&1
	check_eq "--watch on a terminal: refreshes in place" \
		"$(grep -c "${esc}\[H${esc}\[2J" "$T_TMP/tty.txt")" 2
else
	skip "--watch on a terminal" "script(1) cannot make a pseudo-terminal here"
fi
# the handler is in place before the first report: wait for it, then interrupt
"$ATAG_CMD" stat --tracefs "$T" --watch 5 > "$T_TMP/int.txt" 2>&1 &
pid=$!
at_exit "kill -KILL $pid 2>/dev/null"
"$ATAG_BUILD/tests/progs/atag-await" -t 5 -p "$pid" file "$T_TMP/int.txt" 'tracefs '
kill -INT "$pid"
"$ATAG_BUILD/tests/progs/atag-await" -t 2 exit "$pid"
kill -KILL "$pid" 2>/dev/null
wait "$pid"; rc=$?
check_eq "--watch: Ctrl-C ends it at once, status 0, after one report" \
	"$rc:$(grep -c '^tracefs ' "$T_TMP/int.txt")" "0:1"

# ---------------------------------------------------------------- empty directories
# 26.2: no instance and no remote (empty directories): no empty list sorted (the
# ASan+UBSan build stopped on qsort(NULL, 0))
T=$T_TMP/nodirs
make_tree "$T"
rm -rf "$T/instances"/* "$T/remotes"/*
stat_cmd --tracefs "$T" --format json > "$T_TMP/nodirs.json"; rc=$?
check_eq "26.2 empty instances/ and remotes/: exit 0" "$rc" 0
jq_eq "26.2 empty instances/ and remotes/: the top buffer alone, no remote" \
	'[[.instances[] | .name], (.remotes | length)]' '[[null],0]' "$T_TMP/nodirs.json"

# ---------------------------------------------------------------- help
"$ATAG_CMD" stat --help > "$T_TMP/help" 2>&1; rc=$?
check_eq "--help exits 0" "$rc" 0
for o in -B -t "-f, --format" "-o, --output" --watch --count --tracefs --cmdline; do
	check_grep "--help lists $o" "^  ( {4})?$o " "$T_TMP/help"
done

# names are whatever mkdir made them: an instance and a remote named with an escape
# sequence and a line break are shown escaped in text, as they are in JSON
T=$T_TMP/names
make_tree "$T"
odd=$(printf 'x\033[31my\nz')
mv "$T/instances/a" "$T/instances/$odd"
mv "$T/remotes/test" "$T/remotes/$odd"
stat_cmd --tracefs "$T" > "$T_TMP/names.txt" 2>&1
check_eq "odd names: text: no control character, the names escaped" \
	"$(tr -d '\n\t' < "$T_TMP/names.txt" | LC_ALL=C grep -c '[[:cntrl:]]'):$(grep -c '^Instance: x\\x1b\[31my\\x0az$' "$T_TMP/names.txt"):$(grep -c '^  x\\x1b\[31my\\x0az ' "$T_TMP/names.txt")" \
	"0:1:1"
stat_cmd --tracefs "$T" --format json > "$T_TMP/names.json"
jq_eq "odd names: json: the names as they are" \
	'[(.instances[] | select(.name != null and (.name | startswith("x"))) | .name),
	  (.remotes[] | select(.name | startswith("x")) | .name)]' \
	'["x\u001b[31my\nz","x\u001b[31my\nz"]' "$T_TMP/names.json"

jq_flush
done_testing
