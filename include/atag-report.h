/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-report.h - allocation lifetimes from trace.dat files, ready to render.
 *
 * The consuming end of the engine:
 *
 *   trace.dat -> reader -> stitcher -> aggregates -> this report -> renderers
 *
 * atag_report_add_file() runs the whole offline pipeline on one file and folds
 * the result in: tags are merged across files by their call site (function,
 * file, line, module; the tag pointer when no call site is known), stacks by
 * their symbolised frames. atag_report_finish() applies the call-site filters and
 * the sort order; the renderers (include/atag-render.h) only read.
 *
 * Nothing here touches the live kernel or needs root.
 *
 * Threads: atag_report_add_file() stitches on a thread of its own while the
 * calling thread reads (lib/stitch/atag-run.h has the contract); every
 * libtracecmd and libtraceevent call stays on the calling thread, and the
 * report is complete when it returns. A report is not thread safe: one thread
 * at a time. The process-wide effects of reading trace.dat files (a probe
 * child, fd 1 briefly redirected, SIGSEGV/SIGBUS handlers while libtracecmd
 * reads) are those of include/atag-trace.h.
 */
#ifndef _ATAG_REPORT_H
#define _ATAG_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "atag-counters.h"
#include "atag-lifetime.h"
#include "atag-read.h"

/* The allocations of one call site with one stack, folded across files. */
struct atag_report_stack {
	char			**frames;	/* "function+0xoff", or "0x<addr>" if unknown */
	unsigned int		nr_frames;
	struct atag_counters	counts;		/* ATAG_COUNTERS_STACK are meaningful */
};

/* One call site, folded across files. */
struct atag_report_tag {
	uint64_t		tag;		/* tag pointer or call_site address (first file) */
	char			*function;	/* NULL when unknown */
	char			*file;
	char			*module;	/* NULL for built-in (or unknown) */
	long			line;		/* -1 when unknown */
	long long		offset;		/* call-site offset into function, or -1 */
	struct atag_counters	counts;
	struct atag_lifetime	lifetimes;
	struct atag_report_stack **stacks;	/* by allocs, descending */
	size_t			nr_stacks;
	bool			selected;	/* passes the call-site filters */
};

/* An allocation still live at the end of its file. */
struct atag_report_live {
	uint64_t			ptr;
	struct atag_report_tag		*tag;
	struct atag_report_stack	*stack;	/* NULL: no stack */
	uint64_t			bytes;
	int				pid;
	char				*comm;	/* NULL when the trace has no comm for the pid */
	uint64_t			alloc_ts;
	uint64_t			age_ns;	/* to the last event of its trace */
	unsigned int			file;	/* index into files */
};

/* Per event type: how many records were read. */
struct atag_report_count {
	char		*event;		/* "alloc_tag:alloc_tag_hit" */
	uint64_t	count;
};

/* What was read of one file, and what it lacked. */
struct atag_report_file {
	char			*path;
	const char		*source;	/* "alloc_tag", "kmem", "page" */
	char			*buffer;	/* the buffer read: "" is the top buffer */
	char			**also;		/* other buffers holding the source's events */
	unsigned int		nr_also;
	struct atag_report_count *counts;
	unsigned int		nr_counts;
	uint64_t		first_ts;
	uint64_t		last_ts;
	uint64_t		records;
	uint64_t		orphan_stacks;
	uint64_t		malformed;
	bool			truncated;
};

/*
 * The report: everything the renderers read. The arrays are the report's;
 * treat them as read-only outside lib/stitch/.
 */
struct atag_report {
	struct atag_report_file	*files;
	unsigned int		nr_files;
	struct atag_report_tag	**tags;		/* sorted; selected ones first after finish */
	size_t			nr_tags;
	size_t			nr_selected;
	struct atag_report_live	*live;		/* oldest first after finish */
	size_t			nr_live;
	struct atag_totals	totals;		/* over the selected tags */
	char			**notices;	/* lost events, truncation, ...: data incomplete */
	unsigned int		nr_notices;
	char			**remarks;	/* informational, data still complete */
	unsigned int		nr_remarks;
	bool			complete;
	void			*priv;
};

struct atag_report_opts {
	struct atag_read_opts	read;		/* source, buffer, window, task filter, progress */
	bool			raw_stacks;	/* keep the tracing machinery's frames */
};

/* An empty report that reads files with @opts (copied; NULL: defaults); NULL on ENOMEM. */
struct atag_report *atag_report_alloc(const struct atag_report_opts *opts);
void atag_report_free(struct atag_report *r);

/*
 * Read @path and fold its lifetimes into @r. On failure returns a negative errno
 * and writes a one-line reason (without the file name) into @err; @r is then as
 * it was. Trouble that leaves partial data (lost events, a truncated file,
 * corrupt pages) is not a failure: it adds a notice and clears r->complete.
 */
int atag_report_add_file(struct atag_report *r, const char *path, char *err, size_t errlen);

/* Sort keys for atag_report_finish(). */
#define ATAG_SORT_KEYS "live_bytes, live, peak, bytes, allocs, frees, unmatched, " \
		       "p50, p90, p99, max, site"

/* Whether @name is one of ATAG_SORT_KEYS. */
bool atag_report_sort_key_known(const char *name);

struct atag_report_view {
	const char	*sort;		/* one of ATAG_SORT_KEYS; NULL: live_bytes */
	const char	*function;	/* globs selecting call sites; NULL: all */
	const char	*file;
	const char	*module;
	uint64_t	min_age;	/* live view: only allocations at least this old */
};

/*
 * Apply @view (NULL: none): select the call sites its globs match and sort them
 * (selected first, by the key descending, ties by bytes allocated, then by
 * name), sort each one's stacks (by allocs), add up the totals of the selected
 * ones, keep the live allocations of selected call sites at least min_age old,
 * oldest first. Call it once, after the last file. 0, or -EINVAL for an
 * unknown sort key.
 */
int atag_report_finish(struct atag_report *r, const struct atag_report_view *view);

/* "function file:line [module]", "function+0xoff", or the tag pointer. Returns @buf. */
char *atag_report_site(const struct atag_report_tag *t, char *buf, size_t len);

#endif /* _ATAG_REPORT_H */
