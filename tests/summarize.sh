#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# summarize.sh [--since EPOCH] RESULTS...: the closing line of "make check", with
# the wall time since EPOCH when given. Every results file must exist (a build
# that did not get as far as its tests is a failure).
since=
if [ "$1" = --since ]; then
	since=$2
	shift 2
fi
p=0 f=0 s=0
for r in "$@"; do
	if [ ! -s "$r" ]; then
		echo "no test results in $r (build or test run failed)"
		f=$((f + 1))
		continue
	fi
	set -- $(awk '{ p += $2; f += $3; s += $4 } END { print p, f, s }' "$r")
	p=$((p + $1)) f=$((f + $2)) s=$((s + $3))
done
wall=
if [ -n "$since" ]; then
	t=$(($(date +%s) - since))
	wall=" in $((t / 60)) min $((t % 60)) s"
fi
echo "check: $p passed, $f failed, $s skipped$wall"
[ "$f" = 0 ]
