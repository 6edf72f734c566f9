/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-fold.h - folding what one file's run made into a report (library-internal;
 * atag_report_add_file() uses it). See lib/stitch/atag-fold.c.
 *
 * Runs on the thread that read the file, after its run: naming call sites and
 * frames asks the file's kallsyms and comms (libtraceevent).
 */
#ifndef _ATAG_FOLD_H
#define _ATAG_FOLD_H

#include <stdbool.h>

#include "atag-report.h"

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct atag_reader;
struct atag_run;

/* The index of the call sites folded so far, by their identity across files. */
struct atag_fold;

struct atag_fold *atag_fold_alloc(void) __hidden;
void atag_fold_free(struct atag_fold *fold) __hidden;

/*
 * Fold the aggregates and the live allocations of @run, read by @rd, into @r,
 * whose last file is @rd's: tags merge with the call sites of earlier files by
 * identity (function, file, line, module, offset; the tag pointer when no call
 * site is known), a tag's stacks by their symbolised frames (without the
 * tracing machinery's unless @raw_stacks). Returns 0 or -ENOMEM.
 */
int atag_fold_file(struct atag_fold *fold, struct atag_report *r, const struct atag_run *run,
		   struct atag_reader *rd, bool raw_stacks) __hidden;

#endif /* _ATAG_FOLD_H */
