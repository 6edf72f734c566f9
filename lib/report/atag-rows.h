/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-rows.h - the report's allocations a row each, streamed while a file is
 * stitched (library-internal; atag_report_stream_rows() of include/atag-report.h
 * sets it up, atag-report-files.c and atag-run.c drive it). See lib/report/atag-rows.c.
 *
 * Two halves, one on each thread of a run (lib/report/atag-run.h):
 *  - the stitching thread: the stitcher's end hook (lib/stitch/atag-stitch.h) turns
 *    each allocation that ends into a row of plain numbers, with its call site's
 *    strings and its stack's frames the first time the file's run names them,
 *    and queues it;
 *  - the calling thread: atag_rows_drain() takes the queued rows off, names
 *    them (call site, stack, comm: libtraceevent) and hands them to the output.
 * The queue is the only thing both touch, under a mutex. atag-run.c drains it
 * every few thousand messages it reads, so it holds at most the rows of what
 * the pipe holds: memory stays bounded by live allocations and distinct stacks.
 * With the stitcher on the calling thread the same path runs, in the same order:
 * the output is the same.
 */
#ifndef _ATAG_ROWS_H
#define _ATAG_ROWS_H

#include "atag-report.h"

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct atag_reader;
struct atag_run;
struct atag_rows;

/* Rows into @out, of the call sites @view selects (NULL: all); NULL on ENOMEM. */
struct atag_rows *atag_rows_alloc(const struct atag_report_rows *out,
				  const struct atag_report_view *view,
				  const struct atag_report_opts *opts) __hidden;
void atag_rows_free(struct atag_rows *rows) __hidden;

/* The next file, read by @rd: before its run. 0 or -ENOMEM. */
int atag_rows_begin(struct atag_rows *rows, struct atag_reader *rd) __hidden;
/* Inside atag_run_stitch(), before the first event: hook the run's stitcher. */
void atag_rows_attach(struct atag_rows *rows, const struct atag_run *run) __hidden;
/* Calling thread: name and write the rows queued so far. 0 or the output's error. */
int atag_rows_drain(struct atag_rows *rows) __hidden;
/*
 * After the run (its thread joined, the stitcher finished): the last queued rows,
 * then the allocations still live, in the order they were made. 0, or the
 * output's error (or -ENOMEM).
 */
int atag_rows_end(struct atag_rows *rows, const struct atag_run *run) __hidden;
/* The file is done (or failed): forget its tags and stacks, not the report's stack ids. */
void atag_rows_done(struct atag_rows *rows) __hidden;

/* Whether @v's globs select the call site so named (atag-report-view.c; report's rule). */
bool atag_view_selects(const struct atag_report_view *v, const char *function, const char *file,
		       const char *module) __hidden;

#endif /* _ATAG_ROWS_H */
