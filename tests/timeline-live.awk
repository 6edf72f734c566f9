# SPDX-License-Identifier: GPL-2.0
#
# timeline-live.awk: live bytes over time as report --timeline computes them, from
# what stock "trace-cmd report -N -t" prints of alloc_tag events (the tests'
# independent count). An allocation adds its bytes to its tag, one at a live
# pointer first retires the live one (its free was missed), a free retires the
# allocation at its pointer (a free of nothing changes nothing). Buckets start at
# the first change and are 1000 * 2^k ns wide, the smallest width for which
# -v buckets=N buckets cover the changes.
# Prints "width W N", "peak BYTES TS", "total B0 B1 ...", per function
# "site FUNCTION B0 B1 ..." (live bytes at each bucket's end) and
# "at_peak FUNCTION BYTES".
function field(name,   i) {
	for (i = 1; i <= NF; i++)
		if ($i == name)
			return $(i + 1)
	return ""
}
function ns(s,   p) {
	p = index(s, ".")
	return substr(s, 1, p - 1) * 1000000000 + substr(s, p + 1, 9)
}
/ alloc_tag_hit: / {
	t = field("tag"); sub(/,$/, "", t)
	f = field("function"); sub(/,$/, "", f)
	fn[t] = f
	next
}
/ alloc_tag_mem_(alloced|freed): / {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = ns(substr($i, 1, length($i) - 1)); break }
	p = field("ptr"); sub(/,$/, "", p)
	t = field("tag"); sub(/,$/, "", t)
	b = field("bytes") + 0
	if ($0 ~ /alloced:/) {
		if (p in lb) { ch[++n] = ts; ct[n] = lt[p]; cd[n] = -lb[p] }
		lb[p] = b; lt[p] = t
		ch[++n] = ts; ct[n] = t; cd[n] = b
	} else if (p in lb) {
		ch[++n] = ts; ct[n] = lt[p]; cd[n] = -lb[p]
		delete lb[p]; delete lt[p]
	}
}
END {
	if (!n)
		exit
	start = ch[1]; last = ch[1]
	for (i = 1; i <= n; i++)
		if (ch[i] > last) last = ch[i]
	w = 1000
	while (int((last - start) / w) >= buckets)
		w *= 2
	nb = int((last - start) / w) + 1
	total = 0; peak = 0
	for (i = 1; i <= n; i++) {
		k = int((ch[i] - start) / w)
		live[ct[i]] += cd[i]; total += cd[i]; seen[ct[i]] = 1
		if (total > peak) {
			peak = total; peak_ts = ch[i]
			for (s in seen) atpeak[s] = live[s]
		}
		# the state at the end of bucket k (a bucket without changes: the one before)
		tot[k] = total
		sl[ct[i], k] = live[ct[i]]
	}
	for (k = 1; k < nb; k++)
		if (!(k in tot)) tot[k] = tot[k - 1]
	for (s in seen)
		for (k = 0; k < nb; k++)
			if (!((s, k) in sl)) sl[s, k] = k ? sl[s, k - 1] : 0
	print "width", w, nb
	print "peak", peak, peak_ts
	line = "total"
	for (k = 0; k < nb; k++) line = line " " tot[k]
	print line
	for (s in seen) {
		line = "site " fn[s]
		for (k = 0; k < nb; k++) line = line " " sl[s, k]
		print line
		print "at_peak", fn[s], atpeak[s] + 0
	}
}
