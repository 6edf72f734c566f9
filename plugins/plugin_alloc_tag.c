// SPDX-License-Identifier: LGPL-2.1
/*
 * plugin_alloc_tag: print the events of memory allocation profiling tracing
 * (alloc_tag:alloc_tag_hit, alloc_tag_mem_alloced, alloc_tag_mem_freed).
 *
 *   alloc_tag_hit:          kmalloc_trace mm/slub.c:4100 tag=0xffffffff82a0b1c0
 *   alloc_tag_mem_alloced:  ptr=0xffff888004a1c000 bytes=4096 (4.00 KiB)
 *                           kmalloc_trace mm/slub.c:4100   (on one line)
 *
 * The call site of an alloced/freed event is what the latest alloc_tag_hit of the
 * same tag said, earlier in the same trace; without one the tag pointer is shown.
 * Fields are looked up by name: the per-object key is 'ptr' in the series and
 * 'ref' in its first posting, and uprobe stand-ins add fields of their own.
 *
 * Nothing a record says is trusted: every field, every __data_loc/__rel_loc
 * offset and length, and the string it points at must lie within the record,
 * and the record within its ring-buffer page. libtraceevent's kbuffer hands out
 * a record whose length field runs past its page as it is, and no size the file
 * gives is what trace-cmd holds of the page: its header page (the sub-buffer
 * size, tep_get_sub_buffer_size()) is not what libtracecmd sizes its buffers by,
 * and the page size libtracecmd uses is not at hand here. So a record must lie
 * within the 4 KiB block it starts in (its offset modulo 4096: every kernel's
 * ring-buffer pages are 4 KiB or a larger power of two, so such a block never
 * straddles two), or within a smaller page the header page claims. A record that
 * breaks a rule prints "[bad record]". Traces of machines with larger pages (64
 * KiB on arm64 or ppc64) name their page size with -O alloc_tag:page=65536.
 *
 * Options: -O alloc_tag:resolve=0 shows tag pointers only; -O alloc_tag:human=0
 * drops the human-readable sizes; -O alloc_tag:page=SIZE trusts pages of SIZE bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-parse.h"
#include "trace-seq.h"

#define SITES_MAX	(1 << 20)
#define PAGE_MIN	4096		/* the smallest ring-buffer page of any kernel */
#define PAGE_MAX	(1 << 20)	/* the largest -O alloc_tag:page taken */

int TEP_PLUGIN_LOADER(struct tep_handle *tep);
void TEP_PLUGIN_UNLOADER(struct tep_handle *tep);

static struct tep_plugin_option plugin_options[] = {
	{
		.name = "resolve",
		.plugin_alias = "alloc_tag",
		.description = "show the call site of alloced/freed events, learned from alloc_tag_hit",
		.set = 1,
	},
	{
		.name = "human",
		.plugin_alias = "alloc_tag",
		.description = "print a human-readable size beside byte counts of 1 KiB or more",
		.set = 1,
	},
	{
		.name = "page",
		.plugin_alias = "alloc_tag",
		.description = "the size of the ring-buffer pages, when larger than 4096 bytes",
		.value = "4096",
		.set = 1,
	},
	{
		.name = NULL,
	}
};

static struct tep_plugin_option *opt_resolve = &plugin_options[0];
static struct tep_plugin_option *opt_human = &plugin_options[1];
static struct tep_plugin_option *opt_page = &plugin_options[2];

/* tag -> "function file:line [module]", per tep handle (one per trace file) */
struct site {
	struct tep_handle	*tep;
	unsigned long long	tag;
	char			*text;
};

static struct site *sites;
static unsigned int sites_cap;
static unsigned int sites_nr;

static unsigned int site_slot(struct tep_handle *tep, unsigned long long tag)
{
	unsigned long long h = (tag ^ (unsigned long)tep) * 0x9E3779B97F4A7C15ULL;
	unsigned int i = h >> 40;

	for (i &= sites_cap - 1; sites[i].text; i = (i + 1) & (sites_cap - 1))
		if (sites[i].tag == tag && sites[i].tep == tep)
			break;
	return i;
}

static const char *site_find(struct tep_handle *tep, unsigned long long tag)
{
	return sites_nr ? sites[site_slot(tep, tag)].text : NULL;
}

static int sites_grow(void)
{
	struct site *old = sites;
	unsigned int old_cap = sites_cap, i, j;

	sites_cap = sites_cap ? sites_cap * 2 : 256;
	sites = calloc(sites_cap, sizeof(*sites));
	if (!sites) {
		sites = old;
		sites_cap = old_cap;
		return -1;
	}
	for (i = 0; i < old_cap; i++) {
		if (!old[i].text)
			continue;
		j = site_slot(old[i].tep, old[i].tag);
		sites[j] = old[i];
	}
	free(old);
	return 0;
}

static void site_store(struct tep_handle *tep, unsigned long long tag, const char *text)
{
	unsigned int i;

	if (sites_nr >= SITES_MAX)
		return;
	if ((sites_nr + 1) * 4 > sites_cap * 3 && sites_grow())
		return;
	i = site_slot(tep, tag);
	if (sites[i].text) {
		if (!strcmp(sites[i].text, text))
			return;
		free(sites[i].text);
		sites_nr--;
	}
	sites[i].text = strdup(text);
	if (!sites[i].text)
		return;
	sites[i].tep = tep;
	sites[i].tag = tag;
	sites_nr++;
}

/* Forget what @tep's trace said; free the table once it is empty. */
static void sites_drop(struct tep_handle *tep)
{
	struct site *old = sites;
	unsigned int old_cap = sites_cap, i;

	sites = NULL;
	sites_cap = 0;
	sites_nr = 0;
	for (i = 0; i < old_cap; i++) {
		if (old[i].text && old[i].tep != tep)
			site_store(old[i].tep, old[i].tag, old[i].text);
		free(old[i].text);
	}
	free(old);
}

/* ------------------------------------------------------------ bounded field reads */

/* The largest power of two no larger than @n (@n > 0). */
static long long pow2_floor(long long n)
{
	long long p = 1;

	while (p <= n / 2)
		p *= 2;
	return p;
}

/*
 * The page a record is bounded by: 4 KiB, or the size -O alloc_tag:page gives (a
 * power of two up to 1 MiB), or less where the header page claims less.
 */
static long long page_bound(struct tep_handle *tep)
{
	long long page = PAGE_MIN, given, sub = tep_get_sub_buffer_size(tep);
	char *end;

	if (opt_page->value) {
		given = strtoll(opt_page->value, &end, 0);
		if (!*end && given >= PAGE_MIN && given <= PAGE_MAX && !(given & (given - 1)))
			page = given;
	}
	if (sub > 0 && pow2_floor(sub) < page)
		page = pow2_floor(sub);
	return page;
}

/*
 * Whether @record lies within its ring-buffer page: its data within the whole
 * record (header included), the record within the block of page_bound() bytes it
 * starts in. Records built by hand (no record size) are judged by their size
 * alone.
 */
static int record_in_page(struct tep_record *record, struct tep_event *event)
{
	long long page, start;

	if (record->size < 0 || !record->data)
		return 0;
	if (record->record_size && record->record_size < record->size)
		return 0;
	if (!record->record_size)
		return 1;
	page = page_bound(event->tep);
	start = record->offset & (page - 1);
	return record->record_size <= page && start + record->record_size <= page;
}

/* The field @name of @event, if it lies within the record. */
static struct tep_format_field *field_in(struct tep_record *record, struct tep_event *event,
					 const char *name)
{
	struct tep_format_field *field = tep_find_field(event, name);

	if (!field || field->offset < 0 || field->size <= 0 ||
	    (long long)field->offset + field->size > record->size)
		return NULL;
	return field;
}

static int read_num(struct tep_record *record, struct tep_event *event, const char *name,
		    unsigned long long *val)
{
	struct tep_format_field *field = field_in(record, event, name);

	if (!field || field->size > 8)
		return -1;
	return tep_read_number_field(field, record->data, val);
}

/* A __data_loc/__rel_loc string: inside the record and NUL-terminated, or NULL. */
static const char *read_str(struct tep_record *record, struct tep_event *event,
			    const char *name)
{
	struct tep_format_field *field = field_in(record, event, name);
	unsigned long long loc, off, len;
	const char *str;

	if (!field || !(field->flags & TEP_FIELD_IS_DYNAMIC) || field->size != 4 ||
	    tep_read_number_field(field, record->data, &loc))
		return NULL;
	off = loc & 0xffff;
	len = loc >> 16;
	if (field->flags & TEP_FIELD_IS_RELATIVE)
		off += field->offset + 4;
	if (!len || off + len > (unsigned long long)record->size)
		return NULL;
	str = (const char *)record->data + off;
	if (memchr(str, '\0', len) == NULL)
		return NULL;
	return str;
}

static void print_bytes(struct trace_seq *s, unsigned long long bytes)
{
	static const char units[] = "KMGTPE";
	double v = bytes;
	int u = -1;

	trace_seq_printf(s, "bytes=%llu", bytes);
	if (!opt_human->set || bytes < 1024)
		return;
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	trace_seq_printf(s, v < 10 ? " (%.2f %ciB)" : v < 100 ? " (%.1f %ciB)" : " (%.0f %ciB)",
			 v, units[u]);
}

/* ------------------------------------------------------------ handlers */

static int hit_handler(struct trace_seq *s, struct tep_record *record,
		       struct tep_event *event, void *context)
{
	const char *mod, *file, *func;
	unsigned long long tag, line;
	struct trace_seq site;
	int builtin;

	if (!record_in_page(record, event)) {
		trace_seq_puts(s, "[bad record]");
		return 0;
	}
	mod = read_str(record, event, "modname");
	file = read_str(record, event, "filename");
	func = read_str(record, event, "function");
	if (read_num(record, event, "tag", &tag) || read_num(record, event, "lineno", &line) ||
	    !mod || !file || !func) {
		trace_seq_puts(s, "[bad record]");
		return 0;
	}

	builtin = !*mod || !strcmp(mod, "NONE");
	trace_seq_init(&site);
	trace_seq_printf(&site, "%s %s:%llu", func, file, line);
	if (!builtin)
		trace_seq_printf(&site, " [%s]", mod);
	trace_seq_terminate(&site);
	if (site.state == TRACE_SEQ__GOOD)
		site_store(event->tep, tag, site.buffer);
	trace_seq_printf(s, "%s tag=0x%llx", site.buffer, tag);
	trace_seq_destroy(&site);
	return 0;
}

static int mem_handler(struct trace_seq *s, struct tep_record *record,
		       struct tep_event *event, void *context)
{
	unsigned long long key, tag, bytes;
	const char *key_name = "ptr";
	const char *site = NULL;

	if (!tep_find_field(event, key_name))
		key_name = "ref";
	if (!record_in_page(record, event) ||
	    read_num(record, event, key_name, &key) || read_num(record, event, "tag", &tag) ||
	    read_num(record, event, "bytes", &bytes)) {
		trace_seq_puts(s, "[bad record]");
		return 0;
	}

	trace_seq_printf(s, "%s=0x%llx ", key_name, key);
	print_bytes(s, bytes);
	if (opt_resolve->set)
		site = site_find(event->tep, tag);
	if (site)
		trace_seq_printf(s, " %s", site);
	else
		trace_seq_printf(s, " tag=0x%llx", tag);
	return 0;
}

static const struct {
	const char		*name;
	tep_event_handler_func	handler;
} handlers[] = {
	{ "alloc_tag_hit", hit_handler },
	{ "alloc_tag_mem_alloced", mem_handler },
	{ "alloc_tag_mem_freed", mem_handler },
};

#define NR_HANDLERS	(sizeof(handlers) / sizeof(handlers[0]))

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	size_t i;

	for (i = 0; i < NR_HANDLERS; i++)
		tep_register_event_handler(tep, -1, "alloc_tag", handlers[i].name,
					   handlers[i].handler, NULL);
	tep_plugin_add_options("alloc_tag", plugin_options);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	size_t i;

	for (i = 0; i < NR_HANDLERS; i++)
		tep_unregister_event_handler(tep, -1, "alloc_tag", handlers[i].name,
					     handlers[i].handler, NULL);
	tep_plugin_remove_options(plugin_options);
	sites_drop(tep);
}
