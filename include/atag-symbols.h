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
 * Write "function+0xoff" (and " [module]" for a module symbol) for @addr into
 * @buf, or "0x<addr>" when kallsyms does not know it. Returns @buf.
 */
char *atag_symbolize(struct tep_handle *tep, uint64_t addr, char *buf, size_t len);

/* The function containing @addr and the offset into it; NULL if unknown. */
const char *atag_function_of(struct tep_handle *tep, uint64_t addr, uint64_t *offset,
			     const char **module);

#endif /* _ATAG_SYMBOLS_H */
