// SPDX-License-Identifier: LGPL-2.1
/*
 * Symbolising kernel stack frames with the kallsyms a trace.dat carries, and
 * telling the allocation's own frames from the machinery around it.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "atag-map.h"
#include "atag-symbols.h"

#define SKIP_SCAN	16

static const char * const tracing_frames[] = {
	"trace_event_raw_event_*", "perf_trace_*", "__traceiter_*", "__probestub_*",
	"trace_event_buffer_commit", "trace_buffer_unlock_commit*", "__trace_stack",
	"__ftrace_trace_stack", "ftrace_trace_stack", "stack_trace_save*",
	"arch_stack_walk", "stacktrace_trigger", "stacktrace_count_trigger",
	"event_triggers_call", "event_triggers_post_call", "trace_event_buffer_lock_reserve",
	"*_trace_stack",
	/*
	 * The out-of-line hooks of the alloc_tag series that fire its events:
	 * __alloc_tag_trace_hit(), alloc_tag_trace_mem_alloc() and _free().
	 */
	"__alloc_tag_trace_*", "alloc_tag_trace_*", NULL
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

/* ------------------------------------------------------------ frames of a stack */

#define RAW_EVENT_PREFIX	"trace_event_raw_event_"
#define NAME_SCAN		12	/* frames searched for the event a stack names */

struct atag_frame_cache {
	struct tep_handle	*tep;
	struct atag_map		classes;	/* address -> class | (event id + 1) << 32 */
};

struct atag_frame_cache *atag_frame_cache_alloc(struct tep_handle *tep)
{
	struct atag_frame_cache *fc = calloc(1, sizeof(*fc));

	if (fc)
		fc->tep = tep;
	return fc;
}

void atag_frame_cache_free(struct atag_frame_cache *fc)
{
	if (!fc)
		return;
	atag_map_free(&fc->classes);
	free(fc);
}

/* The class of @addr and the event it names (-1: none), from kallsyms. */
static uint64_t classify(struct tep_handle *tep, uint64_t addr)
{
	static const size_t plen = sizeof(RAW_EVENT_PREFIX) - 1;
	struct tep_event *event = NULL;
	unsigned int cls = ATAG_FRAME_KNOWN;
	const char *f;

	f = tep_find_function(tep, addr);
	if (!f)
		return 0;
	if (atag_frame_is_tracing(f))
		cls |= ATAG_FRAME_TRACING;
	if (atag_frame_is_allocator(f))
		cls |= ATAG_FRAME_ALLOCATOR;
	if (!strncmp(f, RAW_EVENT_PREFIX, plen)) {
		cls |= ATAG_FRAME_RAW_EVENT;
		event = tep_find_event_by_name(tep, NULL, f + plen);
	}
	return cls | (uint64_t)(event ? event->id + 1 : 0) << 32;
}

/* The class of @addr and the event it names + 1 (bits 32 and up), from the cache. */
static inline uint64_t class_of(struct atag_frame_cache *fc, uint64_t addr)
{
	uint64_t *v = atag_map_find(&fc->classes, addr), c;

	if (v)
		return *v;
	c = classify(fc->tep, addr);
	/* without memory to keep it, it is looked up again next time */
	atag_map_get(&fc->classes, addr, c, NULL);
	return c;
}

#define CLASS(c)	((unsigned int)(c))
#define EVENT(c)	((int)((c) >> 32) - 1)

unsigned int atag_frame_class(struct atag_frame_cache *fc, uint64_t addr, int *event)
{
	uint64_t c = class_of(fc, addr);

	if (event)
		*event = EVENT(c);
	return CLASS(c);
}

/*
 * The classes of the first frames of a stack, those the skip looks at, into
 * @c[0 .. *@n); returns how many of them are the tracing machinery's.
 */
static unsigned int top_classes(struct atag_frame_cache *fc, const uint64_t *frames,
				unsigned int nr, uint64_t *c, unsigned int *n)
{
	unsigned int i, skip = 0, cls;

	*n = nr < SKIP_SCAN ? nr : SKIP_SCAN;
	for (i = 0; i < *n; i++) {
		c[i] = class_of(fc, frames[i]);
		cls = CLASS(c[i]);
		if (!(cls & ATAG_FRAME_KNOWN))
			continue;
		if (i == skip && (cls & ATAG_FRAME_TRACING))
			skip = i + 1;
		else if (cls & ATAG_FRAME_RAW_EVENT)
			skip = i + 1;
	}
	return skip;
}

unsigned int atag_stack_skip(struct atag_frame_cache *fc, const uint64_t *frames,
			     unsigned int nr)
{
	uint64_t c[SKIP_SCAN];
	unsigned int n;

	return top_classes(fc, frames, nr, c, &n);
}

int atag_stack_event(struct atag_frame_cache *fc, const uint64_t *frames, unsigned int nr)
{
	unsigned int i;
	uint64_t c;

	for (i = 0; i < nr && i < NAME_SCAN; i++) {
		c = class_of(fc, frames[i]);
		if (!(CLASS(c) & ATAG_FRAME_TRACING))
			return -1;
		if (EVENT(c) >= 0)
			return EVENT(c);
	}
	return -1;
}

uint64_t atag_stack_call_site(struct atag_frame_cache *fc, const uint64_t *frames,
			      unsigned int nr)
{
	unsigned int i, cls, n;
	uint64_t c[SKIP_SCAN];

	for (i = top_classes(fc, frames, nr, c, &n); i < nr; i++) {
		cls = CLASS(i < n ? c[i] : class_of(fc, frames[i]));
		if (!(cls & ATAG_FRAME_KNOWN) || !(cls & ATAG_FRAME_ALLOCATOR))
			return frames[i];
	}
	return 0;
}

/* ------------------------------------------------------------ modules */

struct atag_modules {
	struct atag_map	by_addr;	/* symbol address -> index into names */
	char		**names;	/* one copy of each module name */
	size_t		nr_names;
};

static long module_index(struct atag_modules *m, const char *name, size_t n)
{
	char **p;
	size_t i;

	for (i = m->nr_names; i-- > 0;)		/* lines of one module come together */
		if (!strncmp(m->names[i], name, n) && !m->names[i][n])
			return i;
	p = realloc(m->names, (m->nr_names + 1) * sizeof(*p));
	if (!p)
		return -1;
	m->names = p;
	m->names[m->nr_names] = strndup(name, n);
	return m->names[m->nr_names] ? (long)m->nr_names++ : -1;
}

/* The hex number at the start of [@p, @end): the text need not be NUL-terminated. */
static bool parse_hex(const char *p, const char *end, unsigned long long *val)
{
	unsigned long long v = 0;
	const char *start = p;
	int d;

	for (; p < end && p - start < 16; p++) {
		d = *p >= '0' && *p <= '9' ? *p - '0' :
		    (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ? (*p | 0x20) - 'a' + 10 : -1;
		if (d < 0)
			break;
		v = v << 4 | d;
	}
	*val = v;
	return p > start;
}

struct atag_modules *atag_modules_parse(const char *text, size_t len)
{
	const char *line = text, *end = text + len, *nl, *open, *close;
	struct atag_modules *m = calloc(1, sizeof(*m));
	unsigned long long addr;
	long idx;

	for (; m && line < end; line = nl + 1) {
		nl = memchr(line, '\n', end - line);
		if (!nl)
			nl = end;
		open = memchr(line, '[', nl - line);
		if (!open || !parse_hex(line, open, &addr))
			continue;
		close = memchr(open, ']', nl - open);
		if (!close || close == open + 1)
			continue;
		idx = module_index(m, open + 1, close - open - 1);
		if (idx < 0 || !atag_map_get(&m->by_addr, addr, idx, NULL))
			break;
	}
	return m;
}

void atag_modules_free(struct atag_modules *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_names; i++)
		free(m->names[i]);
	free(m->names);
	atag_map_free(&m->by_addr);
	free(m);
}

const char *atag_function_of(struct tep_handle *tep, const struct atag_modules *mods,
			     uint64_t addr, uint64_t *offset, const char **module)
{
	unsigned long long start = 0;
	const char *name = NULL;
	uint64_t *idx;

	if (!tep_find_function_info(tep, addr, &name, &start, NULL) || !name)
		return NULL;
	if (offset)
		*offset = addr - start;
	if (module) {
		idx = mods ? atag_map_find(&mods->by_addr, start) : NULL;
		*module = idx ? mods->names[*idx] : NULL;
	}
	return name;
}

char *atag_symbolize(struct tep_handle *tep, const struct atag_modules *mods, uint64_t addr,
		     char *buf, size_t len)
{
	const char *f, *mod = NULL;
	uint64_t off = 0;

	f = atag_function_of(tep, mods, addr, &off, &mod);
	if (f && mod)
		snprintf(buf, len, "%s+0x%llx [%s]", f, (unsigned long long)off, mod);
	else if (f)
		snprintf(buf, len, "%s+0x%llx", f, (unsigned long long)off);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return buf;
}
