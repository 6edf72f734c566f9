# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the shell test scripts tests/t-*.sh. A script sources this file,
# calls ok/fail/skip (or the check_* helpers) once per test and ends with
# done_testing. Environment (set by tests/run-tests.sh):
#   ATAG_BUILD      absolute build directory
#   ATAG_SRC        absolute source directory
#   ATAG_RESULTS    file the per-script counts are appended to
#   ATAG_TRACECMD_ENV  extra environment for stock trace-cmd (ASan preload)

: "${ATAG_SRC:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${ATAG_BUILD:=$ATAG_SRC/build}"
ATAG_CMD=$ATAG_BUILD/trace-cmd-alloc-tag
ATAG_MKFIXTURE=$ATAG_BUILD/tests/atag-mkfixture
ATAG_PLUGIN_DIR=$ATAG_BUILD/plugins
# text tables are cut to an exported COLUMNS: the tiers compare whole outputs
unset COLUMNS
T_NAME=${ATAG_TIER_NAME:-$(basename "$0" .sh)}	# a tier that execs another names itself
T_PASS=0
T_FAIL=0
T_SKIP=0
T_TMP=$(mktemp -d "/tmp/atag-$T_NAME.XXXXXX")
trap 't_cleanup' EXIT
T_CLEANUP=""

# Register a command to run when the script exits (in reverse order).
at_exit() { T_CLEANUP="$*; $T_CLEANUP"; }

t_cleanup() {
	eval "$T_CLEANUP" >/dev/null 2>&1
	[ -n "$ATAG_KEEP_TMP" ] || rm -rf "$T_TMP"
}

ok() { T_PASS=$((T_PASS + 1)); echo "ok - $T_NAME: $1"; }
fail() {
	T_FAIL=$((T_FAIL + 1))
	echo "FAIL - $T_NAME: $1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/    | /' | head -n 40
	return 0
}
skip() { T_SKIP=$((T_SKIP + 1)); echo "skip - $T_NAME: $1 (${2:-no reason given})"; }

# check NAME CMD...: the command exits 0
check() {
	name=$1; shift
	if out=$("$@" 2>&1); then ok "$name"; else fail "$name" "command: $*" "$out"; fi
}

# check_fails NAME STATUS CMD...: the command exits with STATUS
check_status() {
	name=$1 want=$2; shift 2
	out=$("$@" 2>&1); got=$?
	if [ "$got" = "$want" ]; then ok "$name"; else
		fail "$name" "exit $got, expected $want: $*" "$out"; fi
}

# check_eq NAME ACTUAL EXPECTED
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else
		fail "$1" "expected: $3" "got:      $2"; fi
}

# check_grep NAME PATTERN FILE|-: the text matches the extended regex
check_grep() {
	name=$1 pat=$2 file=$3
	if grep -Eq -- "$pat" "$file"; then ok "$name"; else
		fail "$name" "no line matches /$pat/ in:" "$(head -n 30 "$file")"; fi
}

check_nogrep() {
	name=$1 pat=$2 file=$3
	if grep -Eq -- "$pat" "$file"; then
		fail "$name" "unexpected match of /$pat/:" "$(grep -E -- "$pat" "$file" | head)"
	else ok "$name"; fi
}

# Stock trace-cmd with our plugin directory and without the system plugins'
# copy of anything we build.
tracecmd() {
	env $ATAG_TRACECMD_ENV TRACEEVENT_PLUGIN_DIR="$ATAG_PLUGIN_DIR" trace-cmd "$@"
}

mkfixture() { "$ATAG_MKFIXTURE" "$@"; }

is_root() { [ "$(id -u)" = 0 ]; }

# The tracefs mount point, or empty.
tracefs_dir() { awk '$3 == "tracefs" { print $2; exit }' /proc/mounts; }

# Whether PID (a record or top names its instance after its pid) is this script's: a
# descendant of it, or gone (then what it named was left behind). Another user's
# command running meanwhile is not ours to judge.
ours() {
	p=$1
	[ -d "/proc/$p" ] || return 0
	while [ "$p" -gt 1 ]; do
		[ "$p" = $$ ] && return 0
		p=$(awk '$1 == "PPid:" { print $2 }' "/proc/$p/status" 2>/dev/null)
		[ -n "$p" ] || return 0
	done
	return 1
}

# The tool's tracefs instances ($1: the tracefs directory) when the tier starts: what
# another run left behind before is not this tier's doing.
instances_at_start() {
	ls "$1/instances" 2>/dev/null | grep '^trace-cmd-alloc-tag-' > "$T_TMP/instances.start"
}

# The tool's instances this tier left behind, one "instance NAME" line each: those of
# its own processes, and of processes gone that left their state file in the tier's
# state directory (a session that could not remove its instance keeps its state file
# for reset). An instance of a process gone without one is another tier's, ending
# beside this one (its removal under way, or a kill its tier will reset): the suite
# checks at its end that no instance is left at all (tests/run-tests.sh).
instances_left() {
	for i in "$1"/instances/trace-cmd-alloc-tag-*; do
		[ -e "$i" ] || continue
		i=${i##*/}
		grep -qx "$i" "$T_TMP/instances.start" 2>/dev/null && continue
		case ${i##*-} in
		*[!0-9]*) echo "instance $i" ;;
		*)	if [ -d "/proc/${i##*-}" ]; then
				ours "${i##*-}" && echo "instance $i"
			elif [ -e "${ATAG_STATE_DIR:-/run/trace-cmd-alloc-tag}/record-${i##*-}.state" ]; then
				echo "instance $i"
			fi ;;
		esac
	done
}

# wait_exit PID: a background command of the tier ends within $WAIT_EXIT_S seconds
# (20), else SIGKILL (rc=hung, status 1); rc is its exit status
wait_exit() {
	if ! "$ATAG_BUILD/tests/progs/atag-await" -t "${WAIT_EXIT_S:-20}" exit "$1"; then
		kill -KILL "$1"
		wait "$1"
		rc=hung
		return 1
	fi
	wait "$1"
	rc=$?
}

done_testing() {
	echo "$T_NAME: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ -n "$ATAG_RESULTS" ] && echo "$T_NAME $T_PASS $T_FAIL $T_SKIP" >> "$ATAG_RESULTS"
	[ "$T_FAIL" = 0 ]
}
