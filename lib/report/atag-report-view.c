// SPDX-License-Identifier: LGPL-2.1
/*
 * The view of a report: which call sites are selected, in which order, the
 * totals over them, and the live allocations oldest first. See atag-report.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-map.h"
#include "atag-report.h"
#include "atag-rows.h"
#include "atag-sort.h"
#include "atag-source.h"
#include "atag-suspect.h"
#include "atag-utils.h"

static uint64_t key_value(const struct atag_sort_key *k, const struct atag_report_tag *t)
{
	switch (k->kind) {
	case ATAG_SORT_COUNTER:
		return atag_counter_value(&t->counts, &atag_counter_fields[k->arg]);
	case ATAG_SORT_PERCENTILE:
		return atag_lifetime_percentile(&t->lifetimes, k->arg);
	case ATAG_SORT_MAX:
		return t->lifetimes.max;
	default:
		return 0;
	}
}

char *atag_report_site(const struct atag_report_tag *t, char *buf, size_t len)
{
	if (!t->function) {
		snprintf(buf, len, "0x%llx", (unsigned long long)t->tag);
		return buf;
	}
	return atag_site_text(buf, len, t->function, t->offset, t->file, t->line, t->module);
}

static int cmp_site(const struct atag_report_tag *a, const struct atag_report_tag *b)
{
	char x[512], y[512];

	return strcmp(atag_report_site(a, x, sizeof(x)), atag_report_site(b, y, sizeof(y)));
}

/* The place of source @name in the registry. */
static int source_rank(const char *name)
{
	int i;

	for (i = 0; atag_sources[i]; i++)
		if (!strcmp(atag_sources[i]->name, name))
			return i;
	return i;
}

static int cmp_tags(const void *pa, const void *pb, void *arg)
{
	const struct atag_report_tag *a = *(const struct atag_report_tag * const *)pa;
	const struct atag_report_tag *b = *(const struct atag_report_tag * const *)pb;
	const struct atag_sort_key *key = arg;
	uint64_t va, vb;
	int ra, rb;

	if (a->selected != b->selected)
		return a->selected ? -1 : 1;
	if (a->source != b->source) {
		ra = source_rank(a->source);
		rb = source_rank(b->source);
		if (ra != rb)
			return ra < rb ? -1 : 1;
	}
	if (key->kind != ATAG_SORT_SITE) {
		va = key_value(key, a);
		vb = key_value(key, b);
		if (va != vb)
			return va > vb ? -1 : 1;
		/* ties: the busier call site first, then by name for a stable order */
		if (a->counts.bytes_alloced != b->counts.bytes_alloced)
			return a->counts.bytes_alloced > b->counts.bytes_alloced ? -1 : 1;
	}
	return cmp_site(a, b);
}

static int cmp_stacks(const void *pa, const void *pb)
{
	const struct atag_report_stack *a = *(const struct atag_report_stack * const *)pa;
	const struct atag_report_stack *b = *(const struct atag_report_stack * const *)pb;
	unsigned int i;
	int c;

	if (a->counts.allocs != b->counts.allocs)
		return a->counts.allocs > b->counts.allocs ? -1 : 1;
	if (a->counts.live_bytes != b->counts.live_bytes)
		return a->counts.live_bytes > b->counts.live_bytes ? -1 : 1;
	/* the names are the report's, each once: the same pointer is the same name */
	for (i = 0; i < a->nr_frames && i < b->nr_frames; i++) {
		if (a->frames[i] == b->frames[i])
			continue;
		c = strcmp(a->frames[i], b->frames[i]);
		if (c)
			return c;
	}
	return (int)a->nr_frames - (int)b->nr_frames;
}

static int cmp_live(const void *pa, const void *pb)
{
	const struct atag_report_live *a = pa, *b = pb;

	if (a->age_ns != b->age_ns)
		return a->age_ns > b->age_ns ? -1 : 1;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->ptr < b->ptr ? -1 : a->ptr > b->ptr;
}

bool atag_view_selects(const struct atag_report_view *v, const char *function, const char *file,
		       const char *module)
{
	if (v->function && !atag_glob_match(v->function, function))
		return false;
	if (v->file && !atag_glob_match(v->file, file))
		return false;
	if (v->module && !atag_glob_match(v->module, module))
		return false;
	return true;
}

static bool tag_selected(const struct atag_report_tag *t, const struct atag_report_view *v)
{
	return atag_view_selects(v, t->function, t->file, t->module);
}

bool atag_report_stacks_sampled(const struct atag_report *r, const struct atag_report_tag *t)
{
	unsigned int k;

	for (k = 0; k < r->nr_sources; k++)
		if (!strcmp(r->sources[k].name, t->source))
			return r->sources[k].stack_every > 0;
	return false;
}

double atag_report_stack_scale(const struct atag_report *r, const struct atag_report_tag *t)
{
	if (!atag_report_stacks_sampled(r, t))
		return 1;
	return t->stacked ? (double)t->counts.allocs / t->stacked : 0;
}

void atag_report_stack_estimate(const struct atag_report *r, const struct atag_report_tag *t,
				const struct atag_report_stack *s, struct atag_counters *out)
{
	double scale = s->nr_frames ? atag_report_stack_scale(r, t) : 1;

	*out = s->counts;
	if (scale == 1)
		return;
	if (s->estimate) {
		*out = *s->estimate;
		return;
	}
	out->allocs = s->counts.allocs * scale + 0.5;
	out->live = s->counts.live * scale + 0.5;
	out->live_bytes = s->counts.live_bytes * scale + 0.5;
	out->bytes_alloced = s->counts.bytes_alloced * scale + 0.5;
	out->frees = s->counts.frees * scale + 0.5;
	out->bytes_freed = s->counts.bytes_freed * scale + 0.5;
	out->peak_live_bytes = s->counts.peak_live_bytes * scale + 0.5;
	out->unmatched_frees = s->counts.unmatched_frees * scale + 0.5;
	out->partial_frees = s->counts.partial_frees * scale + 0.5;
	out->replaced = s->counts.replaced * scale + 0.5;
}

/* Why @l is live although no leak, or NULL: a suspect. */
static const char *suspect_explain(const struct atag_report_live *l)
{
	const struct atag_report_tag *t = l->tag;
	struct atag_suspect_facts f = {
		.source = t->source,
		.function = t->function,
		.frames = l->stack ? (const char *const *)l->stack->frames : NULL,
		.nr_frames = l->stack ? l->stack->nr_frames : 0,
		.task_exited = l->task_exited,
		.replaced = t->counts.replaced,
		.unmatched_frees = t->counts.unmatched_frees,
		.partial_frees = t->counts.partial_frees,
	};

	return atag_suspect_why(&f);
}

/*
 * What the verdict on @l depends on, as a key: its call site and whether its task
 * exited, and for a page its stack too (atag_suspect_why() reads the frames of
 * pages only). The low two bits of a pointer to a struct are free.
 */
static uint64_t suspect_key(const struct atag_report_live *l)
{
	const void *of = l->tag;

	if (l->stack && !strcmp(l->tag->source, "page"))
		of = l->stack;
	return (uintptr_t)of | (uint64_t)(l->task_exited + 1);
}

/*
 * Set suspect and suspect_why of every allocation of r->live, and the live_suspects
 * of r->totals and of each source's totals. The verdict is worked out once per
 * call site (and task state; per stack for pages), not once per allocation: the
 * rules match names against patterns, and a report can list a million live
 * allocations of a few hundred call sites.
 */
static void classify_suspects(struct atag_report *r)
{
	struct atag_map memo = { 0 };
	struct atag_report_live *l;
	uint64_t *why;
	unsigned int k;
	bool created;
	size_t i;

	r->totals.live_suspects = 0;
	for (k = 0; k < r->nr_sources; k++)
		r->sources[k].totals.live_suspects = 0;
	for (i = 0; i < r->nr_live; i++) {
		l = &r->live[i];
		why = atag_map_get(&memo, suspect_key(l), 0, &created);
		if (!why)
			l->suspect_why = suspect_explain(l);
		else if (created)
			*why = (uintptr_t)(l->suspect_why = suspect_explain(l));
		else
			l->suspect_why = (const char *)(uintptr_t)*why;
		l->suspect = !l->suspect_why;
		if (!l->suspect)
			continue;
		r->totals.live_suspects++;
		for (k = 0; k < r->nr_sources; k++)
			if (!strcmp(r->sources[k].name, l->tag->source))
				r->sources[k].totals.live_suspects++;
	}
	atag_map_free(&memo);
}

/*
 * The estimates of @t's sampled stacks (those with frames), in their order. Each of
 * a stack's ATAG_COUNTERS_STACK is its share of that counter among the sampled
 * stacks, times the call site's: a stack with a tenth of the sampled bytes stands
 * for a tenth of the call site's bytes (none when the sampled stacks have none of
 * it: it stays the call site's). Its other counters are scaled by the ratio of
 * counts (atag_report_stack_scale()). The shares are rounded so that they add up:
 * each stack gets the rounded running sum less the rounded sum before it, so none
 * is off by a whole unit and the stacks add up to the call site, where rounding
 * each alone would exceed it (3 allocations, 2 stacks of one: 2 + 2).
 */
/* @x rounded to a count, at most UINT64_MAX (counters reach 2^64 - 1 in damaged files) */
static uint64_t rounded(double x)
{
	return x + 0.5 >= 0x1p64 ? UINT64_MAX : (uint64_t)(x + 0.5);
}

static int estimate_stacks(const struct atag_report *r, struct atag_report_tag *t)
{
	double factor[ATAG_NR_COUNTERS], sum[ATAG_NR_COUNTERS] = { 0 };
	uint64_t sampled[ATAG_NR_COUNTERS] = { 0 }, done[ATAG_NR_COUNTERS] = { 0 }, *v, next;
	double scale = atag_report_stack_scale(r, t);
	const struct atag_counter_field *f;
	struct atag_report_stack *s;
	unsigned int k;
	size_t i;

	for (i = 0; i < t->nr_stacks; i++)
		for (k = 0; t->stacks[i]->nr_frames && k < ATAG_NR_COUNTERS; k++)
			sampled[k] += atag_counter_value(&t->stacks[i]->counts,
							 &atag_counter_fields[k]);
	for (k = 0; k < ATAG_NR_COUNTERS; k++) {
		f = &atag_counter_fields[k];
		if (!(ATAG_COUNTERS_STACK & (1u << k)))
			factor[k] = scale;
		else
			factor[k] = sampled[k] ? (double)atag_counter_value(&t->counts, f) /
						 sampled[k] : 0;
	}
	for (i = 0; i < t->nr_stacks; i++) {
		s = t->stacks[i];
		if (!s->nr_frames)
			continue;
		if (!s->estimate) {
			s->estimate = malloc(sizeof(*s->estimate));
			if (!s->estimate)
				return atag_err(-ENOMEM);
		}
		for (k = 0; k < ATAG_NR_COUNTERS; k++) {
			f = &atag_counter_fields[k];
			v = (uint64_t *)((char *)s->estimate + f->offset);
			sum[k] += atag_counter_value(&s->counts, f) * factor[k];
			next = rounded(sum[k]);
			*v = next - done[k];
			done[k] = next;
		}
	}
	return 0;
}

int atag_report_finish(struct atag_report *r, const struct atag_report_view *view)
{
	static const struct atag_report_view none = { 0 };
	struct atag_report_source *src;
	unsigned int k;
	const struct atag_sort_key *key;
	size_t i, n;

	if (!view)
		view = &none;
	key = atag_sort_key(view->sort ? view->sort : ATAG_SORT_DEFAULT);
	if (!key)
		return atag_err(-EINVAL);

	memset(&r->totals, 0, sizeof(r->totals));
	r->nr_selected = 0;
	for (k = 0; k < r->nr_sources; k++) {
		memset(&r->sources[k].totals, 0, sizeof(r->sources[k].totals));
		memset(&r->sources[k].inflation, 0, sizeof(r->sources[k].inflation));
		r->sources[k].nr_tags = r->sources[k].nr_selected = 0;
		r->sources[k].stacked = 0;
	}
	for (i = 0; i < r->nr_tags; i++) {
		src = NULL;
		for (k = 0; k < r->nr_sources && !src; k++)
			if (!strcmp(r->sources[k].name, r->tags[i]->source))
				src = &r->sources[k];
		if (src)
			src->nr_tags++;
		r->tags[i]->selected = tag_selected(r->tags[i], view);
		if (!r->tags[i]->selected)
			continue;
		r->nr_selected++;
		atag_totals_add(&r->totals, &r->tags[i]->counts);
		if (src) {
			src->nr_selected++;
			atag_totals_add(&src->totals, &r->tags[i]->counts);
			atag_inflation_add(&src->inflation, &r->tags[i]->inflation);
			src->stacked += r->tags[i]->stacked;
		}
		if (r->tags[i]->nr_stacks > 1)
			qsort(r->tags[i]->stacks, r->tags[i]->nr_stacks,
			      sizeof(*r->tags[i]->stacks), cmp_stacks);
		if (atag_report_stacks_sampled(r, r->tags[i]) && estimate_stacks(r, r->tags[i]))
			return -ENOMEM;
	}
	if (r->nr_tags > 1)
		qsort_r(r->tags, r->nr_tags, sizeof(*r->tags), cmp_tags,
			(void *)key);

	/* the live list keeps the selected call sites' allocations old enough */
	for (i = 0, n = 0; i < r->nr_live; i++) {
		if (!r->live[i].tag->selected || r->live[i].age_ns < view->min_age) {
			free(r->live[i].comm);
			continue;
		}
		r->live[n++] = r->live[i];
	}
	r->nr_live = n;
	if (r->nr_live > 1)
		qsort(r->live, r->nr_live, sizeof(*r->live), cmp_live);
	classify_suspects(r);
	return 0;
}
