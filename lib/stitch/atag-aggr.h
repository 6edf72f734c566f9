/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-aggr.h - the stitcher's updates of the aggregates (lib/stitch/atag-aggr.c),
 * internal to lib/stitch/. Readers of the aggregates use include/atag-stitch.h.
 */
#ifndef _ATAG_AGGR_H
#define _ATAG_AGGR_H

#include <stdint.h>

#include "atag-stitch.h"

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

int atag_aggr_note_alloc(struct atag_aggr *aggr, struct atag_live *l) __hidden;
int atag_aggr_note_free(struct atag_aggr *aggr, const struct atag_live *l, uint64_t ts,
			uint64_t bytes) __hidden;
void atag_aggr_note_replaced(struct atag_aggr *aggr, const struct atag_live *l) __hidden;
void atag_aggr_note_unmatched(struct atag_aggr *aggr, uint32_t tag_idx, uint64_t bytes) __hidden;

#endif /* _ATAG_AGGR_H */
