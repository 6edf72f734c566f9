// SPDX-License-Identifier: LGPL-2.1
/*
 * The stitcher: allocation, free and stack events in, lifetimes out.
 * The rules are in atag-stitch.h.
 *
 * Stack attribution. A kernel_stack record belongs to an event on its CPU that is
 * still waiting for one: each CPU keeps a short LIFO of waiting events, and a
 * stack takes the newest waiter of its pid (an interrupt nests: its event and
 * stack come between an event and that event's stack; the pid is the same). Per
 * event type the stitcher counts how often a stack did or did not follow; a type
 * that has never been followed by one (trace-cmd record -R stacktrace on one
 * event only) stops being pushed, so it cannot steal another event's stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-aggr.h"
#include "atag-map.h"
#include "atag-stitch.h"

#define WAIT_DEPTH		16
#define STACKLESS_AFTER		4	/* follow-ups without a stack before a type is stackless */
#define LAST_NONE		-1
#define LAST_STACK		-2

enum wait_kind {
	W_OTHER,	/* the stack is not wanted: consume it */
	W_HIT,		/* cache it under (pid, tag) */
	W_ALLOC,	/* it is the stack of the live record at slot */
};

struct waiter {
	int32_t		pid;
	int32_t		type;
	uint8_t		kind;
	uint32_t	tag_idx;
	uint32_t	slot;
	uint64_t	seq;		/* W_ALLOC: the allocation's number (atag_live.seq) */
};

struct cpu_state {
	struct waiter	w[WAIT_DEPTH];
	int		n;
	int		last_type;
};

struct type_learn {
	uint32_t	stacks;
	uint32_t	others;
};

struct atag_stitcher {
	struct atag_aggr	*aggr;
	struct atag_stacks	*stacks;
	struct cpu_state	*cpus;
	int			nr_cpus;
	struct type_learn	*types;
	int			nr_types;
	struct atag_live	*live;		/* slots; a free slot has ptr == 0 && ts == 0 */
	uint64_t		seq;		/* allocations so far: the last one's number */
	size_t			nr_slots;
	size_t			cap_slots;
	uint32_t		*free_slots;
	size_t			nr_free;
	size_t			cap_free;
	struct atag_map		live_index;	/* ptr -> slot */
	struct atag_map		hit_cache;	/* pid << 32 | tag_idx -> stack id */
	uint64_t		orphans;
};

struct atag_stitcher *atag_stitcher_alloc(struct atag_aggr *aggr, struct atag_stacks *stacks)
{
	struct atag_stitcher *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->aggr = aggr;
	st->stacks = stacks;
	return st;
}

void atag_stitcher_free(struct atag_stitcher *st)
{
	if (!st)
		return;
	free(st->cpus);
	free(st->types);
	free(st->live);
	free(st->free_slots);
	atag_map_free(&st->live_index);
	atag_map_free(&st->hit_cache);
	free(st);
}

uint64_t atag_stitch_orphan_stacks(const struct atag_stitcher *st)
{
	return st->orphans;
}

/* ------------------------------------------------------------ per-CPU and per-type state */

static struct cpu_state *cpu_state_grow(struct atag_stitcher *st, int cpu)
{
	struct cpu_state *p;
	int n, i;

	if (cpu < 0)
		cpu = 0;
	if (cpu < st->nr_cpus)
		return &st->cpus[cpu];
	n = cpu + 8;
	p = realloc(st->cpus, n * sizeof(*p));
	if (!p)
		return NULL;
	for (i = st->nr_cpus; i < n; i++) {
		p[i].n = 0;
		p[i].last_type = LAST_NONE;
	}
	st->cpus = p;
	st->nr_cpus = n;
	return &p[cpu];
}

static inline struct cpu_state *cpu_state(struct atag_stitcher *st, int cpu)
{
	if (cpu >= 0 && cpu < st->nr_cpus)
		return &st->cpus[cpu];
	return cpu_state_grow(st, cpu);
}

static struct type_learn *type_learn(struct atag_stitcher *st, int type)
{
	struct type_learn *p;
	int n;

	if (type < 0)
		return NULL;
	if (type < st->nr_types)
		return &st->types[type];
	n = type + 64;
	p = realloc(st->types, n * sizeof(*p));
	if (!p)
		return NULL;
	memset(p + st->nr_types, 0, (n - st->nr_types) * sizeof(*p));
	st->types = p;
	st->nr_types = n;
	return &p[type];
}

static bool stackless(struct atag_stitcher *st, int type)
{
	struct type_learn *t = type >= 0 && type < st->nr_types ? &st->types[type] : NULL;

	return t && !t->stacks && t->others >= STACKLESS_AFTER;
}

/*
 * What followed the previous record on this CPU: learn whether its type gets
 * stacks. Counting stops once the answer cannot change any more.
 */
static inline void learn(struct atag_stitcher *st, struct cpu_state *cs, bool stack)
{
	struct type_learn *t;

	if (cs->last_type < 0)
		return;
	t = cs->last_type < st->nr_types ? &st->types[cs->last_type] :
	    type_learn(st, cs->last_type);
	if (!t)
		return;
	if (stack)
		t->stacks = 1;
	else if (!t->stacks && t->others < STACKLESS_AFTER)
		t->others++;
}

/* ------------------------------------------------------------ live records */

static struct atag_live *slot_alloc(struct atag_stitcher *st, uint32_t *slot)
{
	struct atag_live *p;
	size_t cap;

	if (st->nr_free) {
		*slot = st->free_slots[--st->nr_free];
		return &st->live[*slot];
	}
	if (st->nr_slots == st->cap_slots) {
		cap = st->cap_slots ? st->cap_slots * 2 : 1024;
		p = realloc(st->live, cap * sizeof(*p));
		if (!p)
			return NULL;
		st->live = p;
		st->cap_slots = cap;
	}
	*slot = st->nr_slots++;
	return &st->live[*slot];
}

static int slot_release(struct atag_stitcher *st, uint32_t slot)
{
	uint32_t *p;

	if (st->nr_free == st->cap_free) {
		p = realloc(st->free_slots, (st->cap_free + 1024) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		st->free_slots = p;
		st->cap_free += 1024;
	}
	memset(&st->live[slot], 0, sizeof(st->live[slot]));
	st->free_slots[st->nr_free++] = slot;
	return 0;
}

/*
 * The allocation's tag and stack are final: it enters the aggregates. @site is
 * the call site its stack gave, for an allocation of tag 0 (0: none).
 */
static int commit(struct atag_stitcher *st, struct atag_live *l, uint64_t site)
{
	int64_t idx;

	l->pending = 0;
	if (site && !atag_aggr_tag(st->aggr, l->tag_idx)->tag) {
		idx = atag_aggr_tag_index(st->aggr, site);
		if (idx < 0)
			return idx;
		l->tag_idx = idx;
	}
	return l->counted ? atag_aggr_note_alloc(st->aggr, l) : 0;
}

/* Pop the top waiter of @cs; an allocation that waited in vain is committed stackless. */
static int drop_waiter(struct atag_stitcher *st, struct cpu_state *cs, int i)
{
	struct waiter w = cs->w[i];
	struct atag_live *l;

	memmove(&cs->w[i], &cs->w[i + 1], (cs->n - i - 1) * sizeof(w));
	cs->n--;
	if (w.kind != W_ALLOC)
		return 0;
	l = &st->live[w.slot];
	if (l->pending && l->seq == w.seq)
		return commit(st, l, 0);
	return 0;
}

static int push_waiter(struct atag_stitcher *st, struct cpu_state *cs, const struct waiter *w)
{
	int ret = 0;

	if (cs->n == WAIT_DEPTH)
		ret = drop_waiter(st, cs, 0);
	cs->w[cs->n++] = *w;
	return ret;
}

/* ------------------------------------------------------------ events */

static int on_hit(struct atag_stitcher *st, const struct atag_event *ev, struct waiter *w)
{
	const struct atag_tag_stats *t;
	int64_t idx;

	idx = atag_aggr_tag_index(st->aggr, ev->tag);
	if (idx < 0)
		return idx;
	t = atag_aggr_tag(st->aggr, idx);
	if (!t->function && ev->function &&
	    atag_aggr_set_site(st->aggr, idx, ev->function, ev->file, ev->line, ev->module))
		return -ENOMEM;
	/*
	 * A newer hit of (pid, tag): the allocations of the previous one are done
	 * (or it failed); its stack is no longer theirs. Until this hit's own stack
	 * comes, none is cached.
	 */
	atag_map_remove(&st->hit_cache, (uint64_t)(uint32_t)ev->pid << 32 | idx, NULL);
	w->kind = W_HIT;
	w->tag_idx = idx;
	return 0;
}

static int retire_replaced(struct atag_stitcher *st, uint32_t slot)
{
	struct atag_live *l = &st->live[slot];
	int ret = 0;

	if (l->pending)
		ret = commit(st, l, 0);
	if (l->counted)
		atag_aggr_note_replaced(st->aggr, l);
	return ret ? ret : slot_release(st, slot);
}

static int on_alloc(struct atag_stitcher *st, const struct atag_event *ev, struct waiter *w)
{
	uint64_t *slotp, *sid;
	struct atag_live *l;
	bool created;
	uint32_t slot;
	int64_t idx;
	int ret;

	idx = atag_aggr_tag_index(st->aggr, ev->tag);
	if (idx < 0)
		return idx;
	slotp = atag_map_get(&st->live_index, ev->ptr, 0, &created);
	if (!slotp)
		return -ENOMEM;
	if (!created) {
		ret = retire_replaced(st, *slotp);
		if (ret)
			return ret;
	}
	l = slot_alloc(st, &slot);
	if (!l)
		return -ENOMEM;
	*slotp = slot;
	*l = (struct atag_live){
		.ptr = ev->ptr, .ts = ev->ts, .bytes = ev->bytes, .seq = ++st->seq,
		.tag_idx = idx, .pid = ev->pid, .counted = !ev->filtered,
	};
	if (ev->stack_follows && !stackless(st, ev->type)) {
		l->pending = 1;
		w->kind = W_ALLOC;
		w->slot = slot;
		w->seq = l->seq;
		return 0;
	}
	/* looked up, not taken: every allocation of (pid, tag) until its next hit */
	if (!ev->stack_follows &&
	    (sid = atag_map_find(&st->hit_cache, (uint64_t)(uint32_t)ev->pid << 32 | idx)))
		l->stack_id = *sid;
	return commit(st, l, 0);
}

static int on_free(struct atag_stitcher *st, const struct atag_event *ev)
{
	uint64_t slot, bytes;
	struct atag_live *l;
	int64_t idx;
	int ret = 0;

	if (!atag_map_remove(&st->live_index, ev->ptr, &slot)) {
		if (ev->filtered)
			return 0;
		idx = atag_aggr_tag_index(st->aggr, ev->tag);
		if (idx < 0)
			return idx;
		atag_aggr_note_unmatched(st->aggr, idx, ev->bytes);
		return 0;
	}
	l = &st->live[slot];
	if (l->pending)
		ret = commit(st, l, 0);
	bytes = ev->bytes ? ev->bytes : l->bytes;
	if (!ret && l->counted)
		ret = atag_aggr_note_free(st->aggr, l, ev->ts, bytes);
	return ret ? ret : slot_release(st, slot);
}

int atag_stitch_event(struct atag_stitcher *st, const struct atag_event *ev)
{
	struct waiter w = { .pid = ev->pid, .type = ev->type, .kind = W_OTHER };
	struct cpu_state *cs = cpu_state(st, ev->cpu);
	int ret = 0;

	if (!cs)
		return -ENOMEM;
	learn(st, cs, false);
	cs->last_type = ev->type;

	switch (ev->kind) {
	case ATAG_EV_HIT:
		ret = on_hit(st, ev, &w);
		break;
	case ATAG_EV_ALLOC:
		ret = on_alloc(st, ev, &w);
		break;
	case ATAG_EV_FREE:
		ret = on_free(st, ev);
		break;
	case ATAG_EV_OTHER:
		break;
	}
	if (ret || (stackless(st, ev->type) && w.kind != W_ALLOC))
		return ret;
	return push_waiter(st, cs, &w);
}

/* Is the top waiter of @cs the owner of a stack of @pid recorded for @type? */
static bool owns(struct atag_stitcher *st, const struct waiter *w, int pid, int type)
{
	if (w->pid != pid)
		return false;
	if (type >= 0)
		return w->type == type;
	return !stackless(st, w->type);
}

int atag_stitch_stack(struct atag_stitcher *st, const struct atag_kstack *ks)
{
	struct cpu_state *cs = cpu_state(st, ks->cpu);
	struct atag_live *l;
	struct waiter w;
	int64_t sid;
	uint64_t *c;
	int ret;

	if (!cs)
		return -ENOMEM;
	learn(st, cs, true);
	cs->last_type = LAST_STACK;
	/*
	 * Waiters of other tasks, of another type than the stack names, or of types
	 * that never get stacks cannot own it; above the owner they belong to nested
	 * contexts that have ended.
	 */
	while (cs->n && !owns(st, &cs->w[cs->n - 1], ks->pid, ks->type)) {
		ret = drop_waiter(st, cs, cs->n - 1);
		if (ret)
			return ret;
	}
	if (!cs->n) {
		st->orphans++;
		return 0;
	}
	w = cs->w[--cs->n];
	if (w.kind == W_OTHER)
		return 0;
	sid = atag_stacks_intern(st->stacks, ks->frames, ks->nr);
	if (sid < 0)
		return sid;
	if (w.kind == W_HIT) {
		c = atag_map_get(&st->hit_cache, (uint64_t)(uint32_t)w.pid << 32 | w.tag_idx,
				 sid, NULL);
		if (!c)
			return -ENOMEM;
		*c = sid;
		return 0;
	}
	/*
	 * The slot may hold another allocation by now: its own was freed (or
	 * replaced) before its stack came, and the slot reused, possibly at the
	 * same timestamp on another CPU. Its number tells, a timestamp would not.
	 */
	l = &st->live[w.slot];
	if (!l->pending || l->seq != w.seq)
		return 0;
	l->stack_id = sid;
	return commit(st, l, ks->site);
}

int atag_stitch_missed(struct atag_stitcher *st, int cpu)
{
	struct cpu_state *cs = cpu_state(st, cpu);
	int ret;

	if (!cs)
		return -ENOMEM;
	/* nothing before the gap can own a stack after it */
	while (cs->n) {
		ret = drop_waiter(st, cs, cs->n - 1);
		if (ret)
			return ret;
	}
	cs->last_type = LAST_NONE;
	return 0;
}

int atag_stitch_finish(struct atag_stitcher *st)
{
	size_t i;
	int ret;

	for (i = 0; i < st->nr_slots; i++) {
		if (!st->live[i].pending)
			continue;
		ret = commit(st, &st->live[i], 0);
		if (ret)
			return ret;
	}
	for (i = 0; i < (size_t)st->nr_cpus; i++)
		st->cpus[i].n = 0;
	return 0;
}

static int sink_event(void *ctx, const struct atag_event *ev)
{
	return atag_stitch_event(ctx, ev);
}

static int sink_stack(void *ctx, const struct atag_kstack *ks)
{
	return atag_stitch_stack(ctx, ks);
}

static int sink_missed(void *ctx, int cpu)
{
	return atag_stitch_missed(ctx, cpu);
}

void atag_stitch_sink(struct atag_stitcher *st, struct atag_sink *sink)
{
	sink->event = sink_event;
	sink->stack = sink_stack;
	sink->missed = sink_missed;
	sink->ctx = st;
}

const struct atag_live *atag_stitch_live_next(const struct atag_stitcher *st, size_t *iter)
{
	uint64_t ptr, slot;

	if (!atag_map_next(&st->live_index, iter, &ptr, &slot))
		return NULL;
	return &st->live[slot];
}
