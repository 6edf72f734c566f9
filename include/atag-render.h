/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-render.h - writing a finished report (include/atag-report.h).
 *
 * The last stage of the engine: renderers only read the report, after
 * atag_report_finish(), and write it to a stdio stream. Each writes the report's
 * selected call sites in report order, at most @limit of them; the counters of a
 * call site or a stack are written by one writer per format
 * (lib/render/atag-render-counters.c), so names and order agree everywhere.
 *
 *   text    a summary, the call sites as an aligned table; on request each call
 *           site's stacks, the live allocations oldest first (leak suspects) and
 *           log2 lifetime histograms (lib/render/atag-render-text.c)
 *   json    one object, the contract of "report --format json" (compact, a call
 *           site or a live allocation a line; atag-render-json.c)
 *   csv     a row per call site, or with @live per live allocation (atag-render-csv.c)
 *   folded  FlameGraph's folded stacks of functions, the call site as the leaf
 *           (atag-render-folded.c)
 *   pprof   a gzipped pprof heap profile (atag-render-pprof.c)
 *   html    one self-contained page: the JSON above, the timelines, lifetime
 *           histograms, drawn by the d3 library embedded in it
 *           (atag-render-html.c)
 *
 * The timelines (a report with opts.timeline, include/atag-timeline.h) as text,
 * JSON ({"timelines": [...]}) or CSV (a row per bucket and series), the top
 * @limit call sites of each in report order (atag-render-timeline.c).
 *
 * And one that writes while the report reads, not after: the lifetimes, a row
 * per allocation as CSV or JSON lines, with a second table of the stacks
 * (atag-render-lifetimes.c; the rows of atag_report_stream_rows()).
 *
 * Every renderer returns 0, or a negative number when writing failed (errno says
 * why) or an option is wrong (-EINVAL: an unknown weight). Renderers keep no
 * state: any thread may render a report nobody changes meanwhile.
 */
#ifndef _ATAG_RENDER_H
#define _ATAG_RENDER_H

#include <stdbool.h>
#include <stdio.h>

struct atag_report;

struct atag_render_opts {
	long		limit;		/* rows per list, 0 = all */
	bool		stacks;		/* text: per-stack breakdown */
	bool		live;		/* text/csv: the live view */
	bool		hist;		/* text: lifetime histograms */
	bool		summary;	/* text: the summary block */
	bool		sites;		/* text: the per-call-site table */
	const char	*weight;	/* folded, pprof: alloc_space (default), alloc_objects,
					 * inuse_space, inuse_objects */
	bool		keep_offsets;	/* folded, pprof: frames as "function+0xoff" */
	int		width;		/* text: terminal width for bars */
	int		columns;	/* text: tables cut to this width by eliding the
					 * call site in its middle; 0: no limit */
};

/* @o may be NULL for the defaults of each, except for text, which needs its sections. */
int atag_render_text(const struct atag_report *r, const struct atag_render_opts *o, FILE *f);
int atag_render_json(const struct atag_report *r, const struct atag_render_opts *o, FILE *f);
int atag_render_csv(const struct atag_report *r, const struct atag_render_opts *o, FILE *f);
int atag_render_folded(const struct atag_report *r, const struct atag_render_opts *o, FILE *f);
int atag_render_pprof(const struct atag_report *r, const struct atag_render_opts *o, FILE *f);
int atag_render_html(const struct atag_report *r, const struct atag_render_opts *o, FILE *f);
int atag_render_timeline_text(const struct atag_report *r, const struct atag_render_opts *o,
			      FILE *f);
int atag_render_timeline_json(const struct atag_report *r, const struct atag_render_opts *o,
			      FILE *f);
int atag_render_timeline_csv(const struct atag_report *r, const struct atag_render_opts *o,
			     FILE *f);

/*
 * Lifetimes: @rows gets the rows, @stacks (NULL: none) the stacks, as CSV with a
 * header line, or as JSON lines with @json. atag_render_lifetimes_begin() writes
 * the headers and fills @sink for atag_report_stream_rows(); then add the files;
 * atag_render_lifetimes_end() says whether every write succeeded (0 or -EIO).
 */
struct atag_report_rows;

struct atag_lifetimes_out {
	FILE	*rows;
	FILE	*stacks;
	bool	json;
};

int atag_render_lifetimes_begin(struct atag_lifetimes_out *o, struct atag_report_rows *sink);
int atag_render_lifetimes_end(const struct atag_lifetimes_out *o);

#endif /* _ATAG_RENDER_H */
