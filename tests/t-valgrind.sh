#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The unit suites and the commands under valgrind's memcheck: no invalid access, no
# use of uninitialised memory, no leak (definite or indirect) of our own. Runs for the
# normal build only: valgrind and ASan exclude each other.
. "$(dirname "$0")/lib.sh"

if [ -n "$ATAG_TRACECMD_ENV" ] || [ "${ATAG_BUILD##*-}" = asan ]; then
	skip "valgrind" "ASan build: valgrind runs on the normal build"
	done_testing
	exit 0
fi
if ! command -v valgrind > /dev/null; then
	skip "valgrind" "valgrind is not installed (make deps installs it)"
	done_testing
	exit 0
fi

# vg NAME CMD...: the command exits as it does without valgrind, and memcheck is silent
VG="valgrind -q --num-callers=40 --error-exitcode=99 --child-silent-after-fork=yes
	--suppressions=$ATAG_SRC/tests/valgrind.supp --leak-check=full
	--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect"
vg() {
	name=$1; shift
	"$@" > "$T_TMP/plain.out" 2>&1; want=$?
	$VG "$@" > "$T_TMP/vg.out" 2> "$T_TMP/vg.err"; got=$?
	if [ "$got" = "$want" ] && ! grep -q '^==[0-9]*==' "$T_TMP/vg.err"; then
		ok "valgrind: $name"
	else
		fail "valgrind: $name" "exit $got under valgrind, $want without" \
			"$(grep '^==' "$T_TMP/vg.err" | head -n 30)"
	fi
}

# the long loops a tenth as long (tests/atag-utest.h): the whole length runs outside valgrind
export ATAG_UTEST_QUICK=1
vg "CUnit suites" "$ATAG_BUILD/tests/atag-utest" -s
unset ATAG_UTEST_QUICK

D=$ATAG_SRC/tests/data
mkfixture -o "$T_TMP/lt.dat" "$D/lifetimes.txt"
mkfixture -o "$T_TMP/gen.dat" --generate 20000 --seed 3 --live 100 --cpus 2
mkfixture -o "$T_TMP/kmem.dat" "$D/kmem.txt"
vg "report, text views" "$ATAG_CMD" report --stacks --live --hist "$T_TMP/lt.dat"
for f in json csv folded; do
	vg "report -f $f" "$ATAG_CMD" report -f $f "$T_TMP/lt.dat"
done
vg "report -f pprof" "$ATAG_CMD" report -f pprof -o "$T_TMP/p.pb.gz" "$T_TMP/lt.dat"
vg "report, two threads" "$ATAG_CMD" report -f json "$T_TMP/gen.dat"
vg "report, kmem source" "$ATAG_CMD" report --live "$T_TMP/kmem.dat"
vg "report, the sample trace" "$ATAG_CMD" report -n 5 --live "$D/sample.dat"
head -c $(($(stat -c %s "$T_TMP/gen.dat") - 100000)) "$T_TMP/gen.dat" > "$T_TMP/cut.dat"
vg "report, a truncated file" "$ATAG_CMD" report "$T_TMP/cut.dat"
printf 'not a trace\n' > "$T_TMP/bad.dat"
vg "report, not a trace.dat" "$ATAG_CMD" report "$T_TMP/bad.dat"
vg "report, usage error" "$ATAG_CMD" report --nope
vg "diff, text with stacks" "$ATAG_CMD" diff --stacks --all "$T_TMP/lt.dat" "$T_TMP/gen.dat"
for f in json csv folded; do
	vg "diff -f $f" "$ATAG_CMD" diff -f $f --per 3:4 "$T_TMP/gen.dat" "$T_TMP/lt.dat"
done
vg "report --diff, kmem" "$ATAG_CMD" report --diff "$T_TMP/kmem.dat" --per-second "$T_TMP/kmem.dat"
vg "diff, a file that cannot be read" "$ATAG_CMD" diff "$T_TMP/lt.dat" "$T_TMP/bad.dat"

cat > "$T_TMP/allocinfo" <<'AI'
allocinfo - version: 2.0
#     <size>  <calls> <tag info>
        4096        1 mm/slub.c:4100 func:kmalloc_trace 
        1024        2 drivers/foo/foo.c:12 [foo] func:foo_alloc 
AI
vg "list, text format" "$ATAG_CMD" list --allocinfo "$T_TMP/allocinfo"
vg "list --format json" "$ATAG_CMD" list --allocinfo "$T_TMP/allocinfo" --format json
vg "enable without the ioctls" "$ATAG_CMD" enable --allocinfo "$T_TMP/allocinfo" --all

TRACEFS=/sys/kernel/tracing
if [ -r "$TRACEFS/buffer_size_kb" ]; then
	vg "stat on this machine's tracefs" "$ATAG_CMD" stat --tracefs "$TRACEFS"
	vg "stat --format json" "$ATAG_CMD" stat --tracefs "$TRACEFS" --format json
else
	skip "valgrind: stat" "no readable tracefs at $TRACEFS (needs root)"
fi

# the plugin inside stock trace-cmd: memory errors only (trace-cmd's own leaks are not ours)
if command -v trace-cmd > /dev/null; then
	TRACEEVENT_PLUGIN_DIR="$ATAG_PLUGIN_DIR" valgrind -q --error-exitcode=99 --leak-check=no \
		trace-cmd report -i "$T_TMP/lt.dat" > "$T_TMP/tc.out" 2> "$T_TMP/tc.err"; rc=$?
	if [ $rc = 0 ] && ! grep -q '^==[0-9]*==' "$T_TMP/tc.err"; then
		ok "valgrind: the plugin in trace-cmd report"
	else
		fail "valgrind: the plugin in trace-cmd report" "exit $rc" "$(head -n 30 "$T_TMP/tc.err")"
	fi
else
	skip "valgrind: the plugin in trace-cmd report" "trace-cmd is not installed"
fi

done_testing
