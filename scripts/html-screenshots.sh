#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# html-screenshots.sh BUILD_DIR: the README's pictures of the bundled sample's HTML
# report (Documentation/images/report-html-*.png), taken by headless Chromium, one
# part of the page each (the others hidden by a style added to a copy).
set -eu
B=${1:?usage: $0 BUILD_DIR}
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$SRC"
"$B/trace-cmd-alloc-tag" report -f html -o "$T/page.html" tests/data/sample.dat
shot() {	# shot NAME WIDTH,HEIGHT SECTIONS...
	name=$1 size=$2
	shift 2
	show=$(printf 'section#%s,' "$@")
	sed "s|</style>|section{display:none} ${show%,}{display:block}</style>|" \
		"$T/page.html" > "$T/$name.html"
	mkdir -p "$T/profile-$name"
	chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --user-data-dir="$T/profile-$name" \
		--virtual-time-budget=5000 --hide-scrollbars --window-size="$size" \
		--screenshot="Documentation/images/report-html-$name.png" \
		"file://$T/$name.html" > /dev/null 2>&1
}
mkdir -p Documentation/images
shot summary 1000,700 summary notes timelines
shot peak 1000,640 peak
shot flames 1000,640 flames
