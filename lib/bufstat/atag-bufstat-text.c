// SPDX-License-Identifier: LGPL-2.1
/*
 * The text rendering of a stat report: per buffer its sizes, snapshot, persistence
 * and a row per CPU; the remotes; the totals beside the kernel's aggregate, with the
 * reasons they may differ; then the notes. Sizes human-readable. Names (instances,
 * remotes) are whatever mkdir made them: escaped as text is (atag_text()), so that
 * none ends a line or reaches the terminal as a control sequence.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "atag-bufstat.h"
#include "atag-utils.h"

#define UNKNOWN		ATAG_BUFSTAT_UNKNOWN

static const char *size_str(char *buf, size_t len, unsigned long long bytes)
{
	if (bytes == UNKNOWN)
		return "unknown";
	return atag_format_size(buf, len, bytes);
}

static const char *kb_str(char *buf, size_t len, unsigned long long kb)
{
	return size_str(buf, len, kb == UNKNOWN ? UNKNOWN : kb * 1024);
}

/* A name shown: escaped into @buf (NAME_MAX bytes, each at most 4 shown). */
#define NAME_SHOWN	1024

static const char *shown(char *buf, const char *name)
{
	return atag_text(buf, NAME_SHOWN, name);
}

static int nr_cpus(const struct atag_bufstat *bs)
{
	return bs->nr_instances ? bs->instances[0].nr_cpus : 0;
}

static void text_size_line(FILE *f, const struct atag_bufstat_instance *in)
{
	char a[32], b[32], c[32];

	if (in->size.differ)
		fprintf(f, "  buffer size     differs per CPU (see below)");
	else
		fprintf(f, "  buffer size     %s per CPU", kb_str(a, sizeof(a), in->size.kb));
	if (in->total.kb != UNKNOWN)
		fprintf(f, ", %s total", kb_str(b, sizeof(b), in->total.kb));
	fputc('\n', f);
	if (in->size.expanded_kb != UNKNOWN)
		fprintf(f, "  not expanded    buffer_size_kb \"%llu (expanded: %llu)\": %s per CPU "
			"once tracing uses it\n", in->size.kb, in->size.expanded_kb,
			kb_str(c, sizeof(c), in->size.expanded_kb));
}

static void text_snapshot_line(FILE *f, const struct atag_bufstat_instance *in)
{
	char a[32];
	const char *sz = size_str(a, sizeof(a), in->snapshot_bytes);

	fprintf(f, "  snapshot        ");
	switch (in->snapshot) {
	case ATAG_SNAPSHOT_UNSUPPORTED:
		fprintf(f, "not available (needs CONFIG_TRACER_SNAPSHOT)\n");
		break;
	case ATAG_SNAPSHOT_PERSISTENT:
		fprintf(f, "none (a persistent buffer has no snapshot)\n");
		break;
	case ATAG_SNAPSHOT_FREED:
		fprintf(f, "freed; the minimal spare buffer remains: %s\n", sz);
		break;
	case ATAG_SNAPSHOT_ALLOCATED:
		fprintf(f, "allocated: %s\n", sz);
		break;
	case ATAG_SNAPSHOT_BUSY:
		fprintf(f, "allocated, in use by the current tracer: %s\n", sz);
		break;
	case ATAG_SNAPSHOT_SPARE_MIN:
		fprintf(f, "no snapshot file; minimal spare buffer for latency tracers: %s\n", sz);
		break;
	case ATAG_SNAPSHOT_SPARE_FULL:
		fprintf(f, "no snapshot file; spare buffer of the current latency tracer: %s\n",
			sz);
		break;
	default:
		fprintf(f, "unknown (the snapshot file says neither allocated nor freed)\n");
	}
}

static void text_persistent_line(FILE *f, const struct atag_bufstat_instance *in)
{
	char name[NAME_SHOWN];

	fprintf(f, "  persistent      ");
	if (!in->persistent)
		fprintf(f, "no\n");
	else if (in->backup_of)
		fprintf(f, "backup of %s: its copy, made at boot in vmalloc'd memory; holds %s "
			"trace\n  last boot       %s\n", shown(name, in->backup_of),
			!strncmp(in->last_boot, "# Current", 9) ? "this boot's" :
			"the previous boot's", in->last_boot);
	else if (!strncmp(in->last_boot, "# Current", 9))
		fprintf(f, "yes: boot-mapped, reserved memory; holds this boot's trace\n");
	else
		fprintf(f, "yes: boot-mapped, reserved memory; holds the previous boot's trace\n"
			"  last boot       %s\n", in->last_boot);
}

static void text_cpu_row(FILE *f, const struct atag_bufstat_cpu *c)
{
	const struct atag_cpu_stats *s = &c->stats;
	char a[32], b[32], num[5][24];
	const unsigned long long v[5] = {
		s->entries, s->overrun, s->bytes, s->dropped_events, s->read_events
	};
	double pct;
	int i;

	for (i = 0; i < 5; i++) {
		if (!c->has_stats || v[i] == UNKNOWN)
			strcpy(num[i], "-");
		else if (i == 2)
			atag_format_size(num[i], sizeof(num[i]), v[i]);
		else
			snprintf(num[i], sizeof(num[i]), "%llu", v[i]);
	}
	fprintf(f, "  %4d %10s %10s %9s %9s %10s %9s %9s %14s %14s", c->cpu,
		c->size_kb == UNKNOWN ? "-" : kb_str(a, sizeof(a), c->size_kb),
		c->buffer_bytes == UNKNOWN ? "-" : size_str(b, sizeof(b), c->buffer_bytes),
		num[0], num[1], num[2], num[3], num[4],
		c->has_stats && s->oldest_ts[0] ? s->oldest_ts : "-",
		c->has_stats && s->now_ts[0] ? s->now_ts : "-");
	if (!atag_bufstat_fill(c, &pct))
		fprintf(f, " %5.1f%%\n", pct);
	else
		fprintf(f, " %6s\n", "-");
}

static void text_instance(FILE *f, const struct atag_bufstat_instance *in)
{
	char a[32], b[32], name[NAME_SHOWN];
	int i;

	fprintf(f, "%s%s\n", in->name ? "Instance: " : "Top buffer", shown(name, in->name));
	text_size_line(f, in);
	fprintf(f, "  sub-buffer      %s\n", in->subbuf_kb == UNKNOWN ? "one page (no "
		"buffer_subbuf_size_kb)" : kb_str(a, sizeof(a), in->subbuf_kb));
	fprintf(f, "  tracing         %s\n", in->tracing_on < 0 ? "unknown" :
		in->tracing_on ? "on" : "off");
	text_persistent_line(f, in);
	text_snapshot_line(f, in);
	fprintf(f, "  memory          %s %s", size_str(a, sizeof(a), in->buffer_bytes),
		in->backup_of ? "vmalloc (in no total, see below)" :
		in->persistent ? "carve-out (reserved memory)" : "page allocator");
	if (in->snapshot_bytes != UNKNOWN && in->snapshot_bytes)
		fprintf(f, ", + %s snapshot", size_str(b, sizeof(b), in->snapshot_bytes));
	fprintf(f, "\n  %4s %10s %10s %9s %9s %9s %9s %9s %14s %14s %6s\n", "CPU", "size",
		"memory", "entries", "overrun", "bytes", "dropped", "read", "oldest ts", "now ts",
		"fill");
	for (i = 0; i < in->nr_cpus; i++)
		text_cpu_row(f, &in->cpus[i]);
	fputc('\n', f);
}

/* A remote's memory: its total, or per CPU when no file says which CPUs it has. */
static const char *remote_memory(char *buf, size_t len, const struct atag_bufstat_remote *r)
{
	char a[32];

	if (r->loaded == 0)
		snprintf(buf, len, "0 B (nothing until loaded)");
	else if (r->bytes != UNKNOWN)
		snprintf(buf, len, "%s page allocator (pages inferred)",
			 size_str(a, sizeof(a), r->bytes));
	else if (r->bytes_per_cpu != UNKNOWN)
		snprintf(buf, len, "%s per CPU of its buffer (pages inferred), page allocator",
			 size_str(a, sizeof(a), r->bytes_per_cpu));
	else
		snprintf(buf, len, "unknown");
	return buf;
}

static void text_remotes(FILE *f, const struct atag_bufstat *bs)
{
	const struct atag_bufstat_remote *r;
	char a[32], b[80], c[16], name[NAME_SHOWN];
	int i;

	if (!bs->nr_remotes) {
		fprintf(f, "Remotes: none%s\n\n", bs->has_remotes_dir ? "" : " (no remotes/)");
		return;
	}
	fprintf(f, "Remotes\n  %-16s %10s %-9s %-8s %4s %s\n", "name", "size/CPU", "state",
		"tracing", "CPUs", "memory");
	for (i = 0; i < bs->nr_remotes; i++) {
		r = &bs->remotes[i];
		if (r->nr_cpus < 0)
			snprintf(c, sizeof(c), "?");
		else
			snprintf(c, sizeof(c), "%d", r->nr_cpus);
		fprintf(f, "  %-16s %10s %-9s %-8s %4s %s\n", shown(name, r->name),
			kb_str(a, sizeof(a), r->size_kb),
			r->loaded < 0 ? "unknown" : r->loaded ? "loaded" : "unloaded",
			r->tracing_on < 0 ? "unknown" : r->tracing_on ? "on" : "off", c,
			remote_memory(b, sizeof(b), r));
	}
	fputc('\n', f);
}

static bool row_shown(const struct atag_bufstat *bs, enum atag_bufstat_row row)
{
	return row < ATAG_ROW_BUFFERS || bs->kernel.kb[row] != UNKNOWN;
}

static void text_diff(char *buf, size_t len, unsigned long long kernel_kb,
		      unsigned long long bytes)
{
	long long d;
	char a[32];

	if (kernel_kb == UNKNOWN || bytes == UNKNOWN) {
		snprintf(buf, len, "-");
		return;
	}
	d = (long long)kernel_kb - (long long)atag_bufstat_kb(bytes);
	if (!d)
		snprintf(buf, len, "same");
	else
		snprintf(buf, len, "%c%s", d > 0 ? '+' : '-',
			 atag_format_size(a, sizeof(a), (d > 0 ? d : -d) * 1024ULL));
}

/* Each reason once, after the rows it may explain. */
static void text_reasons(FILE *f, const struct atag_bufstat *bs)
{
	unsigned int mask[ATAG_ROW_MAX], all = 0, bit;
	const char *sep;
	int row;

	for (row = 0; row < ATAG_ROW_MAX; row++)
		all |= mask[row] = atag_bufstat_diff_reasons(bs, row);
	if (all)
		fprintf(f, "  Why they may differ:\n");
	for (bit = 1; bit <= all; bit <<= 1) {
		if (!(all & bit))
			continue;
		fprintf(f, "  -");
		for (row = 0, sep = " "; row < ATAG_ROW_MAX; row++) {
			if (mask[row] & bit) {
				fprintf(f, "%s%s", sep, atag_bufstat_row_key(row));
				sep = ", ";
			}
		}
		fprintf(f, ": %s\n", atag_bufstat_reason_str(bit));
	}
}

static void text_totals(FILE *f, const struct atag_bufstat *bs)
{
	bool kernel = bs->kernel.format != ATAG_MEMUSAGE_NONE;
	char a[32], b[32], d[40], name[NAME_SHOWN], name2[NAME_SHOWN];
	int row, i;

	if (kernel)
		fprintf(f, "Totals            %12s %12s %12s\n", "computed", "kernel",
			"difference");
	else
		fprintf(f, "Totals, computed from the per-buffer files (no "
			"trace_stats/memory_usage_kb)\n");
	for (row = 0; row < ATAG_ROW_MAX; row++) {
		if (!row_shown(bs, row))
			continue;
		fprintf(f, "  %-15s %12s", atag_bufstat_row_key(row),
			size_str(a, sizeof(a), bs->computed[row]));
		if (kernel) {
			text_diff(d, sizeof(d), bs->kernel.kb[row], bs->computed[row]);
			fprintf(f, " %12s %12s", bs->kernel.kb[row] == UNKNOWN ? "-" :
				kb_str(b, sizeof(b), bs->kernel.kb[row]), d);
		} else {
			fprintf(f, " (computed)");
		}
		fputc('\n', f);
	}
	if (bs->temp_buffer_bytes != UNKNOWN)
		fprintf(f, "  global includes the temp_buffer: %s (boot-time, 3 pages per CPU)\n",
			size_str(a, sizeof(a), bs->temp_buffer_bytes));
	for (i = 0; i < bs->nr_instances; i++)
		if (bs->instances[i].backup_of)
			fprintf(f, "  in no row: backup %s (of %s), %s vmalloc: %s\n",
				shown(name, bs->instances[i].name),
				shown(name2, bs->instances[i].backup_of),
				size_str(a, sizeof(a), bs->instances[i].buffer_bytes),
				ATAG_BUFSTAT_BACKUP_REASON);
	text_reasons(f, bs);
	fputc('\n', f);
}

static void text_kernel_cpus(FILE *f, const struct atag_bufstat *bs)
{
	unsigned long long computed;
	char a[32], b[32];
	int i, row;

	if (!bs->nr_kernel_cpus)
		return;
	fprintf(f, "Per CPU, kernel (trace_stats/per_cpu/cpuN/memory_usage_kb) and computed\n");
	for (i = 0; i < bs->nr_kernel_cpus; i++) {
		fprintf(f, "  cpu%d:", bs->kernel_cpu_ids[i]);
		for (row = 0; row < ATAG_ROW_MAX; row++) {
			if (bs->kernel_cpus[i].kb[row] == UNKNOWN)
				continue;
			computed = atag_bufstat_cpu_row(bs, bs->kernel_cpu_ids[i], row);
			fprintf(f, " %s %s (computed %s)", atag_bufstat_row_key(row),
				kb_str(a, sizeof(a), bs->kernel_cpus[i].kb[row]),
				size_str(b, sizeof(b), computed));
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void text_notes(FILE *f, const struct atag_bufstat_notes *n)
{
	int i;

	if (n->nr)
		fprintf(f, "Notes\n");
	/* a note names instances: escaped whole (its own words need no escape) */
	for (i = 0; i < n->nr; i++) {
		fputs("  - ", f);
		atag_text_fputs(n->line[i], f);
		fputc('\n', f);
	}
}

int atag_bufstat_render_text(const struct atag_bufstat *bs, FILE *f)
{
	struct atag_bufstat_notes n;
	char a[32];
	int i;

	fprintf(f, "tracefs %s: %d CPUs, page %s, sub-buffer header %u B%s\n\n", bs->tracefs,
		nr_cpus(bs), atag_format_size(a, sizeof(a), bs->page_size), bs->page_hdr,
		bs->page_hdr_assumed ? " (assumed)" : "");
	for (i = 0; i < bs->nr_instances; i++)
		text_instance(f, &bs->instances[i]);
	if (!bs->filtered) {
		text_remotes(f, bs);
		text_totals(f, bs);
		text_kernel_cpus(f, bs);
	}
	atag_bufstat_notes_collect(bs, &n);
	text_notes(f, &n);
	atag_bufstat_notes_free(&n);
	return ferror(f) ? -EIO : 0;
}
