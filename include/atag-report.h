/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-report.h - allocation lifetimes from trace.dat files, ready to render.
 *
 * The consuming end of the engine:
 *
 *   trace.dat -> reader -> stitcher -> aggregates -> this report -> renderers
 *
 * atag_report_add_file() runs the whole offline pipeline on one file and folds
 * the result in: tags are merged across files by their source and call site
 * (function, file, line, module; the tag pointer when no call site is known),
 * stacks by their symbolised frames. atag_report_finish() applies the call-site
 * filters and the sort order; the renderers (include/atag-render.h) only read.
 *
 * What a report says of a recording of trace-cmd-alloc-tag record, whose marker
 * lines describe it (lib/read/atag-recording.h):
 *  - scope: only the workload's process tree is counted by default, never the
 *    recorder's processes; the allocations of the tasks left out are counted per
 *    class (struct atag_report_source.excluded);
 *  - selection: only the tags the recording selected; the events of the others
 *    are counted (hidden_events) unless all_tags;
 *  - completeness: per selected tag, the net calls and bytes the events show
 *    inside the counters window against /proc/allocinfo's deltas
 *    (struct atag_report_completeness).
 * And of every file: what stack captures cost per CPU (the observer), and which
 * lifetimes they inflated (struct atag_inflation; taken out unless raw).
 * Several sources of one file (slab and page events) are reported side by side:
 * each tag, and each section (struct atag_report_source), is of one source.
 *
 * Nothing here touches the live kernel or needs root.
 *
 * Threads: atag_report_add_file() stitches on a thread of its own while the
 * calling thread reads (lib/report/atag-run.h has the contract); every
 * libtracecmd and libtraceevent call stays on the calling thread, and the
 * report is complete when it returns. A report is not thread safe: one thread
 * at a time. Reading trace.dat files forks no process and installs no signal
 * handler; the process-wide effects of ATAG_PAGES=0 are those of include/atag-trace.h.
 */
#ifndef _ATAG_REPORT_H
#define _ATAG_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "atag-counters.h"
#include "atag-event.h"
#include "atag-lifetime.h"
#include "atag-read.h"

struct atag_recording;

/* The allocations of one call site with one stack, folded across files. */
struct atag_report_stack {
	/*
	 * "function+0xoff", "function+0xoff [module]", or "0x<addr>" if unknown; the
	 * names are the report's, shared by its stacks (the array is the stack's)
	 */
	char			**frames;
	/* with debug information: "file:line" of each frame, NULL where unknown */
	char			**lines;
	unsigned int		nr_frames;
	struct atag_counters	counts;		/* ATAG_COUNTERS_STACK are meaningful */
	/* sampled: what it stands for (atag_report_stack_estimate()); else NULL */
	struct atag_counters	*estimate;
};

/* One call site, folded across files. */
struct atag_report_tag {
	uint64_t		tag;		/* tag pointer or call_site address (first file) */
	const char		*source;	/* "alloc_tag", "kmem", "page" */
	char			*function;	/* NULL when unknown */
	char			*file;		/* from the hits, or debug information */
	char			*module;	/* NULL for built-in (or unknown) */
	long			line;		/* -1 when unknown */
	long long		offset;		/* call-site offset into function, or -1 */
	struct atag_counters	counts;
	struct atag_lifetime	lifetimes;	/* less stack-capture time unless raw */
	struct atag_inflation	inflation;
	uint64_t		nested;		/* inner events folded into its allocations */
	/* not a whole number of pages, once: see atag_counters_may_be_pages() */
	bool			sub_page;
	/*
	 * Its allocations that carry a stack. When its source's stacks were sampled
	 * (struct atag_report_source.stack_every), a stack's counters are those of the
	 * sampled allocations: atag_report_stack_scale() estimates the call site's.
	 */
	uint64_t		stacked;
	struct atag_report_stack **stacks;	/* by allocs, descending */
	size_t			nr_stacks;
	bool			selected;	/* passes the call-site filters */
};

/*
 * Up to how many of @t's live allocations its unmatched and partial frees may
 * account for: atag_counters_live_maybe_freed(), 0 where its memory is not pages.
 */
static inline uint64_t atag_report_tag_maybe_freed(const struct atag_report_tag *t)
{
	return atag_counters_live_maybe_freed(&t->counts,
					      atag_counters_may_be_pages(t->source, t->sub_page,
									 &t->counts));
}

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
	/* its task exited during the trace: 1; ran at its end: 0; not known: -1 */
	int8_t				task_exited;
	/*
	 * A leak suspect: nothing the trace or the kernel explains keeps it live
	 * (atag_report_finish(); the rules: lib/stitch/atag-suspect.c); else why not, in words.
	 */
	bool				suspect;
	const char			*suspect_why;
};

/* Per event type: how many records were read. */
struct atag_report_count {
	char		*event;		/* "alloc_tag:alloc_tag_hit" */
	uint64_t	count;
};

/* What the stack captures of one CPU cost in one file. */
struct atag_report_cpu {
	int			cpu;
	uint64_t		stacks;
	uint64_t		ns;
	struct atag_lifetime	cost;
};

/* What was read of one file, and what it lacked. */
struct atag_report_file {
	char			*path;
	const char		*source;	/* the first of sources (compatibility) */
	const char		**sources;	/* the sources read: "alloc_tag", "kmem", "page" */
	unsigned int		nr_sources;
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
	/* the recording's description (NULL: the file carries none, or a later version's) */
	struct atag_recording	*recording;
	unsigned int		tasks[ATAG_TASK_NR];	/* tasks of each class it told apart */
	struct atag_report_cpu	*cpus;		/* the observer: CPUs that took stacks */
	unsigned int		nr_cpus;
	bool			window;		/* the counters window opened and closed */
	uint64_t		window_open;
	uint64_t		window_close;
};

/* One source of the report, across files: its own figures (text: its own section). */
struct atag_report_source {
	const char		*name;
	struct atag_totals	totals;		/* over its selected tags */
	struct atag_inflation	inflation;	/* over its selected tags */
	size_t			nr_tags;
	size_t			nr_selected;
	/* allocations of tasks the scope left out, per class (enum atag_task) */
	struct atag_counters	excluded[ATAG_TASK_NR];
	size_t			hidden_tags;	/* tags the recording did not select */
	uint64_t		hidden_events;	/* their allocation and free events */
	/*
	 * Its stacks were sampled, one allocation in this many (a recording's
	 * "stack-sample" lines; of the last file that said so); 0: every allocation
	 * carries one (or none does)
	 */
	unsigned int		stack_every;
	uint64_t		stacked;	/* allocations of its selected tags with a stack */
};

struct atag_report;

/*
 * How many allocations of @t one of its stacks' allocations stands for: 1 unless its
 * source's stacks were sampled, then the call site's allocations over those that
 * carry a stack (the share measured, not the rule's). A stack's counters times this
 * estimate the call site's allocations with that stack; 0 when none carries one.
 */
double atag_report_stack_scale(const struct atag_report *r, const struct atag_report_tag *t);
/* Whether @t's source's stacks were sampled (one allocation in stack_every carries one). */
bool atag_report_stacks_sampled(const struct atag_report *r, const struct atag_report_tag *t);

/*
 * The counters of @t's stack @s, scaled to the call site when sampled
 * (atag_report_stack_scale()): what @s stands for. As they are otherwise; the stack
 * of the allocations without one (no frames) is not scaled. Once the report is
 * finished, a selected call site's estimates are rounded so that they add up (its
 * stacks' allocations are then its own, when each that carries one has frames);
 * before, each is rounded alone.
 */
void atag_report_stack_estimate(const struct atag_report *r, const struct atag_report_tag *t,
				const struct atag_report_stack *s, struct atag_counters *out);

/*
 * A call site the recording took counters of (of each of its tags, added up): the
 * net calls and bytes /proc/allocinfo saw change between "counters start" and
 * "counters end", against the events of the trace in between (of every task).
 */
struct atag_report_completeness {
	unsigned int		file;		/* index into files */
	char			*function;	/* as the counters line names it */
	char			*source_file;
	long			line;
	char			*module;	/* NULL: built-in */
	unsigned int		tags;		/* its tags' counters lines, added up */
	int64_t			counted_calls;	/* the counters' deltas */
	int64_t			counted_bytes;
	int64_t			traced_calls;	/* allocations - frees in the window */
	int64_t			traced_bytes;
	/*
	 * Events while record read the counters (between a "counters-reading" line
	 * and its "counters" lines): the counters may or may not include them.
	 */
	uint64_t		uncertain_calls;
	uint64_t		uncertain_bytes;
	/*
	 * counted - traced, less what the uncertain events can explain: an
	 * allocation of them may count (+1 traced call), a free may (-1); 0 when
	 * they explain the whole difference
	 */
	int64_t			missing_calls;
	int64_t			missing_bytes;
	/*
	 * What of the difference the trace's events of tags no hit event named (nor
	 * the counters, lib/report/atag-counted.h) may account for, taken out of
	 * missing: they may be this call site's. 0 in a file that lost events.
	 */
	int64_t			unnamed_calls;
	int64_t			unnamed_bytes;
	bool			complete;	/* nothing missing */
	/*
	 * Not complete, but not a loss either: the call site's pages were split or
	 * freed in parts (it has partial or unmatched frees), and the difference is
	 * in calls alone or in bytes alone, as the kernel's counters change without
	 * an event then (a split adds a call a tail page; a tail freed with its
	 * head subtracts bytes). A lost event changes both.
	 */
	bool			reshaped;
};
/*
 * The report: everything the renderers read. The arrays are the report's;
 * treat them as read-only outside lib/report/.
 */
struct atag_report {
	struct atag_report_file	*files;
	unsigned int		nr_files;
	struct atag_report_tag	**tags;		/* sorted; selected ones first after finish */
	size_t			nr_tags;
	size_t			nr_selected;
	struct atag_report_live	*live;		/* oldest first after finish */
	size_t			nr_live;
	bool			live_unlisted;	/* a JSON document was read: its live
						 * allocations are counted, not listed
						 * (totals.live_suspects means nothing) */
	/*
	 * Over the selected tags of every source. Slab and page events overlap (the
	 * pages slab takes are page allocations): over both, bytes count twice.
	 */
	struct atag_totals	totals;
	struct atag_report_source *sources;	/* in the registry's order */
	unsigned int		nr_sources;
	struct atag_report_completeness *completeness;	/* by file, in the lines' order */
	unsigned int		nr_completeness;
	bool			raw_lifetimes;	/* lifetimes as the timestamps say */
	char			**notices;	/* lost events, truncation, ...: data incomplete */
	unsigned int		nr_notices;
	char			**remarks;	/* informational, data still complete */
	unsigned int		nr_remarks;
	bool			complete;
	/* with opts.timeline: per file and source, live bytes over time (atag-timeline.h) */
	struct atag_report_timeline *timelines;
	unsigned int		nr_timelines;
	void			*priv;
};

struct atag_report_opts {
	struct atag_read_opts	read;		/* source, buffer, window, task scope, progress */
	bool			raw_stacks;	/* keep the tracing machinery's frames */
	bool			raw_lifetimes;	/* keep stack-capture time in lifetimes */
	bool			all_tags;	/* also the tags the recording did not select */
	/*
	 * Debug information for file:line of call sites and frames: the vmlinux
	 * (NULL: the distribution's debug-info paths for each file's kernel release,
	 * when there) and the module directories (NULL: the defaults of
	 * lib/read/atag-debuginfo.h); no_debuginfo: none at all.
	 */
	const char		*vmlinux;
	const char *const	*module_dirs;
	bool			no_debuginfo;
	/* keep a timeline of this many buckets per file and source (0: none) */
	unsigned int		timeline;
};

/* An empty report that reads files with @opts (copied; NULL: defaults); NULL on ENOMEM. */
struct atag_report *atag_report_alloc(const struct atag_report_opts *opts);
void atag_report_free(struct atag_report *r);

/*
 * Read @path and fold its lifetimes into @r. On failure returns a negative errno
 * and writes a one-line reason (without the file name) into @err; @r is then as
 * it was: the file cannot be read, or the vmlinux asked for is not the traced
 * kernel's. Trouble that leaves partial data (lost events, a truncated file,
 * corrupt pages, allocations the counters saw and the trace did not) is not a
 * failure: it adds a notice and clears r->complete.
 */
int atag_report_add_file(struct atag_report *r, const char *path, char *err, size_t errlen);

/*
 * Whether @path holds a JSON document rather than a trace.dat: its first byte that
 * is not white space is '{'. False when it cannot be read.
 */
bool atag_report_is_document(const char *path);

/*
 * Fold into @r the call sites of a document that report -f json or leaks -o wrote
 * (lib/report/atag-report-json.c), as atag_report_add_file() folds a file's: tags[]
 * with their counters, their stacks with theirs (merged with the call sites and
 * stacks of what @r read before, by the same identity), each source's stack
 * sampling (sources[].stack_every), files[] (their first_ts and last_ts, or 0 and
 * elapsed_ns for leaks' live instance), complete and notices. The document keeps
 * no lifetimes but their percentiles, which do not merge: its call sites have no
 * lifetimes. live[] is not read (tags[] counts the same allocations). The read
 * options that select records (buffer, window, tasks) cannot apply to counts
 * already made: -EINVAL; opts.read.source keeps that source's call sites. On
 * failure a negative errno and a one-line reason in @err (without the file name)
 * that names the key; @r may then hold part of the document: free it.
 */
int atag_report_add_document(struct atag_report *r, const char *path, char *err,
			     size_t errlen);

struct atag_report_view {
	const char	*sort;		/* one of ATAG_SORT_KEYS (atag-sort.h); NULL: live_bytes */
	const char	*function;	/* globs selecting call sites; NULL: all */
	const char	*file;
	const char	*module;
	uint64_t	min_age;	/* live view: only allocations at least this old */
};

/*
 * Apply @view (NULL: none): select the call sites its globs match and sort them
 * (selected first, by source in the registry's order, by the key descending, ties
 * by bytes allocated, then by name), sort each one's stacks (by allocs), add up
 * the totals of the selected ones (per source too), keep the live allocations of
 * selected call sites at least min_age old, oldest first. Call it once, after
 * the last file. 0, or -EINVAL for an unknown sort key.
 */
int atag_report_finish(struct atag_report *r, const struct atag_report_view *view);

/*
 * Lifetimes a row each (report --format lifetimes): every allocation the report
 * counts, as the stitcher pairs it with its free, and at the end of each file
 * those still live. A row names its call site as the report's call sites are
 * named (alloc_tag: from the hits; kmem, page: function+offset of the call site
 * address, no file:line) and its stack by an id: the report's, the same for the
 * same frames (as the report prints them) in every file of the report.
 */
enum atag_row_state {
	ATAG_ROW_FREED,		/* its free was traced */
	ATAG_ROW_LIVE,		/* not freed by the last event of its trace */
	ATAG_ROW_REPLACED,	/* allocated again while live: its free was not traced */
};

struct atag_report_row {
	const char		*trace;		/* the path of its file, as given */
	const char		*host;		/* the node name of the file's uname, or NULL */
	const char		*source;	/* "alloc_tag", "kmem", "page" */
	uint64_t		tag;		/* tag pointer or call_site address */
	const char		*function;	/* NULL when unknown */
	const char		*file;
	const char		*module;
	long			line;		/* -1 when unknown */
	long long		offset;		/* call-site offset into function, or -1 */
	uint32_t		stack_id;	/* 0: no stack */
	int			pid;
	const char		*comm;		/* the file's saved comm of pid, or NULL */
	uint64_t		ptr;
	uint64_t		bytes;		/* allocated */
	uint64_t		alloc_ts;	/* ns, the trace's clock */
	uint64_t		free_ts;	/* freed: of the free; replaced: of the reuse */
	uint64_t		lifetime_ns;	/* freed: less stack-capture time unless raw */
	enum atag_row_state	state;
};

/*
 * Where rows go: stack() first, once per stack id, with its frames innermost
 * first ("function+0xoff [module]"), before any row names it; then row(). Both
 * run on the thread that calls atag_report_add_file(), while it reads, and
 * return 0 or a negative errno, which fails that file.
 */
struct atag_report_rows {
	int	(*stack)(void *ctx, uint32_t id, char *const *frames, unsigned int nr);
	int	(*row)(void *ctx, const struct atag_report_row *row);
	void	*ctx;
};

/*
 * Stream the rows of the files added from now on into @rows, of the call sites
 * @view selects (its globs; NULL: all). Memory stays the report's: rows are
 * written as they come, never kept. Before the first file. 0 or -ENOMEM.
 */
int atag_report_stream_rows(struct atag_report *r, const struct atag_report_rows *rows,
			    const struct atag_report_view *view);

/*
 * "function file:line [module]", "function+0xoff", or the tag pointer, to show: the
 * names escaped as text (atag_text()). Returns @buf.
 */
char *atag_report_site(const struct atag_report_tag *t, char *buf, size_t len);

#endif /* _ATAG_REPORT_H */
