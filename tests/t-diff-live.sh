#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: live
# tier: normal build (the kernel under load; ASan runs this code in t-record, t-top, t-leaks)
# diff on real recordings of this machine: a kmem workload that keeps N files open
# against the same workload keeping none (the kernel's alloc_empty_file shows +N live),
# and the uprobe simulator with the /proc/allocinfo double, leaking N objects at one
# tag (exactly that call site changes, by the count the simulator wrote down).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakeinfo.sh"
. "$(dirname "$0")/sim.sh"

. "$(dirname "$0")/live.sh"
FDHOLD=$ATAG_BUILD/tests/progs/atag-fdhold
N=50
live_tier "diff of real recordings" --events kmalloc --progs trace-cmd,jq,flock
# whatever a command that crashed left behind is undone before the state files go
at_exit "'$C' reset"

# Instances named after a pid of ours that outlived it, and state files: left behind.
leftovers() {
	instances_left "$TFS"
	ls "$ATAG_STATE_DIR" 2>/dev/null | sed 's/^/state file /'
}

# ------------------------------------------------------------------ kmem, real kernel

# record_fds N: a kmem recording of a workload that opens /dev/null N times and hands
# the files to a child that outlives the recording; diff counts the workload (the
# recording says who it is: the command and what it forks), not the recorder
record_fds() {
	"$C" record --kmem --no-stack -b 8192 -o "$T_TMP/fd$1.dat" -- \
		"$FDHOLD" --pid "$T_TMP/fd$1.pid" "$1" /dev/null > /dev/null 2> "$T_TMP/fd$1.err"
	rc=$?
	[ -s "$T_TMP/fd$1.pid" ] && kill "$(cat "$T_TMP/fd$1.pid")" 2>/dev/null
	check_eq "record --kmem of $1 files held: exit 0" "$rc:$(grep -c 'LOST' "$T_TMP/fd$1.err")" 0:0
}
record_fds 0
record_fds $N
"$C" diff -f json "$T_TMP/fd0.dat" "$T_TMP/fd0.dat" > "$T_TMP/self.json"
check_eq "kmem: a recording with itself shows no change" \
	"$(jq -c '[.summary.changed, .summary.appeared, .summary.disappeared, (.sites | length)]' "$T_TMP/self.json")" \
	"[0,0,0,0]"
"$C" diff -s live -f json "$T_TMP/fd0.dat" "$T_TMP/fd$N.dat" > "$T_TMP/fd.json"
check_eq "kmem: diff exits 0" "$?" 0
check_eq "kmem: alloc_empty_file allocated $N more files, all live at the end" \
	"$(jq -c '[.sites[] | select(.function == "alloc_empty_file") | .change | .allocs, .live]' "$T_TMP/fd.json")" \
	"[$N,$N]"
# what else an open file keeps (its LSM blob) changes with it, nothing else by as much
check_eq "kmem: the call sites with $N more live are the open file's alone" \
	"$(jq -c "[.sites[] | select(.change.live >= $N) | .function] - [\"security_file_alloc\"]" "$T_TMP/fd.json")" \
	'["alloc_empty_file"]'
check_eq "kmem: the call sites are matched by name across the two recordings" \
	"$(jq -c '[.sites[] | select(.function == "alloc_empty_file") | .status, .before.call_sites, .after.call_sites, .file]' "$T_TMP/fd.json")" \
	'["changed",1,1,null]'
check_eq "kmem: nothing left behind" "$(leftovers)" ""

# ------------------------------------------------------------------ alloc_tag, the doubles

cat > "$T_TMP/tags.desc" <<'EOF'
tag 4096 1 mm/slub.c:4100 func:kmalloc_trace
tag 1024 2 drivers/foo/foo.c:12 [foo] func:foo_alloc traced
tag 300 3 drivers/foo/bar.c:40 [foo] func:foo_bar
EOF
doubles_up "diff of simulated alloc_tag recordings" "$T_TMP/tags.desc" || { done_testing; exit; }
sim_install || { done_testing; exit; }

"$C" record --module foo -o "$T_TMP/a.dat" -- "$SIM" run -r 3 --expect "$T_TMP/a.exp" \
	> /dev/null 2>&1
"$C" record --module foo -o "$T_TMP/b.dat" -- "$SIM" run -r 3 --leak "foo_bar:$N" \
	--expect "$T_TMP/b.exp" > /dev/null 2>&1
# what the simulator says it did, per function: allocations and never freed
counts() {
	awk '$1 == "hit" { fn[$2] = $5 } $1 == "alloc" { a[$3]++; live[$2] = $3 }
	     $1 == "free" { delete live[$2] }
	     END { for (p in live) l[live[p]]++; for (t in a) print fn[t], a[t], l[t] + 0 }' "$1" | sort
}
counts "$T_TMP/a.exp" > "$T_TMP/a.count"
counts "$T_TMP/b.exp" > "$T_TMP/b.count"
want=$(join "$T_TMP/a.count" "$T_TMP/b.count" | awk '$4 != $2 || $5 != $3 { printf "[\"%s\",%d,%d]", $1, $4 - $2, $5 - $3 }')
check_eq "the simulator leaked $N at foo_bar in the second run only" "$want" "[\"foo_bar\",$N,$N]"
"$C" diff -f json "$T_TMP/a.dat" "$T_TMP/b.dat" > "$T_TMP/ab.json"
check_eq "alloc_tag: exactly that call site changed, by what the simulator counted" \
	"$(jq -c '[.summary.changed, .summary.appeared, .summary.disappeared] + [.sites[] | [.function, .change.allocs, .change.live]]' "$T_TMP/ab.json")" \
	"[1,0,0,$want]"
check_eq "alloc_tag: its identity" \
	"$(jq -c '.sites[0] | [.file, .line, .module, .change.live_bytes]' "$T_TMP/ab.json")" \
	"[\"drivers/foo/bar.c\",40,\"foo\",$((N * 192))]"
"$C" diff -f json "$T_TMP/a.dat" "$T_TMP/a.dat" > "$T_TMP/aa.json"
check_eq "alloc_tag: a recording with itself shows no change" \
	"$(jq -c '[.summary.changed, .summary.appeared, .summary.disappeared, .summary.unchanged]' "$T_TMP/aa.json")" \
	"[0,0,0,2]"
check_eq "alloc_tag: nothing left behind" "$(leftovers):$(fakeinfo_traced "$M")" ":$INITIAL"

done_testing
