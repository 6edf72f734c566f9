#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# report --vmlinux: call sites and frames named file:line from debug information,
# checked against binutils' addr2line. The ELF files are built here with gcc -g (as
# tests/t-debuginfo.sh builds them: a stand-in vmlinux of two files, each with a
# static helper(), and a stand-in module); the fixture trace's kallsyms place their
# functions at a KASLR offset, the module elsewhere.
. "$(dirname "$0")/lib.sh"

export LC_ALL=C
for p in gcc addr2line nm; do
	if ! command -v $p > /dev/null; then
		skip "names from debug information" "$p is not installed"
		done_testing
		exit
	fi
done
report() { "$ATAG_CMD" report "$@"; }
jq_eq() { check_eq "$1" "$(jq -c "$2" "$4" 2>&1)" "$(printf '%s' "$3" | tr -d '\n\t')"; }

mkdir -p "$T_TMP/src" "$T_TMP/mods/extra"
cp "$ATAG_SRC"/tests/debuginfo/*.c "$T_TMP/src/"
(cd "$T_TMP" && gcc -g -O1 -fno-pie -no-pie -nostdlib -static -o vmlinux \
	src/kernel-a.c src/kernel-b.c &&
	gcc -g -O1 -c -o mods/extra/fake-mod.ko src/fake-mod.c) ||
	fail "building the ELF files"

BIAS=0x7fff00000000	# the KASLR offset (dash computes in signed 64 bits)
MODBASE=0x7fffc0000000	# where the module sits
hex() { printf '%x' "$1"; }
# addr2line's answer, its file relative to the build directory
a2l() { addr2line -e "$@" | sed "s|^$T_TMP/||; s| (discriminator [0-9]*)||"; }

nm -S "$T_TMP/vmlinux" | awk '$3 ~ /^[Tt]$/ && NF == 4 { print $4, "0x" $1, "0x" $2 }' \
	> "$T_TMP/funcs"
nm -S "$T_TMP/mods/extra/fake-mod.ko" | awk '$3 ~ /^[Tt]$/ && NF == 4 { print $4, "0x" $1, "0x" $2 }' \
	> "$T_TMP/mfuncs"

# The trace: kallsyms of vmlinux's functions moved by BIAS (its _text label left out:
# a real kernel has no function there), the tracing machinery and the allocator
# below them, the module's functions above; one kmalloc per function whose call
# site is in its middle, with a stack through every function.
{
	echo "cpus 1"
	printf 'kallsyms %x T trace_event_raw_event_kmalloc\n' $((BIAS + 0x300000))
	printf 'kallsyms %x T __kmalloc_noprof\n' $((BIAS + 0x300800))
	while read -r name start size; do
		printf 'kallsyms %x t %s\n' $((start + BIAS)) "$name"
	done < "$T_TMP/funcs"
	while read -r name start size; do
		printf 'kallsyms %x t %s fake_mod\n' $((start + MODBASE)) "$name"
	done < "$T_TMP/mfuncs"
	printf 'kallsyms %x T _end_of_text\n' $((MODBASE + 0x100000))
} > "$T_TMP/trace.txt"
: > "$T_TMP/want.sites"
: > "$T_TMP/want.frames"
frames=""
ts=1000
addev() {	# addev ADDR: a kmalloc at ADDR, its stack through it and the call sites before
	frames=" $(printf '0x%x' "$1")$frames"
	printf 'ev 0 %d 7 kmalloc 0x%x 0x%x 8 8\n' $ts "$1" $ts >> "$T_TMP/trace.txt"
	printf 'ev 0 %d 7 stack 0x%x 0x%x%s\n' $((ts + 1)) $((BIAS + 0x300010)) \
		$((BIAS + 0x300810)) "$frames" >> "$T_TMP/trace.txt"
	ts=$((ts + 100))
}
while read -r name start size; do
	[ "$name" = _text ] && continue
	off=$((size / 2))
	addev $((start + off + BIAS))
	# a return address: the line of the call before it
	echo "$name+$off $(hex $((start + off - 1)) | a2l "$T_TMP/vmlinux")" >> "$T_TMP/want.sites"
done < "$T_TMP/funcs"
while read -r name start size; do
	off=$((size / 2))
	addev $((start + off + MODBASE))
	echo "$name+$off $(hex $((start + off - 1)) |
		a2l "$T_TMP/mods/extra/fake-mod.ko" -j .text) [fake_mod]" >> "$T_TMP/want.sites"
done < "$T_TMP/mfuncs"
mkfixture -o "$T_TMP/t.dat" "$T_TMP/trace.txt" || fail "the fixture"
sort "$T_TMP/want.sites" > "$T_TMP/want.sorted"

report -f json -n 0 --vmlinux "$T_TMP/vmlinux" "$T_TMP/t.dat" > "$T_TMP/t.json" 2> "$T_TMP/err"
check_eq "--vmlinux: exit 0" "$?" 0
jq -r '.tags[] | "\(.function)+\(.offset) \(.file):\(.line)\(if .module then " [\(.module)]" else "" end)"' \
	"$T_TMP/t.json" | sort > "$T_TMP/got.sorted"
check_eq "call sites of every function (two helpers, the module's): addr2line's line" \
	"$(diff "$T_TMP/want.sorted" "$T_TMP/got.sorted")" ""
check_eq "the lines are real ones" "$(grep -c ' src/[a-z-]*\.c:[0-9]' "$T_TMP/got.sorted")" \
	"$(wc -l < "$T_TMP/want.sorted" | tr -d ' ')"
check_eq "two functions named helper: each its own file" \
	"$(grep '^helper+' "$T_TMP/got.sorted" | sed 's/.* \(src[^:]*\):.*/\1/' | sort -u | tr '\n' ' ')" \
	"src/kernel-a.c src/kernel-b.c "

# every frame of the longest stack: the same lines as the call sites (return addresses)
jq -r '[.tags[].stacks[]] | max_by(.frames | length) | [.frames, .frame_lines] | transpose[] |
	"\(.[0]) \(.[1])"' "$T_TMP/t.json" > "$T_TMP/frames"
check_eq "frames: the allocator's (not in vmlinux) have no line" \
	"$(head -n 1 "$T_TMP/frames")" "__kmalloc_noprof+0x10 null"
tail -n +2 "$T_TMP/frames" | while read -r frame a b; do
	# "function+0xoff [module] file:line" or "function+0xoff file:line"
	if [ -n "$b" ]; then mod=" $a"; line=$b; else mod=""; line=$a; fi
	echo "${frame%%+0x*}+$(printf '%d' "0x${frame##*+0x}") $line$mod"
done | sort > "$T_TMP/frames.sorted"
check_eq "frames of every function: addr2line's line" \
	"$(diff "$T_TMP/want.sorted" "$T_TMP/frames.sorted")" ""
report --stacks -n 1 --vmlinux "$T_TMP/vmlinux" "$T_TMP/t.dat" > "$T_TMP/t.text" 2>&1
check_grep "text: a frame with its source line" '^ +_start\+0x[0-9a-f]+  src/kernel-a.c:[0-9]+$' \
	"$T_TMP/t.text"

# folded and pprof frames: functions; the leaf is the call site with its file:line
report -f folded --vmlinux "$T_TMP/vmlinux" "$T_TMP/t.dat" > "$T_TMP/t.folded" 2>&1
check_grep "folded: the call site's file and line" '^[^ ]*;kernel_b_entry@src/kernel-b.c:[0-9]+ 8$' \
	"$T_TMP/t.folded"
check_nogrep "folded: no offsets in frames" '\+0x' "$T_TMP/t.folded"
check_nogrep "folded: no allocator frames under a call site" '__kmalloc_noprof' "$T_TMP/t.folded"

# a vmlinux of another build: refused, one line naming it. alloc_thing 16 bytes
# further: the distances between the functions differ
start=$(awk '$1 == "alloc_thing" { print $2 }' "$T_TMP/funcs")
sed "s/^kallsyms $(hex $((start + BIAS))) t alloc_thing$/kallsyms $(hex $((start + BIAS + 16))) t alloc_thing/" \
	"$T_TMP/trace.txt" > "$T_TMP/moved.txt"
mkfixture -o "$T_TMP/moved.dat" "$T_TMP/moved.txt"
report --vmlinux "$T_TMP/vmlinux" "$T_TMP/moved.dat" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "another kernel's vmlinux: exit 1, one line" "$rc:$(wc -l < "$T_TMP/err")" "1:1"
check_grep "another kernel's vmlinux: the error names the file and says why" \
	"^trace-cmd-alloc-tag: $T_TMP/moved.dat: $T_TMP/vmlinux is not the kernel this trace was recorded on: 1 of the [0-9]+ functions" \
	"$T_TMP/err"
# an ELF that holds none of the trace's functions (issue 31: --vmlinux /bin/ls was taken)
report --vmlinux /bin/ls "$T_TMP/t.dat" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "--vmlinux /bin/ls: exit 1, one line" "$rc:$(wc -l < "$T_TMP/err")" "1:1"
check_grep "--vmlinux /bin/ls: not this trace's kernel, said" \
	"^trace-cmd-alloc-tag: $T_TMP/t.dat: /bin/ls is not the kernel this trace was recorded on: none of the [0-9]+ functions of the trace checked \\([a-z_]+, \\.\\.\\.\\) is in it$" \
	"$T_TMP/err"
report --vmlinux "$T_TMP/nosuch" "$T_TMP/t.dat" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "a missing vmlinux: exit 1, one line" "$rc:$(wc -l < "$T_TMP/err")" "1:1"
check_grep "a missing vmlinux: named" "$T_TMP/nosuch: No such file" "$T_TMP/err"
check_status "--no-debuginfo with --vmlinux: usage error" 2 "$ATAG_CMD" report --no-debuginfo \
	--vmlinux "$T_TMP/vmlinux" "$T_TMP/t.dat"

# the module from the module directories given
mkdir -p "$T_TMP/elsewhere"
cp "$T_TMP/vmlinux" "$T_TMP/elsewhere/vmlinux"
report -f json --vmlinux "$T_TMP/elsewhere/vmlinux" "$T_TMP/t.dat" > "$T_TMP/nomod.json" 2>&1
jq_eq "a module not found: its call sites without a line" \
	'[.tags[] | select(.module == "fake_mod") | .file] | unique' '[null]' "$T_TMP/nomod.json"
report -f json --vmlinux "$T_TMP/elsewhere/vmlinux" --module-dir "$T_TMP/mods" "$T_TMP/t.dat" \
	> "$T_TMP/mod.json" 2>&1
jq_eq "--module-dir: found there" \
	'[.tags[] | select(.module == "fake_mod") | .file] | unique' '["src/fake-mod.c"]' "$T_TMP/mod.json"

# the default: the distribution's debug-info path for the trace's kernel release
release=atag-test-$$
(echo "uname Linux box $release #1 SMP x86_64"; cat "$T_TMP/trace.txt") |
	awk 'NR == 1 { u = $0; next } NR == 2 { print; print u; next } { print }' > "$T_TMP/rel.txt"
mkfixture -o "$T_TMP/rel.dat" "$T_TMP/rel.txt"
report -f json "$T_TMP/rel.dat" > "$T_TMP/rel0.json" 2>&1
jq_eq "no debug information for the release: function+offset, no error" \
	'[.tags[].file] | unique' '[null]' "$T_TMP/rel0.json"
jq_eq "no debug information: said" \
	'[.remarks[] | select(test("no debug information for kernel '"$release"'"))] | length' 1 \
	"$T_TMP/rel0.json"
if is_root && [ -d /boot ] && [ -w /boot ] && [ ! -e "/boot/vmlinux-$release" ]; then
	cp "$T_TMP/vmlinux" "/boot/vmlinux-$release"
	at_exit "rm -f '/boot/vmlinux-$release'"
	report -f json -n 0 --module-dir "$T_TMP/mods" "$T_TMP/rel.dat" > "$T_TMP/rel.json" 2>&1
	check_eq "the release's vmlinux by default (/boot/vmlinux-RELEASE)" \
		"$(jq -c '[.tags[] | [.function, .file, .line]] | sort' "$T_TMP/rel.json")" \
		"$(jq -c '[.tags[] | [.function, .file, .line]] | sort' "$T_TMP/t.json")"
	report -f json --no-debuginfo "$T_TMP/rel.dat" > "$T_TMP/reln.json" 2>&1
	jq_eq "--no-debuginfo: none" '[.tags[].file] | unique' '[null]' "$T_TMP/reln.json"
	rm -f "/boot/vmlinux-$release"
else
	skip "the release's vmlinux by default" "needs root to put a vmlinux into /boot"
fi

done_testing
