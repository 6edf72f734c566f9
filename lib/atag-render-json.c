// SPDX-License-Identifier: LGPL-2.1
/*
 * The JSON rendering of a report: one object, the contract of the report command
 * (Documentation/trace-cmd-alloc-tag-report.1.txt):
 *
 *   { "complete", "totals": {...}, "tags": [ {..., "lifetime_ns": {...},
 *     "stacks": [...]} ], "live": [...], "files": [...], "notices": [...] }
 *
 * Pointers are "0x..." strings; numbers are exact integers; unknowns are null.
 */
#include <stdio.h>

#include "atag-report.h"

static void str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p) {
		/* write runs that need no escaping in one go */
		for (run = p; *p >= 0x20 && *p != '"' && *p != '\\'; p++)
			;
		fwrite(run, 1, p - run, f);
		if (!*p)
			break;
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else
			fprintf(f, "\\u%04x", *p);
		p++;
	}
	fputc('"', f);
}

static void key(FILE *f, const char *k, int *first)
{
	fputs(*first ? "" : ",", f);
	*first = 0;
	str(f, k);
	fputc(':', f);
}

static void num(FILE *f, const char *k, unsigned long long v, int *first)
{
	key(f, k, first);
	fprintf(f, "%llu", v);
}

static void hex(FILE *f, const char *k, unsigned long long v, int *first)
{
	key(f, k, first);
	fprintf(f, "\"0x%llx\"", v);
}

static void totals(FILE *f, const struct atag_totals *t)
{
	int first = 1;

	fputc('{', f);
	num(f, "allocs", t->allocs, &first);
	num(f, "frees", t->frees, &first);
	num(f, "matched_frees", t->matched_frees, &first);
	num(f, "unmatched_frees", t->unmatched_frees, &first);
	num(f, "partial_frees", t->partial_frees, &first);
	num(f, "replaced", t->replaced, &first);
	num(f, "live", t->live, &first);
	num(f, "live_bytes", t->live_bytes, &first);
	num(f, "bytes_alloced", t->bytes_alloced, &first);
	num(f, "bytes_freed", t->bytes_freed, &first);
	fputc('}', f);
}

static void lifetimes(FILE *f, const struct atag_lifetime *lt)
{
	static const struct { const char *name; double pct; } pcts[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 },
	};
	int first = 1;
	size_t i;

	fputc('{', f);
	num(f, "count", lt->count, &first);
	key(f, "min", &first);
	lt->count ? fprintf(f, "%llu", (unsigned long long)lt->min) : fputs("null", f);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		key(f, pcts[i].name, &first);
		if (lt->count)
			fprintf(f, "%llu",
				(unsigned long long)atag_lifetime_percentile(lt, pcts[i].pct));
		else
			fputs("null", f);
	}
	key(f, "max", &first);
	lt->count ? fprintf(f, "%llu", (unsigned long long)lt->max) : fputs("null", f);
	fputc('}', f);
}

static void frames(FILE *f, char * const *fr, unsigned int nr)
{
	unsigned int i;

	fputc('[', f);
	for (i = 0; i < nr; i++) {
		fputs(i ? "," : "", f);
		str(f, fr[i]);
	}
	fputc(']', f);
}

static void stacks(FILE *f, const struct atag_report_tag *t)
{
	const struct atag_report_stack *s;
	int first;
	size_t i;

	fputc('[', f);
	for (i = 0; i < t->nr_stacks; i++) {
		s = t->stacks[i];
		first = 1;
		fputs(i ? ",{" : "{", f);
		key(f, "frames", &first);
		frames(f, s->frames, s->nr_frames);
		num(f, "allocs", s->allocs, &first);
		num(f, "live", s->live, &first);
		num(f, "live_bytes", s->live_bytes, &first);
		num(f, "bytes_alloced", s->bytes_alloced, &first);
		fputc('}', f);
	}
	fputc(']', f);
}

static void tag(FILE *f, const struct atag_report_tag *t)
{
	int first = 1;

	fputc('{', f);
	hex(f, "tag", t->tag, &first);
	key(f, "function", &first);
	str(f, t->function);
	key(f, "file", &first);
	str(f, t->file);
	key(f, "line", &first);
	t->line >= 0 ? fprintf(f, "%ld", t->line) : fputs("null", f);
	key(f, "module", &first);
	str(f, t->module);
	key(f, "offset", &first);
	t->offset >= 0 ? fprintf(f, "%lld", t->offset) : fputs("null", f);
	num(f, "allocs", t->allocs, &first);
	num(f, "frees", t->frees, &first);
	num(f, "unmatched_frees", t->unmatched_frees, &first);
	num(f, "partial_frees", t->partial_frees, &first);
	num(f, "replaced", t->replaced, &first);
	num(f, "live", t->live, &first);
	num(f, "live_bytes", t->live_bytes, &first);
	num(f, "peak_live_bytes", t->peak_live_bytes, &first);
	num(f, "bytes_alloced", t->bytes_alloced, &first);
	num(f, "bytes_freed", t->bytes_freed, &first);
	key(f, "lifetime_ns", &first);
	lifetimes(f, &t->lifetimes);
	key(f, "stacks", &first);
	stacks(f, t);
	fputc('}', f);
}

static void live(FILE *f, const struct atag_report *r, const struct atag_report_live *l)
{
	int first = 1;

	fputc('{', f);
	hex(f, "ptr", l->ptr, &first);
	hex(f, "tag", l->tag->tag, &first);
	key(f, "function", &first);
	str(f, l->tag->function);
	num(f, "bytes", l->bytes, &first);
	key(f, "pid", &first);
	fprintf(f, "%d", l->pid);
	key(f, "comm", &first);
	str(f, l->comm);
	num(f, "alloc_ts", l->alloc_ts, &first);
	num(f, "age_ns", l->age_ns, &first);
	key(f, "file", &first);
	str(f, r->files[l->file].path);
	key(f, "frames", &first);
	if (l->stack)
		frames(f, l->stack->frames, l->stack->nr_frames);
	else
		fputs("[]", f);
	fputc('}', f);
}

static void file(FILE *f, const struct atag_report_file *rf)
{
	unsigned int i;
	int first = 1, k;

	fputc('{', f);
	key(f, "path", &first);
	str(f, rf->path);
	key(f, "source", &first);
	str(f, rf->source);
	key(f, "buffer", &first);
	str(f, rf->buffer);
	key(f, "also_in_buffers", &first);
	fputc('[', f);
	for (i = 0; i < rf->nr_also; i++) {
		fputs(i ? "," : "", f);
		str(f, rf->also[i]);
	}
	fputc(']', f);
	key(f, "events", &first);
	fputc('{', f);
	for (i = 0, k = 1; i < rf->nr_counts; i++)
		num(f, rf->counts[i].event, rf->counts[i].count, &k);
	fputc('}', f);
	num(f, "records", rf->records, &first);
	num(f, "first_ts", rf->first_ts, &first);
	num(f, "last_ts", rf->last_ts, &first);
	key(f, "truncated", &first);
	fputs(rf->truncated ? "true" : "false", f);
	fputc('}', f);
}

static void strings(FILE *f, char * const *s, unsigned int n)
{
	unsigned int i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		str(f, s[i]);
	}
	fputc(']', f);
}

int atag_render_json(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	size_t i, n;
	int first = 1;

	fputc('{', f);
	key(f, "complete", &first);
	fputs(r->complete ? "true" : "false", f);
	key(f, "totals", &first);
	totals(f, &r->totals);
	key(f, "tags", &first);
	fputc('[', f);
	n = o && o->limit > 0 && (size_t)o->limit < r->nr_selected ? (size_t)o->limit :
	    r->nr_selected;
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", f);
		tag(f, r->tags[i]);
	}
	fputs("],\n\"live\":[", f);
	n = o && o->limit > 0 && (size_t)o->limit < r->nr_live ? (size_t)o->limit : r->nr_live;
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", f);
		live(f, r, &r->live[i]);
	}
	fputs("],\n\"files\":[", f);
	for (i = 0; i < r->nr_files; i++) {
		fputs(i ? "," : "", f);
		file(f, &r->files[i]);
	}
	fputs("],\n\"notices\":", f);
	strings(f, r->notices, r->nr_notices);
	fputs(",\n\"remarks\":", f);
	strings(f, r->remarks, r->nr_remarks);
	fputs("}\n", f);
	return ferror(f) ? -1 : 0;
}
