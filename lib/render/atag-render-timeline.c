// SPDX-License-Identifier: LGPL-2.1
/*
 * The timelines of a report (struct atag_report_timeline), as "report --timeline"
 * writes them in text and JSON (the CSV is atag-render-csv.c's), and as the HTML
 * page embeds them (atag-render-html.c).
 *
 * Per file and source: the buckets (start, width), the total live bytes at each
 * bucket's end and the most inside it, the same for the top call sites in the
 * report's order (at most @limit), and the peak: when, how much, and the call
 * sites and stacks that held it (at most @limit of each, most first).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-json.h"
#include "atag-render.h"
#include "atag-render-timeline.h"
#include "atag-report.h"
#include "atag-timeline.h"
#include "atag-utils.h"

#define SITE_LEN	512
/* text: the call sites shown as columns without options */
#define TEXT_COLUMNS	5

size_t atag_render_timeline_sites(const struct atag_report *r, const struct atag_report_timeline *t,
				  long limit, const struct atag_report_timeline_site **out)
{
	const struct atag_report_timeline_site *s;
	size_t i, n = 0;

	for (i = 0; i < r->nr_selected && (limit <= 0 || n < (size_t)limit); i++) {
		s = atag_report_timeline_site(t, r->tags[i]);
		if (s)
			out[n++] = s;
	}
	return n;
}

const struct atag_report_timeline_site **atag_render_timeline_room(const struct atag_report *r)
{
	size_t most = 1;
	unsigned int k;

	for (k = 0; k < r->nr_timelines; k++)
		if (r->timelines[k].nr_sites > most)
			most = r->timelines[k].nr_sites;
	return calloc(most, sizeof(const struct atag_report_timeline_site *));
}

static int by_at_peak(const void *a, const void *b)
{
	const struct atag_report_timeline_site *x = *(const void * const *)a;
	const struct atag_report_timeline_site *y = *(const void * const *)b;

	return x->at_peak < y->at_peak ? 1 : x->at_peak > y->at_peak ? -1 : 0;
}

size_t atag_render_timeline_peak_sites(const struct atag_report_timeline *t, long limit,
				       const struct atag_report_timeline_site **out)
{
	size_t i, n = 0;

	for (i = 0; i < t->nr_sites; i++)
		if (t->sites[i].at_peak && t->sites[i].tag->selected)
			out[n++] = &t->sites[i];
	/* stable for equal values: the report's order of tags is not at hand; the name is */
	qsort(out, n, sizeof(*out), by_at_peak);
	return limit > 0 && (size_t)limit < n ? (size_t)limit : n;
}

/* ------------------------------------------------------------ JSON */

static void site_fields(struct atag_json *w, const struct atag_report_tag *tag)
{
	char buf[SITE_LEN];

	atag_json_str(w, "site", atag_report_site(tag, buf, sizeof(buf)));
	atag_json_str(w, "function", tag->function);
	atag_json_str(w, "file", tag->file);
	atag_json_known_int(w, "line", tag->line);
	atag_json_str(w, "module", tag->module);
}

static void series(struct atag_json *w, const char *key, const uint64_t *v, unsigned int n)
{
	unsigned int i;

	atag_json_open_array(w, key);
	for (i = 0; i < n; i++)
		atag_json_uint(w, NULL, v[i]);
	atag_json_close(w);
}

/*
 * A stack's live bytes at the peak, as it stands for its call site: scaled when its
 * source's stacks were sampled; UINT64_MAX for the allocations a sampling left
 * without a stack (not shown: the scaled stacks stand for them).
 */
static uint64_t at_peak(const struct atag_report *r, const struct atag_report_timeline_stack *st)
{
	if (!atag_report_stacks_sampled(r, st->tag))
		return st->at_peak;
	if (!st->stack || !st->stack->nr_frames)
		return UINT64_MAX;
	return st->at_peak * atag_report_stack_scale(r, st->tag) + 0.5;
}

static void peak_json(struct atag_json *w, const struct atag_report *r,
		      const struct atag_report_timeline *t, long limit,
		      const struct atag_report_timeline_site **tmp)
{
	const struct atag_report_timeline_stack *st;
	size_t i, n;

	atag_json_open_object(w, "peak");
	atag_json_uint(w, "live_bytes", t->peak);
	atag_json_uint(w, "ts", t->peak_ts);
	atag_json_open_array(w, "sites");
	n = atag_render_timeline_peak_sites(t, limit, tmp);
	for (i = 0; i < n; i++) {
		atag_json_break(w);
		atag_json_open_object(w, NULL);
		site_fields(w, tmp[i]->tag);
		atag_json_uint(w, "live_bytes", tmp[i]->at_peak);
		atag_json_close(w);
	}
	atag_json_close(w);
	atag_json_open_array(w, "stacks");
	for (i = n = 0; i < t->nr_stacks && (limit <= 0 || n < (size_t)limit); i++) {
		st = &t->stacks[i];
		if (!st->tag->selected || at_peak(r, st) == UINT64_MAX)
			continue;
		n++;
		atag_json_break(w);
		atag_json_open_object(w, NULL);
		site_fields(w, st->tag);
		if (st->stack)
			atag_json_strs(w, "frames", st->stack->frames, st->stack->nr_frames);
		else
			atag_json_strs(w, "frames", NULL, 0);
		atag_json_uint(w, "live_bytes", at_peak(r, st));
		atag_json_bool(w, "estimate", atag_report_stacks_sampled(r, st->tag));
		atag_json_close(w);
	}
	atag_json_close(w);
	atag_json_close(w);
}

int atag_render_timelines_json(struct atag_json *w, const struct atag_report *r, long limit)
{
	const struct atag_report_timeline_site **tmp;
	const struct atag_report_timeline *t;
	size_t i, n;
	unsigned int k;

	tmp = atag_render_timeline_room(r);
	if (!tmp)
		return atag_err(-ENOMEM);
	atag_json_open_array(w, "timelines");
	for (k = 0; k < r->nr_timelines; k++) {
		t = &r->timelines[k];
		atag_json_break(w);
		atag_json_open_object(w, NULL);
		atag_json_str(w, "trace", r->files[t->file].path);
		atag_json_str(w, "source", t->source);
		atag_json_uint(w, "start_ts", t->start);
		atag_json_uint(w, "bucket_ns", t->width);
		atag_json_uint(w, "buckets", t->nr_buckets);
		atag_json_uint(w, "buckets_asked", t->nr_asked);
		atag_json_open_object(w, "total");
		series(w, "live_bytes", t->total, t->nr_buckets);
		series(w, "max_live_bytes", t->total_max, t->nr_buckets);
		atag_json_close(w);
		atag_json_break(w);
		peak_json(w, r, t, limit, tmp);
		atag_json_break(w);
		atag_json_open_array(w, "sites");
		n = atag_render_timeline_sites(r, t, limit, tmp);
		for (i = 0; i < n; i++) {
			atag_json_break(w);
			atag_json_open_object(w, NULL);
			site_fields(w, tmp[i]->tag);
			atag_json_uint(w, "peak_live_bytes", tmp[i]->tag->counts.peak_live_bytes);
			atag_json_uint(w, "at_peak", tmp[i]->at_peak);
			series(w, "live_bytes", tmp[i]->live, t->nr_buckets);
			series(w, "max_live_bytes", tmp[i]->max, t->nr_buckets);
			atag_json_close(w);
		}
		atag_json_close(w);
		atag_json_close(w);
	}
	atag_json_close(w);
	free(tmp);
	return 0;
}

int atag_render_timeline_json(const struct atag_report *r, const struct atag_render_opts *o,
			      FILE *f)
{
	struct atag_json w;
	int ret;

	atag_json_init(&w, f, 0);
	atag_json_open_object(&w, NULL);
	ret = atag_render_timelines_json(&w, r, o ? o->limit : 0);
	atag_json_close(&w);
	return ret ? ret : atag_json_finish(&w);
}

/* ------------------------------------------------------------ text */

static void seconds(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000 / 1000));
}

/* A duration: ns, us, ms or s, whichever reads best. */
static void duration(char *buf, size_t len, uint64_t ns)
{
	if (ns < 10000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 10000000000ULL)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.1f s", ns / 1e9);
}

static void text_peak(const struct atag_report *r, const struct atag_report_timeline *t,
		      long limit, const struct atag_report_timeline_site **tmp, FILE *f)
{
	const struct atag_report_timeline_stack *st;
	char a[64], b[64], site[SITE_LEN];
	size_t i, n;
	unsigned int j;

	seconds(a, sizeof(a), t->peak_ts);
	fprintf(f, "peak: %s live at %s\n", atag_format_size(b, sizeof(b), t->peak), a);
	n = atag_render_timeline_peak_sites(t, limit, tmp);
	if (n)
		fprintf(f, "  call sites at the peak:\n");
	for (i = 0; i < n; i++)
		fprintf(f, "    %10s  %s\n", atag_format_size(b, sizeof(b), tmp[i]->at_peak),
			atag_report_site(tmp[i]->tag, site, sizeof(site)));
	for (i = n = 0; i < t->nr_stacks && (limit <= 0 || n < (size_t)limit); i++) {
		st = &t->stacks[i];
		if (!st->tag->selected || at_peak(r, st) == UINT64_MAX)
			continue;
		if (!n++)
			fprintf(f, "  stacks at the peak:\n");
		fprintf(f, "   %s%10s  %s\n", atag_report_stacks_sampled(r, st->tag) ? "~" : " ",
			atag_format_size(b, sizeof(b), at_peak(r, st)),
			atag_report_site(st->tag, site, sizeof(site)));
		if (!st->stack || !st->stack->nr_frames)
			fprintf(f, "%16s(no stack)\n", "");
		for (j = 0; st->stack && j < st->stack->nr_frames; j++) {
			fprintf(f, "%16s", "");
			atag_text_fputs(st->stack->frames[j], f);
			fputc('\n', f);
		}
	}
}

static void text_one(const struct atag_report *r, const struct atag_report_timeline *t,
		     long limit, const struct atag_report_timeline_site **tmp, FILE *f)
{
	char a[64], b[64], site[SITE_LEN];
	unsigned int k;
	size_t i, n;

	fprintf(f, "timeline of ");
	atag_text_fputs(r->files[t->file].path, f);
	if (!t->nr_buckets) {
		fprintf(f, ", %s: no allocation or free\n", t->source);
		return;
	}
	seconds(a, sizeof(a), t->start);
	duration(b, sizeof(b), t->width);
	fprintf(f, ", %s: %u buckets of %s from %s", t->source, t->nr_buckets, b, a);
	/* the width doubles while the trace streams: half to all of those asked are used */
	if (t->nr_buckets < t->nr_asked && t->width <= ATAG_TIMELINE_FIRST_WIDTH)
		fprintf(f, " (%u asked: the trace spans no more of the narrowest)", t->nr_asked);
	else if (t->nr_buckets < t->nr_asked)
		fprintf(f, " (%u asked: a bucket's width doubles while the trace streams, so "
			"%u to %u of them cover it)", t->nr_asked, (t->nr_asked + 1) / 2,
			t->nr_asked);
	fputc('\n', f);
	text_peak(r, t, limit, tmp, f);
	n = atag_render_timeline_sites(r, t, limit, tmp);
	for (i = 0; i < n; i++)
		fprintf(f, "  [%zu] %s\n", i + 1,
			atag_report_site(tmp[i]->tag, site, sizeof(site)));
	fprintf(f, "%17s %11s", "bucket end", "total");
	for (i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "[%zu]", i + 1);
		fprintf(f, " %11s", a);
	}
	fputc('\n', f);
	for (k = 0; k < t->nr_buckets; k++) {
		seconds(a, sizeof(a), t->start + (uint64_t)(k + 1) * t->width);
		fprintf(f, "%17s %11s", a, atag_format_size(b, sizeof(b), t->total[k]));
		for (i = 0; i < n; i++)
			fprintf(f, " %11s", atag_format_size(b, sizeof(b), tmp[i]->live[k]));
		fputc('\n', f);
	}
}

int atag_render_timeline_text(const struct atag_report *r, const struct atag_render_opts *o,
			      FILE *f)
{
	const struct atag_report_timeline_site **tmp;
	long limit = o ? o->limit : TEXT_COLUMNS;
	unsigned int k;

	tmp = atag_render_timeline_room(r);
	if (!tmp)
		return atag_err(-ENOMEM);
	if (!r->nr_timelines)
		fprintf(f, "no timeline: no allocation or free was read\n");
	for (k = 0; k < r->nr_timelines; k++) {
		if (k)
			fputc('\n', f);
		text_one(r, &r->timelines[k], limit, tmp, f);
	}
	fprintf(f, "\nlive bytes at the end of each bucket (the total also counts call sites "
		"not shown)\n");
	free(tmp);
	return ferror(f) ? atag_err(-EIO) : 0;
}
