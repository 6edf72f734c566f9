// SPDX-License-Identifier: LGPL-2.1
/*
 * Lifetime distributions. See atag-lifetime.h.
 *
 * Power index p: values below 128 are exact, p = v / 64 (0 or 1) and bucket v % 64;
 * a value v >= 128 whose highest set bit is e goes to p = e - 5 and bucket
 * (v >> (e - 6)) % 64, a bucket 2^(e - 6) ns wide.
 */
#include <errno.h>
#include <stdlib.h>

#include "atag-lifetime.h"

#define SUB		(1U << ATAG_LIFETIME_SUB_BITS)
#define EXACT_LIMIT	(2ULL * SUB)	/* values below are stored exactly */

/* Power index and bucket of @v. Powers 0 and 1 hold the exact values 0..127. */
static void locate(uint64_t v, int *p, unsigned int *b)
{
	int e;

	if (v < EXACT_LIMIT) {
		*p = v >> ATAG_LIFETIME_SUB_BITS;
		*b = v & (SUB - 1);
		return;
	}
	e = 63 - __builtin_clzll(v);
	*p = e - ATAG_LIFETIME_SUB_BITS + 1;
	*b = (v >> (e - ATAG_LIFETIME_SUB_BITS)) & (SUB - 1);
}

/* The middle of bucket @b of power @p: the value a percentile reports. */
static uint64_t bucket_mid(int p, unsigned int b)
{
	int e = p + ATAG_LIFETIME_SUB_BITS - 1;
	uint64_t lo, width;

	if (p < 2)
		return ((uint64_t)p << ATAG_LIFETIME_SUB_BITS) + b;
	width = 1ULL << (e - ATAG_LIFETIME_SUB_BITS);
	lo = (1ULL << e) + b * width;
	return lo + width / 2;
}

static uint64_t *power(struct atag_lifetime *lt, int p)
{
	if (!lt->powers[p])
		lt->powers[p] = calloc(SUB, sizeof(uint64_t));
	return lt->powers[p];
}

int atag_lifetime_add(struct atag_lifetime *lt, uint64_t ns)
{
	unsigned int b;
	uint64_t *c;
	int p;

	locate(ns, &p, &b);
	c = power(lt, p);
	if (!c)
		return -ENOMEM;
	c[b]++;
	if (!lt->count || ns < lt->min)
		lt->min = ns;
	if (!lt->count || ns > lt->max)
		lt->max = ns;
	lt->count++;
	return 0;
}

int atag_lifetime_merge(struct atag_lifetime *to, const struct atag_lifetime *from)
{
	unsigned int b;
	uint64_t *c;
	int p;

	if (!from->count)
		return 0;
	for (p = 0; p < ATAG_LIFETIME_POWERS; p++) {
		if (!from->powers[p])
			continue;
		c = power(to, p);
		if (!c)
			return -ENOMEM;
		for (b = 0; b < SUB; b++)
			c[b] += from->powers[p][b];
	}
	if (!to->count || from->min < to->min)
		to->min = from->min;
	if (!to->count || from->max > to->max)
		to->max = from->max;
	to->count += from->count;
	return 0;
}

uint64_t atag_lifetime_percentile(const struct atag_lifetime *lt, double pct)
{
	uint64_t rank, seen = 0, v;
	unsigned int b;
	int p;

	if (!lt->count)
		return 0;
	rank = (uint64_t)(pct / 100.0 * lt->count);
	if ((double)rank < pct / 100.0 * lt->count)
		rank++;				/* nearest rank: ceil(pct/100 * N) */
	if (rank < 1)
		rank = 1;
	if (rank > lt->count)
		rank = lt->count;
	for (p = 0; p < ATAG_LIFETIME_POWERS; p++) {
		if (!lt->powers[p])
			continue;
		for (b = 0; b < SUB; b++) {
			seen += lt->powers[p][b];
			if (seen < rank)
				continue;
			v = bucket_mid(p, b);
			return v < lt->min ? lt->min : v > lt->max ? lt->max : v;
		}
	}
	return lt->max;
}

uint64_t atag_lifetime_power_count(const struct atag_lifetime *lt, int e)
{
	uint64_t n = 0;
	unsigned int b;
	int p;

	if (e < 0 || e > 63)
		return 0;
	for (p = 0; p < ATAG_LIFETIME_POWERS; p++) {
		if (!lt->powers[p])
			continue;
		for (b = 0; b < SUB; b++) {
			uint64_t lo = p < 2 ? bucket_mid(p, b) :
				      (1ULL << (p + ATAG_LIFETIME_SUB_BITS - 1));
			int pe = lo ? 63 - __builtin_clzll(lo) : 0;

			if (pe == e)
				n += lt->powers[p][b];
		}
	}
	return n;
}

void atag_lifetime_free(struct atag_lifetime *lt)
{
	int p;

	for (p = 0; p < ATAG_LIFETIME_POWERS; p++)
		free(lt->powers[p]);
	*lt = (struct atag_lifetime){ 0 };
}
