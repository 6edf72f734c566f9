/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-bufstat.h - what tracing's own ring buffers cost (lib/bufstat/, the archive
 * libatag-bufstat.a; it uses lib/util/ only).
 *
 * Layers, each usable alone:
 *  - parsers (lib/bufstat/atag-bufstat-parse.c) turn the text of one tracefs file into
 *    numbers; the per_cpu/cpuN/stats file is parsed by atag_parse_cpu_stats() and the
 *    tracefs mount found by atag_tracefs_find() (include/atag-utils.h), which the
 *    recording side shares;
 *  - the reader (lib/bufstat/atag-bufstat-read.c) walks a tracefs directory with plain
 *    open()/read() (no libtracefs: several of its calls ignore tracefs_set_tracing_dir(),
 *    and this way a fake tree in a temporary directory reads like the real mount);
 *  - the computation (lib/bufstat/atag-bufstat.c) turns what was read into bytes of memory;
 *  - the renderings of the stat command: text (lib/bufstat/atag-bufstat-text.c) and
 *    JSON (lib/bufstat/atag-bufstat-json.c), with the notes both show
 *    (lib/bufstat/atag-bufstat-notes.c).
 *
 * Files read, per buffer (the top directory and each instances/<name>/):
 *   buffer_size_kb          "N", "N (expanded: M)" (not yet expanded) or "X" (CPUs differ)
 *   buffer_total_size_kb    "N" or "N (expanded: M)"
 *   buffer_subbuf_size_kb   "N" (Linux 6.8 and later; before, a sub-buffer is one page)
 *   tracing_on, snapshot (CONFIG_TRACER_SNAPSHOT), last_boot_info (persistent buffers)
 *   per_cpu/cpuN/{buffer_size_kb,stats,buffer_meta}
 * and once: events/header_page (the sub-buffer header size), available_tracers,
 * the kernel command line (the backup instance, below),
 * remotes/<name>/{buffer_size_kb,tracing_on} (trace remotes: the two control files
 * that v10 05/30 of the series defines; per_cpu/, trace, trace_pipe and events/ come
 * with later parts of the series, which the seeds lack, and are not read),
 * trace_stats/memory_usage_kb and trace_stats/per_cpu/cpuN/memory_usage_kb (the kernel's
 * own aggregate, from the series "tracing: add aggregate buffer memory usage statistics").
 *
 * What the computation assumes about the kernel (from kernel/trace/ring_buffer.c,
 * trace.c and trace_remote.c):
 *  - a buffer of S KiB per CPU holds N = max(ceil(S * 1024 / (sub-buffer - header)), 2)
 *    sub-buffers, plus one reader sub-buffer: (N + 1) * sub-buffer bytes per CPU;
 *  - a persistent (range-backed, boot-mapped) buffer lives in reserved memory: its
 *    buffer_meta gives nr_subbufs (reader included) and subbuf_size in bytes. v5 2/4
 *    counts it as it counts every buffer, with ring_buffer_memory_size(): these
 *    sub-buffers, not the reserved range around them (the helper itself is defined
 *    in v5 1/4, which the seeds lack: that it counts the data and reader sub-buffers
 *    is inferred);
 *  - the backup instance, which later kernels than the seeds' make at boot when the
 *    command line has trace_instance=NAME=ORIGIN, is a copy of the persistent
 *    instance ORIGIN in vmalloc'd memory: range-backed like it (last_boot_info,
 *    buffer_meta), and marked by no tracefs file, so it is recognised by that
 *    command line (inferred from those kernels' boot parameter; the seeds do not
 *    describe the instance). v5 2/4 skips it in every row ("already accounted in
 *    VmallocUsed"): it is shown apart, its sub-buffers as vmalloc memory;
 *  - an allocated snapshot buffer has the size of its main buffer; a freed one keeps
 *    the minimum, 2 sub-buffers and a reader per CPU, of one page each whatever the
 *    main buffer's sub-buffer size (free_snapshot() sets the order back to 0);
 *  - temp_buffer, which tracer_alloc_buffers() allocates at boot for the events of
 *    triggers while tracing is off, is a buffer of one page per CPU that nothing
 *    resizes: 2 data pages and the reader on each tracing CPU (the top buffer's
 *    per_cpu/cpuN); trace_stats v5 counts it in "global";
 *  - a remote holds memory only while loaded (buffer_size_kb says "(loaded)"), S KiB
 *    per CPU of its buffer, on the CPUs of the cpumask it gives
 *    trace_remote_alloc_buffer(), from the page allocator (v5 puts remotes in
 *    total_system): all of that is v10 05/30's. How many pages cover S is not: v10
 *    says "enough to cover", and max(ceil(S * 1024 / page), 2) + 1 data pages and one
 *    meta page per CPU is inferred from the merged series. Which CPUs the cpumask
 *    holds no file says (per_cpu/cpuN, where a later part of the series adds it, lists
 *    every possible CPU), so a loaded remote's memory is known per CPU only, and the
 *    rows that count it are unknown.
 *
 * Unknown figures are ATAG_BUFSTAT_UNKNOWN, never 0.
 */
#ifndef _ATAG_BUFSTAT_H
#define _ATAG_BUFSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "atag-utils.h"

#define ATAG_BUFSTAT_UNKNOWN		ATAG_STATS_UNKNOWN
/* Sub-buffer header (u64 timestamp + local_t commit) on 64-bit kernels */
#define ATAG_BUFSTAT_PAGE_HDR_DEFAULT	16

/* A parsed buffer_size_kb or buffer_total_size_kb. */
struct atag_bufsize {
	unsigned long long	kb;		/* UNKNOWN when the CPUs differ ("X") */
	unsigned long long	expanded_kb;	/* "(expanded: M)", else UNKNOWN */
	bool			differ;		/* the file read "X" */
};

/* One per_cpu/cpuN/buffer_meta file (persistent buffers only). */
struct atag_bufstat_meta {
	unsigned long long	subbuf_size;	/* bytes, header included */
	unsigned long long	nr_subbufs;	/* data sub-buffers plus the reader */
};

struct atag_bufstat_cpu {
	int				cpu;
	unsigned long long		size_kb;	/* per_cpu/cpuN/buffer_size_kb */
	bool				has_stats;
	struct atag_cpu_stats		stats;	/* lib/util/atag-tracefs-mount.c */
	bool				has_meta;
	struct atag_bufstat_meta	meta;
	/* computed by atag_bufstat_compute() */
	unsigned long long		buffer_bytes;	/* main buffer */
	unsigned long long		snapshot_bytes;	/* spare (snapshot) buffer */
};

enum atag_snapshot_state {
	ATAG_SNAPSHOT_UNSUPPORTED,	/* no snapshot file, no latency tracer: no spare buffer */
	ATAG_SNAPSHOT_PERSISTENT,	/* persistent buffers have no snapshot */
	ATAG_SNAPSHOT_FREED,		/* "Snapshot is freed": the minimal spare remains */
	ATAG_SNAPSHOT_ALLOCATED,	/* "Snapshot is allocated", or it holds data */
	ATAG_SNAPSHOT_BUSY,		/* in use by the current (latency) tracer: allocated */
	ATAG_SNAPSHOT_SPARE_MIN,	/* no snapshot file, latency tracers keep a minimal spare */
	ATAG_SNAPSHOT_SPARE_FULL,	/* no snapshot file, a latency tracer is current */
	ATAG_SNAPSHOT_UNKNOWN,		/* the snapshot file could not be read */
};

struct atag_bufstat_instance {
	char			*name;		/* NULL for the top buffer */
	struct atag_bufsize	size;		/* buffer_size_kb (per CPU) */
	struct atag_bufsize	total;		/* buffer_total_size_kb (may be absent) */
	unsigned long long	subbuf_kb;	/* UNKNOWN: no buffer_subbuf_size_kb (< 6.8) */
	int			tracing_on;	/* 0, 1, or -1 when unknown */
	enum atag_snapshot_state snapshot;
	bool			persistent;	/* last_boot_info exists */
	char			*last_boot;	/* its first line (persistent only) */
	char			*backup_of;	/* a backup instance: the persistent instance
						 * it copies (trace_instance=NAME=ORIGIN on the
						 * kernel command line); NULL otherwise */
	int			nr_cpus;
	struct atag_bufstat_cpu	*cpus;
	/* computed by atag_bufstat_compute(); UNKNOWN when an input is unknown */
	unsigned long long	buffer_bytes;	/* carve-out if persistent */
	unsigned long long	snapshot_bytes;
};

struct atag_bufstat_remote {
	char			*name;
	unsigned long long	size_kb;	/* per CPU */
	int			loaded;		/* 1 loaded, 0 unloaded, -1 unknown */
	int			tracing_on;	/* -1 unknown */
	int			nr_cpus;	/* CPUs of its buffer; -1: no file says */
	/* computed by atag_bufstat_compute() */
	unsigned long long	bytes_per_cpu;	/* 0 when unloaded */
	unsigned long long	bytes;		/* 0 when unloaded; UNKNOWN: CPUs unknown */
};

/* The rows of trace_stats/memory_usage_kb, and of our computed totals. */
enum atag_bufstat_row {
	ATAG_ROW_GLOBAL,
	ATAG_ROW_INSTANCES,
	ATAG_ROW_SNAPSHOTS,
	ATAG_ROW_PERSISTENTS,
	ATAG_ROW_REMOTES,
	ATAG_ROW_TOTAL_SYSTEM,
	ATAG_ROW_TOTAL_CARVEOUT,
	/* the earlier postings (v1-v4) */
	ATAG_ROW_BUFFERS,		/* global + instances (+ persistents) */
	ATAG_ROW_SNAPSHOT_BUFFERS,	/* snapshots */
	ATAG_ROW_MAX
};

/* Why a backup instance is in no row (seed 000's words). */
#define ATAG_BUFSTAT_BACKUP_REASON \
	"v5 skips the backup instance: its vmalloc'd copy is already accounted in VmallocUsed"

/* The key of @row in memory_usage_kb ("global", ..., "snapshot_buffers"). */
const char *atag_bufstat_row_key(enum atag_bufstat_row row);

enum atag_memusage_format {
	ATAG_MEMUSAGE_NONE,	/* no trace_stats/memory_usage_kb */
	ATAG_MEMUSAGE_SPLIT,	/* global, instances, ..., total_carveout */
	ATAG_MEMUSAGE_BUFFERS,	/* the earlier buffers / snapshot_buffers */
	ATAG_MEMUSAGE_EMPTY,	/* the file holds no line this tool knows */
};

/* A parsed memory_usage_kb: KiB per row, UNKNOWN for rows the file does not have. */
struct atag_memusage {
	enum atag_memusage_format	format;
	unsigned long long		kb[ATAG_ROW_MAX];
};

/* Why the reader failed: the file, the line (0 if none) and what is wrong. */
struct atag_bufstat_error {
	int	err;		/* positive errno */
	int	line;
	char	path[4096];
	char	msg[160];
};

struct atag_bufstat_opts {
	const char * const	*names;		/* instances to read; NULL: all */
	size_t			nr_names;
	bool			top;		/* with @names: read the top buffer too */
	const char		*cmdline;	/* the kernel command line's file, for the
						 * backup instance (/proc/cmdline); NULL:
						 * none, a missing file is no error */
};

struct atag_bufstat {
	char				*tracefs;
	unsigned long			page_size;
	unsigned int			page_hdr;	/* sub-buffer header bytes */
	bool				page_hdr_assumed; /* no events/header_page */
	bool				filtered;	/* only some instances were read */
	bool				latency_tracers; /* available_tracers has one */
	int				nr_instances;	/* [0]: top, unless filtered */
	struct atag_bufstat_instance	*instances;
	bool				has_remotes_dir;
	int				nr_remotes;
	struct atag_bufstat_remote	*remotes;
	struct atag_memusage		kernel;		/* trace_stats/memory_usage_kb */
	int				nr_kernel_cpus;	/* trace_stats/per_cpu/cpuN */
	int				*kernel_cpu_ids;
	struct atag_memusage		*kernel_cpus;
	/* computed by atag_bufstat_compute(): bytes per row, UNKNOWN if not computable */
	unsigned long long		computed[ATAG_ROW_MAX];
	unsigned long long		temp_buffer_bytes;	/* in computed global */
	unsigned long long		backup_bytes;	/* the backup instances': in no row */
	const char			*cmdline_unread; /* opts->cmdline, when unreadable */
	/* total_system without the remotes (known when a loaded remote's CPUs are not) */
	unsigned long long		system_without_remotes;
};

/* ------------------------------------------------------------------ parsers */

/**
 * atag_bufstat_parse_size - parse buffer_size_kb or buffer_total_size_kb
 * @text: the file's content
 * @size: filled with the size, the "expanded" size and whether CPUs differ
 *
 * Return: 0, or -EINVAL when the text is none of "N", "N (expanded: M)", "X".
 */
int atag_bufstat_parse_size(const char *text, struct atag_bufsize *size);

/**
 * atag_bufstat_parse_memusage - parse trace_stats/memory_usage_kb (either posting)
 * @text: the file's content
 * @mu: filled: the format and a KiB figure per row (UNKNOWN when absent)
 * @line: set to the 1-based number of a malformed line
 *
 * "name: value" lines are read generically and in any order; unknown names are
 * ignored. Return: 0, or -EINVAL for a line without ':' or a known name whose
 * value is not a number of KiB.
 */
int atag_bufstat_parse_memusage(const char *text, struct atag_memusage *mu, int *line);

/**
 * atag_bufstat_parse_meta - parse a per_cpu/cpuN/buffer_meta file
 * @text: the file's content
 * @meta: filled with subbuf_size and nr_subbufs
 * @line: set to the 1-based number of a malformed line
 *
 * Return: 0, or -EINVAL when a value is malformed or either figure is missing.
 */
int atag_bufstat_parse_meta(const char *text, struct atag_bufstat_meta *meta, int *line);

/**
 * atag_bufstat_parse_remote_size - parse remotes/<name>/buffer_size_kb
 * @text: "N (loaded)" or "N (unloaded)" (a bare "N" leaves the state unknown)
 * @kb: the per-CPU size in KiB
 * @loaded: 1, 0, or -1 when the state is not given
 *
 * Return: 0 or -EINVAL.
 */
int atag_bufstat_parse_remote_size(const char *text, unsigned long long *kb, int *loaded);

/**
 * atag_bufstat_parse_header_page - the sub-buffer header size from events/header_page
 * @text: the file's content
 * @hdr: the offset of the "data" field, in bytes
 *
 * Return: 0, or -EINVAL when there is no "field: char data;" line with an offset.
 */
int atag_bufstat_parse_header_page(const char *text, unsigned int *hdr);

/**
 * atag_bufstat_parse_snapshot - whether a snapshot buffer is allocated
 * @text: the beginning of the instance's snapshot file
 *
 * Return: ATAG_SNAPSHOT_FREED for "Snapshot is freed", ATAG_SNAPSHOT_ALLOCATED for
 * "Snapshot is allocated" or a snapshot that holds a trace, ATAG_SNAPSHOT_UNKNOWN.
 */
enum atag_snapshot_state atag_bufstat_parse_snapshot(const char *text);

/**
 * atag_bufstat_parse_backup - whether the kernel command line makes @name a backup
 * @cmdline: the command line (/proc/cmdline's text)
 * @name: an instance name
 * @origin: set to the persistent instance @name copies
 * @len: the size of @origin
 *
 * A parameter trace_instance=NAME=ORIGIN (the first comma-separated field of its
 * value holds the '=', before any '@'; NAME may carry ^flags) makes NAME a copy of
 * ORIGIN at boot. Quoted values are read as the kernel reads them; parsing stops at
 * "--". The syntax is that of later kernels' boot-time backup, which the seeds do not
 * contain: inferred.
 * Return: true when @name is a backup (and @origin set), false otherwise.
 */
bool atag_bufstat_parse_backup(const char *cmdline, const char *name, char *origin, size_t len);

/**
 * atag_bufstat_parse_flag - parse a "0"/"1" file such as tracing_on
 * @text: the file's content
 *
 * Return: 0 or 1, or -1 when it is neither.
 */
int atag_bufstat_parse_flag(const char *text);

/* ------------------------------------------------------------------ computation */

/**
 * atag_bufstat_buffer_pages - data sub-buffers of a buffer of @size_kb KiB per CPU
 * @size_kb: per-CPU size as buffer_size_kb shows it
 * @subbuf: sub-buffer size in bytes
 * @hdr: sub-buffer header size in bytes
 *
 * Return: the number of data sub-buffers (at least 2), or ATAG_BUFSTAT_UNKNOWN.
 */
unsigned long long atag_bufstat_buffer_pages(unsigned long long size_kb, unsigned long long subbuf,
					     unsigned int hdr);

/**
 * atag_bufstat_buffer_bytes - memory of one CPU's ring buffer, reader included
 * @size_kb: per-CPU size as buffer_size_kb shows it
 * @subbuf: sub-buffer size in bytes
 * @hdr: sub-buffer header size in bytes
 *
 * Return: (data sub-buffers + 1) * @subbuf, or ATAG_BUFSTAT_UNKNOWN.
 */
unsigned long long atag_bufstat_buffer_bytes(unsigned long long size_kb, unsigned long long subbuf,
					     unsigned int hdr);

/**
 * atag_bufstat_remote_bytes - memory of a loaded remote, per CPU of its buffer
 * @size_kb: remotes/<name>/buffer_size_kb
 * @page_size: the kernel's page size
 *
 * Return: (max(ceil(size / page), 2) + 1 data pages + 1 meta page) * @page_size.
 */
unsigned long long atag_bufstat_remote_bytes(unsigned long long size_kb, unsigned long page_size);

/**
 * atag_bufstat_fill - how full one CPU's buffer is, from its stats
 * @cpu: the CPU, with stats read
 * @percent: set to bytes / buffer size, at most 100
 *
 * Return: 0, or -ENODATA when the stats have no bytes or the size is unknown.
 */
int atag_bufstat_fill(const struct atag_bufstat_cpu *cpu, double *percent);

/**
 * atag_bufstat_compute - fill the computed figures of everything read
 * @bs: what atag_bufstat_read() returned (or a hand-built one, in tests)
 *
 * Per CPU and per buffer bytes, remote bytes, the temp_buffer and the rows of
 * bs->computed, as trace_stats v5 counts them: global = the top buffer and the
 * temp_buffer, total_system = global + instances + snapshots + remotes,
 * total_carveout = persistents; a backup instance in no row (bs->backup_bytes).
 */
void atag_bufstat_compute(struct atag_bufstat *bs);

/**
 * atag_bufstat_cpu_row - a computed row for one CPU
 * @bs: computed bufstat
 * @cpu: CPU number
 * @row: ATAG_ROW_GLOBAL .. ATAG_ROW_SNAPSHOT_BUFFERS
 *
 * Return: bytes, or ATAG_BUFSTAT_UNKNOWN.
 */
unsigned long long atag_bufstat_cpu_row(const struct atag_bufstat *bs, int cpu,
					enum atag_bufstat_row row);

/* Why a computed row may differ from the kernel's. */
enum atag_bufdiff_reason {
	ATAG_BUFDIFF_READ_PAGE		= 1 << 0,	/* cached read page per CPU */
	ATAG_BUFDIFF_META_PAGE		= 1 << 1,	/* user-space mapping meta page */
	ATAG_BUFDIFF_TEMP_BUFFER	= 1 << 2,	/* temp_buffer in "buffers" or not */
	ATAG_BUFDIFF_UNEXPANDED		= 1 << 3,	/* a buffer is not yet expanded */
	ATAG_BUFDIFF_ROUNDING		= 1 << 4,	/* KiB truncation, subbuf changes */
	ATAG_BUFDIFF_REMOTES_ZERO	= 1 << 5,	/* the kernel counts remotes as 0 */
	ATAG_BUFDIFF_HELPER		= 1 << 6,	/* ring_buffer_memory_size() inferred */
	ATAG_BUFDIFF_PERSISTENT_OLD	= 1 << 7,	/* earlier postings: range buffers 0 */
	ATAG_BUFDIFF_SPARE		= 1 << 8,	/* spare buffers not visible here */
	ATAG_BUFDIFF_RACE		= 1 << 9,	/* buffers changed between the reads */
	ATAG_BUFDIFF_METADATA		= 1 << 10,	/* struct buffer_page bookkeeping */
};

/**
 * atag_bufstat_diff_reasons - why a row may differ from the kernel's figure
 * @bs: computed bufstat
 * @row: the row
 *
 * Return: a mask of enum atag_bufdiff_reason, 0 when the figures agree or either is
 * unknown.
 */
unsigned int atag_bufstat_diff_reasons(const struct atag_bufstat *bs, enum atag_bufstat_row row);

/* One sentence for one reason bit. */
const char *atag_bufstat_reason_str(enum atag_bufdiff_reason reason);

/**
 * atag_bufstat_kb - bytes in KiB, rounded up
 * @bytes: a computed figure
 *
 * Return: the KiB, or ATAG_BUFSTAT_UNKNOWN when @bytes is.
 */
unsigned long long atag_bufstat_kb(unsigned long long bytes);

/* ------------------------------------------------------------------ reading tracefs */

/**
 * atag_bufstat_read - read every buffer's files under a tracefs directory
 * @tracefs: the tracefs root (the mount point, or a fake tree)
 * @opts: which instances (NULL: all, with the top buffer and the remotes)
 * @err: on failure, the file, line and problem
 *
 * Missing files are not errors: their figures stay unknown. Instances that vanish
 * while being read are left out, unless named in @opts.
 * Return: a bufstat with the computed figures filled in (free with
 * atag_bufstat_free()), or NULL with errno set and @err filled.
 */
struct atag_bufstat *atag_bufstat_read(const char *tracefs, const struct atag_bufstat_opts *opts,
				       struct atag_bufstat_error *err);

/* Free a bufstat; NULL and half-built ones are fine. */
void atag_bufstat_free(struct atag_bufstat *bs);

/* ------------------------------------------------------------------ rendering */

#define ATAG_BUFSTAT_MAX_NOTES		32

/*
 * What a report leaves out or assumes (a file this kernel lacks, a line missing from a
 * file), a sentence each, each once: printed after the text, "notes" in JSON.
 */
struct atag_bufstat_notes {
	char	*line[ATAG_BUFSTAT_MAX_NOTES];
	int	nr;
};

/**
 * atag_bufstat_notes_collect - the notes about what was read
 * @bs: computed bufstat
 * @n: set to the notes (at most ATAG_BUFSTAT_MAX_NOTES; sentences that cannot be
 *     allocated are left out); free them with atag_bufstat_notes_free()
 */
void atag_bufstat_notes_collect(const struct atag_bufstat *bs, struct atag_bufstat_notes *n);

/* Free the sentences of @n and empty it. */
void atag_bufstat_notes_free(struct atag_bufstat_notes *n);

/**
 * atag_bufstat_render_text - the stat report for people
 * @bs: computed bufstat
 * @f: where to write
 *
 * Per buffer its sizes, snapshot, persistence and a row per CPU; then, unless
 * @bs->filtered, the remotes, the totals beside the kernel's aggregate with the reasons
 * they may differ, and the kernel's per-CPU figures; then the notes. Sizes are
 * human-readable, unknown figures "unknown" or "-".
 * Return: 0, or -EIO when writing failed.
 */
int atag_bufstat_render_text(const struct atag_bufstat *bs, FILE *f);

/**
 * atag_bufstat_render_json - the stat report as one JSON object
 * @bs: computed bufstat
 * @f: where to write
 *
 * An object per instance and per remote, the aggregate (computed, the kernel's, their
 * differences with reasons, the kernel's per-CPU figures) unless @bs->filtered, and the
 * notes. Sizes in exact KiB; unknown figures are null. The layout is
 * ATAG_JSON_PRETTY | ATAG_JSON_ESCAPE_U (include/atag-json.h).
 * Return: 0, or -EIO when writing failed.
 */
int atag_bufstat_render_json(const struct atag_bufstat *bs, FILE *f);

#endif /* _ATAG_BUFSTAT_H */
