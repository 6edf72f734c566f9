// SPDX-License-Identifier: LGPL-2.1
/*
 * Aggregates of one stitched trace: counters per tag and per (tag, stack).
 * The stitcher updates them through the hidden atag_aggr_note_*() calls in
 * atag-aggr.h; readers use the accessors of atag-stitch.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-aggr.h"
#include "atag-map.h"
#include "atag-stitch.h"
#include "atag-timeline.h"

struct atag_aggr {
	struct atag_tag_stats	*tags;
	size_t			nr_tags;
	size_t			cap_tags;
	struct atag_map		tag_index;	/* tag -> index */
	struct atag_stack_stats	*stacks;
	size_t			nr_stacks;
	size_t			cap_stacks;
	struct atag_map		stack_index;	/* tag_idx << 32 | stack_id -> index */
	/*
	 * stack_id -> index + 1 of the first pair made with that stack (0: none):
	 * a stack is nearly always one call site's, and with tens of thousands of
	 * stacks the map's probe misses the caches where an array of 4 bytes a
	 * stack mostly does not (bench/README.md)
	 */
	uint32_t		*by_stack;
	size_t			cap_by_stack;
	struct atag_totals	totals;
	struct atag_timeline	*timeline;	/* NULL unless kept */
};

struct atag_aggr *atag_aggr_alloc(void)
{
	return calloc(1, sizeof(struct atag_aggr));
}

static void tag_free(struct atag_tag_stats *t)
{
	free(t->function);
	free(t->file);
	free(t->module);
	atag_lifetime_free(&t->lifetimes);
}

void atag_aggr_free(struct atag_aggr *aggr)
{
	size_t i;

	if (!aggr)
		return;
	for (i = 0; i < aggr->nr_tags; i++)
		tag_free(&aggr->tags[i]);
	free(aggr->tags);
	free(aggr->stacks);
	free(aggr->by_stack);
	atag_map_free(&aggr->tag_index);
	atag_map_free(&aggr->stack_index);
	atag_timeline_free(aggr->timeline);
	free(aggr);
}

/* Make room for one more element of @size bytes in *@arr. */
static int reserve(void *arr, size_t *cap, size_t nr, size_t size)
{
	void **p = arr, *n;
	size_t c;

	if (nr < *cap)
		return 0;
	c = *cap ? *cap * 2 : 64;
	n = realloc(*p, c * size);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = c;
	return 0;
}

int64_t atag_aggr_tag_index(struct atag_aggr *aggr, uint64_t tag)
{
	struct atag_tag_stats *t;
	uint64_t *idx;
	bool created;

	idx = atag_map_get(&aggr->tag_index, tag, aggr->nr_tags, &created);
	if (!idx)
		return -ENOMEM;
	if (!created)
		return *idx;
	if (reserve(&aggr->tags, &aggr->cap_tags, aggr->nr_tags, sizeof(*aggr->tags))) {
		atag_map_remove(&aggr->tag_index, tag, NULL);
		return -ENOMEM;
	}
	t = &aggr->tags[aggr->nr_tags++];
	memset(t, 0, sizeof(*t));
	t->tag = tag;
	t->line = -1;
	return *idx;
}

static int set_str(char **field, const char *val)
{
	char *n;

	if (!val) {
		free(*field);
		*field = NULL;
		return 0;
	}
	if (*field && !strcmp(*field, val))
		return 0;
	n = strdup(val);
	if (!n)
		return -ENOMEM;
	free(*field);
	*field = n;
	return 0;
}

int atag_aggr_set_site(struct atag_aggr *aggr, uint32_t tag_idx, const char *function,
		       const char *file, long line, const char *module)
{
	struct atag_tag_stats *t = &aggr->tags[tag_idx];

	if (module && (!*module || !strcmp(module, "NONE")))
		module = NULL;
	t->line = line;
	if (set_str(&t->function, function) || set_str(&t->file, file) ||
	    set_str(&t->module, module))
		return -ENOMEM;
	return 0;
}

int atag_aggr_keep_timeline(struct atag_aggr *aggr, unsigned int buckets)
{
	if (aggr->timeline)
		return 0;
	aggr->timeline = atag_timeline_alloc(buckets, ATAG_TIMELINE_FIRST_WIDTH);
	return aggr->timeline ? 0 : -ENOMEM;
}

struct atag_timeline *atag_aggr_timeline(const struct atag_aggr *aggr)
{
	return aggr->timeline;
}

/* Live bytes of @l's tag and stack change by @delta at @ts. */
static int timeline(struct atag_aggr *aggr, const struct atag_live *l, uint64_t ts, int64_t delta)
{
	if (!aggr->timeline)
		return 0;
	return atag_timeline_change(aggr->timeline, ts, l->tag_idx, l->stats_idx, delta);
}

size_t atag_aggr_nr_tags(const struct atag_aggr *aggr)
{
	return aggr->nr_tags;
}

const struct atag_tag_stats *atag_aggr_tag(const struct atag_aggr *aggr, size_t idx)
{
	return idx < aggr->nr_tags ? &aggr->tags[idx] : NULL;
}

size_t atag_aggr_nr_stacks(const struct atag_aggr *aggr)
{
	return aggr->nr_stacks;
}

const struct atag_stack_stats *atag_aggr_stack(const struct atag_aggr *aggr, size_t idx)
{
	return idx < aggr->nr_stacks ? &aggr->stacks[idx] : NULL;
}

const struct atag_totals *atag_aggr_totals(struct atag_aggr *aggr)
{
	size_t i;

	memset(&aggr->totals, 0, sizeof(aggr->totals));
	for (i = 0; i < aggr->nr_tags; i++)
		atag_totals_add(&aggr->totals, &aggr->tags[i].counts);
	return &aggr->totals;
}

/* Note pair @idx as the first of its stack, where there is room (else the map alone knows). */
static void note_first(struct atag_aggr *aggr, uint32_t stack_id, size_t idx)
{
	size_t cap = aggr->cap_by_stack;
	uint32_t *n;

	if (idx >= UINT32_MAX)
		return;
	if (stack_id >= cap) {
		cap = cap ? cap : 1024;
		while (cap <= stack_id)
			cap *= 2;
		n = realloc(aggr->by_stack, cap * sizeof(*n));
		if (!n)
			return;
		memset(n + aggr->cap_by_stack, 0, (cap - aggr->cap_by_stack) * sizeof(*n));
		aggr->by_stack = n;
		aggr->cap_by_stack = cap;
	}
	if (!aggr->by_stack[stack_id])
		aggr->by_stack[stack_id] = idx + 1;
}

static struct atag_stack_stats *stack_stats(struct atag_aggr *aggr, uint32_t tag_idx,
					    uint32_t stack_id)
{
	uint64_t key = (uint64_t)tag_idx << 32 | stack_id, *idx;
	struct atag_stack_stats *s;
	bool created;
	uint32_t first;

	if (stack_id < aggr->cap_by_stack && (first = aggr->by_stack[stack_id])) {
		s = &aggr->stacks[first - 1];
		if (s->tag_idx == tag_idx)
			return s;
	}
	idx = atag_map_get(&aggr->stack_index, key, aggr->nr_stacks, &created);
	if (!idx)
		return NULL;
	if (!created)
		return &aggr->stacks[*idx];
	if (reserve(&aggr->stacks, &aggr->cap_stacks, aggr->nr_stacks, sizeof(*s))) {
		atag_map_remove(&aggr->stack_index, key, NULL);
		return NULL;
	}
	note_first(aggr, stack_id, aggr->nr_stacks);
	s = &aggr->stacks[aggr->nr_stacks++];
	memset(s, 0, sizeof(*s));
	s->tag_idx = tag_idx;
	s->stack_id = stack_id;
	return s;
}

/* Always inlined: GCC drops the calls of a function that only prefetches (atag-map.h). */
static inline __attribute__((always_inline)) void prefetch_pair(const struct atag_aggr *aggr,
								 size_t idx)
{
	const char *p = (const char *)&aggr->stacks[idx];

	__builtin_prefetch(p, 1);
	__builtin_prefetch(p + sizeof(aggr->stacks[idx]) - 1, 1);
}

void atag_aggr_prefetch_stack(const struct atag_aggr *aggr, uint32_t stack_id, bool pair)
{
	uint32_t first;

	if (stack_id >= aggr->cap_by_stack)
		return;
	if (!pair)
		__builtin_prefetch(&aggr->by_stack[stack_id]);
	else if ((first = aggr->by_stack[stack_id]) && first <= aggr->nr_stacks)
		prefetch_pair(aggr, first - 1);
}

void atag_aggr_prefetch_pair(const struct atag_aggr *aggr, uint32_t idx)
{
	if (idx < aggr->nr_stacks)
		prefetch_pair(aggr, idx);
}

size_t atag_aggr_bytes(const struct atag_aggr *aggr)
{
	return aggr->nr_stacks * sizeof(*aggr->stacks) + aggr->cap_by_stack * sizeof(uint32_t);
}

int atag_aggr_note_alloc(struct atag_aggr *aggr, struct atag_live *l)
{
	struct atag_stack_stats *s;

	s = stack_stats(aggr, l->tag_idx, l->stack_id);
	if (!s)
		return -ENOMEM;
	l->stats_idx = s - aggr->stacks;
	atag_counters_alloc(&s->counts, l->bytes);
	atag_counters_alloc(&aggr->tags[l->tag_idx].counts, l->bytes);
	aggr->tags[l->tag_idx].sub_page |= l->bytes % ATAG_MIN_PAGE_SIZE != 0;
	return timeline(aggr, l, l->ts, l->bytes);
}

void atag_aggr_note_unalloc(struct atag_aggr *aggr, const struct atag_live *l, uint64_t before,
			    uint64_t after)
{
	struct atag_counters *c = &aggr->tags[l->tag_idx].counts;

	atag_counters_unalloc(&aggr->stacks[l->stats_idx].counts, l->bytes);
	atag_counters_unalloc(c, l->bytes);
	/* no memory to fail on: the stack and the tag changed when it was counted */
	timeline(aggr, l, l->ts, -(int64_t)l->bytes);
	/* unchanged since: nothing else reached it; else the peak was not this one's alone */
	if (c->peak_live_bytes == after)
		c->peak_live_bytes = before > c->live_bytes ? before : c->live_bytes;
}

int atag_aggr_note_free(struct atag_aggr *aggr, const struct atag_live *l, uint64_t ts,
			uint64_t lifetime, uint64_t bytes, enum atag_observed how,
			uint64_t observed)
{
	struct atag_tag_stats *t = &aggr->tags[l->tag_idx];
	int ret;

	atag_counters_free(&aggr->stacks[l->stats_idx].counts, l->bytes, bytes);
	atag_counters_free(&t->counts, l->bytes, bytes);
	t->sub_page |= bytes % ATAG_MIN_PAGE_SIZE != 0;
	if (how == ATAG_OBS_INFLATED) {
		t->inflation.lifetimes++;
		t->inflation.ns += observed;
	} else if (how == ATAG_OBS_OTHER_TASK) {
		t->inflation.other_task++;
	}
	ret = timeline(aggr, l, ts, -(int64_t)l->bytes);
	return ret ? ret : atag_lifetime_add(&t->lifetimes, lifetime);
}

void atag_aggr_note_window(struct atag_aggr *aggr, uint32_t tag_idx, bool alloc, uint64_t bytes,
			   bool uncertain)
{
	struct atag_window *w = &aggr->tags[tag_idx].window;

	if (uncertain && alloc) {
		w->uncertain_allocs++;
		w->uncertain_bytes_alloced += bytes;
	} else if (uncertain) {
		w->uncertain_frees++;
		w->uncertain_bytes_freed += bytes;
	} else if (alloc) {
		w->allocs++;
		w->bytes_alloced += bytes;
	} else {
		w->frees++;
		w->bytes_freed += bytes;
	}
}

void atag_aggr_note_event(struct atag_aggr *aggr, uint32_t tag_idx)
{
	aggr->tags[tag_idx].events++;
}

void atag_aggr_move_event(struct atag_aggr *aggr, uint32_t from, uint32_t to)
{
	if (aggr->tags[from].events)
		aggr->tags[from].events--;
	aggr->tags[to].events++;
}

void atag_aggr_note_nested(struct atag_aggr *aggr, uint32_t tag_idx)
{
	aggr->tags[tag_idx].nested++;
}

void atag_aggr_note_replaced(struct atag_aggr *aggr, const struct atag_live *l, uint64_t ts)
{
	atag_counters_replaced(&aggr->stacks[l->stats_idx].counts, l->bytes);
	atag_counters_replaced(&aggr->tags[l->tag_idx].counts, l->bytes);
	timeline(aggr, l, ts, -(int64_t)l->bytes);
}

void atag_aggr_note_unmatched(struct atag_aggr *aggr, uint32_t tag_idx, uint64_t bytes)
{
	atag_counters_unmatched(&aggr->tags[tag_idx].counts, bytes);
	aggr->tags[tag_idx].sub_page |= bytes % ATAG_MIN_PAGE_SIZE != 0;
}
