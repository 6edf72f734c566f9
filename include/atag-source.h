/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-source.h - source adapters: trace records in, struct atag_event out.
 *
 * A source names the trace events it reads and decodes their records into the
 * stitcher's events (include/atag-stitch.h). Three exist, one file each:
 *
 *   alloc_tag  alloc_tag:alloc_tag_hit, alloc_tag_mem_alloced, alloc_tag_mem_freed
 *              (lib/read/atag-source-alloc-tag.c). Tag = the tag pointer; its call
 *              site comes from the hit events; key = 'ptr' (or 'ref').
 *   kmem       kmem:kmalloc, kmalloc_node, kmem_cache_alloc(_node), kfree,
 *              kmem_cache_free (lib/read/atag-source-kmem.c). Tag = call_site, named by
 *              the kallsyms of the trace; bytes = bytes_alloc; stacks from -T
 *              follow the allocation itself. kfree(NULL) is ignored.
 *   page       kmem:mm_page_alloc, mm_page_free (lib/read/atag-source-page.c). Key = pfn,
 *              bytes = page size << order; the call site is the first stack frame
 *              outside the page allocator.
 *
 * Every source also hands ftrace:kernel_stack records and all other records to
 * the stitcher, which needs them to attribute stacks. Fields are found by name
 * once per trace; records are read with bounds checks, and a record too short
 * for its fields is counted as malformed and skipped.
 *
 * Adding a source: one file defining a struct atag_source, and its line in the
 * table of lib/read/atag-source.c.
 */
#ifndef _ATAG_SOURCE_H
#define _ATAG_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include <event-parse.h>

#include "atag-stitch.h"

struct atag_modules;

#define ATAG_SOURCE_MAX_FIELDS	6

/* A field of an event, found by name: size 0 when the format lacks it. */
struct atag_field {
	int		offset;
	int		size;
	bool		dynamic;	/* __data_loc / __rel_loc */
	bool		relative;	/* __rel_loc */
	bool		native64;	/* 8 bytes in the host's byte order */
};

struct atag_decoder;

/* One event a source reads. */
struct atag_source_event {
	const char	*system;
	const char	*name;
	/* field names, "ptr|ref" for alternatives; a NULL ends the list */
	const char	*fields[ATAG_SOURCE_MAX_FIELDS + 1];
	/*
	 * Fill @ev (kind, tag, ptr, bytes, ...; the common part is set) from @rec,
	 * whose fields are @f in the order above. Return 0 to stitch it, 1 to skip it
	 * (e.g. kfree(NULL)), -1 if the record is malformed.
	 */
	int		(*decode)(struct atag_decoder *d, const struct atag_field *f,
				  const struct tep_record *rec, struct atag_event *ev);
};

struct atag_source {
	const char			*name;
	const char			*description;
	const struct atag_source_event	*events;	/* ends with .name == NULL */
	/* optional: the tag of an allocation that carries none, from its stack */
	uint64_t			(*tag_from_stack)(struct atag_decoder *d,
							  const uint64_t *frames, unsigned int nr);
	/* optional: name a tag that no hit event described (kallsyms, ...) */
	void				(*name_tag)(struct atag_decoder *d, uint64_t tag,
						    const char **function, uint64_t *offset,
						    const char **module);
};

/* The known sources, NULL-terminated. */
extern const struct atag_source *const atag_sources[];

/* The source called @name, or NULL. */
const struct atag_source *atag_source_find(const char *name);

/* How many of @src's events the trace parsed into @tep has (0: none). */
int atag_source_nr_present(const struct atag_source *src, struct tep_handle *tep);

/*
 * The source to use for @tep: the first of alloc_tag, kmem, page whose events
 * are present; NULL if none.
 */
const struct atag_source *atag_source_detect(struct tep_handle *tep);

/* ------------------------------------------------------------ decoding */

/*
 * A decoder for @src on the trace of @tep, feeding @st. Its counters say how many
 * records of each event it read. NULL with errno ENOENT if @tep has none of the
 * source's events.
 */
struct atag_decoder *atag_decoder_alloc(const struct atag_source *src, struct tep_handle *tep);
void atag_decoder_free(struct atag_decoder *d);

/* Decode @rec and hand it to @sink. Returns 0, or what the sink returned. */
int atag_decoder_feed(struct atag_decoder *d, const struct atag_sink *sink,
		      const struct tep_record *rec);

struct tep_handle *atag_decoder_tep(const struct atag_decoder *d);

/* Per event of the source (index into src->events) and for kernel_stack: records read. */
uint64_t atag_decoder_count(const struct atag_decoder *d, int event_index);
uint64_t atag_decoder_stack_count(const struct atag_decoder *d);
/* Records the source could not decode (too short for their fields). */
uint64_t atag_decoder_malformed(const struct atag_decoder *d);
/* Whether the trace has the event at @event_index of the source. */
bool atag_decoder_has_event(const struct atag_decoder *d, int event_index);

/*
 * Name a tag no hit event described, as the source can (kmem, page: the symbol of
 * the call site). Returns false when it cannot.
 */
bool atag_decoder_name_tag(struct atag_decoder *d, uint64_t tag, const char **function,
			   uint64_t *offset, const char **module);

/* Stitch options bound to this decoder (tag_from_stack of the source). */
void atag_decoder_stitch_opts(struct atag_decoder *d, struct atag_stitch_opts *opts);

/* ------------------------------------------------------------ for source files */

int atag_field_read_slow(const struct atag_decoder *d, const struct atag_field *f,
			 const struct tep_record *rec, uint64_t *val);

/* Read a number field; -1 if it lies outside the record or is absent. */
static inline int atag_field_read(const struct atag_decoder *d, const struct atag_field *f,
				  const struct tep_record *rec, uint64_t *val)
{
	if (f->native64 && f->offset + 8 <= rec->size) {
		__builtin_memcpy(val, (const char *)rec->data + f->offset, 8);
		return 0;
	}
	return atag_field_read_slow(d, f, rec, val);
}

/* A NUL-terminated string field inside the record, or NULL. */
const char *atag_field_string(const struct atag_field *f, const struct tep_record *rec);

/* The page size of the traced machine. */
unsigned int atag_decoder_page_size(const struct atag_decoder *d);

/* Tell the decoder which module each symbol is in (name_tag uses it); may be NULL. */
void atag_decoder_set_modules(struct atag_decoder *d, const struct atag_modules *mods);

/* A name_tag for sources whose tags are code addresses: the symbol, offset, module. */
void atag_source_name_code(struct atag_decoder *d, uint64_t tag, const char **function,
			   uint64_t *offset, const char **module);

#endif /* _ATAG_SOURCE_H */
