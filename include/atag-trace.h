/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-trace.h - the trace.dat reader: open a file, iterate the records of a
 * buffer, close it.
 *
 * The one way the library reads trace.dat files, and the one module that talks
 * to libtracecmd: no libtracecmd type crosses this interface, so what walks the
 * records behind it can change (today: the direct page walker of
 * lib/read/atag-pages.c for files whose timestamps need no conversion, else
 * libtracecmd 1.3.1's tracecmd_iterate_events(); a libtracecmd whose iterator is
 * robust and fast enough would replace both, and the workarounds below). It never
 * needs root and never touches the live kernel.
 *
 * atag_trace_open() checks that the file is a trace.dat before libtracecmd parses
 * it, opens the top buffer and every instance buffer, and copes with truncated
 * files: libtracecmd refuses a file whose CPU data runs past its end, so the
 * readable part is copied into a temporary file padded with zeroes (empty
 * ring-buffer pages) to the size the headers promise, and opened from there.
 * atag_trace_truncated() then says so, and every result read from it is
 * incomplete.
 *
 * Process-wide side effects (workarounds for libtracecmd 1.3.1, confined to this
 * module; lib/read/atag-trace.c):
 *  - atag_trace_open() forks: a child opens the file first, because libtracecmd
 *    crashes in its own cleanup on some truncated or corrupt files. stdio is
 *    flushed before; the child only opens and _exit()s.
 *  - While libtracecmd opens a file, file descriptor 1 (stdout) is pointed at a
 *    memory file: libtracecmd prints to stdout when a file is cut short. Another
 *    thread writing to stdout meanwhile would lose its output.
 *  - While libtracecmd code reads ring-buffer data (atag_trace_iterate(),
 *    atag_trace_buffer_has(), atag_trace_last_ts()), SIGSEGV and SIGBUS handlers
 *    are installed, and the previous ones restored after: libtracecmd trusts what
 *    a corrupt page says and can fault. A fault stops the walk, keeping what was
 *    read, and abandons the file's handles (they leak). The caller's own callback
 *    runs without them: a fault there is a bug and crashes.
 *  - libatag defines tracecmd_warning() and tracecmd_critical(), which libtracecmd
 *    declares weak, for the whole process: what libtracecmd says while it works on
 *    a trace is kept with that trace (atag_trace_warning()); anything else is
 *    printed to stderr as libtracecmd would.
 *
 * Threads: a trace and its tep belong to the thread that opened it; libtracecmd
 * and libtraceevent are not thread safe. The fault guard is per thread.
 */
#ifndef _ATAG_TRACE_H
#define _ATAG_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_record;
struct atag_trace;
struct atag_modules;

/*
 * Open @path into *@trace. On failure returns a negative errno and writes a
 * one-line reason (without the file name) into @err ("not a trace.dat file ...",
 * "cannot read its headers ...").
 */
int atag_trace_open(const char *path, struct atag_trace **trace, char *err, size_t errlen);
/* Close @t and everything it handed out (tep, names, warnings); NULL is fine. */
void atag_trace_close(struct atag_trace *t);

/* Called with each record: ts, cpu, data, size and missed_events are set. 0 goes on. */
typedef int (*atag_record_fn)(const struct tep_record *rec, void *data);

/*
 * Call @cb for every record of buffer @i in timestamp order across CPUs, until
 * it returns non-zero. Returns 0, or the signal number of a fault in corrupt data
 * (see above). While it walks, it drops now and then the file pages it has gone
 * past (libtracecmd 1.3.1 maps each CPU's data in one piece and touches it page
 * by page, so the resident set would grow with the file, not with what is live).
 */
int atag_trace_iterate(struct atag_trace *t, int i, atag_record_fn cb, void *data);

/*
 * Whether buffer @i is walked straight from its pages (lib/read/atag-pages.c) rather
 * than through libtracecmd: files whose timestamps need no conversion.
 */
bool atag_trace_direct(const struct atag_trace *t, int i);

/*
 * What libtracecmd (or the page walker) warned about while opening and reading
 * @t ("bad page read, ..."): such a warning means data was skipped.
 */
unsigned int atag_trace_nr_warnings(const struct atag_trace *t);
const char *atag_trace_warning(const struct atag_trace *t, unsigned int i);

/* The path it was opened with. */
const char *atag_trace_path(const struct atag_trace *t);

/* Which module each module symbol of the file's kallsyms is in; NULL if unknown. */
const struct atag_modules *atag_trace_modules(const struct atag_trace *t);

/* The file's event formats, kallsyms and comms, for libtraceevent look-ups. */
struct tep_handle *atag_trace_tep(const struct atag_trace *t);

/*
 * The traced machine as trace-cmd record saved it (its UNAME option: system,
 * host, kernel release, version, machine, space separated), or NULL.
 */
const char *atag_trace_uname(const struct atag_trace *t);

/* The comm the file saved for @pid, or NULL when it has none. */
const char *atag_trace_comm(const struct atag_trace *t, int pid);

/* Buffers: index 0 is the top buffer (name ""), then the instances in file order. */
int atag_trace_nr_buffers(const struct atag_trace *t);
const char *atag_trace_buffer_name(const struct atag_trace *t, int i);

/* The index of buffer @name ("" or "top" for the top buffer), or -1. */
int atag_trace_find_buffer(const struct atag_trace *t, const char *name);

/*
 * Whether buffer @i holds at least one record of an event in @ids (nr_ids
 * entries), looking at no more than @limit records per CPU. Guarded like
 * atag_trace_iterate(): a fault abandons the trace.
 */
bool atag_trace_buffer_has(struct atag_trace *t, int i, const int *ids, int nr_ids,
			   unsigned int limit);

/* The first and last timestamps of buffer @i, 0 when unknown (for progress reports only). */
uint64_t atag_trace_first_ts(struct atag_trace *t, int i);
uint64_t atag_trace_last_ts(struct atag_trace *t, int i);

/*
 * During a direct walk (atag_trace_direct()), the fraction of the buffer's data
 * read so far, from 0 to 1; -1 for walks through libtracecmd, whose progress
 * the caller measures by timestamps (atag_trace_first_ts(), atag_trace_last_ts()).
 */
double atag_trace_progress(const struct atag_trace *t);

/* True if the file was cut short; then *@size and *@needed (either may be NULL). */
bool atag_trace_truncated(const struct atag_trace *t, uint64_t *size, uint64_t *needed);

#endif /* _ATAG_TRACE_H */
