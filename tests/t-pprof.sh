#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: quick (make check-quick: generated files only, no root, seconds)
# The pprof renderer read back by Go's pprof (`go tool pprof`, offline): the
# hand-built report of tests/render-sample.h written by tests/progs/render-pprof.
. "$(dirname "$0")/lib.sh"

PROG=$ATAG_BUILD/tests/progs/render-pprof
if ! command -v go > /dev/null 2>&1; then
	skip "go tool pprof reads the profile" "go is not installed (golang-go)"
	done_testing
	exit
fi

# pprof offline, touching nothing outside $T_TMP
pprof() {
	env HOME="$T_TMP" GOPATH="$T_TMP/go" GOCACHE="$T_TMP/gocache" PPROF_TMPDIR="$T_TMP" \
		GOPROXY=off GOTOOLCHAIN=local GOFLAGS= \
		go tool pprof -symbolize=none "$@"
}

# "flat name" of the first four entries with a flat value, from -top
top4() {
	pprof -top -nodefraction=0 "$@" 2>> "$T_TMP/err" |
		awk '$1 == "flat" { on = 1; next }
		     on && $1 != "0" { print $1, $NF; if (++n == 4) exit }'
}

check "write a profile" "$PROG" "$T_TMP/alloc.pb.gz"
check "write a profile, inuse_space by default" "$PROG" "$T_TMP/inuse.pb.gz" inuse_space
check_status "an unknown weight is refused" 1 "$PROG" "$T_TMP/bad.pb.gz" bytes
check "it is gzip" gzip -t "$T_TMP/alloc.pb.gz"

check_eq "-top alloc_space: call sites by bytes allocated" \
	"$(top4 -unit=B -sample_index=alloc_space "$T_TMP/alloc.pb.gz")" \
	"16384B xfs_buf_alloc@fs/xfs/xfs_buf.c:231[xfs]
5120B alloc_inode@fs/inode.c:261
300B 0xffff888012345678
128B kmalloc_caller+0x2a"
check_eq "-top alloc_objects" "$(top4 -sample_index=alloc_objects "$T_TMP/alloc.pb.gz")" \
	"10 alloc_inode@fs/inode.c:261
4 xfs_buf_alloc@fs/xfs/xfs_buf.c:231[xfs]
3 0xffff888012345678
2 kmalloc_caller+0x2a"
check_eq "-top inuse_space" "$(top4 -unit=B -sample_index=inuse_space "$T_TMP/alloc.pb.gz")" \
	"16384B xfs_buf_alloc@fs/xfs/xfs_buf.c:231[xfs]
1024B alloc_inode@fs/inode.c:261
64B kmalloc_caller+0x2a
8B odd\"fn@a,b.c:3[mo"
check_eq "-top inuse_objects" "$(top4 -sample_index=inuse_objects "$T_TMP/alloc.pb.gz")" \
	"4 xfs_buf_alloc@fs/xfs/xfs_buf.c:231[xfs]
2 alloc_inode@fs/inode.c:261
1 kmalloc_caller+0x2a
1 odd\"fn@a,b.c:3[mo"

pprof -top "$T_TMP/alloc.pb.gz" > "$T_TMP/top" 2>&1
check_grep "default sample type: alloc_space" "^Type: alloc_space$" "$T_TMP/top"
check_grep "duration from the trace timestamps" "^Duration: 6us," "$T_TMP/top"
check_grep "notices of incomplete data as comments" "^incomplete: lost 3 events on CPU 1$" \
	"$T_TMP/top"
pprof -top "$T_TMP/inuse.pb.gz" > "$T_TMP/top" 2>&1
check_grep "the weight is the default sample type" "^Type: inuse_space$" "$T_TMP/top"

# -traces: the call site is the leaf (for its own frame: not repeated), then its callers
pprof -traces "$T_TMP/alloc.pb.gz" 2>&1 |
	awk '/^-----/ { if (++n == 2) exit; next } n == 1 && !/^ +[a-z_]+: / { print $NF }' \
	> "$T_TMP/trace"
check_eq "-traces: leaf first, the call site once" "$(cat "$T_TMP/trace")" "alloc_inode@fs/inode.c:261
new_inode
do_sys_open"

# every sample says its source (issue 25): as many source labels as samples (a line
# of dashes before each and after the last)
pprof -traces "$T_TMP/alloc.pb.gz" > "$T_TMP/traces" 2>&1
check_eq "every sample labelled with its source" \
	"$(grep -c '^ *source: *\(alloc_tag\|kmem\)$' "$T_TMP/traces")" \
	"$(($(grep -c '^-----' "$T_TMP/traces") - 1))"

check_eq "-tagfocus module=xfs" \
	"$(top4 -unit=B -sample_index=alloc_space -tagfocus module=xfs "$T_TMP/alloc.pb.gz")" \
	"16384B xfs_buf_alloc@fs/xfs/xfs_buf.c:231[xfs]"

pprof -top -lines -nodefraction=0 "$T_TMP/alloc.pb.gz" > "$T_TMP/lines" 2>&1
check_grep "-lines: the call site's file and line" " alloc_inode@fs/inode.c:261 fs/inode.c:261$" \
	"$T_TMP/lines"
check_nogrep "no error from pprof" "[Ee]rror|[Ww]arning|malformed" "$T_TMP/err"

done_testing
