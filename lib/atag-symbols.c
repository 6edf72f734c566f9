// SPDX-License-Identifier: LGPL-2.1
/*
 * Symbolising kernel stack frames with the kallsyms a trace.dat carries, and
 * telling the allocation's own frames from the machinery around it.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "atag-symbols.h"

#define SKIP_SCAN	16

static const char * const tracing_frames[] = {
	"trace_event_raw_event_*", "perf_trace_*", "__traceiter_*", "__probestub_*",
	"trace_event_buffer_commit", "trace_buffer_unlock_commit*", "__trace_stack",
	"__ftrace_trace_stack", "ftrace_trace_stack", "stack_trace_save*",
	"arch_stack_walk", "stacktrace_trigger", "stacktrace_count_trigger",
	"event_triggers_call", "event_triggers_post_call", "trace_event_buffer_lock_reserve",
	"*_trace_stack",
	/* out-of-line helpers of the alloc_tag series that fire its events */
	"alloc_tag_trace_*", NULL
};

static const char * const allocator_frames[] = {
	"*_noprof", "__alloc_pages*", "alloc_pages*", "__get_free_pages", "get_zeroed_page*",
	"__folio_alloc*", "folio_alloc*", "__alloc_frozen_pages*", "alloc_frozen_pages*",
	"get_page_from_freelist", "rmqueue*", "post_alloc_hook", "prep_new_page",
	"alloc_slab_page", "allocate_slab", "new_slab", "___slab_alloc", "__slab_alloc*",
	"slab_alloc_node", "__kmalloc*", "kmalloc_large*", "__kmem_cache_alloc*",
	"kmem_cache_alloc*", "kmalloc_trace*", "pcpu_*alloc*", "__vmalloc*", "vmalloc*",
	NULL
};

static bool matches(const char * const *globs, const char *function)
{
	int i;

	if (!function)
		return false;
	for (i = 0; globs[i]; i++)
		if (!fnmatch(globs[i], function, 0))
			return true;
	return false;
}

bool atag_frame_is_tracing(const char *function)
{
	return matches(tracing_frames, function);
}

bool atag_frame_is_allocator(const char *function)
{
	return matches(allocator_frames, function);
}

unsigned int atag_stack_skip(struct tep_handle *tep, const uint64_t *frames, unsigned int nr)
{
	unsigned int i, skip = 0;
	const char *f;

	for (i = 0; i < nr && i < SKIP_SCAN; i++) {
		f = tep_find_function(tep, frames[i]);
		if (!f)
			continue;
		if (i == skip && atag_frame_is_tracing(f))
			skip = i + 1;
		else if (!strncmp(f, "trace_event_raw_event_", 22))
			skip = i + 1;
	}
	return skip;
}

const char *atag_function_of(struct tep_handle *tep, uint64_t addr, uint64_t *offset,
			     const char **module)
{
	unsigned long long start = 0;
	const char *name = NULL;

	if (!tep_find_function_info(tep, addr, &name, &start, NULL) || !name)
		return NULL;
	if (offset)
		*offset = addr - start;
	/* libtraceevent 1.7 keeps the module of a symbol but has no call to read it */
	if (module)
		*module = NULL;
	return name;
}

char *atag_symbolize(struct tep_handle *tep, uint64_t addr, char *buf, size_t len)
{
	uint64_t off = 0;
	const char *f;

	f = atag_function_of(tep, addr, &off, NULL);
	if (f)
		snprintf(buf, len, "%s+0x%llx", f, (unsigned long long)off);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return buf;
}
