/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-symbols.h - kernel stack frames: names, and which frames are the tracing
 * machinery or the page allocator rather than the code that allocated.
 */
#ifndef _ATAG_SYMBOLS_H
#define _ATAG_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

/* Frames of the event and stack-trace machinery (trace_event_raw_event_*, triggers). */
bool atag_frame_is_tracing(const char *function);

/* Frames of the page and slab allocators and their *_noprof entry points. */
bool atag_frame_is_allocator(const char *function);

/*
 * How many leading frames of a stack belong to the tracing machinery (dropped
 * unless raw stacks are asked for): the longest prefix of tracing frames, and at
 * least everything up to a trace_event_raw_event_* frame among the first 16.
 */
unsigned int atag_stack_skip(struct tep_handle *tep, const uint64_t *frames, unsigned int nr);

/*
 * Which module each module symbol of a kallsyms text belongs to (libtraceevent
 * 1.7 keeps the module of a symbol but has no call to read it back).
 */
struct atag_modules;

/* From a /proc/kallsyms text of @len bytes ("addr type name [module]" lines). */
struct atag_modules *atag_modules_parse(const char *text, size_t len);
void atag_modules_free(struct atag_modules *m);

/*
 * Write "function+0xoff" (and " [module]" for a module symbol) for @addr into
 * @buf, or "0x<addr>" when kallsyms does not know it. @mods may be NULL.
 * Returns @buf.
 */
char *atag_symbolize(struct tep_handle *tep, const struct atag_modules *mods, uint64_t addr,
		     char *buf, size_t len);

/*
 * The function containing @addr, the offset into it and its module (NULL for
 * the kernel proper, or when @mods is NULL); NULL if unknown.
 */
const char *atag_function_of(struct tep_handle *tep, const struct atag_modules *mods,
			     uint64_t addr, uint64_t *offset, const char **module);

#endif /* _ATAG_SYMBOLS_H */
