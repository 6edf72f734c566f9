// SPDX-License-Identifier: LGPL-2.1
/*
 * The text rendering of a report: a summary, the call sites as an aligned table,
 * and on request each call site's stacks, the live allocations (the leak-suspect
 * view) and log2 lifetime histograms drawn as bars.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-render.h"
#include "atag-render-counters.h"
#include "atag-report.h"
#include "atag-utils.h"

#define MAX_COLS	16
#define SITE_LEN	512

/* A table whose columns are sized to their widest cell. */
struct table {
	int		cols;
	char		**cells;	/* rows x cols */
	int		rows;
	int		width[MAX_COLS];
	unsigned int	left;		/* bit i: column i is left-aligned */
};

static void table_add(struct table *t, char **row)
{
	int c, w;

	t->cells = realloc(t->cells, (size_t)(t->rows + 1) * t->cols * sizeof(char *));
	for (c = 0; c < t->cols; c++) {
		t->cells[t->rows * t->cols + c] = row[c];
		w = strlen(row[c]);
		if (w > t->width[c])
			t->width[c] = w;
	}
	t->rows++;
}

static void table_row(const struct table *t, int r, FILE *f)
{
	const char *cell;
	int c;

	for (c = 0; c < t->cols; c++) {
		cell = t->cells[r * t->cols + c];
		if (c == t->cols - 1 && (t->left & (1u << c)))
			fprintf(f, "%s", cell);		/* no trailing blanks */
		else if (t->left & (1u << c))
			fprintf(f, "%-*s  ", t->width[c], cell);
		else
			fprintf(f, "%*s  ", t->width[c], cell);
	}
	fputc('\n', f);
}

static void table_free(struct table *t)
{
	int i;

	for (i = 0; i < t->rows * t->cols; i++)
		free(t->cells[i]);
	free(t->cells);
}

static char *fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *format, ...)
{
	va_list ap;
	char *s;

	va_start(ap, format);
	if (vasprintf(&s, format, ap) < 0)
		s = NULL;
	va_end(ap);
	return s ? s : strdup("?");
}

static char *dur_cell(const struct atag_lifetime *lt, double pct)
{
	char buf[32];
	uint64_t ns;

	if (!lt->count)
		return strdup("-");
	ns = pct > 100 ? lt->max : atag_lifetime_percentile(lt, pct);
	return strdup(atag_format_duration(buf, sizeof(buf), ns));
}

static size_t nr_rows(const struct atag_render_opts *o, size_t n)
{
	return o->limit > 0 && (size_t)o->limit < n ? (size_t)o->limit : n;
}

static void more(FILE *f, size_t shown, size_t all, const char *what)
{
	if (shown < all)
		fprintf(f, "... %zu more %s (-n 0 shows all)\n", all - shown, what);
}

/* ------------------------------------------------------------ summary */

static void summary_file(const struct atag_report_file *rf, FILE *f)
{
	unsigned int i;
	char a[32];

	fprintf(f, "%s: %s events, buffer %s", rf->path, rf->source,
		rf->buffer[0] ? rf->buffer : "top");
	for (i = 0; i < rf->nr_also; i++)
		fprintf(f, "%s%s", i ? ", " : " (also in buffer ",
			rf->also[i][0] ? rf->also[i] : "top");
	fprintf(f, "%s\n", rf->nr_also ? ")" : "");
	fprintf(f, "  read:");
	for (i = 0; i < rf->nr_counts; i++)
		fprintf(f, "%s %s %llu", i ? "," : "", rf->counts[i].event,
			(unsigned long long)rf->counts[i].count);
	fputc('\n', f);
	if (rf->records)
		fprintf(f, "  span: %llu.%06llu .. %llu.%06llu (%s)\n",
			(unsigned long long)rf->first_ts / 1000000000,
			(unsigned long long)rf->first_ts % 1000000000 / 1000,
			(unsigned long long)rf->last_ts / 1000000000,
			(unsigned long long)rf->last_ts % 1000000000 / 1000,
			atag_format_duration(a, sizeof(a), rf->last_ts - rf->first_ts));
}

/* ------------------------------------------------------------ split and migrated pages */

/*
 * Live allocations that unmatched and partial frees may explain: page allocations
 * split or migrated after they were made have no event of their own (see
 * atag_counters_live_maybe_freed()). Said wherever live allocations are counted
 * or listed, so that their remnants are not taken for leaks.
 */
static void doubt_summary(const struct atag_report *r, FILE *f)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < r->nr_selected; i++)
		n += atag_counters_live_maybe_freed(&r->tags[i]->counts);
	if (n)
		fprintf(f, "              up to %llu of them may be freed already: split or "
			"migrated pages (see below)\n", (unsigned long long)n);
}

/*
 * A line for each of @tags[0 .. @n) with unmatched or partial frees: after the call
 * sites, all of them; after the live view (@live), those with live allocations.
 */
static void doubts(struct atag_report_tag * const *tags, size_t n, bool live, FILE *f)
{
	const struct atag_counters *c;
	char site[SITE_LEN];
	bool head = false;
	size_t i;

	for (i = 0; i < n; i++) {
		c = &tags[i]->counts;
		if ((!c->unmatched_frees && !c->partial_frees) || (live && !c->live))
			continue;
		if (!head && live)
			fprintf(f, "\nmay be freed already (their call sites' unmatched and "
				"partial frees):\n");
		else if (!head)
			fprintf(f, "\nunmatched and partial frees: pages split, migrated or partly "
				"freed after allocation, or allocated before tracing began:\n");
		head = true;
		fprintf(f, "  %s: ", atag_report_site(tags[i], site, sizeof(site)));
		if (!live)
			fprintf(f, "%llu unmatched, %llu partial: ",
				(unsigned long long)c->unmatched_frees,
				(unsigned long long)c->partial_frees);
		if (c->live)
			fprintf(f, "%sup to %llu of its %llu live allocations\n",
				live ? "" : "may account for ",
				(unsigned long long)atag_counters_live_maybe_freed(c),
				(unsigned long long)c->live);
		else
			fprintf(f, "no live allocation\n");
	}
}

static void summary(const struct atag_report *r, FILE *f)
{
	const struct atag_totals *t = &r->totals;
	char a[32], b[32];
	unsigned int i;

	for (i = 0; i < r->nr_files; i++)
		summary_file(&r->files[i], f);
	fprintf(f, "\nallocs        %llu (%s)\n", (unsigned long long)t->allocs,
		atag_format_size(a, sizeof(a), t->bytes_alloced));
	fprintf(f, "frees         %llu (%s): matched %llu, unmatched %llu, partial %llu\n",
		(unsigned long long)t->frees, atag_format_size(b, sizeof(b), t->bytes_freed),
		(unsigned long long)t->matched_frees, (unsigned long long)t->unmatched_frees,
		(unsigned long long)t->partial_frees);
	fprintf(f, "replaced      %llu (allocated again while live: free missed)\n",
		(unsigned long long)t->replaced);
	fprintf(f, "live at end   %llu (%s)\n", (unsigned long long)t->live,
		atag_format_size(a, sizeof(a), t->live_bytes));
	doubt_summary(r, f);
	if (r->nr_selected < r->nr_tags)
		fprintf(f, "call sites    %zu of %zu selected by the filters\n", r->nr_selected,
			r->nr_tags);
	fprintf(f, "data          %s\n", r->complete ? "complete" :
		"INCOMPLETE: the numbers undercount");
	for (i = 0; i < r->nr_notices; i++)
		fprintf(f, "  ! %s\n", r->notices[i]);
	for (i = 0; i < r->nr_remarks; i++)
		fprintf(f, "  - %s\n", r->remarks[i]);
}

/* ------------------------------------------------------------ call sites */

#define SITE_COLS	12
/* the counters of the table: ALLOCS .. ALLOCATED */
#define SITE_COUNTERS	(ATAG_COUNTER(ALLOCS) | ATAG_COUNTER(FREES) | \
			 ATAG_COUNTER(UNMATCHED_FREES) | ATAG_COUNTER(LIVE) | \
			 ATAG_COUNTER(LIVE_BYTES) | ATAG_COUNTER(PEAK_LIVE_BYTES) | \
			 ATAG_COUNTER(BYTES_ALLOCED))

static void site_row(struct table *tb, const struct atag_report_tag *t)
{
	char site[SITE_LEN], *row[SITE_COLS];
	int n;

	n = atag_render_counters_cells(row, &t->counts, atag_counter_fields, SITE_COUNTERS);
	row[n++] = dur_cell(&t->lifetimes, 50);
	row[n++] = dur_cell(&t->lifetimes, 90);
	row[n++] = dur_cell(&t->lifetimes, 99);
	row[n++] = dur_cell(&t->lifetimes, 101);
	row[n] = strdup(atag_report_site(t, site, sizeof(site)));
	table_add(tb, row);
}

static void print_stacks(const struct atag_report_tag *t, FILE *f)
{
	const struct atag_report_stack *s;
	unsigned int i;
	size_t k;

	for (k = 0; k < t->nr_stacks; k++) {
		s = t->stacks[k];
		fprintf(f, "      %5.1f%% of allocs, %5.1f%% of live bytes (%llu allocs, %llu live):\n",
			t->counts.allocs ? 100.0 * s->counts.allocs / t->counts.allocs : 0.0,
			t->counts.live_bytes ?
			100.0 * s->counts.live_bytes / t->counts.live_bytes : 0.0,
			(unsigned long long)s->counts.allocs, (unsigned long long)s->counts.live);
		if (!s->nr_frames)
			fprintf(f, "          (no stack recorded)\n");
		for (i = 0; i < s->nr_frames; i++)
			fprintf(f, "          %s\n", s->frames[i]);
	}
}

static void sites(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	static const char * const head[SITE_COLS] = {
		"ALLOCS", "FREES", "UNMATCHED", "LIVE", "LIVE BYTES", "PEAK LIVE", "ALLOCATED",
		"P50", "P90", "P99", "MAX", "CALL SITE",
	};
	struct table tb = { .cols = SITE_COLS, .left = 1u << (SITE_COLS - 1) };
	size_t i, n = nr_rows(o, r->nr_selected);
	char *row[SITE_COLS];
	int c;

	for (c = 0; c < tb.cols; c++)
		row[c] = strdup(head[c]);
	table_add(&tb, row);
	for (i = 0; i < n; i++)
		site_row(&tb, r->tags[i]);
	fputc('\n', f);
	for (i = 0; i < (size_t)tb.rows; i++) {
		table_row(&tb, i, f);
		if (o->stacks && i > 0)
			print_stacks(r->tags[i - 1], f);
	}
	if (!n)
		fprintf(f, "(no call site)\n");
	more(f, n, r->nr_selected, "call sites");
	table_free(&tb);
	doubts(r->tags, n, false, f);
}

/* ------------------------------------------------------------ live allocations */

static void live(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	static const char * const head[] = { "AGE", "PTR", "BYTES", "PID", "COMM", "CALL SITE" };
	struct table tb = { .cols = 6, .left = 1u << 4 | 1u << 5 };
	const struct atag_report_live *l;
	size_t i, n = nr_rows(o, r->nr_live);
	char site[SITE_LEN], a[32], *row[6];
	unsigned int k;
	int c;

	fprintf(f, "\nlive at the end of the trace, oldest first:\n");
	for (c = 0; c < tb.cols; c++)
		row[c] = strdup(head[c]);
	table_add(&tb, row);
	for (i = 0; i < n; i++) {
		l = &r->live[i];
		row[0] = strdup(atag_format_duration(a, sizeof(a), l->age_ns));
		row[1] = fmt("0x%llx", (unsigned long long)l->ptr);
		row[2] = fmt("%llu", (unsigned long long)l->bytes);
		row[3] = fmt("%d", l->pid);
		row[4] = strdup(l->comm ? l->comm : "<...>");
		row[5] = strdup(atag_report_site(l->tag, site, sizeof(site)));
		table_add(&tb, row);
	}
	for (i = 0; i < (size_t)tb.rows; i++) {
		table_row(&tb, i, f);
		l = i ? &r->live[i - 1] : NULL;
		for (k = 0; l && l->stack && k < l->stack->nr_frames; k++)
			fprintf(f, "          %s\n", l->stack->frames[k]);
	}
	if (!n)
		fprintf(f, "(none)\n");
	more(f, n, r->nr_live, "live allocations");
	table_free(&tb);
	doubts(r->tags, r->nr_selected, true, f);
}

/* ------------------------------------------------------------ histograms */

static void hist(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	const struct atag_report_tag *t;
	char site[SITE_LEN], lo[32], hi[32];
	uint64_t c, max;
	size_t i, n = nr_rows(o, r->nr_selected);
	int e, first, last, bar = o->width > 60 ? o->width - 40 : 30;

	if (bar > 128)
		bar = 128;

	for (i = 0; i < n; i++) {
		t = r->tags[i];
		fprintf(f, "\n%s: %llu lifetimes\n", atag_report_site(t, site, sizeof(site)),
			(unsigned long long)t->lifetimes.count);
		if (!t->lifetimes.count)
			continue;
		first = 63 - __builtin_clzll(t->lifetimes.min | 1);
		last = 63 - __builtin_clzll(t->lifetimes.max | 1);
		for (max = 0, e = first; e <= last; e++) {
			c = atag_lifetime_power_count(&t->lifetimes, e);
			max = c > max ? c : max;
		}
		for (e = first; e <= last; e++) {
			c = atag_lifetime_power_count(&t->lifetimes, e);
			atag_format_duration(lo, sizeof(lo), e ? 1ULL << e : 0);
			atag_format_duration(hi, sizeof(hi), e < 63 ? 1ULL << (e + 1) : ~0ULL);
			fprintf(f, "  %9s .. %-9s |%-*.*s| %llu\n", lo, hi, bar,
				(int)(max ? (c * bar + max - 1) / max : 0),
				"################################################################"
				"################################################################",
				(unsigned long long)c);
		}
	}
	if (!n)
		fprintf(f, "\n(no call site)\n");
	more(f, n, r->nr_selected, "call sites");
}

int atag_render_text(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	if (o->summary)
		summary(r, f);
	if (o->sites)
		sites(r, o, f);
	if (o->hist)
		hist(r, o, f);
	if (o->live)
		live(r, o, f);
	return ferror(f) ? -1 : 0;
}
