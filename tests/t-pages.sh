#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# The direct walk of ring-buffer pages (lib/read/atag-pages.c), v6 and v7 with or without
# compression, hands out exactly the records libtracecmd does: same order,
# timestamps (converted as DATE, OFFSET, TSC2NSEC ask), sizes, data, lost events. ATAG_DEBUG_PAGES makes trace-walk say
# which walk it took, so a test cannot pass by both taking libtracecmd's.
. "$(dirname "$0")/lib.sh"

WALK=$ATAG_BUILD/tests/progs/trace-walk
same() {	# same NAME FILE [BUFFER]
	"$WALK" -d "$2" $3 > "$T_TMP/fast" 2> "$T_TMP/fast.err"
	ATAG_PAGES=0 "$WALK" "$2" $3 > "$T_TMP/slow" 2>&1
	if ! grep -q "^walk: pages" "$T_TMP/fast.err"; then
		fail "$1: the direct walk was taken" "$(cat "$T_TMP/fast.err")"
	elif [ -s "$T_TMP/slow" ] && cmp -s "$T_TMP/fast" "$T_TMP/slow"; then
		ok "$1 ($(wc -l < "$T_TMP/slow") records)"
	else
		fail "$1" "$(diff "$T_TMP/slow" "$T_TMP/fast" | head -10)"
	fi
}

cat > "$T_TMP/a.txt" <<'DESC'
cpus 3
buffer inst1
ev 0 1000 1 alloced 0x10 0x20 8
ev 1 1000 1 alloced 0x11 0x20 8
ev 2 999 1 freed 0x11 0x20 8
ev inst1:1 1500 1 freed 0x12 0x20 8
missed 1 5
ev 1 3000000000 1 freed 0x10 0x20 8
missed 0
ev 0 9000000000 1 stack 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30
ev inst1:0 9000000001 1 alloced 0x13 0x20 8
DESC
mkfixture -o "$T_TMP/a.dat" "$T_TMP/a.txt"
same "three CPUs, time extends, missed events, a long record" "$T_TMP/a.dat"
same "an instance buffer" "$T_TMP/a.dat" inst1
# 12 000 records a CPU: some 900 KiB each, seven of the walk's 128 KiB windows
mkfixture -o "$T_TMP/g.dat" --generate 60000 --seed 9 --cpus 5 --live 300
same "a generated 60000-event file on 5 CPUs" "$T_TMP/g.dat"
for c in zstd none; do
	if trace-cmd convert -i "$T_TMP/g.dat" -o "$T_TMP/g7-$c.dat" --file-version 7 \
			--compression $c > /dev/null 2>&1; then
		same "the same as trace.dat v7, compression $c" "$T_TMP/g7-$c.dat"
	else
		skip "the same as trace.dat v7, compression $c" "trace-cmd convert cannot write it"
	fi
done
trace-cmd convert -i "$T_TMP/a.dat" -o "$T_TMP/a7.dat" --file-version 7 --compression zstd \
	> /dev/null 2>&1
same "v7 zstd: lost events, time extends" "$T_TMP/a7.dat"
same "v7 zstd: an instance buffer" "$T_TMP/a7.dat" inst1
size=$(stat -c %s "$T_TMP/g.dat")
head -c $((size * 2 / 3)) "$T_TMP/g.dat" > "$T_TMP/cut.dat"
same "a truncated file" "$T_TMP/cut.dat"

# The look-ahead (atag_trace_set_ahead(), which the reader uses to prefetch stacks): trace-walk
# -a checks that the records named a page ahead of a CPU are the records that CPU's next
# page then hands out, in order. Named or not, the walk hands out the same records with
# the same warnings: the look-ahead's own walk of a damaged page says nothing.
ahead() {	# ahead NAME FILE: more than MIN named
	"$WALK" -w "$2" > "$T_TMP/plain" 2> "$T_TMP/plain.err"
	"$WALK" -w -a "$2" > "$T_TMP/ahead" 2> "$T_TMP/ahead.err"
	n='\([0-9]*\)'
	sum=$(sed -n "s/^ahead: $n named, $n matched, $n wrong\$/\\1 \\2 \\3/p" "$T_TMP/ahead.err")
	set -- "$1" $sum
	if ! cmp -s "$T_TMP/plain" "$T_TMP/ahead"; then
		fail "look-ahead, $1: the same records" \
			"$(diff "$T_TMP/plain" "$T_TMP/ahead" | head -5)"
	elif [ "$(grep -v '^ahead: ' "$T_TMP/ahead.err")" != "$(cat "$T_TMP/plain.err")" ]; then
		fail "look-ahead, $1: the same warnings" "$(cat "$T_TMP/ahead.err")"
	elif [ -z "$2" ] || [ "$2" -lt 1000 ] || [ "$2" != "$3" ] || [ "$4" != 0 ]; then
		fail "look-ahead, $1: named, matched, wrong: $2 $3 $4"
	else
		ok "look-ahead, $1 ($2 records named a page ahead, all handed out as named)"
	fi
}
ahead "a generated file on 5 CPUs" "$T_TMP/g.dat"
if [ -s "$T_TMP/g7-zstd.dat" ]; then
	ahead "v7, zstd" "$T_TMP/g7-zstd.dat"
else
	skip "look-ahead, v7, zstd" "trace-cmd convert cannot write it"
fi
ahead "a truncated file" "$T_TMP/cut.dat"
# a page whose header claims 65535 bytes: skipped, said once
cp "$T_TMP/g.dat" "$T_TMP/bad.dat"
off=$(($(stat -c %s "$T_TMP/g.dat") / 2 / 4096 * 4096 + 8))
printf '\377\377\000\000' | dd of="$T_TMP/bad.dat" bs=1 seek=$off conv=notrunc 2> /dev/null
"$WALK" -w "$T_TMP/bad.dat" 2>&1 > /dev/null | grep -q "holds 65535 bytes" ||
	fail "look-ahead, a damaged page: the fixture has one"
ahead "a damaged page" "$T_TMP/bad.dat"
# report's reader looks ahead once its table of distinct stacks passes 1 MiB, and with
# two threads the stitching one too once its (call site, stack) pairs and live
# allocations pass 2 MiB: 25 000 stacks of 14 frames or more are 3.4 MiB and 25 000
# pairs of 88 bytes 2.1 MiB. Its report is the one of libtracecmd's walk and one
# thread, which look ahead nowhere. Its call sites' rows, past 200 000 frames and
# stacks, are written on two threads with ATAG_THREADS=2 (lib/render/atag-render-json.c),
# on one with ATAG_THREADS=1: the same bytes, also with the rows cut by -n.
mkfixture -o "$T_TMP/many.dat" --generate 200000 --seed 3 --tags 4 --stacks 8000 \
	--vary-returns --cpus 3 --depth 14 > /dev/null
ATAG_THREADS=2 "$ATAG_CMD" report -f json "$T_TMP/many.dat" > "$T_TMP/many.json" 2>&1
ATAG_THREADS=1 ATAG_PAGES=0 "$ATAG_CMD" report -f json "$T_TMP/many.dat" > "$T_TMP/many0.json" 2>&1
n=$(jq '[.tags[].stacks | length] | add' "$T_TMP/many.json")
if [ "${n:-0}" -gt 25000 ] && cmp -s "$T_TMP/many.json" "$T_TMP/many0.json"; then
	ok "look-ahead: report of $n distinct stacks, as on one thread through libtracecmd"
else
	fail "look-ahead: report of ${n:-no} distinct stacks, as on one thread without it" \
		"$(diff "$T_TMP/many0.json" "$T_TMP/many.json" | head -5)"
fi
w=$(jq '[.tags[].stacks[] | (.frames | length) + 1] | add' "$T_TMP/many.json")
check "its rows are past the threshold of a second thread (200 000 frames and stacks: $w)" \
	test "${w:-0}" -gt 200000
ATAG_THREADS=2 "$ATAG_CMD" report -f json -n 3 "$T_TMP/many.dat" > "$T_TMP/many3.json" 2>&1
ATAG_THREADS=1 "$ATAG_CMD" report -f json -n 3 "$T_TMP/many.dat" > "$T_TMP/many31.json" 2>&1
check "rows cut by -n 3: the same on two threads as on one" \
	cmp "$T_TMP/many3.json" "$T_TMP/many31.json"
check "rows cut by -n 3: three rows" \
	test "$(jq '.tags | length' "$T_TMP/many3.json")" = 3

# Timestamps converted as the options ask (DATE: us, OFFSET: ns, TSC2NSEC: mult, shift;
# its offset is not applied): the page walker gives what libtracecmd gives (same), and
# what stock trace-cmd report prints (-t: in ns), in the top buffer and an instance.
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; echo 00; }
stock_ts() {	# stock_ts FILE: the top buffer's timestamps as trace-cmd report prints them
	env $ATAG_TRACECMD_ENV trace-cmd report -N -t -i "$1" 2>/dev/null |
		awk '/^cpus=/ || /^inst1:/ || /EVENTS DROPPED/ { next }
		     { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			 sub(/:$/, "", $i); sub(/\./, "", $i); sub(/^0+/, "", $i); print $i; break } }'
}
# TSC2NSEC: mult 2500, shift 10, offset 1000 (u32, u32, u64, little-endian)
tsc="option 14 c40900000a000000e803000000000000"
for o in "date:option 1 $(hex 0x1000)" "offset:option 7 $(hex 123456789)" "tsc2nsec:$tsc" \
	 "all three:$tsc;option 7 $(hex 123456789);option 1 $(hex 0x1000)"; do
	name=${o%%:*}
	{ cat "$T_TMP/a.txt"; echo "${o#*:}" | tr ';' '\n'; } |
		mkfixture -o "$T_TMP/conv.dat" - || fail "fixture $name"
	same "timestamps converted ($name)" "$T_TMP/conv.dat"
	same "timestamps converted ($name), an instance buffer" "$T_TMP/conv.dat" inst1
	"$WALK" "$T_TMP/conv.dat" | awk '{ print $2 }' > "$T_TMP/conv.ours"
	stock_ts "$T_TMP/conv.dat" > "$T_TMP/conv.stock"
	check_eq "timestamps converted ($name): as stock trace-cmd report prints them" \
		"$(paste -d' ' "$T_TMP/conv.ours" "$T_TMP/conv.stock")" \
		"$(paste -d' ' "$T_TMP/conv.stock" "$T_TMP/conv.stock")"
done
# by hand: 9000000000 cycles = 2 * 2^32 + 410065408; (410065408 * 2500 >> 10) +
# (2 * 2500 << 22) = 1001136250 + 20971520000, plus 123456789 ns, plus 0x1000 us
check_eq "TSC2NSEC, OFFSET and DATE: a timestamp past 2^32 cycles, by hand" \
	"$(sed -n 5p "$T_TMP/conv.ours")" "$((1001136250 + 20971520000 + 123456789 + 4096000))"

# what the walker cannot read right is refused, the file and the reason on one line
for o in "12 $(printf '%032x' 0)00:synchronised with a host's" \
	 "22 $(hex inst1):a latency trace" "14 c4090000210000000000000000000000:more than 32 bits"; do
	{ cat "$T_TMP/a.txt"; echo "option ${o%%:*}"; } | mkfixture -o "$T_TMP/no.dat" - ||
		fail "fixture ${o#*:}"
	"$ATAG_CMD" report "$T_TMP/no.dat" > /dev/null 2> "$T_TMP/no.err"
	check_eq "refused: ${o#*:} (exit 1, one line, named)" \
		"$?:$(wc -l < "$T_TMP/no.err"):$(grep -c "no.dat: .*${o#*:}" "$T_TMP/no.err")" "1:1:1"
done
{ cat "$T_TMP/a.txt"; echo "option 99 0102"; } | mkfixture -o "$T_TMP/unk.dat" -
same "an option it does not know: read as if absent, as libtracecmd does" "$T_TMP/unk.dat"

# a file recorded by trace-cmd on this machine, converted to v6
if is_root && [ -n "$(tracefs_dir)" ] && [ -d "$(tracefs_dir)/events/kmem" ]; then
	T=$(tracefs_dir)
	inst=atag-pages-$$
	at_exit "rmdir '$T/instances/$inst'"
	trace-cmd record -q -d -k -B "$inst" -T -e kmem:kmalloc -e kmem:kfree -o "$T_TMP/r7.dat" \
		sh -c 'for i in 1 2 3 4 5; do ls /usr > /dev/null; done' > /dev/null 2>&1
	rmdir "$T/instances/$inst" 2>/dev/null
	trace-cmd convert -i "$T_TMP/r7.dat" -o "$T_TMP/r6.dat" --file-version 6 > /dev/null 2>&1
	same "a trace-cmd recording (v7, zstd)" "$T_TMP/r7.dat" "$inst"
	same "a trace-cmd recording, as v6" "$T_TMP/r6.dat" "$inst"
else
	skip "a trace-cmd recording, as v6" "needs root and tracefs with kmem events"
fi

done_testing
