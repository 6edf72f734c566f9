/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-trace.h - the trace.dat reader: open a file, iterate the records of a
 * buffer, close it.
 *
 * The one way the library reads trace.dat files. It never needs root and never
 * touches the live kernel.
 *
 * atag_trace_open() reads the file's headers itself, once (lib/read/atag-tracedat.c):
 * every size, count and offset is checked against the file, and the tep that
 * decodes records gets the event formats, kallsyms, printk formats and comms
 * as libtracecmd would give them. The records are walked straight from the
 * file's pages (lib/read/atag-pages.c), each page checked before a byte of it is
 * trusted: a damaged page is skipped with a warning (atag_trace_warning()), and
 * no input makes a walk read outside a page, loop, or use memory beyond a bound
 * set by the file's size. A file cut short is read up to the cut;
 * atag_trace_truncated() says so.
 *
 * Timestamps are the file's, converted as its options ask, with libtracecmd
 * 1.3.1's arithmetic (stock trace-cmd report gives the same): TSC2NSEC (cycles
 * times its multiplier, shifted right), then DATE (microseconds) and OFFSET
 * (nanoseconds) added. A file whose records this reader cannot read right is
 * refused with the reason: guest timestamps synchronised with a host (TIME_SHIFT),
 * a latency trace, a CPU count that changes, buffers with pages of different
 * sizes, the ring buffer of Linux 2.6.30 and older. An option it does not know
 * is read around with a warning (libtracecmd 1.3.1 passes it over too).
 *
 * ATAG_PAGES=0 in the environment has libtracecmd walk the records instead
 * (lib/read/atag-tracecmd.c: tests compare both walks), once the page walker
 * found every page sound (a damaged one, or damaged saved comms, make
 * atag_trace_open() fail: libtracecmd cannot read around them). Its workarounds
 * of libtracecmd 1.3.1, for that mode only: a truncated file is read from a
 * padded copy in a memory file (refused when its headers claim more than twice
 * its size); file descriptor 1 (stdout) is pointed at a memory file while
 * libtracecmd opens the file (it prints there); libatag defines
 * tracecmd_warning() and tracecmd_critical(), which libtracecmd declares weak,
 * for the whole process: what libtracecmd says while it works on a trace is kept
 * with that trace ("libtracecmd: ..."), anything else printed to stderr.
 *
 * No reading forks a process or installs a signal handler.
 *
 * CPUs: a record's cpu is the CPU's index in its buffer's list (0 ..
 * atag_trace_nr_cpus() - 1), whatever id the file gives it
 * (atag_trace_cpu_id()): state kept per CPU is sized by the CPUs a file has,
 * never by the ids it names.
 *
 * Threads: a trace and its tep belong to the thread that opened it; libtracecmd
 * and libtraceevent are not thread safe.
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
struct atag_flag_names;

/*
 * Open @path into *@trace. On failure returns a negative errno and writes a
 * one-line reason (without the file name) into @err ("not a trace.dat file ...",
 * "cannot read its headers ...").
 */
int atag_trace_open(const char *path, struct atag_trace **trace, char *err, size_t errlen);
/* Close @t and everything it handed out (tep, names, warnings); NULL is fine. */
void atag_trace_close(struct atag_trace *t);

/*
 * Called with each record: ts, cpu (an index, see above), data, size and
 * missed_events are set; data lies within its page and lives during the call
 * only. 0 goes on.
 */
typedef int (*atag_record_fn)(const struct tep_record *rec, void *data);

/*
 * Call @cb for every record of buffer @i in timestamp order across CPUs, until
 * it returns non-zero. Returns 0, or a negative errno when the walk stopped
 * short (out of memory).
 */
int atag_trace_iterate(struct atag_trace *t, int i, atag_record_fn cb, void *data);

/*
 * A look-ahead for the walks of atag_trace_iterate() to come (NULL: none): on a
 * buffer walked from its pages (atag_trace_direct()), @ahead is called with @rec
 * NULL when the walk enters a page of CPU @cpu and, if it returns true, with the
 * data and size of each record of that CPU's next page when it is already read,
 * a page ahead of the callback: time to prefetch what those records will need.
 * See lib/read/atag-pages.h.
 */
typedef bool (*atag_ahead_fn)(void *data, int cpu, const void *rec, uint32_t size);
void atag_trace_set_ahead(struct atag_trace *t, atag_ahead_fn ahead, void *data);

/*
 * Whether buffer @i is walked straight from its pages (lib/read/atag-pages.c) rather
 * than through libtracecmd (ATAG_PAGES=0).
 */
bool atag_trace_direct(const struct atag_trace *t, int i);

/*
 * What the page walker (or libtracecmd: "libtracecmd: ...") warned about while
 * reading @t ("buffer top, CPU 1: a record at 96 of the page at offset 8192 runs
 * past its end; skipped"): such a warning means data was skipped.
 */
unsigned int atag_trace_nr_warnings(const struct atag_trace *t);
const char *atag_trace_warning(const struct atag_trace *t, unsigned int i);

/*
 * Damage to the file's metadata that no figure depends on, read around ("its saved
 * comms are cut (...); 6551 comms read, 1 line left out: tasks without one show as
 * <...>"): names may be missing, counts are whole. A file whose saved comms
 * trace-cmd record wrote cut short (below) is read this way.
 */
unsigned int atag_trace_nr_damages(const struct atag_trace *t);
const char *atag_trace_damage(const struct atag_trace *t, unsigned int i);

/*
 * atag_trace_mend - make the saved comms of the trace.dat at @path whole again, in place
 *
 * trace-cmd record (up to 3.4 at least) reads the kernel's saved_cmdlines twice, once
 * for its size and once for its bytes, and writes both: when the table changed in
 * between, the file declares a size its bytes do not have. Stock trace-cmd report then
 * prints nothing, and libtracecmd registers a stale comm for the line cut. A version 7
 * file gets a new comms section, of the whole lines it holds, compressed as the file
 * is, at its end, and its CMDLINES option pointed at it (the old section stays,
 * unreferenced); a version 6 file gets the size of what it holds. No other byte moves.
 *
 * Returns 1 when it mended the file (a line for the user in @what), 0 when the comms
 * were sound, or a negative errno with a one-line reason in @err (the file cannot be
 * opened or read, or its comms cannot be rewritten in place).
 */
int atag_trace_mend(const char *path, char *what, size_t whatlen, char *err, size_t errlen);

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

/*
 * The names of the GFP flags kmem:mm_page_alloc's print format gives (an opaque
 * struct atag_flag_names, lib/read/atag-print-flags.h), or NULL when it gives none.
 */
const struct atag_flag_names *atag_trace_gfp_names(const struct atag_trace *t);

/* The comm the file saved for @pid, or NULL when it has none. */
const char *atag_trace_comm(const struct atag_trace *t, int pid);

/* Buffers: index 0 is the top buffer (name ""), then the instances in file order. */
int atag_trace_nr_buffers(const struct atag_trace *t);
const char *atag_trace_buffer_name(const struct atag_trace *t, int i);

/* The index of buffer @name ("" or "top" for the top buffer), or -1. */
int atag_trace_find_buffer(const struct atag_trace *t, const char *name);

/* How many CPUs buffer @i lists, and the id of the one at @index (-1 if none). */
int atag_trace_nr_cpus(const struct atag_trace *t, int i);
int atag_trace_cpu_id(const struct atag_trace *t, int i, int index);

/*
 * Whether buffer @i holds at least one record of an event in @ids (nr_ids
 * entries), looking at no more than @limit records per CPU (in timestamp order
 * across CPUs, @limit times the CPUs).
 */
bool atag_trace_buffer_has(struct atag_trace *t, int i, const int *ids, int nr_ids,
			   unsigned int limit);

/*
 * The first and last timestamps of buffer @i when libtracecmd walks it, else 0
 * (for progress reports only).
 */
uint64_t atag_trace_first_ts(struct atag_trace *t, int i);
uint64_t atag_trace_last_ts(struct atag_trace *t, int i);

/*
 * During a direct walk (atag_trace_direct()), the fraction of the buffer's data
 * read so far, from 0 to 1; -1 for walks through libtracecmd, whose progress
 * the caller measures by timestamps (atag_trace_first_ts(), atag_trace_last_ts()).
 */
double atag_trace_progress(const struct atag_trace *t);

/* Bytes of ring-buffer data buffer @i holds in the file (compressed or not). */
uint64_t atag_trace_data_size(const struct atag_trace *t, int i);

/* True if the file was cut short; then *@size and *@needed (either may be NULL). */
bool atag_trace_truncated(const struct atag_trace *t, uint64_t *size, uint64_t *needed);

#endif /* _ATAG_TRACE_H */
