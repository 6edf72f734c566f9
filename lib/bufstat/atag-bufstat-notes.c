// SPDX-License-Identifier: LGPL-2.1
/*
 * The notes of a stat report: a sentence for each figure left out or assumed (a file
 * this kernel lacks, a line a file does not have), each said once, for the text and
 * the JSON renderings alike.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-bufstat.h"

#define UNKNOWN		ATAG_BUFSTAT_UNKNOWN

static void __attribute__((format(printf, 2, 3)))
note(struct atag_bufstat_notes *n, const char *fmt, ...)
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
	if (s && n->nr < ATAG_BUFSTAT_MAX_NOTES)
		n->line[n->nr++] = s;
	else
		free(s);
}

void atag_bufstat_notes_free(struct atag_bufstat_notes *n)
{
	while (n->nr > 0)
		free(n->line[--n->nr]);
}

static const char *name_of(const struct atag_bufstat_instance *in)
{
	return in->name ? in->name : "top";
}

static void stats_notes(const struct atag_bufstat_instance *in, struct atag_bufstat_notes *n)
{
	static const struct { size_t off; const char *key; } fields[] = {
		{ offsetof(struct atag_cpu_stats, entries), "entries" },
		{ offsetof(struct atag_cpu_stats, overrun), "overrun" },
		{ offsetof(struct atag_cpu_stats, bytes), "bytes" },
		{ offsetof(struct atag_cpu_stats, dropped_events), "dropped events" },
		{ offsetof(struct atag_cpu_stats, read_events), "read events" },
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

static void instance_notes(const struct atag_bufstat_instance *in, struct atag_bufstat_notes *n)
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
			note(n, "%s: per_cpu/cpuN/buffer_meta missing; its %s is "
			     "estimated from buffer_size_kb", name_of(in),
			     in->backup_of ? "memory" : "carve-out");
	if (in->backup_of)
		note(n, "%s: the backup instance of %s, as the kernel command line says "
		     "(trace_instance=%s=%s); no tracefs file marks a backup. Its buffer is a "
		     "copy of %s's reserved range in vmalloc'd memory, of which the sub-buffers "
		     "are shown (inferred from the boot-time backup of kernels later than the "
		     "series' posting, which does not describe it)", in->name, in->backup_of, in->name,
		     in->backup_of, in->backup_of);
	stats_notes(in, n);
}

static void remote_notes(const struct atag_bufstat *bs, const struct atag_bufstat_remote *r,
			 struct atag_bufstat_notes *n)
{
	unsigned long long per = atag_bufstat_kb(r->bytes_per_cpu);
	unsigned long long wo = atag_bufstat_kb(bs->system_without_remotes);
	int max = bs->nr_instances && !bs->instances[0].name ? bs->instances[0].nr_cpus : 0;

	if (r->bytes_per_cpu == UNKNOWN) {
		note(n, "remotes/%s/buffer_size_kb: no size or no (loaded)/(unloaded) state; its "
		     "memory is unknown", r->name);
		return;
	}
	if (r->bytes != UNKNOWN)
		return;
	if (max > 1)
		note(n, "remotes/%s: loaded, %llu KiB per CPU of its buffer, on 1 to %d CPUs "
		     "(%llu to %llu KiB): no file says which CPUs a remote's buffer covers (the "
		     "cpumask the remote gives, v10 05/30), so remotes and total_system are unknown",
		     r->name, per, max, per, per * max);
	else
		note(n, "remotes/%s: loaded, %llu KiB per CPU of its buffer: no file says which "
		     "CPUs a remote's buffer covers (the cpumask the remote gives, v10 05/30), so "
		     "remotes and total_system are unknown", r->name, per);
	note(n, "remotes: the pages of a loaded buffer are inferred: max(ceil(buffer_size_kb * "
	     "1024 / page), 2) + 1 data pages and a meta page per CPU, as the merged series "
	     "allocates them; v10 05/30 says only that they are enough to cover buffer_size_kb "
	     "on each CPU of the remote's cpumask");
	if (wo != UNKNOWN)
		note(n, "total_system without the loaded remotes: %llu KiB", wo);
}

/* What of a remote is the series' v10 05/30 (the seed), and what comes later. */
static void remotes_note(const struct atag_bufstat *bs, struct atag_bufstat_notes *n)
{
	if (!bs->nr_remotes)
		return;
	note(n, "remotes: read are each remote's tracing_on and buffer_size_kb (\"N (loaded)\" "
	     "or \"N (unloaded)\", N KiB per CPU), the files v10 05/30 of the series "
	     "\"tracing: Introduce trace remotes\" defines; its per_cpu/, trace, trace_pipe and "
	     "events/ come with later parts of the series and are not read");
}

void atag_bufstat_notes_collect(const struct atag_bufstat *bs, struct atag_bufstat_notes *n)
{
	int i;

	n->nr = 0;
	if (bs->page_hdr_assumed)
		note(n, "events/header_page: not readable; assumed a %u-byte sub-buffer header "
		     "(64-bit kernel)", bs->page_hdr);
	for (i = 0; i < bs->nr_instances; i++)
		instance_notes(&bs->instances[i], n);
	remotes_note(bs, n);
	for (i = 0; i < bs->nr_remotes; i++)
		remote_notes(bs, &bs->remotes[i], n);
	if (bs->filtered)
		return;
	for (i = 0; bs->cmdline_unread && i < bs->nr_instances; i++)
		if (bs->instances[i].persistent && bs->instances[i].name)
			note(n, "%s: not readable, so no backup instance is recognised: a backup "
			     "(trace_instance=NAME=ORIGIN) shows as persistent and in the totals",
			     bs->cmdline_unread);
	if (!bs->has_remotes_dir)
		note(n, "remotes/: absent; trace_remote_register() creates it when a remote "
		     "registers (v10 05/30 of \"tracing: Introduce trace remotes\", merged for "
		     "Linux 7.1 by its date: inferred), such as pKVM's hypervisor (a later part "
		     "of the series)");
	if (bs->kernel.format == ATAG_MEMUSAGE_NONE)
		note(n, "trace_stats/memory_usage_kb: not on this kernel; the totals are "
		     "computed from the per-buffer files (the kernel's aggregate comes with "
		     "\"tracing: add aggregate buffer memory usage statistics\")");
	else if (bs->kernel.format == ATAG_MEMUSAGE_EMPTY)
		note(n, "trace_stats/memory_usage_kb: no line this tool knows; kernel figures "
		     "left out");
}
