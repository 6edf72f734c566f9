// SPDX-License-Identifier: LGPL-2.1
/*
 * A diff as CSV (RFC 4180 quoting, a header row, lines ending in "\n"): one row
 * per call site of the diff, in its order.
 *
 *   function,file,line,module,source,status,
 *   <counter>_before,<counter>_after,<counter>_change   for each counter of a call
 *                                                       site (allocs ... bytes_freed)
 *   lifetime_count_before,lifetime_count_after,
 *   lifetime_<p50|p90|p99|max>_ns_before,_after,_change
 *
 * Unknown values are empty cells (function, file, line, module of the unknown
 * call sites; lifetimes of a side without any, and their change). Counts are
 * integers, or numbers with six decimals when normalised.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "atag-report-diff.h"
#include "atag-render-diff.h"
#include "atag-utils.h"

static void header(FILE *f)
{
	static const char * const sfx[] = { "before", "after", "change" };
	int i, k;

	fputs("function,file,line,module,source,status", f);
	for (i = 0; atag_counter_fields[i].name; i++)
		for (k = 0; k < 3; k++)
			fprintf(f, ",%s_%s", atag_counter_fields[i].name, sfx[k]);
	fputs(",lifetime_count_before,lifetime_count_after", f);
	for (i = 0; i < ATAG_DIFF_NR_PCTS; i++)
		for (k = 0; k < 3; k++)
			fprintf(f, ",lifetime_%s_ns_%s", atag_diff_pcts[i].name, sfx[k]);
	fputc('\n', f);
}

static void number(FILE *f, const struct atag_diff *d, double v, bool change)
{
	if (atag_diff_normalised(d))
		fprintf(f, ",%.6f", v);
	else if (change)
		fprintf(f, ",%lld", (long long)v);
	else
		fprintf(f, ",%.0f", v);
}

static void row(FILE *f, const struct atag_diff *d, const struct atag_diff_site *s)
{
	const struct atag_counter_field *fl;
	uint64_t v[2];
	bool has[2];
	int i, k;

	atag_csv_write_string(f, s->function);
	fputc(',', f);
	atag_csv_write_string(f, s->file);
	fputc(',', f);
	if (s->line >= 0)
		fprintf(f, "%ld", s->line);
	fputc(',', f);
	atag_csv_write_string(f, s->module);
	fprintf(f, ",%s,%s", s->source, atag_diff_status_name(s->status));
	for (i = 0; atag_counter_fields[i].name; i++) {
		fl = &atag_counter_fields[i];
		if (atag_diff_normalised(d)) {
			number(f, d, atag_diff_value(d, 0, &s->counts[0], fl), false);
			number(f, d, atag_diff_value(d, 1, &s->counts[1], fl), false);
		} else {
			fprintf(f, ",%" PRIu64 ",%" PRIu64, atag_counter_value(&s->counts[0], fl),
				atag_counter_value(&s->counts[1], fl));
		}
		number(f, d, atag_diff_delta(d, &s->counts[0], &s->counts[1], fl), true);
	}
	fprintf(f, ",%" PRIu64 ",%" PRIu64, s->lifetimes[0].count, s->lifetimes[1].count);
	for (i = 0; i < ATAG_DIFF_NR_PCTS; i++) {
		for (k = 0; k < 2; k++) {
			has[k] = atag_diff_lifetime(&s->lifetimes[k], i, &v[k]);
			if (has[k])
				fprintf(f, ",%" PRIu64, v[k]);
			else
				fputc(',', f);
		}
		if (has[0] && has[1])
			fprintf(f, ",%lld", (long long)(v[1] - v[0]));
		else
			fputc(',', f);
	}
	fputc('\n', f);
}

/**
 * atag_render_diff_csv - write a diff as CSV
 * @d: the diff
 * @o: limit (rows, 0 for all); NULL for all
 * @f: where to write
 *
 * Returns 0, or -EIO when writing failed (errno set).
 */
int atag_render_diff_csv(const struct atag_diff *d, const struct atag_render_opts *o, FILE *f)
{
	size_t i, n = d->nr_sites;

	if (o && o->limit > 0 && (size_t)o->limit < n)
		n = o->limit;
	header(f);
	for (i = 0; i < n; i++)
		row(f, d, d->sites[i]);
	return ferror(f) ? atag_err(-EIO) : 0;
}
