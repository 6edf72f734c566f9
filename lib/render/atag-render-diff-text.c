// SPDX-License-Identifier: LGPL-2.1
/*
 * The text rendering of a diff: what each side read, the totals before, after
 * and their change, then one row of changes (after less before) per call site,
 * largest first, and on request each call site's changed stacks. A diff of more
 * than one source (slab and page events) has a totals table per source, never a
 * sum of them (their bytes overlap), and a SOURCE column.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-report-diff.h"
#include "atag-render-diff.h"
#include "atag-report.h"
#include "atag-table.h"
#include "atag-utils.h"

#define SITE_LEN	512

static const char * const side_names[] = { "before", "after" };

/* A value of one side: a count, or a size in binary units; fractional when normalised. */
static char *value_cell(const struct atag_diff *d, double v, bool bytes)
{
	char buf[32];

	if (bytes)
		return strdup(atag_format_size(buf, sizeof(buf), (unsigned long long)llround(v)));
	if (atag_diff_normalised(d))
		return atag_strf("%.2f", v);
	return atag_strf("%.0f", v);
}

/* A change: "+3", "-1.50", "+1.25 KiB", or "0". */
static char *delta_cell(const struct atag_diff *d, double v, bool bytes)
{
	char buf[32];

	if (bytes && llround(v) == 0)
		v = 0;
	if (v == 0 || (!bytes && atag_diff_normalised(d) && fabs(v) < 0.005))
		return strdup("0");
	if (bytes) {
		atag_format_size(buf, sizeof(buf), (unsigned long long)llround(fabs(v)));
		return atag_strf("%c%s", v < 0 ? '-' : '+', buf);
	}
	if (atag_diff_normalised(d))
		return atag_strf("%+.2f", v);
	return atag_strf("%+.0f", v);
}

/* The change of a lifetime figure: "-" when a side has no lifetime. */
static char *lifetime_cell(const struct atag_lifetime *lt, int i)
{
	uint64_t a, b;
	char buf[32];

	if (!atag_diff_lifetime(&lt[0], i, &a) || !atag_diff_lifetime(&lt[1], i, &b))
		return strdup("-");
	if (a == b)
		return strdup("0");
	return atag_strf("%c%s", b < a ? '-' : '+',
			 atag_format_duration(buf, sizeof(buf), b < a ? a - b : b - a));
}

/* ------------------------------------------------------------ summary */

static void side_files(const struct atag_report *r, const char *side, FILE *f)
{
	const struct atag_report_file *rf;
	unsigned int i, k;
	char a[32];

	for (i = 0; i < r->nr_files; i++) {
		rf = &r->files[i];
		fprintf(f, "%-7s ", side);
		atag_text_fputs(rf->path, f);
		fputs(": ", f);
		for (k = 0; k < rf->nr_sources; k++)
			fprintf(f, "%s%s", k ? k + 1 == rf->nr_sources ? " and " : ", " : "",
				rf->sources[k]);
		if (!rf->nr_sources)
			fputs(rf->source, f);
		fputs(" events, buffer ", f);
		atag_text_fputs(rf->buffer[0] ? rf->buffer : "top", f);
		fprintf(f, ", %llu records over %s\n", (unsigned long long)rf->records,
			atag_format_duration(a, sizeof(a), rf->last_ts - rf->first_ts));
		side = "";
	}
}

static void norm_line(const struct atag_diff *d, FILE *f)
{
	char a[32], b[32];

	if (d->norm == ATAG_DIFF_NORM_DURATION)
		fprintf(f, "values per second (before: %s, after: %s)\n",
			atag_format_duration(a, sizeof(a), d->duration_ns[0]),
			atag_format_duration(b, sizeof(b), d->duration_ns[1]));
	else if (d->norm == ATAG_DIFF_NORM_OPERATIONS)
		fprintf(f, "values per operation (before: %g operations, after: %g)\n", d->per[0],
			d->per[1]);
}

/* The totals of @t (two sides), headed by @name ("" for the diff's one source). */
static void totals(const struct atag_diff *d, const char *name, const struct atag_totals *t,
		   FILE *f)
{
	const char *head[] = { name, "BEFORE", "AFTER", "CHANGE" };
	static const char * const label[] = {
		"allocs", "frees", "matched frees", "unmatched frees", "partial frees", "replaced",
		"live at end", "live bytes", "allocated", "freed",
	};
	const struct atag_counter_field *fl;
	struct atag_table tb;
	char *row[4];
	int i;

	atag_table_init(&tb, 4, 1u);
	atag_table_add_const(&tb, head);
	for (i = 0; atag_total_fields[i].name; i++) {
		fl = &atag_total_fields[i];
		row[0] = strdup(label[i]);
		row[1] = value_cell(d, atag_diff_value(d, 0, &t[0], fl), fl->bytes);
		row[2] = value_cell(d, atag_diff_value(d, 1, &t[1], fl), fl->bytes);
		row[3] = delta_cell(d, atag_diff_delta(d, &t[0], &t[1], fl), fl->bytes);
		atag_table_add(&tb, row);
	}
	fputc('\n', f);
	atag_table_print(&tb, 0, f);
	atag_table_free(&tb);
}

static void notices(const struct atag_report *r, const char *side, FILE *f)
{
	unsigned int i;

	for (i = 0; i < r->nr_notices; i++) {
		fprintf(f, "  ! %s: ", side);
		atag_text_fputs(r->notices[i], f);
		fputc('\n', f);
	}
	for (i = 0; i < r->nr_remarks; i++) {
		fprintf(f, "  - %s: ", side);
		atag_text_fputs(r->remarks[i], f);
		fputc('\n', f);
	}
}

static void summary(const struct atag_diff *d, FILE *f)
{
	int s;

	for (s = 0; s < 2; s++)
		side_files(d->reports[s], side_names[s], f);
	norm_line(d, f);
	if (d->nr_sources < 2)
		totals(d, "", d->totals, f);
	for (s = 0; d->nr_sources > 1 && s < (int)d->nr_sources; s++)
		totals(d, d->sources[s].name, d->sources[s].totals, f);
	if (d->nr_sources > 1)
		fprintf(f, "\n(each source apart: slab and page bytes overlap, as the pages slab "
			"takes are page allocations)\n");
	fprintf(f, "\ncall sites    %zu changed, %zu appeared, %zu disappeared, %zu unchanged\n",
		d->nr_changed, d->nr_appeared, d->nr_gone, d->nr_same);
	fprintf(f, "data          %s\n", d->complete ? "complete" :
		"INCOMPLETE: a side undercounts, so does the change");
	for (s = 0; s < 2; s++)
		notices(d->reports[s], side_names[s], f);
}

/* ------------------------------------------------------------ call sites */

#define SITE_COLS	12	/* with SOURCE, when the diff has more than one */
/* the changes of the table, in its order */
static const int site_counters[] = {
	ATAG_COUNTER_LIVE_BYTES, ATAG_COUNTER_LIVE, ATAG_COUNTER_ALLOCS, ATAG_COUNTER_FREES,
	ATAG_COUNTER_PEAK_LIVE_BYTES, ATAG_COUNTER_BYTES_ALLOCED,
};
#define NR_SITE_COUNTERS	(sizeof(site_counters) / sizeof(site_counters[0]))

/*
 * Left out, in this order, when the width is limited and the table does not fit;
 * LIVE BYTES, ALLOCS, ALLOCATED, the status and the call site stay.
 */
static const char * const site_drop[] = {
	"P99", "FREES", "PEAK LIVE", "MAX", "P50", "LIVE", NULL,
};

static const char *status_cell(enum atag_diff_status s)
{
	switch (s) {
	case ATAG_DIFF_APPEARED:
		return "new";
	case ATAG_DIFF_GONE:
		return "gone";
	case ATAG_DIFF_SAME:
		return "same";
	default:
		return "";
	}
}

static void site_row(struct atag_table *tb, const struct atag_diff *d,
		     const struct atag_diff_site *s, bool mixed)
{
	const struct atag_counter_field *fl;
	char name[SITE_LEN], *row[SITE_COLS];
	size_t i;
	int n = 0;

	for (i = 0; i < NR_SITE_COUNTERS; i++) {
		fl = &atag_counter_fields[site_counters[i]];
		row[n++] = delta_cell(d, atag_diff_delta(d, &s->counts[0], &s->counts[1], fl),
				      fl->bytes);
	}
	row[n++] = lifetime_cell(s->lifetimes, 0);
	row[n++] = lifetime_cell(s->lifetimes, 2);
	row[n++] = lifetime_cell(s->lifetimes, 3);
	if (mixed)
		row[n++] = strdup(s->source);
	row[n++] = strdup(status_cell(s->status));
	row[n] = strdup(atag_diff_site_name(s, name, sizeof(name)));
	atag_table_add(tb, row);
}

static void print_stacks(const struct atag_diff *d, const struct atag_diff_site *s, FILE *f)
{
	const struct atag_counter_field *c = atag_counter_fields;
	const struct atag_diff_stack *st;
	char *a, *l, *b;
	unsigned int i;
	size_t k;

	for (k = 0; k < s->nr_stacks; k++) {
		st = s->stacks[k];
		a = delta_cell(d, atag_diff_delta(d, &st->counts[0], &st->counts[1],
						  &c[ATAG_COUNTER_ALLOCS]), false);
		l = delta_cell(d, atag_diff_delta(d, &st->counts[0], &st->counts[1],
						  &c[ATAG_COUNTER_LIVE]), false);
		b = delta_cell(d, atag_diff_delta(d, &st->counts[0], &st->counts[1],
						  &c[ATAG_COUNTER_LIVE_BYTES]), true);
		fprintf(f, "      %s allocs, %s live (%s)%s%s:\n", a ? a : "?", l ? l : "?",
			b ? b : "?", st->status == ATAG_DIFF_CHANGED ? "" : ", ",
			st->status == ATAG_DIFF_CHANGED ? "" : status_cell(st->status));
		free(a);
		free(l);
		free(b);
		if (!st->nr_frames)
			fprintf(f, "          (no stack recorded)\n");
		for (i = 0; i < st->nr_frames; i++) {
			fprintf(f, "          ");
			atag_text_fputs(st->frames[i], f);
			fputc('\n', f);
		}
	}
}

static void sites(const struct atag_diff *d, const struct atag_render_opts *o, FILE *f)
{
	const char *head[SITE_COLS] = {
		"LIVE BYTES", "LIVE", "ALLOCS", "FREES", "PEAK LIVE", "ALLOCATED", "P50", "P99",
		"MAX", "", "CALL SITE",
	};
	bool mixed = d->nr_sources > 1;
	int cols = SITE_COLS - !mixed;
	size_t i, n = d->nr_sites;
	struct atag_table tb;
	unsigned int left;

	if (o && o->limit > 0 && (size_t)o->limit < n)
		n = o->limit;
	if (!n) {
		fprintf(f, "\nno call site changed\n");
		return;
	}
	left = 1u << (cols - 1) | 1u << (cols - 2);
	if (mixed) {
		head[9] = "SOURCE";
		head[10] = "";
		head[11] = "CALL SITE";
		left |= 1u << (cols - 3);
	}
	atag_table_init(&tb, cols, left);
	tb.max_width = o ? o->columns : 0;
	tb.drop = site_drop;
	atag_table_add_const(&tb, head);
	for (i = 0; i < n; i++)
		site_row(&tb, d, d->sites[i], mixed);
	atag_table_fit(&tb, 0);
	fprintf(f, "\nchanges (after less before) by call site, largest change of %s first:\n",
		d->sort);
	for (i = 0; i < (size_t)tb.rows; i++) {
		atag_table_print_row(&tb, i, 0, f);
		if (o && o->stacks && i > 0)
			print_stacks(d, d->sites[i - 1], f);
	}
	atag_table_print_hidden(&tb, f);
	if (n < d->nr_sites)
		fprintf(f, "... %zu more call sites (-n 0 shows all)\n", d->nr_sites - n);
	atag_table_free(&tb);
}

/**
 * atag_render_diff_text - write a diff as text
 * @d: the diff
 * @o: limit (rows, 0 for all) and stacks (each call site's changed stacks); NULL:
 *     all rows, no stacks
 * @f: where to write
 *
 * Returns 0, or -1 when writing failed.
 */
int atag_render_diff_text(const struct atag_diff *d, const struct atag_render_opts *o, FILE *f)
{
	summary(d, f);
	sites(d, o, f);
	return ferror(f) ? -1 : 0;
}
