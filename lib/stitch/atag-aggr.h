/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-aggr.h - the stitcher's updates of the aggregates (lib/stitch/atag-aggr.c),
 * internal to lib/stitch/. Readers of the aggregates use lib/stitch/atag-stitch.h.
 */
#ifndef _ATAG_AGGR_H
#define _ATAG_AGGR_H

#include <stdint.h>

#include "atag-stitch.h"

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

int atag_aggr_note_alloc(struct atag_aggr *aggr, struct atag_live *l) __hidden;
/*
 * The allocation @l counted by atag_aggr_note_alloc() was an inner event: take it
 * back. Its tag's peak was @before it and @after; a peak it alone made goes back.
 */
void atag_aggr_note_unalloc(struct atag_aggr *aggr, const struct atag_live *l, uint64_t before,
			    uint64_t after) __hidden;

/* How a lifetime relates to the stack captures of its task (atag_aggr_note_free()). */
enum atag_observed {
	ATAG_OBS_NONE,		/* none fell inside it */
	ATAG_OBS_INFLATED,	/* @observed ns of them did */
	ATAG_OBS_OTHER_TASK,	/* another task freed it: unknown */
};

/*
 * A free of @bytes at @ts retired @l after @lifetime ns (already corrected, unless
 * raw); @how and @observed say what captures did to it.
 */
int atag_aggr_note_free(struct atag_aggr *aggr, const struct atag_live *l, uint64_t ts,
			uint64_t lifetime, uint64_t bytes, enum atag_observed how,
			uint64_t observed) __hidden;
/* Events inside the counters window; @uncertain: while the counters were read. */
void atag_aggr_note_window(struct atag_aggr *aggr, uint32_t tag_idx, bool alloc,
			   uint64_t bytes, bool uncertain) __hidden;
/* An ALLOC or FREE event of @tag_idx, of any task. */
void atag_aggr_note_event(struct atag_aggr *aggr, uint32_t tag_idx) __hidden;
/* An event counted under @from (tag 0, waiting for its call site) is @to's. */
void atag_aggr_move_event(struct atag_aggr *aggr, uint32_t from, uint32_t to) __hidden;

/* An inner event was folded into an allocation of @tag_idx. */
void atag_aggr_note_nested(struct atag_aggr *aggr, uint32_t tag_idx) __hidden;
/* @l was allocated again at @ts while live: retired (its free was not traced). */
void atag_aggr_note_replaced(struct atag_aggr *aggr, const struct atag_live *l,
			     uint64_t ts) __hidden;
void atag_aggr_note_unmatched(struct atag_aggr *aggr, uint32_t tag_idx, uint64_t bytes) __hidden;

#endif /* _ATAG_AGGR_H */
