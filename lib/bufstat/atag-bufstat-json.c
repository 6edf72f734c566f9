// SPDX-License-Identifier: LGPL-2.1
/*
 * The JSON rendering of a stat report: one object,
 *
 *   { "tracefs", "page_size_kb", "subbuf_header_bytes", "instances": [ {...,
 *     "snapshot": {...}, "cpus": [...]} ], "remotes": [...], "aggregate": { "computed",
 *     "temp_buffer_kb", "total_system_without_remotes_kb", "in_no_row" (backup
 *     instances), "kernel_format", "kernel",
 *     "differences": [...], "kernel_per_cpu": [...] }, "notes": [...] }
 *
 * Sizes in exact KiB (bytes rounded up); unknown figures are null, never 0. Indented,
 * a value a line (lib/util/atag-json.c writes it).
 */
#include <stdbool.h>
#include <stdio.h>

#include "atag-bufstat.h"
#include "atag-json.h"

#define UNKNOWN		ATAG_BUFSTAT_UNKNOWN

/* A figure, null when unknown. */
static void num(struct atag_json *w, const char *key, unsigned long long v)
{
	if (v == UNKNOWN)
		atag_json_null(w, key);
	else
		atag_json_uint(w, key, v);
}

/* A flag that may be unknown (-1): null. */
static void flag(struct atag_json *w, const char *key, int v)
{
	if (v < 0)
		atag_json_null(w, key);
	else
		atag_json_bool(w, key, v);
}

static const char *snapshot_word(enum atag_snapshot_state s)
{
	static const char * const words[] = {
		[ATAG_SNAPSHOT_UNSUPPORTED]	= "unsupported",
		[ATAG_SNAPSHOT_PERSISTENT]	= "none",
		[ATAG_SNAPSHOT_FREED]		= "freed",
		[ATAG_SNAPSHOT_ALLOCATED]	= "allocated",
		[ATAG_SNAPSHOT_BUSY]		= "busy",
		[ATAG_SNAPSHOT_SPARE_MIN]	= "spare",
		[ATAG_SNAPSHOT_SPARE_FULL]	= "spare-allocated",
		[ATAG_SNAPSHOT_UNKNOWN]		= "unknown",
	};

	return words[s];
}

static void json_cpu(struct atag_json *w, const struct atag_bufstat_cpu *c)
{
	const struct atag_cpu_stats *s = &c->stats;
	bool st = c->has_stats;
	double pct;

	atag_json_open_object(w, NULL);
	num(w, "cpu", c->cpu);
	num(w, "buffer_size_kb", c->size_kb);
	num(w, "memory_kb", atag_bufstat_kb(c->buffer_bytes));
	num(w, "snapshot_kb", atag_bufstat_kb(c->snapshot_bytes));
	num(w, "entries", st ? s->entries : UNKNOWN);
	num(w, "overrun", st ? s->overrun : UNKNOWN);
	num(w, "commit_overrun", st ? s->commit_overrun : UNKNOWN);
	num(w, "bytes", st ? s->bytes : UNKNOWN);
	num(w, "dropped_events", st ? s->dropped_events : UNKNOWN);
	num(w, "read_events", st ? s->read_events : UNKNOWN);
	atag_json_str(w, "oldest_ts", st && s->oldest_ts[0] ? s->oldest_ts : NULL);
	atag_json_str(w, "now_ts", st && s->now_ts[0] ? s->now_ts : NULL);
	if (!atag_bufstat_fill(c, &pct))
		atag_json_fixed(w, "fill_percent", pct, 1);
	else
		atag_json_null(w, "fill_percent");
	atag_json_close(w);
}

static void json_instance(struct atag_json *w, const struct atag_bufstat_instance *in)
{
	int i;

	atag_json_open_object(w, NULL);
	atag_json_str(w, "name", in->name);
	atag_json_bool(w, "top", !in->name);
	num(w, "buffer_size_kb", in->size.kb);
	num(w, "expanded_kb", in->size.expanded_kb);
	atag_json_bool(w, "sizes_differ", in->size.differ);
	num(w, "buffer_total_size_kb", in->total.kb);
	num(w, "subbuf_size_kb", in->subbuf_kb);
	flag(w, "tracing_on", in->tracing_on);
	atag_json_bool(w, "persistent", in->persistent);
	atag_json_str(w, "last_boot_info", in->last_boot);
	atag_json_str(w, "backup_of", in->backup_of);
	atag_json_str(w, "memory_kind", in->backup_of ? "vmalloc" :
		      in->persistent ? "carveout" : "system");
	num(w, "memory_kb", atag_bufstat_kb(in->buffer_bytes));
	atag_json_open_object(w, "snapshot");
	atag_json_str(w, "state", snapshot_word(in->snapshot));
	num(w, "size_kb", atag_bufstat_kb(in->snapshot_bytes));
	atag_json_close(w);
	atag_json_open_array(w, "cpus");
	for (i = 0; i < in->nr_cpus; i++)
		json_cpu(w, &in->cpus[i]);
	atag_json_close(w);
	atag_json_close(w);
}

static void json_remote(struct atag_json *w, const struct atag_bufstat_remote *r)
{
	atag_json_open_object(w, NULL);
	atag_json_str(w, "name", r->name);
	num(w, "buffer_size_kb", r->size_kb);
	flag(w, "loaded", r->loaded);
	flag(w, "tracing_on", r->tracing_on);
	num(w, "cpus", r->nr_cpus < 0 ? UNKNOWN : (unsigned long long)r->nr_cpus);
	atag_json_str(w, "memory_kind", "system");
	num(w, "memory_per_cpu_kb", atag_bufstat_kb(r->bytes_per_cpu));
	num(w, "memory_kb", atag_bufstat_kb(r->bytes));
	atag_json_close(w);
}

/* The rows of a memory_usage_kb, bytes given in KiB; the unknown ones unless @all. */
static void json_rows(struct atag_json *w, const char *key, const unsigned long long *v,
		      bool bytes, bool all)
{
	int row;

	atag_json_open_object(w, key);
	for (row = 0; row < ATAG_ROW_MAX; row++)
		if (all || v[row] != UNKNOWN)
			num(w, atag_bufstat_row_key(row), bytes ? atag_bufstat_kb(v[row]) : v[row]);
	atag_json_close(w);
}

static void json_differences(struct atag_json *w, const struct atag_bufstat *bs)
{
	unsigned long long computed_kb;
	unsigned int mask, bit;
	int row;

	atag_json_open_array(w, "differences");
	for (row = 0; row < ATAG_ROW_MAX; row++) {
		mask = atag_bufstat_diff_reasons(bs, row);
		if (!mask)
			continue;
		computed_kb = atag_bufstat_kb(bs->computed[row]);
		atag_json_open_object(w, NULL);
		atag_json_str(w, "row", atag_bufstat_row_key(row));
		num(w, "computed_kb", computed_kb);
		num(w, "kernel_kb", bs->kernel.kb[row]);
		atag_json_int(w, "difference_kb",
			      (long long)bs->kernel.kb[row] - (long long)computed_kb);
		atag_json_open_array(w, "reasons");
		for (bit = 1; bit <= mask; bit <<= 1)
			if (mask & bit)
				atag_json_str(w, NULL, atag_bufstat_reason_str(bit));
		atag_json_close(w);
		atag_json_close(w);
	}
	atag_json_close(w);
}

static void json_kernel_cpus(struct atag_json *w, const struct atag_bufstat *bs)
{
	unsigned long long computed[ATAG_ROW_MAX];
	int i, row;

	atag_json_open_array(w, "kernel_per_cpu");
	for (i = 0; i < bs->nr_kernel_cpus; i++) {
		for (row = 0; row < ATAG_ROW_MAX; row++)
			computed[row] = atag_bufstat_cpu_row(bs, bs->kernel_cpu_ids[i], row);
		atag_json_open_object(w, NULL);
		num(w, "cpu", bs->kernel_cpu_ids[i]);
		json_rows(w, "kernel", bs->kernel_cpus[i].kb, false, false);
		json_rows(w, "computed", computed, true, true);
		atag_json_close(w);
	}
	atag_json_close(w);
}

/* The backup instances, in no row, and why. */
static void json_backups(struct atag_json *w, const struct atag_bufstat *bs)
{
	const struct atag_bufstat_instance *in;
	int i;

	atag_json_open_array(w, "in_no_row");
	for (i = 0; i < bs->nr_instances; i++) {
		in = &bs->instances[i];
		if (!in->backup_of)
			continue;
		atag_json_open_object(w, NULL);
		atag_json_str(w, "name", in->name);
		atag_json_str(w, "backup_of", in->backup_of);
		atag_json_str(w, "memory_kind", "vmalloc");
		num(w, "memory_kb", atag_bufstat_kb(in->buffer_bytes));
		atag_json_str(w, "reason", ATAG_BUFSTAT_BACKUP_REASON);
		atag_json_close(w);
	}
	atag_json_close(w);
}

static void json_aggregate(struct atag_json *w, const struct atag_bufstat *bs)
{
	static const char * const formats[] = {
		[ATAG_MEMUSAGE_NONE]	= NULL,
		[ATAG_MEMUSAGE_SPLIT]	= "split",
		[ATAG_MEMUSAGE_BUFFERS]	= "buffers",
		[ATAG_MEMUSAGE_EMPTY]	= "empty",
	};

	atag_json_open_object(w, "aggregate");
	json_rows(w, "computed", bs->computed, true, true);
	num(w, "temp_buffer_kb", atag_bufstat_kb(bs->temp_buffer_bytes));
	num(w, "total_system_without_remotes_kb", atag_bufstat_kb(bs->system_without_remotes));
	json_backups(w, bs);
	atag_json_str(w, "kernel_format", formats[bs->kernel.format]);
	if (bs->kernel.format == ATAG_MEMUSAGE_NONE)
		atag_json_null(w, "kernel");
	else
		json_rows(w, "kernel", bs->kernel.kb, false, false);
	json_differences(w, bs);
	json_kernel_cpus(w, bs);
	atag_json_close(w);
}

static void json_notes(struct atag_json *w, const struct atag_bufstat *bs)
{
	struct atag_bufstat_notes n;
	int i;

	atag_bufstat_notes_collect(bs, &n);
	atag_json_open_array(w, "notes");
	for (i = 0; i < n.nr; i++)
		atag_json_str(w, NULL, n.line[i]);
	atag_json_close(w);
	atag_bufstat_notes_free(&n);
}

int atag_bufstat_render_json(const struct atag_bufstat *bs, FILE *f)
{
	struct atag_json w;
	int i;

	atag_json_init(&w, f, ATAG_JSON_PRETTY | ATAG_JSON_ESCAPE_U);
	atag_json_open_object(&w, NULL);
	atag_json_str(&w, "tracefs", bs->tracefs);
	num(&w, "page_size_kb", bs->page_size / 1024);
	num(&w, "subbuf_header_bytes", bs->page_hdr);
	atag_json_open_array(&w, "instances");
	for (i = 0; i < bs->nr_instances; i++)
		json_instance(&w, &bs->instances[i]);
	atag_json_close(&w);
	if (!bs->filtered) {
		atag_json_open_array(&w, "remotes");
		for (i = 0; i < bs->nr_remotes; i++)
			json_remote(&w, &bs->remotes[i]);
		atag_json_close(&w);
		json_aggregate(&w, bs);
	}
	json_notes(&w, bs);
	atag_json_close(&w);
	return atag_json_finish(&w);
}
