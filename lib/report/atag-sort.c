// SPDX-License-Identifier: LGPL-2.1
/*
 * The sort keys report and diff share. See atag-sort.h.
 */
#include <stddef.h>
#include <string.h>

#include "atag-counters.h"
#include "atag-sort.h"

static const struct atag_sort_key keys[] = {
	{ "live_bytes", ATAG_SORT_COUNTER, ATAG_COUNTER_LIVE_BYTES },
	{ "live", ATAG_SORT_COUNTER, ATAG_COUNTER_LIVE },
	{ "peak", ATAG_SORT_COUNTER, ATAG_COUNTER_PEAK_LIVE_BYTES },
	{ "bytes", ATAG_SORT_COUNTER, ATAG_COUNTER_BYTES_ALLOCED },
	{ "allocs", ATAG_SORT_COUNTER, ATAG_COUNTER_ALLOCS },
	{ "frees", ATAG_SORT_COUNTER, ATAG_COUNTER_FREES },
	{ "unmatched", ATAG_SORT_COUNTER, ATAG_COUNTER_UNMATCHED_FREES },
	{ "p50", ATAG_SORT_PERCENTILE, 50 },
	{ "p90", ATAG_SORT_PERCENTILE, 90 },
	{ "p99", ATAG_SORT_PERCENTILE, 99 },
	{ "max", ATAG_SORT_MAX, 0 },
	{ "site", ATAG_SORT_SITE, 0 },
};

const struct atag_sort_key *atag_sort_key(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(name, keys[i].name))
			return &keys[i];
	return NULL;
}
