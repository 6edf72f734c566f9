// SPDX-License-Identifier: LGPL-2.1
/*
 * The JSON rendering of a report: one object, the contract of the report command
 * (Documentation/trace-cmd-alloc-tag-report.1.txt):
 *
 *   { "complete", "totals": {...}, "tags": [ {..., "lifetime_ns": {...},
 *     "stacks": [...]} ], "live": [...], "files": [...], "notices": [...] }
 *
 * Pointers are "0x..." strings; numbers are exact integers; unknowns are null.
 * Compact, with a call site or a live allocation a line (lib/util/atag-json.c writes it).
 */
#include <stdio.h>

#include "atag-json.h"
#include "atag-render.h"
#include "atag-render-counters.h"
#include "atag-report.h"

/* A lifetime figure: null when there is no lifetime. */
static void ns(struct atag_json *w, const char *key, const struct atag_lifetime *lt,
	       unsigned long long v)
{
	if (lt->count)
		atag_json_uint(w, key, v);
	else
		atag_json_null(w, key);
}

static void lifetimes(struct atag_json *w, const struct atag_lifetime *lt)
{
	static const struct { const char *name; double pct; } pcts[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 },
	};
	size_t i;

	atag_json_open_object(w, "lifetime_ns");
	atag_json_uint(w, "count", lt->count);
	ns(w, "min", lt, lt->min);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		ns(w, pcts[i].name, lt, lt->count ? atag_lifetime_percentile(lt, pcts[i].pct) : 0);
	ns(w, "max", lt, lt->max);
	atag_json_close(w);
}

static void strings(struct atag_json *w, const char *key, char * const *s, unsigned int n)
{
	unsigned int i;

	atag_json_open_array(w, key);
	for (i = 0; i < n; i++)
		atag_json_str(w, NULL, s[i]);
	atag_json_close(w);
}

static void stacks(struct atag_json *w, const struct atag_report_tag *t)
{
	const struct atag_report_stack *s;
	size_t i;

	atag_json_open_array(w, "stacks");
	for (i = 0; i < t->nr_stacks; i++) {
		s = t->stacks[i];
		atag_json_open_object(w, NULL);
		strings(w, "frames", s->frames, s->nr_frames);
		atag_render_counters_json(w, &s->counts, atag_counter_fields, ATAG_COUNTERS_STACK);
		atag_json_close(w);
	}
	atag_json_close(w);
}

static void tag(struct atag_json *w, const struct atag_report_tag *t)
{
	atag_json_open_object(w, NULL);
	atag_json_hex(w, "tag", t->tag);
	atag_json_str(w, "function", t->function);
	atag_json_str(w, "file", t->file);
	if (t->line >= 0)
		atag_json_int(w, "line", t->line);
	else
		atag_json_null(w, "line");
	atag_json_str(w, "module", t->module);
	if (t->offset >= 0)
		atag_json_int(w, "offset", t->offset);
	else
		atag_json_null(w, "offset");
	atag_render_counters_json(w, &t->counts, atag_counter_fields, ATAG_COUNTERS_ALL);
	atag_json_uint(w, "live_maybe_freed", atag_counters_live_maybe_freed(&t->counts));
	lifetimes(w, &t->lifetimes);
	stacks(w, t);
	atag_json_close(w);
}

static void live(struct atag_json *w, const struct atag_report *r,
		 const struct atag_report_live *l)
{
	atag_json_open_object(w, NULL);
	atag_json_hex(w, "ptr", l->ptr);
	atag_json_hex(w, "tag", l->tag->tag);
	atag_json_str(w, "function", l->tag->function);
	atag_json_uint(w, "bytes", l->bytes);
	atag_json_int(w, "pid", l->pid);
	atag_json_str(w, "comm", l->comm);
	atag_json_uint(w, "alloc_ts", l->alloc_ts);
	atag_json_uint(w, "age_ns", l->age_ns);
	atag_json_str(w, "file", r->files[l->file].path);
	if (l->stack)
		strings(w, "frames", l->stack->frames, l->stack->nr_frames);
	else
		strings(w, "frames", NULL, 0);
	atag_json_close(w);
}

static void file(struct atag_json *w, const struct atag_report_file *rf)
{
	unsigned int i;

	atag_json_open_object(w, NULL);
	atag_json_str(w, "path", rf->path);
	atag_json_str(w, "source", rf->source);
	atag_json_str(w, "buffer", rf->buffer);
	strings(w, "also_in_buffers", rf->also, rf->nr_also);
	atag_json_open_object(w, "events");
	for (i = 0; i < rf->nr_counts; i++)
		atag_json_uint(w, rf->counts[i].event, rf->counts[i].count);
	atag_json_close(w);
	atag_json_uint(w, "records", rf->records);
	atag_json_uint(w, "first_ts", rf->first_ts);
	atag_json_uint(w, "last_ts", rf->last_ts);
	atag_json_bool(w, "truncated", rf->truncated);
	atag_json_close(w);
}

/* How many of @nr rows a list shows: all, or the -n limit. */
static size_t rows(const struct atag_render_opts *o, size_t nr)
{
	return o && o->limit > 0 && (size_t)o->limit < nr ? (size_t)o->limit : nr;
}

int atag_render_json(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	struct atag_json w;
	size_t i;

	atag_json_init(&w, f, 0);
	atag_json_open_object(&w, NULL);
	atag_json_bool(&w, "complete", r->complete);
	atag_json_open_object(&w, "totals");
	atag_render_counters_json(&w, &r->totals, atag_total_fields, ~0u);
	atag_json_close(&w);
	atag_json_open_array(&w, "tags");
	for (i = 0; i < rows(o, r->nr_selected); i++) {
		atag_json_break(&w);
		tag(&w, r->tags[i]);
	}
	atag_json_close(&w);
	atag_json_break(&w);
	atag_json_open_array(&w, "live");
	for (i = 0; i < rows(o, r->nr_live); i++) {
		atag_json_break(&w);
		live(&w, r, &r->live[i]);
	}
	atag_json_close(&w);
	atag_json_break(&w);
	atag_json_open_array(&w, "files");
	for (i = 0; i < r->nr_files; i++)
		file(&w, &r->files[i]);
	atag_json_close(&w);
	atag_json_break(&w);
	strings(&w, "notices", r->notices, r->nr_notices);
	atag_json_break(&w);
	strings(&w, "remarks", r->remarks, r->nr_remarks);
	atag_json_close(&w);
	return atag_json_finish(&w);
}
