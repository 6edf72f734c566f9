// SPDX-License-Identifier: LGPL-2.1
/*
 * What tracing's ring buffers cost: bytes per CPU, per buffer and per row of
 * trace_stats/memory_usage_kb, computed from the per-buffer files, and why the
 * kernel's own aggregate may differ. No I/O here.
 */
#include <errno.h>
#include <stdlib.h>

#include "atag-bufstat.h"
#include "atag-utils.h"

#define UNKNOWN		ATAG_BUFSTAT_UNKNOWN
/*
 * A freed (or never allocated) snapshot buffer is resized to 1 byte: 2 sub-buffers
 * and the reader remain.  They are pages whatever the main buffer's sub-buffer
 * size: freeing a snapshot sets its sub-buffer order back to 0, and a sub-buffer
 * size written while it is not allocated only reaches the main buffer.
 */
#define SPARE_MIN_SUBBUFS	3

static void add(unsigned long long *acc, unsigned long long v)
{
	if (*acc == UNKNOWN || v == UNKNOWN)
		*acc = UNKNOWN;
	else
		*acc += v;
}

unsigned long long atag_bufstat_kb(unsigned long long bytes)
{
	return bytes == UNKNOWN ? UNKNOWN : (bytes + 1023) / 1024;
}

unsigned long long atag_bufstat_buffer_pages(unsigned long long size_kb, unsigned long long subbuf,
					     unsigned int hdr)
{
	unsigned long long data, pages;

	if (size_kb == UNKNOWN || subbuf == UNKNOWN || subbuf <= hdr)
		return UNKNOWN;
	data = subbuf - hdr;
	pages = (size_kb * 1024 + data - 1) / data;
	return pages < 2 ? 2 : pages;
}

unsigned long long atag_bufstat_buffer_bytes(unsigned long long size_kb, unsigned long long subbuf,
					     unsigned int hdr)
{
	unsigned long long pages = atag_bufstat_buffer_pages(size_kb, subbuf, hdr);

	return pages == UNKNOWN ? UNKNOWN : (pages + 1) * subbuf;
}

unsigned long long atag_bufstat_remote_bytes(unsigned long long size_kb, unsigned long page_size)
{
	unsigned long long pages;

	if (size_kb == UNKNOWN || !page_size)
		return UNKNOWN;
	pages = (size_kb * 1024 + page_size - 1) / page_size;
	if (pages < 2)
		pages = 2;
	/* data pages, the reader page and the meta page */
	return (pages + 2) * page_size;
}

int atag_bufstat_fill(const struct atag_bufstat_cpu *cpu, double *percent)
{
	double pct;

	if (!cpu->has_stats || cpu->stats.bytes == UNKNOWN || cpu->size_kb == UNKNOWN ||
	    !cpu->size_kb)
		return atag_err(-ENODATA);
	pct = 100.0 * cpu->stats.bytes / (cpu->size_kb * 1024.0);
	*percent = pct > 100.0 ? 100.0 : pct;
	return 0;
}

static unsigned long long snapshot_bytes(enum atag_snapshot_state state, unsigned long long main,
					 unsigned long page_size)
{
	switch (state) {
	case ATAG_SNAPSHOT_UNSUPPORTED:
	case ATAG_SNAPSHOT_PERSISTENT:
		return 0;
	case ATAG_SNAPSHOT_FREED:
	case ATAG_SNAPSHOT_SPARE_MIN:
		return SPARE_MIN_SUBBUFS * (unsigned long long)page_size;
	case ATAG_SNAPSHOT_ALLOCATED:
	case ATAG_SNAPSHOT_BUSY:
	case ATAG_SNAPSHOT_SPARE_FULL:
		return main;
	default:
		return UNKNOWN;
	}
}

static unsigned long long cpu_main_bytes(const struct atag_bufstat *bs,
					 const struct atag_bufstat_instance *in,
					 const struct atag_bufstat_cpu *c,
					 unsigned long long subbuf)
{
	unsigned long long kb = c->size_kb != UNKNOWN ? c->size_kb : in->size.kb;

	if (in->persistent && c->has_meta)
		return c->meta.nr_subbufs * c->meta.subbuf_size;
	return atag_bufstat_buffer_bytes(kb, subbuf, bs->page_hdr);
}

static void compute_instance(const struct atag_bufstat *bs, struct atag_bufstat_instance *in)
{
	unsigned long long subbuf = in->subbuf_kb != UNKNOWN ? in->subbuf_kb * 1024 : bs->page_size;
	struct atag_bufstat_cpu *c;
	int i;

	in->buffer_bytes = in->nr_cpus ? 0 : UNKNOWN;
	in->snapshot_bytes = in->nr_cpus ? 0 : UNKNOWN;
	for (i = 0; i < in->nr_cpus; i++) {
		c = &in->cpus[i];
		c->buffer_bytes = cpu_main_bytes(bs, in, c, subbuf);
		c->snapshot_bytes = snapshot_bytes(in->snapshot, c->buffer_bytes, bs->page_size);
		add(&in->buffer_bytes, c->buffer_bytes);
		add(&in->snapshot_bytes, c->snapshot_bytes);
	}
}

/*
 * The part of one buffer's @main and @snap bytes that counts in @row. A backup
 * instance counts in none: v5 2/4 skips it, "already accounted in VmallocUsed".
 */
static unsigned long long instance_part(const struct atag_bufstat_instance *in,
					enum atag_bufstat_row row,
					unsigned long long main, unsigned long long snap)
{
	bool top = !in->name;

	if (in->backup_of)
		return 0;
	switch (row) {
	case ATAG_ROW_GLOBAL:
		return top ? main : 0;
	case ATAG_ROW_INSTANCES:
		return !top && !in->persistent ? main : 0;
	case ATAG_ROW_SNAPSHOTS:
	case ATAG_ROW_SNAPSHOT_BUFFERS:
		return snap;
	case ATAG_ROW_PERSISTENTS:
	case ATAG_ROW_TOTAL_CARVEOUT:
		return in->persistent ? main : 0;
	case ATAG_ROW_TOTAL_SYSTEM:
		if (in->persistent)
			return snap;
		return main == UNKNOWN || snap == UNKNOWN ? UNKNOWN : main + snap;
	case ATAG_ROW_BUFFERS:
		return main;
	default:
		return 0;
	}
}

/* Remote buffers come from the page allocator (v5 2/4: total_system has remotes). */
static unsigned long long remote_part(enum atag_bufstat_row row, unsigned long long bytes)
{
	return row == ATAG_ROW_REMOTES || row == ATAG_ROW_TOTAL_SYSTEM ? bytes : 0;
}

/* temp_buffer is in global (v5 2/4), and so in total_system. */
static unsigned long long temp_part(enum atag_bufstat_row row, unsigned long long bytes)
{
	return row == ATAG_ROW_GLOBAL || row == ATAG_ROW_TOTAL_SYSTEM ? bytes : 0;
}

static unsigned long long row_total(const struct atag_bufstat *bs, enum atag_bufstat_row row,
				    bool with_remotes)
{
	unsigned long long sum = 0;
	int i;

	for (i = 0; i < bs->nr_instances; i++)
		add(&sum, instance_part(&bs->instances[i], row, bs->instances[i].buffer_bytes,
					bs->instances[i].snapshot_bytes));
	for (i = 0; with_remotes && i < bs->nr_remotes; i++)
		add(&sum, remote_part(row, bs->remotes[i].bytes));
	add(&sum, temp_part(row, bs->temp_buffer_bytes));
	return sum;
}

/*
 * temp_buffer: tracer_alloc_buffers() allocates it once at boot with
 * ring_buffer_alloc(PAGE_SIZE, ...), a buffer of one page per tracing CPU that
 * nothing resizes: 2 data pages and the reader on each CPU the top buffer has.
 */
static unsigned long long temp_buffer_bytes(const struct atag_bufstat *bs)
{
	const struct atag_bufstat_instance *top = bs->nr_instances ? &bs->instances[0] : NULL;
	unsigned long long one;

	if (!top || top->name || !top->nr_cpus || bs->page_size < 1024)
		return UNKNOWN;
	one = atag_bufstat_buffer_bytes(bs->page_size / 1024, bs->page_size, bs->page_hdr);
	return one == UNKNOWN ? UNKNOWN : one * top->nr_cpus;
}

static void compute_remote(const struct atag_bufstat *bs, struct atag_bufstat_remote *r)
{
	if (r->loaded < 0 || r->size_kb == UNKNOWN)
		r->bytes_per_cpu = UNKNOWN;
	else if (!r->loaded)
		r->bytes_per_cpu = 0;
	else
		r->bytes_per_cpu = atag_bufstat_remote_bytes(r->size_kb, bs->page_size);
	if (r->bytes_per_cpu == 0)
		r->bytes = 0;
	else if (r->bytes_per_cpu == UNKNOWN || r->nr_cpus < 0)
		r->bytes = UNKNOWN;
	else
		r->bytes = r->nr_cpus * r->bytes_per_cpu;
}

void atag_bufstat_compute(struct atag_bufstat *bs)
{
	int i;

	for (i = 0; i < bs->nr_instances; i++)
		compute_instance(bs, &bs->instances[i]);
	for (i = 0; i < bs->nr_remotes; i++)
		compute_remote(bs, &bs->remotes[i]);
	bs->temp_buffer_bytes = bs->filtered ? UNKNOWN : temp_buffer_bytes(bs);
	bs->backup_bytes = 0;
	for (i = 0; i < bs->nr_instances; i++)
		if (bs->instances[i].backup_of)
			add(&bs->backup_bytes, bs->instances[i].buffer_bytes);
	for (i = 0; i < ATAG_ROW_MAX; i++)
		bs->computed[i] = bs->filtered ? UNKNOWN : row_total(bs, i, true);
	bs->system_without_remotes = bs->filtered ? UNKNOWN :
				     row_total(bs, ATAG_ROW_TOTAL_SYSTEM, false);
}

unsigned long long atag_bufstat_cpu_row(const struct atag_bufstat *bs, int cpu,
					enum atag_bufstat_row row)
{
	const struct atag_bufstat_instance *in;
	unsigned long long sum = 0;
	int i, j;

	if (bs->filtered)
		return UNKNOWN;
	for (i = 0; i < bs->nr_instances; i++) {
		in = &bs->instances[i];
		for (j = 0; j < in->nr_cpus && in->cpus[j].cpu != cpu; j++)
			;
		if (j == in->nr_cpus)
			continue;
		add(&sum, instance_part(in, row, in->cpus[j].buffer_bytes,
					in->cpus[j].snapshot_bytes));
		/* the temp_buffer has the top buffer's CPUs */
		if (!in->name && bs->temp_buffer_bytes != UNKNOWN)
			add(&sum, temp_part(row, bs->temp_buffer_bytes / in->nr_cpus));
	}
	/* no file says which CPUs a loaded remote has */
	for (i = 0; i < bs->nr_remotes; i++)
		add(&sum, remote_part(row, bs->remotes[i].bytes ? UNKNOWN : 0));
	return sum;
}

/* Does any buffer counted in @row wait to be expanded? */
static bool row_unexpanded(const struct atag_bufstat *bs, enum atag_bufstat_row row)
{
	const struct atag_bufstat_instance *in;
	int i;

	for (i = 0; i < bs->nr_instances; i++) {
		in = &bs->instances[i];
		if (in->size.expanded_kb != UNKNOWN && instance_part(in, row, 1, 1))
			return true;
	}
	return false;
}

static bool some_snapshot_unsupported(const struct atag_bufstat *bs)
{
	int i;

	for (i = 0; i < bs->nr_instances; i++)
		if (bs->instances[i].snapshot == ATAG_SNAPSHOT_UNSUPPORTED)
			return true;
	return false;
}

/* Is a persistent buffer counted in @row estimated from buffer_size_kb (no buffer_meta)? */
static bool row_estimated(const struct atag_bufstat *bs, enum atag_bufstat_row row)
{
	const struct atag_bufstat_instance *in;
	int i, j;

	for (i = 0; i < bs->nr_instances; i++) {
		in = &bs->instances[i];
		if (!in->persistent || !instance_part(in, row, 1, 1))
			continue;
		for (j = 0; j < in->nr_cpus; j++)
			if (!in->cpus[j].has_meta)
				return true;
	}
	return false;
}

static unsigned int system_reasons(const struct atag_bufstat *bs, enum atag_bufstat_row row,
				   bool kernel_more)
{
	unsigned int r = ATAG_BUFDIFF_ROUNDING;
	bool snaps = row == ATAG_ROW_SNAPSHOTS || row == ATAG_ROW_SNAPSHOT_BUFFERS ||
		     row == ATAG_ROW_TOTAL_SYSTEM;

	if (kernel_more) {
		r |= ATAG_BUFDIFF_READ_PAGE | ATAG_BUFDIFF_META_PAGE | ATAG_BUFDIFF_METADATA;
		/* the rows of v5 have it computed; v1 and v2 left it out, v3 and v4 not */
		if (row == ATAG_ROW_BUFFERS)
			r |= ATAG_BUFDIFF_TEMP_BUFFER;
		if (snaps && some_snapshot_unsupported(bs))
			r |= ATAG_BUFDIFF_SPARE;
	}
	if (row_unexpanded(bs, row))
		r |= ATAG_BUFDIFF_UNEXPANDED;
	if (row == ATAG_ROW_BUFFERS && bs->computed[ATAG_ROW_PERSISTENTS] != UNKNOWN &&
	    bs->computed[ATAG_ROW_PERSISTENTS])
		r |= ATAG_BUFDIFF_PERSISTENT_OLD;
	return r;
}

/*
 * Persistent buffers: v5 2/4 counts them with the same ring_buffer_memory_size() as
 * the others (seed 000, trace_array_buffer_memory()), so the same helper's extras may
 * explain a difference; a reserved range is never a reason. They never expand.
 */
static unsigned int carveout_reasons(const struct atag_bufstat *bs, enum atag_bufstat_row row,
				     bool kernel_more)
{
	unsigned int r = 0;

	if (kernel_more)
		r |= ATAG_BUFDIFF_READ_PAGE | ATAG_BUFDIFF_META_PAGE | ATAG_BUFDIFF_METADATA;
	if (row_estimated(bs, row))
		r |= ATAG_BUFDIFF_ROUNDING;
	return r;
}

unsigned int atag_bufstat_diff_reasons(const struct atag_bufstat *bs, enum atag_bufstat_row row)
{
	unsigned long long kernel_kb, bytes;
	unsigned int r = ATAG_BUFDIFF_RACE;
	bool kernel_more;

	if (row >= ATAG_ROW_MAX)
		return 0;
	kernel_kb = bs->kernel.kb[row];
	bytes = bs->computed[row];
	if (bs->kernel.format == ATAG_MEMUSAGE_NONE || kernel_kb == UNKNOWN || bytes == UNKNOWN ||
	    kernel_kb == (bytes + 1023) / 1024)
		return 0;
	kernel_more = kernel_kb * 1024 > bytes;
	if ((row == ATAG_ROW_REMOTES || row == ATAG_ROW_TOTAL_SYSTEM) &&
	    bs->kernel.kb[ATAG_ROW_REMOTES] == 0 && bs->computed[ATAG_ROW_REMOTES] != UNKNOWN &&
	    bs->computed[ATAG_ROW_REMOTES] > 0)
		r |= ATAG_BUFDIFF_REMOTES_ZERO;
	if (row == ATAG_ROW_REMOTES)
		return r;
	r |= ATAG_BUFDIFF_HELPER;
	if (row == ATAG_ROW_PERSISTENTS || row == ATAG_ROW_TOTAL_CARVEOUT)
		return r | carveout_reasons(bs, row, kernel_more);
	return r | system_reasons(bs, row, kernel_more);
}

const char *atag_bufstat_reason_str(enum atag_bufdiff_reason reason)
{
	switch (reason) {
	case ATAG_BUFDIFF_READ_PAGE:
		return "the kernel counts each CPU's cached read page, kept once a buffer has "
		       "been read; no file shows it";
	case ATAG_BUFDIFF_META_PAGE:
		return "the kernel counts the meta page of a buffer mapped into user space";
	case ATAG_BUFDIFF_TEMP_BUFFER:
		return "v3 and v4 count the boot-time temp_buffer (2 pages and a reader per "
		       "CPU) in buffers, v1 and v2 do not; the computed figure leaves it out";
	case ATAG_BUFDIFF_UNEXPANDED:
		return "a buffer not yet expanded counts at its current size; it grows when "
		       "tracing first uses it";
	case ATAG_BUFDIFF_ROUNDING:
		return "page rounding: buffer_size_kb is truncated to KiB and keeps its old value "
		       "after a sub-buffer size change (one sub-buffer per CPU either way)";
	case ATAG_BUFDIFF_REMOTES_ZERO:
		return "the kernel's aggregate reports remotes as zero for now; the computed "
		       "figure counts loaded remotes";
	case ATAG_BUFDIFF_HELPER:
		return "v5 counts every buffer, a persistent one too, with "
		       "ring_buffer_memory_size(), which its patch 1/4 defines and this tool has not "
		       "seen: the computed figure infers it counts each CPU's data and reader "
		       "sub-buffers (a persistent buffer's from buffer_meta), not the reserved range "
		       "around them";
	case ATAG_BUFDIFF_PERSISTENT_OLD:
		return "the earlier postings count persistent buffers differently (v1 and v2 as "
		       "zero)";
	case ATAG_BUFDIFF_SPARE:
		return "latency tracers' spare (max) buffers have no snapshot file on this kernel";
	case ATAG_BUFDIFF_RACE:
		return "buffers may have changed between reading the files and the aggregate";
	case ATAG_BUFDIFF_METADATA:
		return "metadata: the kernel may count the struct buffer_page of each sub-buffer, "
		       "which no file shows";
	}
	return "unknown reason";
}
