# SPDX-License-Identifier: GPL-2.0
#
# The frame of a guest script (sourced by guest-tests.sh and guest-sample.sh):
# the environment run.sh passes (see guest-tests.sh), run_test, skip, and
# finish, which writes the "DONE" line the host waits for.
#
#   run_test NAME COMMAND [ARGS...]
#
# runs a check with its output in $ATAG_VM_RESULTS/logs/NAME.log.  Its exit
# status decides: 0 passed, 77 skipped, anything else failed.  After it, the
# kernel state is checked: no tag left traced, no tracefs instance left besides
# those present at boot.  The variables name, log, t0, t1, rc, res and reason
# are run_test's.

R=$ATAG_VM_RESULTS
PROBE=$ATAG_VM_PROBE
KO=$ATAG_VM_MODULE
T=/sys/kernel/tracing

mkdir -p "$R/logs"
: >"$R/results.txt"
BASE_INSTANCES=$(ls "$T/instances")
npass=0
nfail=0
nskip=0

# The state every test must leave behind: no tag traced, no new instance.
check_state() {
	# shellcheck disable=SC2086
	"$PROBE" state $BASE_INSTANCES
}

uptime() {
	read -r up _ </proc/uptime
	echo "$up"
}

run_test() {
	name=$1
	shift
	log=$R/logs/$name.log
	t0=$(uptime)
	echo "# $*" >"$log"
	"$@" >>"$log" 2>&1
	rc=$?
	echo "# exit status $rc; state after the test:" >>"$log"
	if ! check_state >>"$log" 2>&1; then
		rc=1
	fi
	t1=$(uptime)
	case $rc in
	0) res=PASS npass=$((npass + 1)) ;;
	77) res=SKIP nskip=$((nskip + 1)) ;;
	*) res=FAIL nfail=$((nfail + 1)) ;;
	esac
	reason=
	if [ $res = SKIP ]; then
		while read -r line; do
			case "$line" in "# SKIP "*) reason=${line#\# SKIP }; break ;; esac
		done <"$log"
	fi
	echo "$res $name${reason:+ $reason}" >>"$R/results.txt"
	echo "atag-vm: $res $name ($t0 -> $t1 s)"
}

skip() {
	echo "# SKIP $*"
	return 77
}

# The last line of results.txt; the exit status of the script.
finish() {
	echo "DONE $npass passed, $nfail failed, $nskip skipped" >>"$R/results.txt"
	sync
	[ $nfail = 0 ]
}
