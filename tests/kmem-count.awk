# SPDX-License-Identifier: GPL-2.0
#
# kmem-count.awk: allocations per call site as report(1) counts them, from what
# stock "trace-cmd report -N" prints of kmem:kmalloc, kmem_cache_alloc, kfree and
# kmem_cache_free events (the tests' independent count). A kmalloc or
# kmem_cache_alloc at a pointer still live whose task's previous allocation or free
# event made it, on the same CPU, is the outer event of a nested allocation: it
# counts once, under the outer call site. Prints "SITE ALLOCS" per call site, and
# "nested SITE N" per call site that got nested events. With -v comm=NAME, only the
# allocations of tasks called NAME count (frees match whoever frees).
function field(name,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}
/ (kmalloc|kmem_cache_alloc|kfree|kmem_cache_free): / {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^\[[0-9]+\]$/) { cpu = $i; task = $(i - 1) }
	name = task
	sub(/-[0-9]+$/, "", name)
	sub(/.*-/, "", task)
	ptr = field("ptr")
	site = field("call_site")
	if (ptr == "(nil)" || ptr ~ /^0x0+$/)
		next
	if ($0 ~ / (kfree|kmem_cache_free): /) {
		delete live[ptr]
		last[task] = ""
		next
	}
	counted = comm == "" || name == comm
	if ((ptr in live) && last[task] == ptr " " cpu) {
		n[live[ptr]] -= counted
		nested[site] += counted
	}
	n[site] += counted
	live[ptr] = site
	last[task] = ptr " " cpu
}
END {
	for (c in n)
		if (n[c])
			print c, n[c]
	for (c in nested)
		print "nested", c, nested[c]
}
