/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-debuginfo.h - source lines of kernel code from debug information.
 *
 * A trace.dat names code by kallsyms: "function+0xoffset", the function and its
 * module. With the traced kernel's debug information (an unstripped vmlinux and
 * the modules' .ko files, or the distribution's debug-info files) the same code
 * gets a file and a line, as addr2line would print them. elfutils' libdwfl reads
 * the DWARF; nothing here parses it by hand.
 *
 * Code is looked up by name and offset, not by address: the trace's addresses
 * carry the running kernel's KASLR offset and its modules' load addresses, the
 * debug files their link-time layout, but a function is the same function in
 * both. A name that the debug file defines more than once (static functions of
 * several files) is resolved by the size of each candidate and, for vmlinux, by
 * the kernel's own offset (atag_debuginfo_set_kernel_base()); a name still
 * ambiguous has no line.
 *
 * Reading debug files of another kernel than the traced one would give wrong
 * lines without a word: atag_debuginfo_mismatch() compares the layout of the
 * trace's kallsyms with vmlinux's symbols first.
 *
 * Files: vmlinux is the given path, else the first of
 *   /usr/lib/debug/boot/vmlinux-RELEASE, /usr/lib/debug/lib/modules/RELEASE/vmlinux,
 *   /boot/vmlinux-RELEASE, /lib/modules/RELEASE/build/vmlinux
 * that exists. A module NAME is NAME.ko (also .ko.debug, .ko.xz, .ko.zst, .ko.gz;
 * '-' and '_' are the same in module names) found below the module directories:
 * those given, else the directory of the given vmlinux (a kernel build tree), and
 * /usr/lib/debug/lib/modules/RELEASE and /lib/modules/RELEASE.
 *
 * Not thread safe: one thread uses a struct atag_debuginfo at a time.
 */
#ifndef _ATAG_DEBUGINFO_H
#define _ATAG_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct atag_debuginfo;

struct atag_debuginfo_opts {
	const char		*vmlinux;	/* NULL: the default paths for @release */
	const char		*release;	/* the traced kernel's `uname -r`; may be NULL */
	const char *const	*module_dirs;	/* NULL-terminated; NULL: the defaults */
};

/**
 * atag_debuginfo_open - open the debug information of a kernel
 * @opts: where to look
 * @err: a one-line reason on failure (naming the file)
 * @errlen: its size
 *
 * Returns the handle, or NULL with errno set: ENOENT when no vmlinux was given and
 * none is at the default paths (not an error for callers that only try), EINVAL
 * when the file is not an ELF file with DWARF line information.
 */
struct atag_debuginfo *atag_debuginfo_open(const struct atag_debuginfo_opts *opts, char *err,
					   size_t errlen);

/**
 * atag_debuginfo_close - free everything, may be NULL
 */
void atag_debuginfo_close(struct atag_debuginfo *di);

/**
 * atag_debuginfo_path - the vmlinux in use
 */
const char *atag_debuginfo_path(const struct atag_debuginfo *di);

/**
 * atag_debuginfo_symbol - where vmlinux or a module's file puts a function
 * @di: the debug information
 * @module: the module, NULL for vmlinux
 * @name: the function
 * @addr: its address in the debug file's layout
 *
 * Returns 0, or -ENOENT when the name is unknown or defined more than once.
 */
int atag_debuginfo_symbol(struct atag_debuginfo *di, const char *module, const char *name,
			  uint64_t *addr);

/**
 * atag_debuginfo_set_kernel_base - the running kernel's address of vmlinux's _text
 * @di: the debug information
 * @text: the address of _text (or _stext) in the trace's kallsyms
 *
 * Lets the lookups tell apart functions of vmlinux that share a name.
 */
void atag_debuginfo_set_kernel_base(struct atag_debuginfo *di, uint64_t text);

/**
 * atag_debuginfo_mismatch - whether vmlinux is not the traced kernel
 * @di: the debug information
 * @names: functions of vmlinux, with @addrs their addresses in the trace's kallsyms
 * @addrs: (the same kernel shifts every function by one KASLR offset)
 * @nr: how many
 *
 * Returns how many of the functions vmlinux knows sit at another offset from the
 * first of them than in the trace; 0 when the layouts agree.
 */
unsigned int atag_debuginfo_mismatch(struct atag_debuginfo *di, const char *const *names,
				     const uint64_t *addrs, unsigned int nr);

/**
 * atag_debuginfo_line - the source line of code at @name+@offset
 * @di: the debug information
 * @module: the module the function is in, NULL for vmlinux
 * @name: the function
 * @offset: the offset into it
 * @addr: the same code's address in the trace (for vmlinux once
 *	atag_debuginfo_set_kernel_base() was called: it tells apart functions that
 *	share a name)
 * @return_address: @offset is a return address (a stack frame, a call site taken
 *	with _RET_IP_): the line of the call before it is meant, as addr2line -i
 *	users write addr-1
 * @file: set to the file (valid until @di is closed), relative to the kernel's
 *	source tree where the debug information says so
 * @line: set to the line
 *
 * Results are cached. Returns 0, or -ENOENT when the debug information has no
 * line for it (unknown function or module, no line table there).
 */
int atag_debuginfo_line(struct atag_debuginfo *di, const char *module, const char *name,
			uint64_t offset, uint64_t addr, bool return_address, const char **file,
			int *line);

#endif /* _ATAG_DEBUGINFO_H */
