# SPDX-License-Identifier: GPL-2.0
# live.sh - what every tier on this machine's real tracefs sets up first (sourced
# after lib.sh): the environment, what the tier needs, the signals, a state
# directory of its own and the instances that were there before it.
#
#   live_tier WHAT [--events E,E...] [--progs P,P...] [--why REASON]
#
# skips the tier's checks (skip WHAT, saying why) and exits unless it runs as root
# with tracefs mounted, each program installed and each event present (E is
# kmem:kmalloc, or kmalloc for the kmem group); a non-empty --why REASON skips too
# (after those). Then: C is the command, TFS the tracefs mount, HUP, INT and TERM
# end the tier through its cleanup, ATAG_STATE_DIR is the tier's own and the
# instances present are noted (instances_left reports only the tier's own).

export LC_ALL=C
unset ATAG_ALLOCINFO ATAG_TRACE_CMD
C=$ATAG_CMD
TFS=$(tracefs_dir)

live_reason() {	# live_reason EVENTS PROGRAMS: why the tier cannot run, or nothing
	if ! is_root; then echo "not root: this tier needs root"; return; fi
	if [ -z "$TFS" ]; then echo "tracefs is not mounted"; return; fi
	for e in $(echo "$1" | tr ',' ' '); do
		case $e in */*|*:*) ;; *) e=kmem:$e ;; esac
		[ -d "$TFS/events/${e%%:*}/${e#*:}" ] ||
			{ echo "this kernel has no $e event"; return; }
	done
	for p in $(echo "$2" | tr ',' ' '); do
		command -v "$p" > /dev/null || { echo "$p is not installed"; return; }
	done
}

live_tier() {
	_what=$1 _events= _progs= _why=
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--events) _events=$2 ;;
		--progs) _progs=$2 ;;
		--why) _why=$2 ;;
		*) echo "live_tier: unknown option $1" >&2; exit 2 ;;
		esac
		shift 2
	done
	_reason=$(live_reason "$_events" "$_progs")
	[ -n "$_reason" ] || _reason=$_why
	if [ -n "$_reason" ]; then
		skip "$_what" "$_reason"
		done_testing
		exit
	fi
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	export ATAG_STATE_DIR=$T_TMP/state
	instances_at_start "$TFS"
}
