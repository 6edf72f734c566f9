/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-tracecmd.h - the trace.dat reader's second back end: libtracecmd walks the
 * records (library-internal; the reader, lib/read/atag-trace.c, is its one user).
 * See lib/read/atag-tracecmd.c.
 *
 * The reader's own walker (lib/read/atag-pages.c) reads every file the reader
 * accepts; this back end reads the same files through libtracecmd when
 * ATAG_PAGES=0 asks for it, so that tests compare the two walks. It is given a
 * file only after the reader checked everything libtracecmd will read: the
 * headers (lib/read/atag-tracedat.c), every page of every buffer (a walk of the
 * page walker that skipped nothing), the saved comms (whole), the CPU ids (below
 * ATAG_MAX_CPUS). Nothing guards libtracecmd while it runs: no child process, no
 * signal handler.
 */
#ifndef _ATAG_TRACECMD_H
#define _ATAG_TRACECMD_H

#include <stdarg.h>
#include <stdint.h>

struct atag_tracedat;
struct atag_tracecmd;
struct tep_record;

/*
 * Open the file of @td at @fd (kept, not owned) for walks through libtracecmd.
 * What libtracecmd says while it works goes to @warn with @ctx. On failure a
 * negative errno and a one-line reason in @err.
 */
int atag_tracecmd_open(struct atag_tracedat *td, int fd,
		       void (*warn)(void *ctx, const char *fmt, va_list ap), void *ctx,
		       struct atag_tracecmd **tc, char *err, size_t errlen);
void atag_tracecmd_close(struct atag_tracecmd *tc);

/*
 * Call @cb for every record of buffer @buffer as tracecmd_iterate_events()
 * gives them, its cpu made the CPU's index in the buffer's list, until @cb
 * returns non-zero. Returns 0.
 */
int atag_tracecmd_iterate(struct atag_tracecmd *tc, int buffer,
			  int (*cb)(const struct tep_record *rec, void *data), void *data);

/*
 * Call @cb with the first records of each CPU of buffer @buffer, at most @limit
 * a CPU, CPU after CPU, until it returns non-zero; the buffer is left at its start.
 */
void atag_tracecmd_first_records(struct atag_tracecmd *tc, int buffer, unsigned int limit,
				 int (*cb)(const struct tep_record *rec, void *data), void *data);

/* The first and last timestamps of buffer @buffer (for progress reports). */
uint64_t atag_tracecmd_first_ts(struct atag_tracecmd *tc, int buffer);
uint64_t atag_tracecmd_last_ts(struct atag_tracecmd *tc, int buffer);

#endif /* _ATAG_TRACECMD_H */
