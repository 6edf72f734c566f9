// SPDX-License-Identifier: LGPL-2.1
/*
 * The JSON rendering of a diff: one object, the contract of "diff --format json"
 * (Documentation/trace-cmd-alloc-tag-diff.1.txt):
 *
 *   { "complete", "sort", "normalized", "summary": {...},
 *     "totals": { "before", "after", "change" },	(over every source)
 *     "sources": [ { "name", "before", "after", "change" } ],
 *     "sites": [ { identity, "source", "status", "before", "after", "change",
 *                  "stacks": [...] } ],
 *     "files": { "before": [...], "after": [...] }, "notices", "remarks" }
 *
 * Counts and sizes are exact integers, or numbers with six decimals when
 * normalised; lifetimes are integer nanoseconds, null where a side has none.
 * Compact, with a call site a line.
 */
#include <stdio.h>

#include "atag-report-diff.h"
#include "atag-json.h"
#include "atag-render-diff.h"
#include "atag-report.h"

static const char * const side_names[] = { "before", "after" };

static void value(struct atag_json *w, const struct atag_diff *d, const char *key, double v,
		  uint64_t exact)
{
	if (atag_diff_normalised(d))
		atag_json_fixed(w, key, v, 6);
	else
		atag_json_uint(w, key, exact);
}

static void change(struct atag_json *w, const struct atag_diff *d, const char *key, double v)
{
	if (atag_diff_normalised(d))
		atag_json_fixed(w, key, v, 6);
	else
		atag_json_int(w, key, (long long)v);
}

/* The counters of @mask of one side of @pair (two structs of @fields). */
static void side(struct atag_json *w, const struct atag_diff *d, const char *key,
		 const void *obj, int s, const struct atag_counter_field *fields, unsigned int mask)
{
	unsigned int i;

	atag_json_open_object(w, key);
	for (i = 0; fields[i].name; i++)
		if (mask & (1u << i))
			value(w, d, fields[i].name, atag_diff_value(d, s, obj, &fields[i]),
			      atag_counter_value(obj, &fields[i]));
}

static void changes(struct atag_json *w, const struct atag_diff *d, const void *before,
		    const void *after, const struct atag_counter_field *fields, unsigned int mask)
{
	unsigned int i;

	atag_json_open_object(w, "change");
	for (i = 0; fields[i].name; i++)
		if (mask & (1u << i))
			change(w, d, fields[i].name, atag_diff_delta(d, before, after, &fields[i]));
}

static void lifetime(struct atag_json *w, const struct atag_lifetime *lt)
{
	uint64_t ns;
	int i;

	atag_json_open_object(w, "lifetime_ns");
	atag_json_uint(w, "count", lt->count);
	for (i = 0; i < ATAG_DIFF_NR_PCTS; i++) {
		if (atag_diff_lifetime(lt, i, &ns))
			atag_json_uint(w, atag_diff_pcts[i].name, ns);
		else
			atag_json_null(w, atag_diff_pcts[i].name);
	}
	atag_json_close(w);
}

static void lifetime_change(struct atag_json *w, const struct atag_lifetime *lt)
{
	uint64_t a, b;
	int i;

	atag_json_open_object(w, "lifetime_ns");
	atag_json_int(w, "count", (long long)(lt[1].count - lt[0].count));
	for (i = 0; i < ATAG_DIFF_NR_PCTS; i++) {
		if (atag_diff_lifetime(&lt[0], i, &a) && atag_diff_lifetime(&lt[1], i, &b))
			atag_json_int(w, atag_diff_pcts[i].name, (long long)(b - a));
		else
			atag_json_null(w, atag_diff_pcts[i].name);
	}
	atag_json_close(w);
}

static void stack(struct atag_json *w, const struct atag_diff *d, const struct atag_diff_stack *s)
{
	int i;

	atag_json_open_object(w, NULL);
	atag_json_strs(w, "frames", s->frames, s->nr_frames);
	atag_json_str(w, "status", atag_diff_status_name(s->status));
	for (i = 0; i < 2; i++) {
		side(w, d, side_names[i], &s->counts[i], i, atag_counter_fields,
		     ATAG_COUNTERS_STACK);
		atag_json_close(w);
	}
	changes(w, d, &s->counts[0], &s->counts[1], atag_counter_fields, ATAG_COUNTERS_STACK);
	atag_json_close(w);
	atag_json_close(w);
}

static void site(struct atag_json *w, const struct atag_diff *d, const struct atag_diff_site *s)
{
	size_t k;
	int i;

	atag_json_open_object(w, NULL);
	atag_json_str(w, "function", s->function);
	atag_json_str(w, "file", s->file);
	atag_json_known_int(w, "line", s->line);
	atag_json_str(w, "module", s->module);
	atag_json_str(w, "source", s->source);
	atag_json_str(w, "status", atag_diff_status_name(s->status));
	for (i = 0; i < 2; i++) {
		side(w, d, side_names[i], &s->counts[i], i, atag_counter_fields,
		     ATAG_COUNTERS_ALL);
		atag_json_uint(w, "call_sites", s->nr_sites[i]);
		lifetime(w, &s->lifetimes[i]);
		atag_json_close(w);
	}
	changes(w, d, &s->counts[0], &s->counts[1], atag_counter_fields, ATAG_COUNTERS_ALL);
	lifetime_change(w, s->lifetimes);
	atag_json_close(w);
	atag_json_open_array(w, "stacks");
	for (k = 0; k < s->nr_stacks; k++)
		stack(w, d, s->stacks[k]);
	atag_json_close(w);
	atag_json_close(w);
}

static void normalized(struct atag_json *w, const struct atag_diff *d)
{
	if (!atag_diff_normalised(d)) {
		atag_json_null(w, "normalized");
		return;
	}
	atag_json_open_object(w, "normalized");
	if (d->norm == ATAG_DIFF_NORM_DURATION) {
		atag_json_str(w, "per", "second");
		atag_json_uint(w, "before", d->duration_ns[0]);
		atag_json_uint(w, "after", d->duration_ns[1]);
	} else {
		atag_json_str(w, "per", "operation");
		atag_json_fixed(w, "before", d->per[0], 6);
		atag_json_fixed(w, "after", d->per[1], 6);
	}
	atag_json_close(w);
}

static void files(struct atag_json *w, const struct atag_report *r, const char *key)
{
	const struct atag_report_file *rf;
	unsigned int i, k;

	atag_json_open_array(w, key);
	for (i = 0; i < r->nr_files; i++) {
		rf = &r->files[i];
		atag_json_open_object(w, NULL);
		atag_json_str(w, "path", rf->path);
		atag_json_str(w, "source", rf->source);
		atag_json_str(w, "buffer", rf->buffer);
		atag_json_open_object(w, "events");
		for (k = 0; k < rf->nr_counts; k++)
			atag_json_uint(w, rf->counts[k].event, rf->counts[k].count);
		atag_json_close(w);
		atag_json_uint(w, "records", rf->records);
		atag_json_uint(w, "first_ts", rf->first_ts);
		atag_json_uint(w, "last_ts", rf->last_ts);
		atag_json_bool(w, "truncated", rf->truncated);
		atag_json_close(w);
	}
	atag_json_close(w);
}

/* A report's notices or remarks, each prefixed with its side. */
static void lines(struct atag_json *w, const struct atag_diff *d, const char *key, bool notice)
{
	const struct atag_report *r;
	unsigned int i, n;
	char buf[1024];
	int s;

	atag_json_open_array(w, key);
	for (s = 0; s < 2; s++) {
		r = d->reports[s];
		n = notice ? r->nr_notices : r->nr_remarks;
		for (i = 0; i < n; i++) {
			snprintf(buf, sizeof(buf), "%s: %s", side_names[s],
				 notice ? r->notices[i] : r->remarks[i]);
			atag_json_str(w, NULL, buf);
		}
	}
	atag_json_close(w);
}

/**
 * atag_render_diff_json - write a diff as one JSON object
 * @d: the diff
 * @o: limit (call sites, 0 for all); NULL for all
 * @f: where to write
 *
 * Returns 0, or a negative errno when writing failed.
 */
int atag_render_diff_json(const struct atag_diff *d, const struct atag_render_opts *o, FILE *f)
{
	size_t i, n = d->nr_sites;
	struct atag_json w;
	int s;

	if (o && o->limit > 0 && (size_t)o->limit < n)
		n = o->limit;
	atag_json_init(&w, f, 0);
	atag_json_open_object(&w, NULL);
	atag_json_bool(&w, "complete", d->complete);
	atag_json_str(&w, "sort", d->sort);
	normalized(&w, d);
	atag_json_open_object(&w, "summary");
	atag_json_uint(&w, "changed", d->nr_changed);
	atag_json_uint(&w, "appeared", d->nr_appeared);
	atag_json_uint(&w, "disappeared", d->nr_gone);
	atag_json_uint(&w, "unchanged", d->nr_same);
	atag_json_close(&w);
	atag_json_break(&w);
	atag_json_open_object(&w, "totals");
	for (s = 0; s < 2; s++) {
		side(&w, d, side_names[s], &d->totals[s], s, atag_total_fields, ~0u);
		atag_json_close(&w);
	}
	changes(&w, d, &d->totals[0], &d->totals[1], atag_total_fields, ~0u);
	atag_json_close(&w);
	atag_json_close(&w);
	atag_json_break(&w);
	atag_json_open_array(&w, "sources");
	for (i = 0; i < d->nr_sources; i++) {
		const struct atag_diff_source *src = &d->sources[i];

		atag_json_break(&w);
		atag_json_open_object(&w, NULL);
		atag_json_str(&w, "name", src->name);
		for (s = 0; s < 2; s++) {
			if (!src->in[s]) {
				atag_json_null(&w, side_names[s]);
				continue;
			}
			side(&w, d, side_names[s], &src->totals[s], s, atag_total_fields, ~0u);
			atag_json_close(&w);
		}
		changes(&w, d, &src->totals[0], &src->totals[1], atag_total_fields, ~0u);
		atag_json_close(&w);
		atag_json_close(&w);
	}
	atag_json_close(&w);
	atag_json_break(&w);
	atag_json_open_array(&w, "sites");
	for (i = 0; i < n; i++) {
		atag_json_break(&w);
		site(&w, d, d->sites[i]);
	}
	atag_json_close(&w);
	atag_json_break(&w);
	atag_json_open_object(&w, "files");
	for (s = 0; s < 2; s++)
		files(&w, d->reports[s], side_names[s]);
	atag_json_close(&w);
	atag_json_break(&w);
	lines(&w, d, "notices", true);
	atag_json_break(&w);
	lines(&w, d, "remarks", false);
	atag_json_close(&w);
	return atag_json_finish(&w);
}
