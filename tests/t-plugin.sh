#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# plugin_alloc_tag.so through stock trace-cmd: report, options, -O.
. "$(dirname "$0")/lib.sh"

cat > "$T_TMP/p.txt" <<'DESC'
cpus 2
buffer inst1
kallsyms ffffffff81200000 T kmalloc_trace
comm 4242 alloc-test
ev 0 1000 4242 alloced 0xffff888000000100 0xffffffff82000000 8
ev 0 2000 4242 hit 0xffffffff82000000 NONE mm/slub.c kmalloc_trace 4100
ev 0 2001 4242 stack 0xffffffff81200010
ev 0 2002 4242 alloced 0xffff888000001000 0xffffffff82000000 4096
ev 1 3000 4243 hit 0xffffffff82000040 foo drivers/foo.c foo_alloc 12
ev 1 3001 4243 alloced 0xffff888000002000 0xffffffff82000040 128
ev inst1:0 3500 4243 freed 0xffff888000002000 0xffffffff82000040 128
ev 1 9000 4242 freed 0xffff888000001000 0xffffffff82000000 4096
DESC
mkfixture -o "$T_TMP/p.dat" "$T_TMP/p.txt" || fail "fixture"

tracecmd report -i "$T_TMP/p.dat" > "$T_TMP/out" 2> "$T_TMP/err"
check_eq "trace-cmd report exits 0" "$?" 0
check_grep "alloced before any hit shows the tag pointer" \
	'alloc_tag_mem_alloced: ptr=0xffff888000000100 bytes=8 tag=0xffffffff82000000$' "$T_TMP/out"
check_grep "hit: function file:line and the tag" \
	'alloc_tag_hit: +kmalloc_trace mm/slub.c:4100 tag=0xffffffff82000000$' "$T_TMP/out"
check_grep "hit: module call site" \
	'alloc_tag_hit: +foo_alloc drivers/foo.c:12 \[foo\] tag=0xffffffff82000040$' "$T_TMP/out"
check_grep "alloced: call site resolved, human size" \
	'alloc_tag_mem_alloced: ptr=0xffff888000001000 bytes=4096 \(4.00 KiB\) kmalloc_trace mm/slub.c:4100$' \
	"$T_TMP/out"
check_grep "freed in an instance buffer: resolved from the top buffer's hit" \
	'^inst1: .*alloc_tag_mem_freed: +ptr=0xffff888000002000 bytes=128 foo_alloc drivers/foo.c:12 \[foo\]$' \
	"$T_TMP/out"
check_grep "freed: resolved" \
	'alloc_tag_mem_freed: +ptr=0xffff888000001000 bytes=4096 \(4.00 KiB\) kmalloc_trace mm/slub.c:4100$' \
	"$T_TMP/out"
check_nogrep "no alloced/freed line unresolved after the hits" \
	'alloc_tag_mem_.*tag=0xffffffff82000040$' "$T_TMP/out"

tracecmd report -O alloc_tag:resolve=0 -i "$T_TMP/p.dat" > "$T_TMP/out0" 2>&1
check_grep "-O alloc_tag:resolve=0 shows tag pointers" \
	'alloc_tag_mem_freed: +ptr=0xffff888000001000 bytes=4096 \(4.00 KiB\) tag=0xffffffff82000000$' \
	"$T_TMP/out0"
tracecmd report -O alloc_tag:human=0 -i "$T_TMP/p.dat" > "$T_TMP/out1" 2>&1
check_grep "-O alloc_tag:human=0 drops human sizes" \
	'alloc_tag_mem_freed: +ptr=0xffff888000001000 bytes=4096 kmalloc_trace' "$T_TMP/out1"

tracecmd options 2>&1 | awk '$1 == "plugin:" { p = $2 } $1 == "option:" { print p ":" $2 }' \
	> "$T_TMP/opts"
check_grep "trace-cmd options lists alloc_tag:resolve" '^alloc_tag:resolve$' "$T_TMP/opts"
check_grep "trace-cmd options lists alloc_tag:human" '^alloc_tag:human$' "$T_TMP/opts"
tracecmd list -P > "$T_TMP/plugins" 2>&1
check_grep "trace-cmd list -P lists the plugin" "$ATAG_PLUGIN_DIR/plugin_alloc_tag.so" "$T_TMP/plugins"

# without plugins, the kernel's own print format still works on the same file
env $ATAG_TRACECMD_ENV trace-cmd report -N -i "$T_TMP/p.dat" > "$T_TMP/outN" 2>&1
check_grep "report -N prints the kernel's format" \
	'alloc_tag_mem_alloced: ptr 0xffff888000001000, tag 0xffffffff82000000, bytes 4096' "$T_TMP/outN"

# the 'ref' key of the first posting
sed 's/^cpus 2/cpus 2\nref/' "$T_TMP/p.txt" > "$T_TMP/r.txt"
mkfixture -o "$T_TMP/r.dat" "$T_TMP/r.txt"
tracecmd report -i "$T_TMP/r.dat" > "$T_TMP/outr" 2>&1
check_grep "'ref' key: printed by name, resolved" \
	'alloc_tag_mem_alloced: ref=0xffff888000001000 bytes=4096 \(4.00 KiB\) kmalloc_trace mm/slub.c:4100$' \
	"$T_TMP/outr"

# a malformed record inside a real trace.dat: marker, no crash
cat > "$T_TMP/bad.txt" <<'DESC'
raw 0 1000 1 alloc_tag/alloc_tag_hit 00000082ffffffff1000ff0010002000
ev 0 2000 1 alloced 0x10 0x20 30
DESC
mkfixture -o "$T_TMP/bad.dat" "$T_TMP/bad.txt"
tracecmd report -i "$T_TMP/bad.dat" > "$T_TMP/outb" 2>&1
check_eq "report of a malformed record exits 0" "$?" 0
check_grep "malformed hit prints [bad record]" 'alloc_tag_hit: +\[bad record\]$' "$T_TMP/outb"
check_grep "the next record still prints" 'alloc_tag_mem_alloced: ptr=0x10 bytes=30 tag=0x20$' "$T_TMP/outb"

done_testing
