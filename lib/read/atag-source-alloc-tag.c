// SPDX-License-Identifier: LGPL-2.1
/*
 * Source adapter for the alloc_tag events of memory allocation profiling tracing:
 *
 *   alloc_tag_hit          tag, modname, filename, function, lineno
 *   alloc_tag_mem_alloced  ptr (or ref), tag, bytes
 *   alloc_tag_mem_freed    ptr (or ref), tag, bytes
 *
 * The hit precedes the allocation in the same task; its stack (a stacktrace
 * trigger on alloc_tag_hit, or -T) is the allocation's stack.
 */
#include "atag-source.h"

enum { F_TAG, F_MODNAME, F_FILENAME, F_FUNCTION, F_LINENO };
enum { F_KEY, F_MTAG, F_BYTES };

/* The strings of a hit: the decoder asks the first time it meets the tag. */
static int hit_site(const struct atag_field *f, const struct tep_record *rec,
		    const char **function, const char **file, const char **module)
{
	*function = atag_field_string(&f[F_FUNCTION], rec);
	*file = atag_field_string(&f[F_FILENAME], rec);
	*module = atag_field_string(&f[F_MODNAME], rec);
	/* a call site is all three strings, or none */
	return *function && *file && *module ? 0 : -1;
}

static int decode_hit(struct atag_decoder *d, const struct atag_field *f,
		      const struct tep_record *rec, struct atag_event *ev)
{
	uint64_t line;

	if (atag_field_read(d, &f[F_TAG], rec, &ev->tag) ||
	    atag_field_read(d, &f[F_LINENO], rec, &line))
		return -1;
	ev->kind = ATAG_EV_HIT;
	ev->line = line;
	return 0;
}

static int decode_mem(struct atag_decoder *d, const struct atag_field *f,
		      const struct tep_record *rec, struct atag_event *ev)
{
	if (atag_field_read(d, &f[F_KEY], rec, &ev->ptr) ||
	    atag_field_read(d, &f[F_MTAG], rec, &ev->tag) ||
	    atag_field_read(d, &f[F_BYTES], rec, &ev->bytes))
		return -1;
	return 0;
}

static int decode_alloced(struct atag_decoder *d, const struct atag_field *f,
			  const struct tep_record *rec, struct atag_event *ev)
{
	ev->kind = ATAG_EV_ALLOC;
	return decode_mem(d, f, rec, ev);
}

static int decode_freed(struct atag_decoder *d, const struct atag_field *f,
			const struct tep_record *rec, struct atag_event *ev)
{
	ev->kind = ATAG_EV_FREE;
	return decode_mem(d, f, rec, ev);
}

static const struct atag_source_event events[] = {
	{ "alloc_tag", "alloc_tag_hit",
	  { "tag", "modname", "filename", "function", "lineno" }, decode_hit },
	{ "alloc_tag", "alloc_tag_mem_alloced", { "ptr|ref", "tag", "bytes" }, decode_alloced },
	{ "alloc_tag", "alloc_tag_mem_freed", { "ptr|ref", "tag", "bytes" }, decode_freed },
	{ NULL }
};

const struct atag_source atag_source_alloc_tag = {
	.name = "alloc_tag",
	.description = "alloc_tag:alloc_tag_hit, alloc_tag_mem_alloced, alloc_tag_mem_freed",
	.events = events,
	.hit_site = hit_site,
};
