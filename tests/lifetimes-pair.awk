# SPDX-License-Identifier: GPL-2.0
#
# lifetimes-pair.awk: the allocations of a trace one line each, from what stock
# "trace-cmd report -t" prints (the independent side of tests/t-lifetimes.sh).
# Allocations (alloc_tag_mem_alloced, kmalloc, kmem_cache_alloc) are paired with
# the frees (alloc_tag_mem_freed, kfree, kmem_cache_free) of the same ptr; an
# allocation at a ptr still live retires the one before as "replaced" at its
# time. Prints, in the order the allocations end (then the live ones in the
# order they were made):
#   SITE PTR BYTES ALLOC_NS FREE_NS LIFETIME_NS STATE
# SITE is the function the alloc_tag plugin prints (before file:line), or kmem's
# call_site=;
# "-" stands for an empty value.
function field(name,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}
# "12.000001002:" -> 12000001002
function ns(t,   s, f) {
	sub(/:$/, "", t)
	s = t; sub(/\..*/, "", s)
	f = t; sub(/.*\./, "", f)
	f = substr(f "000000000", 1, 9)
	t = s f
	sub(/^0+/, "", t)
	return t == "" ? "0" : t
}
function retire(p, free_ts, state) {
	print site[p], p, bytes[p], at[p], free_ts, state == "freed" ? free_ts - at[p] : "-", state
	delete site[p]
	live[order[p]] = ""
}
/ (alloc_tag_mem_alloced|kmalloc|kmem_cache_alloc|alloc_tag_mem_freed|kfree|kmem_cache_free): / {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^\[[0-9]+\]$/) { ts = ns($(i + 1)); ev = $(i + 2); break }
	ptr = field("ptr")
	if (ptr == "(nil)" || ptr ~ /^0x0+$/)
		next
	if (ev ~ /free/) {
		if (ptr in site)
			retire(ptr, ts, "freed")
		next
	}
	if (ptr in site)
		retire(ptr, ts, "replaced")
	if (ev == "alloc_tag_mem_alloced:") {
		b = field("bytes")
		for (i = NF; i > 1; i--)	# the function before "file:line"
			if ($i ~ /:[0-9]+$/) { s = $(i - 1); break }
	} else {
		b = field("bytes_alloc")
		s = field("call_site")
	}
	site[ptr] = s; bytes[ptr] = b; at[ptr] = ts
	order[ptr] = ++n; live[n] = ptr
}
END {
	for (i = 1; i <= n; i++)
		if (live[i] != "" && (live[i] in site) && order[live[i]] == i)
			print site[live[i]], live[i], bytes[live[i]], at[live[i]], "-", "-", "live"
}
