// SPDX-License-Identifier: LGPL-2.1
/*
 * Live bytes over time in a fixed number of buckets whose width doubles, and the
 * composition of the peak by lazy snapshots. See atag-timeline.h.
 *
 * While changes come, a series holds per bucket the sum of the changes inside it
 * (delta) and the most the live bytes were right after a change inside it (max).
 * atag_timeline_finish() turns the deltas into the live bytes at each bucket's
 * end (a running sum), and raises each max to the live bytes the bucket began
 * and ended with (a bucket without changes holds one value throughout).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-timeline.h"

/* Live bytes of a site, a stack or the total, and its value at the peak. */
struct entity {
	uint64_t	live;
	uint64_t	at_peak;	/* valid when epoch == the timeline's epoch */
	uint64_t	epoch;		/* the peak epoch of its last change */
};

struct series {
	int64_t		*delta;		/* after finish: (uint64_t) live at the end */
	uint64_t	*max;
};

struct atag_timeline {
	unsigned int	cap;		/* buckets */
	unsigned int	used;		/* highest bucket index changed, + 1 */
	uint64_t	start;
	uint64_t	width;
	bool		started;
	bool		finished;
	struct entity	total;
	struct series	total_s;
	struct entity	*sites;
	struct series	*site_s;
	size_t		nr_sites;
	size_t		cap_sites;
	struct entity	*stacks;
	size_t		nr_stacks;
	size_t		cap_stacks;
	uint64_t	epoch;		/* new peaks so far */
	uint64_t	peak;
	uint64_t	peak_ts;
};

struct atag_timeline *atag_timeline_alloc(unsigned int nr_buckets, uint64_t first_width)
{
	struct atag_timeline *tl;

	if (nr_buckets < 2 || !first_width) {
		errno = EINVAL;
		return NULL;
	}
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return NULL;
	tl->cap = nr_buckets;
	tl->width = first_width;
	tl->total_s.delta = calloc(nr_buckets, sizeof(int64_t));
	tl->total_s.max = calloc(nr_buckets, sizeof(uint64_t));
	if (!tl->total_s.delta || !tl->total_s.max) {
		atag_timeline_free(tl);
		return NULL;
	}
	return tl;
}

static void series_free(struct series *s)
{
	free(s->delta);
	free(s->max);
}

void atag_timeline_free(struct atag_timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	series_free(&tl->total_s);
	for (i = 0; i < tl->nr_sites; i++)
		series_free(&tl->site_s[i]);
	free(tl->site_s);
	free(tl->sites);
	free(tl->stacks);
	free(tl);
}

/* Room for index @idx in an array of @size-byte elements, zeroed; NULL on ENOMEM. */
static void *grow(void *arr, size_t *cap, size_t *nr, size_t idx, size_t size)
{
	size_t c = *cap;
	char *n;

	if (idx < *nr)
		return arr;
	if (idx >= c) {
		c = c ? c : 16;
		while (idx >= c)
			c *= 2;
		n = realloc(arr, c * size);
		if (!n)
			return NULL;
		memset(n + *cap * size, 0, (c - *cap) * size);
		arr = n;
		*cap = c;
	}
	*nr = idx + 1;
	return arr;
}

/*
 * A change added to a change, wrapping as the live bytes it turns into do: byte counts
 * past 2^63 are implausible (the report says so, atag-report-files.c), not undefined.
 */
static inline int64_t add_delta(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Buckets 2i and 2i + 1 become bucket i. */
static void series_halve(struct series *s, unsigned int cap)
{
	unsigned int i;

	if (!s->delta)
		return;
	for (i = 0; i < cap / 2; i++) {
		s->delta[i] = add_delta(s->delta[2 * i], s->delta[2 * i + 1]);
		s->max[i] = s->max[2 * i] > s->max[2 * i + 1] ? s->max[2 * i] : s->max[2 * i + 1];
	}
	if (cap & 1) {
		s->delta[i] = s->delta[cap - 1];
		s->max[i] = s->max[cap - 1];
		i++;
	}
	memset(&s->delta[i], 0, (cap - i) * sizeof(*s->delta));
	memset(&s->max[i], 0, (cap - i) * sizeof(*s->max));
}

/* The width doubles; the buckets merge in pairs. */
static void double_width(struct atag_timeline *tl)
{
	size_t i;

	series_halve(&tl->total_s, tl->cap);
	for (i = 0; i < tl->nr_sites; i++)
		series_halve(&tl->site_s[i], tl->cap);
	tl->width *= 2;
	tl->used = (tl->used + 1) / 2;
}

/* The bucket of @ts, doubling the width until it fits. */
static unsigned int bucket_of(struct atag_timeline *tl, uint64_t ts)
{
	uint64_t off;

	if (!tl->started) {
		tl->started = true;
		tl->start = ts;
	}
	if (ts <= tl->start)
		return 0;
	off = ts - tl->start;
	while (off / tl->width >= tl->cap && tl->width <= UINT64_MAX / 2)
		double_width(tl);
	off /= tl->width;
	return off < tl->cap ? off : tl->cap - 1;
}

/* The value of @e at the peak is kept before its first change after the peak. */
static inline void snapshot(struct entity *e, uint64_t epoch)
{
	if (e->epoch != epoch) {
		e->at_peak = e->live;
		e->epoch = epoch;
	}
}

static inline void apply(struct entity *e, int64_t delta)
{
	if (delta < 0 && 0 - (uint64_t)delta > e->live)
		e->live = 0;
	else
		e->live += delta;
}

static inline void note(struct series *s, unsigned int b, int64_t delta, uint64_t live)
{
	s->delta[b] = add_delta(s->delta[b], delta);
	if (live > s->max[b])
		s->max[b] = live;
}

int atag_timeline_change(struct atag_timeline *tl, uint64_t ts, uint32_t site, uint32_t stack,
			 int64_t delta)
{
	struct entity *e;
	struct series *s;
	size_t nr, cap;
	unsigned int b;

	if (site >= tl->nr_sites) {
		nr = tl->nr_sites;
		cap = tl->cap_sites;
		e = grow(tl->sites, &cap, &nr, site, sizeof(*e));
		if (!e)
			return -ENOMEM;
		tl->sites = e;
		nr = tl->nr_sites;
		s = grow(tl->site_s, &tl->cap_sites, &nr, site, sizeof(*s));
		if (!s)
			return -ENOMEM;
		tl->site_s = s;
		tl->nr_sites = nr;
	}
	s = &tl->site_s[site];
	if (!s->delta) {
		s->delta = calloc(tl->cap, sizeof(*s->delta));
		s->max = calloc(tl->cap, sizeof(*s->max));
		if (!s->delta || !s->max) {
			series_free(s);
			s->delta = NULL;
			s->max = NULL;
			return -ENOMEM;
		}
	}
	if (stack >= tl->nr_stacks) {
		e = grow(tl->stacks, &tl->cap_stacks, &tl->nr_stacks, stack, sizeof(*e));
		if (!e)
			return -ENOMEM;
		tl->stacks = e;
	}
	b = bucket_of(tl, ts);
	if (b >= tl->used)
		tl->used = b + 1;

	snapshot(&tl->sites[site], tl->epoch);
	apply(&tl->sites[site], delta);
	snapshot(&tl->stacks[stack], tl->epoch);
	apply(&tl->stacks[stack], delta);
	apply(&tl->total, delta);
	note(s, b, delta, tl->sites[site].live);
	note(&tl->total_s, b, delta, tl->total.live);
	if (tl->total.live > tl->peak) {
		/* a new peak: every value now is its value at the peak, until it changes */
		tl->peak = tl->total.live;
		tl->peak_ts = ts;
		tl->epoch++;
	}
	return 0;
}

static void series_finish(struct series *s, unsigned int used)
{
	uint64_t *live = (uint64_t *)s->delta, before = 0, end;
	unsigned int b;

	if (!s->delta)
		return;
	for (b = 0; b < used; b++) {
		end = before + s->delta[b];
		live[b] = end;
		if (before > s->max[b])
			s->max[b] = before;
		if (end > s->max[b])
			s->max[b] = end;
		before = end;
	}
}

void atag_timeline_finish(struct atag_timeline *tl)
{
	size_t i;

	if (tl->finished)
		return;
	tl->finished = true;
	series_finish(&tl->total_s, tl->used);
	for (i = 0; i < tl->nr_sites; i++)
		series_finish(&tl->site_s[i], tl->used);
}

unsigned int atag_timeline_cap(const struct atag_timeline *tl)
{
	return tl->cap;
}

unsigned int atag_timeline_nr_buckets(const struct atag_timeline *tl)
{
	return tl->used;
}

uint64_t atag_timeline_start(const struct atag_timeline *tl)
{
	return tl->start;
}

uint64_t atag_timeline_width(const struct atag_timeline *tl)
{
	return tl->width;
}

size_t atag_timeline_nr_sites(const struct atag_timeline *tl)
{
	return tl->nr_sites;
}

size_t atag_timeline_nr_stacks(const struct atag_timeline *tl)
{
	return tl->nr_stacks;
}

const uint64_t *atag_timeline_total(const struct atag_timeline *tl, const uint64_t **max)
{
	if (max)
		*max = tl->total_s.max;
	return (const uint64_t *)tl->total_s.delta;
}

const uint64_t *atag_timeline_site(const struct atag_timeline *tl, uint32_t site,
				   const uint64_t **max)
{
	const struct series *s = site < tl->nr_sites ? &tl->site_s[site] : NULL;

	if (max)
		*max = s ? s->max : NULL;
	return s ? (const uint64_t *)s->delta : NULL;
}

uint64_t atag_timeline_peak(const struct atag_timeline *tl, uint64_t *ts)
{
	if (ts)
		*ts = tl->peak_ts;
	return tl->peak;
}

static uint64_t at_peak(const struct entity *e, uint64_t epoch)
{
	return e->epoch == epoch ? e->at_peak : e->live;
}

uint64_t atag_timeline_site_at_peak(const struct atag_timeline *tl, uint32_t site)
{
	return site < tl->nr_sites ? at_peak(&tl->sites[site], tl->epoch) : 0;
}

uint64_t atag_timeline_stack_at_peak(const struct atag_timeline *tl, uint32_t stack)
{
	return stack < tl->nr_stacks ? at_peak(&tl->stacks[stack], tl->epoch) : 0;
}
