// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-report: a trace.dat, read by report in-process (lib/read: headers, pages,
 * decoder; lib/stitch; every renderer). Files whose timestamps are converted
 * (options DATE, OFFSET, TSC2NSEC) and files with an unknown option are read by
 * the page walker as every other file is: no fork, no signal handler. Every
 * renderer runs on what was read: the lifetimes rows (CSV or JSON lines, streamed
 * while the file is read), JSON, text with every view, CSV with the live list,
 * folded and pprof (a weight per run), HTML, the timelines (text, JSON, CSV), and
 * the diff of the report with itself (text, JSON, CSV, folded).
 */
#include <stdlib.h>
#include <string.h>

#include "atag-report-diff.h"
#include "atag-render.h"
#include "atag-render-diff.h"
#include "atag-report.h"
#include "fuzz.h"

#define BUCKETS	16

/* FUZZ_REPORT_SAY=1: the renderers each input went through, a line on stderr (tests) */
static void said(const char *what)
{
	static int say = -1;

	if (say < 0)
		say = getenv("FUZZ_REPORT_SAY") != NULL;
	if (say)
		fprintf(stderr, "%s%s", what, strcmp(what, "\n") ? " " : "");
}

static void render_diff(const struct atag_report *r, const struct atag_render_opts *o)
{
	const struct atag_diff_opts dopts = { .unchanged = true };
	struct atag_diff *d = NULL;
	char err[256];

	if (atag_diff_compute(r, r, &dopts, &d, err, sizeof(err)))
		return;
	atag_render_diff_text(d, o, fuzz_null());
	atag_render_diff_json(d, o, fuzz_null());
	atag_render_diff_csv(d, o, fuzz_null());
	atag_render_diff_folded(d, o, fuzz_null());
	said("diff-text diff-json diff-csv diff-folded");
	atag_diff_free(d);
}

static void render_all(const struct atag_report *r, unsigned int run)
{
	static const char *const weights[] = { "alloc_space", "alloc_objects", "inuse_space",
					       "inuse_objects" };
	struct atag_render_opts ro = { .summary = true, .sites = true, .stacks = true,
				       .live = true, .hist = true, .width = 80,
				       .columns = run & 1 ? 60 : 0,
				       .weight = weights[run % 4], .keep_offsets = run & 2 };

	atag_render_json(r, NULL, fuzz_null());
	atag_render_text(r, &ro, fuzz_null());
	atag_render_csv(r, &ro, fuzz_null());
	atag_render_folded(r, &ro, fuzz_null());
	atag_render_pprof(r, &ro, fuzz_null());
	atag_render_html(r, &ro, fuzz_null());
	said("json text csv folded pprof html");
	atag_render_timeline_text(r, &ro, fuzz_null());
	atag_render_timeline_json(r, &ro, fuzz_null());
	atag_render_timeline_csv(r, &ro, fuzz_null());
	said("timeline-text timeline-json timeline-csv");
	render_diff(r, &ro);
	said("\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct atag_report_opts opts = { .no_debuginfo = true, .timeline = BUCKETS };
	const char *path = fuzz_file(data, size);
	struct atag_lifetimes_out lo = { 0 };
	struct atag_report_rows sink;
	static unsigned int runs;
	static int once;
	struct atag_report *r;
	char err[256];

	if (!once) {
		once = 1;
		setenv("ATAG_THREADS", "1", 1);
	}
	if (!path)
		return 0;
	r = atag_report_alloc(&opts);
	if (!r)
		return 0;
	runs++;
	lo.rows = fuzz_null();
	lo.stacks = fuzz_null();
	lo.json = runs & 1;
	if (atag_render_lifetimes_begin(&lo, &sink) || atag_report_stream_rows(r, &sink, NULL)) {
		atag_report_free(r);
		return 0;
	}
	if (!atag_report_add_file(r, path, err, sizeof(err)) && !atag_report_finish(r, NULL)) {
		atag_render_lifetimes_end(&lo);
		said(lo.json ? "lifetimes-json" : "lifetimes");
		render_all(r, runs);
	}
	atag_report_free(r);
	return 0;
}
