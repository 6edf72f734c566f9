// SPDX-License-Identifier: LGPL-2.1
/*
 * A snapshot of a live view as a screen of text or as one JSON line (top). See
 * include/atag-live.h; the JSON keys are documented in
 * Documentation/trace-cmd-alloc-tag-top.1.txt.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-json.h"
#include "atag-live.h"
#include "atag-table.h"
#include "atag-utils.h"

/* As report marks them: objects allocated again at a live address (frees with no event). */
#define REUSED_MARK	" [reused while live %llux]"
#define REUSED_LEGEND	"[reused while live]: allocated again at an address still live: the " \
			"kernel freed\n  them without an event (bulk or RCU frees) or events were " \
			"lost; LIVE counts them\n  still, and those reused have no lifetime.\n"

static size_t rows(const struct atag_live_render_opts *o, size_t n)
{
	return o && o->rows > 0 && (size_t)o->rows < n ? (size_t)o->rows : n;
}

/* "function+0xoff [module]", "function file:line [module]" (escaped), or the tag. */
static char *site_name(const struct atag_live_site *s)
{
	char site[1024], reused[64] = "";

	if (s->counts.replaced)
		snprintf(reused, sizeof(reused), REUSED_MARK, (unsigned long long)s->counts.replaced);
	if (!s->function)
		return atag_strf("0x%" PRIx64 "%s", s->tag, reused);
	atag_site_text(site, sizeof(site), s->function, s->file ? -1 : s->offset, s->file,
		       s->line, s->module);
	return atag_strf("%s%s", site, reused);
}

static char *dur(uint64_t ns, bool known)
{
	char buf[32];

	return strdup(known ? atag_format_duration(buf, sizeof(buf), ns) : "-");
}

static char *size(uint64_t bytes)
{
	char buf[32];

	return strdup(atag_format_size(buf, sizeof(buf), bytes));
}

static void header(const struct atag_live_snapshot *s, const struct atag_live_render_opts *o,
		   FILE *f)
{
	char a[32], b[32], c[32], d[32];

	fprintf(f, "%s events, %s: %s, %" PRIu64 " records", s->source,
		o && o->scope ? o->scope : "all tasks",
		atag_format_duration(a, sizeof(a), s->elapsed_ns), s->records);
	if (s->lost_known)
		fprintf(f, ", %" PRIu64 " lost%s\n", s->lost,
			s->lost ? " (counts are low: a larger -b)" : "");
	else
		fprintf(f, "\n");
	fprintf(f, "last %s: %" PRIu64 " allocs, %" PRIu64 " frees",
		atag_format_duration(b, sizeof(b), s->interval_ns), s->allocs, s->frees);
	/* what else changed the live count: allocated again at a live address */
	if (s->replaced)
		fprintf(f, ", %" PRIu64 " replaced", s->replaced);
	fprintf(f, "; live %" PRIu64
		" (%s); since the start %" PRIu64 " allocs (%s), %" PRIu64 " frees (%s)\n",
		s->totals.live, atag_format_size(c, sizeof(c), s->totals.live_bytes),
		s->totals.allocs, atag_format_size(d, sizeof(d), s->totals.bytes_alloced),
		s->totals.frees, atag_format_size(a, sizeof(a), s->totals.bytes_freed));
}

#define COLS	9

int atag_live_render_text(const struct atag_live_snapshot *s,
			  const struct atag_live_render_opts *o, FILE *f)
{
	static const char * const head[COLS] = {
		"ALLOCS", "FREES", "LIVE", "LIVE BYTES", "OLDEST", "P50", "P99", "TOTAL",
		"CALL SITE",
	};
	const struct atag_live_site *site;
	size_t i, n = rows(o, s->nr_sites);
	struct atag_table tb;
	bool reused = false;
	char *row[COLS];

	header(s, o, f);
	fputc('\n', f);
	atag_table_init(&tb, COLS, 1u << (COLS - 1));
	tb.max_width = o ? o->columns : 0;
	atag_table_add_const(&tb, head);
	for (i = 0; i < n; i++) {
		site = &s->sites[i];
		row[0] = atag_strf("%" PRIu64, site->allocs);
		row[1] = atag_strf("%" PRIu64, site->frees);
		row[2] = atag_strf("%" PRIu64, site->counts.live);
		row[3] = size(site->counts.live_bytes);
		row[4] = dur(site->oldest_ns, site->counts.live);
		row[5] = dur(atag_lifetime_percentile(site->lifetimes, 50), site->lifetimes->count);
		row[6] = dur(atag_lifetime_percentile(site->lifetimes, 99), site->lifetimes->count);
		row[7] = atag_strf("%" PRIu64, site->counts.allocs);
		row[8] = site_name(site);
		atag_table_add(&tb, row);
		reused |= site->counts.replaced != 0;
	}
	atag_table_print(&tb, 0, f);
	atag_table_free(&tb);
	if (!s->nr_sites)
		fprintf(f, "(no allocation yet)\n");
	else if (n < s->nr_sites)
		fprintf(f, "... %zu more call sites\n", s->nr_sites - n);
	if (reused)
		fputs(REUSED_LEGEND, f);
	return ferror(f) ? -1 : 0;
}

static void lifetimes(struct atag_json *w, const struct atag_lifetime *lt)
{
	static const struct { const char *name; double pct; } pcts[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 },
	};
	size_t i;

	atag_json_open_object(w, "lifetime_ns");
	atag_json_uint(w, "count", lt->count);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		if (lt->count)
			atag_json_uint(w, pcts[i].name, atag_lifetime_percentile(lt, pcts[i].pct));
		else
			atag_json_null(w, pcts[i].name);
	}
	if (lt->count)
		atag_json_uint(w, "max", lt->max);
	else
		atag_json_null(w, "max");
	atag_json_close(w);
}

static void counters(struct atag_json *w, const char *key, const void *obj,
		     const struct atag_counter_field *fields)
{
	int i;

	atag_json_open_object(w, key);
	for (i = 0; fields[i].name; i++)
		atag_json_uint(w, fields[i].name, atag_counter_value(obj, &fields[i]));
	atag_json_close(w);
}

static void site_json(struct atag_json *w, const struct atag_live_site *s)
{
	atag_json_open_object(w, NULL);
	atag_json_hex(w, "tag", s->tag);
	atag_json_str(w, "function", s->function);
	atag_json_str(w, "file", s->file);
	atag_json_known_int(w, "line", s->line);
	atag_json_str(w, "module", s->module);
	atag_json_known_int(w, "offset", s->offset);
	atag_json_uint(w, "allocs", s->allocs);
	atag_json_uint(w, "frees", s->frees);
	atag_json_uint(w, "live", s->counts.live);
	atag_json_uint(w, "live_bytes", s->counts.live_bytes);
	if (s->counts.live)
		atag_json_uint(w, "oldest_ns", s->oldest_ns);
	else
		atag_json_null(w, "oldest_ns");
	counters(w, "total", &s->counts, atag_counter_fields);
	lifetimes(w, s->lifetimes);
	atag_json_close(w);
}

int atag_live_render_json(const struct atag_live_snapshot *s,
			  const struct atag_live_render_opts *o, FILE *f)
{
	size_t i, n = rows(o, s->nr_sites);
	struct atag_json w;

	atag_json_init(&w, f, 0);
	atag_json_open_object(&w, NULL);
	atag_json_str(&w, "source", s->source);
	atag_json_str(&w, "scope", o && o->scope ? o->scope : "all tasks");
	atag_json_uint(&w, "elapsed_ns", s->elapsed_ns);
	atag_json_uint(&w, "interval_ns", s->interval_ns);
	atag_json_uint(&w, "records", s->records);
	if (s->lost_known)
		atag_json_uint(&w, "lost", s->lost);
	else
		atag_json_null(&w, "lost");
	atag_json_open_object(&w, "interval");
	atag_json_uint(&w, "allocs", s->allocs);
	atag_json_uint(&w, "frees", s->frees);
	atag_json_uint(&w, "replaced", s->replaced);
	atag_json_close(&w);
	counters(&w, "totals", &s->totals, atag_total_fields);
	atag_json_uint(&w, "nr_sites", s->nr_sites);
	atag_json_open_array(&w, "sites");
	for (i = 0; i < n; i++)
		site_json(&w, &s->sites[i]);
	atag_json_close(&w);
	atag_json_close(&w);
	return atag_json_finish(&w);
}
