/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-suspect.h - whether a live allocation is a leak suspect, by the one rule table
 * of lib/stitch/atag-suspect.c (which says the rules and why each holds).
 *
 * An allocation that looks live (at the end of a trace for report, old enough for
 * leaks) is a suspect unless the trace or the kernel explains why it looks live: a free
 * path that emits no event, an RCU grace period once its task exited, a cache that
 * reclaim frees, and so on. The explanation is asked from what is known of the one
 * allocation: struct atag_suspect_facts. report (atag_report_finish()) and leaks
 * (include/atag-live.h) both ask here, so that an allocation gets the same verdict from
 * either.
 */
#ifndef _ATAG_SUSPECT_H
#define _ATAG_SUSPECT_H

#include <stdint.h>

/* What is known of one live allocation. */
struct atag_suspect_facts {
	const char		*source;	/* "alloc_tag", "kmem", "page" */
	const char		*function;	/* its call site's function, NULL: unknown */
	/* its stack as report names frames ("function+0xoff"), innermost first; may be 0 */
	const char *const	*frames;
	unsigned int		nr_frames;
	/* its task exited: 1; still runs: 0; not known: -1 */
	int			task_exited;
	/* of its call site: objects allocated again while live, unmatched and partial frees */
	uint64_t		replaced;
	uint64_t		unmatched_frees;
	uint64_t		partial_frees;
};

/**
 * atag_suspect_why - why an allocation is not a leak suspect
 * @f: what is known of it
 *
 * Returns the explanation in words (a static string), or NULL: a suspect.
 */
const char *atag_suspect_why(const struct atag_suspect_facts *f);

#endif /* _ATAG_SUSPECT_H */
