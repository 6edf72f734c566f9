// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag stat: what tracing's own ring buffers cost, per instance,
 * snapshot, persistent buffer and trace remote, with the totals computed from the
 * per-buffer files beside the kernel's trace_stats/memory_usage_kb.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atag-bufstat.h"
#include "atag-cmd.h"
#include "atag-utils.h"

#define UNKNOWN		ATAG_BUFSTAT_UNKNOWN
#define MOUNT_HINT	"mount -t tracefs nodev /sys/kernel/tracing"

static const char stat_usage[] =
	"usage: " ATAG_PROG " stat [options]\n"
	"\n"
	"What tracing's own ring buffers cost: per instance (the top buffer and each\n"
	"instances/*), its snapshot, persistent (boot-mapped) buffers and trace remotes, with\n"
	"totals computed from the per-buffer files beside the kernel's\n"
	"trace_stats/memory_usage_kb when the kernel has it. Reads tracefs; writes nothing.\n"
	"\n"
	"options:\n"
	"  -B NAME            only the instance NAME (may be repeated); no remotes, no totals\n"
	"  -t                 with -B: the top buffer too\n"
	"  --format FMT       text (default; human-readable sizes) or json (exact KiB)\n"
	"  --watch SECONDS    refresh every SECONDS (fractions and ms allowed) until Ctrl-C;\n"
	"                     in place on a terminal\n"
	"  --count N          with --watch: stop after N reports\n"
	"  --tracefs DIR      read the tracefs tree at DIR (default: $ATAG_TRACEFS, else the\n"
	"                     tracefs mount in /proc/mounts)\n"
	"  -h, --help         this help\n";

enum {
	OPT_format = 256,
	OPT_watch,
	OPT_count,
	OPT_tracefs,
};

struct stat_params {
	const char		**names;
	size_t			nr_names;
	bool			top;
	bool			json;
	unsigned long long	watch_ns;	/* 0: once */
	unsigned long long	count;		/* 0: until interrupted */
	const char		*tracefs;
};

/* Collected while rendering, printed at the end (text) or as "notes" (JSON). */
struct notes {
	char	*line[32];
	int	nr;
};

static volatile sig_atomic_t stop;

/* ------------------------------------------------------------------ helpers */

static void note(struct notes *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct notes *n, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int i;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	for (i = 0; s && i < n->nr; i++) {
		if (!strcmp(n->line[i], s)) {
			free(s);
			return;
		}
	}
	if (s && n->nr < (int)(sizeof(n->line) / sizeof(n->line[0])))
		n->line[n->nr++] = s;
	else
		free(s);
}

static void notes_free(struct notes *n)
{
	while (n->nr > 0)
		free(n->line[--n->nr]);
}

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

static unsigned long long to_kb(unsigned long long bytes)
{
	return bytes == UNKNOWN ? UNKNOWN : (bytes + 1023) / 1024;
}

static const char *name_of(const struct atag_bufstat_instance *in)
{
	return in->name ? in->name : "top";
}

static int nr_cpus(const struct atag_bufstat *bs)
{
	return bs->nr_instances ? bs->instances[0].nr_cpus : 0;
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

/* ------------------------------------------------------------------ notes */

static void stats_notes(const struct atag_bufstat_instance *in, struct notes *n)
{
	static const struct { size_t off; const char *key; } fields[] = {
		{ offsetof(struct atag_bufstat_cpu_stats, entries), "entries" },
		{ offsetof(struct atag_bufstat_cpu_stats, overrun), "overrun" },
		{ offsetof(struct atag_bufstat_cpu_stats, bytes), "bytes" },
		{ offsetof(struct atag_bufstat_cpu_stats, dropped_events), "dropped events" },
		{ offsetof(struct atag_bufstat_cpu_stats, read_events), "read events" },
	};
	const struct atag_bufstat_cpu *c;
	const char *p;
	size_t f;
	int i;

	for (i = 0; i < in->nr_cpus; i++) {
		c = &in->cpus[i];
		if (!c->has_stats) {
			note(n, "per_cpu/cpuN/stats: missing for some CPUs; their counters are "
			     "left out ('-')");
			continue;
		}
		for (f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			p = (const char *)&c->stats + fields[f].off;
			if (*(const unsigned long long *)p == UNKNOWN)
				note(n, "per_cpu/cpuN/stats: this kernel's file has no '%s' line; "
				     "left out ('-')", fields[f].key);
		}
		if (!c->stats.oldest_ts[0] || !c->stats.now_ts[0])
			note(n, "per_cpu/cpuN/stats: this kernel's file has no 'oldest event ts' "
			     "or 'now ts' line; left out ('-')");
	}
}

static void instance_notes(const struct atag_bufstat_instance *in, struct notes *n)
{
	int i;

	if (in->subbuf_kb == UNKNOWN)
		note(n, "buffer_subbuf_size_kb: not on this kernel (Linux 6.8 added it); "
		     "a sub-buffer is counted as one page");
	if (in->snapshot == ATAG_SNAPSHOT_UNSUPPORTED)
		note(n, "snapshot: no snapshot file (kernel built without CONFIG_TRACER_SNAPSHOT), "
		     "so no snapshot buffers");
	if (in->snapshot == ATAG_SNAPSHOT_SPARE_MIN || in->snapshot == ATAG_SNAPSHOT_SPARE_FULL)
		note(n, "snapshot: no snapshot file, but latency tracers are built in "
		     "(CONFIG_TRACER_MAX_TRACE): each buffer keeps a spare, counted as snapshots");
	if (in->total.kb == UNKNOWN && !in->total.differ)
		note(n, "buffer_total_size_kb: not on this kernel; totals are summed from "
		     "per_cpu/cpuN/buffer_size_kb");
	for (i = 0; in->persistent && i < in->nr_cpus; i++)
		if (!in->cpus[i].has_meta)
			note(n, "%s: per_cpu/cpuN/buffer_meta missing; its carve-out is "
			     "estimated from buffer_size_kb", name_of(in));
	stats_notes(in, n);
}

static void collect_notes(const struct atag_bufstat *bs, struct notes *n)
{
	int i;

	if (bs->page_hdr_assumed)
		note(n, "events/header_page: not readable; assumed a %u-byte sub-buffer header "
		     "(64-bit kernel)", bs->page_hdr);
	for (i = 0; i < bs->nr_instances; i++)
		instance_notes(&bs->instances[i], n);
	for (i = 0; i < bs->nr_remotes; i++)
		if (bs->remotes[i].bytes == UNKNOWN)
			note(n, "remotes/%s/buffer_size_kb: no size or no (loaded)/(unloaded) "
			     "state; its memory is unknown", bs->remotes[i].name);
	if (bs->filtered)
		return;
	if (!bs->has_remotes_dir)
		note(n, "remotes/: absent; trace remotes (Linux 7.1) create it when one "
		     "registers, such as pKVM's hypervisor");
	if (bs->kernel.format == ATAG_MEMUSAGE_NONE)
		note(n, "trace_stats/memory_usage_kb: not on this kernel; the totals are "
		     "computed from the per-buffer files (the kernel's aggregate comes with "
		     "\"tracing: add aggregate buffer memory usage statistics\")");
	else if (bs->kernel.format == ATAG_MEMUSAGE_EMPTY)
		note(n, "trace_stats/memory_usage_kb: no line this tool knows; kernel figures "
		     "left out");
}

/* ------------------------------------------------------------------ text */

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
	fprintf(f, "  persistent      ");
	if (!in->persistent)
		fprintf(f, "no\n");
	else if (!strncmp(in->last_boot, "# Current", 9))
		fprintf(f, "yes: boot-mapped, reserved memory; holds this boot's trace\n");
	else
		fprintf(f, "yes: boot-mapped, reserved memory; holds the previous boot's trace\n"
			"  last boot       %s\n", in->last_boot);
}

static void text_cpu_row(FILE *f, const struct atag_bufstat_cpu *c)
{
	const struct atag_bufstat_cpu_stats *s = &c->stats;
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
	char a[32], b[32];
	int i;

	fprintf(f, "%s%s\n", in->name ? "Instance: " : "Top buffer", in->name ? in->name : "");
	text_size_line(f, in);
	fprintf(f, "  sub-buffer      %s\n", in->subbuf_kb == UNKNOWN ? "one page (no "
		"buffer_subbuf_size_kb)" : kb_str(a, sizeof(a), in->subbuf_kb));
	fprintf(f, "  tracing         %s\n", in->tracing_on < 0 ? "unknown" :
		in->tracing_on ? "on" : "off");
	text_persistent_line(f, in);
	text_snapshot_line(f, in);
	fprintf(f, "  memory          %s %s", size_str(a, sizeof(a), in->buffer_bytes),
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

static void text_remotes(FILE *f, const struct atag_bufstat *bs)
{
	static const char * const states[] = { " (nothing until loaded)", " carve-out" };
	const struct atag_bufstat_remote *r;
	char a[32], b[32];
	int i;

	if (!bs->nr_remotes) {
		fprintf(f, "Remotes: none%s\n\n", bs->has_remotes_dir ? "" : " (no remotes/)");
		return;
	}
	fprintf(f, "Remotes\n  %-16s %10s %-9s %-8s %4s %s\n", "name", "size/CPU", "state",
		"tracing", "CPUs", "memory");
	for (i = 0; i < bs->nr_remotes; i++) {
		r = &bs->remotes[i];
		fprintf(f, "  %-16s %10s %-9s %-8s %4d %s%s\n", r->name,
			kb_str(a, sizeof(a), r->size_kb),
			r->loaded < 0 ? "unknown" : r->loaded ? "loaded" : "unloaded",
			r->tracing_on < 0 ? "unknown" : r->tracing_on ? "on" : "off", r->nr_cpus,
			size_str(b, sizeof(b), r->bytes),
			r->loaded < 0 ? "" : states[r->loaded]);
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
	d = (long long)kernel_kb - (long long)to_kb(bytes);
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
	char a[32], b[32], d[40];
	int row;

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

static void render_text(FILE *f, const struct atag_bufstat *bs, const struct notes *n)
{
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
	if (n->nr)
		fprintf(f, "Notes\n");
	for (i = 0; i < n->nr; i++)
		fprintf(f, "  - %s\n", n->line[i]);
}

/* ------------------------------------------------------------------ json */

struct jw {
	FILE	*f;
	int	depth;
	bool	first;
};

static void jw_str_raw(struct jw *w, const char *s)
{
	fputc('"', w->f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(w->f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(w->f, "\\u%04x", *s);
		else
			fputc(*s, w->f);
	}
	fputc('"', w->f);
}

static void jw_key(struct jw *w, const char *key)
{
	fprintf(w->f, "%s\n%*s", w->first ? "" : ",", 2 * w->depth, "");
	w->first = false;
	if (key) {
		jw_str_raw(w, key);
		fputs(": ", w->f);
	}
}

static void jw_open(struct jw *w, const char *key, char c)
{
	jw_key(w, key);
	fputc(c, w->f);
	w->depth++;
	w->first = true;
}

static void jw_close(struct jw *w, char c)
{
	w->depth--;
	if (!w->first)
		fprintf(w->f, "\n%*s", 2 * w->depth, "");
	fputc(c, w->f);
	w->first = false;
}

static void jw_num(struct jw *w, const char *key, unsigned long long v)
{
	jw_key(w, key);
	if (v == UNKNOWN)
		fputs("null", w->f);
	else
		fprintf(w->f, "%llu", v);
}

static void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	if (s)
		jw_str_raw(w, s);
	else
		fputs("null", w->f);
}

static void jw_bool(struct jw *w, const char *key, int v)
{
	jw_key(w, key);
	fputs(v < 0 ? "null" : v ? "true" : "false", w->f);
}

static void json_cpu(struct jw *w, const struct atag_bufstat_cpu *c)
{
	const struct atag_bufstat_cpu_stats *s = &c->stats;
	bool st = c->has_stats;
	double pct;

	jw_open(w, NULL, '{');
	jw_num(w, "cpu", c->cpu);
	jw_num(w, "buffer_size_kb", c->size_kb);
	jw_num(w, "memory_kb", to_kb(c->buffer_bytes));
	jw_num(w, "snapshot_kb", to_kb(c->snapshot_bytes));
	jw_num(w, "entries", st ? s->entries : UNKNOWN);
	jw_num(w, "overrun", st ? s->overrun : UNKNOWN);
	jw_num(w, "commit_overrun", st ? s->commit_overrun : UNKNOWN);
	jw_num(w, "bytes", st ? s->bytes : UNKNOWN);
	jw_num(w, "dropped_events", st ? s->dropped_events : UNKNOWN);
	jw_num(w, "read_events", st ? s->read_events : UNKNOWN);
	jw_str(w, "oldest_ts", st && s->oldest_ts[0] ? s->oldest_ts : NULL);
	jw_str(w, "now_ts", st && s->now_ts[0] ? s->now_ts : NULL);
	jw_key(w, "fill_percent");
	if (!atag_bufstat_fill(c, &pct))
		fprintf(w->f, "%.1f", pct);
	else
		fputs("null", w->f);
	jw_close(w, '}');
}

static void json_instance(struct jw *w, const struct atag_bufstat_instance *in)
{
	int i;

	jw_open(w, NULL, '{');
	jw_str(w, "name", in->name);
	jw_bool(w, "top", !in->name);
	jw_num(w, "buffer_size_kb", in->size.kb);
	jw_num(w, "expanded_kb", in->size.expanded_kb);
	jw_bool(w, "sizes_differ", in->size.differ);
	jw_num(w, "buffer_total_size_kb", in->total.kb);
	jw_num(w, "subbuf_size_kb", in->subbuf_kb);
	jw_bool(w, "tracing_on", in->tracing_on);
	jw_bool(w, "persistent", in->persistent);
	jw_str(w, "last_boot_info", in->last_boot);
	jw_str(w, "memory_kind", in->persistent ? "carveout" : "system");
	jw_num(w, "memory_kb", to_kb(in->buffer_bytes));
	jw_open(w, "snapshot", '{');
	jw_str(w, "state", snapshot_word(in->snapshot));
	jw_num(w, "size_kb", to_kb(in->snapshot_bytes));
	jw_close(w, '}');
	jw_open(w, "cpus", '[');
	for (i = 0; i < in->nr_cpus; i++)
		json_cpu(w, &in->cpus[i]);
	jw_close(w, ']');
	jw_close(w, '}');
}

static void json_remote(struct jw *w, const struct atag_bufstat_remote *r)
{
	jw_open(w, NULL, '{');
	jw_str(w, "name", r->name);
	jw_num(w, "buffer_size_kb", r->size_kb);
	jw_bool(w, "loaded", r->loaded);
	jw_bool(w, "tracing_on", r->tracing_on);
	jw_num(w, "cpus", r->nr_cpus);
	jw_num(w, "memory_kb", to_kb(r->bytes));
	jw_close(w, '}');
}

static void json_rows(struct jw *w, const char *key, const unsigned long long *v, bool bytes,
		      bool all)
{
	int row;

	jw_open(w, key, '{');
	for (row = 0; row < ATAG_ROW_MAX; row++)
		if (all || v[row] != UNKNOWN)
			jw_num(w, atag_bufstat_row_key(row), bytes ? to_kb(v[row]) : v[row]);
	jw_close(w, '}');
}

static void json_differences(struct jw *w, const struct atag_bufstat *bs)
{
	unsigned int mask, bit;
	int row;

	jw_open(w, "differences", '[');
	for (row = 0; row < ATAG_ROW_MAX; row++) {
		mask = atag_bufstat_diff_reasons(bs, row);
		if (!mask)
			continue;
		jw_open(w, NULL, '{');
		jw_str(w, "row", atag_bufstat_row_key(row));
		jw_num(w, "computed_kb", to_kb(bs->computed[row]));
		jw_num(w, "kernel_kb", bs->kernel.kb[row]);
		jw_key(w, "difference_kb");
		fprintf(w->f, "%lld", (long long)bs->kernel.kb[row] -
			(long long)to_kb(bs->computed[row]));
		jw_open(w, "reasons", '[');
		for (bit = 1; bit <= mask; bit <<= 1)
			if (mask & bit)
				jw_str(w, NULL, atag_bufstat_reason_str(bit));
		jw_close(w, ']');
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void json_kernel_cpus(struct jw *w, const struct atag_bufstat *bs)
{
	unsigned long long computed[ATAG_ROW_MAX];
	int i, row;

	jw_open(w, "kernel_per_cpu", '[');
	for (i = 0; i < bs->nr_kernel_cpus; i++) {
		for (row = 0; row < ATAG_ROW_MAX; row++)
			computed[row] = atag_bufstat_cpu_row(bs, bs->kernel_cpu_ids[i], row);
		jw_open(w, NULL, '{');
		jw_num(w, "cpu", bs->kernel_cpu_ids[i]);
		json_rows(w, "kernel", bs->kernel_cpus[i].kb, false, false);
		json_rows(w, "computed", computed, true, true);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void json_aggregate(struct jw *w, const struct atag_bufstat *bs)
{
	static const char * const formats[] = {
		[ATAG_MEMUSAGE_NONE]	= NULL,
		[ATAG_MEMUSAGE_SPLIT]	= "split",
		[ATAG_MEMUSAGE_BUFFERS]	= "buffers",
		[ATAG_MEMUSAGE_EMPTY]	= "empty",
	};

	jw_open(w, "aggregate", '{');
	json_rows(w, "computed", bs->computed, true, true);
	jw_str(w, "kernel_format", formats[bs->kernel.format]);
	if (bs->kernel.format == ATAG_MEMUSAGE_NONE) {
		jw_str(w, "kernel", NULL);
	} else {
		json_rows(w, "kernel", bs->kernel.kb, false, false);
	}
	json_differences(w, bs);
	json_kernel_cpus(w, bs);
	jw_close(w, '}');
}

static void render_json(FILE *f, const struct atag_bufstat *bs, const struct notes *n)
{
	struct jw w = { .f = f, .first = true };
	int i;

	jw_open(&w, NULL, '{');
	jw_str(&w, "tracefs", bs->tracefs);
	jw_num(&w, "page_size_kb", bs->page_size / 1024);
	jw_num(&w, "subbuf_header_bytes", bs->page_hdr);
	jw_open(&w, "instances", '[');
	for (i = 0; i < bs->nr_instances; i++)
		json_instance(&w, &bs->instances[i]);
	jw_close(&w, ']');
	if (!bs->filtered) {
		jw_open(&w, "remotes", '[');
		for (i = 0; i < bs->nr_remotes; i++)
			json_remote(&w, &bs->remotes[i]);
		jw_close(&w, ']');
		json_aggregate(&w, bs);
	}
	jw_open(&w, "notes", '[');
	for (i = 0; i < n->nr; i++)
		jw_str(&w, NULL, n->line[i]);
	jw_close(&w, ']');
	jw_close(&w, '}');
	fputc('\n', f);
}

/* ------------------------------------------------------------------ running */

static void __attribute__((noreturn)) read_failed(const struct atag_bufstat_error *e)
{
	if (e->err == EACCES || e->err == EPERM)
		die("cannot read %s: %s; reading tracefs needs root", e->path, strerror(e->err));
	if (e->line)
		die("%s:%d: %s", e->path, e->line, e->msg);
	die("%s: %s", e->path, e->msg);
}

static const char *tracefs_root(const struct stat_params *p, char *buf, size_t len)
{
	const char *env = getenv("ATAG_TRACEFS");
	int ret;

	if (p->tracefs)
		return p->tracefs;
	if (env && *env)
		return env;
	ret = atag_bufstat_find_tracefs(NULL, buf, len);
	if (ret == -ENODEV)
		die("tracefs is not mounted; mount it with: %s", MOUNT_HINT);
	if (ret)
		die("cannot read /proc/mounts: %s", strerror(-ret));
	return buf;
}

/* One report into a memory buffer, so that a refresh replaces the screen at once. */
static char *report(const struct stat_params *p, const char *root, size_t *len)
{
	struct atag_bufstat_opts opts = {
		.names = p->names, .nr_names = p->nr_names, .top = p->top,
	};
	struct atag_bufstat_error err;
	struct notes n = { .nr = 0 };
	struct atag_bufstat *bs;
	char *buf = NULL;
	FILE *f;

	bs = atag_bufstat_read(root, &opts, &err);
	if (!bs)
		read_failed(&err);
	collect_notes(bs, &n);
	f = open_memstream(&buf, len);
	if (!f)
		die("out of memory");
	if (p->json)
		render_json(f, bs, &n);
	else
		render_text(f, bs, &n);
	fclose(f);
	notes_free(&n);
	atag_bufstat_free(bs);
	return buf;
}

static void on_signal(int sig)
{
	stop = 1;
}

static void nap(unsigned long long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };

	while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void run(const struct stat_params *p)
{
	bool tty = p->watch_ns && isatty(STDOUT_FILENO);
	char rootbuf[PATH_MAX], *out;
	unsigned long long i;
	const char *root;
	size_t len;

	root = tracefs_root(p, rootbuf, sizeof(rootbuf));
	if (p->watch_ns) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
	}
	for (i = 0; !stop && (!p->count || i < p->count); i++) {
		if (i)
			nap(p->watch_ns);
		if (stop)
			break;
		out = report(p, root, &len);
		if (tty)
			fputs("\033[H\033[2J", stdout);
		else if (i)
			fputc('\n', stdout);
		fwrite(out, 1, len, stdout);
		fflush(stdout);
		free(out);
		if (!p->watch_ns)
			break;
	}
}

static void parse_args(int argc, char **argv, struct stat_params *p)
{
	static const struct option long_options[] = {
		{ "format", required_argument, NULL, OPT_format },
		{ "watch", required_argument, NULL, OPT_watch },
		{ "count", required_argument, NULL, OPT_count },
		{ "tracefs", required_argument, NULL, OPT_tracefs },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char **names;
	static const char optstring[] = "+:hB:t";
	int c;

	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, NULL)) != -1) {
		switch (c) {
		case 'B':
			names = realloc(p->names, sizeof(*names) * (p->nr_names + 1));
			if (!names)
				die("out of memory");
			names[p->nr_names++] = optarg;
			p->names = names;
			break;
		case 't':
			p->top = true;
			break;
		case OPT_format:
			if (strcmp(optarg, "text") && strcmp(optarg, "json"))
				atag_usage_error(stat_usage, "--format: '%s' is not text or json",
						 optarg);
			p->json = !strcmp(optarg, "json");
			break;
		case OPT_watch:
			if (atag_parse_duration(optarg, &p->watch_ns) || !p->watch_ns)
				atag_usage_error(stat_usage, "--watch: '%s' is not a positive "
						 "number of seconds", optarg);
			break;
		case OPT_count:
			if (atag_parse_u64(optarg, &p->count) || !p->count)
				atag_usage_error(stat_usage,
						 "--count: '%s' is not a positive number", optarg);
			break;
		case OPT_tracefs:
			p->tracefs = optarg;
			break;
		case 'h':
			atag_usage_exit(stat_usage);
		default:
			atag_option_error(stat_usage, optstring, c, argv);
		}
	}
	if (optind + 1 < argc)
		atag_usage_error(stat_usage, "unexpected argument '%s'", argv[optind + 1]);
	if (p->top && !p->names)
		atag_usage_error(stat_usage, "-t goes with -B (without -B every buffer is shown)");
	if (p->count && !p->watch_ns)
		atag_usage_error(stat_usage, "--count goes with --watch");
}

void trace_alloc_tag_stat(int argc, char **argv)
{
	struct stat_params p = { .names = NULL };

	parse_args(argc, argv, &p);
	run(&p);
	free(p.names);
}
