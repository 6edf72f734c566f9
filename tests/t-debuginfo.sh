#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Source lines from debug information (lib/read/atag-debuginfo.c) against binutils'
# addr2line, on ELF files built here with gcc -g: a stand-in vmlinux of two files
# (each with a static helper(): one name, two functions) and a stand-in module.
# Every byte offset of every function is asked, as the trace would name it
# (function, offset, and the address under a made-up KASLR offset).
. "$(dirname "$0")/lib.sh"

export LC_ALL=C
SRCLINE=$ATAG_BUILD/tests/progs/atag-srcline
for p in gcc addr2line nm; do
	if ! command -v $p > /dev/null; then
		skip "debug information" "$p is not installed"
		done_testing
		exit
	fi
done

mkdir -p "$T_TMP/src" "$T_TMP/mods/extra"
cp "$ATAG_SRC"/tests/debuginfo/*.c "$T_TMP/src/"
# relative file names, as a kernel build writes them ("mm/slub.c")
(cd "$T_TMP" && gcc -g -O1 -fno-pie -no-pie -nostdlib -static -o vmlinux \
	src/kernel-a.c src/kernel-b.c &&
	gcc -g -O1 -c -o mods/extra/fake-mod.ko src/fake-mod.c) ||
	fail "building the ELF files"

BIAS=0x7fff00000000	# (dash computes in signed 64 bits: no real kernel address)
hex() { printf '%x' "$1"; }

# queries NAME LINK_START SIZE MODULE: every offset of a function
queries() {
	o=0
	while [ $o -lt $(($3)) ]; do
		printf 'line %s %s %x %x %s\n' "$4" "$1" $o $(($2 + o + BIAS)) "${RET:-0}"
		o=$((o + 1))
	done
}

# addr2line's answer for the same bytes, its file made relative to the build directory
expect() {	# expect FILE [-j SECTION] < addresses
	addr2line -e "$@" | sed "s|^$T_TMP/||; s|^??:0$|-|; s|^??:?$|-|; s| (discriminator [0-9]*)||"
}

nm -S "$T_TMP/vmlinux" | awk '$3 ~ /^[Tt]$/ && NF == 4 { print $4, "0x" $1, "0x" $2 }' \
	> "$T_TMP/funcs"
: > "$T_TMP/q"; : > "$T_TMP/a"
while read -r name start size; do
	[ "$name" = helper ] && continue
	queries "$name" "$start" "$size" - >> "$T_TMP/q"
	o=0; while [ $o -lt $((size)) ]; do hex $((start + o)); echo; o=$((o + 1)); done >> "$T_TMP/a"
done < "$T_TMP/funcs"
text=$(hex $(($(nm "$T_TMP/vmlinux" | awk '$3 == "_text" { print "0x" $1 }') + BIAS)))

"$SRCLINE" --vmlinux "$T_TMP/vmlinux" < "$T_TMP/q" > "$T_TMP/got" 2> "$T_TMP/err"
expect "$T_TMP/vmlinux" < "$T_TMP/a" > "$T_TMP/want"
check_eq "vmlinux: every offset of every function has addr2line's line" \
	"$(diff "$T_TMP/want" "$T_TMP/got" | head -n 5)" ""
check_eq "vmlinux: the lines are real ones" "$(grep -c '^src/kernel-[ab].c:[0-9]' "$T_TMP/got")" \
	"$(wc -l < "$T_TMP/q" | tr -d ' ')"

# a return address means the call before it: addr2line of addr - 1
: > "$T_TMP/a1"
RET=1
: > "$T_TMP/q1"
while read -r name start size; do
	[ "$name" = helper ] && continue
	queries "$name" "$start" "$size" - >> "$T_TMP/q1"
	o=0; while [ $o -lt $((size)) ]; do
		hex $((start + (o ? o - 1 : 0))); echo; o=$((o + 1)); done >> "$T_TMP/a1"
done < "$T_TMP/funcs"
RET=
"$SRCLINE" --vmlinux "$T_TMP/vmlinux" < "$T_TMP/q1" > "$T_TMP/got1"
expect "$T_TMP/vmlinux" < "$T_TMP/a1" > "$T_TMP/want1"
check_eq "return addresses: the line of the call before them" \
	"$(diff "$T_TMP/want1" "$T_TMP/got1" | head -n 5)" ""

# helper() twice: by name alone it is ambiguous; with the kernel's base, each by address
grep '^helper ' "$T_TMP/funcs" > "$T_TMP/helpers"
: > "$T_TMP/qh"; : > "$T_TMP/ah"
while read -r name start size; do
	queries helper "$start" "$size" - >> "$T_TMP/qh"
	o=0; while [ $o -lt $((size)) ]; do hex $((start + o)); echo; o=$((o + 1)); done >> "$T_TMP/ah"
done < "$T_TMP/helpers"
# by name alone, offsets that fit both are ambiguous; larger ones only fit the larger
minsize=$(while read -r n s z; do echo $((z)); done < "$T_TMP/helpers" | sort -n | head -n 1)
"$SRCLINE" --vmlinux "$T_TMP/vmlinux" < "$T_TMP/qh" > "$T_TMP/gotn"
check_eq "two functions named helper: by name alone, no line where both could be" \
	"$(paste -d' ' "$T_TMP/qh" "$T_TMP/gotn" | while read -r l mod fn off addr ret got; do
		[ $((0x$off)) -lt "$minsize" ] && echo "$got"; done | sort -u)" "-"
check_eq "two functions named helper: by name alone, a larger offset fits one" \
	"$(paste -d' ' "$T_TMP/qh" "$T_TMP/gotn" "$T_TMP/ah" | while read -r l mod fn off addr ret got a; do
		[ $((0x$off)) -ge "$minsize" ] && [ "$got" = "$(echo "$a" | expect "$T_TMP/vmlinux")" ] &&
		echo same; done | sort -u)" "same"
"$SRCLINE" --vmlinux "$T_TMP/vmlinux" --text "$text" < "$T_TMP/qh" > "$T_TMP/goth"
expect "$T_TMP/vmlinux" < "$T_TMP/ah" > "$T_TMP/wanth"
check_eq "two functions named helper: each its own file's lines with the kernel base" \
	"$(diff "$T_TMP/wanth" "$T_TMP/goth" | head -n 5)" ""
check_eq "two functions named helper: both files seen" \
	"$(sed 's/:.*//' "$T_TMP/goth" | sort -u | tr '\n' ' ')" "src/kernel-a.c src/kernel-b.c "

# the module: found by name below the module directory ('-' and '_' alike)
nm -S "$T_TMP/mods/extra/fake-mod.ko" |
	awk '$3 ~ /^[Tt]$/ && NF == 4 { print $4, "0x" $1, "0x" $2 }' > "$T_TMP/mfuncs"
: > "$T_TMP/qm"; : > "$T_TMP/am"
while read -r name start size; do
	# the module sits somewhere in the running kernel: only name and offset matter
	o=0; while [ $o -lt $((size)) ]; do
		printf 'line fake_mod %s %x %x 0\n' "$name" $o $((0x7fffc0001000 + o)) >> "$T_TMP/qm"
		hex $((start + o)) >> "$T_TMP/am"; echo >> "$T_TMP/am"; o=$((o + 1)); done
done < "$T_TMP/mfuncs"
"$SRCLINE" --vmlinux "$T_TMP/vmlinux" --modules "$T_TMP/mods" < "$T_TMP/qm" > "$T_TMP/gotm"
expect "$T_TMP/mods/extra/fake-mod.ko" -j .text < "$T_TMP/am" > "$T_TMP/wantm"
check_eq "module: every offset has addr2line's line" \
	"$(diff "$T_TMP/wantm" "$T_TMP/gotm" | head -n 5)" ""
check_eq "module: lines found" "$(grep -c '^src/fake-mod.c:[0-9]' "$T_TMP/gotm")" \
	"$(wc -l < "$T_TMP/qm" | tr -d ' ')"
check_eq "the vmlinux's directory is searched for modules by default" \
	"$(cp "$T_TMP/vmlinux" "$T_TMP/mods/vmlinux"
	   head -n 1 "$T_TMP/qm" | "$SRCLINE" --vmlinux "$T_TMP/mods/vmlinux")" \
	"$(head -n 1 "$T_TMP/wantm")"
check_eq "unknown module and function: no line" \
	"$(printf 'line nosuch f 0 0 0\nline - nosuch_fn 0 0 0\n' |
	   "$SRCLINE" --vmlinux "$T_TMP/vmlinux" | tr '\n' ' ')" "- - "

# does vmlinux belong to the traced kernel? the same offsets between its functions
set -- $(awk '$1 != "helper" { print $1, $2 }' "$T_TMP/funcs" | head -n 3)
good="mismatch $1 $(hex $(($2 + BIAS))) $3 $(hex $(($4 + BIAS))) $5 $(hex $(($6 + BIAS)))"
bad="mismatch $1 $(hex $(($2 + BIAS))) $3 $(hex $(($4 + BIAS + 16))) $5 $(hex $(($6 + BIAS)))"
check_eq "the traced kernel's layout agrees" "$(echo "$good" | "$SRCLINE" --vmlinux "$T_TMP/vmlinux")" 0
check_eq "another kernel's layout is told apart" \
	"$(echo "$bad" | "$SRCLINE" --vmlinux "$T_TMP/vmlinux")" 1

# errors name the file
echo "not an ELF file" > "$T_TMP/notelf"
"$SRCLINE" --vmlinux "$T_TMP/notelf" < /dev/null 2> "$T_TMP/e1"; st=$?
check_eq "not ELF: fails" "$st" 1
check_grep "not ELF: the error names the file" "^atag-srcline: $T_TMP/notelf: " "$T_TMP/e1"
"$SRCLINE" --vmlinux "$T_TMP/nosuch" < /dev/null 2> "$T_TMP/e2"
check_grep "missing vmlinux: the error names the file" \
	"^atag-srcline: $T_TMP/nosuch: No such file" "$T_TMP/e2"
"$SRCLINE" --release no-such-release-1 < /dev/null 2> "$T_TMP/e3"
check_grep "no vmlinux for a release: said" "no vmlinux with debug information for kernel no-such-release-1" \
	"$T_TMP/e3"
strip -o "$T_TMP/stripped" "$T_TMP/vmlinux"
"$SRCLINE" --vmlinux "$T_TMP/stripped" < /dev/null 2> "$T_TMP/e4"
check_grep "a stripped vmlinux: said" "stripped" "$T_TMP/e4"

done_testing
