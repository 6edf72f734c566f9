// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the stitcher on in-memory event streams: every stitching rule of
 * lib/stitch/atag-stitch.h, plus the map and lifetime histogram it stands on.
 */
#include <stdlib.h>
#include <string.h>

#include "atag-utest.h"
#include "atag-map.h"
#include "atag-marker.h"
#include "atag-recording.h"
#include "atag-stitch.h"

enum { T_HIT = 1, T_ALLOCED, T_FREED, T_KMALLOC, T_KFREE, T_OTHER };

#define TAG1	0xffffffff82000000ULL
#define TAG2	0xffffffff82000040ULL

/* What the reader side resolves before events reach the stitcher. */
struct reader_side {
	uint64_t	(*site)(const uint64_t *frames, unsigned int nr);	/* of a stack */
	bool		(*selected)(int pid);		/* the task filter */
};

struct run {
	struct atag_aggr		*aggr;
	struct atag_stacks		*stacks;
	struct atag_stitcher		*st;
	const struct reader_side	*rs;
	uint64_t			ts;
	uint8_t				src;	/* of the next events */
	uint8_t				task;	/* enum atag_task of the next events */
};

static uint64_t page_tag(const uint64_t *frames, unsigned int nr)
{
	unsigned int i;

	/* pretend frames below 0x1000 are the page allocator */
	for (i = 0; i < nr; i++)
		if (frames[i] >= 0x1000)
			return frames[i];
	return 0;
}

static bool not_pid_7(int pid)
{
	return pid != 7;
}

static void run_init(struct run *r, const struct reader_side *rs)
{
	memset(r, 0, sizeof(*r));
	r->aggr = atag_aggr_alloc();
	r->stacks = atag_stacks_alloc();
	r->st = atag_stitcher_alloc(r->aggr, r->stacks);
	r->rs = rs;
	r->ts = 1000;
}

static void run_free(struct run *r)
{
	atag_stitcher_free(r->st);
	atag_stacks_free(r->stacks);
	atag_aggr_free(r->aggr);
}

static void ev(struct run *r, enum atag_event_kind kind, int type, int cpu, int pid,
	       uint64_t tag, uint64_t ptr, uint64_t bytes, bool follows)
{
	struct atag_event e = {
		.kind = kind, .type = type, .cpu = cpu, .pid = pid, .ts = r->ts += 10,
		.tag = tag, .ptr = ptr, .bytes = bytes, .stack_follows = follows,
		.function = "fn", .file = "f.c", .line = 1, .module = "NONE",
		.filtered = r->rs && r->rs->selected && !r->rs->selected(pid),
		.src = r->src, .task = r->task,
	};

	CU_ASSERT_EQUAL(atag_stitch_event(r->st, &e), 0);
}

#define HIT(r, cpu, pid, tag)		ev(r, ATAG_EV_HIT, T_HIT, cpu, pid, tag, 0, 0, false)
#define ALLOC(r, cpu, pid, tag, p, b)	ev(r, ATAG_EV_ALLOC, T_ALLOCED, cpu, pid, tag, p, b, false)
#define FREE(r, cpu, pid, tag, p, b)	ev(r, ATAG_EV_FREE, T_FREED, cpu, pid, tag, p, b, false)
#define KMALLOC(r, cpu, pid, site, p, b) ev(r, ATAG_EV_ALLOC, T_KMALLOC, cpu, pid, site, p, b, true)
#define KFREE(r, cpu, pid, site, p)	ev(r, ATAG_EV_FREE, T_KFREE, cpu, pid, site, p, 0, false)

static void stack_of_type(struct run *r, int cpu, int pid, int type, uint64_t a, uint64_t b)
{
	uint64_t frames[2] = { a, b };
	struct atag_kstack ks = {
		.cpu = cpu, .pid = pid, .type = type, .frames = frames, .nr = 2,
		.site = r->rs && r->rs->site ? r->rs->site(frames, 2) : 0,
	};

	r->ts += 1;
	ks.ts = r->ts;
	CU_ASSERT_EQUAL(atag_stitch_stack(r->st, &ks), 0);
}

static void stack(struct run *r, int cpu, int pid, uint64_t a, uint64_t b)
{
	stack_of_type(r, cpu, pid, -1, a, b);
}

static const struct atag_tag_stats *tag(struct run *r, uint64_t t)
{
	size_t i;

	for (i = 0; i < atag_aggr_nr_tags(r->aggr); i++)
		if (atag_aggr_tag(r->aggr, i)->tag == t)
			return atag_aggr_tag(r->aggr, i);
	return NULL;
}

/* The first frame of the stack the allocations of @t were counted under (0: empty). */
static uint64_t stack_of(struct run *r, uint64_t t, uint64_t *allocs)
{
	const struct atag_stack_stats *s;
	const uint64_t *f;
	unsigned int nr;
	size_t i;

	for (i = 0; i < atag_aggr_nr_stacks(r->aggr); i++) {
		s = atag_aggr_stack(r->aggr, i);
		if (atag_aggr_tag(r->aggr, s->tag_idx)->tag != t || !s->counts.allocs)
			continue;
		if (allocs)
			*allocs = s->counts.allocs;
		f = atag_stacks_get(r->stacks, s->stack_id, &nr);
		return nr ? f[0] : 0;
	}
	return ~0ULL;
}

/* The allocations and frees of @t counted under the stacks whose first frame is @frame. */
static struct atag_counters counts_with(struct run *r, uint64_t t, uint64_t frame)
{
	struct atag_counters n = { 0 };
	const struct atag_stack_stats *s;
	const uint64_t *f;
	unsigned int nr;
	size_t i;

	for (i = 0; i < atag_aggr_nr_stacks(r->aggr); i++) {
		s = atag_aggr_stack(r->aggr, i);
		if (atag_aggr_tag(r->aggr, s->tag_idx)->tag != t)
			continue;
		f = atag_stacks_get(r->stacks, s->stack_id, &nr);
		if ((nr ? f[0] : 0) == frame) {
			n.allocs += s->counts.allocs;
			n.frees += s->counts.frees;
		}
	}
	return n;
}

static uint64_t allocs_with(struct run *r, uint64_t t, uint64_t frame)
{
	return counts_with(r, t, frame).allocs;
}

/* A stack whose producer named its frames by @key (struct atag_kstack.key). */
static void keyed_stack(struct run *r, int cpu, int pid, uint32_t key, uint64_t a, uint64_t b)
{
	uint64_t frames[2] = { a, b };
	struct atag_kstack ks = {
		.cpu = cpu, .pid = pid, .type = -1, .frames = frames, .nr = 2, .key = key,
		.ts = ++r->ts,
	};

	CU_ASSERT_EQUAL(atag_stitch_stack(r->st, &ks), 0);
	frames[0] = frames[1] = 0xdead;		/* the stitcher kept a copy, not the pointer */
}

/*
 * Keyed stacks are interned once per key, under the id interning gives their
 * frames: a later stack of the key, or the same frames without a key, count
 * under that one stack.
 */
static void test_keyed_stacks(void)
{
	uint64_t allocs = 0;
	struct run r;

	run_init(&r, NULL);
	HIT(&r, 0, 5, TAG1);
	keyed_stack(&r, 0, 5, 7, 0xa1, 0xa2);
	ALLOC(&r, 0, 5, TAG1, 0x100, 64);
	HIT(&r, 1, 6, TAG1);
	keyed_stack(&r, 1, 6, 7, 0xa1, 0xa2);
	ALLOC(&r, 1, 6, TAG1, 0x200, 64);
	HIT(&r, 0, 8, TAG1);
	stack(&r, 0, 8, 0xa1, 0xa2);			/* no key: interned, the same id */
	ALLOC(&r, 0, 8, TAG1, 0x300, 64);
	HIT(&r, 1, 9, TAG2);
	keyed_stack(&r, 1, 9, 3000, 0xb1, 0xb2);	/* a key past the first table */
	ALLOC(&r, 1, 9, TAG2, 0x400, 64);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(stack_of(&r, TAG1, &allocs), 0xa1);
	CU_ASSERT_EQUAL(allocs, 3);
	CU_ASSERT_EQUAL(stack_of(&r, TAG2, NULL), 0xb1);
	CU_ASSERT_EQUAL(atag_stacks_count(r.stacks), 3);	/* empty, a1 a2, b1 b2 */
	run_free(&r);
}

/* A key met before, alone (frames NULL): as the pipe hands it on. */
static int key_alone(struct run *r, int cpu, int pid, uint32_t key)
{
	struct atag_kstack ks = { .cpu = cpu, .pid = pid, .type = -1, .key = key, .ts = ++r->ts };

	return atag_stitch_stack(r->st, &ks);
}

/*
 * A key that came with its frames counts under them when it comes alone, even
 * when its first stack had no owner (an orphan: no hit before it); a key alone
 * that never came with frames is an error, not a stack made up.
 */
static void test_key_alone(void)
{
	uint64_t allocs = 0;
	struct run r;

	run_init(&r, NULL);
	keyed_stack(&r, 0, 5, 4, 0xa1, 0xa2);		/* an orphan */
	HIT(&r, 0, 5, TAG1);
	CU_ASSERT_EQUAL(key_alone(&r, 0, 5, 4), 0);
	ALLOC(&r, 0, 5, TAG1, 0x100, 64);
	HIT(&r, 1, 6, TAG1);
	keyed_stack(&r, 1, 6, 9, 0xb1, 0xb2);
	ALLOC(&r, 1, 6, TAG1, 0x200, 64);
	HIT(&r, 1, 6, TAG2);
	CU_ASSERT_EQUAL(key_alone(&r, 1, 6, 9), 0);
	ALLOC(&r, 1, 6, TAG2, 0x300, 64);
	HIT(&r, 0, 7, TAG2);
	CU_ASSERT_EQUAL(key_alone(&r, 0, 7, 5), -EPROTO);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG1, 0xa1), 1);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG1, 0xb1), 1);
	CU_ASSERT_EQUAL(stack_of(&r, TAG2, &allocs), 0xb1);
	CU_ASSERT_EQUAL(allocs, 1);
	run_free(&r);
}

/*
 * Frames their producer keeps (struct atag_kstack.kept) are pointed to by a
 * table told it may (atag_stacks_borrow_kept()), copied by any other, and frames
 * not kept are always copied; copies stay where they are while the table grows
 * past its first blocks, and a stack is found again whichever way it came.
 */
static void test_kept_frames(void)
{
	static uint64_t kept[3] = { 0xc1, 0xc2, 0xc3 };
	uint64_t other[2] = { 0xd1, 0xd2 }, many[2];
	struct atag_kstack ks = {
		.cpu = 0, .pid = 5, .type = -1, .frames = kept, .nr = 3, .kept = true, .key = 1,
	};
	const uint64_t *f, *first;
	unsigned int nr, i, wrong = 0;
	struct atag_stacks *s;
	struct run r;
	int64_t id;

	run_init(&r, NULL);
	atag_stacks_borrow_kept(r.stacks);
	HIT(&r, 0, 5, TAG1);
	ks.ts = ++r.ts;
	CU_ASSERT_EQUAL(atag_stitch_stack(r.st, &ks), 0);
	ALLOC(&r, 0, 5, TAG1, 0x100, 64);
	HIT(&r, 0, 5, TAG2);
	keyed_stack(&r, 0, 5, 2, 0xd1, 0xd2);		/* not kept: copied */
	ALLOC(&r, 0, 5, TAG2, 0x200, 64);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_PTR_EQUAL(atag_stacks_get(r.stacks, 1, &nr), kept);
	CU_ASSERT_EQUAL(nr, 3);
	f = atag_stacks_get(r.stacks, 2, &nr);
	CU_ASSERT_EQUAL_FATAL(nr, 2);
	CU_ASSERT_EQUAL(f[0], 0xd1);
	CU_ASSERT_EQUAL(stack_of(&r, TAG1, NULL), 0xc1);
	CU_ASSERT_EQUAL(stack_of(&r, TAG2, NULL), 0xd1);
	run_free(&r);

	/* a table not told so copies kept frames too */
	s = atag_stacks_alloc();
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(atag_stacks_intern_kept(s, kept, 3, true), 1);
	first = atag_stacks_get(s, 1, &nr);
	CU_ASSERT(first != kept);
	CU_ASSERT_EQUAL(atag_stacks_intern_kept(s, other, 2, false), 2);
	/* 20 000 more, past the first blocks: the first copy stays put, all found again */
	for (i = 0; i < 20000; i++) {
		many[0] = 0xe0000 + i;
		many[1] = i;
		wrong += atag_stacks_intern_kept(s, many, 2, i & 1) != 3 + i;
	}
	for (i = 0; i < 20000; i++) {
		many[0] = 0xe0000 + i;
		many[1] = i;
		wrong += atag_stacks_intern(s, many, 2) != 3 + i;
		f = atag_stacks_get(s, 3 + i, &nr);
		wrong += nr != 2 || f == many || f[0] != many[0] || f[1] != many[1];
	}
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT_PTR_EQUAL(atag_stacks_get(s, 1, &nr), first);
	CU_ASSERT_EQUAL(memcmp(first, kept, sizeof(kept)), 0);
	CU_ASSERT_EQUAL(atag_stacks_intern(s, kept, 3), 1);
	CU_ASSERT_EQUAL(atag_stacks_count(s), 20003);
	/* with leave to borrow: the kept frames themselves, once */
	atag_stacks_free(s);
	s = atag_stacks_alloc();
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	atag_stacks_borrow_kept(s);
	CU_ASSERT_EQUAL(atag_stacks_intern_kept(s, other, 2, false), 1);
	CU_ASSERT(atag_stacks_get(s, 1, &nr) != other);
	id = atag_stacks_intern_kept(s, kept, 3, true);
	CU_ASSERT_EQUAL(id, 2);
	CU_ASSERT_PTR_EQUAL(atag_stacks_get(s, 2, &nr), kept);
	CU_ASSERT_EQUAL(atag_stacks_intern_kept(s, (uint64_t[]){ 0xc1, 0xc2, 0xc3 }, 3, false), 2);
	atag_stacks_free(s);
}

/*
 * The look-ahead's prefetching: wanted once the pairs pass 2 MiB (30 000 pairs
 * of 88 bytes), not before; any key, source, pointer or stage, known or not, is
 * taken without harm and changes no count.
 */
static void test_prefetch(void)
{
	static const uint64_t ptrs[] = { 0, 0x1000, 0x1040, 0x999, ~0ULL };
	static const uint32_t keys[] = { 0, 1, 2, 29999, 30000, 30001, ~0U };
	unsigned int i, j, k, stage, wrong = 0;
	struct atag_counters n;
	struct run r;

	run_init(&r, NULL);
	for (i = 0; i < 30000; i++) {
		HIT(&r, 0, 5, TAG1);
		keyed_stack(&r, 0, 5, i + 1, 0xa0000 + i, 0xb0000);
		ALLOC(&r, 0, 5, TAG1, 0x1000 + i * 64, 64);
		if (i == 100)
			CU_ASSERT(!atag_stitch_wants_prefetch(r.st));
	}
	CU_ASSERT(atag_stitch_wants_prefetch(r.st));
	for (stage = 0; stage < 4; stage++)
		for (i = 0; i < 5 * 7 * 4; i++) {
			j = i / 4 % 7;
			k = i % 4 * 100;
			atag_stitch_prefetch(r.st, stage, k, ptrs[i / 28], keys[j]);
		}
	FREE(&r, 1, 5, TAG1, 0x1040, 64);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(atag_aggr_nr_stacks(r.aggr), 30000);
	for (i = 0; i <= 20; i++) {	/* each look-up walks all pairs: a few suffice */
		n = counts_with(&r, TAG1, 0xa0000 + i);
		wrong += n.allocs != 1 || n.frees != (i == 1);
	}
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT_EQUAL(tag(&r, TAG1)->counts.allocs, 30000);
	CU_ASSERT_EQUAL(tag(&r, TAG1)->counts.frees, 1);
	run_free(&r);
}

/*
 * One stack under two call sites counts as two (site, stack) pairs, whichever
 * came first; and 3 000 distinct stacks of one site (past the first table of
 * stacks the aggregates index) each count their own allocation and free.
 */
static void test_stack_pairs(void)
{
	const struct atag_stack_stats *s;
	uint64_t i, bad = 0;
	const uint64_t *f;
	unsigned int nr;
	struct run r;

	run_init(&r, NULL);
	for (i = 0; i < 4; i++) {
		HIT(&r, 0, 5, i % 2 ? TAG2 : TAG1);
		stack(&r, 0, 5, 0xa1, 0xa2);
		ALLOC(&r, 0, 5, i % 2 ? TAG2 : TAG1, 0x100 + i * 0x100, 64);
	}
	FREE(&r, 0, 5, TAG2, 0x200, 64);
	FREE(&r, 0, 5, TAG1, 0x300, 64);
	FREE(&r, 0, 5, TAG2, 0x400, 64);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(atag_aggr_nr_stacks(r.aggr), 2);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG1, 0xa1), 2);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG2, 0xa1), 2);
	CU_ASSERT_EQUAL(counts_with(&r, TAG1, 0xa1).frees, 1);
	CU_ASSERT_EQUAL(counts_with(&r, TAG2, 0xa1).frees, 2);
	run_free(&r);

	run_init(&r, NULL);
	for (i = 0; i < 3000; i++) {
		HIT(&r, 0, 5, TAG1);
		stack(&r, 0, 5, 0x10000 + i, 0xa2);
		ALLOC(&r, 0, 5, TAG1, 0x100 + i * 0x100, 64);
	}
	for (i = 0; i < 3000; i += 2)
		FREE(&r, 0, 5, TAG1, 0x100 + i * 0x100, 64);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(atag_aggr_nr_stacks(r.aggr), 3000);
	for (i = 0; i < atag_aggr_nr_stacks(r.aggr); i++) {
		s = atag_aggr_stack(r.aggr, i);
		f = atag_stacks_get(r.stacks, s->stack_id, &nr);
		/* stack 0x10000 + k: its one allocation, freed if k is even */
		bad += nr != 2 || f[0] - 0x10000 != i || s->counts.allocs != 1 ||
		       s->counts.frees != !(i % 2);
	}
	CU_ASSERT_EQUAL(bad, 0);
	run_free(&r);
}

static void test_basic_lifetime(void)
{
	const struct atag_totals *tot;
	const struct atag_tag_stats *t;
	struct run r;

	run_init(&r, NULL);
	HIT(&r, 0, 5, TAG1);
	stack(&r, 0, 5, 0xa1, 0xa2);
	ALLOC(&r, 0, 5, TAG1, 0x100, 64);		/* ts 1021 */
	r.ts += 1000;
	FREE(&r, 1, 9, TAG1, 0x100, 64);		/* ts 2031 */
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	t = tag(&r, TAG1);
	CU_ASSERT_FATAL(t != NULL);
	CU_ASSERT_EQUAL(t->counts.allocs, 1);
	CU_ASSERT_EQUAL(t->counts.frees, 1);
	CU_ASSERT_EQUAL(t->counts.live, 0);
	CU_ASSERT_EQUAL(t->counts.bytes_alloced, 64);
	CU_ASSERT_EQUAL(t->counts.bytes_freed, 64);
	CU_ASSERT_EQUAL(t->counts.peak_live_bytes, 64);
	CU_ASSERT_EQUAL(t->lifetimes.count, 1);
	CU_ASSERT_EQUAL(t->lifetimes.min, 1010);
	CU_ASSERT_STRING_EQUAL(t->function, "fn");
	CU_ASSERT_PTR_NULL(t->module);			/* "NONE" is built-in */
	CU_ASSERT_EQUAL(stack_of(&r, TAG1, NULL), 0xa1);
	tot = atag_aggr_totals(r.aggr);
	CU_ASSERT_EQUAL(tot->allocs, 1);
	CU_ASSERT_EQUAL(tot->frees, 1);
	CU_ASSERT_EQUAL(tot->matched_frees, 1);
	CU_ASSERT_EQUAL(tot->live, 0);
	run_free(&r);
}

static void test_no_stack_is_empty(void)
{
	struct run r;

	run_init(&r, NULL);
	HIT(&r, 0, 5, TAG1);
	ALLOC(&r, 0, 5, TAG1, 0x100, 64);
	CU_ASSERT_EQUAL(stack_of(&r, TAG1, NULL), 0);
	run_free(&r);
}

static void test_newer_hit_replaces(void)
{
	struct run r;

	run_init(&r, NULL);
	HIT(&r, 0, 5, TAG1);
	stack(&r, 0, 5, 0xa1, 0);
	HIT(&r, 0, 5, TAG1);			/* the first allocation failed */
	stack(&r, 0, 5, 0xb1, 0);
	ALLOC(&r, 0, 5, TAG1, 0x100, 64);
	CU_ASSERT_EQUAL(stack_of(&r, TAG1, NULL), 0xb1);
	/* a newer hit without a stack drops the untaken one */
	HIT(&r, 0, 5, TAG2);
	stack(&r, 0, 5, 0xc1, 0);
	HIT(&r, 0, 5, TAG2);
	ALLOC(&r, 0, 5, TAG2, 0x200, 64);
	CU_ASSERT_EQUAL(stack_of(&r, TAG2, NULL), 0);
	run_free(&r);
}

static void test_pid_tag_isolation(void)
{
	uint64_t n;
	struct run r;

	run_init(&r, NULL);
	HIT(&r, 0, 5, TAG1);
	stack(&r, 0, 5, 0xa1, 0);
	HIT(&r, 1, 6, TAG1);
	stack(&r, 1, 6, 0xb1, 0);
	ALLOC(&r, 1, 6, TAG1, 0x200, 8);
	ALLOC(&r, 0, 5, TAG1, 0x100, 8);
	CU_ASSERT_EQUAL(atag_aggr_nr_stacks(r.aggr), 2);
	CU_ASSERT_EQUAL(stack_of(&r, TAG1, &n), 0xb1);
	CU_ASSERT_EQUAL(n, 1);
	/* a cached stack is looked up, not taken: pid 5's next allocation has it too */
	ALLOC(&r, 0, 5, TAG1, 0x300, 8);
	CU_ASSERT_EQUAL(tag(&r, TAG1)->counts.allocs, 3);
	CU_ASSERT_EQUAL(atag_aggr_nr_stacks(r.aggr), 2);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG1, 0xa1), 2);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG1, 0xb1), 1);
	/* a pid that had no hit of the tag has no stack */
	ALLOC(&r, 0, 8, TAG1, 0x400, 8);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG1, 0), 1);
	run_free(&r);
}

/*
 * The series' "Correlating the events" (shared/seeds/001, 1/4): 1. on a hit,
 * cache the stack keyed by (pid, tag); 2. on each alloced, look it up by (pid,
 * tag) and create a record keyed by ptr with it; 3. on a freed, look the record
 * up by ptr and retire it. Nothing removes the cached stack but the next hit of
 * the pair. A vmalloc'ed thread stack is one call at alloc_thread_stack_node:
 * one hit, then its vm_struct, its pages' array and its four pages, each
 * charged to that tag. Worked by hand:
 *
 *   hit  (5, T1) + stack S1       cache (5, T1) = S1
 *   hit  (5, T2) + stack S2       cache (5, T2) = S2
 *   alloced (5, T1) x6            6 records with S1 (step 2, six times)
 *   alloced (5, T2)               S2: another tag's pair is its own
 *   freed of two of them          retired: still S1 in the aggregates
 *   hit  (5, T1), its stack lost  cache (5, T1) dropped
 *   alloced (5, T1)               no stack
 *   hit  (5, T1) + stack S3       cache (5, T1) = S3
 *   alloced (5, T1) x2            S3
 *   alloced (5, T2)               still S2: no hit of (5, T2) since
 *
 * T1: 9 allocations, 6 under S1, 1 without a stack, 2 under S3; T2: 2 under S2.
 */
static void test_hit_stack_not_consumed(void)
{
	uint64_t i;
	struct run r;

	run_init(&r, NULL);
	HIT(&r, 0, 5, TAG1);
	stack(&r, 0, 5, 0xa1, 0xa2);
	HIT(&r, 0, 5, TAG2);
	stack(&r, 0, 5, 0xb1, 0xb2);
	for (i = 0; i < 6; i++)
		ALLOC(&r, i % 2, 5, TAG1, 0x1000 + i * 0x40, i ? 4096 : 64);
	ALLOC(&r, 1, 5, TAG2, 0x2000, 128);
	FREE(&r, 1, 9, TAG1, 0x1000, 64);
	FREE(&r, 0, 9, TAG1, 0x1040, 4096);
	HIT(&r, 1, 5, TAG1);
	CU_ASSERT_EQUAL(atag_stitch_missed(r.st, 1), 0);	/* its stack was lost */
	ALLOC(&r, 1, 5, TAG1, 0x3000, 64);
	HIT(&r, 0, 5, TAG1);
	stack(&r, 0, 5, 0xc1, 0xc2);
	ALLOC(&r, 0, 5, TAG1, 0x3040, 64);
	ALLOC(&r, 1, 5, TAG1, 0x3080, 64);
	ALLOC(&r, 0, 5, TAG2, 0x2040, 128);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(tag(&r, TAG1)->counts.allocs, 9);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG1, 0xa1), 6);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG1, 0), 1);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG1, 0xc1), 2);
	CU_ASSERT_EQUAL(tag(&r, TAG2)->counts.allocs, 2);
	CU_ASSERT_EQUAL(allocs_with(&r, TAG2, 0xb1), 2);
	CU_ASSERT_EQUAL(tag(&r, TAG1)->counts.live, 7);
	CU_ASSERT_EQUAL(atag_aggr_nr_stacks(r.aggr), 4);
	CU_ASSERT_EQUAL(atag_stitch_orphan_stacks(r.st), 0);
	run_free(&r);
}

static void test_interrupt_nesting(void)
{
	struct run r;

	run_init(&r, NULL);
	HIT(&r, 0, 5, TAG1);			/* task context */
	HIT(&r, 0, 5, TAG2);			/* an interrupt on the same CPU */
	stack(&r, 0, 5, 0xb1, 0);		/* the interrupt's stack */
	stack(&r, 0, 5, 0xa1, 0);		/* then the task's */
	ALLOC(&r, 0, 5, TAG2, 0x200, 8);
	ALLOC(&r, 0, 5, TAG1, 0x100, 8);
	CU_ASSERT_EQUAL(stack_of(&r, TAG1, NULL), 0xa1);
	CU_ASSERT_EQUAL(stack_of(&r, TAG2, NULL), 0xb1);
	CU_ASSERT_EQUAL(atag_stitch_orphan_stacks(r.st), 0);
	run_free(&r);
}

static void test_stack_names_its_event(void)
{
	struct run r;

	run_init(&r, NULL);
	/* the interrupt's alloced comes between the task's hit and its stack */
	HIT(&r, 0, 5, TAG1);
	HIT(&r, 0, 5, TAG2);
	stack_of_type(&r, 0, 5, T_HIT, 0xb1, 0);
	ALLOC(&r, 0, 5, TAG2, 0x200, 8);
	stack_of_type(&r, 0, 5, T_HIT, 0xa1, 0);	/* named: the hit's, not the alloced's */
	ALLOC(&r, 0, 5, TAG1, 0x100, 8);
	CU_ASSERT_EQUAL(stack_of(&r, TAG1, NULL), 0xa1);
	CU_ASSERT_EQUAL(stack_of(&r, TAG2, NULL), 0xb1);
	run_free(&r);
}

static void test_replaced(void)
{
	const struct atag_tag_stats *t;
	struct run r;

	run_init(&r, NULL);
	ALLOC(&r, 0, 5, TAG1, 0x100, 64);
	ALLOC(&r, 1, 5, TAG1, 0x100, 32);	/* the free of the first was missed */
	t = tag(&r, TAG1);
	CU_ASSERT_EQUAL(t->counts.allocs, 2);
	CU_ASSERT_EQUAL(t->counts.replaced, 1);
	CU_ASSERT_EQUAL(t->counts.frees, 0);
	CU_ASSERT_EQUAL(t->counts.live, 1);
	CU_ASSERT_EQUAL(t->counts.live_bytes, 32);
	CU_ASSERT_EQUAL(t->lifetimes.count, 0);
	CU_ASSERT_EQUAL(atag_aggr_totals(r.aggr)->replaced, 1);
	run_free(&r);
}

static void test_unmatched_and_partial(void)
{
	const struct atag_totals *tot;
	const struct atag_tag_stats *t;
	struct run r;

	run_init(&r, NULL);
	FREE(&r, 0, 5, TAG2, 0x999, 128);		/* allocated before tracing */
	ALLOC(&r, 0, 5, TAG1, 0x100, 8192);
	FREE(&r, 0, 5, TAG1, 0x100, 4096);		/* a split page: fewer bytes */
	t = tag(&r, TAG2);
	CU_ASSERT_EQUAL(t->counts.unmatched_frees, 1);
	CU_ASSERT_EQUAL(t->counts.frees, 0);
	t = tag(&r, TAG1);
	CU_ASSERT_EQUAL(t->counts.frees, 1);
	CU_ASSERT_EQUAL(t->counts.partial_frees, 1);
	CU_ASSERT_EQUAL(t->counts.live, 0);
	tot = atag_aggr_totals(r.aggr);
	CU_ASSERT_EQUAL(tot->frees, 2);
	CU_ASSERT_EQUAL(tot->matched_frees, 1);
	CU_ASSERT_EQUAL(tot->unmatched_frees, 1);
	CU_ASSERT_EQUAL(tot->partial_frees, 1);
	CU_ASSERT_EQUAL(tot->bytes_freed, 128 + 4096);
	CU_ASSERT_EQUAL(tot->bytes_alloced, 8192);
	run_free(&r);
}

/*
 * A tag is marked once an allocation or free of it is not a whole number of pages;
 * whether its unmatched frees may account for live allocations follows, by source.
 */
static void test_sub_page(void)
{
	const struct atag_tag_stats *t;
	struct run r;

	run_init(&r, NULL);
	ALLOC(&r, 0, 5, TAG1, 0x100, 8192);
	FREE(&r, 0, 5, TAG1, 0x200, 4096);		/* unmatched, whole pages */
	ALLOC(&r, 0, 5, TAG2, 0x300, 4096);
	FREE(&r, 0, 5, TAG2, 0x400, 64);		/* unmatched, 64 bytes */
	ALLOC(&r, 0, 5, 0xffffffff82000080ULL, 0x500, 64);
	ALLOC(&r, 0, 5, 0xffffffff82000080ULL, 0x600, 4096);
	FREE(&r, 0, 5, 0xffffffff82000080ULL, 0x600, 4096);
	t = tag(&r, TAG1);
	CU_ASSERT_FALSE(t->sub_page);
	CU_ASSERT_TRUE(atag_counters_may_be_pages("alloc_tag", t->sub_page, &t->counts));
	CU_ASSERT_EQUAL(atag_counters_live_maybe_freed(&t->counts, true), 1);
	CU_ASSERT_FALSE(atag_counters_may_be_pages("kmem", t->sub_page, &t->counts));
	t = tag(&r, TAG2);
	CU_ASSERT_TRUE(t->sub_page);
	CU_ASSERT_FALSE(atag_counters_may_be_pages("alloc_tag", t->sub_page, &t->counts));
	CU_ASSERT_TRUE(atag_counters_may_be_pages("page", t->sub_page, &t->counts));
	CU_ASSERT_EQUAL(atag_counters_live_maybe_freed(&t->counts, false), 0);
	CU_ASSERT_TRUE(tag(&r, 0xffffffff82000080ULL)->sub_page);
	run_free(&r);
}

static void test_own_stack_follows(void)
{
	const struct atag_tag_stats *t;
	struct run r;

	run_init(&r, NULL);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 64);
	stack(&r, 0, 5, 0xa1, 0xa2);
	KFREE(&r, 1, 5, 0x6000, 0x100);		/* no size: the allocation's */
	t = tag(&r, 0x5000);
	CU_ASSERT_EQUAL(t->counts.allocs, 1);
	CU_ASSERT_EQUAL(t->counts.frees, 1);
	CU_ASSERT_EQUAL(t->counts.bytes_freed, 64);
	CU_ASSERT_EQUAL(stack_of(&r, 0x5000, NULL), 0xa1);
	CU_ASSERT_EQUAL(atag_aggr_totals(r.aggr)->bytes_freed, 64);
	run_free(&r);
}

/* An event at timestamp @ts exactly (the helpers above advance the clock). */
static void ev_at(struct run *r, uint64_t ts, enum atag_event_kind kind, int type, int cpu,
		  int pid, uint64_t site, uint64_t ptr, uint64_t bytes, bool follows)
{
	r->ts = ts - 10;
	ev(r, kind, type, cpu, pid, site, ptr, bytes, follows);
}

/*
 * Issue 12, item 10, as reported: equal timestamps across CPUs and a reused
 * slot.  CPU0 t=1000: pid 300 kmallocs P; CPU1 t=1000: pid 301 kfrees P, pid 302
 * kmallocs Q (the slot P had); CPU0 t=1001: pid 300's stack; CPU1 t=1002:
 * pid 302's stack.  P was freed before its stack came, so it has none; Q's stack
 * is pid 302's.  Comparing timestamps, Q took pid 300's stack.
 */
static void test_equal_ts_reused_slot(void)
{
	struct run r;

	run_init(&r, NULL);
	ev_at(&r, 1000, ATAG_EV_ALLOC, T_KMALLOC, 0, 300, 0x5000, 0x100, 64, true);
	ev_at(&r, 1000, ATAG_EV_FREE, T_KFREE, 1, 301, 0x6000, 0x100, 0, false);
	ev_at(&r, 1000, ATAG_EV_ALLOC, T_KMALLOC, 1, 302, 0x7000, 0x200, 32, true);
	r.ts = 1000;
	stack(&r, 0, 300, 0xa1, 0xa2);			/* t=1001 */
	r.ts = 1001;
	stack(&r, 1, 302, 0xb1, 0xb2);			/* t=1002 */
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.allocs, 1);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.frees, 1);
	CU_ASSERT_EQUAL(stack_of(&r, 0x5000, NULL), 0);
	CU_ASSERT_EQUAL(tag(&r, 0x7000)->counts.allocs, 1);
	CU_ASSERT_EQUAL(stack_of(&r, 0x7000, NULL), 0xb1);
	run_free(&r);
}

/*
 * Sampled stacks (stack_maybe): the first allocations of a type come without stacks,
 * more than would teach the stitcher that the type gets none; the stacks that come
 * later still go to their own allocations, and each allocation is counted once.
 */
static void test_sampled_never_stackless(void)
{
	struct atag_event e = {
		.kind = ATAG_EV_ALLOC, .type = T_KMALLOC, .cpu = 0, .pid = 5, .tag = 0x5000,
		.bytes = 8, .stack_follows = true, .stack_maybe = true, .line = -1,
	};
	uint64_t i, with = 0;
	struct run r;

	run_init(&r, NULL);
	for (i = 0; i < 64; i++) {
		e.ts = r.ts += 10;
		e.ptr = 0x100 + i * 8;
		CU_ASSERT_EQUAL(atag_stitch_event(r.st, &e), 0);
		/* the first 20 carry none (STACKLESS_AFTER is 4), then one in four does */
		if (i >= 20 && i % 4 == 0) {
			stack_of_type(&r, 0, 5, T_KMALLOC, 0xa1 + i, 0xa2);
			with++;
		}
	}
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.allocs, 64);
	CU_ASSERT_EQUAL(allocs_with(&r, 0x5000, 0), 64 - with);
	for (i = 20; i < 64; i += 4)
		CU_ASSERT_EQUAL(allocs_with(&r, 0x5000, 0xa1 + i), 1);
	CU_ASSERT_EQUAL(atag_stitch_orphan_stacks(r.st), 0);
	run_free(&r);
}

static void test_stackless_types_learned(void)
{
	uint64_t i;
	struct run r;

	run_init(&r, NULL);
	/* kmem events without -T: no stack ever follows */
	for (i = 0; i < 20; i++)
		KMALLOC(&r, 0, 5, 0x5000, 0x100 + i * 8, 8);
	/* all are counted, the waiting ones at the latest at the end */
	CU_ASSERT(tag(&r, 0x5000)->counts.allocs >= 20 - 16);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.allocs, 20);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.live, 20);
	CU_ASSERT_EQUAL(stack_of(&r, 0x5000, NULL), 0);
	run_free(&r);
}

static void test_T_stacks_consumed(void)
{
	struct run r;

	run_init(&r, NULL);
	/* -T: every event has a stack; only the hit's is the allocation's */
	HIT(&r, 0, 5, TAG1);
	stack(&r, 0, 5, 0xa1, 0);
	ALLOC(&r, 0, 5, TAG1, 0x100, 8);
	stack(&r, 0, 5, 0xee, 0);
	FREE(&r, 0, 5, TAG1, 0x100, 8);
	stack(&r, 0, 5, 0xff, 0);
	CU_ASSERT_EQUAL(stack_of(&r, TAG1, NULL), 0xa1);
	CU_ASSERT_EQUAL(atag_stacks_count(r.stacks), 2);	/* empty + the hit's */
	CU_ASSERT_EQUAL(atag_stitch_orphan_stacks(r.st), 0);
	run_free(&r);
}

static void test_trigger_with_irq_between(void)
{
	int i;
	struct run r;

	run_init(&r, NULL);
	/* stacktrace trigger on the hit only: alloced/freed never get stacks */
	for (i = 0; i < 6; i++) {
		HIT(&r, 0, 5, TAG1);
		stack(&r, 0, 5, 0xa1, 0);
		ALLOC(&r, 0, 5, TAG1, 0x100 + i * 8, 8);
		FREE(&r, 0, 5, TAG1, 0x100 + i * 8, 8);
	}
	/* an interrupt's alloced lands between a hit and its stack */
	HIT(&r, 0, 5, TAG2);
	ALLOC(&r, 0, 5, TAG1, 0x900, 8);
	stack(&r, 0, 5, 0xb1, 0);
	ALLOC(&r, 0, 5, TAG2, 0x800, 8);
	CU_ASSERT_EQUAL(stack_of(&r, TAG2, NULL), 0xb1);
	run_free(&r);
}

/* A "select" marker line of module @mod ("-": built-in), @file, @line, @fn. */
static void select_line(struct atag_recording *r, const char *mod, const char *file,
			const char *line, const char *fn)
{
	char text[512];

	snprintf(text, sizeof(text), ATAG_MARKER_PREFIX "v1 select\t%s\t%s\t%s\t%s\n", mod, file,
		 line, fn);
	CU_ASSERT_EQUAL(atag_recording_line(r, text, strlen(text), 1), ATAG_MARKER_SELECT);
}

/*
 * 26.3: the selected tags are looked up by key, in constant time: module, file,
 * line and function all match, a built-in tag is not one of a module's, a name
 * that could not be written ('?') matches nothing; tags are equal field by field.
 */
static void test_selected_tags(void)
{
	struct atag_recording *r = atag_recording_alloc();
	struct atag_marker_tag a = { .file = "a|b", .line = 1, .function = "c" };
	struct atag_marker_tag b = { .file = "a", .line = 1, .function = "b|c" };
	int i;

	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_FALSE(atag_recording_selects(r, "foo", "mm/foo.c", 10, NULL));
	select_line(r, "-", "mm/foo.c", "10", "foo_create");
	select_line(r, "bar", "drivers/bar.c", "20", "bar_open");
	select_line(r, "-", "?", "30", "nameless_file");
	for (i = 0; i < 1000; i++) {
		char file[32], fn[32], line[16];

		snprintf(file, sizeof(file), "f%d.c", i);
		snprintf(fn, sizeof(fn), "fn_%d", i);
		snprintf(line, sizeof(line), "%d", i);
		select_line(r, "-", file, line, fn);
	}
	CU_ASSERT_EQUAL(r->nr_selected, 1003);
	CU_ASSERT_TRUE(atag_recording_selects(r, "foo_create", "mm/foo.c", 10, NULL));
	CU_ASSERT_FALSE(atag_recording_selects(r, "foo_create", "mm/foo.c", 11, NULL));
	CU_ASSERT_FALSE(atag_recording_selects(r, "foo_create", "mm/foo.c", 10, "foo"));
	CU_ASSERT_FALSE(atag_recording_selects(r, "foo_create", "mm/foo.c", 10, ""));
	CU_ASSERT_TRUE(atag_recording_selects(r, "bar_open", "drivers/bar.c", 20, "bar"));
	CU_ASSERT_FALSE(atag_recording_selects(r, "bar_open", "drivers/bar.c", 20, NULL));
	CU_ASSERT_FALSE(atag_recording_selects(r, "nameless_file", NULL, 30, NULL));
	CU_ASSERT_FALSE(atag_recording_selects(r, NULL, "mm/foo.c", 10, NULL));
	CU_ASSERT_TRUE(atag_recording_selects(r, "fn_999", "f999.c", 999, NULL));
	CU_ASSERT_FALSE(atag_recording_selects(r, "fn_999", "f998.c", 999, NULL));
	CU_ASSERT_FALSE(atag_marker_tag_equal(&a, &b));
	b = a;
	CU_ASSERT_TRUE(atag_marker_tag_equal(&a, &b));
	CU_ASSERT_EQUAL(atag_marker_tag_hash(&a), atag_marker_tag_hash(&b));
	b.module = "";
	CU_ASSERT_FALSE(atag_marker_tag_equal(&a, &b));
	atag_recording_free(r);
}

static void test_missed_events(void)
{
	struct run r;

	run_init(&r, NULL);
	HIT(&r, 0, 5, TAG1);
	CU_ASSERT_EQUAL(atag_stitch_missed(r.st, 0), 0);
	stack(&r, 0, 5, 0xa1, 0);			/* whose? cannot say */
	ALLOC(&r, 0, 5, TAG1, 0x100, 8);
	CU_ASSERT_EQUAL(stack_of(&r, TAG1, NULL), 0);
	CU_ASSERT_EQUAL(atag_stitch_orphan_stacks(r.st), 1);
	/* a stack of another task takes nothing */
	HIT(&r, 1, 5, TAG1);
	stack(&r, 1, 6, 0xb1, 0);
	CU_ASSERT_EQUAL(atag_stitch_orphan_stacks(r.st), 2);
	run_free(&r);
}

static void test_tag_from_stack(void)
{
	struct reader_side o = { .site = page_tag };
	const struct atag_tag_stats *t;
	struct run r;

	run_init(&r, &o);
	KMALLOC(&r, 0, 5, 0, 0x42, 4096);		/* a page: no call site */
	stack(&r, 0, 5, 0x10, 0x7777);
	KFREE(&r, 0, 5, 0, 0x42);
	t = tag(&r, 0x7777);
	CU_ASSERT_FATAL(t != NULL);
	CU_ASSERT_EQUAL(t->counts.allocs, 1);
	CU_ASSERT_EQUAL(t->counts.frees, 1);
	CU_ASSERT_EQUAL(tag(&r, 0)->counts.allocs, 0);
	run_free(&r);
}

static size_t nr_live(struct run *r)
{
	size_t i = 0, n = 0;

	while (atag_stitch_live_next(r->st, &i))
		n++;
	return n;
}

/* top and leaks: no record of the tasks left out, whatever they allocate */
static void test_forget_filtered(void)
{
	struct reader_side o = { .selected = not_pid_7 };
	const struct atag_totals *tot;
	struct run r;
	int i;

	run_init(&r, &o);
	atag_stitcher_forget_filtered(r.st, true);
	for (i = 0; i < 1000; i++)
		ALLOC(&r, 0, 7, TAG1, 0x10000 + i * 64, 64);	/* task 7's: never kept */
	ALLOC(&r, 0, 5, TAG1, 0x200, 8);
	ALLOC(&r, 0, 5, TAG1, 0x300, 8);
	CU_ASSERT_EQUAL(nr_live(&r), 2);
	ALLOC(&r, 0, 7, TAG1, 0x300, 16);	/* 0x300 given out again: its free was missed */
	FREE(&r, 0, 5, TAG1, 0x10000, 64);	/* task 7's object, freed by 5: unmatched */
	FREE(&r, 0, 7, TAG1, 0x200, 8);		/* 5's, freed by 7: matched */
	tot = atag_aggr_totals(r.aggr);
	CU_ASSERT_EQUAL(tot->allocs, 2);
	CU_ASSERT_EQUAL(tot->replaced, 1);
	CU_ASSERT_EQUAL(tot->frees, 2);		/* the matched one and the unmatched one */
	CU_ASSERT_EQUAL(tot->unmatched_frees, 1);
	CU_ASSERT_EQUAL(tot->live, 0);
	CU_ASSERT_EQUAL(nr_live(&r), 0);
	run_free(&r);
}

static void test_pid_filter(void)
{
	struct reader_side o = { .selected = not_pid_7 };
	const struct atag_totals *tot;
	struct run r;

	run_init(&r, &o);
	ALLOC(&r, 0, 7, TAG1, 0x100, 8);
	ALLOC(&r, 0, 5, TAG1, 0x200, 8);
	FREE(&r, 0, 5, TAG1, 0x100, 8);		/* frees task 7's: not counted */
	FREE(&r, 0, 7, TAG1, 0x999, 8);		/* unmatched, by task 7 */
	FREE(&r, 0, 5, TAG1, 0x998, 8);		/* unmatched, by task 5 */
	tot = atag_aggr_totals(r.aggr);
	CU_ASSERT_EQUAL(tot->allocs, 1);
	CU_ASSERT_EQUAL(tot->frees, 1);
	CU_ASSERT_EQUAL(tot->unmatched_frees, 1);
	CU_ASSERT_EQUAL(tot->live, 1);
	CU_ASSERT_EQUAL(tag(&r, TAG1)->counts.live_bytes, 8);
	run_free(&r);
}

static void test_peak_live(void)
{
	struct run r;

	run_init(&r, NULL);
	ALLOC(&r, 0, 5, TAG1, 0x100, 100);
	ALLOC(&r, 0, 5, TAG1, 0x200, 200);
	FREE(&r, 0, 5, TAG1, 0x100, 100);
	ALLOC(&r, 0, 5, TAG1, 0x300, 50);
	CU_ASSERT_EQUAL(tag(&r, TAG1)->counts.peak_live_bytes, 300);
	CU_ASSERT_EQUAL(tag(&r, TAG1)->counts.live_bytes, 250);
	run_free(&r);
}

/*
 * Pids are any 32 bits a record holds: -1 first (the task cache once took it for
 * an empty entry, found by fuzzing), then pids that share its cache entry.
 */
static void test_any_pid(void)
{
	int pids[] = { -1, 63, 127, -1, 63, INT32_MIN, INT32_MAX };
	const struct atag_live *l;
	size_t iter = 0, n = 0;
	unsigned int i;
	struct run r;

	run_init(&r, NULL);
	for (i = 0; i < sizeof(pids) / sizeof(pids[0]); i++)
		ALLOC(&r, 0, pids[i], TAG1, 0x1000 + i * 64, 8);
	FREE(&r, 1, -1, TAG1, 0x1000, 8);
	while ((l = atag_stitch_live_next(r.st, &iter))) {
		CU_ASSERT_EQUAL(l->pid, pids[(l->ptr - 0x1000) / 64]);
		n++;
	}
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT_EQUAL(atag_aggr_totals(r.aggr)->live, 6);
	run_free(&r);
}

static void test_memory_bounded(void)
{
	size_t iter = 0, n = 0;
	uint64_t i;
	struct run r;

	run_init(&r, NULL);
	/* a million allocations with 100 alive at a time */
	for (i = 0; i < 1000000 / atag_utest_scale(); i++) {
		ALLOC(&r, i % 4, 5, TAG1 + (i % 3) * 64, 0x10000 + (i % 100) * 64, 8);
		if (i >= 99)
			FREE(&r, i % 4, 5, TAG1, 0x10000 + ((i + 1) % 100) * 64, 8);
	}
	while (atag_stitch_live_next(r.st, &iter))
		n++;
	CU_ASSERT_EQUAL(n, 99);
	CU_ASSERT_EQUAL(atag_aggr_totals(r.aggr)->live, 99);
	CU_ASSERT_EQUAL(atag_aggr_nr_tags(r.aggr), 3);
	run_free(&r);
}

static void test_map(void)
{
	struct atag_map m = { 0 };
	uint64_t *v, val, key;
	size_t iter = 0, n = 0;
	bool created;
	int i;

	for (i = 0; i < 10000; i++) {
		v = atag_map_get(&m, (uint64_t)i * 4096, i, &created);
		CU_ASSERT(v && created && *v == (uint64_t)i);
	}
	CU_ASSERT_EQUAL(atag_map_count(&m), 10000);
	for (i = 0; i < 10000; i += 2)
		CU_ASSERT(atag_map_remove(&m, (uint64_t)i * 4096, &val) && val == (uint64_t)i);
	CU_ASSERT(!atag_map_remove(&m, 0, NULL));
	for (i = 0; i < 10000; i++) {
		v = atag_map_find(&m, (uint64_t)i * 4096);
		CU_ASSERT(i % 2 ? v && *v == (uint64_t)i : v == NULL);
	}
	while (atag_map_next(&m, &iter, &key, &val)) {
		CU_ASSERT(key == val * 4096 && val % 2);
		n++;
	}
	CU_ASSERT_EQUAL(n, 5000);
	v = atag_map_get(&m, 4096, 7, &created);
	CU_ASSERT(v && !created && *v == 1);
	atag_map_free(&m);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_lifetime_percentiles(void)
{
	static const double pcts[] = { 1, 50, 90, 99, 99.9, 100 };
	struct atag_lifetime lt = { 0 }, half = { 0 }, merged = { 0 };
	uint64_t *vals, x = 12345, exact, got;
	size_t i, n = 20000;

	vals = malloc(n * sizeof(*vals));
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		vals[i] = (x >> 33) % (i % 3 ? 5000000 : 200);	/* exact and bucketed ranges */
		atag_lifetime_add(&lt, vals[i]);
		atag_lifetime_add(i % 2 ? &half : &merged, vals[i]);
	}
	atag_lifetime_merge(&merged, &half);
	qsort(vals, n, sizeof(*vals), cmp_u64);
	CU_ASSERT_EQUAL(lt.count, n);
	CU_ASSERT_EQUAL(lt.min, vals[0]);
	CU_ASSERT_EQUAL(lt.max, vals[n - 1]);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		size_t rank = (size_t)(pcts[i] / 100 * n + 0.999999);

		exact = vals[rank - 1];
		got = atag_lifetime_percentile(&lt, pcts[i]);
		CU_ASSERT(got >= exact - exact / 128 && got <= exact + exact / 128);
		CU_ASSERT_EQUAL(atag_lifetime_percentile(&merged, pcts[i]), got);
	}
	/* values below 128 ns are exact */
	atag_lifetime_free(&lt);
	for (i = 1; i <= 100; i++)
		atag_lifetime_add(&lt, i);
	CU_ASSERT_EQUAL(atag_lifetime_percentile(&lt, 50), 50);
	CU_ASSERT_EQUAL(atag_lifetime_percentile(&lt, 99), 99);
	CU_ASSERT_EQUAL(atag_lifetime_power_count(&lt, 6), 37);	/* 64..100 */
	CU_ASSERT_EQUAL(atag_lifetime_power_count(&lt, 0), 1);
	atag_lifetime_free(&lt);
	atag_lifetime_free(&half);
	atag_lifetime_free(&merged);
	free(vals);
}

static void test_nested(void)
{
	const struct atag_tag_stats *in, *out;
	struct run r;
	size_t iter = 0;

	run_init(&r, NULL);
	atag_stitcher_nesting(r.st, 0, true);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 32768);	/* kvmalloc's own event, ts 1010 */
	stack(&r, 0, 5, 0xa1, 0xa2);
	KMALLOC(&r, 0, 5, 0x6000, 0x100, 32768);	/* its caller's, same pointer */
	stack(&r, 0, 5, 0xb1, 0xb2);
	in = tag(&r, 0x5000);
	out = tag(&r, 0x6000);
	CU_ASSERT_EQUAL(in->counts.allocs, 0);
	CU_ASSERT_EQUAL(in->counts.live, 0);
	CU_ASSERT_EQUAL(in->counts.live_bytes, 0);
	CU_ASSERT_EQUAL(in->counts.bytes_alloced, 0);
	CU_ASSERT_EQUAL(in->counts.replaced, 0);
	CU_ASSERT_EQUAL(out->counts.allocs, 1);
	CU_ASSERT_EQUAL(out->counts.live, 1);
	CU_ASSERT_EQUAL(out->nested, 1);
	CU_ASSERT_EQUAL(out->counts.replaced, 0);
	CU_ASSERT_EQUAL(stack_of(&r, 0x6000, NULL), 0xb1);
	CU_ASSERT_EQUAL(stack_of(&r, 0x5000, NULL), ~0ULL);	/* no stack with allocations */
	r.ts += 1000;
	KFREE(&r, 1, 9, 0x7000, 0x100);			/* by another task: raw lifetime */
	stack(&r, 1, 9, 0xc1, 0);
	CU_ASSERT_EQUAL(out->counts.frees, 1);
	CU_ASSERT_EQUAL(out->counts.bytes_freed, 32768);
	CU_ASSERT_EQUAL(out->lifetimes.count, 1);
	/* from the inner event, the allocation itself: 1010 .. 2032 */
	CU_ASSERT_EQUAL(out->lifetimes.min, 1022);
	CU_ASSERT_EQUAL(out->inflation.other_task, 1);
	CU_ASSERT_PTR_NULL(atag_stitch_live_next(r.st, &iter));
	CU_ASSERT_EQUAL(atag_aggr_totals(r.aggr)->allocs, 1);
	run_free(&r);
}

static void test_nested_conditions(void)
{
	struct run r;

	/* another CPU */
	run_init(&r, NULL);
	atag_stitcher_nesting(r.st, 0, true);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 64);
	KMALLOC(&r, 1, 5, 0x6000, 0x100, 64);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.replaced, 1);
	CU_ASSERT_EQUAL(tag(&r, 0x6000)->nested, 0);
	run_free(&r);
	/* another task */
	run_init(&r, NULL);
	atag_stitcher_nesting(r.st, 0, true);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 64);
	KMALLOC(&r, 0, 6, 0x6000, 0x100, 64);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.replaced, 1);
	run_free(&r);
	/* an allocation of the task in between */
	run_init(&r, NULL);
	atag_stitcher_nesting(r.st, 0, true);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 64);
	KMALLOC(&r, 0, 5, 0x5000, 0x200, 64);
	KMALLOC(&r, 0, 5, 0x6000, 0x100, 64);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.replaced, 1);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.allocs, 2);
	run_free(&r);
	/* a source whose allocations do not nest (alloc_tag, pages): a replace */
	run_init(&r, NULL);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 64);
	KMALLOC(&r, 0, 5, 0x6000, 0x100, 64);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.replaced, 1);
	CU_ASSERT_EQUAL(tag(&r, 0x6000)->nested, 0);
	CU_ASSERT_EQUAL(tag(&r, 0x6000)->counts.allocs, 1);
	run_free(&r);
	/* a free of the task in between (of another pointer) */
	run_init(&r, NULL);
	atag_stitcher_nesting(r.st, 0, true);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 64);
	KFREE(&r, 0, 5, 0x5000, 0x900);
	KMALLOC(&r, 0, 5, 0x6000, 0x100, 64);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.replaced, 1);
	run_free(&r);
	/* other tasks' events and stacks in between do not matter */
	run_init(&r, NULL);
	atag_stitcher_nesting(r.st, 0, true);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 64);
	stack(&r, 0, 5, 0xa1, 0);
	KMALLOC(&r, 1, 6, 0x5000, 0x300, 64);
	KFREE(&r, 1, 6, 0x5000, 0x300);
	KMALLOC(&r, 0, 5, 0x6000, 0x100, 64);
	stack(&r, 0, 5, 0xb1, 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.replaced, 0);
	CU_ASSERT_EQUAL(tag(&r, 0x6000)->nested, 1);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.allocs, 1);	/* task 6's */
	run_free(&r);
}

static void test_nested_peak(void)
{
	struct run r;

	run_init(&r, NULL);
	atag_stitcher_nesting(r.st, 0, true);
	KMALLOC(&r, 1, 6, 0x5000, 0x900, 100);		/* a real one of the inner site */
	stack(&r, 1, 6, 0xa1, 0);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 4096);
	stack(&r, 0, 5, 0xa1, 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.peak_live_bytes, 4196);
	KMALLOC(&r, 0, 5, 0x6000, 0x100, 4096);
	stack(&r, 0, 5, 0xb1, 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.peak_live_bytes, 100);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.live_bytes, 100);
	CU_ASSERT_EQUAL(tag(&r, 0x6000)->counts.peak_live_bytes, 4096);
	run_free(&r);
}

/* A stack recorded @cost ns after the event before it. */
static void stack_after(struct run *r, int cpu, int pid, uint64_t cost, uint64_t a)
{
	uint64_t frames[1] = { a };
	struct atag_kstack ks = { .cpu = cpu, .pid = pid, .type = -1, .frames = frames, .nr = 1 };

	r->ts += cost;
	ks.ts = r->ts;
	CU_ASSERT_EQUAL(atag_stitch_stack(r->st, &ks), 0);
}

static void observer_run(bool raw)
{
	const struct atag_captures *c0, *c1;
	const struct atag_tag_stats *t;
	struct run r;

	run_init(&r, NULL);
	atag_stitcher_raw_lifetimes(r.st, raw);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 64);		/* ts 1010 */
	stack_after(&r, 0, 5, 300, 0xa1);		/* 1310: its own capture, 300 */
	KMALLOC(&r, 1, 6, 0x5000, 0x200, 64);		/* another task's, on CPU 1 */
	stack_after(&r, 1, 6, 50, 0xa1);		/* 50: not task 5's */
	KMALLOC(&r, 0, 5, 0x6000, 0x300, 64);
	stack_after(&r, 0, 5, 200, 0xb1);		/* 200 */
	KFREE(&r, 0, 5, 0x7000, 0x100);		/* task 5 frees its first */
	KFREE(&r, 0, 5, 0x7000, 0x200);		/* and task 6's */
	t = tag(&r, 0x5000);
	CU_ASSERT_EQUAL(t->lifetimes.count, 2);
	/*
	 * 0x100: raw 1010 .. 1590 = 580; task 5 captured 500 in between. 0x200, made
	 * by task 6 and freed by task 5: raw, 1320 .. 1600 = 280, inflation unknown.
	 */
	CU_ASSERT_EQUAL(t->lifetimes.min, raw ? 280 : 80);
	CU_ASSERT_EQUAL(t->lifetimes.max, raw ? 580 : 280);
	CU_ASSERT_EQUAL(t->inflation.lifetimes, 1);
	CU_ASSERT_EQUAL(t->inflation.ns, 500);
	CU_ASSERT_EQUAL(t->inflation.other_task, 1);
	c0 = atag_stitch_captures(r.st, 0);
	c1 = atag_stitch_captures(r.st, 1);
	CU_ASSERT_FATAL(c0 && c1);
	CU_ASSERT_EQUAL(c0->stacks, 2);
	CU_ASSERT_EQUAL(c0->ns, 500);
	CU_ASSERT_EQUAL(c0->cost.min, 200);
	CU_ASSERT_EQUAL(c0->cost.max, 300);
	CU_ASSERT_EQUAL(c1->stacks, 1);
	CU_ASSERT_EQUAL(c1->ns, 50);
	CU_ASSERT_PTR_NULL(atag_stitch_captures(r.st, 2));
	/* a stack after a gap, or of another task than the record before, is not measured */
	CU_ASSERT_EQUAL(atag_stitch_missed(r.st, 1), 0);
	stack_after(&r, 1, 6, 70, 0xa1);
	KMALLOC(&r, 1, 6, 0x5000, 0x400, 64);
	stack_after(&r, 1, 7, 70, 0xa1);
	CU_ASSERT_EQUAL(atag_stitch_captures(r.st, 1)->stacks, 1);
	run_free(&r);
}

static void test_observer(void)
{
	observer_run(false);
}

static void test_observer_raw(void)
{
	observer_run(true);
}

static void window_event(struct run *r, bool open)
{
	struct atag_event e = { .kind = ATAG_EV_WINDOW, .type = T_OTHER, .pid = 1,
				.ts = r->ts += 10, .ptr = open };

	CU_ASSERT_EQUAL(atag_stitch_event(r->st, &e), 0);
}

static void test_window(void)
{
	struct reader_side o = { .selected = not_pid_7 };
	const struct atag_tag_stats *t;
	uint64_t open, close;
	struct run r;

	run_init(&r, &o);
	ALLOC(&r, 0, 5, TAG1, 0x100, 64);		/* before: not in the window */
	CU_ASSERT(!atag_stitch_window(r.st, &open, &close));
	window_event(&r, true);
	ALLOC(&r, 0, 5, TAG1, 0x200, 32);
	ALLOC(&r, 0, 7, TAG1, 0x300, 16);		/* filtered: still the kernel's */
	FREE(&r, 0, 5, TAG1, 0x100, 64);		/* made before, freed inside */
	FREE(&r, 0, 7, TAG1, 0x999, 8);		/* unmatched, filtered */
	window_event(&r, true);			/* a second start line: no matter */
	window_event(&r, false);
	ALLOC(&r, 0, 5, TAG1, 0x400, 128);		/* after */
	window_event(&r, true);			/* no second window */
	ALLOC(&r, 0, 5, TAG1, 0x500, 128);
	t = tag(&r, TAG1);
	CU_ASSERT_EQUAL(t->window.allocs, 2);
	CU_ASSERT_EQUAL(t->window.bytes_alloced, 48);
	CU_ASSERT_EQUAL(t->window.frees, 2);
	CU_ASSERT_EQUAL(t->window.bytes_freed, 72);
	CU_ASSERT_EQUAL(t->events, 7);
	CU_ASSERT(atag_stitch_window(r.st, &open, &close));
	CU_ASSERT_EQUAL(open, 1020);
	CU_ASSERT_EQUAL(close, 1080);
	run_free(&r);
}

static void test_sources(void)
{
	struct atag_aggr *page = atag_aggr_alloc();
	const struct atag_live *l;
	size_t iter = 0, n[2] = { 0, 0 };
	struct run r;

	run_init(&r, NULL);
	CU_ASSERT_EQUAL(atag_stitcher_add_source(r.st, page), 1);
	KMALLOC(&r, 0, 5, 0x5000, 0x100, 64);		/* slab object 0x100 */
	r.src = 1;
	KMALLOC(&r, 1, 5, 0x5000, 0x100, 4096);	/* page 0x100, same "call site" */
	KFREE(&r, 1, 5, 0x5000, 0x100);		/* frees the page, not the object */
	r.src = 0;
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.live, 1);
	CU_ASSERT_EQUAL(tag(&r, 0x5000)->counts.replaced, 0);
	CU_ASSERT_EQUAL(atag_aggr_nr_tags(page), 1);
	CU_ASSERT_EQUAL(atag_aggr_tag(page, 0)->counts.allocs, 1);
	CU_ASSERT_EQUAL(atag_aggr_tag(page, 0)->counts.frees, 1);
	CU_ASSERT_EQUAL(atag_aggr_tag(page, 0)->counts.bytes_freed, 4096);
	while ((l = atag_stitch_live_next(r.st, &iter)))
		n[l->src]++;
	CU_ASSERT_EQUAL(n[0], 1);
	CU_ASSERT_EQUAL(n[1], 0);
	run_free(&r);
	atag_aggr_free(page);
}

static void test_excluded(void)
{
	struct reader_side o = { .selected = not_pid_7 };
	const struct atag_counters *c;
	struct run r;

	run_init(&r, &o);
	r.task = ATAG_TASK_RECORDER;
	ALLOC(&r, 0, 7, TAG1, 0x100, 64);
	ALLOC(&r, 0, 7, TAG1, 0x200, 32);
	r.task = ATAG_TASK_WORKLOAD;
	FREE(&r, 0, 5, TAG1, 0x100, 64);		/* frees are matched whoever frees */
	ALLOC(&r, 0, 5, TAG1, 0x300, 8);
	CU_ASSERT_EQUAL(atag_stitch_finish(r.st), 0);
	c = atag_stitch_excluded(r.st, 0, ATAG_TASK_RECORDER);
	CU_ASSERT_EQUAL(c->allocs, 2);
	CU_ASSERT_EQUAL(c->bytes_alloced, 96);
	CU_ASSERT_EQUAL(c->live, 1);
	CU_ASSERT_EQUAL(c->live_bytes, 32);
	CU_ASSERT_EQUAL(atag_stitch_excluded(r.st, 0, ATAG_TASK_WORKLOAD)->allocs, 0);
	CU_ASSERT_EQUAL(tag(&r, TAG1)->counts.allocs, 1);
	CU_ASSERT_EQUAL(tag(&r, TAG1)->counts.frees, 0);
	CU_ASSERT_EQUAL(atag_stitch_excluded(r.st, 5, 0)->allocs, 0);	/* no such source */
	run_free(&r);
}

/* What the end hook was told, a line each: "how tag bytes alloc_ts ts lifetime". */
struct ends {
	struct run	*r;
	char		buf[512];
	size_t		len;
};

static int note_end(void *ctx, const struct atag_ended *e)
{
	struct ends *n = ctx;

	n->len += snprintf(n->buf + n->len, sizeof(n->buf) - n->len,
			   "%s %#llx %llu %llu %llu %llu\n",
			   e->how == ATAG_END_FREED ? "freed" : "replaced",
			   (unsigned long long)atag_aggr_tag(n->r->aggr, e->l->tag_idx)->tag,
			   (unsigned long long)e->l->bytes, (unsigned long long)e->l->ts,
			   (unsigned long long)e->ts, (unsigned long long)e->lifetime);
	return 0;
}

/*
 * The end hook: each counted allocation once, when freed (its lifetime as
 * counted) or replaced; never an allocation the task filter left out, nor the
 * inner event of a nested one; none for unmatched frees.
 */
static void test_end_hook(void)
{
	struct reader_side o = { .selected = not_pid_7 };
	struct ends n = { 0 };
	struct run r;

	run_init(&r, &o);
	n.r = &r;
	atag_stitcher_on_end(r.st, note_end, &n);
	atag_stitcher_nesting(r.st, 0, true);
	ALLOC(&r, 0, 5, TAG1, 0x100, 64);		/* 1010 */
	ALLOC(&r, 0, 7, TAG1, 0x200, 8);		/* filtered, 1020 */
	ALLOC(&r, 1, 5, TAG1, 0x100, 32);		/* 1030: replaces the first */
	FREE(&r, 0, 6, TAG1, 0x200, 8);			/* the filtered one */
	FREE(&r, 0, 6, TAG1, 0x999, 8);			/* unmatched */
	FREE(&r, 0, 6, TAG1, 0x100, 32);		/* 1060 */
	KMALLOC(&r, 0, 5, 0x5000, 0x300, 4096);		/* inner, 1070 */
	stack(&r, 0, 5, 0xa1, 0xa2);
	KMALLOC(&r, 0, 5, 0x6000, 0x300, 4096);		/* outer, 1081 */
	stack(&r, 0, 5, 0xb1, 0xb2);
	KFREE(&r, 1, 6, 0x7000, 0x300);			/* 1092 */
	/* events 10 ns apart, stacks 1 ns after their event; frees by task 6: raw */
	CU_ASSERT_STRING_EQUAL(n.buf, "replaced 0xffffffff82000000 64 1010 1030 0\n"
				      "freed 0xffffffff82000000 32 1030 1060 30\n"
				      "freed 0x6000 4096 1070 1092 22\n");
	run_free(&r);
}

static void add_tests(void)
{
	CU_pSuite s = CU_add_suite("stitch", NULL, NULL);

	CU_add_test(s, "hit, stack, alloc, free: one lifetime", test_basic_lifetime);
	CU_add_test(s, "keyed stacks: interned once per key, the same ids", test_keyed_stacks);
	CU_add_test(s, "a key alone: the frames it came with, an orphan's too", test_key_alone);
	CU_add_test(s, "kept frames pointed to where allowed, else copied", test_kept_frames);
	CU_add_test(s, "prefetching: when wanted, any input harmless", test_prefetch);
	CU_add_test(s, "no cached stack: the empty stack", test_no_stack_is_empty);
	CU_add_test(s, "a newer hit of (pid, tag) replaces an untaken stack", test_newer_hit_replaces);
	CU_add_test(s, "stacks are cached per (pid, tag), looked up, not taken",
		    test_pid_tag_isolation);
	CU_add_test(s, "one hit, several allocations of (pid, tag): the seed's correlation",
		    test_hit_stack_not_consumed);
	CU_add_test(s, "interrupts nest between an event and its stack", test_interrupt_nesting);
	CU_add_test(s, "one stack under two call sites; thousands of stacks", test_stack_pairs);
	CU_add_test(s, "a stack naming its event goes to that event", test_stack_names_its_event);
	CU_add_test(s, "alloc at a live ptr: replaced", test_replaced);
	CU_add_test(s, "unmatched and partial frees", test_unmatched_and_partial);
	CU_add_test(s, "frees and allocations under a page mark the tag", test_sub_page);
	CU_add_test(s, "kmem: the alloc's own stack follows; sizeless free", test_own_stack_follows);
	CU_add_test(s, "equal timestamps across CPUs, a reused slot: the right stack",
		    test_equal_ts_reused_slot);
	CU_add_test(s, "types never followed by a stack are learned", test_stackless_types_learned);
	CU_add_test(s, "sampled stacks: the type is never learned stackless",
		    test_sampled_never_stackless);
	CU_add_test(s, "-T: stacks of other events consumed", test_T_stacks_consumed);
	CU_add_test(s, "trigger on hit only, irq alloced in between", test_trigger_with_irq_between);
	CU_add_test(s, "missed events: no stack across the gap", test_missed_events);
	CU_add_test(s, "26.3: the selected tags, by key", test_selected_tags);
	CU_add_test(s, "page allocations: tag from the stack", test_tag_from_stack);
	CU_add_test(s, "pid filter", test_pid_filter);
	CU_add_test(s, "filtered tasks forgotten (top, leaks)", test_forget_filtered);
	CU_add_test(s, "peak live bytes", test_peak_live);
	CU_add_test(s, "memory follows live records, not events", test_memory_bounded);
	CU_add_test(s, "any pid, -1 first", test_any_pid);
	CU_add_test(s, "u64 map", test_map);
	CU_add_test(s, "lifetime percentiles within 1/128", test_lifetime_percentiles);
	CU_add_test(s, "nested events of one allocation count once", test_nested);
	CU_add_test(s, "nested only on the same task and CPU, nothing between",
		    test_nested_conditions);
	CU_add_test(s, "a nested inner event's peak goes back", test_nested_peak);
	CU_add_test(s, "capture cost per CPU, taken out of the task's lifetimes",
		    test_observer);
	CU_add_test(s, "raw lifetimes keep the capture time", test_observer_raw);
	CU_add_test(s, "the counters window counts every task's events", test_window);
	CU_add_test(s, "sources keep their tags and addresses apart", test_sources);
	CU_add_test(s, "allocations left out are counted per task class", test_excluded);
	CU_add_test(s, "the end hook: each counted allocation once, as it ends", test_end_hook);
}
ATAG_UTEST_SUITE("stitch", add_tests)
