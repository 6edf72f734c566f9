#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tier: alone
# tier: normal build (timing: under a sanitizer it would measure the sanitizer)
# report beside a CPU hog is no slower than with one thread (ATAG_THREADS=1): with
# the other core taken, two threads wait on each other's wake-ups behind the hog's
# time slices, so report must choose one thread, or go on with one once it sees the
# pair gaining nothing. Measured side by side on a generated trace big enough for
# report to consider two threads (its 4 MiB of ring-buffer data and more): pairs of
# whole runs, report's own choice and ATAG_THREADS=1 in turn, a hog (a busy loop of
# this script's own) running throughout. The median of the pair ratios must be at
# most 1.3 (a generous margin: the same code would measure 1.0); where the
# ATAG_THREADS=1 runs alone vary by more than half their median, the machine is
# too noisy to tell, and the tier says so with its figures. Also without a hog:
# report's choice is no slower than one thread.
. "$(dirname "$0")/lib.sh"

PAIRS=5
RUN=$ATAG_BUILD/bench/atag-bench-run
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
	skip "report beside a CPU hog is no slower than one thread" "one CPU online"
	done_testing
	exit
fi
mkfixture -o "$T_TMP/big.dat" --generate 1500000 --seed 31 --live 10000 --cpus 4 --tags 256 \
	--stacks 8 --depth 14 > /dev/null || fail "generated trace"

# pairs NAME: $PAIRS pairs of (report's choice, ATAG_THREADS=1), times in $T_TMP/NAME
pairs() {
	: > "$T_TMP/$1"
	i=0
	while [ $i -lt $PAIRS ]; do
		a=$("$RUN" "$ATAG_CMD" report -f json "$T_TMP/big.dat" | cut -d' ' -f1)
		b=$("$RUN" env ATAG_THREADS=1 "$ATAG_CMD" report -f json "$T_TMP/big.dat" |
		    cut -d' ' -f1)
		echo "$a $b" >> "$T_TMP/$1"
		i=$((i + 1))
	done
}

# judge NAME: "median-ratio noisy figures", the ratio of report's choice over one thread
judge() {
	awk '
		function med(v, n,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		{ n++; a[n] = $1; b[n] = $2; r[n] = $2 > 0 ? $1 / $2 : 99; bb[n] = $2
		  if (n == 1 || $2 < lo) lo = $2; if (n == 1 || $2 > hi) hi = $2 }
		END {
			m = med(r, n); mb = med(bb, n)
			printf "%.2f %d median ratio %.2f (pairs:", m, ((hi - lo) > mb / 2), m
			for (i = 1; i <= n; i++) printf " %.3f/%.3f", a[i], b[i]
			printf "; ATAG_THREADS=1 %.3f .. %.3f s)\n", lo, hi
		}' "$T_TMP/$1"
}

# verdict NAME WHAT
verdict() {
	set -- "$2" $(judge "$1")
	what=$1 ratio=$2 noisy=$3
	shift 3
	if [ "$noisy" = 1 ]; then
		skip "$what" "the machine is too noisy to tell: $*"
	elif awk -v r="$ratio" 'BEGIN { exit !(r <= 1.3) }'; then
		ok "$what: $*"
	else
		fail "$what: $*" "uptime: $(uptime)"
	fi
}

"$ATAG_CMD" report -f json "$T_TMP/big.dat" > /dev/null 2>&1	# the file in the page cache
pairs quiet
verdict quiet "report's choice of threads is no slower than one thread"

# the hog: a busy loop of our own (its pid is $!, the shell of the loop, killed by it)
sh -c 'while :; do :; done' &
hog=$!
at_exit "kill $hog"
pairs hog
kill "$hog" 2> /dev/null
wait "$hog" 2> /dev/null
verdict hog "beside a CPU hog, report is no slower than ATAG_THREADS=1"

done_testing
