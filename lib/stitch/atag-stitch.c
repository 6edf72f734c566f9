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
 *
 * The observer. Each stack's capture cost (from the record before it on its CPU,
 * of the same task, to the stack) adds to its CPU's figures and to its task's
 * running total; a live record keeps its task's total of when it was made, so a
 * free by the same task knows how much capture time its lifetime spans.
 *
 * Per task the stitcher also remembers its last allocation or free event: an
 * allocation at a live address that is that task's last allocation, on the same
 * CPU, is the outer event of a nested allocation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-aggr.h"
#include "atag-bigmem.h"
#include "atag-map.h"
#include "atag-stitch.h"

#define WAIT_DEPTH		16
#define STACKLESS_AFTER		4	/* follow-ups without a stack before a type is stackless */
#define LAST_NONE		-1
#define LAST_STACK		-2
#define NO_PEAK			UINT64_MAX
#define NO_STACK		UINT64_MAX	/* in hit_cache: the hit's stack has not come */
#define ITER_SRC_SHIFT		56

enum wait_kind {
	W_OTHER,	/* the stack is not wanted: consume it */
	W_HIT,		/* cache it under (pid, tag) */
	W_ALLOC,	/* it is the stack of the live record at slot */
};

struct waiter {
	int32_t		pid;
	int32_t		type;
	uint8_t		kind;
	uint8_t		src;
	uint32_t	tag_idx;
	uint32_t	slot;
	uint64_t	seq;		/* W_ALLOC: the allocation's number (atag_live.seq) */
};

struct cpu_state {
	struct waiter		w[WAIT_DEPTH];
	int			n;
	int			last_type;
	int32_t			last_pid;
	uint64_t		last_ts;	/* of the record before: a capture starts there */
	struct atag_captures	captures;
};

struct type_learn {
	uint32_t	stacks;
	uint32_t	others;
	uint32_t	sampled;	/* its stacks were sampled: never stackless */
};

/* What each source has of its own: addresses and tags of one are not another's. */
struct source {
	struct atag_aggr	*aggr;
	struct atag_map		live_index;	/* ptr -> slot */
	struct atag_map		hit_cache;	/* pid << 32 | tag_idx -> stack id, or NO_STACK */
	struct atag_counters	excluded[ATAG_TASK_NR];
	bool			nests;		/* its allocations may nest */
};

/* What the stitcher remembers of a task. */
struct task {
	uint64_t	observed;	/* its capture time so far */
	/* its last allocation or free event: an allocation (of slot, its seq) or not */
	uint64_t	last_seq;
	uint32_t	last_slot;
	int32_t		last_cpu;
	uint8_t		last_alloc;
	uint8_t		last_src;
	/* the peak of that allocation's tag before and after it was counted, or NO_PEAK */
	uint64_t	peak_before;
	uint64_t	peak_after;
};

/*
 * The tasks looked up last, by pid: an allocation's task is looked up at its
 * event, its stack and its free. Tasks stay once added, so an entry never goes
 * stale. An entry is empty while its idx1 is 0: a trace's pids are any 32 bits,
 * -1 too, so no pid can mark it.
 */
#define TASK_CACHE	64

struct task_slot {
	int32_t		pid;
	uint32_t	idx1;		/* index into tasks + 1; 0: empty */
};

struct atag_stitcher {
	struct source		src[ATAG_STITCH_MAX_SOURCES];
	int			nr_src;
	struct atag_stacks	*stacks;
	uint32_t		*key_ids;	/* atag_kstack.key -> stack id + 1, or 0 */
	size_t			nr_keys;
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
	struct atag_map		task_index;	/* pid -> index into tasks */
	struct task_slot	task_cache[TASK_CACHE];	/* by pid % TASK_CACHE */
	struct task		*tasks;
	size_t			nr_tasks;
	size_t			cap_tasks;
	bool			raw;		/* raw lifetimes */
	bool			forget_filtered;	/* keep no record of them */
	uint8_t			window;		/* enum window_state */
	uint64_t		window_open;
	uint64_t		window_close;
	uint64_t		orphans;
	atag_end_fn		on_end;		/* told when a counted allocation ends */
	void			*on_end_ctx;
};

/* The counters window, as its marks (enum atag_window_mark) came. */
enum window_state {
	WINDOW_NONE,
	WINDOW_OPEN,		/* between the counters: counted */
	WINDOW_CLOSED,
	WINDOW_READING_START,	/* while the start counters were read: uncertain */
	WINDOW_READING_END,	/* while the end counters were read: uncertain */
};

struct atag_stitcher *atag_stitcher_alloc(struct atag_aggr *aggr, struct atag_stacks *stacks)
{
	struct atag_stitcher *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->src[0].aggr = aggr;
	st->nr_src = 1;
	st->stacks = stacks;
	return st;
}

int atag_stitcher_add_source(struct atag_stitcher *st, struct atag_aggr *aggr)
{
	if (st->nr_src == ATAG_STITCH_MAX_SOURCES)
		return -E2BIG;
	st->src[st->nr_src].aggr = aggr;
	return st->nr_src++;
}

void atag_stitcher_nesting(struct atag_stitcher *st, unsigned int src, bool nests)
{
	if ((int)src < st->nr_src)
		st->src[src].nests = nests;
}

void atag_stitcher_raw_lifetimes(struct atag_stitcher *st, bool raw)
{
	st->raw = raw;
}

void atag_stitcher_forget_filtered(struct atag_stitcher *st, bool forget)
{
	st->forget_filtered = forget;
}

void atag_stitcher_on_end(struct atag_stitcher *st, atag_end_fn fn, void *ctx)
{
	st->on_end = fn;
	st->on_end_ctx = ctx;
}

void atag_stitcher_free(struct atag_stitcher *st)
{
	int i;

	if (!st)
		return;
	for (i = 0; i < st->nr_cpus; i++)
		atag_lifetime_free(&st->cpus[i].captures.cost);
	for (i = 0; i < st->nr_src; i++) {
		atag_map_free(&st->src[i].live_index);
		atag_map_free(&st->src[i].hit_cache);
	}
	free(st->key_ids);
	free(st->cpus);
	free(st->types);
	free(st->live);
	free(st->free_slots);
	atag_map_free(&st->task_index);
	free(st->tasks);
	free(st);
}

uint64_t atag_stitch_orphan_stacks(const struct atag_stitcher *st)
{
	return st->orphans;
}

int atag_stitch_nr_cpus(const struct atag_stitcher *st)
{
	return st->nr_cpus;
}

const struct atag_captures *atag_stitch_captures(const struct atag_stitcher *st, int cpu)
{
	if (cpu < 0 || cpu >= st->nr_cpus || !st->cpus[cpu].captures.stacks)
		return NULL;
	return &st->cpus[cpu].captures;
}

const struct atag_counters *atag_stitch_excluded(const struct atag_stitcher *st, int src,
						 int task)
{
	static const struct atag_counters none;

	if (src < 0 || src >= st->nr_src || task < 0 || task >= ATAG_TASK_NR)
		return &none;
	return &st->src[src].excluded[task];
}

bool atag_stitch_window(const struct atag_stitcher *st, uint64_t *open, uint64_t *close)
{
	*open = st->window_open;
	*close = st->window_close;
	return st->window == WINDOW_CLOSED;
}

static bool in_window(const struct atag_stitcher *st)
{
	return st->window != WINDOW_NONE && st->window != WINDOW_CLOSED;
}

static bool uncertain(const struct atag_stitcher *st)
{
	return st->window == WINDOW_READING_START || st->window == WINDOW_READING_END;
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
		memset(&p[i], 0, sizeof(p[i]));
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

	return t && !t->stacks && !t->sampled && t->others >= STACKLESS_AFTER;
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

/* ------------------------------------------------------------ tasks */

static inline struct task_slot *task_slot(struct atag_stitcher *st, int pid)
{
	return &st->task_cache[(uint32_t)pid % TASK_CACHE];
}

static struct task *task_find(struct atag_stitcher *st, int pid)
{
	struct task_slot *c = task_slot(st, pid);
	uint64_t *idx;

	if (c->idx1 && c->pid == pid)
		return &st->tasks[c->idx1 - 1];
	idx = atag_map_find(&st->task_index, (uint32_t)pid);
	if (!idx)
		return NULL;
	*c = (struct task_slot){ .pid = pid, .idx1 = *idx + 1 };
	return &st->tasks[*idx];
}

/* The task @pid, added on first sight; NULL on ENOMEM. Valid until the next one is added. */
static struct task *task_get(struct atag_stitcher *st, int pid)
{
	struct task_slot *c = task_slot(st, pid);
	struct task *t;
	uint64_t *idx;
	bool created;
	size_t cap;

	if (c->idx1 && c->pid == pid)
		return &st->tasks[c->idx1 - 1];
	idx = atag_map_get(&st->task_index, (uint32_t)pid, st->nr_tasks, &created);
	if (!idx)
		return NULL;
	if (!created) {
		*c = (struct task_slot){ .pid = pid, .idx1 = *idx + 1 };
		return &st->tasks[*idx];
	}
	if (st->nr_tasks == st->cap_tasks) {
		cap = st->cap_tasks ? st->cap_tasks * 2 : 256;
		t = realloc(st->tasks, cap * sizeof(*t));
		if (!t) {
			atag_map_remove(&st->task_index, (uint32_t)pid, NULL);
			return NULL;
		}
		st->tasks = t;
		st->cap_tasks = cap;
	}
	*c = (struct task_slot){ .pid = pid, .idx1 = st->nr_tasks + 1 };
	t = &st->tasks[st->nr_tasks++];
	memset(t, 0, sizeof(*t));
	return t;
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
		atag_bigmem_hint(p, cap * sizeof(*p));
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
 * The allocation's tag and stack are final: it enters the aggregates (or, left
 * out by the task filter, its task class's count). @site is the call site its
 * stack gave, for an allocation of tag 0 (0: none).
 */
static int commit(struct atag_stitcher *st, struct atag_live *l, uint64_t site)
{
	struct source *s = &st->src[l->src];
	uint32_t slot = l - st->live;
	uint64_t before;
	struct task *t;
	int64_t idx;
	int ret;

	l->pending = 0;
	if (site && (l->provisional || !atag_aggr_tag(s->aggr, l->tag_idx)->tag)) {
		idx = atag_aggr_tag_index(s->aggr, site);
		if (idx < 0)
			return idx;
		/* the event was counted under its first tag until its stack named the call site */
		atag_aggr_move_event(s->aggr, l->tag_idx, idx);
		l->tag_idx = idx;
	}
	l->provisional = 0;
	if (!l->counted) {
		atag_counters_alloc(&s->excluded[l->task], l->bytes);
		return 0;
	}
	before = atag_aggr_tag(s->aggr, l->tag_idx)->counts.peak_live_bytes;
	ret = atag_aggr_note_alloc(s->aggr, l);
	/* the task's last allocation may turn out an inner event: keep what it did to the peak */
	t = task_find(st, l->pid);
	if (!ret && t && t->last_alloc && t->last_slot == slot && t->last_seq == l->seq) {
		t->peak_before = before;
		t->peak_after = atag_aggr_tag(s->aggr, l->tag_idx)->counts.peak_live_bytes;
	}
	return ret;
}

/* Pop waiter @i of @cs; an allocation that waited in vain is committed stackless. */
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
	struct source *s = &st->src[ev->src];
	const struct atag_tag_stats *t;
	uint64_t *sid;
	int64_t idx;

	idx = atag_aggr_tag_index(s->aggr, ev->tag);
	if (idx < 0)
		return idx;
	t = atag_aggr_tag(s->aggr, idx);
	if (!t->function && ev->function &&
	    atag_aggr_set_site(s->aggr, idx, ev->function, ev->file, ev->line, ev->module))
		return -ENOMEM;
	/*
	 * A newer hit of (pid, tag): the allocations of the previous one are done
	 * (or it failed); its stack is no longer theirs. Until this hit's own stack
	 * comes, none is cached (the entry stays, to be filled again).
	 */
	sid = atag_map_find(&s->hit_cache, (uint64_t)(uint32_t)ev->pid << 32 | idx);
	if (sid)
		*sid = NO_STACK;
	w->kind = W_HIT;
	w->tag_idx = idx;
	return 0;
}

static int retire_replaced(struct atag_stitcher *st, uint32_t slot, uint64_t ts)
{
	struct atag_live *l = &st->live[slot];
	struct source *s = &st->src[l->src];
	int ret = 0;

	if (l->pending)
		ret = commit(st, l, 0);
	if (l->counted) {
		atag_aggr_note_replaced(s->aggr, l, ts);
		if (!ret && st->on_end)
			ret = st->on_end(st->on_end_ctx, &(struct atag_ended){
				.l = l, .how = ATAG_END_REPLACED, .ts = ts });
	} else
		atag_counters_replaced(&s->excluded[l->task], l->bytes);
	return ret ? ret : slot_release(st, slot);
}

/* Is the live record at @slot task @t's last allocation event, on this CPU? */
static bool nested(const struct source *s, const struct task *t, uint32_t slot,
		   const struct atag_live *l, const struct atag_event *ev)
{
	return s->nests && t->last_alloc && t->last_slot == slot && t->last_seq == l->seq &&
	       t->last_cpu == ev->cpu && t->last_src == ev->src && l->pid == ev->pid;
}

/*
 * The live record at @slot was the inner event of the allocation @ev makes: take
 * it back from its call site, and make the record the allocation of @ev's.
 */
static void fold_nested(struct atag_stitcher *st, struct task *t, uint32_t slot,
			const struct atag_event *ev, int64_t idx)
{
	struct atag_live *l = &st->live[slot];
	struct source *s = &st->src[l->src];

	if (!l->pending && l->counted)
		atag_aggr_note_unalloc(s->aggr, l, t->peak_before, t->peak_after);
	else if (!l->pending)
		atag_counters_unalloc(&s->excluded[l->task], l->bytes);
	/* it was made at the inner event: its ts (and the task's captures then) stay */
	l->tag_idx = idx;
	l->stack_id = 0;
	l->stats_idx = 0;
	l->bytes = ev->bytes;
	l->pending = 0;
	l->counted = !ev->filtered;
	l->task = ev->task;
	if (l->counted)
		atag_aggr_note_nested(s->aggr, idx);
}

/*
 * An allocation of a task left out, where the stitcher keeps none: not kept, but a
 * live record at its address was freed without an event, and is retired so (the
 * allocator gave the address out again).
 */
static int forget_alloc(struct atag_stitcher *st, struct source *s, const struct atag_event *ev)
{
	uint64_t slot;

	if (!atag_map_remove(&s->live_index, ev->ptr, &slot))
		return 0;
	return retire_replaced(st, slot, ev->ts);
}

static int on_alloc(struct atag_stitcher *st, const struct atag_event *ev, struct waiter *w)
{
	struct source *s = &st->src[ev->src];
	uint64_t *slotp, *sid;
	struct atag_live *l;
	bool created;
	uint32_t slot;
	struct task *t;
	int64_t idx;
	int ret;

	idx = atag_aggr_tag_index(s->aggr, ev->tag);
	if (idx < 0)
		return idx;
	atag_aggr_note_event(s->aggr, idx);
	if (in_window(st))
		atag_aggr_note_window(s->aggr, idx, true, ev->bytes, uncertain(st));
	if (ev->filtered && st->forget_filtered)
		return forget_alloc(st, s, ev);
	t = task_get(st, ev->pid);
	slotp = t ? atag_map_get(&s->live_index, ev->ptr, 0, &created) : NULL;
	if (!slotp)
		return -ENOMEM;
	if (!created && nested(s, t, *slotp, &st->live[*slotp], ev)) {
		slot = *slotp;
		fold_nested(st, t, slot, ev, idx);
		l = &st->live[slot];
	} else {
		if (!created) {
			ret = retire_replaced(st, *slotp, ev->ts);
			if (ret)
				return ret;
		}
		l = slot_alloc(st, &slot);
		if (!l)
			return -ENOMEM;
		*slotp = slot;
		*l = (struct atag_live){
			.ptr = ev->ptr, .ts = ev->ts, .bytes = ev->bytes, .seq = ++st->seq,
			.tag_idx = idx, .pid = ev->pid, .counted = !ev->filtered, .src = ev->src,
			.task = ev->task, .observed = t->observed, .provisional = ev->tag_provisional,
		};
	}
	t->last_alloc = 1;
	t->last_slot = slot;
	t->last_seq = l->seq;
	t->last_cpu = ev->cpu;
	t->last_src = ev->src;
	t->peak_before = t->peak_after = NO_PEAK;
	if (ev->stack_follows && !stackless(st, ev->type)) {
		l->pending = 1;
		w->kind = W_ALLOC;
		w->slot = slot;
		w->seq = l->seq;
		w->src = ev->src;
		return 0;
	}
	/* looked up, not taken: every allocation of (pid, tag) until its next hit */
	if (!ev->stack_follows &&
	    (sid = atag_map_find(&s->hit_cache, (uint64_t)(uint32_t)ev->pid << 32 | idx)) &&
	    *sid != NO_STACK)
		l->stack_id = *sid;
	return commit(st, l, 0);
}

/* The lifetime @l had until @ev freed it, less its task's captures unless raw. */
static int note_free(struct atag_stitcher *st, struct source *s, const struct atag_live *l,
		     const struct atag_event *ev, const struct task *t, uint64_t bytes)
{
	uint64_t lifetime = ev->ts >= l->ts ? ev->ts - l->ts : 0, observed = 0;
	enum atag_observed how = ATAG_OBS_OTHER_TASK;
	int ret;

	if (ev->pid == l->pid) {
		observed = t->observed - l->observed;
		how = observed ? ATAG_OBS_INFLATED : ATAG_OBS_NONE;
		if (observed > lifetime)
			observed = lifetime;
		if (!st->raw)
			lifetime -= observed;
	}
	ret = atag_aggr_note_free(s->aggr, l, ev->ts, lifetime, bytes, how, observed);
	if (!ret && st->on_end)
		ret = st->on_end(st->on_end_ctx, &(struct atag_ended){
			.l = l, .how = ATAG_END_FREED, .ts = ev->ts, .lifetime = lifetime,
			.bytes_freed = bytes });
	return ret;
}

static int on_free(struct atag_stitcher *st, const struct atag_event *ev)
{
	struct source *s = &st->src[ev->src];
	uint64_t slot, bytes;
	struct atag_live *l;
	struct task *t;
	int64_t idx;
	int ret = 0;

	t = task_get(st, ev->pid);
	if (!t)
		return -ENOMEM;
	t->last_alloc = 0;
	if (!atag_map_remove(&s->live_index, ev->ptr, &slot)) {
		idx = atag_aggr_tag_index(s->aggr, ev->tag);
		if (idx < 0)
			return idx;
		atag_aggr_note_event(s->aggr, idx);
		if (in_window(st))
			atag_aggr_note_window(s->aggr, idx, false, ev->bytes, uncertain(st));
		if (!ev->filtered)
			atag_aggr_note_unmatched(s->aggr, idx, ev->bytes);
		return 0;
	}
	l = &st->live[slot];
	if (l->pending)
		ret = commit(st, l, 0);
	bytes = ev->bytes ? ev->bytes : l->bytes;
	atag_aggr_note_event(s->aggr, l->tag_idx);
	if (in_window(st))
		atag_aggr_note_window(s->aggr, l->tag_idx, false, bytes, uncertain(st));
	if (!ret && l->counted)
		ret = note_free(st, s, l, ev, t, bytes);
	else if (!ret)
		atag_counters_free(&s->excluded[l->task], l->bytes, bytes);
	return ret ? ret : slot_release(st, slot);
}

/* The first of each mark counts, in order: reading start, start, reading end, end. */
static void on_window(struct atag_stitcher *st, const struct atag_event *ev)
{
	switch (ev->ptr) {
	case ATAG_WINDOW_READING_START:
		if (st->window == WINDOW_NONE)
			st->window = WINDOW_READING_START;
		break;
	case ATAG_WINDOW_OPEN:
		if (st->window == WINDOW_NONE || st->window == WINDOW_READING_START) {
			st->window = WINDOW_OPEN;
			st->window_open = ev->ts;
		}
		break;
	case ATAG_WINDOW_READING_END:
		if (st->window == WINDOW_OPEN)
			st->window = WINDOW_READING_END;
		break;
	case ATAG_WINDOW_CLOSE:
		if (st->window == WINDOW_OPEN || st->window == WINDOW_READING_END) {
			st->window = WINDOW_CLOSED;
			st->window_close = ev->ts;
		}
		break;
	}
}

int atag_stitch_event(struct atag_stitcher *st, const struct atag_event *ev)
{
	struct waiter w = { .pid = ev->pid, .type = ev->type, .kind = W_OTHER };
	struct cpu_state *cs = cpu_state(st, ev->cpu);
	enum atag_event_kind kind = ev->kind;
	int ret = 0;

	if (!cs)
		return -ENOMEM;
	learn(st, cs, false);
	if (ev->stack_maybe) {
		struct type_learn *t = type_learn(st, ev->type);

		if (!t)
			return -ENOMEM;
		t->sampled = 1;
	}
	cs->last_type = ev->type;
	cs->last_pid = ev->pid;
	cs->last_ts = ev->ts;
	/* an event of a source the stitcher was not told of is just a record */
	if (kind != ATAG_EV_OTHER && kind != ATAG_EV_WINDOW && ev->src >= st->nr_src)
		kind = ATAG_EV_OTHER;

	switch (kind) {
	case ATAG_EV_HIT:
		ret = on_hit(st, ev, &w);
		break;
	case ATAG_EV_ALLOC:
		ret = on_alloc(st, ev, &w);
		break;
	case ATAG_EV_FREE:
		ret = on_free(st, ev);
		break;
	case ATAG_EV_WINDOW:
		on_window(st, ev);
		break;
	case ATAG_EV_OTHER:
		break;
	}
	if (ret || (stackless(st, ev->type) && w.kind != W_ALLOC))
		return ret;
	return push_waiter(st, cs, &w);
}

/*
 * The id of @ks's frames: known by its key, or interned (and its key kept: the
 * pipe hands on a key met before without its frames).
 */
static int64_t stack_id(struct atag_stitcher *st, const struct atag_kstack *ks)
{
	size_t n = st->nr_keys;
	int64_t sid;
	uint32_t *p;

	if (ks->key && ks->key < n && st->key_ids[ks->key])
		return st->key_ids[ks->key] - 1;
	if (!ks->frames)
		return -EPROTO;		/* a key never met with its frames */
	sid = atag_stacks_intern_kept(st->stacks, ks->frames, ks->nr, ks->kept);
	if (sid < 0 || !ks->key)
		return sid;
	if (sid >= UINT32_MAX)
		return -ENOMEM;
	if (ks->key >= n) {
		n = n ? n : 1024;
		while (n <= ks->key)
			n *= 2;
		p = realloc(st->key_ids, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + st->nr_keys, 0, (n - st->nr_keys) * sizeof(*p));
		st->key_ids = p;
		st->nr_keys = n;
	}
	st->key_ids[ks->key] = sid + 1;
	return sid;
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

/* What taking stack @ks cost: from the record before it on its CPU, of its task. */
static int note_capture(struct atag_stitcher *st, struct cpu_state *cs,
			const struct atag_kstack *ks)
{
	struct task *t;
	uint64_t cost;

	if (cs->last_type == LAST_NONE || cs->last_pid != ks->pid || !ks->ts ||
	    ks->ts < cs->last_ts)
		return 0;
	cost = ks->ts - cs->last_ts;
	t = task_get(st, ks->pid);
	if (!t)
		return -ENOMEM;
	t->observed += cost;
	cs->captures.stacks++;
	cs->captures.ns += cost;
	return atag_lifetime_add(&cs->captures.cost, cost);
}

int atag_stitch_stack(struct atag_stitcher *st, const struct atag_kstack *ks)
{
	struct cpu_state *cs = cpu_state(st, ks->cpu);
	struct source *s;
	struct atag_live *l;
	struct waiter w;
	int64_t sid;
	uint64_t *c;
	int ret;

	if (!cs)
		return -ENOMEM;
	/* a key's first time: kept whoever owns the stack, for the times without frames */
	if (ks->key && ks->frames) {
		sid = stack_id(st, ks);
		if (sid < 0)
			return sid;
	}
	ret = note_capture(st, cs, ks);
	if (ret)
		return ret;
	learn(st, cs, true);
	cs->last_type = LAST_STACK;
	cs->last_pid = ks->pid;
	cs->last_ts = ks->ts;
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
	sid = stack_id(st, ks);
	if (sid < 0)
		return sid;
	s = &st->src[w.src];
	if (w.kind == W_HIT) {
		c = atag_map_get(&s->hit_cache, (uint64_t)(uint32_t)w.pid << 32 | w.tag_idx,
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

/* ------------------------------------------------------------ look-ahead */

#define PREFETCH_BYTES	(2U << 20)	/* of tables, before a look-ahead pays */

/*
 * With 100 000 distinct stacks the (tag, stack) pairs are 9 MB: counting an
 * allocation or a free misses the caches on its pair (and, with a large live
 * set, on the live map and record before). Told of those messages a few
 * messages ahead, each step's load is in the caches when the next needs it.
 */
bool atag_stitch_wants_prefetch(const struct atag_stitcher *st)
{
	size_t bytes = st->nr_slots * sizeof(*st->live);
	int i;

	for (i = 0; i < st->nr_src; i++)
		bytes += atag_aggr_bytes(st->src[i].aggr) +
			 st->src[i].live_index.cap * sizeof(struct atag_map_entry);
	return bytes >= PREFETCH_BYTES;
}

void atag_stitch_prefetch(struct atag_stitcher *st, unsigned int stage, unsigned int src,
			  uint64_t ptr, uint32_t key)
{
	const struct atag_live *l;
	const uint64_t *slot;
	uint32_t sid;
	int i;

	if (key) {
		if (key >= st->nr_keys)
			return;
		if (!stage) {
			__builtin_prefetch(&st->key_ids[key]);
			return;
		}
		sid = st->key_ids[key];
		for (i = 0; sid && i < st->nr_src; i++)
			atag_aggr_prefetch_stack(st->src[i].aggr, sid - 1, stage == 2);
		return;
	}
	if (src >= (unsigned int)st->nr_src)
		return;
	if (!stage) {
		atag_map_prefetch(&st->src[src].live_index, ptr);
		return;
	}
	slot = atag_map_find(&st->src[src].live_index, ptr);
	if (!slot || *slot >= st->nr_slots)
		return;
	l = &st->live[*slot];
	if (stage == 1)
		__builtin_prefetch(l);
	else if (l->counted && !l->pending)
		atag_aggr_prefetch_pair(st->src[src].aggr, l->stats_idx);
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
	size_t src = *iter >> ITER_SRC_SHIFT, pos = *iter & ((1ULL << ITER_SRC_SHIFT) - 1);
	uint64_t ptr, slot;

	for (; src < (size_t)st->nr_src; src++, pos = 0) {
		if (atag_map_next(&st->src[src].live_index, &pos, &ptr, &slot)) {
			*iter = src << ITER_SRC_SHIFT | pos;
			return &st->live[slot];
		}
	}
	*iter = src << ITER_SRC_SHIFT;
	return NULL;
}
