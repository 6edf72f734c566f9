#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: live
# tier: normal build (the kernel under load; ASan runs this code in t-record, t-top, t-leaks)
# tier: alone
# report on recordings of this machine's kernel made here with record --kmem: what
# the stack captures cost and their correction (against a --no-stack recording of
# the same workload), nested allocation events (kvmalloc), frees the kernel does not
# trace (maple tree nodes), and the recording's own description.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/live.sh"
W=$ATAG_BUILD/tests/progs/atag-workload
live_tier "reports of record --kmem recordings" --progs trace-cmd,jq \
	--events kmalloc,kfree,kmem_cache_alloc,kmem_cache_free

rec() {	# rec NAME ARGS... -- COMMAND: record --kmem into NAME.dat
	name=$1; shift
	"$C" record --kmem -b 16384 -o "$T_TMP/$name.dat" "$@" > "$T_TMP/$name.log" 2>&1 ||
		fail "record --kmem $*" "$(tail -5 "$T_TMP/$name.log")"
}
json() { "$C" report -f json -n 0 "$@" 2> /dev/null; }

# --------------------------------------------------------------- the observer's cost
# The same loop of open/read/close, recorded with a stack for every allocation
# (--all-stacks: the default samples them, see t-observer) and without: with stacks,
# each capture delays the task. The correction takes out the captures' own time, not
# what they cost besides (caches, the unwinder's locks): at the busiest call sites it
# must take out at least half of what the captures added to the median lifetime (raw
# minus --no-stack's), and never so much that a median falls below half --no-stack's.
# A fraction of the added time holds on a loaded machine too; the bound on the
# corrected median (issue 11: within 30%) only with nothing else running, hence
# "tier: alone".
cpu_times() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat; }
medians() {	# the p50 of every call site with 1000 lifetimes or more
	jq -r '.tags[] | select(.lifetime_ns.count >= 1000) |
		"\(.source):\(.function)+\(.offset) \(.lifetime_ns.p50)"' "$1" | sort
}
pair() {	# the two recordings and their medians, in $T_TMP/med; $busy
	before=$(cpu_times)
	rec stack --all-stacks -- "$W" loop 6000
	rec nostack --no-stack -- "$W" loop 6000
	# the share of all CPUs busy meanwhile (the workload alone keeps one of them busy)
	busy=$(printf '%s %s\n' "$before" "$(cpu_times)" |
		awk '{ b = $3 - $1; i = $4 - $2; printf "%d", b + i ? 100 * b / (b + i) : 0 }')
	# the workload's own allocations (the machine may be busy with other tasks)
	json --comm atag-workload "$T_TMP/stack.dat" > "$T_TMP/wl.json"
	json --comm atag-workload --raw-lifetimes "$T_TMP/stack.dat" > "$T_TMP/raw.json"
	json --comm atag-workload "$T_TMP/nostack.dat" > "$T_TMP/nostack.json"
	medians "$T_TMP/nostack.json" > "$T_TMP/n.med"
	medians "$T_TMP/wl.json" > "$T_TMP/s.med"
	medians "$T_TMP/raw.json" > "$T_TMP/r.med"
	join "$T_TMP/n.med" "$T_TMP/s.med" | join - "$T_TMP/r.med" > "$T_TMP/med"
}
pair
check "the loop's call sites: 1000 lifetimes or more in both recordings" \
	test "$(wc -l < "$T_TMP/med")" -ge 4
# where the captures added a fifth or more: the share of it the correction took out
awk '$4 > 1.2 * $2 { printf "%s %.2f\n", $1, ($4 - $3) / ($4 - $2) }' "$T_TMP/med" \
	> "$T_TMP/share"
check_eq "the correction takes out half or more of what the captures added (site share)" \
	"$(awk '$2 < 0.5' "$T_TMP/share")" ""
check_eq "the correction never takes a median below half --no-stack's (site nostack corrected raw)" \
	"$(awk '$3 < 0.5 * $2' "$T_TMP/med")" ""
# issue 11's bar, with nothing else running (the tier runs alone, and make check
# starts its sanitizer builds after it; under ASan it runs beside other tiers and this
# check says how busy the CPUs were): corrected medians within 30% of --no-stack's
# (quiet: within 10% measured)
cpus=$(nproc)
echo "    CPUs busy during the two recordings: ${busy}% of $cpus"
quiet() { [ "$busy" -le $((100 * (cpus < 2 ? 1 : cpus - 1) / cpus + 15)) ]; }
off30() { awk '{ d = $3 - $2; if (d < 0) d = -d; if (d > 0.3 * $2) print }' "$T_TMP/med"; }
# two recordings a few seconds apart on a shared machine differ by chance: a pair
# that misses the bar is recorded again, once, and said
if quiet && [ -n "$(off30)" ]; then
	echo "    first pair off by more than 30%: $(off30 | tr '\n' ';') recorded again"
	pair
	echo "    CPUs busy during the second pair: ${busy}% of $cpus"
fi
if quiet; then
	check_eq "alone: corrected median lifetimes within 30% of --no-stack's (site nostack corrected raw)" \
		"$(off30)" ""
else
	skip "corrected median lifetimes within 30% of --no-stack's" \
		"the CPUs were ${busy}% busy during the recordings: more than the workload and the recorder"
fi
check_eq "raw median lifetimes are never shorter, some much longer (the captures were in them)" \
	"$(awk '$4 < $3 { print } $4 > 1.5 * $3 { longer++ } END { if (!longer) print "none longer" }' \
		"$T_TMP/med")" ""
echo "    site, --no-stack p50, corrected p50, raw p50 (ns), share of the added time taken out:"
join -a 1 "$T_TMP/med" "$T_TMP/share" | sed 's/^/    /'
jq_ok() { check_eq "$1" "$(jq -c "$2" "$3" 2>&1)" true; }
jq_ok "the observer's cost per CPU in JSON" \
	'.files[0].observer | length > 0 and all(.stacks > 0 and .ns > 0 and .p50_ns > 0)' \
	"$T_TMP/wl.json"
jq_ok "--no-stack: no captures, nothing corrected" \
	'(.files[0].observer | length == 0) and ([.tags[].lifetime_ns.inflated] | add) == 0' \
	"$T_TMP/nostack.json"
jq_ok "the lifetimes the captures inflated, per call site" \
	'[.tags[] | select(.source == "kmem") | select(.function == "getname_flags.part.0" or .function == "getname_flags") |
	  .lifetime_ns | .inflated > 0 and .observer_ns > 0] | all' "$T_TMP/wl.json"
"$C" report "$T_TMP/stack.dat" > "$T_TMP/stack.text" 2>&1
check_grep "text: what the captures cost" \
	'^  stacks: [0-9]+ captures took [0-9.]+ [mun]?s \(CPU [0-9]+ [0-9]+, median [0-9.]+ [nu]s' \
	"$T_TMP/stack.text"
check_grep "text: which lifetimes they inflate, and that they were taken out" \
	'^lifetimes +[0-9]+ spanned stack captures of their task: taken out \([0-9.]+ [mun]?s summed over them; --raw-lifetimes keeps it\)' \
	"$T_TMP/stack.text"

# the description: when record wrote one, its processes are the recorder's
if [ "$(jq '.files[0].recording != null' "$T_TMP/nostack.json")" = true ]; then
	json "$T_TMP/nostack.dat" > "$T_TMP/scope.json"
	jq_ok "the recording names its workload" \
		'.files[0].recording.workloads | length == 1' "$T_TMP/scope.json"
	jq_ok "the recorder's allocations are counted apart" \
		'.sources[0].excluded.recorder.allocs > 0' "$T_TMP/scope.json"
	jq_ok "the report counts only the workload's process tree" \
		'[.live[].comm] | all(. == "atag-workload")' "$T_TMP/scope.json"
else
	check_grep "a recording without description: said" 'no recording description' \
		"$T_TMP/stack.text"
fi

# --------------------------------------------------------------- nested events
# getxattr() kvmalloc()s its 64 KiB buffer: kvmalloc's own kmalloc event, then
# do_getxattr's for the same pointer. Stock trace-cmd decodes the events, and
# tests/kmem-count.awk counts them by the rule (an interrupt's allocation in
# between would make a pair two allocations: it counts what the trace holds).
rec kvm -- "$W" kvmalloc 300
json --comm atag-workload "$T_TMP/kvm.dat" > "$T_TMP/kvm.json"
env $ATAG_TRACECMD_ENV trace-cmd report -N -i "$T_TMP/kvm.dat" > "$T_TMP/kvm.txt" \
	2> "$T_TMP/kvm.tcerr"
check_eq "kvmalloc: stock trace-cmd decodes the recording" "$?" 0
awk -v comm=atag-workload -f "$ATAG_SRC/tests/kmem-count.awk" "$T_TMP/kvm.txt" > "$T_TMP/kvm.count"
outer=$(awk '$1 ~ /^do_getxattr\+/ { print $2 }' "$T_TMP/kvm.count")
nested=$(awk '$1 == "nested" && $2 ~ /^do_getxattr\+/ { print $3 }' "$T_TMP/kvm.count")
if [ "${outer:-0}" -lt 300 ]; then
	fail "kvmalloc: the workload's 300 buffers are in the recording" "do_getxattr: ${outer:-0}" \
		"$(tail -n 2 "$T_TMP/kvm.log")" "$(head -n 3 "$T_TMP/kvm.tcerr")"
elif [ "${nested:-0}" -ge 250 ]; then
	check_eq "kvmalloc: each allocation once, under do_getxattr, its inner event folded in" \
		"$(jq -c '[.tags[] | select(.source == "kmem" and .function == "do_getxattr") | .allocs, .nested]' \
		   "$T_TMP/kvm.json")" "[$outer,$nested]"
	jq -r '.tags[] | select(.source == "kmem" and .allocs > 0) | "\(.function) \(.offset) \(.allocs)"' \
		"$T_TMP/kvm.json" | while read -r fn off n; do
			printf '%s+0x%x %s\n' "$fn" "$off" "$n"; done | sort > "$T_TMP/kvm.ours"
	grep -v '^nested ' "$T_TMP/kvm.count" | sort > "$T_TMP/kvm.theirs"
	check "kvmalloc: the workload's call sites" test "$(wc -l < "$T_TMP/kvm.ours")" -ge 3
	check_eq "kvmalloc: every call site's allocations as the rule counts them (diff)" \
		"$(diff "$T_TMP/kvm.theirs" "$T_TMP/kvm.ours" | head -5)" ""
	jq_ok "kvmalloc: the source's summary counts them" \
		"[.sources[] | select(.source == \"kmem\") | .nested >= $nested] | all" "$T_TMP/kvm.json"
else
	skip "kvmalloc: nested events" \
		"this kernel's getxattr made ${nested:-0} nested kmalloc events of 300"
fi

# --------------------------------------------------------------- untraced frees
# mmap/munmap churn: maple tree nodes come back while live here (freed in bulk or
# after RCU, with no kmem event). Such call sites are marked, with the reason.
rec vma -- "$W" vma 1000
json "$T_TMP/vma.dat" > "$T_TMP/vma.json"
# the table, then the live view
"$C" report -n 0 --live "$T_TMP/vma.dat" > "$T_TMP/vma.out" 2>&1
sed '/^leak suspects: live at the end of the trace/,$d' "$T_TMP/vma.out" > "$T_TMP/vma.text"
sed -n '/^leak suspects: live at the end of the trace/,$p' "$T_TMP/vma.out" > "$T_TMP/vma.live"
reused=$(jq '[.tags[] | select(.replaced > 0)] | length' "$T_TMP/vma.json")
if [ "$reused" -gt 0 ]; then
	check_eq "every call site reused while live is marked in the table, with its count" \
		"$(grep -c '  \[reused while live [0-9]*x: untraced frees\]$' "$T_TMP/vma.text")" \
		"$reused"
	check_grep "the mark is explained" \
		"^\\[reused while live: untraced frees\\]: the call site's objects were allocated again" \
		"$T_TMP/vma.text"
	marked_live=$(jq '[.live[] | select(.reused_while_live)] | length' "$T_TMP/vma.json")
	check_eq "the leak view explains the live allocations of those call sites, none suspect" \
		"$(awk '/: its call site.s objects were allocated again while live: some of its frees are not traced$/ { n += $1 }
			END { print n + 0 }' "$T_TMP/vma.live"):$(jq '[.live[] | select(.reused_while_live and .suspect)] | length' "$T_TMP/vma.json")" \
		"$marked_live:0"
else
	skip "untraced frees are marked" "no object was reused while live in this run"
fi

done_testing
