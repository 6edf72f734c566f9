# SPDX-License-Identifier: GPL-2.0
#
# Phase 2 of the guest checks: the project's commands (list, enable, disable,
# record, reset, report, stat) and the libtraceevent plugin, run from the host's
# build tree against the real kernel.  Sourced by guest-tests.sh, which runs each
# t_cmd_* function with run_test; they use its $PROBE, $KO, $T and
# $BASE_INSTANCES.  The working directory is the guest's read-only /.
#
# Every check prints "ok - ..." or "not ok - ..."; a t_cmd_* function returns
# non-zero when one failed.  After every command that must leave the kernel as it
# found it, the state is checked (no tag traced, no instance left), not only after
# the whole function.  What is compared with what:
#   list      its JSON with /proc/allocinfo parsed here (awk), through the ioctls
#             and through the text of a copy (--allocinfo, $ATAG_ALLOCINFO)
#   enable    the trace state read back through list --traced and through the
#             probe's own ioctl walk
#   record    report --format json on the trace.dat, with the numbers of the
#             workload, /proc/allocinfo's counters and /proc/atag_test's addresses
#   plugin    stock trace-cmd report's lines, with report's numbers
#   stat      its JSON, with trace_stats/memory_usage_kb and the buffer files
#
# Starting a process costs 0.1 to 0.5 s under TCG, so the checks compare with
# shell built-ins and do their parsing in one awk or jq per command output.

C=$ATAG_VM_BUILD/trace-cmd-alloc-tag
CW=/tmp/atag-cmds		# scratch, on the guest's tmpfs
ATP=/proc/atag_test
STATE_DIR=/run/trace-cmd-alloc-tag
E=trace-cmd-alloc-tag		# the prefix of the commands' error lines
NPERCPU=6			# percpu allocations: some land in the first chunk
# frames of the tracing machinery, which report drops from the top of stacks
MACHINERY='trace_event_raw_event_|_*alloc_tag_trace_|event_triggers_call|__trace_stack|__ftrace_trace_stack|stack_trace_save'
export LC_ALL=C
NL='
'
mkdir -p "$CW"

bad=0
ok() { echo "ok - $*"; }
nok() {
	echo "not ok - $*"
	bad=$((bad + 1))
}

# same NAME GOT WANT
same() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		nok "$1"
		printf '#   got:\n%s\n#   want:\n%s\n' "$2" "$3"
	fi
}

# run CMD...: its output (stdout and stderr) in $out, its exit status in $st
run() {
	read -r t_start _ </proc/uptime
	echo "\$ $*   [at $t_start s]"
	out=$("$@" 2>&1)
	st=$?
	if [ ${#out} -lt 6000 ]; then
		printf '%s\n' "$out" | while IFS= read -r l; do echo "  | $l"; done
	else
		echo "  | (${#out} characters)"
	fi
	read -r t_end _ </proc/uptime
	echo "  | (exit $st, until $t_end s)"
}

# expect NAME STATUS PATTERN: the last run exited with STATUS and printed a line
# matching the shell PATTERN
expect() {
	# shellcheck disable=SC2254
	case "$NL$out$NL" in
	*"$NL"$3"$NL"*) [ "$st" = "$2" ] && ok "$1" && return ;;
	esac
	nok "$1 (exit $st, want $2 and a line matching '$3')"
}

# After a command: no tag traced, no instance but those at boot.  A leftover is
# a failure; it is cleaned up then, so that the next checks start clean.
clean() {
	# shellcheck disable=SC2086
	if s=$("$PROBE" state $BASE_INSTANCES 2>&1); then
		ok "$1: no tag traced, no instance left"
		return 0
	fi
	nok "$1: the kernel state is not clean"
	printf '%s\n' "$s"
	"$PROBE" untrace
	for i in "$T"/instances/*; do
		case " $BASE_INSTANCES " in *" ${i##*/} "*) continue ;; esac
		rmdir "$i" && echo "# removed $i"
	done
	return 1
}

# machinery FILE: how many lines of report's JSON (a call site, a live
# allocation) have a stack that starts with a frame of the tracing machinery
machinery() {
	grep -cE "\"frames\":\[\"($MACHINERY)" "$1"
}

# pick PREFIX: the lines of $sum that start with "PREFIX ", without it
pick() {
	r=
	while IFS= read -r l; do
		case "$l" in "$1 "*) r="$r${r:+$NL}${l#"$1 "}" ;; esac
	done <<-EOF
	$sum
	EOF
	printf '%s' "$r"
}

# The test module's tags from /proc/allocinfo as shell variables: MF its source
# file, L_kind the line, S_kind the site as list and the probe print it
# ("function file:line [atag_test]", the long name cut to 63 characters), and
# NTAGS the number of tags.
module_facts() {
	MF= NTAGS=0
	for k in slab large long page split percpu pinned migrate migration_target; do
		eval "L_$k= S_$k="
	done
	eval "$(awk '
	NR > 2 { n++ }
	/\[atag_test\]/ {
		f = $5; sub(/^func:/, "", f); k = f; sub(/^atag_test_/, "", k); sub(/_alloc$/, "", k)
		if (length(f) > 63) { k = "long"; f = substr(f, length(f) - 62) }
		m = split($3, a, ":"); file = substr($3, 1, length($3) - length(a[m]) - 1)
		printf "MF=%s L_%s=%s S_%s=\"%s %s [atag_test]\"\n", file, k, a[m], k, f, $3
	}
	END { print "NTAGS=" n }' /proc/allocinfo)"
	# sorted as the probe prints them
	MOD_SITES="$S_large$NL$S_migrate$NL$S_migration_target$NL$S_page$NL$S_percpu$NL$S_pinned$NL$S_slab$NL$S_split$NL$S_long"
}

# ------------------------------------------------------------------ list

# check_filters LABEL ALLOCINFO CUT COUNTERS [LIST ARGS...] <<SPEC
# SPEC lines are "FILTER WORDS|AWK CONDITION[|ORDER]".  Each filter is listed
# (list --format json LIST ARGS... FILTER WORDS), and its tags must be exactly
# the rows of the ALLOCINFO text the condition selects (it sees fn, file, line,
# mod, bytes, calls), with their counters when COUNTERS is 1, with the function
# names cut to their last 63 characters (as the ioctls return them) when CUT is 1.
# ORDER "calls5": instead, five of the selected rows, the largest call counts,
# most first; "bytes": all of them, largest first.
check_filters() {
	label=$1 ai=$2 cut=$3 counters=$4
	shift 4
	base=
	for a in "$@"; do base="$base '$a'"; done
	prog= i=0 outs= specs=
	while IFS='|' read -r what cond order; do
		i=$((i + 1))
		eval "set -- $base $what"
		echo "\$ $E list --format json $* > $CW/filter.$i"
		"$C" list --format json "$@" >"$CW/filter.$i" 2>&1
		prog="$prog
		if (n == $i) return ($cond)"
		outs="$outs $CW/filter.$i"
		specs="$specs$order;$what$NL"
	done
	# shellcheck disable=SC2086
	res=$(awk -v cut="$cut" -v counters="$counters" -v specs="$specs" -v label="$label" '
	function sel(n, fn, file, line, mod, bytes, calls) {'"$prog"'
		return 0
	}
	function key(k) {
		return F[k] "|" FILE[k] "|" LINE[k] "|" MOD[k] (counters ? "|" BYTES[k] "|" CALLS[k] : "")
	}
	function jstr(s, name,    v) {
		if (!match(s, "\"" name "\": (\"[^\"]*\"|[-0-9a-z]+)"))
			return ""
		v = substr(s, RSTART + length(name) + 4, RLENGTH - length(name) - 4)
		if (v == "null")
			return ""
		gsub(/"/, "", v)
		return v
	}
	function finish(n,    k, want, nwant, miss, extra, i, o, lo, ok) {
		o = ORD[n]
		nwant = 0; miss = ""; extra = ""
		for (k = 1; k <= nr; k++) {
			if (!sel(n, F[k], FILE[k], LINE[k], MOD[k], BYTES[k] + 0, CALLS[k] + 0))
				continue
			want[key(k)]++; nwant++
			if (o != "calls5" && !(key(k) in got) && miss == "")
				miss = key(k)
		}
		for (k in got)
			if (!(k in want) && extra == "")
				extra = k
		for (i = 2; i <= nseq && o != ""; i++)
			if (SEQ[i] > SEQ[i - 1] && extra == "")
				extra = "out of order at row " i
		if (o == "calls5") {
			nwant = 5
			for (k = 1; k <= nr; k++)
				if (CALLS[k] + 0 > SEQ[nseq] && !(key(k) in got) && miss == "")
					miss = "larger " key(k)
		}
		ok = ngot == nwant && miss == "" && extra == "" && bad_line == ""
		printf "%s - %s: list %s (%d tags)", ok ? "ok" : "not ok", label, WHAT[n], ngot
		if (!ok)
			printf ", want %d; missing: %s; extra: %s; %s", nwant, miss, extra, bad_line
		printf "\n"
	}
	BEGIN {
		n = split(specs, sl, "\n")
		for (i = 1; i <= n; i++) {
			ORD[i] = sl[i]; sub(/;.*/, "", ORD[i])
			WHAT[i] = sl[i]; sub(/^[^;]*;/, "", WHAT[i])
		}
	}
	FNR == NR {
		if (FNR <= 2 && /^(allocinfo|#)/)
			next
		nr++
		fn = $4; mod = ""
		if ($4 ~ /^\[.*\]$/) { mod = substr($4, 2, length($4) - 2); fn = $5 }
		sub(/^func:/, "", fn)
		if (cut && length(fn) > 63)
			fn = substr(fn, length(fn) - 62)
		m = split($3, a, ":")
		F[nr] = fn; FILE[nr] = substr($3, 1, length($3) - length(a[m]) - 1); LINE[nr] = a[m]
		MOD[nr] = mod; BYTES[nr] = $1; CALLS[nr] = $2
		next
	}
	FNR == 1 {
		if (file_no)
			finish(file_no)
		file_no++
		split("", got); ngot = 0; nseq = 0; bad_line = ""
	}
	/"function":/ {
		k = jstr($0, "function") "|" jstr($0, "file") "|" jstr($0, "line") "|" jstr($0, "module")
		if (counters)
			k = k "|" jstr($0, "bytes") "|" jstr($0, "calls")
		got[k]++; ngot++
		SEQ[++nseq] = jstr($0, ORD[file_no] == "calls5" ? "calls" : "bytes") + 0
		next
	}
	!/^(\{ "source"|  "tags": \[|  \] \})/ { if (bad_line == "") bad_line = "output: " $0 }
	END { finish(file_no) }' "$ai" $outs)
	printf '%s\n' "$res"
	case "$res" in *"not ok"*) bad=$((bad + 1)) ;; esac
}

# The text format: a copy read through --allocinfo and $ATAG_ALLOCINFO must give
# exactly the tags and counters of the file; each filter exactly awk's selection.
t_cmd_list_text() {
	bad=0
	echo "slab 128 3" >"$ATP" && echo "page 2 1" >"$ATP"
	A=$CW/allocinfo.txt
	cp /proc/allocinfo "$A"
	echo free >"$ATP"

	check_filters text "$A" 0 1 --allocinfo "$A" <<-'EOF'
	|1
	--module atag_test|mod == "atag_test"
	--module ''|mod == ""
	--function 'alloc_*' --accurate|fn ~ /^alloc_/
	--function st_function_with_a_deliberately_long_name_to_check_suffix_match|fn ~ /long_name_to_check_suffix_match$/
	--file fs/pipe.c --line 800|file == "fs/pipe.c" && line == 800
	--file 'mm/*' --min-size 4K --max-size 64K|file ~ /^mm\// && bytes >= 4096 && bytes <= 65536
	--module atag_test --min-size 300 --max-size 400|mod == "atag_test" && bytes >= 300 && bytes <= 400
	--inaccurate|0
	-s calls -n 5|1|calls5
	-s bytes --max-size 0|bytes == 0|bytes
	EOF
	run "$C" list --allocinfo "$A" --format json --module atag_test
	first=$out
	expect "text: JSON source text, no trace state" 0 '{ "source": "text", "trace_state": false,'
	expect "text: the slab tag, traced null" 0 \
		'    { "function": "atag_test_slab_alloc", "file": "*/atag_test.c", "line": *, "module": "atag_test", "bytes": 384, "calls": 3, "accurate": true, "traced": null },'
	run env ATAG_ALLOCINFO="$A" "$C" list --format json --module atag_test
	same "ATAG_ALLOCINFO=COPY: the same output" "$out" "$first"
	run env ATAG_ALLOCINFO=/nonexistent "$C" list --allocinfo "$A" --format json --module atag_test
	same "--allocinfo wins over ATAG_ALLOCINFO" "$out" "$first"
	run "$C" list --allocinfo "$A" --module atag_test
	expect "text: the trace state shows as '-'" 0 \
		'       384 B          3  -       yes       atag_test_slab_alloc /*/atag_test.c:* \[atag_test\]'
	expect "text: the long function name in full" 0 \
		'* atag_test_function_with_a_deliberately_long_name_to_check_suffix_match /*/atag_test.c:* \[atag_test\]'
	run "$C" list --allocinfo "$A" --traced
	expect "text: --traced needs the trace state: exit 1" 1 \
		"$E: $A: --traced/--untraced need the per-tag trace state, which this kernel does not report;*"
	run "$C" list --allocinfo /nonexistent
	expect "a missing allocinfo file: exit 1, one line" 1 "$E: /nonexistent: no such file*"
	echo "not allocinfo" >"$CW/garbage.txt"
	run "$C" list --allocinfo "$CW/garbage.txt"
	expect "a file in another format: exit 1, file and line named" 1 \
		"$E: $CW/garbage.txt:1: not in the /proc/allocinfo text format"
	clean "list (text)"
	[ $bad = 0 ]
}

# The ioctls: the call sites of the text (read just before), the filters the
# kernel applies and the globs applied here, the counters of quiet tags, JSON.
t_cmd_list_ioctl() {
	bad=0
	module_facts
	echo "slab 128 3" >"$ATP" && echo "page 2 1" >"$ATP"
	A=$CW/allocinfo-now.txt
	cp /proc/allocinfo "$A"

	check_filters ioctl "$A" 1 0 <<-'EOF'
	|1
	--module ''|mod == ""
	--function 'atag_test_*_alloc'|fn ~ /^atag_test_.*_alloc$/
	--function atag_test_function_with_a_deliberately_long_name_to_check_suffix_match|fn ~ /long_name/
	--file fs/pipe.c --line 800|file == "fs/pipe.c" && line == 800
	--file 'mm/sl?b.c' --module ''|file ~ /^mm\/sl.b\.c$/
	--module atag_test --min-size 300 --max-size 400|mod == "atag_test" && bytes >= 300 && bytes <= 400
	--module atag_test --min-size 16K --accurate|mod == "atag_test" && bytes >= 16384
	--inaccurate|0
	--module atag_test --traced|0
	EOF
	check_filters "ioctl, counters" "$A" 1 1 --module atag_test <<-'EOF'
	|mod == "atag_test"
	EOF
	run "$C" list --format json --line "$L_slab" --module atag_test
	expect "ioctl: JSON source ioctl with the trace state" 0 '{ "source": "ioctl", "trace_state": true,'
	expect "ioctl: the slab tag, traced false" 0 \
		"    { \"function\": \"atag_test_slab_alloc\", \"file\": \"$MF\", \"line\": $L_slab, \"module\": \"atag_test\", \"bytes\": 384, \"calls\": 3, \"accurate\": true, \"traced\": false }"
	run "$C" list -s function --module atag_test
	same "ioctl: list -s function: the text columns, by function" "$out" \
		"$(printf '%12s %10s  %-6s  %-8s  %s\n' BYTES CALLS TRACED ACCURATE "CALL SITE" \
			"0 B" 0 no yes "$S_large" "0 B" 0 no yes "$S_migrate" \
			"0 B" 0 no yes "$S_migration_target" "16.0 KiB" 1 no yes "$S_page" \
			"0 B" 0 no yes "$S_percpu" "0 B" 0 no yes "$S_pinned" "384 B" 3 no yes "$S_slab" \
			"0 B" 0 no yes "$S_split" "0 B" 0 no yes "$S_long")"
	run "$C" list -n 2 -s calls --min-size 1K
	same "ioctl: list -n 2: two rows" "$(printf '%s\n' "$out" | wc -l)" 3
	echo free >"$ATP"
	clean "list (ioctl)"
	[ $bad = 0 ]
}

# ------------------------------------------------------------------ enable / disable

t_cmd_enable() {
	bad=0
	module_facts
	traced() { "$PROBE" traced; }

	run "$C" enable --dry-run --module atag_test
	expect "enable --dry-run: 9 would change" 0 '9 tags would change state (tracing on), 0 already on'
	same "enable --dry-run: the module's tags, none traced" "$out$NL$(traced)" \
		"would enable: $S_migration_target${NL}would enable: $S_migrate${NL}would enable: $S_pinned${NL}would enable: $S_percpu${NL}would enable: $S_split${NL}would enable: $S_page${NL}would enable: $S_long${NL}would enable: $S_large${NL}would enable: $S_slab${NL}9 tags would change state (tracing on), 0 already on$NL"

	run "$C" enable --module atag_test
	same "enable --module atag_test: 9 changed" "$out" "9 tags changed state (tracing on), 0 already on"
	same "enable: the probe reads the module's tags traced" "$(traced)" "$MOD_SITES"
	run "$C" list --traced
	same "enable: list --traced shows them, traced yes" "$out" \
		"$(printf '%12s %10s  %-6s  %-8s  %s\n' BYTES CALLS TRACED ACCURATE "CALL SITE" \
			"0 B" 0 yes yes "$S_slab" "0 B" 0 yes yes "$S_large" "0 B" 0 yes yes "$S_long" \
			"0 B" 0 yes yes "$S_page" "0 B" 0 yes yes "$S_split" "0 B" 0 yes yes "$S_percpu" \
			"0 B" 0 yes yes "$S_pinned" "0 B" 0 yes yes "$S_migrate" \
			"0 B" 0 yes yes "$S_migration_target")"
	run "$C" enable --module atag_test
	same "enable again: 0 changed, 9 already on" "$out" "0 tags changed state (tracing on), 9 already on"
	run "$C" disable --all --dry-run
	expect "disable --dry-run: 9 would change" 0 \
		"9 tags would change state (tracing off), $((NTAGS - 9)) already off"
	same "disable --dry-run: changes nothing" "$(traced)" "$MOD_SITES"
	run "$C" disable --function 'atag_test_p*'
	same "disable --function 'atag_test_p*' (glob): 3 changed" "$out" \
		"3 tags changed state (tracing off), 0 already off"
	same "disable glob: page, percpu and pinned off, the others still on" "$(traced)" \
		"$S_large$NL$S_migrate$NL$S_migration_target$NL$S_slab$NL$S_split$NL$S_long"
	run "$C" disable --all
	same "disable: the other 6 changed" "$out" \
		"6 tags changed state (tracing off), $((NTAGS - 6)) already off"
	clean "enable/disable --module"

	# the kernel's filter (function + line), a glob over built-in tags, --traced
	run "$C" enable --function atag_test_slab_alloc --line "$L_slab"
	same "enable --function F --line N: 1 changed" "$out" "1 tag changed state (tracing on), 0 already on"
	run "$C" enable --file 'fs/pip?.c' --module ''
	same "enable --file 'fs/pip?.c' --module '' (glob): 4 changed" "$out" \
		"4 tags changed state (tracing on), 0 already on"
	run "$C" list --traced -s file --format json
	same "enable: list --traced: the 4 pipe tags and the slab tag" \
		"$(printf '%s\n' "$out" | awk -F'"' '/"function"/ { print $4, $8 ":" substr($11, 3, length($11) - 4) }')" \
		"${S_slab% \[atag_test\]}$NL$(awk '$3 ~ /^fs\/pipe\.c:/ { f = $4; sub(/^func:/, "", f); l[n++] = f " " $3 }
			END { while (n--) print l[n] }' /proc/allocinfo)"
	same "the probe reads 5 traced" "$("$PROBE" traced -c)" 5
	run "$C" disable --module atag_test --traced
	same "disable --module atag_test --traced: 1 changed" "$out" \
		"1 tag changed state (tracing off), 0 already off"
	run "$C" disable --file fs/pipe.c
	same "disable --file fs/pipe.c: 4 changed" "$out" "4 tags changed state (tracing off), 0 already off"
	clean "enable/disable by function, line, glob"

	run "$C" enable --all
	same "enable --all: every tag" "$out" "$NTAGS tags changed state (tracing on), 0 already on"
	same "enable --all: the probe reads every tag traced" "$("$PROBE" traced -c)" "$NTAGS"
	run "$C" disable --all
	same "disable: every tag back" "$out" "$NTAGS tags changed state (tracing off), 0 already off"
	clean "enable --all / disable"
	[ $bad = 0 ]
}

# Errors: no match, no permission (as a user, and as root without CAP_SYS_ADMIN),
# no per-tag tracing (the text format), usage.  Nothing may change.
t_cmd_errors() {
	bad=0
	nobody="setpriv --reuid 65534 --regid 65534 --clear-groups"
	nocap="setpriv --bounding-set -sys_admin"

	run "$C" enable --function no_such_function
	same "enable, no tag matches: exit 1, one line" "$st $out" \
		"1 $E: /proc/allocinfo: no tag matches the filter (--function no_such_function)"
	run "$C" disable --module atag_test --line 99999
	same "disable, no tag matches: exit 1" "$st $out" \
		"1 $E: /proc/allocinfo: no tag matches the filter (--module atag_test --line 99999)"
	run "$C" record --function no_such_function -o "$CW/none.dat" -- true
	expect "record, no tag matches: exit 1" 1 "$E: /proc/allocinfo: no tag matches the filter (--function no_such_function)"

	run $nobody "$C" enable --module atag_test
	same "enable as uid 65534: exit 1, permission denied" "$st $out" \
		"1 $E: /proc/allocinfo: permission denied: run as root"
	run $nobody "$C" list
	expect "list as uid 65534: exit 1, permission denied" 1 "$E: /proc/allocinfo: permission denied: run as root"
	run $nobody "$C" record --module atag_test -o "$CW/none.dat" -- true
	expect "record as uid 65534: exit 1, run as root" 1 "$E: *: Permission denied: run as root"
	run $nobody "$C" stat
	expect "stat as uid 65534: exit 1, needs root" 1 "$E: cannot read *: Permission denied; reading tracefs needs root"

	run $nocap "$C" enable --module atag_test
	same "enable without CAP_SYS_ADMIN: EPERM, exit 1" "$st $out" \
		"1 $E: /proc/allocinfo: operation not permitted: turning tracing on or off needs CAP_SYS_ADMIN"
	run $nocap "$C" enable --function 'atag_test_*'
	expect "enable of a glob without CAP_SYS_ADMIN: EPERM" 1 "$E: *: operation not permitted: * needs CAP_SYS_ADMIN"
	run $nocap "$C" record --module atag_test -o "$CW/none.dat" -- true
	expect "record without CAP_SYS_ADMIN: EPERM, exit 1" 1 "$E: *: operation not permitted: * needs CAP_SYS_ADMIN"
	run $nocap "$C" enable --dry-run --module atag_test
	expect "enable --dry-run without CAP_SYS_ADMIN works (reads only)" 0 "9 tags would change state*"
	clean "no match, no permission"

	"$C" enable --module atag_test >/dev/null
	run $nocap "$C" disable --all
	expect "disable without CAP_SYS_ADMIN: EPERM" 1 "$E: *: operation not permitted: * needs CAP_SYS_ADMIN"
	same "disable without CAP_SYS_ADMIN: the tags stay traced" "$("$PROBE" traced -c)" 9
	"$C" disable --all >/dev/null
	clean "disable without CAP_SYS_ADMIN"

	cp /proc/allocinfo "$CW/allocinfo.txt"
	run "$C" enable --allocinfo "$CW/allocinfo.txt" --module atag_test
	expect "enable on the text format: no per-tag tracing, exit 1" 1 \
		"$E: $CW/allocinfo.txt: this kernel lacks per-tag tracing (no TOGGLE_TRACE ioctl);*"
	run "$C" enable
	expect "enable without a filter: usage, exit 2" 2 "$E: enable: give a filter, or --all to trace every call site"
	run "$C" enable --all --module atag_test
	expect "enable --all with a filter: usage, exit 2" 2 "$E: --all and a filter exclude each other"
	run "$C" disable --min-size 2K --max-size 1K
	expect "--min-size above --max-size: usage, exit 2" 2 "$E: --min-size (2048) is larger than --max-size (1024)"
	run "$C" list --traced --untraced
	expect "--traced with --untraced: usage, exit 2" 2 "$E: --untraced and --traced exclude each other"
	run "$C" record --kmem --module atag_test
	expect "record --kmem with a filter: usage, exit 2" 2 "$E: --kmem records every allocation: no tag filter"
	clean "usage errors"
	[ $bad = 0 ]
}

# ------------------------------------------------------------------ record + report

# The module workload under record: every kind of memory, some of it freed, some
# still held at the end; one of the tags was traced before and must stay so.
t_cmd_record_module() {
	bad=0
	module_facts
	ncpu=$(nproc)
	echo free >"$ATP"
	"$C" enable --function atag_test_slab_alloc >/dev/null
	rm -f "$CW/module.dat" "$CW/module.json"
	# a stack at every hit: the checks below (and the plugin's) look at each one
	run "$C" record --module atag_test --all-stacks -o "$CW/module.dat" -- sh -c "
		echo slab 128 3 >$ATP && echo large 16384 1 >$ATP && echo page 2 1 >$ATP &&
		echo long 64 2 >$ATP && echo split 1 1 >$ATP && echo pinned 2 1 >$ATP &&
		echo migrate 0 1 >$ATP && echo free >$ATP &&
		echo slab 64 2 >$ATP && echo page 0 1 >$ATP && echo percpu 8192 $NPERCPU >$ATP"
	expect "record from a read-only working directory: exit 0, 9 tags, 8 turned on" 0 \
		"$E record: 9 tags traced (8 turned on here, 1 already on)"
	expect "record: wrote the file, none lost" 0 "$E record: wrote $CW/module.dat: * events, none lost"
	nev=${out##*"module.dat: "}
	nev=${nev%% *}
	same "record: the tag traced before stays traced, no other" "$("$PROBE" traced)" "$S_slab"
	"$C" disable --module atag_test >/dev/null
	clean "record --module atag_test"
	# what the module holds ("kind address bytes") and what allocinfo counts now
	held=$(cat "$ATP")
	printf '%s\n' "$held" | while read -r l; do echo "# held: $l"; done
	counted=$(awk '/\[atag_test\]/ && $2 != 0 { f = $5; sub(/^func:/, "", f); print f, $2, $1 }' /proc/allocinfo)
	npc=$(printf '%s\n' "$counted" | awk '$1 == "atag_test_percpu_alloc" { print $2 }')
	echo "# percpu: ${npc:-0} of $NPERCPU outside the first chunk, accounted"
	pcb=$((${npc:-0} * 8192 * ncpu))

	run "$C" report --format json -o "$CW/module.json" "$CW/module.dat"
	same "report --format json: exit 0" "$st" 0
	sum=$(jq -r '
		"file \(.complete) \(.files[0].source) \(.files[0].records) \(.files[0].truncated)",
		"totals " + ([.totals | .allocs, .frees, .matched_frees, .unmatched_frees, .live,
			.live_bytes, .bytes_alloced, .bytes_freed] | map(tostring) | join(" ")),
		(.tags | sort_by(.function)[] |
			"tag \(.function) \(.allocs) \(.frees) \(.live) \(.live_bytes) \(.bytes_alloced) \(.bytes_freed) \(.unmatched_frees) \(.partial_frees) \(.replaced)",
			"counted \(select(.live > 0) | "\(.function) \(.live) \(.live_bytes)")",
			"site \(.function)|\(.file)|\(.line)|\(.module)",
			"nstacks \(.function) \([.stacks[] | select(.frames | length > 0)] | length) \([.stacks[] | select(.frames | length > 0) | .allocs] | add)",
			(.function as $f | .stacks[] | select(.frames | length > 0) |
				"stack \($f) \(.frames[0] | test("^" + $f + "\\+0x[0-9a-f]+ \\[atag_test\\]$")) " +
				(.frames[1:4] | map(sub("\\+0x[0-9a-f]+( \\[[^]]*\\])?$"; "")) | join(" ")))),
		"livetop \([.live[] | (.frames[0] | sub("\\+0x.*"; "")) == .function] | unique)",
		(.live[] | "live \(.function | sub("^atag_test_"; "") | sub("_alloc$"; "")) \(.ptr)")
		' "$CW/module.json")
	long=atag_test_function_with_a_deliberately_long_name_to_check_suffix_match
	same "report: complete, alloc_tag source, every event written read" "$(pick file)" \
		"true alloc_tag $nev false"
	# function allocs frees live live_bytes bytes_alloced bytes_freed unmatched partial replaced
	# Split page: the order-1 allocation, its head freed (partial), its tail
	# unmatched.  Pinned: 16 KiB allocated, the head's 4 KiB freed late (partial).
	# Migration: each page frees the other tag's allocation (frees match on ptr).
	same "report: each call site's lifetimes, as the workload made them" "$(pick tag)" \
		"$long 2 2 0 0 128 128 0 0 0
atag_test_large_alloc 1 1 0 0 16384 16384 0 0 0
atag_test_migrate_alloc 1 1 0 0 4096 4096 0 0 0
atag_test_migration_target_alloc 1 1 0 0 4096 4096 0 0 0
atag_test_page_alloc 2 1 1 4096 20480 16384 0 0 0
atag_test_percpu_alloc $npc 0 $npc $pcb $pcb 0 0 0 0
atag_test_pinned_alloc 1 1 0 0 16384 4096 0 1 0
atag_test_slab_alloc 5 3 2 128 512 384 0 0 0
atag_test_split_alloc 1 1 0 0 8192 8192 1 1 0"
	same "report: totals" "$(pick totals)" \
		"$((14 + npc)) 12 11 1 $((3 + npc)) $((4224 + pcb)) $((70272 + pcb)) 53760"
	same "report: live allocations and bytes per call site = /proc/allocinfo's counters now" \
		"$(pick counted)" "$(printf '%s\n' "$counted" | sort)"
	same "report: the call sites as /proc/allocinfo names them (function in full)" "$(pick site)" \
		"$long|$MF|$L_long|atag_test
atag_test_large_alloc|$MF|$L_large|atag_test
atag_test_migrate_alloc|$MF|$L_migrate|atag_test
atag_test_migration_target_alloc|$MF|$L_migration_target|atag_test
atag_test_page_alloc|$MF|$L_page|atag_test
atag_test_percpu_alloc|$MF|$L_percpu|atag_test
atag_test_pinned_alloc|$MF|$L_pinned|atag_test
atag_test_slab_alloc|$MF|$L_slab|atag_test
atag_test_split_alloc|$MF|$L_split|atag_test"
	# the live allocations: at the addresses the module holds (percpu: those accounted)
	live=$(pick live | sort)
	want=$(printf '%s\n' "$held" | awk '{ a = $2; sub(/^0+/, "", a); print $1, "0x" a }' | sort)
	same "report: the live slab and page allocations are at the addresses the module holds" \
		"$(printf '%s\n' "$live" | grep -v '^percpu')" "$(printf '%s\n' "$want" | grep -v '^percpu')"
	same "report: its $npc live percpu allocations are at addresses the module holds" \
		"$(printf '%s\n' "$live" | grep -c '^percpu') $(printf '%s\n' "$live" | grep '^percpu' |
			grep -vcxF "$(printf '%s\n' "$want" | grep '^percpu')")" "$npc 0"
	same "report: one stack per call site with all its allocations" \
		"$(pick nstacks)" "$long 1 2
atag_test_large_alloc 1 1
atag_test_migrate_alloc 1 1
atag_test_migration_target_alloc 1 1
atag_test_page_alloc 1 2
atag_test_percpu_alloc 1 $npc
atag_test_pinned_alloc 1 1
atag_test_slab_alloc 1 5
atag_test_split_alloc 1 1"
	same "report: every stack starts at its allocating function, then atag_write, proc_reg_write, vfs_write" \
		"$(pick stack)" "$long true atag_write proc_reg_write vfs_write
atag_test_large_alloc true atag_write proc_reg_write vfs_write
atag_test_migrate_alloc true atag_write proc_reg_write vfs_write
atag_test_migration_target_alloc true atag_write proc_reg_write vfs_write
atag_test_page_alloc true atag_write proc_reg_write vfs_write
atag_test_percpu_alloc true atag_write proc_reg_write vfs_write
atag_test_pinned_alloc true atag_write proc_reg_write vfs_write
atag_test_slab_alloc true atag_write proc_reg_write vfs_write
atag_test_split_alloc true atag_write proc_reg_write vfs_write"
	same "report: no stack starts with a tracing machinery frame" "$(machinery "$CW/module.json")" 0
	same "report: each live allocation's stack starts at its function" "$(pick livetop)" "[true]"
	run "$C" report --live --stacks --function 'atag_test_s*' "$CW/module.dat"
	expect "report text: a call-site row with its module" 0 \
		"     5      3          0     2       128 B      384 B      512 B  * atag_test_slab_alloc $MF:$L_slab \[atag_test\]"
	expect "report text: the stack under it, module named" 0 \
		"          atag_test_slab_alloc+0x* \[atag_test\]"
	expect "report text: live at end" 0 "live at end   2 (128 B)"
	echo free >"$ATP"
	clean "report"
	[ $bad = 0 ]
}

# Stock trace-cmd report with the plugin, on the trace cmd-record-module recorded.
t_cmd_plugin() {
	bad=0
	[ -f "$CW/module.json" ] || { skip "no trace from cmd-record-module"; return; }
	module_facts
	TRACEEVENT_PLUGIN_DIR=$ATAG_VM_BUILD/plugins trace-cmd report -i "$CW/module.dat" >"$CW/plugin.txt" 2>&1
	same "trace-cmd report with the plugin: exit 0" $? 0
	TRACEEVENT_PLUGIN_DIR=$ATAG_VM_BUILD/plugins trace-cmd report -O alloc_tag:resolve=0 \
		-i "$CW/module.dat" >"$CW/plugin0.txt" 2>&1
	TRACEEVENT_PLUGIN_DIR=/nonexistent trace-cmd report -i "$CW/module.dat" >"$CW/noplugin.txt" 2>&1
	# per event type: how many lines, how many in the plugin's form
	sum=$(awk -v mf="$MF" '
	function site(s) { return s ~ ("^atag_test_[a-z_]+ " mf ":[0-9]+ \\[atag_test\\]$") }
	FILENAME ~ /\/plugin\.txt$/ && / alloc_tag_hit: / {
		hit++; s = $0; sub(/.* alloc_tag_hit: +/, "", s)
		if (s ~ / tag=0xffffffff[0-9a-f]+$/ && site(substr(s, 1, index(s, " tag=") - 1))) { hitok++; fn = s; sub(/ .*/, "", fn) }
		next
	}
	FILENAME ~ /\/plugin\.txt$/ && / alloc_tag_mem_(alloced|freed): / {
		ev = ($0 ~ /alloced:/) ? "alloced" : "freed"; n[ev]++
		s = $0; sub(/.* alloc_tag_mem_[a-z]+: +/, "", s)
		if (match(s, /^ptr=0x[0-9a-f]+ bytes=[0-9]+( \([0-9.]+ [KM]iB\))? /) && site(substr(s, RLENGTH + 1)))
			good[ev]++
		if (ev == "alloced") { b = s; sub(/.*bytes=/, "", b); sub(/ .*/, "", b); f = substr(s, RLENGTH + 1); sub(/ .*/, "", f); bytes[f] += b }
		if (s ~ /bytes=16384 \(16\.0 KiB\) atag_test_large_alloc /) human++
		next
	}
	FILENAME ~ /\/plugin\.txt$/ && / kernel_stack: / { depth = 0; next }
	FILENAME ~ /\/plugin\.txt$/ && /^=> / {
		if (++depth <= 3) top[depth] = $2
		if (depth == 3) stk[top[1] " " top[2] " " (top[3] == fn)]++
		next
	}
	FILENAME ~ /\/plugin0\.txt$/ && / alloc_tag_mem_(alloced|freed): +ptr=0x[0-9a-f]+ bytes=[0-9]+( \([0-9.]+ [KM]iB\))? tag=0xffffffff[0-9a-f]+$/ { raw++ }
	FILENAME ~ /\/noplugin\.txt$/ && / alloc_tag_hit: +tag 0x[0-9a-f]+, module: atag_test, filename: / { kfmt++ }
	END {
		printf "hits %d %d\n", hit, hitok
		printf "alloced %d %d\n", n["alloced"], good["alloced"]
		printf "freed %d %d\n", n["freed"], good["freed"]
		for (s in stk) printf "stacks %s %d\n", s, stk[s]
		for (f in bytes) printf "bytes %s %d\n", f, bytes[f]
		printf "human %d\nresolve0 %d\nnoplugin %d\n", human, raw, kfmt
	}' "$CW/plugin.txt" "$CW/plugin0.txt" "$CW/noplugin.txt")
	printf '%s\n' "$sum"
	rsum=$(jq -r '"allocs \(.totals.allocs)", "frees \(.totals.frees)",
		"hits \(.files[0].events["alloc_tag:alloc_tag_hit"])",
		(.tags | sort_by(.function)[] | "bytes \(.function) \(.bytes_alloced)")' "$CW/module.json")
	r_hits=$(sum=$rsum pick hits)
	r_allocs=$(sum=$rsum pick allocs)
	r_frees=$(sum=$rsum pick frees)
	same "every hit line shows the call site and the tag" "$(pick hits)" "$r_hits $r_hits"
	same "every alloced line shows ptr, bytes and the resolved call site" "$(pick alloced)" \
		"$r_allocs $r_allocs"
	same "every freed line shows ptr, bytes and the resolved call site" "$(pick freed)" \
		"$r_frees $r_frees"
	same "the alloced lines add up to report's bytes per call site" "$(pick bytes | sort)" \
		"$(sum=$rsum pick bytes)"
	same "a human-readable size beside 16384 bytes (alloced and freed)" "$(pick human)" 2
	same "each stack follows its hit: the tracing frames, then the allocating function" \
		"$(pick stacks)" "trace_event_raw_event_alloc_tag_hit __alloc_tag_trace_hit 1 $r_hits"
	same "-O alloc_tag:resolve=0: alloced and freed lines show the tag pointer" "$(pick resolve0)" \
		"$((r_allocs + r_frees))"
	same "without the plugin: the kernel's print format" "$(pick noplugin)" "$r_hits"
	[ $bad = 0 ]
}

# Split, pinned and migrated pages, with the tag of the migration target not
# traced, as the kernel's own migration targets are not when a user traces
# their call sites.  The kernel reports frees without an allocation (split
# tails, the migrated pages) and frees of fewer bytes (split and pinned heads);
# report's numbers per call site must be the test module's own.  One of each is
# still held at the end: report must say up to how many of its live
# allocations the unmatched and partial frees account for, and present no more
# as live than the module holds and that explanation covers.
t_cmd_record_pages() {
	bad=0
	module_facts
	echo free >"$ATP"
	cat /proc/atag_test_counts >"$CW/counts0"
	for k in split pinned migrate; do
		"$C" enable --function "atag_test_${k}_alloc" >/dev/null
	done
	run "$C" record --traced -o "$CW/pages.dat" -- sh -c "
		echo split 2 2 >$ATP && echo pinned 2 2 >$ATP && echo migrate 0 2 >$ATP &&
		echo free >$ATP && echo split 2 1 >$ATP && echo pinned 2 1 >$ATP &&
		echo migrate 0 1 >$ATP"
	expect "record --traced: the 3 tags" 0 "$E record: 3 tags traced (0 turned on here, 3 already on)"
	"$C" disable --module atag_test >/dev/null
	clean "record --traced (pages)"
	cat /proc/atag_test_counts >"$CW/counts1"
	# what the module holds at the end, per kind (a split page is one line a page)
	held=$(awk '{ n[$1]++ } END { for (k in n) print k, n[k] }' "$ATP")
	printf '%s\n' "$held" | while read -r l; do echo "# held: $l"; done
	# function allocs frees live bytes_alloced bytes_freed unmatched partial, where
	# report's frees are those matched to an allocation, and its live allocations
	# include those replaced (a page freed without an event can be allocated again
	# with the same ptr)
	want=$(awk 'NR == FNR { for (i = 3; i <= 13; i += 2) c[$1, i] = $i; next }
		$1 == "split" || $1 == "pinned" || $1 == "migrate" {
			for (i = 3; i <= 13; i += 2) d[i] = $i - c[$1, i]
			m = d[7] - d[11]
			print "atag_test_" $1 "_alloc", d[3], m, d[3] - m, d[5], d[9], d[11], d[13]
		}' "$CW/counts0" "$CW/counts1" | sort)
	printf '%s\n' "$want" | while read -r l; do echo "# the module: $l"; done
	run "$C" report --format json -o "$CW/pages.json" "$CW/pages.dat"
	same "report (pages): exit 0" "$st" 0
	sum=$(jq -r '.tags | sort_by(.function)[] |
		"tag \(.function) \(.allocs) \(.frees) \(.live + .replaced) \(.bytes_alloced) \(.bytes_freed) \(.unmatched_frees) \(.partial_frees)",
		"doubt \(.function) \(.live) \(.live_maybe_freed)"' "$CW/pages.json")
	same "report: per call site the allocations, matched, unmatched and partial frees the module counted" \
		"$(pick tag)" "$want"
	# up to how many live allocations the frees account for: min(live, the module's
	# unmatched + partial); and what is left is no more than the module holds
	doubt=$(pick doubt)
	printf '%s\n' "$doubt" | while read -r l; do echo "# report: function live live_maybe_freed: $l"; done
	same "report: live_maybe_freed = min(live, the module's unmatched + partial frees)" \
		"$doubt" "$(printf '%s\n' "$doubt" | W=$want awk '
			BEGIN { n = split(ENVIRON["W"], w, "\n"); for (i = 1; i <= n; i++) {
				split(w[i], f, " "); up[f[1]] = f[7] + f[8] } }
			{ print $1, $2, ($2 < up[$1] ? $2 : up[$1]) }')"
	same "report: what stays live beyond the explanation, the module holds" \
		"$(printf '%s\n' "$doubt" | H=$held awk '
			BEGIN { n = split(ENVIRON["H"], h, "\n"); for (i = 1; i <= n; i++) {
				split(h[i], f, " "); have["atag_test_" f[1] "_alloc"] = f[2] } }
			{ if ($2 - $3 > have[$1] + 0) print $1, $2 - $3, "live, module holds", have[$1] + 0 }')" ""
	# the text: a line per call site after the table, and after the live view for
	# those with live allocations
	run "$C" report --live -n 0 "$CW/pages.dat"
	lines=$(printf '%s\n' "$doubt" | while read -r fn lv mf; do
		k=${fn#atag_test_}
		k=${k%_alloc}
		eval "site=\$S_$k"
		# shellcheck disable=SC2046
		set -- $(printf '%s\n' "$want" | awk -v f="$fn" '$1 == f { print $7, $8 }')
		if [ "$lv" -gt 0 ]; then
			echo "  $site: $1 unmatched, $2 partial: may account for up to $mf of its $lv live allocations"
			echo "  $site: up to $mf of its $lv live allocations"
		else
			echo "  $site: $1 unmatched, $2 partial: no live allocation"
		fi
	done | sort)
	same "report text: after the table and the live view, what the frees account for" \
		"$(printf '%s\n' "$out" | grep '^  atag_test_[a-z_]* .*: ' | sort)" "$lines"
	expect "report text: the summary says live allocations may be freed already" 0 \
		"              up to * of them may be freed already: split or migrated pages (see below)"
	echo free >"$ATP"
	[ $bad = 0 ]
}

# One hit, several allocations: a new vmalloc'ed thread stack is one call at
# alloc_thread_stack_node (one hit), then its pages and their array, each
# allocated under that tag.  The stack the hit recorded belongs to every one of
# them: it is looked up by (pid, tag), not consumed.  Forks reuse up to two
# cached stacks per CPU, so eight at once allocate new ones.
t_cmd_record_stacks() {
	bad=0
	run "$C" record --function alloc_thread_stack_node --all-stacks -o "$CW/stacks.dat" -- sh -c \
		'for i in 1 2 3 4 5 6 7 8; do sleep 0.3 & done; wait'
	expect "record --function alloc_thread_stack_node: 1 tag" 0 "$E record: 1 tag traced (1 turned on here, 0 already on)"
	clean "record --function alloc_thread_stack_node"
	run "$C" report --format json -o "$CW/stacks.json" "$CW/stacks.dat"
	sum=$(jq -r '"hits \(.files[0].events["alloc_tag:alloc_tag_hit"] // 0)",
		(.tags[] | select(.source == "alloc_tag" and .function == "alloc_thread_stack_node") | "allocs \(.allocs)",
			"stacked \([.stacks[] | select(.frames | length > 0) | .allocs] | add // 0)")' \
		"$CW/stacks.json")
	hits=$(pick hits)
	allocs=$(pick allocs)
	if [ "${hits:-0}" -gt 0 ] && [ "${allocs:-0}" -gt "$hits" ]; then
		ok "report: $allocs allocations after $hits hits"
	else
		nok "report: more allocations than hits (${allocs:-none} after ${hits:-none})"
	fi
	same "report: every allocation has the stack of the hit before it" "$(pick stacked)" "$allocs"
	[ $bad = 0 ]
}

# Built-in tags on a syscall path: pipe(2) and write(2) in fs/pipe.c, from a
# program that makes 5 pipes and writes 2 pages into each.
t_cmd_record_pipe() {
	bad=0
	run "$C" record --file fs/pipe.c --module '' --all-stacks -o "$CW/pipe.dat" -- \
		"$PROBE" pipes 5 "$CW/pipe-allocinfo"
	expect "record --file fs/pipe.c --module '': 4 tags" 0 "$E record: 4 tags traced (4 turned on here, 0 already on)"
	expect "record: none lost" 0 "$E record: wrote $CW/pipe.dat: * events, none lost"
	clean "record --file fs/pipe.c"
	# /proc/allocinfo while the pipes were open: the bytes of one allocation
	per=$(awk '$3 ~ /^fs\/pipe\.c:/ && $2 > 0 {
		n = split($3, a, ":"); f = $4; sub(/^func:/, "", f); print f, a[n], $1 / $2 }' "$CW/pipe-allocinfo" | sort)
	printf '%s\n' "$per" | while read -r l; do echo "# line bytes-per-allocation: $l"; done
	run "$C" report --format json --comm atag-vm-probe -o "$CW/pipe.json" "$CW/pipe.dat"
	sum=$(jq -r '
		(.tags | sort_by(.function, .line)[] |
			"tag \(.function) \(.line) \(.allocs) \(.frees) \(.live) \(.bytes_alloced) \(.bytes_freed) \(.unmatched_frees)",
			"site \(.file) \(.module)",
			(.stacks[] | "stack " + (.frames[0:3] | map(sub("\\+0x[0-9a-f]+$"; "")) | join(" ")),
				"entry " + (.frames[-1] | sub("\\+0x[0-9a-f]+$"; ""))))
		' "$CW/pipe.json")
	same "report --comm atag-vm-probe: each call site as the program made them, bytes as allocinfo counts" \
		"$(pick tag)" "$(printf '%s\n' "$per" | awk '{
			n = $1 == "pipe_write" ? 10 : 5; print $1, $2, n, n, 0, n * $3, n * $3, 0 }')"
	same "report: built-in call sites: file fs/pipe.c, no module" "$(pick site | sort -u)" "fs/pipe.c null"
	same "report: the stacks start at the allocating function, then the syscall path" \
		"$(pick stack | sort -u)" "alloc_pipe_info create_pipe_files do_pipe2
pipe_write vfs_write ksys_write"
	same "report: every stack ends at the syscall entry" "$(pick entry | sort -u)" \
		"entry_SYSCALL_64_after_hwframe"
	same "report: no stack starts with a tracing machinery frame" "$(machinery "$CW/pipe.json")" 0
	[ $bad = 0 ]
}

# Sampled stacks (the default, issue 24) on the alloc_tag source: the stacks come
# with alloc_tag_mem_alloced, one allocation in 16 by its ptr, none at the hits; a
# sampled stack starts at the call site, as a hit's does.  And what they cost: the
# workload's own time (pipes 600: 2 400 allocations and frees at fs/pipe.c) with the
# default stacks, with every stack and without, best of three each (TCG times drift
# with the host: the pairs alternate), and the median and 90th percentile lifetime of
# the call sites with enough frees.
t_cmd_record_sampled() {
	bad=0
	timed() {	# timed NAME ARGS...: record the workload, its own time in $CW/NAME.ns
		printf 't0=$(date +%%s%%N); %s pipes 600 %s/%s.ai; echo $(($(date +%%s%%N) - t0)) > %s/%s.ns\n' \
			"$PROBE" "$CW" "$1" "$CW" "$1" > "$CW/$1.sh"
		n=$1; shift
		"$C" record --file fs/pipe.c --module '' "$@" -o "$CW/$n.dat" -- sh "$CW/$n.sh" \
			>"$CW/$n.log" 2>&1 || nok "record $* failed: $(tail -n 1 "$CW/$n.log")"
		"$C" report --format json -n 0 -o "$CW/$n.json" "$CW/$n.dat" 2>/dev/null
	}
	for i in 1 2 3; do
		timed none$i --no-stack
		timed sampled$i
		timed all$i --all-stacks
	done
	clean "record --file fs/pipe.c (sampled)"
	J=$CW/sampled1.json
	# the share over the three sampled recordings: the workload's pipe buffers come
	# from a few slots, so one short recording may see its every allocation match the
	# pattern of its period (a CI run: 16 false), as the sampler's design allows
	share=$(jq -rs '[.[] | .sources[] | select(.source == "alloc_tag")] |
		([.[].stacked] | add) as $s | ([.[].totals.allocs] | add) as $a |
		"\($s > 0 and $s < $a)"' "$CW/sampled1.json" "$CW/sampled2.json" "$CW/sampled3.json")
	sum=$(jq -r --arg share "$share" '
		"src \(.sources[] | select(.source == "alloc_tag") | "\(.stack_every) \($share)")",
		"marker \(.files[0].recording != null)",
		(.tags[] | select(.source == "alloc_tag") | .stacks[] | select(.frames | length > 0) |
			"first " + (.frames[0] | sub("\\+0x[0-9a-f]+$"; "")))' "$J")
	same "sampled: one allocation in 16 asked, a share of them carries a stack (three recordings)" \
		"$(pick src)" "16 true"
	same "sampled: a stack starts at the allocating function, as at a hit" \
		"$(pick first | sort -u | grep -vxE 'alloc_pipe_info|pipe_write|create_pipe_files' | head -n 3)" ""
	same "sampled: no stack starts with a tracing frame" "$(machinery "$J")" 0
	best() { for f in "$@"; do cat "$CW/$f.ns"; done | sort -n | head -n 1; }
	none=$(best none1 none2 none3) sampled=$(best sampled1 sampled2 sampled3) all=$(best all1 all2 all3)
	ratio=$(awk -v a="$sampled" -v b="$none" 'BEGIN { printf "%.2f", a / b }')
	echo "# the workload at best: $((none / 1000000)) ms without stacks," \
		"$((sampled / 1000000)) ms sampled, $((all / 1000000)) ms with every stack"
	if awk -v r="$ratio" 'BEGIN { exit !(r <= 1.5) }'; then
		ok "sampled: the workload takes at most 1.5 times as long as without stacks (${ratio}x)"
	else
		nok "sampled: the workload takes at most 1.5 times as long as without stacks (${ratio}x)"
	fi
	# p50 and p90 of the call sites with 1 000 frees or more: within 25% of the
	# range of the three recordings without stacks
	for f in none1 none2 none3 sampled1 sampled2 sampled3; do
		jq -r '.tags[] | select(.source == "alloc_tag" and .frees >= 1000) |
			"\(.function) \(.lifetime_ns.p50) \(.lifetime_ns.p90)"' "$CW/$f.json" |
			sed "s/^/$f /"
	done > "$CW/lifetimes"
	far=$(awk '
		$1 ~ /^none/ { for (k = 3; k <= 4; k++) {
			if (!(($2, k) in lo) || $k < lo[$2, k]) lo[$2, k] = $k
			if (!(($2, k) in hi) || $k > hi[$2, k]) hi[$2, k] = $k } next }
		{ for (k = 3; k <= 4; k++) { s[$2, k] += $k; n[$2, k]++ } }
		END { for (x in n) { split(x, p, SUBSEP); m = s[x] / n[x]
			if (!(x in lo)) continue; sites++
			if (m < 0.75 * lo[x] || m > 1.25 * hi[x]) print p[1], p[2] == 3 ? "p50" : "p90", lo[x], hi[x], m }
			if (!sites) print "no call site with 1 000 frees" }' "$CW/lifetimes")
	same "sampled: lifetimes within 25% of those without stacks" "$far" ""
	[ $bad = 0 ]
}

# record --kmem: every allocation of the system, the module's among them.
t_cmd_record_kmem() {
	bad=0
	ev0=$(cat "$T/set_event")
	run "$C" record --kmem --all-stacks -o "$CW/kmem.dat" -- \
		sh -c "echo slab 128 3 >$ATP && echo free >$ATP"
	expect "record --kmem: exit 0, none lost" 0 "$E record: wrote $CW/kmem.dat: * events, none lost"
	same "record --kmem: the top buffer's events untouched" "$(cat "$T/set_event")" "$ev0"
	clean "record --kmem"
	run "$C" report --format json -o "$CW/kmem.json" "$CW/kmem.dat"
	sum=$(jq -r '
		"file \(.complete) \(.files[0].source)",
		(.tags[] | select(.source == "kmem" and .function == "atag_test_slab_alloc") |
			"tag \(.function) \(.allocs) \(.frees) \(.live) \(.bytes_alloced) \(.bytes_freed)",
			(.stacks[] | "stack " + (.frames[0:3] | map(sub("\\+0x[0-9a-f]+( \\[[^]]*\\])?$"; "")) | join(" "))))
		' "$CW/kmem.json")
	same "report (kmem): complete" "$(pick file)" "true kmem"
	same "report (kmem): the module's 3 kmalloc(128), freed" "$(pick tag)" "atag_test_slab_alloc 3 3 0 384 384"
	same "report (kmem): its stack starts in kmalloc, then the call site and atag_write" \
		"$(pick stack)" "__kmalloc_noprof atag_test_slab_alloc atag_write"
	same "report (kmem): no stack starts with a tracing machinery frame" "$(machinery "$CW/kmem.json")" 0
	run "$C" report --source page -n 3 "$CW/kmem.dat"
	expect "report --source page: the page events read" 0 "$CW/kmem.dat: page events, buffer trace-cmd-alloc-tag-*"
	expect "report --source page: complete" 0 "data          complete"
	[ $bad = 0 ]
}

# Completeness (issue 14): record keeps the selected tags' /proc/allocinfo counters
# at the start and the end; report compares their deltas with the events.  A busy
# tag that keeps what it allocates (__d_alloc: a dentry per new file on the tmpfs,
# live until the files go): with a buffer that holds it, every allocation the kernel
# counted is in the trace; with a deliberately tiny one (-b 4) the events lost are
# allocations the trace misses.
t_cmd_record_complete() {
	bad=0
	rm -rf "$CW/full" "$CW/tiny"
	mkdir "$CW/full" "$CW/tiny"
	run "$C" record --function __d_alloc -b 8192 -o "$CW/full.dat" -- \
		sh -c "cd $CW/full && touch \$(seq 1 300)"
	expect "record --function __d_alloc: exit 0, none lost" 0 \
		"$E record: wrote $CW/full.dat: * events, none lost"
	clean "record --function __d_alloc"
	run "$C" report --format json -o "$CW/full.json" "$CW/full.dat"
	# Every tag is complete. The other one (a dentry's long name) is mostly freed:
	# names allocated before the recording, whose frees have no hit to name their
	# tag. Until report named such tags after their counters, it was called
	# incomplete in two CI runs (t_cmd_record_old_frees provokes it).
	sum=$(jq -r '"c \(.completeness.complete) \(.completeness.incomplete)",
		"busy \([.completeness.tags[] | select(.counted_calls >= 300)] | length)",
		"missing \([.completeness.tags[] | select(.counted_calls >= 300) |
			.missing_calls, .missing_bytes] | map(. != 0) | any)",
		"bcomplete \([.completeness.tags[] | select(.counted_calls >= 300) | .complete] | all)",
		"bsite \(.completeness.tags[] | select(.counted_calls >= 300) | "\(.file):\(.line)")"' \
		"$CW/full.json")
	same "report: every tag complete as /proc/allocinfo counted" \
		"$(pick c | awk '{ print ($1 > 0), $2 }') $(pick bcomplete)" "1 0 true"
	same "report: the tag counted the 300 files' dentries (and what else ran)" "$(pick busy)" 1
	same "report: nothing missing at the busy tag" "$(pick missing)" false
	run "$C" report "$CW/full.dat"
	expect "report (text): the completeness line" 0 \
		"completeness  *as /proc/allocinfo counted*"
	bsite=$(pick bsite)
	case "$NL$out$NL" in
	*" $bsite: the trace misses"*) nok "report (text): nothing missing at the busy tag ($bsite)" ;;
	*) same "report (text): nothing missing at the busy tag ($bsite)" \
		"$(echo "$bsite" | grep -c '^fs/dcache.c:[0-9]')" 1 ;;
	esac

	# trace-cmd's readers keep up with one touch on this VM: stopped while it runs,
	# they make the kernel overwrite the tiny buffer, as a slow disk or a busy CPU would.
	# record writes its description (the counters at the start among it) into the
	# buffer of the CPU it runs on: record on CPU 0 and the workload on CPU 1, so that
	# the buffer overwritten is the workload's. (Left to the scheduler, the two shared
	# a CPU in a CI run, and trace-cmd, stopped, had not read the description yet: it
	# was overwritten too. The last checks cover that.)
	run taskset -c 0 "$C" record --function __d_alloc -b 4 -o "$CW/tiny.dat" -- \
		sh -c "tc=\$(grep -lx trace-cmd /proc/[0-9]*/comm | cut -d/ -f3) &&
			kill -STOP \$tc && cd $CW/tiny && taskset -c 1 touch \$(seq 1 5000);
			kill -CONT \$tc"
	expect "record -b 4 on 5000 new files: exit 0, events lost" 0 \
		"$E record: wrote $CW/tiny.dat: * events, * LOST (*); use a larger -b"
	clean "record -b 4"
	run "$C" report --format json -o "$CW/tiny.json" "$CW/tiny.dat"
	sum=$(jq -r '"c \(.completeness.incomplete)",
		"missing \([.completeness.tags[] | select(.complete | not) | .missing_calls] | add)"' \
		"$CW/tiny.json")
	same "report (tiny buffer): a tag incomplete" "$(pick c | awk '{ print ($1 > 0) }')" 1
	same "report (tiny buffer): the trace misses calls the kernel counted" \
		"$(pick missing | awk '{ print ($1 > 0) }')" 1
	run "$C" report "$CW/tiny.dat"
	expect "report (text, tiny buffer): says what the trace misses" 0 \
		"completeness  * call sites as /proc/allocinfo counted; the trace misses * calls (*) of the others"

	# The workload on record's CPU: whether the description is overwritten too depends
	# on trace-cmd having read it before it was stopped. Either way the data is said to
	# be incomplete, and the report compares with /proc/allocinfo or says it cannot.
	rm -rf "$CW/tiny"
	mkdir "$CW/tiny"
	run taskset -c 0 "$C" record --function __d_alloc -b 4 -o "$CW/tiny.dat" -- \
		sh -c "tc=\$(grep -lx trace-cmd /proc/[0-9]*/comm | cut -d/ -f3) &&
			kill -STOP \$tc && cd $CW/tiny && touch \$(seq 1 5000); kill -CONT \$tc"
	expect "record -b 4, one CPU: exit 0, events lost" 0 \
		"$E record: wrote $CW/tiny.dat: * events, * LOST (*); use a larger -b"
	clean "record -b 4, one CPU"
	run "$C" report "$CW/tiny.dat"
	expect "report (text, one CPU): the data incomplete" 0 \
		"data          INCOMPLETE: the numbers undercount"
	expect "report (text, one CPU): the events lost, by CPU" 0 \
		"  ! $CW/tiny.dat: buffer trace-cmd-alloc-tag-*, CPU 0: *events were lost*"
	case "$NL$out$NL" in
	*"${NL}completeness  "*" call sites as /proc/allocinfo counted; the trace misses "*)
		ok "report (text, one CPU): the description kept, the calls missed said" ;;
	*"$NL  - $CW/tiny.dat: no recording description ("*"): every task and every tag counted$NL"*)
		ok "report (text, one CPU): the description overwritten, said" ;;
	*)	nok "report (text, one CPU): neither what the trace misses nor that the description is lost" ;;
	esac
	rm -rf "$CW/full" "$CW/tiny"
	[ $bad = 0 ]
}

# Frees without a hit: a selected tag's objects allocated before the recording and
# freed during it. __d_alloc has two tags: the dentry, and a name too long to fit in
# it (the later line). The 40 long names are made before record; the workload
# removes them and drops the unused dentries, whose names are freed after an RCU
# grace period, inside the recording (a second's wait, and --linger). Their frees
# are traced, but no hit
# names their tag: only the counters can. The kernel's counters say how many.
t_cmd_record_old_frees() {
	bad=0
	rm -rf "$CW/old"
	mkdir "$CW/old"
	long=nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn
	for i in $(seq 1 40); do : >"$CW/old/$long$i"; done
	# the name's tag: the later of __d_alloc's two lines in /proc/allocinfo
	nline=$(awk '$4 == "func:__d_alloc" { split($3, a, ":"); if (a[2] + 0 > n) n = a[2] + 0 }
		END { print n + 0 }' /proc/allocinfo)
	echo "# the long name's tag: fs/dcache.c:$nline"
	run "$C" record --function __d_alloc -b 8192 -o "$CW/old.dat" -- \
		sh -c "rm -f $CW/old/*; echo 2 >/proc/sys/vm/drop_caches; sleep 1"
	expect "record: the long names removed, exit 0, none lost" 0 \
		"$E record: wrote $CW/old.dat: * events, none lost"
	clean "record --function __d_alloc (old objects freed)"
	run "$C" report --format json -o "$CW/old.json" "$CW/old.dat"
	sum=$(jq -r --argjson l "$nline" '"c \(.complete) \(.completeness.incomplete)",
		(.completeness.tags[] | select(.line == $l) |
			"name \(.complete) \(.counted_calls) \(.counted_bytes) \(.traced_calls) \(.traced_bytes) \(.missing_calls)"),
		"named \([.remarks[] | select(test("had no hit event .*: named __d_alloc fs/dcache.c:\($l),"))] | length) \([.tags[] | select(.line == $l) | .allocs] | add // 0)",
		"hidden \(.sources[0].hidden_tags)"' "$CW/old.json")
	same "report: complete, every tag as /proc/allocinfo counted" "$(pick c)" "true 0"
	# the kernel counted 40 frees of the long names or more (what else ran), and the
	# trace shows the same, by the counters' naming
	same "report: the long names' tag freed 40 or more, as traced" \
		"$(pick name | awk '{ print $1, ($2 <= -40), ($2 == $4 && $3 == $5), $6 }')" \
		"true 1 1 0"
	# (unless a long name was allocated meanwhile, whose hit named the tag)
	same "report: a remark names the tag after its counters" \
		"$(pick named | awk '{ print ($1 == 1 || $2 > 0) }')" 1
	same "report: no selected tag's events hidden" "$(pick hidden)" 0
	run "$C" report "$CW/old.dat"
	expect "report (text): complete" 0 "completeness  complete: * as /proc/allocinfo counted"
	case "$NL$out$NL" in
	*"the trace misses"*) nok "report (text): nothing called missing" ;;
	*) ok "report (text): nothing called missing" ;;
	esac
	rm -rf "$CW/old"
	[ $bad = 0 ]
}

# wait_line FILE PATTERN: wait up to 20 s for a line of FILE matching the shell PATTERN
wait_line() {
	i=0
	while [ $i -lt 200 ]; do
		while IFS= read -r l; do
			# shellcheck disable=SC2254
			case "$l" in $2) return 0 ;; esac
		done <"$1"
		sleep 0.1
		i=$((i + 1))
	done 2>/dev/null
	return 1
}

# Stopping: SIGINT, --duration, and SIGKILL followed by reset.
t_cmd_record_signals() {
	bad=0
	: >"$CW/sigint.out"
	"$C" record --module atag_test -o "$CW/sigint.dat" >"$CW/sigint.out" 2>&1 &
	pid=$!
	wait_line "$CW/sigint.out" "*recording into*" || nok "record did not start recording"
	echo "slab 128 2" >"$ATP" && echo free >"$ATP"
	kill -INT $pid
	wait $pid
	st=$?
	out=$(cat "$CW/sigint.out")
	printf '%s\n' "$out"
	expect "SIGINT: exit 0, stopped by Interrupt" 0 "$E record: stopped by Interrupt"
	clean "record stopped by SIGINT"

	run "$C" record --module atag_test --duration 1s -o "$CW/duration.dat"
	expect "--duration 1s: exit 0" 0 "$E record: wrote $CW/duration.dat: * events, none lost"
	[ "${t_end%.*}" -ge "$((${t_start%.*} + 1))" ] && ok "--duration 1s: $t_start -> $t_end s" ||
		nok "--duration 1s: $t_start -> $t_end s"
	clean "record --duration"

	"$C" record --module atag_test -o "$CW/kill.dat" -- sleep 30 >"$CW/kill.out" 2>&1 &
	pid=$!
	sf=$STATE_DIR/record-$pid.state
	# wait until its recorder runs and it started its command (sleep)
	child=
	i=0
	while [ -z "$child" ] && [ $i -lt 100 ]; do
		[ -e "$sf" ] && wait_line "$sf" "recorder *" && for p in /proc/[0-9]*; do
			read -r _ cm _ ppid _ <"$p/stat" && [ "$ppid" = "$pid" ] && [ "$cm" = "(sleep)" ] &&
				child=${p#/proc/}
		done
		[ -n "$child" ] || sleep 0.1
		i=$((i + 1))
	done 2>/dev/null
	echo "# record $pid, its command $child"
	while read -r l; do echo "# state: $l"; done <"$sf"
	run "$C" reset
	expect "reset while the record runs: leaves it alone" 0 "reset: record $pid still runs ($sf): left alone"
	same "reset while the record runs: its tags, instance and state file stay" \
		"$("$PROBE" traced -c) $([ -d "$T/instances/trace-cmd-alloc-tag-$pid" ] && echo instance) $([ -e "$sf" ] && echo state)" \
		"9 instance state"
	kill -KILL $pid
	wait $pid 2>/dev/null
	same "SIGKILL: the tags stay traced and the instance stays for reset" \
		"$("$PROBE" traced -c) $([ -d "$T/instances/trace-cmd-alloc-tag-$pid" ] && echo instance)" "9 instance"
	run "$C" reset
	expect "reset: undoes the killed record" 0 \
		"reset: record $pid: *turned tracing off on 9 tags, removed tracefs instance trace-cmd-alloc-tag-$pid"
	clean "reset after SIGKILL"
	[ -e "$sf" ] && nok "reset left the state file" || ok "reset removed the state file"
	run "$C" reset
	expect "reset again: nothing to undo" 0 "reset: nothing to undo*"
	# the command of the killed record outlives it
	[ -n "${child:-}" ] && kill "$child" 2>/dev/null
	# both traces in one report (it takes 1.5 s here): the killed record's
	# trace.dat is complete, the interrupted one holds what was allocated meanwhile
	run "$C" report --format json "$CW/sigint.dat" "$CW/kill.dat"
	same "SIGINT: the trace holds the 2 allocations made while recording; SIGKILL: a complete trace.dat" \
		"$(printf '%s\n' "$out" | jq -c '[.complete, (.tags[] | .function, .allocs, .frees), [.files[].truncated]]')" \
		'[true,"atag_test_slab_alloc",2,2,[false,false]]'
	[ $bad = 0 ]
}

# ------------------------------------------------------------------ stat

# stat --format json against trace_stats/memory_usage_kb: at boot (with the
# persistent instance of the harness), then with two instances and snapshots.
t_cmd_stat() {
	bad=0
	ncpu=$(nproc)
	co=$(sed -n 's/.*reserve_mem=\([0-9]*\)M.*/\1/p' /proc/cmdline)
	co=$((co * 1024))
	a=$T/instances/atag-vm-stat-a
	b=$T/instances/atag-vm-stat-b
	# the buffer files stat may not change
	tracefs_state() {
		for d in "$T" "$T"/instances/*; do
			read -r s <"$d/buffer_size_kb"
			read -r on <"$d/tracing_on"
			sn=none
			[ -e "$d/snapshot" ] && while IFS= read -r l; do
				case "$l" in *"Snapshot is allocated"*) sn=allocated ;; *"Snapshot is freed"*) sn=freed ;;
				[!#]*) break ;; esac
			done <"$d/snapshot"
			echo "$d $s $on $sn"
		done
	}
	# stat's JSON in the shape of memory_usage_kb, then what the checks need
	stat_json() {
		run "$C" stat --format json
		printf '%s\n' "$out" >"$CW/stat.json"
		sum=$(jq -r '.aggregate as $a |
			"kernel " + ([$a.kernel | to_entries[] | "\(.key): \(.value)"] | join(",")),
			"computed " + ([$a.computed | to_entries[] | select(.key != "buffers" and .key != "snapshot_buffers") | "\(.key): \(.value)"] | join(",")),
			"diffrows \([$a.differences[].row] | join(","))",
			(.instances[] | "inst \(.name // "top") \(.persistent) \(.memory_kind) \(.memory_kb) \(.subbuf_size_kb) \(.snapshot.state) \(.snapshot.size_kb) \(.last_boot_info != null)")
			' "$CW/stat.json")
		kern=
		while IFS= read -r l; do kern="$kern${kern:+,}$l"; done <"$T/trace_stats/memory_usage_kb"
		same "$1: stat's kernel figures are memory_usage_kb" "$(pick kernel)" "$kern"
		# temp_buffer is in global, total_carveout is persistents (v5 2/4)
		same "$1: computed = kernel on every line" "$(pick computed)" "$kern"
		same "$1: no difference noted" "$(pick diffrows)" ""
		pers=${kern#*persistents: }
		[ "${pers%%,*}" -le "$co" ] && ok "$1: persistents fit the reserved $co KiB" ||
			nok "$1: persistents ${pers%%,*} KiB exceed the reserved $co KiB"
	}
	# memory of a buffer from its files: (ceil(size / (sub-buffer - 16)) + 1) sub-buffers per CPU
	memory_kb() {
		read -r sb <"$1/buffer_subbuf_size_kb"
		m=0
		for c in "$1"/per_cpu/cpu*; do
			read -r kb <"$c/buffer_size_kb"
			kb=${kb%% *}	# "7 (expanded: 1408)" before first use
			cap=$((sb * 1024 - 16))
			nr=$(((kb * 1024 + cap - 1) / cap))
			[ $nr -lt 2 ] && nr=2
			m=$((m + (nr + 1) * sb))
		done
		echo $m
	}
	before=$(tracefs_state)
	stat_json "boot"
	pers=${kern#*persistents: }
	same "boot: the top buffer and the harness's persistent instance (carve-out, no snapshot)" \
		"$(pick inst)" "top false system $(memory_kb "$T") 4 freed $((3 * 4 * ncpu)) false
atag_persist true carveout ${pers%%,*} 4 none 0 true"

	mkdir "$a" "$b" && echo 512 >"$a/buffer_size_kb" && echo 100 >"$b/buffer_size_kb" &&
		echo 8 >"$b/buffer_subbuf_size_kb" && echo 1 >"$a/snapshot" && echo 1 >"$T/snapshot"
	echo "# instances a (512 KiB, snapshot), b (100 KiB in 8 KiB sub-buffers), top snapshot"
	mid=$(tracefs_state)
	stat_json "instances and snapshots"
	top=$(memory_kb "$T")
	same "instance a: 129 + 1 sub-buffers per CPU, its snapshot as large; b: 8 KiB sub-buffers, snapshot freed" \
		"$(pick inst)" "top false system $top 4 allocated $top false
atag-vm-stat-a false system $((130 * 4 * ncpu)) 4 allocated $((130 * 4 * ncpu)) false
atag-vm-stat-b false system $(memory_kb "$b") 8 freed $((3 * 4 * ncpu)) false
atag_persist true carveout ${pers%%,*} 4 none 0 true"
	run "$C" stat -B atag-vm-stat-b -t --format json
	same "stat -B b -t: the top buffer and b, no totals" \
		"$(printf '%s\n' "$out" | jq -c '[[.instances[].name], has("aggregate")]')" '[[null,"atag-vm-stat-b"],false]'
	run "$C" stat
	expect "stat text: instance a" 0 "Instance: atag-vm-stat-a"
	expect "stat text: the totals beside the kernel's" 0 "Totals * computed * kernel * difference"
	expect "stat text: the persistent instance" 0 "  persistent      yes: boot-mapped*"
	run "$C" stat --watch 100ms --count 2 --format json
	same "stat --watch 100ms --count 2: two reports" "$(printf '%s\n' "$out" | jq -s length)" 2
	same "stat changed nothing in tracefs" "$(tracefs_state)" "$mid"

	echo 0 >"$T/snapshot"
	echo 0 >"$a/snapshot"
	rmdir "$a" "$b"
	same "back to the boot state" "$(tracefs_state)" "$before"

	# The test module's trace remote.  Its buffer is page-allocator memory on the
	# CPUs it chose (one of the guest's two), and no file says which.  Unloaded it
	# holds nothing and every row is known; loaded, stat gives its memory per CPU
	# of its buffer (the module's pages over its CPUs), neither its CPUs nor a
	# total: remotes and total_system unknown, the carve-out the persistents only.
	RMT=$T/remotes/atag_test
	pk=$(($(getconf PAGESIZE) / 1024))
	remote_json() {
		run "$C" stat --format json
		printf '%s\n' "$out" >"$CW/stat-remote.json"
		sum=$(jq -r '.aggregate as $a |
			(.remotes[] | select(.name == "atag_test") |
				"remote \(.loaded) \(.tracing_on) \(.cpus) \(.memory_kind) \(.memory_per_cpu_kb) \(.memory_kb)"),
			"computed " + ([$a.computed | to_entries[] | select(.key != "buffers" and .key != "snapshot_buffers") | "\(.key): \(.value)"] | join(",")),
			"without \($a.total_system_without_remotes_kb)",
			"diffrows \([$a.differences[].row] | join(","))",
			"notes \([.notes[] | select(startswith("remotes/atag_test: loaded, "))] | length)"' \
			"$CW/stat-remote.json")
		kern=
		while IFS= read -r l; do kern="$kern${kern:+,}$l"; done <"$T/trace_stats/memory_usage_kb"
		ksys=${kern#*total_system: }
		ksys=${ksys%%,*}
	}
	remote_unloaded() {
		remote_json
		same "remote $1: unloaded, nothing held, page allocator" "$(pick remote)" \
			"false false null system 0 0"
		same "remote $1: computed = kernel on every line" "$(pick computed)" "$kern"
		same "remote $1: no difference, nothing about the remote" \
			"$(pick diffrows)|$(pick notes)|$(pick without)" "|0|$ksys"
	}
	remote_unloaded "before"
	echo 1 >"$RMT/tracing_on"
	rc=$(sed -n 's/^remote .* cpus \([0-9]*\) pages \([0-9]*\)$/\1 \2/p' /proc/atag_test_counts)
	echo "# the module's remote: cpus and pages $rc"
	remote_json
	same "remote loaded: per CPU of its buffer, the module's pages over its CPUs; CPUs and total unknown" \
		"$(pick remote)" "true true null system $((${rc#* } * pk / ${rc% *})) null"
	same "remote loaded: remotes and total_system unknown, the other rows the kernel's" \
		"$(pick computed)" "$(printf '%s' "$kern" |
			sed 's/remotes: [0-9]*/remotes: null/; s/total_system: [0-9]*/total_system: null/')"
	same "remote loaded: total_system without it is the kernel's (v5 counts remotes as 0), a note says why" \
		"$(pick diffrows)|$(pick notes)|$(pick without)" "|1|$ksys"
	run "$C" stat
	expect "stat text: the loaded remote, CPUs unknown, memory per CPU (pages inferred), page allocator" 0 \
		"  atag_test * loaded * on * [?] * KiB per CPU of its buffer (pages inferred), page allocator"
	expect "stat text: total_system unknown while it is loaded" 0 "  total_system * unknown * -"
	echo 0 >"$RMT/tracing_on"
	remote_unloaded "after"
	clean "stat"
	[ $bad = 0 ]
}

# stat of the harness's persistent instance (reserve_mem=4M:...:atagvm
# trace_instance=atag_persist@atagvm): v5 2/4 adds its ring_buffer_memory_size() to
# persistents like any buffer's to its row, so its sub-buffers and not the reserved
# range. The expected figure comes from 6.12's own files, not from our patch of
# memory_usage_kb: each CPU's buffer_meta (nr_subbufs, reader included, of
# subbuf_size bytes), cross-checked with its buffer_size_kb.
t_cmd_stat_persistent() {
	bad=0
	P=$T/instances/atag_persist
	[ -e "$P/last_boot_info" ] || { skip "no persistent instance atag_persist"; return; }
	co=$(sed -n 's/.*reserve_mem=\([0-9]*\)M.*/\1/p' /proc/cmdline)
	co=$((co * 1024))
	want=0 ncpu=0 fromsize=0
	for c in "$P"/per_cpu/cpu*; do
		nr= sz=
		while read -r k v; do
			case $k in nr_subbufs:) nr=$v ;; subbuf_size:) sz=$v ;; esac
		done <"$c/buffer_meta"
		read -r kb <"$c/buffer_size_kb"
		echo "# ${c##*/}: buffer_meta nr_subbufs $nr, subbuf_size $sz; buffer_size_kb $kb"
		want=$((want + nr * sz / 1024))
		# buffer_size_kb: the data sub-buffers' room, 16 bytes of header each
		cap=$((sz - 16))
		fromsize=$((fromsize + ((kb * 1024 + cap - 1) / cap + 1) * sz / 1024))
		ncpu=$((ncpu + 1))
	done
	echo "# the persistent buffer: $want KiB on $ncpu CPUs; the reserved range $co KiB"
	same "the kernel's files agree: buffer_meta's sub-buffers are buffer_size_kb's data sub-buffers and the reader" \
		"$fromsize" "$want"
	if [ "$want" -gt 0 ] && [ "$want" -lt "$co" ]; then
		ok "its sub-buffers are less than the reserved range ($want < $co KiB)"
	else
		nok "its sub-buffers ($want KiB) against the reserved range ($co KiB)"
	fi
	kern=
	while IFS=': ' read -r k v; do
		case $k in persistents|total_carveout) kern="$kern$k $v " ;; esac
	done <"$T/trace_stats/memory_usage_kb"
	same "memory_usage_kb: persistents and total_carveout are its sub-buffers, not the range" \
		"$kern" "persistents $want total_carveout $want "
	run "$C" stat --format json
	printf '%s\n' "$out" >"$CW/stat-persist.json"
	sum=$(jq -r '
		(.instances[] | select(.name == "atag_persist") |
			"inst \(.persistent) \(.backup_of) \(.memory_kind) \(.memory_kb)"),
		"computed \(.aggregate.computed.persistents) \(.aggregate.computed.total_carveout)",
		"diffrows \([.aggregate.differences[].row] | join(","))",
		"inrow \(.aggregate.in_no_row | length)",
		"range \([.aggregate.differences[].reasons[] | select(test("counts the whole"))] | length)"' \
		"$CW/stat-persist.json")
	same "stat: the persistent instance, carve-out, its sub-buffers" "$(pick inst)" \
		"true null carveout $want"
	same "stat: computed persistents and total_carveout, as the kernel's" "$(pick computed)" \
		"$want $want"
	same "stat: no difference, no reason about a reserved range, no backup" \
		"$(pick diffrows)|$(pick range)|$(pick inrow)" "|0|0"
	run "$C" stat -B atag_persist
	expect "stat text: its memory, carve-out" 0 "  memory * carve-out (reserved memory)"
	clean "stat of the persistent instance"
	[ $bad = 0 ]
}

# ------------------------------------------------------------------ profiling switched off

# vm.mem_profiling = 0: the series emits no alloc_tag event ("while profiling is
# enabled", its 2/4), and the counters of /proc/allocinfo stand still. list, enable,
# record and top say so in one line (record and top before and after), and report
# says why the recording holds no alloc_tag event. What the kernel did comes from
# its own counters and stock trace-cmd report, not from our commands. Profiling is
# switched on again right after, whatever happened: the rest of the guest needs it.
profiling_off_checks() {
	OFF="memory allocation profiling is off (vm.mem_profiling = 0)"
	slab=$(awk '/func:atag_test_slab_alloc$/ || /func:atag_test_slab_alloc / { print $1, $2 }' /proc/allocinfo)
	run "$C" list --module atag_test
	expect "list: exit 0, says profiling is off" 0 \
		"$E list: $OFF: these counters do not move and traced tags emit no events while it is off"
	run "$C" enable --function atag_test_slab_alloc
	expect "enable: traces the tag, says it emits nothing while profiling is off" 0 \
		"$E enable: $OFF: the traced tags emit no events while it is off (sysctl vm.mem_profiling=1 turns it on)"
	same "enable: the tag is traced all the same" "$("$PROBE" traced)" "$S_slab"
	"$C" disable --function atag_test_slab_alloc >/dev/null
	clean "enable while profiling is off"
	rm -f "$CW/prof.dat"
	run "$C" record --module atag_test -o "$CW/prof.dat" -- sh -c "
		echo slab 128 3 >$ATP && echo page 0 2 >$ATP && echo free >$ATP"
	expect "record: exit 0, says so when it starts" 0 \
		"$E record: $OFF: no alloc_tag event is recorded while it is off"
	expect "record: and when it ends" 0 \
		"$E record: $OFF: what was allocated while it was off has no event in the trace"
	clean "record while profiling is off"
	same "the kernel: the slab tag's counters stood still" \
		"$(awk '/func:atag_test_slab_alloc$/ || /func:atag_test_slab_alloc / { print $1, $2 }' /proc/allocinfo)" \
		"$slab"
	same "the kernel: stock trace-cmd report finds no alloc_tag event in the trace" \
		"$(trace-cmd report -i "$CW/prof.dat" 2>/dev/null | grep -c ' alloc_tag_')" 0
	run "$C" report --format json "$CW/prof.dat"
	sum=$(printf '%s\n' "$out" | jq -r '
		"why \([.remarks[] | select(test("no alloc_tag event, although tags were selected: memory allocation profiling was off \\(vm.mem_profiling = 0\\) when recording started and when it ended"))] | length)",
		"allocs \(.totals.allocs)"')
	same "report: no allocation, and why" "$(pick allocs) $(pick why)" "0 1"
	run "$C" top --module atag_test --json -d 100ms -- sh -c "
		echo slab 64 2 >$ATP && echo free >$ATP && sleep 0.3"
	expect "top: exit 0, says so before it watches" 0 \
		"$E top: $OFF: no allocation shows while it is off (sysctl vm.mem_profiling=1 turns it on)"
	expect "top: and after" 0 "$E top: $OFF: what was allocated while it was off is in no screen"
	same "top: its last screen counts no allocation" \
		"$(printf '%s\n' "$out" | grep '^{' | tail -n 1 | jq '[.sites[].total.allocs] | add // 0')" 0
	clean "top while profiling is off"
}

t_cmd_profiling_off() {
	bad=0
	module_facts
	echo free >"$ATP"
	read -r was </proc/sys/vm/mem_profiling
	same "vm.mem_profiling is 1 before" "$was" 1
	if ! echo 0 >/proc/sys/vm/mem_profiling; then
		nok "cannot switch profiling off"
		return 1
	fi
	profiling_off_checks
	echo 1 >/proc/sys/vm/mem_profiling
	read -r now </proc/sys/vm/mem_profiling
	same "vm.mem_profiling is 1 again" "$now" 1
	run "$C" list --module atag_test
	same "profiling on: list says nothing about it" "$(printf '%s\n' "$out" | grep -c 'profiling is off')" 0
	[ $bad = 0 ]
}

# ------------------------------------------------------------------ top and diff

# module_delta FILE0 FILE1 KIND...: per kind "allocs alloc_bytes frees" the module
# counted between two reads of /proc/atag_test_counts
module_delta() {
	f0=$1 f1=$2
	shift 2
	for k in "$@"; do
		awk -v k="$k" 'NR == FNR { if ($1 == k) { a = $3; b = $5; f = $7 } next }
			$1 == k { print "atag_test_" k "_alloc", $3 - a, $5 - b, $7 - f }' "$f0" "$f1"
	done
}

t_cmd_top() {
	bad=0
	echo free >"$ATP"
	cat /proc/atag_test_counts >"$CW/top0"
	run "$C" top --module atag_test --json -d 100ms -- sh -c "
		echo slab 128 3 >$ATP && echo page 1 2 >$ATP && echo slab 64 1 >$ATP && sleep 0.3"
	same "top --module -- COMMAND: exit 0 when COMMAND ends" "$st" 0
	cat /proc/atag_test_counts >"$CW/top1"
	echo free >"$ATP"
	clean "top"
	want=$(module_delta "$CW/top0" "$CW/top1" page slab)
	printf '%s\n' "$want" | while read -r l; do echo "# the module: $l"; done
	# the last screen covers everything: per call site allocations, bytes, frees
	last=$(printf '%s\n' "$out" | grep '^{' | tail -n 1)
	sum=$(printf '%s\n' "$last" | jq -r '
		(.sites | sort_by(.function)[] | select(.function | test("^atag_test_(page|slab)_alloc$")) |
			"site \(.function) \(.total.allocs) \(.total.bytes_alloced) \(.total.frees)",
			"live \(.function) \(.live) \(.live_bytes)"),
		"lost \(.lost)"')
	same "top: the last screen's call sites count what the module made" "$(pick site)" "$want"
	same "top: all of it live (the module holds it)" "$(pick live)" \
		"$(printf '%s\n' "$want" | awk '{ print $1, $2, $3 }')"
	same "top: no event lost" "$(pick lost)" 0
	[ $bad = 0 ]
}

# leaks on a guest tag: the module holds what it allocates until "free" (a leak on
# demand); its old allocations show by call site with their bytes, a stack that starts
# at the call site, and are leak suspects; -o saves them in report's live[] shape
t_cmd_leaks() {
	bad=0
	echo free >"$ATP"
	cat /proc/atag_test_counts >"$CW/lk0"
	run "$C" leaks --module atag_test --all-stacks --min-age 500ms -d 300ms -f json \
		-o "$CW/leaks.json" \
		-- sh -c "echo slab 128 5 >$ATP && echo page 1 2 >$ATP && sleep 1.5"
	same "leaks --module -- COMMAND: exit 0 when COMMAND ends" "$st" 0
	cat /proc/atag_test_counts >"$CW/lk1"
	echo free >"$ATP"
	clean "leaks"
	want=$(module_delta "$CW/lk0" "$CW/lk1" page slab | awk '{ print $1, $2, $3 }')
	printf '%s\n' "$want" | while read -r l; do echo "# the module: $l"; done
	last=$(printf '%s\n' "$out" | grep '^{' | tail -n 1)
	sum=$(printf '%s\n' "$last" | jq -r '
		(.sites | sort_by(.function)[] | select(.function | test("^atag_test_(page|slab)_alloc$")) |
			"site \(.function) \(.allocs) \(.bytes)",
			"suspect \(.function) \(.suspects == .allocs) \(.oldest_ns >= 500000000)"),
		"stacked \([.sites[] | select(.function == "atag_test_slab_alloc") | .stacks[] |
			select(.frames | length > 0) | .frames[0] | startswith("atag_test_slab_alloc")] | any)",
		"lost \(.lost) \(.sources | join(","))"')
	same "leaks: the module's call sites, old, with the allocations and bytes it made" \
		"$(pick site)" "$want"
	same "leaks: all of them suspects, older than --min-age" "$(pick suspect)" \
		"atag_test_page_alloc true true
atag_test_slab_alloc true true"
	same "leaks: a sampled stack starts at the call site" "$(pick stacked)" true
	same "leaks: no event lost, the alloc_tag source" "$(pick lost)" "0 alloc_tag"
	saved=$(jq -r '[.live[] | select(.function == "atag_test_slab_alloc" and .suspect)] | length' \
		"$CW/leaks.json" 2>&1)
	same "leaks -o: the slab allocations live, suspects, in report's live[]" "$saved" 5
	[ $bad = 0 ]
}

t_cmd_diff() {
	bad=0
	echo free >"$ATP"
	run "$C" record --module atag_test -o "$CW/before.dat" -- sh -c "echo slab 128 2 >$ATP && echo page 0 1 >$ATP"
	expect "record (before): none lost" 0 "$E record: wrote $CW/before.dat: * events, none lost"
	echo free >"$ATP"
	cat /proc/atag_test_counts >"$CW/diff0"
	# the same, and 5 objects more at the slab call site
	run "$C" record --module atag_test -o "$CW/after.dat" -- sh -c "echo slab 128 7 >$ATP && echo page 0 1 >$ATP"
	expect "record (after): none lost" 0 "$E record: wrote $CW/after.dat: * events, none lost"
	cat /proc/atag_test_counts >"$CW/diff1"
	echo free >"$ATP"
	clean "record for diff"
	run "$C" diff -f json "$CW/before.dat" "$CW/before.dat"
	same "diff of a recording with itself: exit 0" "$st" 0
	same "diff of a recording with itself: no change" \
		"$(printf '%s\n' "$out" | jq -c '[.summary.changed, .summary.appeared, .summary.disappeared]')" \
		"[0,0,0]"
	echo "# the module (after): $(module_delta "$CW/diff0" "$CW/diff1" slab page | tr '\n' ';')"
	run "$C" diff -f json "$CW/before.dat" "$CW/after.dat"
	same "diff before after: exit 0" "$st" 0
	sum=$(printf '%s\n' "$out" | jq -r '
		(.sites[] | select(.change.allocs != 0 or .change.live != 0) |
			"changed \(.function) \(.status) \(.change.allocs) \(.change.live) \(.change.live_bytes)"),
		"summary \(.summary.changed) \(.summary.appeared) \(.summary.disappeared)"')
	same "diff: exactly the slab call site, +5 allocations, +5 live, +640 bytes" \
		"$(pick changed)" "atag_test_slab_alloc changed 5 5 640"
	same "diff: one call site changed, none appeared or disappeared" "$(pick summary)" "1 0 0"
	[ $bad = 0 ]
}
