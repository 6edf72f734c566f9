// SPDX-License-Identifier: LGPL-2.1
/*
 * Folding counters, the totals over call sites, and the tables writers walk.
 * See atag-counters.h.
 */
#include <stddef.h>

#include "atag-counters.h"

void atag_counters_add(struct atag_counters *to, const struct atag_counters *from)
{
	to->allocs += from->allocs;
	to->live += from->live;
	to->live_bytes += from->live_bytes;
	to->bytes_alloced += from->bytes_alloced;
	if (from->peak_live_bytes > to->peak_live_bytes)
		to->peak_live_bytes = from->peak_live_bytes;
	to->frees += from->frees;
	to->bytes_freed += from->bytes_freed;
	to->unmatched_frees += from->unmatched_frees;
	to->partial_frees += from->partial_frees;
	to->replaced += from->replaced;
}

void atag_totals_add(struct atag_totals *t, const struct atag_counters *c)
{
	t->allocs += c->allocs;
	t->frees += c->frees + c->unmatched_frees;
	t->matched_frees += c->frees;
	t->unmatched_frees += c->unmatched_frees;
	t->partial_frees += c->partial_frees;
	t->replaced += c->replaced;
	t->live += c->live;
	t->live_bytes += c->live_bytes;
	t->bytes_alloced += c->bytes_alloced;
	t->bytes_freed += c->bytes_freed;
}

void atag_inflation_add(struct atag_inflation *to, const struct atag_inflation *from)
{
	to->lifetimes += from->lifetimes;
	to->ns += from->ns;
	to->other_task += from->other_task;
}

void atag_window_add(struct atag_window *to, const struct atag_window *from)
{
	to->allocs += from->allocs;
	to->frees += from->frees;
	to->bytes_alloced += from->bytes_alloced;
	to->bytes_freed += from->bytes_freed;
	to->uncertain_allocs += from->uncertain_allocs;
	to->uncertain_frees += from->uncertain_frees;
	to->uncertain_bytes_alloced += from->uncertain_bytes_alloced;
	to->uncertain_bytes_freed += from->uncertain_bytes_freed;
}

#define COUNTER(field, is_bytes) \
	{ #field, offsetof(struct atag_counters, field), is_bytes }

const struct atag_counter_field atag_counter_fields[] = {
	[ATAG_COUNTER_ALLOCS]		= COUNTER(allocs, false),
	[ATAG_COUNTER_FREES]		= COUNTER(frees, false),
	[ATAG_COUNTER_UNMATCHED_FREES]	= COUNTER(unmatched_frees, false),
	[ATAG_COUNTER_PARTIAL_FREES]	= COUNTER(partial_frees, false),
	[ATAG_COUNTER_REPLACED]		= COUNTER(replaced, false),
	[ATAG_COUNTER_LIVE]		= COUNTER(live, false),
	[ATAG_COUNTER_LIVE_BYTES]	= COUNTER(live_bytes, true),
	[ATAG_COUNTER_PEAK_LIVE_BYTES]	= COUNTER(peak_live_bytes, true),
	[ATAG_COUNTER_BYTES_ALLOCED]	= COUNTER(bytes_alloced, true),
	[ATAG_COUNTER_BYTES_FREED]	= COUNTER(bytes_freed, true),
	[ATAG_NR_COUNTERS]		= { NULL, 0, false },
};

#define TOTAL(field, is_bytes) \
	{ #field, offsetof(struct atag_totals, field), is_bytes }

const struct atag_counter_field atag_total_fields[] = {
	TOTAL(allocs, false),
	TOTAL(frees, false),
	TOTAL(matched_frees, false),
	TOTAL(unmatched_frees, false),
	TOTAL(partial_frees, false),
	TOTAL(replaced, false),
	TOTAL(live, false),
	TOTAL(live_bytes, true),
	TOTAL(bytes_alloced, true),
	TOTAL(bytes_freed, true),
	{ NULL, 0, false },
};
