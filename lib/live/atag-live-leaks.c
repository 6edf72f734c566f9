// SPDX-License-Identifier: LGPL-2.1
/*
 * leaks' snapshots: the live allocations older than a minimum age, by call site and
 * stack, each judged by report's rules of leak suspects, with the tasks that made
 * them, example pointers, and how many the latest loss of events makes uncertain.
 * See include/atag-live.h.
 *
 * One walk over the live allocations: a call site is found by its source and tag
 * index, a stack of it by the site and stack id (hash maps), the tasks of a group by
 * the group and the pid; each distinct stack is symbolized once a snapshot. Nothing
 * is kept from one snapshot to the next but the view's own state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-live-int.h"
#include "atag-suspect.h"

/* A group being added up: its figures, and the times of its example pointers. */
struct build_group {
	struct atag_leak_group	*g;
	uint64_t		ex_ts[ATAG_LEAK_EXAMPLES];
};

struct build_stack {
	size_t			site;
	uint32_t		stack_id;
	struct atag_leak_stack	s;
	uint64_t		ex_ts[ATAG_LEAK_EXAMPLES];
};

/* What a snapshot owns besides its sites. */
struct leak_priv {
	struct live_frame_store	frames;
};

struct build {
	struct atag_liveview	*lv;
	struct atag_leak_snapshot *snap;
	struct leak_priv	*priv;
	uint64_t		now;
	uint64_t		min_age;
	struct atag_map		site_of;	/* src << 32 | tag_idx -> 1 + site */
	uint64_t		*site_ex_ts;	/* ATAG_LEAK_EXAMPLES per site */
	size_t			cap_sites, cap_ex;
	uint64_t		ex_ts[ATAG_LEAK_EXAMPLES];	/* the snapshot's */
	struct build_stack	*stacks;
	size_t			nr_stacks, cap_stacks;
	struct atag_map		stack_of;	/* site << 32 | stack_id -> 1 + stack */
	struct atag_map		task_count;	/* group << 32 | pid -> allocations */
	struct atag_map		owners;		/* pids owning live allocations */
};

static int grow(void **a, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap * 2 : 64;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*a, c * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * size, 0, (c - *cap) * size);
	*a = p;
	*cap = c;
	return 0;
}

static const struct live_frames *frames_of(struct build *b, uint32_t id)
{
	return live_frames_get(&b->priv->frames, b->lv, id);
}

/* Name call site @s from its tag's statistics, as top names its rows. */
static void name_site(struct build *b, unsigned int src, const struct atag_tag_stats *t,
		      struct atag_leak_site *s)
{
	uint64_t off = 0;

	s->source = b->lv->srcs[src]->name;
	s->tag = t->tag;
	s->function = t->function;
	s->file = t->file;
	s->module = t->module;
	s->line = t->line;
	s->offset = -1;
	if (!s->function && t->tag &&
	    atag_decoder_name_source_tag(b->lv->dec, src, t->tag, &s->function, &off, &s->module))
		s->offset = off;
}

/* The site of @l, added on first sight; NULL without memory. */
static struct atag_leak_site *site_of(struct build *b, const struct atag_live *l, size_t *at)
{
	struct atag_leak_snapshot *snap = b->snap;
	uint64_t *v, key = (uint64_t)l->src << 32 | l->tag_idx;
	bool created;

	v = atag_map_get(&b->site_of, key, snap->nr_sites + 1, &created);
	if (!v)
		return NULL;
	if (created) {
		if (grow((void **)&snap->sites, &b->cap_sites, snap->nr_sites, sizeof(*snap->sites)) ||
		    grow((void **)&b->site_ex_ts, &b->cap_ex, snap->nr_sites,
			 sizeof(*b->site_ex_ts) * ATAG_LEAK_EXAMPLES)) {
			atag_map_remove(&b->site_of, key, NULL);
			return NULL;
		}
		name_site(b, l->src, atag_aggr_tag(b->lv->aggrs[l->src], l->tag_idx),
			  &snap->sites[snap->nr_sites++]);
	}
	*at = *v - 1;
	return &snap->sites[*at];
}

static struct build_stack *stack_of(struct build *b, size_t site, uint32_t id)
{
	uint64_t *v, key = (uint64_t)site << 32 | id;
	struct build_stack *bs;
	const struct live_frames *fr;
	bool created;

	v = atag_map_get(&b->stack_of, key, b->nr_stacks + 1, &created);
	if (!v)
		return NULL;
	if (!created)
		return &b->stacks[*v - 1];
	fr = id ? frames_of(b, id) : NULL;
	if ((id && !fr) ||
	    grow((void **)&b->stacks, &b->cap_stacks, b->nr_stacks, sizeof(*b->stacks))) {
		atag_map_remove(&b->stack_of, key, NULL);
		return NULL;
	}
	bs = &b->stacks[b->nr_stacks++];
	bs->site = site;
	bs->stack_id = id;
	bs->s.frames = fr ? fr->names : NULL;
	bs->s.nr_frames = fr ? fr->nr : 0;
	return bs;
}

/* Add one old allocation to a group (@gid names it for its tasks). */
static int add_to(struct build *b, struct atag_leak_group *g, uint64_t *ex_ts, uint64_t gid,
		  const struct atag_live *l, const char *why, bool uncertain)
{
	uint64_t age = b->now > l->ts ? b->now - l->ts : 0, *n;
	unsigned int i, at;

	g->allocs++;
	g->bytes += l->bytes;
	if (age > g->oldest_ns)
		g->oldest_ns = age;
	if (why && !g->why)
		g->why = why;
	g->suspects += !why;
	g->uncertain += uncertain;
	/* the oldest pointers: ordered by their time */
	for (at = 0; at < g->nr_ptrs && ex_ts[at] <= l->ts; at++)
		;
	if (at < ATAG_LEAK_EXAMPLES) {
		if (g->nr_ptrs < ATAG_LEAK_EXAMPLES)
			g->nr_ptrs++;
		for (i = g->nr_ptrs - 1; i > at; i--) {
			g->ptrs[i] = g->ptrs[i - 1];
			ex_ts[i] = ex_ts[i - 1];
		}
		g->ptrs[at] = l->ptr;
		ex_ts[at] = l->ts;
	}
	n = atag_map_get(&b->task_count, gid << 32 | (uint32_t)l->pid, 0, NULL);
	if (!n)
		return -ENOMEM;
	++*n;
	return 0;
}

/* What the names say of the task that made @l: its name, and whether it exited. */
static const char *task_of(struct build *b, const struct atag_live *l, int *exited)
{
	const struct live_name *n = live_tasks_name(&b->lv->tasks, l->pid);

	*exited = -1;
	if (!n)
		return NULL;
	/* a pid used again since: the task that made it exited */
	*exited = n->exited || n->since > l->ts;
	return n->since > l->ts ? NULL : n->comm;
}

static int add_live(struct build *b, const struct atag_live *l)
{
	const struct atag_tag_stats *t = atag_aggr_tag(b->lv->aggrs[l->src], l->tag_idx);
	struct atag_suspect_facts f = { 0 };
	struct atag_leak_site *site;
	struct build_stack *bs;
	const struct live_frames *fr;
	const char *why;
	bool uncertain;
	size_t at;

	if (!atag_map_get(&b->owners, (uint32_t)l->pid, 0, NULL))
		return -ENOMEM;
	site = site_of(b, l, &at);
	if (!site)
		return -ENOMEM;
	site->live++;
	site->live_bytes += l->bytes;
	b->snap->live++;
	b->snap->live_bytes += l->bytes;
	if (b->now < l->ts + b->min_age)
		return 0;
	bs = stack_of(b, at, l->stack_id);
	if (!bs)
		return -ENOMEM;
	fr = l->stack_id ? frames_of(b, l->stack_id) : NULL;
	f.source = site->source;
	f.function = site->function;
	f.frames = fr ? (const char *const *)fr->names : NULL;
	f.nr_frames = fr ? fr->nr : 0;
	task_of(b, l, &f.task_exited);
	f.replaced = t->counts.replaced;
	f.unmatched_frees = t->counts.unmatched_frees;
	f.partial_frees = t->counts.partial_frees;
	why = atag_suspect_why(&f);
	uncertain = l->ts < b->lv->last_loss_ts;
	if (add_to(b, &b->snap->g, b->ex_ts, 0, l, why, uncertain) ||
	    add_to(b, &site->g, &b->site_ex_ts[at * ATAG_LEAK_EXAMPLES], 2 * at + 2, l, why,
		   uncertain) ||
	    add_to(b, &bs->s.g, bs->ex_ts, 2 * (bs - b->stacks) + 3, l, why, uncertain))
		return -ENOMEM;
	return 0;
}

/* The group of number @gid (0: the snapshot's, 2 + 2i: site i's, 3 + 2i: stack i's). */
static struct atag_leak_group *group(struct build *b, uint64_t gid)
{
	if (!gid)
		return &b->snap->g;
	if (gid % 2 == 0)
		return &b->snap->sites[(gid - 2) / 2].g;
	return &b->stacks[(gid - 3) / 2].s.g;
}

static bool more_tasks(const struct atag_leak_task *a, uint64_t allocs, int pid)
{
	return allocs > a->allocs || (allocs == a->allocs && pid < a->pid);
}

/* Each group's tasks: those that made most of its old allocations. */
static void rank_tasks(struct build *b)
{
	struct atag_map_entry *e;
	struct atag_leak_group *g;
	const struct live_name *n;
	unsigned int i, at;
	int pid;

	for (e = b->task_count.e; e && e < b->task_count.e + b->task_count.cap; e++) {
		if (e->key == ATAG_MAP_EMPTY)
			continue;
		g = group(b, e->key >> 32);
		pid = (int)(uint32_t)e->key;
		for (at = 0; at < g->nr_tasks && !more_tasks(&g->tasks[at], e->val, pid); at++)
			;
		if (at == ATAG_LEAK_TASKS) {
			g->more_tasks++;
			continue;
		}
		if (g->nr_tasks == ATAG_LEAK_TASKS)
			g->more_tasks++;
		else
			g->nr_tasks++;
		for (i = g->nr_tasks - 1; i > at; i--)
			g->tasks[i] = g->tasks[i - 1];
		memset(&g->tasks[at], 0, sizeof(g->tasks[at]));
		g->tasks[at].pid = pid;
		g->tasks[at].allocs = e->val;
	}
	for (e = b->task_count.e; e && e < b->task_count.e + b->task_count.cap; e++) {
		if (e->key == ATAG_MAP_EMPTY)
			continue;
		g = group(b, e->key >> 32);
		for (i = 0; i < g->nr_tasks; i++) {
			if (g->tasks[i].pid != (int)(uint32_t)e->key || g->tasks[i].comm[0])
				continue;
			n = live_tasks_name(&b->lv->tasks, g->tasks[i].pid);
			g->tasks[i].exited = n ? n->exited : -1;
			if (n)
				memcpy(g->tasks[i].comm, n->comm, sizeof(n->comm));
		}
	}
}

static int cmp_groups(const struct atag_leak_group *a, const struct atag_leak_group *b)
{
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->allocs != b->allocs)
		return a->allocs > b->allocs ? -1 : 1;
	return (a->oldest_ns < b->oldest_ns) - (a->oldest_ns > b->oldest_ns);
}

static int cmp_stacks(const void *pa, const void *pb)
{
	const struct atag_leak_stack *a = pa, *b = pb;

	return cmp_groups(&a->g, &b->g);
}

static int cmp_sites(const void *pa, const void *pb)
{
	const struct atag_leak_site *a = pa, *b = pb;
	int c = cmp_groups(&a->g, &b->g);

	if (c || !a->function || !b->function)
		return c ? c : (a->tag > b->tag) - (a->tag < b->tag);
	return strcmp(a->function, b->function);
}

/* Hand the stacks to their sites, drop the sites with nothing old, sort. */
static int finish_sites(struct build *b)
{
	struct atag_leak_snapshot *snap = b->snap;
	struct atag_leak_site *s;
	size_t i, n = 0;

	for (i = 0; i < snap->nr_sites; i++) {
		s = &snap->sites[i];
		s->stacks = s->g.allocs ? calloc(s->g.allocs < b->nr_stacks ? s->g.allocs :
						 b->nr_stacks, sizeof(*s->stacks)) : NULL;
		if (s->g.allocs && !s->stacks)
			return -ENOMEM;
	}
	for (i = 0; i < b->nr_stacks; i++) {
		s = &snap->sites[b->stacks[i].site];
		s->stacks[s->nr_stacks++] = b->stacks[i].s;
	}
	for (i = 0; i < snap->nr_sites; i++) {
		s = &snap->sites[i];
		if (!s->g.allocs)
			continue;
		/* qsort() takes no NULL array, not even of none (a site without stacks) */
		if (s->nr_stacks > 1)
			qsort(s->stacks, s->nr_stacks, sizeof(*s->stacks), cmp_stacks);
		snap->sites[n++] = *s;
	}
	snap->nr_sites = n;
	/* an interval without sites has no array */
	if (n > 1)
		qsort(snap->sites, n, sizeof(*snap->sites), cmp_sites);
	return 0;
}

static bool owns_live(void *ctx, int pid)
{
	struct build *b = ctx;

	return atag_map_find(&b->owners, (uint32_t)pid) != NULL;
}

/* The interval's losses, and the state they leave. */
static void note_losses(struct atag_liveview *lv, struct atag_leak_snapshot *snap)
{
	snap->lost_known = live_lost(lv, &snap->lost_total);
	snap->lost = snap->lost_total - lv->lost_at_snap;
	if (snap->lost || lv->gaps > lv->gaps_at_snap)
		lv->lossy_intervals++;
	lv->lost_at_snap = snap->lost_total;
	lv->gaps_at_snap = lv->gaps;
	snap->lossy_intervals = lv->lossy_intervals;
	snap->uncertain = lv->last_loss_ts != 0;
}

int atag_live_leaks(struct atag_liveview *lv, const struct atag_leak_opts *o,
		    struct atag_leak_snapshot *snap)
{
	struct build b = { .lv = lv, .snap = snap, .min_age = o->min_age_ns };
	const struct atag_live *l;
	uint64_t mono = live_now_ns();
	size_t iter = 0;
	unsigned int k;
	int ret = 0;

	memset(snap, 0, sizeof(*snap));
	b.priv = calloc(1, sizeof(*b.priv));
	if (!b.priv)
		return -ENOMEM;
	snap->priv = b.priv;
	for (k = 0; k < lv->nr_src; k++)
		snap->sources[k] = lv->srcs[k]->name;
	/* ages by the records' clock: CLOCK_MONOTONIC, else the last record's time */
	b.now = lv->mono ? mono : lv->last_ts;
	snap->interval = ++lv->intervals;
	snap->elapsed_ns = mono - lv->start_ns;
	snap->interval_ns = mono - lv->last_snap_ns;
	lv->last_snap_ns = mono;
	snap->min_age_ns = o->min_age_ns;
	snap->stack_every = lv->stack_every;
	snap->records = lv->cpus.records;
	note_losses(lv, snap);
	if (snap->uncertain)
		snap->loss_age_ns = b.now > lv->last_loss_ts ? b.now - lv->last_loss_ts : 0;
	while (!ret && (l = atag_stitch_live_next(lv->st, &iter)))
		if (l->counted && !l->pending)
			ret = add_live(&b, l);
	if (!ret) {
		rank_tasks(&b);
		ret = finish_sites(&b);
	}
	/* the names of exited tasks that own nothing live go */
	if (!ret)
		live_tasks_forget_exited(&lv->tasks, owns_live, &b);
	snap->tasks = live_tasks_nr_names(&lv->tasks);
	atag_map_free(&b.site_of);
	atag_map_free(&b.stack_of);
	atag_map_free(&b.task_count);
	atag_map_free(&b.owners);
	free(b.site_ex_ts);
	free(b.stacks);
	if (ret)
		atag_leak_snapshot_release(snap);
	return ret;
}

void atag_leak_snapshot_release(struct atag_leak_snapshot *snap)
{
	struct leak_priv *p = snap->priv;
	size_t i;

	for (i = 0; i < snap->nr_sites; i++)
		free(snap->sites[i].stacks);
	free(snap->sites);
	if (p)
		live_frame_store_free(&p->frames);
	free(p);
	memset(snap, 0, sizeof(*snap));
}
