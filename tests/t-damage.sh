#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# Damaged and hostile trace.dat files: report and the plugin under stock trace-cmd
# read them in bounded time and memory, never outside a page, and say what they
# skipped. One test per defect of issue 12 (items 1-5) and of issue 26; each failed
# before the fix.
. "$(dirname "$0")/lib.sh"

DAMAGE=$ATAG_BUILD/tests/progs/trace-damage
RUN=$ATAG_BUILD/bench/atag-bench-run
report() { "$ATAG_CMD" report "$@"; }
# bounded: every run gets 60 s and 2 GiB of address space (ASan needs more of it)
limit() {
	if [ -n "$ASAN_OPTIONS" ]; then (timeout 60 "$@"); else (ulimit -v 2097152; timeout 60 "$@"); fi
}
# the byte offset of CPU $2's data in v6 file $1, from stock trace-cmd
cpu_offset() {
	trace-cmd dump --flyrecord -i "$1" 2>/dev/null |
		awk -v c="$2" '$NF == c"]" && /offset, size/ { print $1; exit }'
}

# CPU 0: 40 long records (hits with long names: type_len 0), two pages; CPU 1: their allocations
{
	echo "cpus 2"
	echo "kallsyms ffffffff81001000 T foo_create"
	echo "kallsyms ffffffff81010000 T _etext"
	i=1
	while [ $i -le 40 ]; do
		echo "ev 0 $((1000 + i)) 7 hit 0x$((160 + i)) NONE mm/foo.c" \
			"function_${i}_whose_long_name_makes_a_record_of_more_than_one_hundred_and_twelve_bytes $i"
		echo "ev 1 $((1000 + i)) 7 alloced 0x$((1000 + i)) 0x$((160 + i)) 64"
		i=$((i + 1))
	done
} > "$T_TMP/long.txt"
mkfixture -o "$T_TMP/long.dat" "$T_TMP/long.txt" || fail "fixture"
cpu0=$(cpu_offset "$T_TMP/long.dat" 0)
# where the 'function' __data_loc lies in an alloc_tag_hit record
floc=$(awk -F'[:;]' '/char\[\] function/ { print $4 }' "$ATAG_SRC/tests/fixture/formats/alloc_tag/alloc_tag_hit")
report -f json "$T_TMP/long.dat" > "$T_TMP/long.json" 2>/dev/null
check_eq "the undamaged file: complete, 40 call sites" \
	"$(jq -c '[.complete, (.tags | length)]' "$T_TMP/long.json")" "[true,40]"

# 12.1: a record whose length field runs past its page, with a string pointing past it
cp "$T_TMP/long.dat" "$T_TMP/past.dat"
"$DAMAGE" "$T_TMP/past.dat" past-page "$cpu0" "$floc" || fail "damage: past-page"
limit "$ATAG_CMD" report -f json "$T_TMP/past.dat" > "$T_TMP/past.json" 2> "$T_TMP/past.err"
check_eq "12.1 v6: a record past its page: exit 0, flagged incomplete" \
	"$?:$(jq -c .complete "$T_TMP/past.json")" "0:false"
check_grep "12.1 v6: the notice names the buffer, CPU and page" \
	"past.dat: buffer top, CPU 0: a record at [0-9]+ of the page at offset $cpu0 runs past its end; skipped" \
	"$T_TMP/past.json"
check_eq "12.1 v6: no call site made of bytes outside the record" \
	"$(jq -c '[.tags[].function | select(. != null and (startswith("function_") | not))]' \
		"$T_TMP/past.json")" "[]"
# the same damage on the last page of a CPU, in a zstd v7 copy (a heap buffer before)
cp "$T_TMP/long.dat" "$T_TMP/past-last.dat"
"$DAMAGE" "$T_TMP/past-last.dat" past-page $((cpu0 + 4096)) "$floc" || fail "damage: past-page"
if trace-cmd convert -i "$T_TMP/past-last.dat" -o "$T_TMP/past7.dat" --file-version 7 \
		--compression zstd > /dev/null 2>&1; then
	limit "$ATAG_CMD" report -f json "$T_TMP/past7.dat" > "$T_TMP/past7.json" 2> "$T_TMP/past7.err"
	check_eq "12.1 zstd v7: exit 0, flagged incomplete" \
		"$?:$(jq -c .complete "$T_TMP/past7.json")" "0:false"
	check_grep "12.1 zstd v7: the notice says which page of which chunk" \
		"CPU 0: a record at [0-9]+ of page 1 of the chunk at offset [0-9]+ runs past its end" \
		"$T_TMP/past7.json"
	# the plugin's string reader under stock trace-cmd report
	tracecmd report -i "$T_TMP/past7.dat" > "$T_TMP/past7.tc" 2>&1
	check_eq "12.1 plugin, zstd v7: trace-cmd report exits 0" "$?" 0
	check_grep "12.1 plugin, zstd v7: the record prints [bad record]" \
		'alloc_tag_hit: +\[bad record\]$' "$T_TMP/past7.tc"
else
	skip "12.1 zstd v7" "trace-cmd convert cannot write zstd v7 here"
fi
tracecmd report -i "$T_TMP/past.dat" > "$T_TMP/past.tc" 2>&1
check_eq "12.1 plugin, v6: trace-cmd report exits 0" "$?" 0
check_grep "12.1 plugin, v6: the record prints [bad record]" 'alloc_tag_hit: +\[bad record\]$' \
	"$T_TMP/past.tc"
check_eq "12.1 plugin, v6: every other hit prints its call site" \
	"$(grep -c 'alloc_tag_hit: *function_[0-9]*_whose' "$T_TMP/past.tc")" 39

# 12.2: a 16 KiB v7 file naming CPU 50,000,000: per-CPU state sized by the CPUs present
cat > "$T_TMP/cpu.txt" <<'DESC'
cpus 2
buffer atagbuf
ev atagbuf:0 1000 1 alloced 0x10 0xa0 8
missed atagbuf:1 5
ev atagbuf:1 2000 1 freed 0x10 0xa0 8
ev atagbuf:1 3000 1 alloced 0x20 0xa0 16
DESC
mkfixture -o "$T_TMP/cpu6.dat" "$T_TMP/cpu.txt"
if trace-cmd convert -i "$T_TMP/cpu6.dat" -o "$T_TMP/cpu.dat" --file-version 7 \
		--compression none > /dev/null 2>&1 &&
   "$DAMAGE" "$T_TMP/cpu.dat" cpu-id atagbuf 1 50000000; then
	report -f json "$T_TMP/cpu6.dat" > "$T_TMP/cpu6.json" 2>/dev/null
	out=$(limit "$RUN" "$ATAG_CMD" report -f json "$T_TMP/cpu.dat" 2>/dev/null)
	rc=$?
	set -- $out
	check_eq "12.2 CPU 50000000: exit 0 within the time and memory limits" "$rc" 0
	if [ "$rc" = 0 ] && [ "${2:-0}" -lt 65536 ] && [ -z "$ASAN_OPTIONS" ]; then
		ok "12.2 CPU 50000000: peak RSS $2 KiB"
	elif [ "$rc" = 0 ] && [ -n "$ASAN_OPTIONS" ]; then
		skip "12.2 CPU 50000000: peak RSS" "ASan's shadow memory"
	else
		fail "12.2 CPU 50000000: peak RSS ${2:-?} KiB (64 MiB at most)"
	fi
	limit "$ATAG_CMD" report -f json "$T_TMP/cpu.dat" > "$T_TMP/cpu.json" 2>/dev/null
	check_eq "12.2 CPU 50000000: the same totals as the file naming CPU 1" \
		"$(jq -c .totals "$T_TMP/cpu.json")" "$(jq -c .totals "$T_TMP/cpu6.json")"
	check_eq "12.2 CPU 50000000: lost events reported with the file's CPU id" \
		"$(jq -r '.notices[0]' "$T_TMP/cpu.json")" \
		"$T_TMP/cpu.dat: buffer atagbuf, CPU 50000000: 5 events were lost"
else
	skip "12.2 CPU 50000000" "trace-cmd convert cannot write an uncompressed v7 file here"
fi

# 12.3: kallsyms with a NUL inside a module name (a heap over-read before)
cat > "$T_TMP/nul.txt" <<'DESC'
cpus 1
kallsyms ffffffff81000000 T trace_event_raw_event_kmalloc
kallsyms ffffffffc0001000 t foo_alloc fooXbar
kallsyms ffffffffc0002000 t foo_ioctl fooXbar
kallsyms ffffffffc0003000 t foo_more fooXbar
ev 0 1000 1 kmalloc 0xffffffffc0001000 0x100 8 8
ev 0 1001 1 stack 0xffffffff81000010 0xffffffffc0001010 0xffffffffc0002030
DESC
mkfixture -o "$T_TMP/nul.dat" "$T_TMP/nul.txt"
for at in $(grep -obUa 'fooXbar' "$T_TMP/nul.dat" | cut -d: -f1); do
	"$DAMAGE" "$T_TMP/nul.dat" poke $((at + 3)) u8 0 || fail "damage: poke"
done
limit "$ATAG_CMD" report -f json "$T_TMP/nul.dat" > "$T_TMP/nul.json" 2> "$T_TMP/nul.err"
check_eq "12.3 a NUL inside a module name: exit 0" "$?" 0
# kallsyms ends at the NUL, as libtraceevent reads it: foo_alloc, without a module
check_eq "12.3 the text ends at the NUL: the call site without a module" \
	"$(jq -c '[.tags[] | [.function, .module]]' "$T_TMP/nul.json")" '[["foo_alloc",null]]'

# 12.4: a padding event of length -4 (kbuffer loops on it forever)
cp "$T_TMP/long.dat" "$T_TMP/pad.dat"
"$DAMAGE" "$T_TMP/pad.dat" padding "$cpu0" -4 || fail "damage: padding"
limit "$ATAG_CMD" report -f json "$T_TMP/pad.dat" > "$T_TMP/pad.json" 2> "$T_TMP/pad.err"
check_eq "12.4 a padding of length -4: exit 0 in time, flagged incomplete" \
	"$?:$(jq -c .complete "$T_TMP/pad.json")" "0:false"
check_grep "12.4 the notice says what was skipped" \
	"CPU 0: a padding at 0 of the page at offset $cpu0 has a negative length; skipped" \
	"$T_TMP/pad.json"
check_eq "12.4 the rest of the page is skipped, the next page read" \
	"$(jq -c '[.tags[].function] | [index("function_1_whose_long_name_makes_a_record_of_more_than_one_hundred_and_twelve_bytes") == null, index("function_40_whose_long_name_makes_a_record_of_more_than_one_hundred_and_twelve_bytes") != null]' \
		"$T_TMP/pad.json")" "[true,true]"
# through libtracecmd (ATAG_PAGES=0): refused before kbuffer sees the page, no child left
ATAG_PAGES=0 limit "$ATAG_CMD" report -f json "$T_TMP/pad.dat" > /dev/null 2> "$T_TMP/pad0.err"
check_eq "12.4 ATAG_PAGES=0: exit 1 in time, one line" "$?:$(wc -l < "$T_TMP/pad0.err")" "1:1"
check_grep "12.4 ATAG_PAGES=0: the page is named, libtracecmd is not asked" \
	"pad.dat: corrupt ring-buffer data in buffer top \\(buffer top, CPU 0: a padding" \
	"$T_TMP/pad0.err"
left=""
for p in /proc/[0-9]*; do
	cat "$p/cmdline" 2>/dev/null | tr '\0' ' ' | grep -qF "$T_TMP/pad.dat" &&
		left="$left ${p#/proc/}"
done
check_eq "12.4 no process left reading the file" "$left" ""
for p in $left; do kill -9 "$p" 2>/dev/null; done

# 12.5: a 15 KiB file whose table claims 1 GiB for its last CPU: memory bounded by the file
cp "$T_TMP/long.dat" "$T_TMP/claim.dat"
table=$(grep -obUa 'flyrecord' "$T_TMP/claim.dat" | head -1 | cut -d: -f1)
"$DAMAGE" "$T_TMP/claim.dat" poke $((table + 10 + 16 + 8)) u64 $((1 << 30)) || fail "damage: poke"
truncate -s $(($(cpu_offset "$T_TMP/long.dat" 1) + 3000)) "$T_TMP/claim.dat"
"$ATAG_CMD" report -f json "$T_TMP/claim.dat" > "$T_TMP/claim.json" 2>/dev/null &
pid=$!
big=0
while kill -0 $pid 2>/dev/null; do
	for f in /proc/$pid/fd/*; do
		case "$(readlink "$f" 2>/dev/null)" in
		*memfd*) s=$(stat -L -c %s "$f" 2>/dev/null || echo 0)
			 [ "$s" -gt "$big" ] && big=$s ;;
		esac
	done
	sleep 0.02
done
wait $pid
check_eq "12.5 a 15 KiB file claiming 1 GiB: exit 0" "$?" 0
check_eq "12.5 no memory file larger than the file" "$([ "$big" -le 16384 ] && echo ok || echo "$big bytes")" ok
check_eq "12.5 read up to the cut, flagged truncated" \
	"$(jq -c '[.complete, .files[0].truncated]' "$T_TMP/claim.json")" '[false,true]'

# 26.1: a header page that lies about the page (a data field of 4000 bytes: 4016-byte
# pages, not a power of two; of 8176: 8 KiB pages in a file of 4 KiB ones): the plugin
# still reads no byte past the page of the record that runs past it
at=$(grep -obUa 'size:4080' "$T_TMP/past.dat" | cut -d: -f1)
poke_text() {	# poke_text FILE OFFSET TEXT
	i=0
	while [ $i -lt ${#3} ]; do
		c=$(printf '%s' "$3" | cut -c$((i + 1)))
		"$DAMAGE" "$1" poke $(($2 + i)) u8 "$(printf '%d' "'$c")" || fail "damage: poke"
		i=$((i + 1))
	done
}
hits_ok() {	# a hit prints its call site or [bad record], nothing else
	grep -a 'alloc_tag_hit:' "$1" | grep -avE 'alloc_tag_hit: +(\[bad record\]|function_[0-9]+_whose_long_name_makes_a_record_of_more_than_one_hundred_and_twelve_bytes mm/foo\.c:[0-9]+ tag=0x[0-9a-f]+)$'
}
for size in 4000 8176; do
	cp "$T_TMP/past.dat" "$T_TMP/hp$size.dat"
	poke_text "$T_TMP/hp$size.dat" $((at + 5)) $size
	set -- "$T_TMP/hp$size.dat"
	if trace-cmd convert -i "$T_TMP/hp$size.dat" -o "$T_TMP/hp$size-7.dat" --file-version 7 \
			--compression zstd > /dev/null 2>&1; then
		set -- "$@" "$T_TMP/hp$size-7.dat"
	else
		skip "26.1 data size $size, zstd v7" "trace-cmd convert cannot write zstd v7 here"
	fi
	for f in "$@"; do
		v=$(case $f in *-7.dat) echo "zstd v7" ;; *) echo v6 ;; esac)
		tracecmd report -i "$f" > "$f.tc" 2>&1
		check_eq "26.1 plugin, header page data size $size, $v: trace-cmd report exits 0" \
			"$?" 0
		check_eq "26.1 plugin, data size $size, $v: no bytes past the page printed" \
			"$(hits_ok "$f.tc")" ""
		check_eq "26.1 plugin, data size $size, $v: the record past its page is bad" \
			"$(grep -ac 'alloc_tag_hit: *\[bad record\]$' "$f.tc" | awk '{ print ($1 >= 1) }')" 1
	done
done
# 26.9: 300 BUFFER options, past the 256 buffers a file may have: said so (it said
# "out of memory")
{
	echo "cpus 1"
	i=0
	while [ $i -lt 300 ]; do echo "buffer b$i"; i=$((i + 1)); done
	echo "ev 0 1000 1 alloced 0x10 0xa0 8"
} > "$T_TMP/buf300.txt"
mkfixture -o "$T_TMP/buf300.dat" "$T_TMP/buf300.txt" || fail "fixture buf300"
report "$T_TMP/buf300.dat" > /dev/null 2> "$T_TMP/buf300.err"
check_eq "26.9 300 instance buffers: exit 1, the cap named" "$?:$(cat "$T_TMP/buf300.err")" \
	"1:trace-cmd-alloc-tag: $T_TMP/buf300.dat: corrupt header: more than 256 buffers (instances)"

# 26.6: names in a trace that would drive a terminal or a spreadsheet: control
# characters (ESC, BEL, the C1 CSI) shown escaped in text, CSV and lifetimes output and
# in the notices on stderr; CSV cells that start as a formula (=, +, -, @) neutralised
# with a leading '; JSON keeps the exact names (its own escapes)
ESC=$(printf '\033') BEL=$(printf '\007') CSI=$(printf '\302\233')
cat > "$T_TMP/inj.txt" <<DESC
cpus 1
comm 100 ${ESC}]0;pwned${BEL}
comm 101 -bash
ev 0 900 50 marker record 50 alloc_tag no
ev 0 901 50 marker counters start 0 0 - mm/x${ESC}[2J.c 3 =HYPERLINK("http://x")
ev 0 1000 100 hit 0xffffffff82000000 evil${ESC}[31m mm/x${ESC}[2J.c =HYPERLINK("http://x") 3
ev 0 1001 100 alloced 0xffff888000000100 0xffffffff82000000 64
ev 0 1002 101 hit 0xffffffff82000040 NONE mm/y${CSI}2J.c @SUM(A1) 4
ev 0 1003 101 alloced 0xffff888000000200 0xffffffff82000040 32
ev 0 2000 50 marker counters end 128 2 - mm/x${ESC}[2J.c 3 =HYPERLINK("http://x")
ev 0 2001 50 marker end done${ESC}c
DESC
mkfixture -o "$T_TMP/inj.dat" "$T_TMP/inj.txt" || fail "fixture inj"
raw() {	# raw FILE: the lines holding a control character a terminal acts on
	LC_ALL=C grep -n "[$ESC$BEL]\|$CSI" "$1"
}
I="--all-tags --all-tasks $T_TMP/inj.dat"
report --live --stacks $I > "$T_TMP/inj.text" 2> "$T_TMP/inj.err"
check_eq "26.6 text: no control character reaches the terminal" \
	"$(raw "$T_TMP/inj.text")$(raw "$T_TMP/inj.err")" ""
check_grep "26.6 text: the call site, module and comm escaped" \
	'^1\.0 us .* \\x1b\]0;pwned\\x07 +=HYPERLINK\("http://x"\) mm/x\\x1b\[2J\.c:3 \[evil\\x1b\[31m\]$' \
	"$T_TMP/inj.text"
check_grep "26.6 text: the recording's end line escaped" 'ended: done\\x1bc$' "$T_TMP/inj.text"
check_grep "26.6 the notice on stderr escaped" \
	'warning: .*inj\.dat: =HYPERLINK\("http://x"\) mm/x\\x1b\[2J\.c:3: the trace misses' \
	"$T_TMP/inj.err"
check_grep "26.6 text: the C1 CSI escaped" 'mm/y\\xc2\\x9b2J\.c:4' "$T_TMP/inj.text"
report -f csv --live $I > "$T_TMP/inj.csv" 2> /dev/null
check_eq "26.6 csv: no control character" "$(raw "$T_TMP/inj.csv")" ""
check_eq "26.6 csv --live: formulas neutralised, names escaped" \
	"$(grep '^0xffff888' "$T_TMP/inj.csv" | cut -d, -f3-9)" \
	'"'"'"'=HYPERLINK(""http://x"")",mm/x\x1b[2J.c,3,evil\x1b[31m,64,100,\x1b]0;pwned\x07
'"'"'@SUM(A1),mm/y\xc2\x9b2J.c,4,,32,101,'"'"'-bash'
report -f lifetimes $I > "$T_TMP/inj.rows" 2> /dev/null
check_eq "26.6 lifetimes: no control character, formulas neutralised" \
	"$(raw "$T_TMP/inj.rows")$(tail -n +2 "$T_TMP/inj.rows" | cut -d, -f5,12 | sort)" \
	'"'"'"'=HYPERLINK(""http://x"")",\x1b]0;pwned\x07
'"'"'@SUM(A1),'"'"'-bash'
report --timeline $I > "$T_TMP/inj.tl" 2> /dev/null
"$ATAG_CMD" diff $T_TMP/inj.dat $T_TMP/inj.dat --all-tags --all-tasks --stacks \
	> "$T_TMP/inj.diff" 2>&1
check_eq "26.6 timeline and diff text: no control character" \
	"$(raw "$T_TMP/inj.tl")$(raw "$T_TMP/inj.diff")" ""
report -f json $I > "$T_TMP/inj.json" 2> /dev/null
check_eq "26.6 json: the exact names" \
	"$(jq -c '[.tags[] | select(.module != null) | .module, .function]' "$T_TMP/inj.json")" \
	'["evil\u001b[31m","=HYPERLINK(\"http://x\")"]'
printf '%s\n' 'allocinfo - version: 2.0' '#     <size>  <calls> <tag info>' \
	"       4096        1 mm/e${ESC}[2J.c:1 func:-ls${BEL}" > "$T_TMP/inj.ai"
"$ATAG_CMD" list --allocinfo "$T_TMP/inj.ai" > "$T_TMP/inj.list" 2>&1
"$ATAG_CMD" list --allocinfo "$T_TMP/inj.ai" -f csv >> "$T_TMP/inj.list" 2>&1
check_eq "26.6 list: text and csv escaped, the csv cell neutralised" \
	"$(raw "$T_TMP/inj.list")$(grep -c "'-ls\\\\x07,mm/e\\\\x1b\\[2J.c" "$T_TMP/inj.list")" "1"
# folded stacks go into flamegraph.pl's SVG, which must be UTF-8: a C1 control and
# bytes of no UTF-8 character become '_' as the other controls do, in report's and
# diff's folded output
printf '%s\n' 'cpus 1' 'comm 100 w' \
	"ev 0 1000 100 hit 0xffffffff82000000 NONE mm/z${CSI}2J.c $(printf 'bad\377fn') 5" \
	'ev 0 1001 100 alloced 0xffff888000000100 0xffffffff82000000 64' > "$T_TMP/utf.txt"
mkfixture -o "$T_TMP/utf.dat" "$T_TMP/utf.txt" || fail "fixture utf"
report -f folded $I > "$T_TMP/inj.folded" 2> /dev/null
report -f folded --all-tags --all-tasks "$T_TMP/utf.dat" > "$T_TMP/utf.folded" 2> /dev/null
"$ATAG_CMD" diff -f folded "$T_TMP/utf.dat" "$T_TMP/utf.dat" > "$T_TMP/utf.dfolded" 2> /dev/null
check_eq "26.6 folded: no control character, UTF-8 throughout, the names' bytes as '_'" \
	"$(raw "$T_TMP/inj.folded")$(cat "$T_TMP/utf.folded" "$T_TMP/utf.dfolded" |
	   iconv -f UTF-8 -t UTF-8 > /dev/null 2>&1 && echo utf-8):$(cat "$T_TMP/utf.folded" "$T_TMP/utf.dfolded")" \
	"utf-8:bad_fn@mm/z_2J.c:5 64
bad_fn@mm/z_2J.c:5 64 64"

# 26.7: implausible data is not called complete. Pages whose timestamps run backwards
# (the second page of CPU 0 dated 0)
cp "$T_TMP/long.dat" "$T_TMP/back.dat"
"$DAMAGE" "$T_TMP/back.dat" poke $((cpu0 + 4096)) u64 0 || fail "damage: poke"
for walk in pages libtracecmd; do
	if [ $walk = pages ]; then
		report -f json "$T_TMP/back.dat" > "$T_TMP/back.json" 2> /dev/null
	else
		ATAG_PAGES=0 report -f json "$T_TMP/back.dat" > "$T_TMP/back.json" 2> /dev/null
	fi
	check_eq "26.7 timestamps running backwards ($walk): exit 0, flagged incomplete" \
		"$?:$(jq -c .complete "$T_TMP/back.json")" "0:false"
	check_grep "26.7 timestamps running backwards ($walk): said" \
		'back\.dat: buffer top, CPU 0: its timestamps run backwards 1 time \(damaged or forged pages\)' \
		"$T_TMP/back.json"
done
# sizes no machine has: 20 allocations of 2^64 - 1 bytes (their sum wrapped: "16.0 EiB")
{
	echo "cpus 1"
	i=0
	while [ $i -lt 20 ]; do
		echo "ev 0 $((1000 + i)) 7 alloced 0x$((1000 + i)) 0xa0 18446744073709551615"
		i=$((i + 1))
	done
	echo "ev 0 2000 7 alloced 0x2000 0xa0 64"
} > "$T_TMP/huge.txt"
mkfixture -o "$T_TMP/huge.dat" "$T_TMP/huge.txt" || fail "fixture huge"
report -f json "$T_TMP/huge.dat" > "$T_TMP/huge.json" 2> /dev/null
check_eq "26.7 20 allocations of 2^64 - 1 bytes: skipped, flagged incomplete, said" \
	"$?:$(jq -c '[.complete, .totals.allocs, .totals.bytes_alloced]' "$T_TMP/huge.json"):$(jq -r '.notices[]' "$T_TMP/huge.json")" \
	"0:[false,1,64]:$T_TMP/huge.dat: 20 allocation and free records claim more than 4 PiB each (more memory than a machine can address): skipped"
# sizes each possible, their sum not: 5000 allocations of 4 PiB (2^64.3 bytes); with a
# timeline (its changes added up past 2^63) and counters lines claiming 2^63 calls
{
	echo "cpus 1"
	echo "ev 0 900 50 marker record 50 alloc_tag no"
	echo "ev 0 901 50 marker select-all"
	echo "ev 0 902 50 marker counters start 0 0 - mm/b.c 1 big"
	echo "ev 0 999 7 hit 0xa0 NONE mm/b.c big 1"
	i=0
	while [ $i -lt 5000 ]; do
		echo "ev 0 $((1000 + i)) 7 alloced 0x$((10000 + i)) 0xa0 4503599627370496"
		i=$((i + 1))
	done
	echo "ev 0 9000 50 marker counters end 18446744073709551615 9223372036854775808 - mm/b.c 1 big"
	echo "ev 0 9001 50 marker end done"
} > "$T_TMP/sum.txt"
mkfixture -o "$T_TMP/sum.dat" "$T_TMP/sum.txt" || fail "fixture sum"
report -f json "$T_TMP/sum.dat" > "$T_TMP/sum.json" 2> /dev/null
check_eq "26.7 bytes adding up past 2^64: exit 0, flagged incomplete" \
	"$?:$(jq -c '[.complete, .totals.allocs]' "$T_TMP/sum.json")" "0:[false,5000]"
check_grep "26.7 bytes adding up past 2^64: said" \
	'sum\.dat: its allocations and frees add up to more than 2\^62 bytes \(implausible\)' \
	"$T_TMP/sum.json"
for v in "--timeline" "" "-f csv --timeline"; do
	report $v "$T_TMP/sum.dat" > /dev/null 2> "$T_TMP/sum.err"
	check_eq "26.7 bytes past 2^63, counters of 2^63 calls: report $v exits 0" \
		"$?:$(grep -c 'runtime error' "$T_TMP/sum.err")" "0:0"
done

# 26.8: the report fuzz target (its replay, built in the ASan+UBSan build) reaches what
# report reaches: a file whose timestamps are converted (a DATE option: once read through
# libtracecmd after a probe child's fork, now by the page walker, in-process) and every
# renderer; a trace with nothing live stopped it in lifetimes (26.2) once it ran there
R=$ATAG_BUILD/tests/fuzz/replay-report
if [ ! -x "$R" ]; then
	skip "26.8 the report fuzz target" "its replay is built by the ASan+UBSan build"
elif ! command -v strace > /dev/null; then
	skip "26.8 the report fuzz target" "strace is not installed"
else
	{ cat "$ATAG_SRC/tests/data/lifetimes.txt"; echo "option 1 30783130303000"; } |
		mkfixture -o "$T_TMP/date.dat" - || fail "fixture date"
	printf '%s\n' "cpus 1" "ev 0 1000 7 hit 0xa0 NONE mm/f.c f 1" \
		"ev 0 1001 7 alloced 0x100 0xa0 64" "ev 0 2001 7 freed 0x100 0xa0 64" |
		mkfixture -o "$T_TMP/freed.dat" - || fail "fixture freed"
	# (LeakSanitizer cannot work under strace: leaks are looked for in the run after)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq \
		-e trace=clone,clone3,fork,vfork -o "$T_TMP/date.st" "$R" "$T_TMP/date.dat" \
		> /dev/null 2>&1
	check_eq "26.8 fuzz-report: a DATE file read without a child process (threads only)" \
		"$?:$(grep -E '(clone|clone3|fork|vfork)\(' "$T_TMP/date.st" | grep -c -v CLONE_THREAD)" \
		"0:0"
	FUZZ_REPORT_SAY=1 "$R" "$T_TMP/date.dat" "$T_TMP/freed.dat" > /dev/null \
		2> "$T_TMP/date.said"
	check_eq "26.8 fuzz-report: exit 0" "$?" 0
	check_eq "26.8 fuzz-report: every renderer, on both files" \
		"$(grep -v '^input' "$T_TMP/date.said" | sed 's/ $//' | sort -u)" \
		"lifetimes json text csv folded pprof html timeline-text timeline-json timeline-csv diff-text diff-json diff-csv diff-folded
lifetimes-json json text csv folded pprof html timeline-text timeline-json timeline-csv diff-text diff-json diff-csv diff-folded"
fi

done_testing
