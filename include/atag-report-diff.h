/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-report-diff.h - what changed between two reports: per call site and per stack,
 * the change in allocations, bytes, live at the end, peak live and lifetimes
 * (lib/report/atag-report-diff.c).
 *
 *   BEFORE.dat -> report --+
 *                          +--> atag_diff_compute() --> diff renderers
 *   AFTER.dat  -> report --+                             (include/atag-render-diff.h)
 *
 * Both reports are finished (atag_report_finish()): their selected call sites
 * are compared, and only those. A call site is matched across the two by what
 * stays the same from one boot, or one kernel build, to the next, never by an
 * address (KASLR moves them all):
 *
 *   - a call site with a source file (alloc_tag events, or a name from debug
 *     information): its function, file, line and module;
 *   - one named from kallsyms only (kmem and page events): its function and
 *     module, without the offset into the function; the call sites of one
 *     function are then one row, their counters added (their peaks are not: the
 *     higher one is kept, a lower bound of the true peak);
 *   - one with no name at all: the row "(unknown call site)" of each side;
 *
 * and always within its source: kmem's kmalloc() in a function and a page
 * allocation in it are two rows, as slab and page figures never add up.
 *
 * A stack is matched likewise by its frames without their offsets
 * ("kmem_cache_alloc_noprof", "foo_open [foo]"); a frame kallsyms did not name
 * is "?".
 *
 * A call site changed when one of its counters did; its lifetimes count too when
 * the diff is sorted by one of them (two runs of a workload never free at the
 * same nanosecond, so lifetimes would make every call site change otherwise).
 *
 * Normalisation divides every count and size of a side by its duration (the
 * time between the first and last event of its files, in seconds) or by the
 * number of workload operations the user counted for it; lifetimes are never
 * scaled. Without it values are exact integers, and a diff of a recording with
 * itself has no change at all.
 *
 * A diff borrows its reports (their files, notices and completeness): free it
 * before them. It is read-only for the renderers, and not thread safe.
 */
#ifndef _ATAG_REPORT_DIFF_H
#define _ATAG_REPORT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atag-counters.h"
#include "atag-lifetime.h"

struct atag_report;

/* The two sides of a diff, as indices. */
enum atag_diff_side {
	ATAG_DIFF_BEFORE,
	ATAG_DIFF_AFTER,
};

enum atag_diff_status {
	ATAG_DIFF_SAME,		/* in both, nothing compared changed */
	ATAG_DIFF_CHANGED,	/* in both */
	ATAG_DIFF_APPEARED,	/* only after */
	ATAG_DIFF_GONE,		/* only before */
};

enum atag_diff_norm {
	ATAG_DIFF_NORM_NONE,
	ATAG_DIFF_NORM_DURATION,	/* per second of each side */
	ATAG_DIFF_NORM_OPERATIONS,	/* per workload operation of each side */
};

struct atag_diff_opts {
	const char		*sort;		/* ATAG_SORT_KEYS (atag-sort.h), the largest
						 * change first; NULL: live_bytes */
	enum atag_diff_norm	norm;
	double			ops[2];		/* NORM_OPERATIONS: each side's, > 0 */
	bool			unchanged;	/* keep the call sites and stacks that did
						 * not change (default: left out) */
};

/* One stack of a call site, on both sides (ATAG_COUNTERS_STACK are meaningful). */
struct atag_diff_stack {
	char			**frames;	/* innermost first, without offsets */
	unsigned int		nr_frames;
	struct atag_counters	counts[2];	/* by enum atag_diff_side */
	enum atag_diff_status	status;
};

/* One call site, on both sides. */
struct atag_diff_site {
	const char		*source;	/* "alloc_tag", "kmem", "page" */
	char			*function;	/* NULL: the unknown call sites */
	char			*file;		/* NULL when matched without it */
	long			line;		/* -1 likewise */
	char			*module;	/* NULL: built-in */
	enum atag_diff_status	status;
	struct atag_counters	counts[2];
	struct atag_lifetime	lifetimes[2];
	unsigned int		nr_sites[2];	/* the report rows folded into it */
	struct atag_diff_stack	**stacks;	/* by the largest change of allocs first */
	size_t			nr_stacks;
};

/*
 * One source (slab or page events, alloc_tag) of either side: its own totals. The
 * totals of a diff of more than one source are over all of them, where slab and
 * page bytes overlap (the pages slab takes are page allocations).
 */
struct atag_diff_source {
	const char		*name;
	struct atag_totals	totals[2];	/* by enum atag_diff_side; 0 where absent */
	bool			in[2];		/* the side read it */
};

struct atag_diff {
	struct atag_diff_site	**sites;	/* by the largest change of the sort key */
	size_t			nr_sites;	/* without the unchanged unless asked for */
	size_t			nr_changed;
	size_t			nr_appeared;
	size_t			nr_gone;
	size_t			nr_same;
	const char		*sort;
	struct atag_totals	totals[2];	/* the reports' totals, over every source */
	struct atag_diff_source	*sources;	/* of both sides, in their reports' order */
	unsigned int		nr_sources;
	enum atag_diff_norm	norm;
	double			per[2];		/* each side is divided by (1: none) */
	uint64_t		duration_ns[2];	/* of each side's files, added up */
	const struct atag_report *reports[2];	/* borrowed */
	bool			complete;	/* both reports are */
};

/**
 * atag_diff_compute - compare two finished reports
 * @before: the baseline
 * @after: the report compared with it
 * @opts: how (NULL: defaults)
 * @out: the diff, to free with atag_diff_free()
 * @err: a one-line reason on failure
 * @errlen: its size
 *
 * Returns 0, -EINVAL for an unknown sort key, a count of operations that is not
 * above 0, or a side with no duration to divide by, or -ENOMEM.
 */
int atag_diff_compute(const struct atag_report *before, const struct atag_report *after,
		      const struct atag_diff_opts *opts, struct atag_diff **out, char *err,
		      size_t errlen);

void atag_diff_free(struct atag_diff *d);

/* ------------------------------------------------------------ for renderers */

/* A counter of @obj (a struct atag_counters or atag_totals) of side @side, normalised. */
double atag_diff_value(const struct atag_diff *d, enum atag_diff_side side, const void *obj,
		       const struct atag_counter_field *f);

/* Its change: the value after less the value before. */
double atag_diff_delta(const struct atag_diff *d, const void *before, const void *after,
		       const struct atag_counter_field *f);

/* Whether values are normalised (then fractional) rather than exact counts. */
static inline bool atag_diff_normalised(const struct atag_diff *d)
{
	return d->norm != ATAG_DIFF_NORM_NONE;
}

/* "changed", "appeared", "disappeared" or "same". */
const char *atag_diff_status_name(enum atag_diff_status s);

/* "function file:line [module]", "function [module]", or "(unknown call site)". */
char *atag_diff_site_name(const struct atag_diff_site *s, char *buf, size_t len);

/* The lifetime percentiles a diff compares, and the maximum as 101. */
#define ATAG_DIFF_NR_PCTS	4
extern const struct atag_diff_pct {
	const char	*name;		/* "p50", "p90", "p99", "max" */
	double		pct;
} atag_diff_pcts[ATAG_DIFF_NR_PCTS];

/* Lifetime figure @i of atag_diff_pcts of @lt; false when it has no lifetime. */
bool atag_diff_lifetime(const struct atag_lifetime *lt, int i, uint64_t *ns);

#endif /* _ATAG_REPORT_DIFF_H */
