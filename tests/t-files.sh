#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The files the commands read and write, when they are not what they should be:
# inputs that are FIFOs, devices or far too large (read without blocking, under a
# size limit that says so), outputs where a link or a device already is. One test per
# defect of issue 26 (items 4 and 5); each failed before the fix. No root needed but
# for the links another user plants.
. "$(dirname "$0")/lib.sh"

C=$ATAG_CMD
E="trace-cmd-alloc-tag:"
NOTREG="not a regular file (a FIFO, a device or a socket)"
mkfixture -o "$T_TMP/lt.dat" "$ATAG_SRC/tests/data/lifetimes.txt" || fail "lifetimes fixture"
cd "$T_TMP" || exit 1

# run_in NAME CMD...: CMD's status and stderr within 10 s (124: it hung)
run_in() {
	timeout 10 "$@" > /dev/null 2> err < /dev/null
}

# ------------------------------------------------------------------ 26.4: inputs
mkfifo fifo
run_in "$C" report fifo
check_eq "26.4 report FIFO: refused at once" "$?:$(cat err)" "1:$E fifo: $NOTREG"
run_in "$C" report --vmlinux fifo lt.dat
check_eq "26.4 report --vmlinux FIFO: refused at once" "$?:$(cat err)" \
	"1:$E lt.dat: fifo: $NOTREG"
run_in "$C" list --allocinfo fifo
check_eq "26.4 list --allocinfo FIFO: refused at once" "$?:$(cat err)" "1:$E fifo: $NOTREG"
run_in "$C" list --allocinfo /dev/zero
check_eq "26.4 list --allocinfo /dev/zero: refused, not read" "$?:$(cat err)" \
	"1:$E /dev/zero: $NOTREG"
# a regular file of 300 MiB (sparse): read up to the limit, then said
truncate -s 300M big
run_in "$C" list --allocinfo big
check_eq "26.4 list --allocinfo of 300 MiB: the size limit said" "$?:$(cat err)" \
	"1:$E big: cannot list the tags: larger than 256 MiB: not read"

# stat --tracefs DIR: a FIFO where a tracefs file should be
mkdir -p tfs/instances tfs/per_cpu/cpu0
echo 7 > tfs/buffer_size_kb
mkfifo tfs/per_cpu/cpu0/stats
run_in "$C" stat --tracefs tfs
check_eq "26.4 stat --tracefs DIR with a FIFO inside: refused at once" "$?:$(cat err)" \
	"1:$E tfs/per_cpu/cpu0/stats: $NOTREG"
rm tfs/buffer_size_kb
mkfifo tfs/buffer_size_kb
run_in "$C" stat --tracefs tfs
check_eq "26.4 stat --tracefs DIR whose buffer_size_kb is a FIFO: refused at once" \
	"$?:$(cat err)" "1:$E tfs/buffer_size_kb: $NOTREG"

# reset: state files that are a FIFO, a link to /dev/zero, 300 MiB; none touches tracefs
mkdir -m 700 state
mkfifo state/record-1.state
ln -s /dev/zero state/record-2.state
truncate -s 300M state/record-3.state
ATAG_STATE_DIR=$T_TMP/state run_in "$C" reset
check_eq "26.4 reset: a FIFO, /dev/zero and 300 MiB state files refused, each said" \
	"$?:$(cat err)" "1:$E $T_TMP/state/record-1.state: $NOTREG: left alone
$E $T_TMP/state/record-2.state: $NOTREG: left alone
$E $T_TMP/state/record-3.state: larger than 256 MiB: not read: left alone"
check_eq "26.4 reset: the files refused are left as they were" \
	"$(ls -l state | awk 'NR > 1 { print substr($1, 1, 1), $NF }' | tr '\n' ' ')" \
	"p record-1.state l /dev/zero - record-3.state "

# ------------------------------------------------------------------ 26.5: outputs
umask 022
cp lt.dat lt2.dat
chmod 0640 lt.dat
chmod 0604 lt2.dat
# a new file: the mode of the trace it comes from, less the umask
"$C" report -f json -o new.json lt.dat 2> err
check_eq "26.5 report -o new: exit 0, JSON written" "$?:$(jq -c .complete new.json)" "0:true"
check_eq "26.5 report -o new: the trace's mode (0640), not 0666 less the umask" \
	"$(stat -c %a new.json)" 640
"$C" diff -f json -o diff.json lt.dat lt2.dat 2> err
check_eq "26.5 diff -o: what both traces grant (0600)" "$?:$(stat -c %a diff.json)" "0:600"
printf '%s\n' 'allocinfo - version: 2.0' '#     <size>  <calls> <tag info>' \
	'       4096        1 mm/slub.c:4100 func:kmalloc_trace' > ai.txt
"$C" list --allocinfo ai.txt -o list.txt 2> err
check_eq "26.5 list -o: no trace: 0600" "$?:$(stat -c %a list.txt)" "0:600"
mkdir -p tfs2/instances tfs2/events
echo 7 > tfs2/buffer_size_kb
"$C" stat --tracefs tfs2 -o stat.txt 2> err
check_eq "26.5 stat -o: no trace: 0600" "$?:$(stat -c %a stat.txt)" "0:600"
# a regular file replaced by a new one, the old kept, as record -o does
echo old > rep.json
chmod 0644 rep.json
"$C" report -f json -o rep.json lt.dat 2> err
check_eq "26.5 -o an existing file: replaced, 0640, the old one kept as .old" \
	"$?:$(stat -c %a rep.json):$(cat rep.json.old):$(cat err)" \
	"0:640:old:$E rep.json existed: kept as rep.json.old"
# a failed command leaves the old file as it was, and nothing of its own
echo old > rows.csv
"$C" report -f lifetimes -o rows.csv lt.dat missing.dat > /dev/null 2> err
check_eq "26.5 report fails on its second file: -o FILE as it was, nothing left" \
	"$?:$(cat rows.csv):$(ls -A | grep -c '^\.trace-cmd-alloc-tag-output')" "1:old:0"
"$C" report -f lifetimes -o fresh.csv lt.dat missing.dat > /dev/null 2> err
check_eq "26.5 report fails: no -o FILE made" "$?:$(ls fresh.csv 2>&1 | grep -c 'No such')" "1:1"
# a file system without O_TMPFILE (NFS, FUSE, vfat; here a preloaded library says
# EOPNOTSUPP): the private file has a name of ours. The same file, the same mode; on
# a failure and on a fatal signal nothing of it is left
NOTMP=$ATAG_BUILD/tests/preload/atag-no-tmpfile.so
privates() { ls -A | grep -c '^\.trace-cmd-alloc-tag-output'; }
case ${ATAG_BUILD##*-} in
asan|tsan)
	skip "26.5 no O_TMPFILE" "a sanitizer build: its runtime must come first, before a preloaded library (the normal build runs it)"
	;;
*)
"$C" report -f json -o tmpf-a.json lt.dat 2> /dev/null
ATAG_NO_TMPFILE_SEEN=$T_TMP/tmpfile.seen LD_PRELOAD=$NOTMP "$C" report -f json -o tmpf-b.json \
	lt.dat 2> err
check_eq "26.5 no O_TMPFILE: the same file and mode as with it, nothing left" \
	"$?:$(cat err):$(cmp tmpf-a.json tmpf-b.json && stat -c %a tmpf-a.json tmpf-b.json | tr '\n' ' '):$(privates)" \
	"0::640 640 :0"
check "26.5 no O_TMPFILE: the fallback was taken (O_TMPFILE asked for and refused)" \
	test -e "$T_TMP/tmpfile.seen"
echo old > tmpf-rows.csv
LD_PRELOAD=$NOTMP "$C" report -f lifetimes -o tmpf-rows.csv lt.dat missing.dat > /dev/null 2>&1
check_eq "26.5 no O_TMPFILE, report fails: -o FILE as it was, its private file removed" \
	"$?:$(cat tmpf-rows.csv):$(privates)" "1:old:0"
# a SIGTERM while the private file is written: stopped as soon as the file is seen,
# then sent SIGTERM and let go on
mkfixture -o big.dat --generate 1000000 || fail "fixture big"
LD_PRELOAD=$NOTMP "$C" report -f lifetimes -o tmpf-big.csv big.dat > /dev/null 2>&1 &
rp=$!
seen=0
while kill -0 $rp 2> /dev/null; do
	if [ "$(privates)" = 1 ]; then
		kill -STOP $rp
		seen=1
		break
	fi
done
kill -TERM $rp 2> /dev/null
kill -CONT $rp 2> /dev/null
wait $rp 2> /dev/null
rc=$?
check_eq "26.5 no O_TMPFILE, SIGTERM while writing: killed by it, no file, its private file removed" \
	"$seen:$rc:$(ls tmpf-big.csv 2>&1 | grep -c 'No such'):$(privates)" "1:143:1:0"
rm -f big.dat
;;
esac

# a user's own link to a regular file: replaced, not followed (as record -o)
echo target > target.txt
ln -s target.txt link.txt
"$C" report -o link.txt lt.dat 2> err
check_eq "26.5 -o a link to a regular file: the link replaced, its target untouched" \
	"$?:$(cat target.txt):$([ -L link.txt ] && echo link || echo file)" "0:target:file"
# devices, FIFOs and our own descriptors: written in place
"$C" report -o /dev/null lt.dat 2> err
check_eq "26.5 -o /dev/null: exit 0, /dev/null still a device" \
	"$?:$(cat err):$(stat -c %F /dev/null)" "0::character special file"
"$C" report -f json -o /dev/stdout lt.dat 2> err | jq -c .complete > piped
check_eq "26.5 -o /dev/stdout into a pipe" "$(cat piped)" true
"$C" report -f json -o /dev/stdout lt.dat > stdout.json 2> err
check_eq "26.5 -o /dev/stdout into a file: written there, not replaced" \
	"$?:$(jq -c .complete stdout.json):$(ls stdout.json.old 2>&1 | grep -c 'No such')" "0:true:1"
mkfifo out.fifo
cat out.fifo > fifo.out &
reader=$!
timeout 10 "$C" report -f json -o out.fifo lt.dat 2> err
rc=$?
wait $reader
check_eq "26.5 -o FIFO: written into it, in place" \
	"$rc:$(jq -c .complete fifo.out):$(stat -c %F out.fifo)" "0:true:fifo"
ln -s out.fifo my.fifo
cat out.fifo > fifo2.out &
reader=$!
timeout 10 "$C" report -f json -o my.fifo lt.dat 2> err
rc=$?
wait $reader
check_eq "26.5 -o a link of ours to a FIFO: followed, written in place" \
	"$rc:$(jq -c .complete fifo2.out):$([ -L my.fifo ] && echo link)" "0:true:link"

# a link another user planted in a sticky directory anyone may write to (/tmp, where
# fs.protected_symlinks may be 0): never followed, whatever it leads to
if is_root && command -v setpriv > /dev/null; then
	chmod 0711 "$T_TMP"	# the other user goes through it to the sticky directory
	mkdir -m 1777 sticky
	echo precious > victim
	mkfifo victim.fifo
	chmod 0666 victim.fifo
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
		'ln -s ../victim sticky/out.txt && ln -s ../victim.fifo sticky/out.fifo' ||
		fail "planting the links"
	"$C" report -o sticky/out.txt lt.dat 2> err
	check_eq "26.5 -o a link planted in a sticky directory: its target untouched" \
		"$?:$(cat victim):$(stat -c '%F %U' sticky/out.txt)" "0:precious:regular file root"
	timeout 10 "$C" report -o sticky/out.fifo lt.dat 2> err
	check_eq "26.5 -o a planted link to a FIFO: not followed (no wait), replaced" \
		"$?:$(stat -c %F victim.fifo):$(stat -c %F sticky/out.fifo)" \
		"0:fifo:regular file"
else
	skip "26.5 links planted by another user" "not root, or no setpriv"
fi

done_testing
