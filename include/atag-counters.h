/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-counters.h - what is counted for a call site or a stack, and the totals of
 * a report.
 *
 * One type, struct atag_counters, serves every level: the stitcher's aggregates of
 * one file per tag and per (tag, stack) (lib/stitch/atag-stitch.h), and the report's
 * call sites and stacks folded across files (include/atag-report.h). It changes
 * in three ways only: the stitcher's updates below (an allocation, its retirement
 * by a free or by a replacement, an unmatched free), atag_counters_add() when
 * files are folded, and atag_totals_add() for the totals over call sites.
 *
 * Writers do not list the counters: they walk atag_counter_fields (or
 * atag_total_fields) with a mask of the ones they write, so every format writes
 * the same names in the same order (lib/render/atag-render-counters.c). A stack
 * writes fewer than a call site (ATAG_COUNTERS_STACK).
 */
#ifndef _ATAG_COUNTERS_H
#define _ATAG_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Hot first: an allocation touches the first five, a free the first seven. */
struct atag_counters {
	uint64_t	allocs;
	uint64_t	live;		/* allocations not freed at the end */
	uint64_t	live_bytes;
	uint64_t	bytes_alloced;
	uint64_t	peak_live_bytes;	/* the most live_bytes was at any time */
	uint64_t	frees;		/* matched frees */
	uint64_t	bytes_freed;	/* by matched and unmatched frees */
	uint64_t	unmatched_frees;	/* of a ptr no allocation in the trace had */
	uint64_t	partial_frees;	/* frees of fewer bytes than allocated */
	uint64_t	replaced;	/* allocated again while live: the free was missed */
};

/*
 * The totals of a report: its selected call sites' counters added up, with every
 * free in frees (matched and unmatched; the matched ones also in matched_frees).
 */
struct atag_totals {
	uint64_t	allocs;
	uint64_t	frees;
	uint64_t	matched_frees;
	uint64_t	unmatched_frees;
	uint64_t	partial_frees;
	uint64_t	replaced;
	uint64_t	live;
	uint64_t	live_bytes;
	uint64_t	bytes_alloced;
	uint64_t	bytes_freed;
	/* of the live ones: leak suspects (set by the report; not in atag_total_fields) */
	uint64_t	live_suspects;
};

/*
 * What stack captures did to the lifetimes of a call site. A capture (the time
 * from an event to its kernel stack on that CPU) delays the task it runs in; a
 * lifetime from an allocation to its free by the same task that spans captures
 * of that task is longer by their time than it would be unobserved. Unless raw
 * lifetimes are asked for, that time is taken out of it.
 */
struct atag_inflation {
	uint64_t	lifetimes;	/* lifetimes that spanned captures of their task */
	uint64_t	ns;		/* the capture time inside them */
	/* lifetimes ended by another task's free: what captures added is unknown */
	uint64_t	other_task;
};

/*
 * The events of a call site inside the recording's counters window (between its
 * "counters start" and "counters end" marker lines), of every task: what the
 * trace shows of the change /proc/allocinfo's counters saw. Events between a
 * "counters-reading" line and its "counters" lines happened while record read the
 * counters: before or after the read, the trace cannot tell. They are counted
 * apart (uncertain_*), not in the others.
 */
struct atag_window {
	uint64_t	allocs;
	uint64_t	frees;
	uint64_t	bytes_alloced;
	uint64_t	bytes_freed;
	uint64_t	uncertain_allocs;
	uint64_t	uncertain_frees;
	uint64_t	uncertain_bytes_alloced;
	uint64_t	uncertain_bytes_freed;
};

/* ------------------------------------------------------------ updates */

/* An allocation of @bytes. */
static inline void atag_counters_alloc(struct atag_counters *c, uint64_t bytes)
{
	c->allocs++;
	c->live++;
	c->live_bytes += bytes;
	c->bytes_alloced += bytes;
	if (c->live_bytes > c->peak_live_bytes)
		c->peak_live_bytes = c->live_bytes;
}

/* An allocation of @bytes is no longer live (freed, or replaced: see below). */
static inline void atag_counters_retire(struct atag_counters *c, uint64_t bytes)
{
	c->live--;
	c->live_bytes -= bytes;
}

/* A free of @bytes matched an allocation of @alloced bytes. */
static inline void atag_counters_free(struct atag_counters *c, uint64_t alloced, uint64_t bytes)
{
	atag_counters_retire(c, alloced);
	c->frees++;
	c->bytes_freed += bytes;
	if (bytes < alloced)
		c->partial_frees++;
}

/* A free of @bytes matched no allocation. */
static inline void atag_counters_unmatched(struct atag_counters *c, uint64_t bytes)
{
	c->unmatched_frees++;
	c->bytes_freed += bytes;
}

/* An allocation of @bytes was made again at its address while live. */
static inline void atag_counters_replaced(struct atag_counters *c, uint64_t bytes)
{
	atag_counters_retire(c, bytes);
	c->replaced++;
}

/*
 * Up to how many of the live allocations of a call site may be freed already, in
 * whole or in part, as far as its unmatched and partial frees tell: at most one
 * each. The kernel emits no event when a page allocation is split or migrated
 * (shared/seeds/001, 1/4 "Limitations"): a migrated allocation is freed under the
 * ptr of the page it moved to, the pieces of a split one under their own pages'
 * ptr (unmatched frees), the head of a split or partly freed one with fewer bytes
 * (partial frees). Its live record stays, or holds more than is left. An unmatched
 * free may also be of memory allocated before tracing: this is an upper bound.
 */
static inline uint64_t atag_counters_live_maybe_freed(const struct atag_counters *c,
							 bool pages)
{
	uint64_t n = c->unmatched_frees + c->partial_frees;

	if (!pages)
		return 0;
	return n < c->live ? n : c->live;
}

/* The smallest page size: an allocation of another multiple of it is not pages. */
#define ATAG_MIN_PAGE_SIZE	4096

/*
 * Whether a call site of @source with counters @c may hold pages, which a split or
 * a migration can free under another address (the @pages of
 * atag_counters_live_maybe_freed()): the page source's do, and any with a partial
 * free (only pages are freed in parts); the kmem source's are slab objects; the
 * alloc_tag source's may, unless one of its allocations or frees (@sub_page) was
 * not a whole number of pages (ATAG_MIN_PAGE_SIZE): its call site then takes slab
 * or percpu objects (or, passed on by vmalloc() or kmalloc() of large sizes, pages
 * that are never split nor migrated), and its unmatched frees are of memory
 * allocated before tracing began (inferred from the allocators: split_page() and
 * migration act on page allocations of whole pages).
 */
static inline bool atag_counters_may_be_pages(const char *source, bool sub_page,
					      const struct atag_counters *c)
{
	if (!source || !strcmp(source, "page") || c->partial_frees)
		return true;
	return !strcmp(source, "alloc_tag") && !sub_page;
}

/*
 * An allocation of @bytes counted with atag_counters_alloc() was not one of its own
 * (an inner event of a nested allocation): take it back. The peak stays.
 */
static inline void atag_counters_unalloc(struct atag_counters *c, uint64_t bytes)
{
	c->allocs--;
	c->live--;
	c->live_bytes -= bytes;
	c->bytes_alloced -= bytes;
}

/* Fold @from into @to: sums, and the higher peak (peaks of different files do not add). */
void atag_counters_add(struct atag_counters *to, const struct atag_counters *from);

/* Add the counters of one call site to @t. */
void atag_totals_add(struct atag_totals *t, const struct atag_counters *c);

/* Fold @from into @to. */
void atag_inflation_add(struct atag_inflation *to, const struct atag_inflation *from);
void atag_window_add(struct atag_window *to, const struct atag_window *from);

/* ------------------------------------------------------------ for writers */

/* A counter of a struct: its name in reports, where it is, whether it is a size. */
struct atag_counter_field {
	const char	*name;
	unsigned short	offset;		/* of its uint64_t */
	bool		bytes;
};

/* The counters of struct atag_counters in the order reports write them. */
enum atag_counter {
	ATAG_COUNTER_ALLOCS,
	ATAG_COUNTER_FREES,
	ATAG_COUNTER_UNMATCHED_FREES,
	ATAG_COUNTER_PARTIAL_FREES,
	ATAG_COUNTER_REPLACED,
	ATAG_COUNTER_LIVE,
	ATAG_COUNTER_LIVE_BYTES,
	ATAG_COUNTER_PEAK_LIVE_BYTES,
	ATAG_COUNTER_BYTES_ALLOCED,
	ATAG_COUNTER_BYTES_FREED,
	ATAG_NR_COUNTERS
};

#define ATAG_COUNTER(c)		(1u << ATAG_COUNTER_##c)
#define ATAG_COUNTERS_ALL	((1u << ATAG_NR_COUNTERS) - 1)
/* What a stack has to say: the rest belongs to its call site. */
#define ATAG_COUNTERS_STACK	(ATAG_COUNTER(ALLOCS) | ATAG_COUNTER(LIVE) | \
				 ATAG_COUNTER(LIVE_BYTES) | ATAG_COUNTER(BYTES_ALLOCED))

/* Indexed by enum atag_counter; a NULL name ends it. */
extern const struct atag_counter_field atag_counter_fields[];

/* The fields of struct atag_totals in the order reports write them; a NULL name ends it. */
extern const struct atag_counter_field atag_total_fields[];

/* The value of field @f of @obj (a struct atag_counters or atag_totals). */
static inline uint64_t atag_counter_value(const void *obj, const struct atag_counter_field *f)
{
	return *(const uint64_t *)((const char *)obj + f->offset);
}

#endif /* _ATAG_COUNTERS_H */
