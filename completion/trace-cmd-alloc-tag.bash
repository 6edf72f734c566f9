# SPDX-License-Identifier: GPL-2.0
#
# bash completion for trace-cmd-alloc-tag (installed as
# bash-completion/completions/trace-cmd-alloc-tag, loaded when first needed).
#
# The subcommands, their options and the values of the options that take one of
# a list (metavariables FMT, KEY, SRC, W) are read from the command's own --help
# when completing, so the completion follows the command line of the installed
# command. Other arguments: files for FILE, PATH and *.dat, directories for DIR;
# -B of stat the instances of tracefs (--tracefs DIR, $ATAG_TRACEFS or the mount),
# -B of report and diff the buffers of the trace.dat files on the line; after --
# a command and its arguments.

# _atag_help CMD [SUBCOMMAND]: the help text into _atag_help_text (the last one kept)
_atag_help()
{
	local key="$1 $2"

	[[ $key == "$_atag_help_key" ]] && return
	_atag_help_text=$(LC_ALL=C "$1" ${2:+"$2"} --help 2>&1)
	_atag_help_key=$key
}

# _atag_subcommands CMD: the names listed under "commands:" in CMD --help
_atag_subcommands()
{
	_atag_help "$1"
	awk '/^commands:/ { on = 1; next } on && /^[ \t]+[a-z]/ { print $1; next }
	     on { exit }' <<<"$_atag_help_text"
}

# _atag_options CMD SUBCOMMAND: one line per option, "OPTION<TAB>METAVAR<TAB>VALUES"
# from the help's option lines ("  -s, --sort KEY   description..."), METAVAR
# empty for a flag, VALUES the longest list "a, b or c" of its description (text
# in parentheses left out) for the metavariables that name a choice.
_atag_options()
{
	_atag_help "$1" "$2"
	awk '
	function values(d,	n, t, i, w, cur, k, best, bn, pend, last) {
		gsub(/ *\([^()]*\)/, "", d)
		gsub(/; or /, ", or ", d)
		n = split(d, t, /[ \t]+/)
		k = 0; cur = ""; best = ""; bn = 0; pend = 0
		# "a, b, or c and d:" is a list; a word ending in : ; or . ends one
		for (i = 1; i <= n + 1; i++) {
			w = (i <= n) ? t[i] : ""
			if ((w == "or" || w == "and") && k > 0) { pend = 1; continue }
			if (w ~ /^[a-z][a-z0-9_-]*[,:;.]?$/ && (k == 0 || pend)) {
				pend = sub(/,$/, "", w)
				last = sub(/[:;.]$/, "", w)
				cur = cur " " w; k++
				if (!last)
					continue
				w = ""
			}
			if (k >= 2 && k > bn) { best = cur; bn = k }
			k = 0; cur = ""; pend = 0
			if (w ~ /^[a-z][a-z0-9_-]*,?$/) {
				pend = sub(/,$/, "", w)
				cur = " " w; k = 1
			}
		}
		return substr(best, 2)
	}
	function flush(	i, v) {
		if (!nopt)
			return
		v = meta ~ /^(FMT|FORMAT|KEY|SRC|SOURCE|W|WEIGHT)$/ ? values(desc) : ""
		for (i = 1; i <= nopt; i++)
			printf "%s\t%s\t%s\n", opt[i], meta, v
		nopt = 0; meta = ""; desc = ""
	}
	/^[ \t]+-/ {
		flush()
		n = split($0, t, /[ \t]+/)
		i = 2; more = 1
		while (i <= n && more && t[i] ~ /^-/) {
			o = t[i++]
			more = sub(/,$/, "", o)
			if (sub(/=.*/, "", o))
				meta = "ARG"
			sub(/\[.*/, "", o)
			opt[++nopt] = o
		}
		if (i <= n && t[i] ~ /^\[?[A-Z]/)
			meta = t[i++]
		for (; i <= n; i++)
			desc = desc " " t[i]
		next
	}
	/^[ \t]+[^ \t]/ && nopt { desc = desc " " $0; next }
	{ flush() }
	END { flush() }' <<<"$_atag_help_text"
}

# _atag_tracefs_instances WORD...: the instances of tracefs (of --tracefs DIR when given)
_atag_tracefs_instances()
{
	local dir=${ATAG_TRACEFS:-} i

	for ((i = 1; i < $#; i++)); do
		[[ ${!i} == --tracefs ]] && { i=$((i + 1)); dir=${!i}; }
	done
	[[ $dir ]] || dir=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts 2>/dev/null)
	[[ -d $dir/instances ]] || return
	for i in "$dir"/instances/*/; do
		[[ -d $i ]] && i=${i%/} && printf '%s\n' "${i##*/}"
	done
}

# _atag_buffers WORD...: the buffers of the trace.dat files on the line (-i FILE, files
# after the subcommand), else of ./trace.dat
_atag_buffers()
{
	local f files=() i=2

	command -v trace-cmd >/dev/null 2>&1 || return
	while ((i <= $#)); do
		f=${!i}
		if [[ $f == -i || $f == --input || $f == --diff ]]; then
			i=$((i + 1)); files+=("${!i}")
		elif [[ $f != -* && -f $f ]]; then
			files+=("$f")
		fi
		i=$((i + 1))
	done
	((${#files[@]})) || files=(trace.dat)
	for f in "${files[@]}"; do
		[[ -f $f ]] && trace-cmd dump --options -i "$f" 2>/dev/null |
			sed -n 's/^"\(..*\)" \[name\]$/\1/p'
	done | sort -u
}

_trace_cmd_alloc_tag()
{
	local cur prev words cword split
	_init_completion -s || return

	local cmd=${words[0]} sub= subi=0 i
	cmd=$(type -P -- "$cmd" 2>/dev/null || printf '%s' "$cmd")
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} != -* ]]; then
			sub=${words[i]} subi=$i
			break
		fi
	done

	if [[ -z $sub ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--version --help -h' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_atag_subcommands "$cmd") help" -- "$cur"))
		fi
		return
	fi
	if [[ $sub == help ]]; then
		((cword == subi + 1)) &&
			COMPREPLY=($(compgen -W "$(_atag_subcommands "$cmd")" -- "$cur"))
		return
	fi

	# after "--": the command to run and its arguments
	for ((i = subi + 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_command_offset $((i + 1))
			return
		fi
	done

	local table meta= vals= o m v
	_atag_help "$cmd" "$sub"	# here: the command substitutions below see it
	table=$(_atag_options "$cmd" "$sub")
	while IFS=$'\t' read -r o m v; do
		[[ $o == "$prev" ]] && { meta=$m vals=$v; break; }
	done <<<"$table"
	if [[ $meta ]]; then
		case $prev,$meta in
		-B,* | --buffer,*)
			if [[ $sub == stat ]]; then
				COMPREPLY=($(compgen -W "$(_atag_tracefs_instances "${words[@]}")" -- "$cur"))
			else
				COMPREPLY=($(compgen -W "$(_atag_buffers "${words[@]:subi}")" -- "$cur"))
			fi
			;;
		*,*FILE* | *,*PATH* | *,*.dat)
			_filedir
			;;
		*,DIR)
			_filedir -d
			;;
		*)
			[[ $vals ]] && COMPREPLY=($(compgen -W "$vals" -- "$cur"))
			;;
		esac
		return
	fi
	$split && return

	if [[ $cur == -* ]]; then
		# "--" where the usage runs a COMMAND after it
		local dashes=
		[[ $_atag_help_text == *"-- COMMAND"* ]] && dashes=--
		COMPREPLY=($(compgen -W "$(cut -f1 <<<"$table") $dashes" -- "$cur"))
		return
	fi
	# operands: files where the usage names FILE or a .dat outside an option's argument
	if sed -n '/^$/q; s/-[-a-z]* [A-Z][A-Za-z.]*//g; p' <<<"$_atag_help_text" |
	   grep -qE 'FILE|\.dat'; then
		_filedir
	else
		COMPREPLY=($(compgen -W "$(cut -f1 <<<"$table")" -- "$cur"))
	fi
} &&
	complete -F _trace_cmd_alloc_tag trace-cmd-alloc-tag

# ex: filetype=sh
