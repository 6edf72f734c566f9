// SPDX-License-Identifier: LGPL-2.1
/*
 * The report as CSV (RFC 4180 quoting, a header row, lines ending in "\n"):
 * one row per selected call site, or with the live view one row per live
 * allocation of a selected call site, in report order.
 *
 * Unknown values are empty cells: function, file, module (also empty for
 * built-in code), line, offset, comm, and the lifetime statistics of a call site
 * with no lifetime (lifetime_count is then 0). tag and ptr are "0x" hex, offset
 * is "0x" hex as in a frame, every other number decimal; times are nanoseconds.
 * A live allocation's stack is its frames, innermost first, joined with ';'
 * (kernel symbol names hold no ';'); empty when it has none.
 * source is the tag's source (alloc_tag, kmem, page), the last column of a call
 * site; a live allocation's row ends with source, suspect (1 for a leak suspect, else
 * 0), suspect_why (what explains it; empty for a suspect) and task_running (1, 0,
 * or empty when the trace does not say).
 * A cell holding ',', '"', CR or LF is quoted, its quotes doubled.
 */
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "atag-render.h"
#include "atag-render-counters.h"
#include "atag-report.h"
#include "atag-render-timeline.h"
#include "atag-timeline.h"
#include "atag-utils.h"

#define CSV_EOL	"\n"

static const char site_header[] =
	"tag,function,file,line,module,offset,allocs,frees,unmatched_frees,partial_frees,"
	"replaced,live,live_bytes,peak_live_bytes,bytes_alloced,bytes_freed,lifetime_count,"
	"lifetime_min_ns,lifetime_p50_ns,lifetime_p90_ns,lifetime_p99_ns,lifetime_max_ns,source";

static const char live_header[] =
	"ptr,tag,function,file,line,module,bytes,pid,comm,alloc_ts,age_ns,stack,source,suspect,"
	"suspect_why,task_running";

/* A string cell, escaped and neutralised (atag_csv_write_cell()); NULL is empty. */
static void put_str(FILE *f, const char *s)
{
	atag_csv_write_string(f, s);
}

/* tag,function,file,line,module */
static void put_site(FILE *f, const struct atag_report_tag *t)
{
	fprintf(f, "0x%" PRIx64 ",", t->tag);
	put_str(f, t->function);
	fputc(',', f);
	put_str(f, t->file);
	fputc(',', f);
	if (t->line >= 0)
		fprintf(f, "%ld", t->line);
	fputc(',', f);
	put_str(f, t->module);
}

static void put_lifetime(FILE *f, const struct atag_lifetime *lt)
{
	fprintf(f, ",%" PRIu64, lt->count);
	if (!lt->count) {
		fputs(",,,,,", f);
		return;
	}
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, lt->min,
		atag_lifetime_percentile(lt, 50), atag_lifetime_percentile(lt, 90),
		atag_lifetime_percentile(lt, 99), lt->max);
}

static void site_row(FILE *f, const struct atag_report_tag *t)
{
	put_site(f, t);
	fputc(',', f);
	if (t->offset >= 0)
		fprintf(f, "0x%llx", (unsigned long long)t->offset);
	atag_render_counters_csv(f, &t->counts, atag_counter_fields, ATAG_COUNTERS_ALL);
	put_lifetime(f, &t->lifetimes);
	fprintf(f, ",%s", t->source);
	fputs(CSV_EOL, f);
}

static void live_row(FILE *f, const struct atag_report_live *l)
{
	fprintf(f, "0x%" PRIx64 ",", l->ptr);
	put_site(f, l->tag);
	fprintf(f, ",%" PRIu64 ",%d,", l->bytes, l->pid);
	put_str(f, l->comm);
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", l->alloc_ts, l->age_ns);
	if (l->stack)
		atag_csv_write_cell(f, l->stack->frames, l->stack->nr_frames, ';');
	fprintf(f, ",%s,%d,", l->tag->source, l->suspect);
	atag_csv_write_string(f, l->suspect_why);
	fprintf(f, ",%s", l->task_exited < 0 ? "" : l->task_exited ? "0" : "1");
	fputs(CSV_EOL, f);
}

/**
 * atag_render_csv - write the report as CSV
 * @r: the finished report
 * @o: options: live (one row per live allocation instead of per call site),
 *     limit (rows, 0 for all); NULL for defaults
 * @f: where to write
 *
 * The columns are those of site_header and live_header above, always all of
 * them, in that order.
 *
 * Returns 0, or -EIO when writing failed (errno set).
 */
int atag_render_csv(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	bool live = o && o->live;
	size_t i, n = live ? r->nr_live : r->nr_tags;
	long rows = 0, limit = o ? o->limit : 0;
	const struct atag_report_tag *t;

	fputs(live ? live_header : site_header, f);
	fputs(CSV_EOL, f);
	for (i = 0; i < n && (limit <= 0 || rows < limit); i++) {
		t = live ? r->live[i].tag : r->tags[i];
		if (!t->selected)
			continue;
		if (live)
			live_row(f, &r->live[i]);
		else
			site_row(f, t);
		rows++;
	}
	return ferror(f) ? atag_err(-EIO) : 0;
}

static const char timeline_header[] =
	"trace,source,bucket,start_ts,bucket_ns,series,tag,function,file,line,module,"
	"live_bytes,max_live_bytes";

/* trace,source,bucket,start_ts,bucket_ns of bucket @b of @t */
static void bucket_cells(FILE *f, const struct atag_report *r,
			 const struct atag_report_timeline *t, unsigned int b)
{
	put_str(f, r->files[t->file].path);
	fprintf(f, ",%s,%u,%" PRIu64 ",%" PRIu64 ",", t->source, b,
		t->start + (uint64_t)b * t->width, t->width);
}

/**
 * atag_render_timeline_csv - write the report's timelines as CSV
 * @r: the finished report, read with timelines
 * @o: limit: call sites per timeline (0 for all), in report order; NULL for all
 * @f: where to write
 *
 * A row per bucket and series (the columns of timeline_header): series "total"
 * (tag to module empty) then "site" for each call site shown. live_bytes is at
 * the bucket's end, max_live_bytes the most inside it.
 *
 * Returns 0, or a negative errno when writing failed or memory ran out.
 */
int atag_render_timeline_csv(const struct atag_report *r, const struct atag_render_opts *o,
			     FILE *f)
{
	const struct atag_report_timeline_site **sites;
	const struct atag_report_timeline *t;
	unsigned int k, b;
	size_t i, n;

	sites = atag_render_timeline_room(r);
	if (!sites)
		return atag_err(-ENOMEM);
	fputs(timeline_header, f);
	fputs(CSV_EOL, f);
	for (k = 0; k < r->nr_timelines; k++) {
		t = &r->timelines[k];
		n = atag_render_timeline_sites(r, t, o ? o->limit : 0, sites);
		for (b = 0; b < t->nr_buckets; b++) {
			bucket_cells(f, r, t, b);
			fprintf(f, "total,,,,,,%" PRIu64 ",%" PRIu64 CSV_EOL, t->total[b],
				t->total_max[b]);
			for (i = 0; i < n; i++) {
				bucket_cells(f, r, t, b);
				fputs("site,", f);
				put_site(f, sites[i]->tag);
				fprintf(f, ",%" PRIu64 ",%" PRIu64 CSV_EOL, sites[i]->live[b],
					sites[i]->max[b]);
			}
		}
	}
	free(sites);
	return ferror(f) ? atag_err(-EIO) : 0;
}
