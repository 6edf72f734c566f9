/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-render-diff.h - writing a diff of two reports (include/atag-report-diff.h).
 *
 * Like the report renderers (include/atag-render.h), these only read, and take
 * the same options where they apply (limit, stacks, weight):
 *
 *   text    the totals before, after and their change, then a row of changes per
 *           call site, largest first; with @stacks each one's changed stacks
 *           (lib/render/atag-render-diff-text.c)
 *   json    one object, the contract of "diff --format json"
 *           (Documentation/trace-cmd-alloc-tag-diff.1.txt; atag-render-diff-json.c)
 *   csv     a row per call site: each counter before, after and its change
 *           (atag-render-diff-csv.c)
 *   folded  FlameGraph's differential input ("frames BEFORE AFTER" a line), for
 *           flamegraph.pl and difffolded users (atag-render-diff-folded.c); give it a
 *           diff computed with the unchanged call sites and stacks kept
 *
 * Each returns 0, or a negative number when writing failed (errno says why) or an
 * option is wrong (-EINVAL: an unknown weight).
 */
#ifndef _ATAG_RENDER_DIFF_H
#define _ATAG_RENDER_DIFF_H

#include <stdio.h>

#include "atag-render.h"

struct atag_diff;

int atag_render_diff_text(const struct atag_diff *d, const struct atag_render_opts *o, FILE *f);
int atag_render_diff_json(const struct atag_diff *d, const struct atag_render_opts *o, FILE *f);
int atag_render_diff_csv(const struct atag_diff *d, const struct atag_render_opts *o, FILE *f);
int atag_render_diff_folded(const struct atag_diff *d, const struct atag_render_opts *o,
			    FILE *f);

#endif /* _ATAG_RENDER_DIFF_H */
