/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-run.h - one trace.dat through the pipeline, on two threads
 * (library-internal; atag_report_add_file() uses it). See lib/report/atag-run.c.
 *
 *   calling thread                                  stitching thread
 *   atag_reader_run(): libtracecmd reads records,
 *   libtraceevent and the decoder make events
 *        |  atag_event, atag_kstack, missed
 *        +----------> atag_pipe ---------------->   atag_pipe_drain() -> stitcher
 *                                                   -> aggregates, stacks, lifetimes
 *   pthread_join() <----------------------------    (ends when the pipe is closed)
 *   the results are read here
 *
 * Thread contract:
 *  - Every libtracecmd and libtraceevent call happens on the calling thread: the
 *    reader (opening, walking, decoding; symbol, event and comm look-ups),
 *    before, during and after the run (folding names the results, afterwards).
 *  - The stitching thread runs only the stitcher, the aggregates, the interned
 *    stacks and the lifetime histograms, on the messages it takes off the pipe.
 *    It calls nothing on the reader side: what it needs was resolved before the
 *    message crossed (include/atag-event.h).
 *  - What crosses is copied: event fields, a hit's call-site strings, a stack's
 *    frames and call site (lib/queue/atag-pipe.c). The two threads share only
 *    the pipe, and the stitching objects, which the calling thread does not
 *    touch until it has joined the stitching thread.
 *  - An error of the stitching thread (out of memory) stops the reader at its
 *    next message; the run then fails as a whole.
 *  - The stitching thread may end before the reading does (below): it drains the
 *    pipe and is joined, and from then on the calling thread feeds the stitcher
 *    itself, the same messages in the same order.
 * Two threads only pay when there is a second core for the stitcher and the
 * file is large: the stitching thread is started when two CPUs are allowed to
 * the process, the buffer holds 4 MiB of ring-buffer data or more and the other
 * CPUs are not all taken by other runnable tasks (/proc/loadavg, looked at three
 * times); while both run, the reader looks at the CPU time the two got over the
 * wall time, and goes on alone when they stop gaining (atag-run.c). ATAG_THREADS=2
 * asks for two threads throughout, ATAG_THREADS=1 refuses the second. Otherwise,
 * or when no thread can be made, the stitcher runs on the calling thread behind
 * a direct sink; the results are the same.
 */
#ifndef _ATAG_RUN_H
#define _ATAG_RUN_H

#include "atag-stitch.h"

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct atag_reader;
struct atag_rows;

/*
 * What stitching one file made: owned by the run, read after atag_run_stitch().
 * One aggregate per source the reader reads, in its order.
 */
struct atag_run {
	struct atag_aggr	*aggr[ATAG_STITCH_MAX_SOURCES];
	unsigned int		nr_src;
	struct atag_stacks	*stacks;
	struct atag_stitcher	*st;
	unsigned int		timeline;	/* set before: keep timelines of this many buckets */
};

/*
 * Read everything @rd reads into a new stitcher (raw lifetimes if @raw), and
 * finish it; with run->timeline set, each source's aggregates keep a timeline; with
 * @rows, the allocations that end are streamed there (lib/report/atag-rows.h), drained
 * on this thread as it reads. Returns 0, -ENOMEM, or the rows' output error; free @run
 * with atag_run_free() either way, and before closing @rd: the run's stacks point
 * to the frames @rd's decoder keeps.
 */
/*
 * Whether work after the stitch (the JSON rendering of many stacks) may take a
 * second thread: a second CPU allowed and not taken by other work, as for the
 * stitch; ATAG_THREADS=1 says no, 2 (or 2to1) yes.
 */
bool atag_second_thread_pays(void) __hidden;

int atag_run_stitch(struct atag_run *run, struct atag_reader *rd, bool raw,
		    struct atag_rows *rows) __hidden;
void atag_run_free(struct atag_run *run) __hidden;

#endif /* _ATAG_RUN_H */
