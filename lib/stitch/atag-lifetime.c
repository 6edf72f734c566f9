// SPDX-License-Identifier: LGPL-2.1
/*
 * Lifetime distributions. See atag-lifetime.h.
 *
 * Power index p: values below 128 are exact, p = v / 64 (0 or 1) and bucket v % 64;
 * a value v >= 128 whose highest set bit is e goes to p = e - 5 and bucket
 * (v >> (e - 6)) % 64, a bucket 2^(e - 6) ns wide. The buckets of the powers in
 * use sit in one array, power first_power first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-lifetime.h"

#define SUB		(1U << ATAG_LIFETIME_SUB_BITS)
#define EXACT_LIMIT	(2ULL * SUB)	/* values below are stored exactly */

/* Power index and bucket of @v. Powers 0 and 1 hold the exact values 0..127. */
static inline void locate(uint64_t v, int *p, unsigned int *b)
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

/* Make powers @lo..@hi part of the block. */
static int widen(struct atag_lifetime *lt, int lo, int hi)
{
	int first = lt->nr_powers ? lt->first_power : lo;
	int last = lt->nr_powers ? lt->first_power + lt->nr_powers - 1 : hi;
	uint32_t *n;

	if (lo < first)
		first = lo;
	if (hi > last)
		last = hi;
	n = calloc((size_t)(last - first + 1) * SUB, sizeof(*n));
	if (!n)
		return -ENOMEM;
	if (lt->nr_powers)
		memcpy(n + (size_t)(lt->first_power - first) * SUB, lt->buckets,
		       (size_t)lt->nr_powers * SUB * sizeof(*n));
	free(lt->buckets);
	lt->buckets = n;
	lt->first_power = first;
	lt->nr_powers = last - first + 1;
	return 0;
}

static inline uint32_t *bucket(struct atag_lifetime *lt, int p, unsigned int b)
{
	if (!lt->nr_powers || p < lt->first_power || p >= lt->first_power + lt->nr_powers) {
		if (widen(lt, p, p))
			return NULL;
	}
	return &lt->buckets[(size_t)(p - lt->first_power) * SUB + b];
}

int atag_lifetime_add(struct atag_lifetime *lt, uint64_t ns)
{
	unsigned int b;
	uint32_t *c;
	int p;

	locate(ns, &p, &b);
	c = bucket(lt, p, b);
	if (!c)
		return -ENOMEM;
	if (*c != UINT32_MAX)
		(*c)++;
	if (!lt->count || ns < lt->min)
		lt->min = ns;
	if (!lt->count || ns > lt->max)
		lt->max = ns;
	lt->count++;
	return 0;
}

int atag_lifetime_merge(struct atag_lifetime *to, const struct atag_lifetime *from)
{
	size_t i, off;

	if (!from->count)
		return 0;
	if (widen(to, from->first_power, from->first_power + from->nr_powers - 1))
		return -ENOMEM;
	off = (size_t)(from->first_power - to->first_power) * SUB;
	for (i = 0; i < (size_t)from->nr_powers * SUB; i++) {
		uint64_t sum = (uint64_t)to->buckets[off + i] + from->buckets[i];

		to->buckets[off + i] = sum > UINT32_MAX ? UINT32_MAX : sum;
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
	size_t i;

	if (!lt->count)
		return 0;
	rank = (uint64_t)(pct / 100.0 * lt->count);
	if ((double)rank < pct / 100.0 * lt->count)
		rank++;				/* nearest rank: ceil(pct/100 * N) */
	if (rank < 1)
		rank = 1;
	if (rank > lt->count)
		rank = lt->count;
	for (i = 0; i < (size_t)lt->nr_powers * SUB; i++) {
		seen += lt->buckets[i];
		if (seen < rank)
			continue;
		v = bucket_mid(lt->first_power + i / SUB, i % SUB);
		return v < lt->min ? lt->min : v > lt->max ? lt->max : v;
	}
	return lt->max;
}

uint64_t atag_lifetime_power_count(const struct atag_lifetime *lt, int e)
{
	uint64_t n = 0, lo;
	size_t i;
	int p;

	if (e < 0 || e > 63)
		return 0;
	for (i = 0; i < (size_t)lt->nr_powers * SUB; i++) {
		if (!lt->buckets[i])
			continue;
		p = lt->first_power + i / SUB;
		lo = p < 2 ? bucket_mid(p, i % SUB) : 1ULL << (p + ATAG_LIFETIME_SUB_BITS - 1);
		if ((lo ? 63 - __builtin_clzll(lo) : 0) == e)
			n += lt->buckets[i];
	}
	return n;
}

void atag_lifetime_free(struct atag_lifetime *lt)
{
	free(lt->buckets);
	*lt = (struct atag_lifetime){ 0 };
}
