#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1
#
# embed.sh NAME=FILE...: an assembler source that embeds each FILE, read at build
# time, as the NUL-terminated const char atag_html_NAME[] (lib/render/atag-render-html.c).
# The page puts the scripts inside <script> elements: a file that holds "</script"
# would end its element early, and is refused.
set -e
for a in "$@"; do
	name=${a%%=*}
	file=${a#*=}
	[ -r "$file" ] || { echo "embed.sh: $file: cannot read it" >&2; exit 1; }
	case $name in
	page) ;;
	*)	if grep -qi '</script' "$file"; then
			echo "embed.sh: $file holds '</script': it cannot go inside a script element" >&2
			exit 1
		fi ;;
	esac
	cat <<EOT
	.section .rodata.atag_html_$name, "a"
	.globl	atag_html_$name
	.type	atag_html_$name, @object
atag_html_$name:
	.incbin	"$file"
	.byte	0
	.size	atag_html_$name, . - atag_html_$name
EOT
done
echo '	.section .note.GNU-stack, "", @progbits'
