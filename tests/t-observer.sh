#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: live
# tier: normal build (the kernel under load; ASan runs this code in t-record, t-top, t-leaks)
# tier: alone
#   (it measures how long a workload takes while recorded)
# Stacks at a bounded cost, on this machine's kernel with the kmem events: a workload
# (find /usr/lib -name '*.so*', its own time measured inside the recording, warm
# cache) recorded with the default sampled stacks and with --no-stack, three times
# each, alternating (five where a figure below was off its target after three):
#  - the best time with stacks is at most 1.5 times the best without;
#  - at every call site with 2 000 frees or more in both, the median and the 90th
#    percentile of the lifetimes are within 25% of --no-stack's (or between the
#    values of two --no-stack recordings, where those differ more);
#  - the report says which share of the slab allocations carries a stack, scales a
#    call site's stacks to its allocations, and --all-stacks still gives every one.
# The timings mean something only when the machine had the time to spare: with more
# than the workload and the recorder running (all CPUs but one, and 15% more, busy
# during the recordings, from /proc/stat; as t-report-kmem), the two timing checks
# are skipped, saying how busy the CPUs were.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/live.sh"
DIR=${ATAG_OBSERVER_DIR:-/usr/lib}
live_tier "the observer's cost" --progs trace-cmd,jq,awk,find \
	--events kmalloc,kfree,kmem_cache_alloc,kmem_cache_free,mm_page_alloc \
	--why "$([ "$(find "$DIR" -name '*.so*' 2>/dev/null | head -n 200 | wc -l)" -ge 200 ] ||
		echo "$DIR holds fewer than 200 shared objects: no workload to measure")"

# The workload, timing itself (ns into $T_TMP/NAME.ns)
work() {
	printf 't0=$(date +%%s%%N); find %s -name "*.so*" > /dev/null; ' "$DIR"
	printf 'echo $(($(date +%%s%%N) - t0)) > %s/%s.ns\n' "$T_TMP" "$1"
}
# CPU time used by the whole machine so far (jiffies: total, idle)
cpu() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8, $5 + $6 }' /proc/stat; }
# rec NAME ARGS...: record --kmem of the workload into NAME.dat
rec() {
	name=$1; shift
	work "$name" > "$T_TMP/$name.sh"
	"$C" record --kmem -b 16384 "$@" -o "$T_TMP/$name.dat" -- sh "$T_TMP/$name.sh" \
		> "$T_TMP/$name.log" 2>&1 || fail "record --kmem $*" "$(tail -5 "$T_TMP/$name.log")"
	"$C" report -f json -n 0 "$T_TMP/$name.dat" > "$T_TMP/$name.json" 2>/dev/null
}

sh -c "$(work warm)"	# a warm cache
set -- $(cpu)
t0=$1 i0=$2
for i in 1 2 3; do
	rec none$i --no-stack
	rec stack$i
done
set -- $(cpu)
busy=$(awk -v t=$(($1 - t0)) -v i=$(($2 - i0)) 'BEGIN { printf "%d", t ? 100 * (t - i) / t : 100 }')
best() { for f in $T_TMP/$1?.ns; do cat "$f"; done | sort -n | head -n 1; }
# the best of each kind's recordings so far, and their ratio
timing() {
	none=$(best none)
	stack=$(best stack)
	ratio=$(awk -v a="$stack" -v b="$none" 'BEGIN { printf "%.2f", a / b }')
}
cpus=$(nproc)
quiet=$((100 * (cpus < 2 ? 1 : cpus - 1) / cpus + 15))

# ------------------------------------------------------------------ the figures
# "function p50 p90" of the call sites with 2 000 frees or more, per recording
sites() {
	jq -r '.tags[] | select(.frees >= 2000) |
		"\(.source):\(.function) \(.lifetime_ns.p50) \(.lifetime_ns.p90)"' \
		"$T_TMP/$1.json" | sort
}
# per site: the lowest and highest of each figure without stacks, and the median with
lifetimes() {
	for f in "$T_TMP"/none?.json "$T_TMP"/stack?.json; do
		f=${f##*/}
		sites "${f%.json}" > "$T_TMP/${f%.json}.sites"
	done
	awk '
	FILENAME ~ /none/ { n[$1]++; for (k = 2; k <= 3; k++) {
		if (!(($1, k) in lo) || $k < lo[$1, k]) lo[$1, k] = $k
		if (!(($1, k) in hi) || $k > hi[$1, k]) hi[$1, k] = $k } next }
	{ s[$1]++; v[$1, s[$1], 2] = $2; v[$1, s[$1], 3] = $3 }
	END {
		for (site in s) {
			if (n[site] < 2 || s[site] < 2)
				continue
			for (k = 2; k <= 3; k++) {
				# the median of the recordings with stacks
				c = s[site]
				for (i = 1; i <= c; i++) w[i] = v[site, i, k]
				for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++)
					if (w[j] < w[i]) { t = w[i]; w[i] = w[j]; w[j] = t }
				m = c % 2 ? w[(c + 1) / 2] : (w[c / 2] + w[c / 2 + 1]) / 2
				okk = (m >= 0.75 * lo[site, k] && m <= 1.25 * hi[site, k])
				printf "%s %s %d %d %d %s\n", site, k == 2 ? "p50" : "p90", lo[site, k],
					hi[site, k], m, okk ? "ok" : "FAR"
			}
		}
	}' "$T_TMP"/none?.sites "$T_TMP"/stack?.sites | sort > "$T_TMP/lifetimes"
}
timing
lifetimes
# Either figure off its target after three recordings of each: two more of each
# before it counts. On this project's machine, quiet, the same code gave a best
# of three from 1.17x to 1.51x, and once every file call site's median lifetime
# with stacks 27% over --no-stack's highest (1.02 to 1.07x in make bench's pairs).
if awk -v r="$ratio" 'BEGIN { exit !(r > 1.5) }' || grep -q FAR "$T_TMP/lifetimes"; then
	echo "    ${ratio}x, $(grep -c FAR "$T_TMP/lifetimes") figures far at three recordings" \
		"of each: two more of each"
	for i in 4 5; do
		rec none$i --no-stack
		rec stack$i
	done
	timing
	lifetimes
fi
echo "    the workload alone took at best $((none / 1000000)) ms with --no-stack," \
	"$((stack / 1000000)) ms with stacks: ${ratio}x; CPUs ${busy}% busy (quiet: ${quiet}%)"

# ------------------------------------------------------------------ the cost
if [ "$busy" -le "$quiet" ]; then
	check "the workload takes at most 1.5 times as long with stacks (${ratio}x)" \
		awk -v r="$ratio" 'BEGIN { exit !(r <= 1.5) }'
else
	skip "the workload takes at most 1.5 times as long with stacks (${ratio}x)" \
		"the CPUs were ${busy}% busy: more than the workload and the recorder"
fi

# ------------------------------------------------------------------ the lifetimes
echo "    call site, figure, --no-stack lowest and highest, with stacks (median), ns:"
sed 's/^/      /' "$T_TMP/lifetimes"
if [ ! -s "$T_TMP/lifetimes" ]; then
	skip "lifetimes with stacks within 25% of --no-stack's" \
		"no call site had 2 000 frees in two recordings of each kind"
elif [ "$busy" -le "$quiet" ]; then
	check_eq "lifetimes with stacks within 25% of --no-stack's at the busy call sites" \
		"$(grep -c FAR "$T_TMP/lifetimes")" 0
else
	skip "lifetimes with stacks within 25% of --no-stack's ($(grep -c FAR "$T_TMP/lifetimes") far)" \
		"the CPUs were ${busy}% busy: more than the workload and the recorder"
fi

# ------------------------------------------------------------------ what the report says
J=$T_TMP/stack1.json
check_eq "sampled: kmem's stacks, one allocation in 16; the page allocations' all" \
	"$(jq -c '[.sources[] | select(.source == "kmem" or .source == "page") |
		{(.source): .stack_every}] | add' "$J")" '{"kmem":16,"page":null}'
share=$(jq '.sources[] | select(.source == "kmem") | .stacked / .totals.allocs' "$J")
check "sampled: some slab allocations carry a stack, far from all ($share)" \
	awk -v s="$share" 'BEGIN { exit !(s > 0 && s < 0.5) }'
check_eq "page allocations all carry one (their call site is in it)" \
	"$(jq '[.tags[] | select(.source == "page") | .allocs - .stacked] | add' "$J")" 0
check_eq "a sampled call site's stack estimates add up to its allocations and bytes, exactly" \
	"$(jq -c '[.tags[] | select(.source == "kmem" and .stacked > 0) |
		[.stacks[] | select(.estimate != null) | .estimate] as $est |
		select(($est | length) > 0) |
		select(([$est[].allocs] | add) != .allocs or
		       ([$est[].bytes_alloced] | add) != .bytes_alloced) |
		[.function, .allocs, .bytes_alloced]]' "$J")" "[]"
check_eq "the scale is the call site's own: its allocations over those with a stack" \
	"$(jq '[.tags[] | select(.source == "kmem" and .stacked > 0) |
		select((.stack_scale - .allocs / .stacked) | if . < 0 then -. else . end > 0.001)] |
		length' "$J")" 0
"$C" report "$T_TMP/stack1.dat" > "$T_TMP/stack1.text" 2>&1
check_grep "the text says which share carries a stack" \
	'^stacks +sampled, 1 in 16 allocations by address: [0-9]+ of [0-9]+ carry one \([0-9.]+%\); a call site.s stacks are scaled to its allocations' \
	"$T_TMP/stack1.text"
# folded: every call site's weight is its allocated bytes, sampled or not (a sampled
# site's stacks share its bytes as the sampled allocations do; scaled by the ratio of
# counts they overshot where the sampled objects were larger than the site's average:
# 0.16% once in a make check)
"$C" report -f folded -n 0 --weight alloc_space "$T_TMP/stack1.dat" 2>/dev/null |
	awk '{ s += $NF } END { printf "%d\n", s }' > "$T_TMP/folded.sum"
check_eq "folded: the sampled stacks' shares, the weights add up to the bytes allocated" \
	"$(cat "$T_TMP/folded.sum")" "$(jq '.totals.bytes_alloced' "$J")"

rec all --all-stacks
J=$T_TMP/all.json
check_eq "--all-stacks: nothing sampled" \
	"$(jq -c '[.sources[] | .stack_every] | unique' "$J")" '[null]'
check "--all-stacks: nearly every slab allocation carries a stack" \
	awk -v s="$(jq '.sources[] | select(.source == "kmem") | .stacked / .totals.allocs' "$J")" \
	'BEGIN { exit !(s > 0.99) }'
# (another run's records may come and go meanwhile: only this tier's count)
check_eq "no instance left behind" "$(instances_left "$TFS")" ""

done_testing
