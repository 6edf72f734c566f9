// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the timeline (include/atag-timeline.h): buckets, their doubling,
 * the maxima inside buckets, and the peak's composition per site and per stack,
 * against values computed by hand in the comments; then through the stitcher.
 */
#include <stdlib.h>
#include <string.h>

#include "atag-utest.h"
#include "atag-stitch.h"
#include "atag-timeline.h"

#define U64S(...)	((const uint64_t[]){ __VA_ARGS__ })

static void assert_series(const uint64_t *got, const uint64_t *want, unsigned int n)
{
	unsigned int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	for (i = 0; i < n; i++) {
		if (got[i] != want[i])
			fprintf(stderr, "\n  bucket %u: got %llu, want %llu", i,
				(unsigned long long)got[i], (unsigned long long)want[i]);
		CU_ASSERT_EQUAL(got[i], want[i]);
	}
}

static void test_buckets(void)
{
	struct atag_timeline *tl = atag_timeline_alloc(4, 10);
	const uint64_t *live, *max;
	uint64_t ts;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	/* start 100, width 10: buckets [100,110) [110,120) [120,130) */
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 100, 0, 0, 10), 0);	/* b0: total 10 */
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 115, 1, 1, 20), 0);	/* b1: total 30 */
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 120, 0, 0, -10), 0);	/* b2: total 20 */
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 125, 1, 2, 5), 0);	/* b2: total 25 */
	atag_timeline_finish(tl);
	atag_timeline_finish(tl);	/* idempotent */
	CU_ASSERT_EQUAL(atag_timeline_nr_buckets(tl), 3);
	CU_ASSERT_EQUAL(atag_timeline_start(tl), 100);
	CU_ASSERT_EQUAL(atag_timeline_width(tl), 10);
	CU_ASSERT_EQUAL(atag_timeline_nr_sites(tl), 2);
	CU_ASSERT_EQUAL(atag_timeline_nr_stacks(tl), 3);
	live = atag_timeline_total(tl, &max);
	assert_series(live, U64S(10, 30, 25), 3);
	/* b2 began at 30 (the end of b1) before falling to 20 */
	assert_series(max, U64S(10, 30, 30), 3);
	live = atag_timeline_site(tl, 0, &max);
	assert_series(live, U64S(10, 10, 0), 3);
	assert_series(max, U64S(10, 10, 10), 3);
	live = atag_timeline_site(tl, 1, &max);
	assert_series(live, U64S(0, 20, 25), 3);
	assert_series(max, U64S(0, 20, 25), 3);
	CU_ASSERT_PTR_NULL(atag_timeline_site(tl, 2, NULL));
	CU_ASSERT_EQUAL(atag_timeline_peak(tl, &ts), 30);
	CU_ASSERT_EQUAL(ts, 115);
	CU_ASSERT_EQUAL(atag_timeline_site_at_peak(tl, 0), 10);
	CU_ASSERT_EQUAL(atag_timeline_site_at_peak(tl, 1), 20);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 0), 10);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 1), 20);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 2), 0);
	atag_timeline_free(tl);
}

static void test_doubling(void)
{
	struct atag_timeline *tl = atag_timeline_alloc(4, 10);
	const uint64_t *live, *max;
	uint64_t ts;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 0, 0, 0, 1), 0);	/* width 10: b0 */
	/* 45 / 10 = 4 is past b3: width 20, 45 / 20 = b2 */
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 45, 1, 1, 2), 0);
	/*
	 * 170 / 20 = 8: width 40 (b0 = old b0 + b1 holds the 1, b1 = old b2 + b3
	 * the 2), 170 / 40 = 4 still past: width 80 (b0 holds both), 170 / 80 = b2
	 */
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 170, 0, 0, 4), 0);
	atag_timeline_finish(tl);
	CU_ASSERT_EQUAL(atag_timeline_width(tl), 80);
	CU_ASSERT_EQUAL(atag_timeline_nr_buckets(tl), 3);
	live = atag_timeline_total(tl, &max);
	assert_series(live, U64S(3, 3, 7), 3);
	assert_series(max, U64S(3, 3, 7), 3);
	live = atag_timeline_site(tl, 0, &max);
	assert_series(live, U64S(1, 1, 5), 3);
	assert_series(max, U64S(1, 1, 5), 3);
	live = atag_timeline_site(tl, 1, &max);
	assert_series(live, U64S(2, 2, 2), 3);
	CU_ASSERT_EQUAL(atag_timeline_peak(tl, &ts), 7);
	CU_ASSERT_EQUAL(ts, 170);
	atag_timeline_free(tl);

	/* an odd number of buckets: the last one merges alone */
	tl = atag_timeline_alloc(3, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 0, 0, 0, 1), 0);	/* b0 */
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 2, 0, 0, 2), 0);	/* b2: 3 */
	/* 3 is past b2: width 2, b0 = 0 + 1, b1 = old b2; 3 / 2 = b1: 7 */
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 3, 0, 0, 4), 0);
	atag_timeline_finish(tl);
	CU_ASSERT_EQUAL(atag_timeline_width(tl), 2);
	CU_ASSERT_EQUAL(atag_timeline_nr_buckets(tl), 2);
	live = atag_timeline_total(tl, &max);
	assert_series(live, U64S(1, 7), 2);
	assert_series(max, U64S(1, 7), 2);
	atag_timeline_free(tl);
}

static void test_before_start(void)
{
	struct atag_timeline *tl = atag_timeline_alloc(4, 10);
	const uint64_t *live;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 50, 0, 0, 8), 0);
	/* committed late, stamped before the first change: counts in b0 */
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 20, 1, 1, 4), 0);
	CU_ASSERT_EQUAL(atag_timeline_change(tl, 65, 1, 1, -4), 0);	/* b1 */
	atag_timeline_finish(tl);
	live = atag_timeline_total(tl, NULL);
	assert_series(live, U64S(12, 8), 2);
	CU_ASSERT_EQUAL(atag_timeline_start(tl), 50);
	atag_timeline_free(tl);
	CU_ASSERT_PTR_NULL(atag_timeline_alloc(1, 10));
	CU_ASSERT_PTR_NULL(atag_timeline_alloc(4, 0));
}

/* The lazy snapshots: what each site and stack held at the peak, after later changes. */
static void test_peak_composition(void)
{
	struct atag_timeline *tl = atag_timeline_alloc(8, 1);
	uint64_t ts;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	atag_timeline_change(tl, 0, 0, 0, 100);		/* A: total 100, peak */
	atag_timeline_change(tl, 1, 1, 1, 50);		/* B: 150, peak */
	atag_timeline_change(tl, 2, 0, 0, -100);	/* A freed: 50 */
	atag_timeline_change(tl, 3, 2, 2, 80);		/* C: 130, below the peak */
	atag_timeline_change(tl, 4, 1, 3, 10);		/* B, other stack: 140 */
	CU_ASSERT_EQUAL(atag_timeline_peak(tl, &ts), 150);
	CU_ASSERT_EQUAL(ts, 1);
	CU_ASSERT_EQUAL(atag_timeline_site_at_peak(tl, 0), 100);
	CU_ASSERT_EQUAL(atag_timeline_site_at_peak(tl, 1), 50);
	CU_ASSERT_EQUAL(atag_timeline_site_at_peak(tl, 2), 0);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 0), 100);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 1), 50);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 2), 0);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 3), 0);
	/* C again: 170, a new peak made of B's 60 and C's 110 */
	atag_timeline_change(tl, 5, 2, 2, 30);
	atag_timeline_change(tl, 6, 2, 2, -110);	/* after it: ignored */
	atag_timeline_change(tl, 7, 0, 0, 5);
	CU_ASSERT_EQUAL(atag_timeline_peak(tl, &ts), 170);
	CU_ASSERT_EQUAL(ts, 5);
	CU_ASSERT_EQUAL(atag_timeline_site_at_peak(tl, 0), 0);
	CU_ASSERT_EQUAL(atag_timeline_site_at_peak(tl, 1), 60);
	CU_ASSERT_EQUAL(atag_timeline_site_at_peak(tl, 2), 110);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 0), 0);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 1), 50);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 2), 110);
	CU_ASSERT_EQUAL(atag_timeline_stack_at_peak(tl, 3), 10);
	atag_timeline_free(tl);
}

/* A million changes on two sites: the buckets stay as many, the width covers them. */
static void test_bounded(void)
{
	struct atag_timeline *tl = atag_timeline_alloc(100, 1000);
	const uint64_t *live;
	uint64_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	for (i = 0; i < 1000000; i++)
		atag_timeline_change(tl, i * 1000, i & 1, i & 1, (i & 2) ? -1 : 1);
	atag_timeline_finish(tl);
	/* 1e9 ns over 100 buckets: 1000 * 2^k >= 1e7, k = 14 */
	CU_ASSERT_EQUAL(atag_timeline_width(tl), 1000ULL << 14);
	CU_ASSERT(atag_timeline_nr_buckets(tl) > 50 && atag_timeline_nr_buckets(tl) <= 100);
	CU_ASSERT_EQUAL(atag_timeline_nr_sites(tl), 2);
	/* +1 +1 -1 -1 per 4 changes: 0 at the end, 2 at the peak */
	live = atag_timeline_total(tl, NULL);
	CU_ASSERT_EQUAL(live[atag_timeline_nr_buckets(tl) - 1], 0);
	CU_ASSERT_EQUAL(atag_timeline_peak(tl, NULL), 2);
	atag_timeline_free(tl);
}

/* Through the stitcher: allocations, a free, a replacement, each at its own time. */
static void test_stitched(void)
{
	struct atag_aggr *aggr = atag_aggr_alloc();
	struct atag_stacks *stacks = atag_stacks_alloc();
	struct atag_stitcher *st;
	struct atag_timeline *tl;
	const uint64_t *live;
	struct atag_event e = { .kind = ATAG_EV_ALLOC, .type = 2, .pid = 5, .function = "fn",
				.file = "f.c", .line = 1, .module = "NONE" };
	uint64_t ts;

	CU_ASSERT_EQUAL_FATAL(atag_aggr_keep_timeline(aggr, 10), 0);
	st = atag_stitcher_alloc(aggr, stacks);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	/* 1 us buckets from 1000 ns */
	e.ts = 1000; e.tag = 0xa; e.ptr = 0x100; e.bytes = 64;
	CU_ASSERT_EQUAL(atag_stitch_event(st, &e), 0);		/* b0: a 64 */
	e.ts = 2500; e.tag = 0xb; e.ptr = 0x200; e.bytes = 32;
	CU_ASSERT_EQUAL(atag_stitch_event(st, &e), 0);		/* b1: b 32, total 96 */
	e.ts = 3100; e.kind = ATAG_EV_FREE; e.ptr = 0x100; e.bytes = 64;
	CU_ASSERT_EQUAL(atag_stitch_event(st, &e), 0);		/* b2: a 0 */
	/* the free of 0x200 was missed: replaced (b 0), then b 16 */
	e.ts = 4000; e.kind = ATAG_EV_ALLOC; e.tag = 0xb; e.ptr = 0x200; e.bytes = 16;
	CU_ASSERT_EQUAL(atag_stitch_event(st, &e), 0);		/* b3 */
	CU_ASSERT_EQUAL(atag_stitch_finish(st), 0);
	tl = atag_aggr_timeline(aggr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tl);
	atag_timeline_finish(tl);
	CU_ASSERT_EQUAL(atag_timeline_nr_buckets(tl), 4);
	assert_series(atag_timeline_total(tl, NULL), U64S(64, 96, 32, 16), 4);
	live = atag_timeline_site(tl, 0, NULL);		/* tag 0xa: index 0 */
	assert_series(live, U64S(64, 64, 0, 0), 4);
	live = atag_timeline_site(tl, 1, NULL);
	assert_series(live, U64S(0, 32, 32, 16), 4);
	CU_ASSERT_EQUAL(atag_timeline_peak(tl, &ts), 96);
	CU_ASSERT_EQUAL(ts, 2500);
	CU_ASSERT_EQUAL(atag_timeline_site_at_peak(tl, 0), 64);
	CU_ASSERT_EQUAL(atag_timeline_site_at_peak(tl, 1), 32);
	atag_stitcher_free(st);
	atag_stacks_free(stacks);
	atag_aggr_free(aggr);
}

static void add_tests(void)
{
	CU_pSuite s = CU_add_suite("timeline", NULL, NULL);

	CU_add_test(s, "buckets: live at the end, the most inside", test_buckets);
	CU_add_test(s, "the width doubles, buckets merge in pairs", test_doubling);
	CU_add_test(s, "a change before the start counts in the first bucket",
		    test_before_start);
	CU_add_test(s, "the peak's sites and stacks by lazy snapshots", test_peak_composition);
	CU_add_test(s, "memory bounded by buckets and sites", test_bounded);
	CU_add_test(s, "through the stitcher: frees and replacements at their time",
		    test_stitched);
}
ATAG_UTEST_SUITE("timeline", add_tests)
