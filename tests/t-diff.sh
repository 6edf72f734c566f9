#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# diff (and report --diff) on generated trace.dat files: two boots with different
# KASLR offsets compare, a recording with itself shows no change, a leak at one call
# site shows exactly there, call sites that appear and disappear, kmem call sites
# matched by function across kernel builds, normalisation, every format, errors.
. "$(dirname "$0")/lib.sh"

D=$ATAG_SRC/tests/data
diff_() { "$ATAG_CMD" diff "$@"; }
# jq_eq NAME FILTER EXPECTED FILE (EXPECTED may span lines; tabs and newlines dropped)
jq_eq() { check_eq "$1" "$(jq -c "$2" "$4" 2>&1)" "$(printf '%s' "$3" | tr -d '\n\t')"; }
# shift every kernel address (kallsyms, tags, call sites, frames) by 0x20000000:
# another boot, another KASLR offset
kaslr() { sed 's/ffffffff8\([0-9a-f]\)/ffffffffa\1/g' "$@"; }

# before: the stitching fixture and a call site of its own (old_alloc, 32 bytes, live)
{
	cat "$D/lifetimes.txt"
	echo 'ev 0 10100 100 hit 0xffffffff820000c0 NONE mm/old.c old_alloc 50'
	echo 'ev 0 10101 100 alloced 0xffff888000005000 0xffffffff820000c0 32'
} > "$T_TMP/before.txt"
# after: another boot; foo_create leaks 3 more objects of 64 bytes; new_alloc appears
{
	kaslr "$D/lifetimes.txt"
	for i in 1 2 3; do
		echo "ev 1 1010$i 100 alloced 0xffff88800000700$i 0xffffffffa2000000 64"
	done
	echo 'ev 0 10200 100 hit 0xffffffffa2000100 NONE mm/new.c new_alloc 60'
	echo 'ev 0 10201 100 alloced 0xffff888000006000 0xffffffffa2000100 16'
} > "$T_TMP/after.txt"
kaslr "$T_TMP/before.txt" > "$T_TMP/reboot.txt"
for f in before after reboot; do
	mkfixture -o "$T_TMP/$f.dat" "$T_TMP/$f.txt" || fail "fixture $f"
done
B=$T_TMP/before.dat A=$T_TMP/after.dat R=$T_TMP/reboot.dat

# ------------------------------------------------------------------ no change

diff_ -f json "$B" "$B" > "$T_TMP/self.json"; rc=$?
check_eq "a recording with itself: exit 0" "$rc" 0
jq_eq "a recording with itself: no change" '[.summary, .sites, .totals.change.allocs]' \
	'[{"changed":0,"appeared":0,"disappeared":0,"unchanged":3},[],0]' "$T_TMP/self.json"
diff_ "$B" "$B" > "$T_TMP/self.txt"
check_grep "text: says no call site changed" '^no call site changed$' "$T_TMP/self.txt"
check_grep "text: the counts of the summary" \
	'^call sites +0 changed, 0 appeared, 0 disappeared, 3 unchanged$' "$T_TMP/self.txt"

diff_ -f json "$B" "$R" > "$T_TMP/reboot.json"
jq_eq "another KASLR offset: still no change" '.summary' \
	'{"changed":0,"appeared":0,"disappeared":0,"unchanged":3}' "$T_TMP/reboot.json"
check_eq "another KASLR offset: the reports' tag pointers differ" \
	"$("$ATAG_CMD" report -f json "$B" | jq -c '[.tags[].tag] | sort'):$("$ATAG_CMD" report -f json "$R" | jq -c '[.tags[].tag] | sort')" \
	'["0xffffffff82000000","0xffffffff82000040","0xffffffff820000c0"]:["0xffffffffa2000000","0xffffffffa2000040","0xffffffffa20000c0"]'
diff_ -f json --all "$B" "$R" > "$T_TMP/all.json"
jq_eq "--all: the unchanged call sites and stacks too, matched without offsets" \
	'[.sites[] | [.function, .status, (.stacks | map([.status, (.frames | join(";"))]))]]' \
	'[["bar_open","same",[["same",""],["same","bar_open;do_sys_open"]]],
	["foo_create","same",[["same","foo_create;bar_open;do_sys_open"],
	["same","foo_create;foo_ioctl;__x64_sys_ioctl"]]],["old_alloc","same",[["same",""]]]]' \
	"$T_TMP/all.json"

# ------------------------------------------------------------------ what changed

diff_ -f json "$B" "$A" > "$T_TMP/d.json"
jq_eq "the leak, the call site gone and the one new, largest change of live bytes first" \
	'[.sites[] | [.function, .status, .change.live, .change.live_bytes, .change.allocs,
		.change.frees]]' \
	'[["foo_create","changed",3,192,3,0],["old_alloc","disappeared",-1,-32,-1,0],
	["new_alloc","appeared",1,16,1,0]]' "$T_TMP/d.json"
jq_eq "summary" .summary '{"changed":1,"appeared":1,"disappeared":1,"unchanged":1}' \
	"$T_TMP/d.json"
foo='.sites[] | select(.function == "foo_create")'
jq_eq "the leak: before and after as the reports count them" \
	"$foo | [.before.live, .after.live, .before.peak_live_bytes, .after.peak_live_bytes,
		.change.peak_live_bytes, .before.bytes_alloced, .after.bytes_alloced]" \
	'[1,4,256,320,64,256,448]' "$T_TMP/d.json"
jq_eq "the leak: lifetimes unchanged, their change 0" \
	"$foo | [.before.lifetime_ns.count, .after.lifetime_ns.p50 == .before.lifetime_ns.p50,
		.change.lifetime_ns]" \
	'[2,true,{"count":0,"p50":0,"p90":0,"p99":0,"max":0}]' "$T_TMP/d.json"
# the leaked allocations made no hit: they take the stack the last hit of their
# task and tag cached (lib/stitch/atag-stitch.h), which changes
jq_eq "the leak: only the stack it took changed" \
	"[$foo | .stacks[] | [.frames, .status, .change.allocs, .change.live_bytes]]" \
	'[[["foo_create","bar_open","do_sys_open"],"changed",3,192]]' "$T_TMP/d.json"
jq_eq "identity: file, line, module; no addresses" \
	'[.sites[] | [.function, .file, .line, .module, has("tag")]]' \
	'[["foo_create","mm/foo.c",10,null,false],["old_alloc","mm/old.c",50,null,false],
	["new_alloc","mm/new.c",60,null,false]]' "$T_TMP/d.json"
jq_eq "a side's absent call site counts zeros, and no lifetimes" \
	'.sites[] | select(.function == "new_alloc") | [.before.allocs, .before.call_sites,
		.before.lifetime_ns.p50, .change.lifetime_ns.p50]' '[0,0,null,null]' "$T_TMP/d.json"
jq_eq "totals: before, after, change" '.totals | [.before.allocs, .after.allocs,
	.change.allocs, .change.live_bytes]' '[7,10,3,176]' "$T_TMP/d.json"
jq_eq "the files of each side" '[.files.before[].path, .files.after[].path]' \
	"[\"$B\",\"$A\"]" "$T_TMP/d.json"

diff_ -s allocs -f json "$B" "$A" > "$T_TMP/s.json"
jq_eq "-s allocs: ties by the change of bytes" '[.sort, (.sites | map(.function))]' \
	'["allocs",["foo_create","old_alloc","new_alloc"]]' "$T_TMP/s.json"
# one table of sort keys for report and diff: every key report takes, diff takes
keys=$("$ATAG_CMD" report --help | sed -n '/-s, --sort KEY/,/-n, --rows/p' |
	grep -oE '\b(live_bytes|live|peak|bytes|allocs|frees|unmatched|p[0-9]+|max|site)\b' | sort -u)
bad=
for k in $keys; do diff_ -s "$k" -f json "$B" "$A" > /dev/null 2>&1 || bad="$bad $k"; done
check_eq "diff takes every sort key report takes ($(echo $keys | wc -w))" "$bad" ""
# -s unmatched: an unmatched free at new_alloc (hand count: +1 there, 0 elsewhere),
# ties by the change of bytes (foo_create +192 B, old_alloc -32 B)
{ cat "$T_TMP/after.txt"; echo 'ev 0 10300 100 freed 0xffff888000009000 0xffffffffa2000100 16'; } \
	> "$T_TMP/after-u.txt"
mkfixture -o "$T_TMP/after-u.dat" "$T_TMP/after-u.txt"
diff_ -s unmatched -f json "$B" "$T_TMP/after-u.dat" > "$T_TMP/s.json"
jq_eq "-s unmatched: the change of unmatched frees first" '[.sort, (.sites | map(.function))]' \
	'["unmatched",["new_alloc","foo_create","old_alloc"]]' "$T_TMP/s.json"
diff_ -s site -f json "$B" "$A" > "$T_TMP/s.json"
jq_eq "-s site: by name" '[.sites[].function]' '["foo_create","new_alloc","old_alloc"]' \
	"$T_TMP/s.json"
diff_ --function 'foo*' -f json "$B" "$A" > "$T_TMP/s.json"
jq_eq "--function selects on both sides" '[.summary, [.sites[].function]]' \
	'[{"changed":1,"appeared":0,"disappeared":0,"unchanged":0},["foo_create"]]' \
	"$T_TMP/s.json"

diff_ "$B" "$A" > "$T_TMP/d.txt"
check_grep "text: the leak's row" \
	'^ *\+192 B +\+3 +\+3 +0 +\+64 B +\+192 B +0 +0 +0 +foo_create mm/foo.c:10$' "$T_TMP/d.txt"
check_grep "text: the call site gone" \
	'^ *-32 B +-1 +-1 +0 +-32 B +-32 B +- +- +- +gone +old_alloc mm/old.c:50$' "$T_TMP/d.txt"
check_grep "text: the new call site" \
	'^ *\+16 B +\+1 +\+1 +0 +\+16 B +\+16 B +- +- +- +new +new_alloc mm/new.c:60$' "$T_TMP/d.txt"
check_grep "text: the totals' change" '^live bytes +416 B +592 B +\+176 B$' "$T_TMP/d.txt"
diff_ --stacks -n 1 "$B" "$A" > "$T_TMP/st.txt"
check_eq "text --stacks -n 1: the changed stack under its call site, then how many more" \
	"$(sed -n '/^changes/,$p' "$T_TMP/st.txt" | tail -n 5)" \
	"      +3 allocs, +3 live (+192 B):
          foo_create
          bar_open
          do_sys_open
... 2 more call sites (-n 0 shows all)"

"$ATAG_CMD" report --diff "$B" -f json "$A" > "$T_TMP/r.json"; rc=$?
check_eq "report --diff BEFORE AFTER is the diff" "$rc:$(cmp "$T_TMP/r.json" "$T_TMP/d.json" && echo same)" \
	"0:same"
"$ATAG_CMD" report -f json -i "$A" --diff "$B" > "$T_TMP/r.json"
check_eq "report -i AFTER --diff BEFORE likewise" "$(cmp "$T_TMP/r.json" "$T_TMP/d.json" && echo same)" \
	same

# ------------------------------------------------------------------ normalisation

diff_ --per 2:4 -f json "$B" "$A" > "$T_TMP/n.json"
# lifetimes are not divided; lifetimes.txt's a2 (2002 .. 9002) spans its task's stack
# capture at 3000 .. 3001: 6999 ns once the observer's nanosecond is taken out
jq_eq "--per 2:4: counts per operation, lifetimes as they are" \
	"[.normalized, ($foo | [.before.allocs, .after.allocs, .change.allocs, .change.live,
		.before.lifetime_ns.max])]" \
	'[{"per":"operation","before":2,"after":4},[1.5,1.5,0,0.5,6999]]' "$T_TMP/n.json"
check_grep "--per: six decimals in the JSON" '"allocs":1\.500000' "$T_TMP/n.json"
diff_ --per-second -f json "$B" "$A" > "$T_TMP/n.json"
jq_eq "--per-second: per second of each side's span" \
	"[.normalized, ($foo | (.after.allocs * 0.000009201 - 6 | fabs) < 0.000001)]" \
	'[{"per":"second","before":9101,"after":9201},true]' "$T_TMP/n.json"
diff_ --per 2 "$B" "$A" > "$T_TMP/n.txt"
check_grep "--per N, text: says per operation" \
	'^values per operation \(before: 2 operations, after: 2\)$' "$T_TMP/n.txt"
check_grep "--per N, text: fractional changes" '^ *\+96 B +\+1\.50 +\+1\.50 +0 ' "$T_TMP/n.txt"

# ------------------------------------------------------------------ kmem across builds

# the same kmem workload on a kernel built again: every function moved (another
# KASLR offset) and alloc_bprm's call into kmalloc sits at another offset
kaslr "$D/kmem.txt" | sed 's/ffffffffa1002045/ffffffffa1002052/g' > "$T_TMP/kmem2.txt"
mkfixture -o "$T_TMP/kmem1.dat" "$D/kmem.txt" && mkfixture -o "$T_TMP/kmem2.dat" "$T_TMP/kmem2.txt"
check_eq "kmem: the reports name the call sites with their offsets" \
	"$("$ATAG_CMD" report -f json "$T_TMP/kmem1.dat" | jq -c '[.tags[] | [.function, .offset]] | sort'):$("$ATAG_CMD" report -f json "$T_TMP/kmem2.dat" | jq -c '[.tags[] | [.function, .offset]] | sort')" \
	'[["alloc_bprm",69],["d_alloc",48],["free_bprm",16]]:[["alloc_bprm",82],["d_alloc",48],["free_bprm",16]]'
diff_ -f json --all "$T_TMP/kmem1.dat" "$T_TMP/kmem2.dat" > "$T_TMP/k.json"
jq_eq "kmem: matched by function without the offset, stacks too: no change" \
	'[.summary, [.sites[] | [.function, .file, .line, .status]],
		[.sites[].stacks[].frames | join(";")]]' \
	'[{"changed":0,"appeared":0,"disappeared":0,"unchanged":3},
	[["alloc_bprm",null,null,"same"],["d_alloc",null,null,"same"],["free_bprm",null,null,"same"]],
	["__kmalloc_noprof;alloc_bprm;do_execveat_common","kmem_cache_alloc_noprof;d_alloc"]]' \
	"$T_TMP/k.json"

# two call sites of one function are one row: their counters add up
{
	cat "$D/kmem.txt"
	echo 'ev 1 6000 300 kmalloc 0xffffffff81002060 0xffff888000040000 100 128'
	echo 'ev 1 6001 300 stack 0xffffffff810000b0 0xffffffff8100123f 0xffffffff81002060'
} > "$T_TMP/kmem3.txt"
mkfixture -o "$T_TMP/kmem3.dat" "$T_TMP/kmem3.txt"
diff_ -f json "$T_TMP/kmem1.dat" "$T_TMP/kmem3.dat" > "$T_TMP/k.json"
jq_eq "kmem: a second call site in alloc_bprm adds to its row" \
	'[.sites[] | [.function, .status, .before.call_sites, .after.call_sites, .change.allocs,
		.change.live_bytes]]' '[["alloc_bprm","changed",1,2,1,128]]' "$T_TMP/k.json"

# ------------------------------------------------------------------ other formats

diff_ -f csv "$B" "$A" > "$T_TMP/d.csv"
check_eq "csv: the header" "$(head -n 1 "$T_TMP/d.csv" | cut -d, -f1-10)" \
	"function,file,line,module,source,status,allocs_before,allocs_after,allocs_change,frees_before"
check_eq "csv: a row per changed call site, as the JSON" \
	"$(awk -F, 'NR > 1 { print $1, $5, $6, $9, $25, $26 }' "$T_TMP/d.csv")" \
	"foo_create alloc_tag changed 3 128 320
old_alloc alloc_tag disappeared -1 32 0
new_alloc alloc_tag appeared 1 0 16"
check_eq "csv: every row as wide as the header" \
	"$(awk -F, '{ print NF }' "$T_TMP/d.csv" | sort -u)" 50

diff_ -f folded --weight alloc_objects "$B" "$A" > "$T_TMP/d.folded"
check_eq "folded: frames root first, the call site as leaf, before and after" \
	"$(sort "$T_TMP/d.folded")" \
	"__x64_sys_ioctl;foo_ioctl;foo_create@mm/foo.c:10 2 2
bar_open@drivers/bar.c:20[bar] 1 1
do_sys_open;bar_open;foo_create@mm/foo.c:10 1 4
do_sys_open;bar_open@drivers/bar.c:20[bar] 2 2
new_alloc@mm/new.c:60 0 1
old_alloc@mm/old.c:50 1 0"

# the stacks are report -f folded's (issue 31: diff kept the allocator's frames and
# repeated the call site): each side's lines are that side's report's, weight for weight
for side in before:"$B" after:"$A" kbefore:"$T_TMP/kmem1.dat" kafter:"$T_TMP/kmem3.dat"; do
	name=${side%%:*} f=${side#*:}
	case $name in
	before|kbefore) other=$f ;;
	esac
	"$ATAG_CMD" report -f folded --weight alloc_objects "$f" 2> /dev/null |
		sed -E 's/\+0x[0-9a-f]+ / /' | sort > "$T_TMP/r.folded"
	case $name in
	before) diff_ -f folded --all --weight alloc_objects "$f" "$A" ;;
	after) diff_ -f folded --all --weight alloc_objects "$B" "$f" ;;
	kbefore) diff_ -f folded --all --weight alloc_objects "$f" "$T_TMP/kmem3.dat" ;;
	kafter) diff_ -f folded --all --weight alloc_objects "$T_TMP/kmem1.dat" "$f" ;;
	esac 2> /dev/null | awk -v side="${name#k}" '{ w = side == "before" ? $(NF - 1) : $NF
		if (w) { NF -= 2; print $0, w } }' | sort > "$T_TMP/d1.folded"
	check_eq "folded, $name: the stacks and weights of that side's report -f folded" \
		"$(cat "$T_TMP/d1.folded")" "$(cat "$T_TMP/r.folded")"
done

# ------------------------------------------------------------------ errors

check_status "one file: usage error" 2 diff_ "$B"
check_status "three files: usage error" 2 diff_ "$B" "$A" "$A"
diff_ "$B" "$T_TMP/nonexistent.dat" > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "a file that cannot be read: exit 1, one line naming it" \
	"$rc:$(wc -l < "$T_TMP/err"):$(cut -d: -f1-2 "$T_TMP/err")" \
	"1:1:trace-cmd-alloc-tag: $T_TMP/nonexistent.dat"
diff_ --per 0 "$B" "$A" > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "--per 0: usage error naming it" "$rc:$(head -n 1 "$T_TMP/err")" \
	"2:trace-cmd-alloc-tag: --per: '0' is not a count of operations (N, or N:M for before and after)"
diff_ --live "$B" "$A" > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "a report option a diff has no use for: said so" "$rc:$(head -n 1 "$T_TMP/err")" \
	"2:trace-cmd-alloc-tag: --live does not apply to a diff"
diff_ -f pprof "$B" "$A" > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "pprof: pointed at pprof -diff_base" \
	"$rc:$(head -n 1 "$T_TMP/err" | grep -c "run 'pprof -diff_base BEFORE.pb.gz AFTER.pb.gz'")" "2:1"
mkfixture -o "$T_TMP/one.dat" - <<'EOF'
ev 0 1000 1 hit 0xffffffff82000000 NONE mm/a.c a_fn 1
ev 0 1000 1 alloced 0xffff888000000100 0xffffffff82000000 8
EOF
diff_ --per-second "$T_TMP/one.dat" "$A" > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "--per-second on a side spanning no time: exit 1, saying so" "$rc:$(cat "$T_TMP/err")" \
	"1:trace-cmd-alloc-tag: cannot normalise by duration: the before side spans no time (fewer than two events)"
# ------------------------------------------------------------------ a report document as a side
# (issue 27) what report -f json (or leaks -o) wrote is a side as the trace it was made of:
# its tags[] and their stacks compare; the expectations are the document's own numbers
# and a hand edit of them, never diff's output
S=$D/sample.dat
"$ATAG_CMD" report -f json "$S" > "$T_TMP/a.json"
ntags=$(jq '.tags | length' "$T_TMP/a.json")
diff_ -f json --all "$T_TMP/a.json" "$S" > "$T_TMP/doc.json"
jq_eq "a report document against its trace: all its $ntags call sites the same" '.summary' \
	"{\"changed\":0,\"appeared\":0,\"disappeared\":0,\"unchanged\":$ntags}" "$T_TMP/doc.json"
jq_eq "... their stacks too, the totals those of its totals" \
	'[([.sites[].stacks[]?.status] | unique), (.totals.change | [.[]] | unique)]' \
	'[["same"],[0]]' "$T_TMP/doc.json"
# the edit: alloc_thread_stack_node 3 more live of 4 KiB, __d_alloc gone, a call site new
jq '.tags |= map(select(.function != "__d_alloc") |
	if .function == "alloc_thread_stack_node" then
		.allocs += 3 | .live += 3 | .live_bytes += 12288 | .bytes_alloced += 12288
	else . end) |
    .tags += [{ source: "alloc_tag", tag: "0xffffffff81000000", function: "new_site",
	file: "mm/new.c", line: 7, module: null, offset: null, allocs: 2, frees: 0,
	unmatched_frees: 0, partial_frees: 0, replaced: 0, live: 2, live_bytes: 64,
	peak_live_bytes: 64, bytes_alloced: 64, bytes_freed: 0, stacked: 0, stacks: [] }]' \
	"$T_TMP/a.json" > "$T_TMP/b.json"
dl=$(jq '[.tags[] | select(.function == "__d_alloc")] | [.[0].live, .[0].live_bytes] | join(" ")' \
	-r "$T_TMP/a.json")
set -- $dl
diff_ -f json "$T_TMP/a.json" "$T_TMP/b.json" > "$T_TMP/ab.json"
jq_eq "two documents: the edit, exactly" \
	'[.summary, (.sites[] | [.function, .status, .change.allocs, .change.live, .change.live_bytes]),
	  .totals.change.live_bytes]' \
	"[{\"changed\":1,\"appeared\":1,\"disappeared\":1,\"unchanged\":$((ntags - 2))},
		[\"alloc_thread_stack_node\",\"changed\",3,3,12288],
		$(jq -c '.tags[] | select(.function == "__d_alloc") | ["__d_alloc","disappeared",-.allocs,-.live,-.live_bytes]' "$T_TMP/a.json"),
		[\"new_site\",\"appeared\",2,2,64],
		$((12288 + 64 - $2))]" "$T_TMP/ab.json"
diff_ -f json "$S" "$T_TMP/b.json" > "$T_TMP/sb.json"
# (a document keeps no lifetimes but percentiles: its side has none)
counts='[.summary, (.sites[] | [.function, .status, .before, .after, .change] | del(.[2:][].lifetime_ns))]'
check_eq "the trace against the edit: as its document against it (lifetimes aside)" \
	"$(jq -c "$counts" "$T_TMP/sb.json")" "$(jq -c "$counts" "$T_TMP/ab.json")"
diff_ "$T_TMP/a.json" "$S" > "$T_TMP/doc.txt"
check_grep "text: the document named with the trace it was made of" \
	"^before  $T_TMP/a.json .*/sample.dat.: alloc_tag events, buffer trace-cmd-alloc-tag-82, 23585 records" \
	"$T_TMP/doc.txt"
# bad documents: one line naming the file and what is wrong, exit 1
echo '{ "tag": [] }' > "$T_TMP/no-tags.json"
jq '.tags[1].allocs = "5"' "$T_TMP/a.json" > "$T_TMP/bad-count.json"
jq '.tags[0].stacks[0].frames[1] = 3' "$T_TMP/a.json" > "$T_TMP/bad-frame.json"
printf '{ "tags": [ \n' > "$T_TMP/cut.json"
for f in no-tags bad-count bad-frame cut; do
	diff_ "$T_TMP/$f.json" "$S" > /dev/null 2> "$T_TMP/err.$f"
	echo "$?:$(wc -l < "$T_TMP/err.$f"):$(cat "$T_TMP/err.$f")"
done > "$T_TMP/errs"
check_eq "bad documents: exit 1, one line each, the file and the key" \
	"$(sed 's/: not valid JSON: .*/: not valid JSON/' "$T_TMP/errs")" \
	"1:1:trace-cmd-alloc-tag: $T_TMP/no-tags.json: a report document: no tags[]: not what report -f json or leaks -o writes
1:1:trace-cmd-alloc-tag: $T_TMP/bad-count.json: a report document: tags[1]: 'allocs' is not a count
1:1:trace-cmd-alloc-tag: $T_TMP/bad-frame.json: a report document: tags[0].stacks[0]: frames[1] is not a string
1:1:trace-cmd-alloc-tag: $T_TMP/cut.json: not valid JSON"
diff_ --comm sh "$T_TMP/a.json" "$S" > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "--comm with a document: refused, saying why" "$rc:$(cat "$T_TMP/err")" \
	"1:trace-cmd-alloc-tag: $T_TMP/a.json: a report document: -B, --comm and a --start or --end window select the records of a trace.dat: they cannot apply to the counts of a document"

check "diff --help" diff_ --help

done_testing
