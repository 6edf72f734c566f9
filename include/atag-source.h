/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-source.h - source adapters: trace records in, struct atag_event out.
 *
 * A source names the trace events it reads and decodes their records into the
 * events of include/atag-event.h. Three exist, one file each, and the registry
 * (lib/read/atag-sources.c) is the one list of them, in the order detection tries
 * them:
 *
 *   alloc_tag  alloc_tag:alloc_tag_hit, alloc_tag_mem_alloced, alloc_tag_mem_freed
 *              (lib/read/atag-source-alloc-tag.c). Tag = the tag pointer; its call
 *              site comes from the hit events; key = 'ptr' (or 'ref').
 *   kmem       kmem:kmalloc, kmalloc_node, kmem_cache_alloc(_node), kfree,
 *              kmem_cache_free (lib/read/atag-source-kmem.c). Tag = call_site, named by
 *              the kallsyms of the trace; bytes = bytes_alloc; stacks from -T
 *              follow the allocation itself. kfree(NULL) is ignored.
 *   page       kmem:mm_page_alloc, mm_page_free, mm_page_free_batched
 *              (lib/read/atag-source-page.c). Key = pfn, bytes = page size << order;
 *              the call site is the first stack frame outside the page allocator.
 *
 * The decoder (lib/read/atag-decoder.c) is what every source shares: it finds the
 * fields by name once per trace, dispatches records by event id, reads fields
 * with bounds checks (a record too short for its fields is counted as malformed
 * and skipped), and decodes ftrace:kernel_stack records itself. Every record
 * becomes a message for the sink: the source's events, kernel stacks, and all
 * other records as ATAG_EV_OTHER (the stitcher needs them to attribute stacks).
 * What a message needs from the trace is resolved here, once: the call-site
 * strings of a hit the first time its tag is met, the event a stack names and,
 * for sources with stack_site, the call site a stack gives, and whether the
 * task of an allocation or free passes the task filter.
 *
 * One decoder may read several sources of one trace (slab and page events of a
 * recording): each event names its source's index (struct atag_event.src).
 * Besides the sources' events it reads two kinds of records itself, when told
 * where to put them (atag_decoder_set_scope()): the recording's marker lines
 * (ftrace:print, lib/read/atag-recording.h), which also open and close the
 * counters window (ATAG_EV_WINDOW), and the task events sched_process_fork,
 * exec and exit, which keep the task scope up to date.
 *
 * A decoder, like the tep it reads, belongs to one thread.
 *
 * Adding a source: one file defining a struct atag_source, and its line in the
 * list of lib/read/atag-sources.c.
 */
#ifndef _ATAG_SOURCE_H
#define _ATAG_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event-parse.h>

#include "atag-event.h"

struct atag_modules;
struct atag_frame_cache;
struct atag_recording;
struct atag_scope;

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
	/*
	 * Whether one allocation may emit two events for one pointer: an inner one,
	 * then, on the same CPU and task with no other event of that task between,
	 * its caller's (kvmalloc's own kmalloc event, then the caller's: the kmem
	 * events of 6.18). The stitcher then counts the pair once. Not for alloc_tag
	 * (a tag reference is set once an object: inferred from the series) nor for
	 * pages: there an allocation at a live pointer is a missed free.
	 */
	bool				nests;
	/*
	 * Optional: the call-site strings of a HIT record @rec, whose fields are @f
	 * (pointers into the record). The decoder asks the first time it meets a
	 * tag, until it gets them; returns -1 if the record lacks them.
	 */
	int				(*hit_site)(const struct atag_field *f,
						    const struct tep_record *rec,
						    const char **function, const char **file,
						    const char **module);
	/*
	 * Optional: for events that carry no call site, the call site a kernel stack
	 * gives (0: none). Computed for every stack record, on the reader's side;
	 * it travels with the stack (struct atag_kstack.site).
	 */
	uint64_t			(*stack_site)(struct atag_decoder *d,
						      const uint64_t *frames, unsigned int nr);
	/* optional: name a tag that no hit event described (kallsyms, ...) */
	void				(*name_tag)(struct atag_decoder *d, uint64_t tag,
						    const char **function, uint64_t *offset,
						    const char **module);
};

/* ------------------------------------------------------------ the registry */

/* The sources, one file each, listed once in lib/read/atag-sources.c. */
extern const struct atag_source atag_source_alloc_tag;
extern const struct atag_source atag_source_kmem;
extern const struct atag_source atag_source_page;

/* The known sources in the order detection tries them, NULL-terminated. */
extern const struct atag_source *const atag_sources[];

/* The source called @name, or NULL. */
const struct atag_source *atag_source_find(const char *name);

/* The names of the sources joined with ", " ("alloc_tag, kmem, page") into @buf. */
char *atag_source_names(char *buf, size_t len);

/* How many of @src's events the trace parsed into @tep has (0: none). */
int atag_source_nr_present(const struct atag_source *src, struct tep_handle *tep);

/* The first source of the list whose events @tep has; NULL if none. */
const struct atag_source *atag_source_detect(struct tep_handle *tep);

/* ------------------------------------------------------------ decoding */

/* At most this many sources per decoder. */
#define ATAG_DECODER_MAX_SOURCES	8

/*
 * The most bytes one allocation or free may claim: 4 PiB, the most memory a Linux
 * machine can address (52 bits of physical address: x86-64 with 5-level paging, arm64
 * with LPA). An event that claims more is implausible: counted, not stitched.
 */
#define ATAG_EVENT_BYTES_MAX	(1ULL << 52)
/*
 * The most the bytes of the events of a report may add up to (2^62): below it, every
 * byte count (a sum over some of them) is exact, and fits a signed 64-bit change.
 */
#define ATAG_BYTES_SUM_MAX	(1ULL << 62)

/*
 * A decoder for @src on the trace of @tep. Its counters say how many records of
 * each event it read. NULL with errno ENOENT if @tep has none of the source's
 * events.
 */
struct atag_decoder *atag_decoder_alloc(const struct atag_source *src, struct tep_handle *tep);
/*
 * A decoder for the @nr sources @srcs (source i is index i of the events); an
 * event two of them read goes to the first. NULL with errno ENOENT if @tep has
 * none of their events, E2BIG past ATAG_DECODER_MAX_SOURCES.
 */
struct atag_decoder *atag_decoder_alloc_sources(const struct atag_source *const *srcs,
						unsigned int nr, struct tep_handle *tep);
void atag_decoder_free(struct atag_decoder *d);

/* Its sources: 0 .. nr - 1. */
unsigned int atag_decoder_nr_sources(const struct atag_decoder *d);
const struct atag_source *atag_decoder_source(const struct atag_decoder *d, unsigned int src);

/* Decode @rec and hand it to @sink. Returns 0, or what the sink returned. */
int atag_decoder_feed(struct atag_decoder *d, const struct atag_sink *sink,
		      const struct tep_record *rec);

/*
 * A look-ahead of atag_trace_set_ahead() (@data the decoder): a record of
 * ftrace:kernel_stack named a page ahead has the slot of its frames in the
 * table of distinct stacks prefetched, and once its page is entered their
 * entry, so that atag_decoder_feed() finds them in the caches. Pays only with
 * a table past the caches: returns false (nothing to name) below that.
 */
bool atag_decoder_ahead(struct atag_decoder *d, int cpu, const void *rec, uint32_t size);

/* The tep it decodes with. */
struct tep_handle *atag_decoder_tep(const struct atag_decoder *d);

/* The classes of the frames the decoder met (lib/read/atag-symbols.h), to reuse. */
struct atag_frame_cache *atag_decoder_frames(const struct atag_decoder *d);

/*
 * Per event of source @src (index into its events) and for kernel_stack: records
 * read. atag_decoder_count() is source 0's.
 */
uint64_t atag_decoder_source_count(const struct atag_decoder *d, unsigned int src,
				   int event_index);
uint64_t atag_decoder_count(const struct atag_decoder *d, int event_index);
uint64_t atag_decoder_stack_count(const struct atag_decoder *d);
/* Marker lines read (lib/read/atag-recording.h; with atag_decoder_set_scope() only). */
uint64_t atag_decoder_markers(const struct atag_decoder *d);
/*
 * Records the source could not decode (too short for their fields), and records
 * of an event id the trace defines no event for (damaged data; not stitched).
 */
uint64_t atag_decoder_malformed(const struct atag_decoder *d);
/* Allocation and free records that claim more than ATAG_EVENT_BYTES_MAX (not stitched). */
uint64_t atag_decoder_implausible(const struct atag_decoder *d);
/* The bytes the stitched allocations and frees claim, added up (past 2^64: UINT64_MAX). */
uint64_t atag_decoder_bytes(const struct atag_decoder *d);
/* Whether the trace has the event at @event_index of source @src (of source 0). */
bool atag_decoder_source_has_event(const struct atag_decoder *d, unsigned int src,
				   int event_index);
bool atag_decoder_has_event(const struct atag_decoder *d, int event_index);
/* Whether the trace has ftrace:kernel_stack. */
bool atag_decoder_has_stacks(const struct atag_decoder *d);

/*
 * Name a tag no hit event described, as source @src can (kmem, page: the symbol
 * of the call site); atag_decoder_name_tag() asks source 0. Returns false when it
 * cannot.
 */
bool atag_decoder_name_source_tag(struct atag_decoder *d, unsigned int src, uint64_t tag,
				  const char **function, uint64_t *offset, const char **module);
bool atag_decoder_name_tag(struct atag_decoder *d, uint64_t tag, const char **function,
			   uint64_t *offset, const char **module);

/* Tell the decoder which module each symbol is in (name_tag uses it); may be NULL. */
void atag_decoder_set_modules(struct atag_decoder *d, const struct atag_modules *mods);

/*
 * The names of the GFP flags (atag_trace_gfp_names()) a source's name_tag may print
 * by; NULL: none (the default).
 */
struct atag_flag_names;
void atag_decoder_set_gfp_names(struct atag_decoder *d, const struct atag_flag_names *names);
const struct atag_flag_names *atag_decoder_gfp_names(const struct atag_decoder *d);

/*
 * The task filter: ALLOC and FREE events of tasks @selected rejects are marked
 * filtered (struct atag_event). It is asked once per pid, on the decoder's
 * thread; NULL: no filter.
 */
void atag_decoder_set_task_filter(struct atag_decoder *d, bool (*selected)(void *ctx, int pid),
				  void *ctx);

/*
 * Stacks of event "system:event" were sampled (a recording's "stack-sample" line):
 * its ALLOC and HIT events may be followed by one, or not (struct
 * atag_event.stack_maybe). Returns the index of its source, or -1 when the trace has
 * no such event of a source.
 */
int atag_decoder_stacks_sampled(struct atag_decoder *d, const char *event);

/*
 * Read the recording's marker lines into @rec and keep @scope up to date with
 * them and the task events; then @scope classifies the task of every ALLOC and
 * FREE (struct atag_event.task) and is the task filter (over a filter of
 * atag_decoder_set_task_filter()). Either may be NULL.
 */
void atag_decoder_set_scope(struct atag_decoder *d, struct atag_scope *scope,
			    struct atag_recording *rec);

/* ------------------------------------------------------------ for source files */

/* atag_field_read() for fields that are not 8 native bytes (any size, byte order). */
int atag_field_read_slow(const struct atag_decoder *d, const struct atag_field *f,
			 const struct tep_record *rec, uint64_t *val);

/* Read a number field into *@val; -1 if it lies outside the record or is absent. */
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

/* A name_tag for sources whose tags are code addresses: the symbol, offset, module. */
/*
 * A buffer of ATAG_DECODER_NAME_LEN bytes a source's name_tag may write a name into
 * (valid until the next name asked for).
 */
#define ATAG_DECODER_NAME_LEN	256
char *atag_decoder_name_buf(struct atag_decoder *d);

void atag_source_name_code(struct atag_decoder *d, uint64_t tag, const char **function,
			   uint64_t *offset, const char **module);

/* A stack_site for sources whose events carry no call site: atag_stack_call_site(). */
uint64_t atag_source_stack_call_site(struct atag_decoder *d, const uint64_t *frames,
				     unsigned int nr);

#endif /* _ATAG_SOURCE_H */
