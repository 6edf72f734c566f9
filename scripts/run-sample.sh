#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-sample.sh BUILD_DIR SAMPLE: the main job of "make run": the lifetime report
# of the bundled sample trace (summary, top call sites, live allocations).
B=$1
S=$2
if [ ! -f "$S" ]; then
	echo "($S is missing: using a generated trace instead)"
	S=$B/sample.dat
	"$B/tests/atag-mkfixture" -o "$S" --generate 4000 --seed 7 --tags 12 --live 40 --depth 6 ||
		exit 1
fi
echo "== trace-cmd-alloc-tag report -n 10 --live $S"
"$B/trace-cmd-alloc-tag" report -n 10 --live --no-progress "$S"
