#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-sample.sh BUILD_DIR SAMPLE: the main job of "make run". Prints the bundled
# sample trace through stock trace-cmd report with our plugin, so the alloced and
# freed lines show their resolved call sites.
B=$1
S=$2
if [ ! -f "$S" ]; then
	S=$B/sample.dat
	"$B/tests/atag-mkfixture" -o "$S" --generate 400 --seed 7 --tags 6 --live 20 --depth 6 ||
		exit 1
fi
echo "== trace-cmd report -i $S (with plugins/plugin_alloc_tag.so)"
TRACEEVENT_PLUGIN_DIR=$B/plugins trace-cmd report -i "$S" | head -n 40
