/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-counted.h - what /proc/allocinfo counted against what the trace shows,
 * inside a recording's counters window (library-internal; atag-report-files.c
 * uses it). See lib/report/atag-counted.c.
 *
 * A recording of selected tags (trace-cmd-alloc-tag record) writes each selected
 * tag's counters at its start and at its end ("counters" marker lines, read by
 * lib/read/atag-recording.c). The net change of a tag's counters is what its
 * allocation and free events between those lines must add up to.
 *
 * Events name their call site only through hit events: an allocation comes with
 * one, a free does not. A tag whose events in the trace are all frees (of what it
 * allocated before the recording began) keeps no name, although the kernel traced
 * it because it was selected. atag_counted_name() names such a tag after the
 * counters when nothing else can be meant.
 */
#ifndef _ATAG_COUNTED_H
#define _ATAG_COUNTED_H

#include <stdint.h>

#include <glib.h>

#include "atag-recording.h"
#include "atag-stitch.h"

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct atag_reader;
struct atag_run;

/* What the events of one call site show inside the counters window. */
struct atag_traced {
	struct atag_marker_tag	site;	/* the key: names of the aggregates' */
	struct atag_window	w;
	uint64_t		odd;	/* its partial and unmatched frees (whole file) */
};

/*
 * The window's events of the named alloc_tag tags of @run, summed per call site
 * (atag_marker_tag_hash(): tags of one site add up) into an array returned in
 * *@tr (free() it after the table), hashed by site. NULL or *@tr NULL on ENOMEM.
 */
GHashTable *atag_counted_traced(const struct atag_run *run, const struct atag_reader *rd,
				struct atag_traced **tr) __hidden;

/*
 * A call site's counters lines: the counters of its tags added up, at the start and
 * at the end. A site may have several tags (an allocation in an inline function
 * has one where it is inlined), each with its own lines.
 */
struct atag_counted_site {
	const struct atag_marker_tag	*site;	/* its first "counters end" line's */
	uint64_t			start_calls;
	uint64_t			start_bytes;
	uint64_t			end_calls;
	uint64_t			end_bytes;
	unsigned int			starts;	/* its "counters start" lines */
	unsigned int			ends;	/* its "counters end" lines */
};

/*
 * The call sites of @rec's "counters end" lines, in the order of their first one,
 * in *@sites (free() it): returns how many, or -ENOMEM.
 */
long atag_counted_sites(const struct atag_recording *rec, struct atag_counted_site **sites)
	__hidden;

/* A tag atag_counted_name() named. */
struct atag_counted_named {
	uint64_t			tag;	/* its pointer in the trace */
	const struct atag_marker_tag	*site;	/* its call site: @rec's counters line */
	int64_t				calls;	/* its events' net calls in the window */
	int64_t				bytes;
};

/*
 * Name the unnamed alloc_tag tags of @run after the counters of @rec: tag T gets
 * call site S when T's events inside the window (allocations - frees, in calls and
 * in bytes) equal the change of S's counters less what S's named tags show, and
 * no other unnamed tag and no other call site has that change. Tags or sites with
 * events while record read the counters (uncertain) take no part. The caller asks
 * only for a file that lost nothing: with events lost, a difference may be a loss
 * as well as an unnamed tag.
 *
 * The named tags are returned in *@named (*@nr of them; free() it). 0, or -ENOMEM.
 */
int atag_counted_name(struct atag_run *run, const struct atag_reader *rd,
		      const struct atag_recording *rec, struct atag_counted_named **named,
		      unsigned int *nr) __hidden;

/*
 * The window's events of the alloc_tag tags of @run that are still unnamed, added
 * up into *@w; returns how many tags have some.
 */
unsigned int atag_counted_unnamed(const struct atag_run *run, const struct atag_reader *rd,
				  struct atag_window *w) __hidden;

#endif /* _ATAG_COUNTED_H */
