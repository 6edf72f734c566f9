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
	/* the hooks of memory allocation profiling that count (and trace) an allocation */
	"alloc_tag_add*", "__alloc_tagging_slab_alloc_hook", "alloc_tagging_slab_alloc_hook",
	"slab_post_alloc_hook", "__pgalloc_tag_add", "pgalloc_tag_add",
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
	int			alloced;	/* alloc_tag:alloc_tag_mem_alloced, or -1 */
};

struct atag_frame_cache *atag_frame_cache_alloc(struct tep_handle *tep)
{
	struct atag_frame_cache *fc = calloc(1, sizeof(*fc));
	struct tep_event *e;

	if (!fc)
		return NULL;
	fc->tep = tep;
	e = tep ? tep_find_event_by_name(tep, "alloc_tag", "alloc_tag_mem_alloced") : NULL;
	fc->alloced = e ? e->id : -1;
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
	unsigned int n, i, skip = top_classes(fc, frames, nr, c, &n), cls;
	int event = -1;

	for (i = 0; i < skip && i < n && event < 0; i++)
		event = EVENT(c[i]);
	if (event < 0 || event != fc->alloced)
		return skip;
	/* a stack taken with the allocation, not at its hit: from the call site, as a hit's */
	for (i = skip; i < nr; i++) {
		cls = CLASS(i < n ? c[i] : class_of(fc, frames[i]));
		if (!(cls & ATAG_FRAME_KNOWN) || !(cls & ATAG_FRAME_ALLOCATOR))
			break;
	}
	return i;
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

/* ------------------------------------------------------------ kallsyms */

/*
 * One symbol of the kallsyms text. The table is what libtraceevent would build
 * from tep_parse_kallsyms() (same lines kept, same order of symbols sharing an
 * address, same search), so installed as the tep's function resolver it gives
 * the names libtraceevent gives, from one pass over the text and no allocation
 * per symbol.
 */
struct ksym {
	uint64_t	addr;
	const char	*func;
	const char	*mod;		/* NULL: built-in */
	uint32_t	line;
};

struct atag_modules {
	char		*text;		/* a copy of the text, cut into strings in place */
	struct ksym	*syms;		/* sorted; syms[nr] is an end marker of address 0 */
	size_t		nr;
	size_t		malformed;	/* lines of no "ADDR TYPE NAME" shape */
};

static inline bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * One line "ADDR TYPE NAME[\t[MODULE]]" of @line (NUL-terminated, no newline):
 * 1 for a symbol, 0 for a line that names none, -1 for one of another shape.
 * Accepted as libtraceevent's scanf pattern "%16llx %c %s" accepts them; types A
 * and a (absolute) and names starting with '$' (ARM mapping symbols) are left out
 * as it leaves them out.
 */
static int parse_line(char *line, struct ksym *s)
{
	unsigned long long addr = 0;
	char *p = line, *func, *mod;
	int n = 0, digits = 0, d;
	bool neg = false;
	char type;

	while (is_space(*p))
		p++;
	if (*p == '+' || *p == '-') {
		neg = *p == '-';
		p++;
		n++;
	}
	if (p[0] == '0' && (p[1] | 0x20) == 'x' && hex_digit(p[2]) >= 0 && n + 2 < 16) {
		p += 2;
		n += 2;
	}
	for (; n < 16 && (d = hex_digit(*p)) >= 0; p++, n++, digits++)
		addr = addr << 4 | d;
	if (!digits)
		return *p ? -1 : 0;	/* an empty line names nothing */
	while (is_space(*p))
		p++;
	type = *p;
	if (!type)
		return -1;
	p++;
	while (is_space(*p))
		p++;
	func = p;
	while (*p && !is_space(*p))
		p++;
	if (p == func)
		return -1;
	mod = NULL;
	if (p[0] == '\t' && p[1] == '[') {
		char *m = p + 2, *e;

		for (e = m; *e && !is_space(*e); e++)
			;
		/* "[name]": the name without its brackets; "[]" names none */
		if (e - m > 1 && e[-1] == ']') {
			e[-1] = '\0';
			mod = m;
		}
	}
	*p = '\0';
	if (func[0] == '$' || type == 'A' || type == 'a')
		return 0;
	s->addr = neg ? -addr : addr;
	s->func = func;
	s->mod = mod;
	return 1;
}

/* libtraceevent sorts a list built last line first: of equal addresses, the later line first */
static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->line < y->line ? 1 : x->line > y->line ? -1 : 0;
}

/*
 * The symbol containing @addr, as libtraceevent's search finds it: an exact
 * match, or the symbol whose address is below and whose successor's is above;
 * the last symbol contains nothing past its own address.
 */
static const struct ksym *ksym_find(const struct atag_modules *m, uint64_t addr)
{
	size_t l = 0, u = m->nr, i;
	const struct ksym *s;

	while (l < u) {
		i = (l + u) / 2;
		s = &m->syms[i];
		if (addr == s->addr || (addr > s->addr && addr < s[1].addr))
			return s;
		if (addr < s->addr)
			u = i;
		else
			l = i + 1;
	}
	return NULL;
}

struct atag_modules *atag_modules_parse(const char *text, size_t len)
{
	struct atag_modules *m = calloc(1, sizeof(*m));
	size_t cap = 0, nr_lines = 0;
	char *line, *nl, *end;
	struct ksym *p;

	if (!m)
		return NULL;
	/* the text ends at its first NUL, as libtraceevent reads it */
	len = strnlen(text, len);
	m->text = malloc(len + 1);
	if (!m->text)
		goto fail;
	memcpy(m->text, text, len);
	m->text[len] = '\0';
	end = m->text + len;
	for (line = m->text; line < end; line = nl + 1, nr_lines++) {
		nl = memchr(line, '\n', end - line);
		if (!nl)
			nl = end;
		*nl = '\0';
		if (m->nr + 1 >= cap) {
			cap = cap ? cap * 2 : 1024;
			p = realloc(m->syms, cap * sizeof(*p));
			if (!p)
				goto fail;
			m->syms = p;
		}
		switch (parse_line(line, &m->syms[m->nr])) {
		case 1:
			m->syms[m->nr].line = nr_lines;
			m->nr++;
			break;
		case -1:
			m->malformed++;
			break;
		}
	}
	if (!m->syms) {
		m->syms = calloc(1, sizeof(*m->syms));
		if (!m->syms)
			goto fail;
	}
	qsort(m->syms, m->nr, sizeof(*m->syms), ksym_cmp);
	memset(&m->syms[m->nr], 0, sizeof(m->syms[m->nr]));
	return m;
fail:
	atag_modules_free(m);
	return NULL;
}

void atag_modules_free(struct atag_modules *m)
{
	if (!m)
		return;
	free(m->syms);
	free(m->text);
	free(m);
}

size_t atag_modules_count(const struct atag_modules *m)
{
	return m ? m->nr : 0;
}

size_t atag_modules_malformed(const struct atag_modules *m)
{
	return m ? m->malformed : 0;
}

static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
	const struct ksym *s = ksym_find(priv, *addrp);

	if (!s)
		return NULL;
	*addrp = s->addr;
	*modp = (char *)s->mod;
	return (char *)s->func;
}

int atag_modules_attach(struct atag_modules *m, struct tep_handle *tep)
{
	return tep_set_function_resolver(tep, resolve, m);
}

const char *atag_function_of(struct tep_handle *tep, const struct atag_modules *mods,
			     uint64_t addr, uint64_t *offset, const char **module)
{
	unsigned long long start = 0;
	const struct ksym *s;
	const char *name = NULL;

	if (!tep_find_function_info(tep, addr, &name, &start, NULL) || !name)
		return NULL;
	if (offset)
		*offset = addr - start;
	if (module) {
		s = mods ? ksym_find(mods, start) : NULL;
		*module = s && s->addr == start ? s->mod : NULL;
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
