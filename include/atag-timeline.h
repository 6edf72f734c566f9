/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-timeline.h - live bytes over time, per call site, in bounded memory; and
 * the moment of the peak with what it was made of.
 *
 * A timeline takes the changes of live bytes of call sites ("sites") and of
 * their stacks as the stitcher makes them (+bytes at an allocation, -bytes at its
 * free), each with its timestamp, and keeps:
 *
 *  - per site and for the total, per time bucket: the live bytes at the end of
 *    the bucket and the most they were inside it;
 *  - the peak of the total live bytes: when it was first reached, how much, and
 *    how much each site and each stack held at that moment.
 *
 * Buckets. The time range of a trace is not known while it streams: a timeline
 * has a fixed number of buckets (nr_buckets), starting at the first change's
 * timestamp with buckets @first_width ns wide. When a change falls past the last
 * bucket, the width doubles and neighbouring buckets merge in pairs (their deltas
 * add, their maxima take the larger), as often as needed. At the end the range
 * from the first to the last change is covered by between nr_buckets / 2 and
 * nr_buckets buckets (fewer when the trace is shorter than nr_buckets *
 * first_width), each first_width * 2^k ns wide. A change stamped before the
 * start (an allocation committed after later events, waiting for its stack)
 * counts in the first bucket.
 *
 * Memory is (nr_buckets * 16 + 24) bytes per site that changed, 24 per stack:
 * never more with more events. A change costs O(1), except the doublings,
 * O(nr_buckets * sites) each and at most 64 of them in all.
 *
 * The peak is found in O(1) per change with lazy snapshots: a peak epoch counts
 * the new peaks; each site and stack remembers the epoch of its last change.
 * Before a site's (or stack's) live bytes change, if its epoch is older than the
 * current one, nothing changed it since the last peak: its current value is its
 * value at the peak, and is saved. At the end, a site untouched since the last
 * peak holds its value at the peak; the others saved it.
 *
 * A timeline belongs to one thread at a time. Functions returning int return 0
 * or -ENOMEM.
 */
#ifndef _ATAG_TIMELINE_H
#define _ATAG_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The default number of buckets (report --buckets). */
#define ATAG_TIMELINE_BUCKETS		100
/* The default width of the first buckets: 1 us. */
#define ATAG_TIMELINE_FIRST_WIDTH	1000

struct atag_timeline;

/* An empty timeline of @nr_buckets (at least 2) buckets @first_width (>= 1) ns wide. */
struct atag_timeline *atag_timeline_alloc(unsigned int nr_buckets, uint64_t first_width);
void atag_timeline_free(struct atag_timeline *tl);

/*
 * At @ts, the live bytes of @site, of its stack @stack (an index the caller
 * chooses: one per (site, stack) pair) and of the total change by @delta.
 */
int atag_timeline_change(struct atag_timeline *tl, uint64_t ts, uint32_t site, uint32_t stack,
			 int64_t delta);

/* No more changes: makes the series below readable. Idempotent. */
void atag_timeline_finish(struct atag_timeline *tl);

/* ------------------------------------------------------------ results (after finish) */

/* The buckets in use (0: no change at all), the first one's start, their width (ns). */
unsigned int atag_timeline_nr_buckets(const struct atag_timeline *tl);
/* The number of buckets it was made with: nr_buckets / 2 to nr_buckets of them are used. */
unsigned int atag_timeline_cap(const struct atag_timeline *tl);
uint64_t atag_timeline_start(const struct atag_timeline *tl);
uint64_t atag_timeline_width(const struct atag_timeline *tl);

/* Sites and stacks are indexed 0 .. this - 1 (the highest index changed, + 1). */
size_t atag_timeline_nr_sites(const struct atag_timeline *tl);
size_t atag_timeline_nr_stacks(const struct atag_timeline *tl);

/*
 * Per bucket, the live bytes at its end (@live) and the most at any moment
 * inside it (@max): of the total, or of @site (NULL: the site never changed).
 */
const uint64_t *atag_timeline_total(const struct atag_timeline *tl, const uint64_t **max);
const uint64_t *atag_timeline_site(const struct atag_timeline *tl, uint32_t site,
				   const uint64_t **max);

/* The peak of the total live bytes (0: none), and when it was first reached in *@ts. */
uint64_t atag_timeline_peak(const struct atag_timeline *tl, uint64_t *ts);
/* What @site and @stack held at that moment. */
uint64_t atag_timeline_site_at_peak(const struct atag_timeline *tl, uint32_t site);
uint64_t atag_timeline_stack_at_peak(const struct atag_timeline *tl, uint32_t stack);

/* ------------------------------------------------------------ in a report */

struct atag_report_tag;
struct atag_report_stack;

/* A call site of a report's timeline (struct atag_report.timelines). */
struct atag_report_timeline_site {
	struct atag_report_tag		*tag;
	uint64_t			*live;		/* nr_buckets: at each bucket's end */
	uint64_t			*max;		/* nr_buckets: the most inside it */
	uint64_t			at_peak;	/* its live bytes at the total's peak */
};

/* A stack that held live bytes at the peak. */
struct atag_report_timeline_stack {
	struct atag_report_tag		*tag;
	struct atag_report_stack	*stack;		/* NULL: not one of the tag's */
	uint64_t			at_peak;
};

/*
 * The timeline of one source of one file of a report: its total counts every
 * call site the file traced for the source (before the call-site filters of the
 * view, and with the tags a recording did not select), its sites are the report's
 * call sites (in no order: renderers take the report's). Times are the trace's.
 */
struct atag_report_timeline {
	unsigned int			file;		/* index into the report's files */
	const char			*source;
	uint64_t			start;		/* of bucket 0, ns */
	uint64_t			width;		/* of a bucket, ns */
	unsigned int			nr_buckets;
	unsigned int			nr_asked;	/* --buckets: nr_buckets is half to all */
	uint64_t			*total;		/* live bytes at each bucket's end */
	uint64_t			*total_max;
	uint64_t			peak;		/* the most live bytes in all */
	uint64_t			peak_ts;	/* when first reached */
	struct atag_report_timeline_site *sites;
	size_t				nr_sites;
	struct atag_report_timeline_stack *stacks;	/* at_peak > 0, most first */
	size_t				nr_stacks;
};

/* The site of @tag in @t, or NULL. */
const struct atag_report_timeline_site *
atag_report_timeline_site(const struct atag_report_timeline *t, const struct atag_report_tag *tag);

#endif /* _ATAG_TIMELINE_H */
