/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-lifetime.h - distributions of allocation lifetimes in bounded memory.
 *
 * A log-linear histogram: each power of two [2^e, 2^(e+1)) of nanoseconds is cut
 * into 64 equal buckets. Only the powers between the shortest and the longest
 * lifetime seen are allocated, in one block, so memory depends on the spread of
 * lifetimes, never on their number, and nearby lifetimes share cache lines.
 * Values below 128 ns are exact. Bucket counters are 32 bits, which halves the
 * memory the stitching thread touches; a counter stops at 2^32 - 1 (only a trace
 * with more lifetimes than that in one bucket would notice). A percentile is the
 * midpoint of the nearest-rank value's bucket (clamped to the exact minimum and
 * maximum): within 1/128 (0.8%) of the true nearest-rank value.
 */
#ifndef _ATAG_LIFETIME_H
#define _ATAG_LIFETIME_H

#include <stdint.h>

#define ATAG_LIFETIME_SUB_BITS	6
#define ATAG_LIFETIME_POWERS	64

struct atag_lifetime {
	uint64_t	count;
	uint64_t	min;
	uint64_t	max;
	uint32_t	*buckets;	/* powers first_power .. first_power + nr_powers - 1 */
	uint8_t		first_power;
	uint8_t		nr_powers;
};

/* Add one lifetime of @ns nanoseconds. Returns 0 or -ENOMEM. */
int atag_lifetime_add(struct atag_lifetime *lt, uint64_t ns);

/* Add every value of @from into @to. Returns 0 or -ENOMEM. */
int atag_lifetime_merge(struct atag_lifetime *to, const struct atag_lifetime *from);

/* The nearest-rank @pct percentile (0 < pct <= 100); 0 when empty. */
uint64_t atag_lifetime_percentile(const struct atag_lifetime *lt, double pct);

/* How many values fall in [2^e, 2^(e+1)) ns (e = 0 also holds the value 0). */
uint64_t atag_lifetime_power_count(const struct atag_lifetime *lt, int e);

void atag_lifetime_free(struct atag_lifetime *lt);

#endif /* _ATAG_LIFETIME_H */
