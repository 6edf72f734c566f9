#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# The trace.dat fixture writer, read back by stock trace-cmd.
. "$(dirname "$0")/lib.sh"

report() { env $ATAG_TRACECMD_ENV trace-cmd report -N "$@"; }

cat > "$T_TMP/a.txt" <<'DESC'
cpus 4
buffer inst1
kallsyms ffffffff81200000 T kmalloc_trace
kallsyms ffffffff81300000 T foo_fn foo
kallsyms ffffffff81400000 T _etext
comm 4242 alloc-test
ev 0 1000 4242 hit 0xffffffff82000000 NONE mm/slub.c kmalloc_trace 4100
ev 0 1001 4242 stack 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8 0x9 0xa 0xb 0xc 0xffffffff81200010 0xffffffff81300004
ev 3 1500 4242 kmalloc 0xffffffff81200020 0xffff888000003000 60 64
ev 3 1600 4242 kfree 0xffffffff81200030 0xffff888000003000
ev 2 1700 7 cache_alloc 0xffffffff81200020 0xffff888000004000 200 256 dentry
ev 2 1800 7 cache_free 0xffffffff81200030 0xffff888000004000 dentry
ev 1 1900 7 page_alloc 0x1234 2
ev 1 1950 7 page_free 0x1234 2
ev inst1:1 2000 7 freed 0x10 0x20 30
ev 0 200000001000 4242 alloced 0x30 0x40 50
missed 2 17
ev 2 300000000000 7 freed 0x30 0x40 50
DESC
mkfixture -o "$T_TMP/a.dat" "$T_TMP/a.txt"
check_eq "description accepted" "$?" 0
report -i "$T_TMP/a.dat" > "$T_TMP/a.out" 2>&1
check_eq "trace-cmd report reads it" "$?" 0
report -R -i "$T_TMP/a.dat" > "$T_TMP/a.raw" 2>&1
check_grep "cpus line" '^cpus=4$' "$T_TMP/a.out"
check_grep "comm resolved" 'alloc-test-4242 +\[000\] +0.000001: alloc_tag_hit:' "$T_TMP/a.out"
check_grep "hit fields" 'tag 0xffffffff82000000, module: NONE, filename: mm/slub.c, function kmalloc_trace, lineno 4100' "$T_TMP/a.out"
check_grep "a 14-frame stack record keeps its size" 'kernel_stack: .*size=14' "$T_TMP/a.raw"
check_grep "kmem:kmalloc decoded" 'kmalloc: +call_site=.*ptr=0xffff888000003000 bytes_req=60 bytes_alloc=64' "$T_TMP/a.out"
check_grep "kmem:kfree decoded" 'kfree: +call_site=.*ptr=0xffff888000003000' "$T_TMP/a.out"
check_grep "kmem_cache_alloc with its name string" 'kmem_cache_alloc: +call_site=.*name=dentry bytes_req=200 bytes_alloc=256' "$T_TMP/a.out"
check_grep "kmem_cache_free" 'kmem_cache_free: +call_site=.*name=dentry' "$T_TMP/a.out"
check_grep "mm_page_alloc" 'mm_page_alloc: .*pfn=0x1234 order=2' "$T_TMP/a.out"
check_grep "mm_page_free" 'mm_page_free: .*pfn=0x1234 order=2' "$T_TMP/a.out"
check_grep "instance buffer" '^inst1: .*alloc_tag_mem_freed: +ptr 0x10, tag 0x20, bytes 30' "$T_TMP/a.out"
check_grep "timestamp after time extends (200 s)" '\[000\] +200.000001: alloc_tag_mem_alloced' "$T_TMP/a.out"
check_grep "missed events flag" 'CPU:2 \[17 EVENTS DROPPED\]' "$T_TMP/a.out"
check_grep "timestamp after a 300 s gap on a flagged page" '\[002\] +300.000000: alloc_tag_mem_freed' "$T_TMP/a.out"

# with the plugin, the 14-frame stack prints every frame
tracecmd report -i "$T_TMP/a.dat" > "$T_TMP/a.plug" 2>&1
check_eq "kernel_stack frames as trace-cmd symbolises them" \
	"$(grep -c '^=> ' "$T_TMP/a.plug")" 14
check_grep "module symbols" '^=> foo_fn \(ffffffff81300004\)' "$T_TMP/a.plug"

# errors name the file and line
printf 'cpus 2\nev 5 10 1 hit 1 NONE a.c f 1\n' > "$T_TMP/bad1.txt"
mkfixture -o "$T_TMP/x.dat" "$T_TMP/bad1.txt" 2> "$T_TMP/err"
check_eq "bad cpu: exit 1" "$?" 1
check_grep "bad cpu: file and line" "bad1.txt:2: cpu 5 out of range" "$T_TMP/err"
printf 'ev 0 10 1 alloced 0x1 0x2\n' > "$T_TMP/bad2.txt"
mkfixture -o "$T_TMP/x.dat" "$T_TMP/bad2.txt" 2> "$T_TMP/err"
check_grep "wrong argument count" "bad2.txt:1: event alloced takes 3 arguments" "$T_TMP/err"
printf 'ev 0 10 1 alloced 0x1 0x2 3\nev 0 5 1 alloced 0x1 0x2 3\n' > "$T_TMP/bad3.txt"
mkfixture -o "$T_TMP/x.dat" "$T_TMP/bad3.txt" 2> "$T_TMP/err"
check_grep "time going backwards on a CPU" "bad3.txt:2: cannot write event" "$T_TMP/err"

# the generator: deterministic, counts as promised, read back whole
mkfixture -o "$T_TMP/g1.dat" --generate 20000 --seed 3 --live 100 --expect "$T_TMP/g1.exp"
mkfixture -o "$T_TMP/g2.dat" --generate 20000 --seed 3 --live 100
mkfixture -o "$T_TMP/g3.dat" --generate 20000 --seed 4 --live 100
check_eq "same seed, same file" "$(cksum < "$T_TMP/g1.dat")" "$(cksum < "$T_TMP/g2.dat")"
if cmp -s "$T_TMP/g1.dat" "$T_TMP/g3.dat"; then fail "another seed, another file"; else
	ok "another seed, another file"; fi
report -i "$T_TMP/g1.dat" > "$T_TMP/g1.out" 2>&1
n_events=$(grep -c ': alloc_tag_\|: kernel_stack:' "$T_TMP/g1.out")
check_eq "every generated event reads back" "$n_events" "$(awk '$1 == "events" { print $2 }' "$T_TMP/g1.exp")"
check_eq "allocs as expected" "$(grep -c ': alloc_tag_mem_alloced:' "$T_TMP/g1.out")" \
	"$(awk '$1 == "allocs" { print $2 }' "$T_TMP/g1.exp")"
check_eq "frees as expected" "$(grep -c ': alloc_tag_mem_freed:' "$T_TMP/g1.out")" \
	"$(awk '$1 == "frees" { print $2 }' "$T_TMP/g1.exp")"
check_eq "live = allocs - frees" "$(awk '$1 == "live" { print $2 }' "$T_TMP/g1.exp")" 100
mkfixture -o "$T_TMP/k.dat" --generate 3000 --source kmem --expect "$T_TMP/k.exp"
report -i "$T_TMP/k.dat" > "$T_TMP/k.out" 2>&1
check_eq "kmem generator: kmalloc count" "$(grep -c ': kmalloc:' "$T_TMP/k.out")" \
	"$(awk '$1 == "allocs" { print $2 }' "$T_TMP/k.exp")"

done_testing
