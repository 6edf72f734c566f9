/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-symbols.h - kernel stack frames: names, and which frames are the tracing
 * machinery or the page allocator rather than the code that allocated.
 *
 * Names come from the kallsyms a trace.dat carries (libtraceevent's function
 * map of the trace's tep); libtraceevent keeps no module name per symbol, so
 * atag_modules reads them from the same text. Frames are classified by name
 * (globs over function names: tracing machinery, page and slab allocator), once
 * per address with a struct atag_frame_cache. Everything here reads a tep: it
 * belongs to the thread that reads the trace.
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

/* ------------------------------------------------------------ frames of a stack */

/* What a frame is, as far as attributing a stack cares (bits). */
#define ATAG_FRAME_KNOWN	0x1	/* kallsyms names its function */
#define ATAG_FRAME_TRACING	0x2	/* atag_frame_is_tracing() */
#define ATAG_FRAME_RAW_EVENT	0x4	/* trace_event_raw_event_<event>: names an event */
#define ATAG_FRAME_ALLOCATOR	0x8	/* atag_frame_is_allocator() */

/*
 * The class of each frame address of one trace, looked up in kallsyms once per
 * address. Not thread safe: it belongs to the thread that reads the trace.
 */
struct atag_frame_cache;

struct atag_frame_cache *atag_frame_cache_alloc(struct tep_handle *tep);
void atag_frame_cache_free(struct atag_frame_cache *fc);

/*
 * The ATAG_FRAME_* bits of @addr; for a RAW_EVENT frame, *@event is the id of
 * the event it names (-1 when the trace has no such event). @event may be NULL.
 */
unsigned int atag_frame_class(struct atag_frame_cache *fc, uint64_t addr, int *event);

/*
 * How many leading frames of a stack belong to the tracing machinery (dropped
 * unless raw stacks are asked for): the longest prefix of tracing frames, and at
 * least everything up to a trace_event_raw_event_* frame among the first 16. A
 * stack taken with alloc_tag_mem_alloced (sampled stacks of the alloc_tag source)
 * also drops the allocator's frames after them: it starts at the call site, as the
 * stack of a hit does.
 */
unsigned int atag_stack_skip(struct atag_frame_cache *fc, const uint64_t *frames,
			     unsigned int nr);

/*
 * The event type a stack was recorded for: the event its first frames name
 * (trace_event_raw_event_<event>, among tracing frames only); -1 if none.
 */
int atag_stack_event(struct atag_frame_cache *fc, const uint64_t *frames, unsigned int nr);

/*
 * The call site of an allocation from its stack, as perf kmem finds it: the first
 * frame past the tracing machinery that is not the page or slab allocator; 0 if
 * there is none.
 */
uint64_t atag_stack_call_site(struct atag_frame_cache *fc, const uint64_t *frames,
			      unsigned int nr);

/*
 * The symbols of a kallsyms text, with the module of each (libtraceevent 1.7
 * keeps the module of a symbol but has no call to read it back). Read in one
 * pass, without an allocation per symbol; installed into a tep as its function
 * resolver (atag_modules_attach()), it answers every symbol look-up of that tep,
 * exactly as libtraceevent's own table built by tep_parse_kallsyms() would: the
 * same lines are kept (types A and a, and '$' names, are left out), the same
 * symbol wins among those sharing an address, and an address past the last
 * symbol is unknown. The text ends at its first NUL, as libtraceevent reads it;
 * a line that names no symbol is skipped.
 */
struct atag_modules;

/* From a /proc/kallsyms text of @len bytes ("addr type name[\t[module]]" lines). */
struct atag_modules *atag_modules_parse(const char *text, size_t len);
void atag_modules_free(struct atag_modules *m);

/* How many symbols it holds. */
size_t atag_modules_count(const struct atag_modules *m);
/* How many of its lines had no "ADDR TYPE NAME" shape (left out). */
size_t atag_modules_malformed(const struct atag_modules *m);

/*
 * Make @m the function resolver of @tep (tep_set_function_resolver()): @m must
 * outlive the tep's look-ups. Returns 0, or -1 without memory.
 */
int atag_modules_attach(struct atag_modules *m, struct tep_handle *tep);

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
