/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-fold.h - folding what one file's run made into a report (library-internal;
 * atag_report_add_file() uses it). See lib/report/atag-fold.c.
 *
 * Runs on the thread that read the file, after its run: naming call sites and
 * frames asks the file's kallsyms and comms (libtraceevent).
 */
#ifndef _ATAG_FOLD_H
#define _ATAG_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "atag-map.h"
#include "atag-report.h"

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct atag_reader;
struct atag_run;
struct atag_debuginfo;
struct atag_aggr;

/* The index of the call sites folded so far, by their identity across files. */
struct atag_fold;

struct atag_fold *atag_fold_alloc(void) __hidden;
void atag_fold_free(struct atag_fold *fold) __hidden;

/*
 * Fold the aggregates and the live allocations of @run, read by @rd, into @r,
 * whose last file is @rd's: tags merge with the call sites of earlier files by
 * identity (source, function, file, line, module, offset; the tag pointer when
 * no call site is known), a tag's stacks by their symbolised frames (without the
 * tracing machinery's unless opts->raw_stacks). Tags the file's recording did
 * not select are left out (unless opts->all_tags) and counted in their source's
 * hidden_tags and hidden_events. With @di, call sites without a file and
 * frames get "file:line" from the debug information. Returns 0 or -ENOMEM.
 */
int atag_fold_file(struct atag_fold *fold, struct atag_report *r, const struct atag_run *run,
		   struct atag_reader *rd, const struct atag_report_opts *opts,
		   struct atag_debuginfo *di) __hidden;

/*
 * The call site of @r with this identity, added (selected, no counts) on first
 * sight: what atag_fold_file() folds a file's tag into, and the loader of report
 * documents (atag-report-json.c) a document's. @source is the registry's string.
 * NULL on ENOMEM.
 */
struct atag_report_tag *atag_fold_tag(struct atag_fold *fold, struct atag_report *r,
				      const char *source, uint64_t tag, const char *function,
				      const char *file, long line, long long offset,
				      const char *module) __hidden;

/*
 * @name kept once for the report of @fold: the report's stacks hold such names, so
 * that two stacks with the same frames hold the same pointers. Freed with @fold.
 */
const char *atag_fold_name(struct atag_fold *fold, const char *name) __hidden;

/*
 * The stack of @rt with @nr @frames (names of atag_fold_name()) and @lines (or
 * NULL), added on first sight, found by @rt and the frames' pointers; takes the
 * array @frames (not its names) and @lines (freed when the stack was there, or on
 * ENOMEM: NULL).
 */
struct atag_report_stack *atag_fold_stack(struct atag_fold *fold, struct atag_report_tag *rt,
					 char **frames, char **lines, unsigned int nr) __hidden;

/* The fold of @r, and the options it reads with (atag-report-files.c). */
struct atag_fold *atag_report_fold(struct atag_report *r) __hidden;
const struct atag_report_opts *atag_report_opts_of(const struct atag_report *r) __hidden;

/* The section of source @name in @r, added (in the registry's order) on first sight. */
struct atag_report_source *atag_fold_source(struct atag_report *r, const char *name) __hidden;

/*
 * The report's stack of a (tag, stack) pair of the file being folded: @by_pair
 * maps tag_idx << 32 | stack_id to it. NULL for a pair not folded.
 */
static inline struct atag_report_stack *atag_fold_pair(const struct atag_map *by_pair,
							uint64_t key)
{
	const uint64_t *v = atag_map_find(by_pair, key);

	return v ? (struct atag_report_stack *)(uintptr_t)*v : NULL;
}

/*
 * The timeline @aggr kept (if any) joins r->timelines as the last file's, for
 * source @source: the file's tag i is the report's @tags[i] (NULL: left out), its
 * (tag, stack) pairs the report's stacks by @by_pair (atag_fold_pair()).
 * 0 or -ENOMEM (then nothing was added). lib/report/atag-report-timeline.c.
 */
int atag_fold_timeline(struct atag_report *r, const char *source, struct atag_aggr *aggr,
		       struct atag_report_tag **tags, const struct atag_map *by_pair) __hidden;
/* Free the timelines of @r past the first @nr. */
void atag_report_timelines_trim(struct atag_report *r, unsigned int nr) __hidden;
#define atag_report_timelines_free(r)	atag_report_timelines_trim(r, 0)

#endif /* _ATAG_FOLD_H */
