/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The sort keys of report and diff: one table, so that both commands take the
 * same keys and mean the same by them. report orders call sites by a key's
 * value, diff by the size of its change. top has keys of its own (the
 * interval's counters, the oldest age): see atag-live.h.
 */
#ifndef ATAG_SORT_H
#define ATAG_SORT_H

#include <stdbool.h>

/* The keys, as --help and the man pages list them. */
#define ATAG_SORT_KEYS "live_bytes, live, peak, bytes, allocs, frees, unmatched, " \
		       "p50, p90, p99, max, site"

enum atag_sort_kind {
	ATAG_SORT_COUNTER,	/* a counter of the call site: arg is an enum atag_counter */
	ATAG_SORT_PERCENTILE,	/* a percentile of its lifetimes: arg is 50, 90 or 99 */
	ATAG_SORT_MAX,		/* its longest lifetime */
	ATAG_SORT_SITE,		/* by name alone */
};

struct atag_sort_key {
	const char		*name;
	enum atag_sort_kind	kind;
	int			arg;
};

/*
 * atag_sort_key - the sort key called @name
 *
 * Returns the entry of the table, or NULL when @name (or NULL) is none of
 * ATAG_SORT_KEYS.
 */
const struct atag_sort_key *atag_sort_key(const char *name);

/* The default of both commands: live bytes. */
#define ATAG_SORT_DEFAULT	"live_bytes"

#endif /* ATAG_SORT_H */
