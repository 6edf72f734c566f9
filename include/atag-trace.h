/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-trace.h - opening trace.dat files for offline analysis.
 *
 * A thin layer over libtracecmd that never needs root and never touches the live
 * kernel. It checks that the file is a trace.dat before libtracecmd parses it,
 * keeps libtracecmd's own messages off stdout, opens the top buffer and every
 * instance buffer, and copes with truncated files: libtracecmd refuses a file
 * whose CPU data runs past its end, so the readable part is copied into a
 * temporary file padded with zeroes (empty ring-buffer pages) to the size the
 * headers promise, and opened from there. atag_trace_truncated() then says so,
 * and every result read from it is incomplete.
 */
#ifndef _ATAG_TRACE_H
#define _ATAG_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tracecmd_input;
struct tep_handle;
struct tep_record;
struct atag_trace;
struct atag_modules;

/*
 * Open @path. On failure returns a negative errno and writes a one-line reason
 * (without the file name) into @err.
 */
int atag_trace_open(const char *path, struct atag_trace **trace, char *err, size_t errlen);
void atag_trace_close(struct atag_trace *t);

/*
 * Call @cb for every record of buffer @i in timestamp order across CPUs (as
 * tracecmd_iterate_events(); @cb returns 0 to go on, -1 to stop). libtracecmd
 * reads ring-buffer pages without checking what a corrupt page says, so a damaged
 * file can make it fault: the walk runs with SIGSEGV and SIGBUS caught, and on a
 * fault it stops, keeping what was read, and returns the signal number (the
 * handles are then left alone, and leak). Returns 0 otherwise. Not thread safe.
 */
int atag_trace_iterate(struct atag_trace *t, int i,
		       int (*cb)(struct tracecmd_input *h, struct tep_record *rec, int cpu,
				 void *data), void *data);

/*
 * Whether buffer @i is walked straight from its pages (lib/read/atag-pages.c) rather
 * than through libtracecmd: files whose timestamps need no conversion.
 */
bool atag_trace_direct(const struct atag_trace *t, int i);

/*
 * What libtracecmd warned about while opening and reading @t ("bad page read,
 * ..."): such a warning means data was skipped. The library's weak
 * tracecmd_warning() is replaced by libatag to collect them.
 */
unsigned int atag_trace_nr_warnings(const struct atag_trace *t);
const char *atag_trace_warning(const struct atag_trace *t, unsigned int i);

const char *atag_trace_path(const struct atag_trace *t);

/* Which module each module symbol of the file's kallsyms is in; NULL if unknown. */
const struct atag_modules *atag_trace_modules(const struct atag_trace *t);
struct tep_handle *atag_trace_tep(const struct atag_trace *t);

/* Buffers: index 0 is the top buffer (name ""), then the instances in file order. */
int atag_trace_nr_buffers(const struct atag_trace *t);
const char *atag_trace_buffer_name(const struct atag_trace *t, int i);
struct tracecmd_input *atag_trace_buffer(const struct atag_trace *t, int i);

/* The index of buffer @name ("" or "top" for the top buffer), or -1. */
int atag_trace_find_buffer(const struct atag_trace *t, const char *name);

/*
 * Whether buffer @i holds at least one record of an event in @ids (nr_ids
 * entries), looking at no more than @limit records per CPU. Guarded like
 * atag_trace_iterate(): a fault abandons the trace.
 */
bool atag_trace_buffer_has(struct atag_trace *t, int i, const int *ids, int nr_ids,
			   unsigned int limit);

/* The last timestamp of buffer @i, or 0 when unknown (for progress reports only). */
uint64_t atag_trace_last_ts(struct atag_trace *t, int i);

/*
 * During a direct walk (atag_trace_direct()), the fraction of the buffer's data
 * read so far, from 0 to 1; -1 for walks through libtracecmd, whose progress
 * the caller measures by timestamps (atag_trace_last_ts()).
 */
double atag_trace_progress(const struct atag_trace *t);

/*
 * Drop the file pages libtracecmd has mapped and the reader has gone past.
 * libtracecmd 1.3.1 maps each CPU's data in one piece and touches it page by page,
 * so without this the resident set grows with the file, not with what is live.
 * The mapping is private and read-only: dropped pages come back from the page
 * cache if touched again. Call it now and then while iterating.
 */
void atag_trace_release_pages(const struct atag_trace *t);

/* True if the file was cut short; then *@size and *@needed (either may be NULL). */
bool atag_trace_truncated(const struct atag_trace *t, uint64_t *size, uint64_t *needed);

#endif /* _ATAG_TRACE_H */
