// SPDX-License-Identifier: LGPL-2.1
/*
 * leaks' intervals as text that fits a terminal, or as one JSON line each. See
 * include/atag-live.h; the JSON keys are documented in
 * Documentation/trace-cmd-alloc-tag-leaks.1.txt.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-json.h"
#include "atag-live.h"
#include "atag-table.h"
#include "atag-utils.h"

/* Frames of a stack shown on its line, at most. */
#define TEXT_FRAMES	12

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static size_t nr_rows(const struct atag_leak_render_opts *o, size_t n)
{
	return o && o->rows > 0 && (size_t)o->rows < n ? (size_t)o->rows : n;
}

static char *site_name(const struct atag_leak_site *s)
{
	char site[1024];

	if (!s->function)
		return atag_strf("0x%" PRIx64, s->tag);
	atag_site_text(site, sizeof(site), s->function, s->file ? -1 : s->offset, s->file,
		       s->line, s->module);
	return strdup(site);
}

static void sources(const struct atag_leak_snapshot *s, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; s->sources[i] && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " and " : "", s->sources[i]);
}

/* The task that made most of a group's allocations, "comm pid" (+N others). */
static char *task_cell(const struct atag_leak_group *g)
{
	const struct atag_leak_task *t = g->tasks;
	unsigned int others = g->nr_tasks - 1 + g->more_tasks;
	char comm[64];

	if (!g->nr_tasks)
		return strdup("-");
	atag_text(comm, sizeof(comm), t->comm[0] ? t->comm : "?");
	if (others)
		return atag_strf("%s %d%s +%u", comm, t->pid, t->exited == 1 ? " (exited)" : "",
				 others);
	return atag_strf("%s %d%s", comm, t->pid, t->exited == 1 ? " (exited)" : "");
}

static void header(const struct atag_leak_snapshot *s, const struct atag_leak_render_opts *o,
		   FILE *f)
{
	char a[32], b[32], c[32], src[64];

	sources(s, src, sizeof(src));
	fprintf(f, "leaks: %s events, %s: %s, interval %" PRIu64 " (%s), %" PRIu64 " records",
		src, o && o->scope ? o->scope : "all tasks",
		atag_format_duration(a, sizeof(a), s->elapsed_ns), s->interval,
		atag_format_duration(b, sizeof(b), s->interval_ns), s->records);
	if (s->lost_known)
		fprintf(f, ", %" PRIu64 " lost\n", s->lost);
	else
		fprintf(f, "\n");
	fprintf(f, "live %" PRIu64 " (%s); older than %s: %" PRIu64 " (%s) at %zu call %s, %"
		PRIu64 " %s\n", s->live, atag_format_size(a, sizeof(a), s->live_bytes),
		atag_format_duration(b, sizeof(b), s->min_age_ns), s->g.allocs,
		atag_format_size(c, sizeof(c), s->g.bytes), s->nr_sites,
		plural(s->nr_sites, "site", "sites"), s->g.suspects,
		plural(s->g.suspects, "suspect", "suspects"));
	if (s->uncertain)
		fprintf(f, "uncertain: events lost in %" PRIu64 " %s (%" PRIu64 " in all), the "
			"latest %s ago: %" PRIu64 " old %s made before it may be freed already "
			"(marked ?)\n", s->lossy_intervals,
			plural(s->lossy_intervals, "interval", "intervals"), s->lost_total,
			atag_format_duration(a, sizeof(a), s->loss_age_ns), s->g.uncertain,
			plural(s->g.uncertain, "allocation", "allocations"));
}

#define COLS	6

static void sites_table(const struct atag_leak_snapshot *s, const struct atag_leak_render_opts *o,
			size_t n, FILE *f)
{
	static const char * const head[COLS] = {
		"ALLOCS", "BYTES", "OLDEST", "SUSPECTS", "TASK", "CALL SITE",
	};
	const struct atag_leak_site *site;
	struct atag_table tb;
	char *row[COLS], buf[32];
	size_t i;

	atag_table_init(&tb, COLS, 1u << 4 | 1u << 5);
	tb.max_width = o ? o->columns : 0;
	atag_table_add_const(&tb, head);
	for (i = 0; i < n; i++) {
		site = &s->sites[i];
		row[0] = atag_strf("%" PRIu64 "%s", site->g.allocs, site->g.uncertain ? "?" : "");
		row[1] = strdup(atag_format_size(buf, sizeof(buf), site->g.bytes));
		row[2] = strdup(atag_format_duration(buf, sizeof(buf), site->g.oldest_ns));
		row[3] = atag_strf("%" PRIu64, site->g.suspects);
		row[4] = task_cell(&site->g);
		row[5] = site_name(site);
		atag_table_add(&tb, row);
	}
	atag_table_print(&tb, 0, f);
	atag_table_free(&tb);
}

/* One stack on one line: its figures, then its frames innermost first. */
static void stack_line(const struct atag_leak_snapshot *s, const struct atag_leak_stack *st,
		       FILE *f)
{
	char a[32], b[32], frame[256];
	unsigned int i;

	fprintf(f, "  %6" PRIu64 "%s %9s %8s  ", st->g.allocs, st->g.uncertain ? "?" : " ",
		atag_format_size(a, sizeof(a), st->g.bytes),
		atag_format_duration(b, sizeof(b), st->g.oldest_ns));
	if (!st->nr_frames && s->stack_every > 1)
		fprintf(f, "(no stack: one allocation in %u carries one)", s->stack_every);
	else if (!st->nr_frames)
		fprintf(f, "(no stack)");
	for (i = 0; i < st->nr_frames && i < TEXT_FRAMES; i++)
		fprintf(f, "%s%s", i ? " < " : "", atag_text(frame, sizeof(frame), st->frames[i]));
	if (i < st->nr_frames)
		fprintf(f, " < ...");
	fputc('\n', f);
}

static void site_details(const struct atag_leak_snapshot *s, const struct atag_leak_site *site,
			 FILE *f)
{
	const struct atag_leak_group *g = &site->g;
	char *name = site_name(site);
	unsigned int i;
	size_t k;

	fprintf(f, "%s: %" PRIu64 " live in all, %zu %s", name ? name : "?", site->live,
		site->nr_stacks, plural(site->nr_stacks, "stack", "stacks"));
	free(name);
	for (i = 0; i < g->nr_ptrs; i++)
		fprintf(f, "%s0x%" PRIx64, i ? " " : "; oldest at ", g->ptrs[i]);
	fputc('\n', f);
	if (g->why && g->suspects < g->allocs)
		fprintf(f, "  %" PRIu64 " explained: %s\n", g->allocs - g->suspects, g->why);
	for (k = 0; k < site->nr_stacks; k++)
		stack_line(s, &site->stacks[k], f);
}

/* @text cut to @o's columns and lines; what is left out said on the last line. */
static void fit(const char *text, size_t len, const struct atag_leak_render_opts *o, FILE *f)
{
	long lines = 0, max = o ? o->lines : 0, left = 0;
	const char *p = text, *end = text + len, *nl;
	int cols = o ? o->columns : 0;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (max > 0 && lines >= max - 1 && nl + 1 < end) {
			for (; p < end; p++)
				left += *p == '\n';
			fprintf(f, "... %ld more %s (a larger terminal, -n, or -f json)\n", left,
				plural(left, "line", "lines"));
			return;
		}
		/* cut by bytes: the text is escaped, one byte a column but for UTF-8 */
		fwrite(p, 1, cols > 0 && nl - p > cols ? (size_t)cols : (size_t)(nl - p), f);
		fputc('\n', f);
		lines++;
	}
}

int atag_leak_render_text(const struct atag_leak_snapshot *s,
			  const struct atag_leak_render_opts *o, FILE *f)
{
	size_t i, n = nr_rows(o, s->nr_sites), len = 0;
	char *buf = NULL;
	FILE *m;

	m = open_memstream(&buf, &len);
	if (!m)
		return -1;
	header(s, o, m);
	fputc('\n', m);
	if (!s->nr_sites) {
		fprintf(m, "(no live allocation older than that)\n");
	} else {
		sites_table(s, o, n, m);
		if (n < s->nr_sites)
			fprintf(m, "... %zu more call sites\n", s->nr_sites - n);
		fprintf(m, "\nstacks (allocations, bytes, oldest, frames innermost first):\n");
		for (i = 0; i < n; i++)
			site_details(s, &s->sites[i], m);
	}
	if (fclose(m)) {
		free(buf);
		return -1;
	}
	/* the table elides its call sites itself; the rest is cut here */
	fit(buf, len, o, f);
	free(buf);
	return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------ JSON */

static void json_ptr(struct atag_json *w, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	atag_json_str(w, key, buf);
}

static void group_json(struct atag_json *w, const struct atag_leak_group *g)
{
	const struct atag_leak_task *t;
	unsigned int i;

	atag_json_uint(w, "allocs", g->allocs);
	atag_json_uint(w, "bytes", g->bytes);
	atag_json_uint(w, "oldest_ns", g->oldest_ns);
	atag_json_uint(w, "suspects", g->suspects);
	atag_json_uint(w, "uncertain", g->uncertain);
	atag_json_str(w, "suspect_why", g->suspects < g->allocs ? g->why : NULL);
	atag_json_open_array(w, "ptrs");
	for (i = 0; i < g->nr_ptrs; i++)
		json_ptr(w, NULL, g->ptrs[i]);
	atag_json_close(w);
	atag_json_open_array(w, "tasks");
	for (i = 0; i < g->nr_tasks; i++) {
		t = &g->tasks[i];
		atag_json_open_object(w, NULL);
		atag_json_int(w, "pid", t->pid);
		atag_json_str(w, "comm", t->comm[0] ? t->comm : NULL);
		if (t->exited < 0)
			atag_json_null(w, "exited");
		else
			atag_json_bool(w, "exited", t->exited);
		atag_json_uint(w, "allocs", t->allocs);
		atag_json_close(w);
	}
	atag_json_close(w);
	atag_json_uint(w, "more_tasks", g->more_tasks);
}

static void site_json(struct atag_json *w, const struct atag_leak_site *s)
{
	const struct atag_leak_stack *st;
	unsigned int i;
	size_t k;

	atag_json_open_object(w, NULL);
	atag_json_str(w, "source", s->source);
	atag_json_hex(w, "tag", s->tag);
	atag_json_str(w, "function", s->function);
	atag_json_str(w, "file", s->file);
	atag_json_known_int(w, "line", s->line);
	atag_json_str(w, "module", s->module);
	atag_json_known_int(w, "offset", s->offset);
	atag_json_uint(w, "live", s->live);
	atag_json_uint(w, "live_bytes", s->live_bytes);
	group_json(w, &s->g);
	atag_json_open_array(w, "stacks");
	for (k = 0; k < s->nr_stacks; k++) {
		st = &s->stacks[k];
		atag_json_open_object(w, NULL);
		atag_json_open_array(w, "frames");
		for (i = 0; i < st->nr_frames; i++)
			atag_json_str(w, NULL, st->frames[i]);
		atag_json_close(w);
		group_json(w, &st->g);
		atag_json_close(w);
	}
	atag_json_close(w);
	atag_json_close(w);
}

int atag_leak_render_json(const struct atag_leak_snapshot *s,
			  const struct atag_leak_render_opts *o, FILE *f)
{
	size_t i, n = nr_rows(o, s->nr_sites);
	struct atag_json w;

	atag_json_init(&w, f, 0);
	atag_json_open_object(&w, NULL);
	atag_json_uint(&w, "interval", s->interval);
	atag_json_open_array(&w, "sources");
	for (i = 0; s->sources[i]; i++)
		atag_json_str(&w, NULL, s->sources[i]);
	atag_json_close(&w);
	atag_json_str(&w, "scope", o && o->scope ? o->scope : "all tasks");
	atag_json_uint(&w, "elapsed_ns", s->elapsed_ns);
	atag_json_uint(&w, "interval_ns", s->interval_ns);
	atag_json_uint(&w, "min_age_ns", s->min_age_ns);
	if (s->stack_every)
		atag_json_uint(&w, "stack_every", s->stack_every);
	else
		atag_json_null(&w, "stack_every");
	atag_json_uint(&w, "records", s->records);
	if (s->lost_known) {
		atag_json_uint(&w, "lost", s->lost);
		atag_json_uint(&w, "lost_total", s->lost_total);
	} else {
		atag_json_null(&w, "lost");
		atag_json_null(&w, "lost_total");
	}
	atag_json_uint(&w, "lossy_intervals", s->lossy_intervals);
	atag_json_bool(&w, "uncertain", s->uncertain);
	if (s->uncertain)
		atag_json_uint(&w, "loss_age_ns", s->loss_age_ns);
	else
		atag_json_null(&w, "loss_age_ns");
	atag_json_uint(&w, "live", s->live);
	atag_json_uint(&w, "live_bytes", s->live_bytes);
	atag_json_open_object(&w, "old");
	atag_json_uint(&w, "allocs", s->g.allocs);
	atag_json_uint(&w, "bytes", s->g.bytes);
	atag_json_uint(&w, "suspects", s->g.suspects);
	atag_json_uint(&w, "uncertain", s->g.uncertain);
	atag_json_close(&w);
	atag_json_uint(&w, "tasks", s->tasks);
	atag_json_uint(&w, "nr_sites", s->nr_sites);
	atag_json_open_array(&w, "sites");
	for (i = 0; i < n; i++)
		site_json(&w, &s->sites[i]);
	atag_json_close(&w);
	atag_json_close(&w);
	return atag_json_finish(&w);
}
