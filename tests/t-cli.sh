#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The command dispatcher: help, version, unknown commands.
. "$(dirname "$0")/lib.sh"

out=$("$ATAG_CMD" --help); rc=$?
check_eq "--help exits 0" "$rc" 0
case "$out" in *"usage: trace-cmd-alloc-tag"*report*stat*) ok "--help lists the commands" ;;
*) fail "--help lists the commands" "$out" ;; esac
check_eq "-h is --help" "$("$ATAG_CMD" -h)" "$out"
check_eq "help without a command is --help" "$("$ATAG_CMD" help)" "$out"

ver=$("$ATAG_CMD" --version)
case "$ver" in "trace-cmd-alloc-tag version "[0-9]*) ok "--version" ;;
*) fail "--version" "$ver" ;; esac

"$ATAG_CMD" frobnicate > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "unknown command: exit status" "$rc" 2
check_eq "unknown command: nothing on stdout" "$(cat "$T_TMP/out")" ""
check_eq "unknown command: one line naming it, one hint line" "$(cat "$T_TMP/err")" \
"trace-cmd-alloc-tag: 'frobnicate' is not a command
Try 'trace-cmd-alloc-tag --help'."

"$ATAG_CMD" > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
check_eq "no command: exit 2" "$rc" 2
check_grep "no command: usage on stderr" "^usage:" "$T_TMP/err"

"$ATAG_CMD" help frobnicate > /dev/null 2> "$T_TMP/err"; rc=$?
check_eq "help for an unknown command: exit 2, one line and the hint" "$rc:$(cat "$T_TMP/err")" \
"2:trace-cmd-alloc-tag: no such command 'frobnicate'
Try 'trace-cmd-alloc-tag --help'."

# every command answers --help (its own usage on stdout, exit 0), and bad
# options get one line naming the option (getopt's own message silenced), then
# one line pointing to --help (never the help itself), exit 2
for c in $("$ATAG_CMD" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }'); do
	"$ATAG_CMD" "$c" --help > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	if [ "$rc" = 0 ] && grep -q "$c" "$T_TMP/out"; then
		ok "$c --help"
	else
		fail "$c --help" "exit $rc" "$(cat "$T_TMP/out" "$T_TMP/err")"
	fi
	h=$("$ATAG_CMD" help "$c" 2>&1); hrc=$?
	check_eq "help $c is $c --help" "$hrc:$h" "$rc:$(cat "$T_TMP/out" "$T_TMP/err")"

	"$ATAG_CMD" "$c" -Q > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
	check_eq "$c -Q: the option named, a hint to --help, exit 2" "$rc:$(cat "$T_TMP/err")" \
		"2:trace-cmd-alloc-tag: unknown option '-Q'
Try 'trace-cmd-alloc-tag $c --help'."
	check_eq "$c -Q: nothing on stdout" "$(cat "$T_TMP/out")" ""
	"$ATAG_CMD" "$c" --no-such-option > /dev/null 2> "$T_TMP/err"; rc=$?
	check_eq "$c --no-such-option" "$rc:$(head -n 1 "$T_TMP/err")" \
		"2:trace-cmd-alloc-tag: unknown option '--no-such-option'"
	"$ATAG_CMD" "$c" --help=yes > /dev/null 2> "$T_TMP/err"; rc=$?
	check_eq "$c --help=yes" "$rc:$(head -n 1 "$T_TMP/err")" \
		"2:trace-cmd-alloc-tag: option '--help' takes no value"
done

# an option missing its value, short and long, in each command that has one
for args in "report -o" "report --output" "report -n" "report --sort" "list -s" "list --sort" \
	    "stat -B" "stat --watch" "record -o" "record --duration" "enable --function"; do
	set -- $args
	"$ATAG_CMD" "$@" > /dev/null 2> "$T_TMP/err"; rc=$?
	check_eq "$args: needs a value" "$rc:$(head -n 1 "$T_TMP/err")" \
		"2:trace-cmd-alloc-tag: option '$2' needs a value"
done

done_testing
