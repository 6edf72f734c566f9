// SPDX-License-Identifier: LGPL-2.1
/*
 * The timelines of a report: the timeline one source of one file kept
 * (atag-timeline.c), folded onto the report's call sites and stacks while the
 * file is folded in (atag-fold.c). See struct atag_report_timeline.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atag-fold.h"
#include "atag-map.h"
#include "atag-stitch.h"
#include "atag-timeline.h"

static void timeline_free(struct atag_report_timeline *t)
{
	size_t i;

	free(t->total);
	free(t->total_max);
	for (i = 0; i < t->nr_sites; i++) {
		free(t->sites[i].live);
		free(t->sites[i].max);
	}
	free(t->sites);
	free(t->stacks);
}

void atag_report_timelines_trim(struct atag_report *r, unsigned int nr)
{
	while (r->nr_timelines > nr)
		timeline_free(&r->timelines[--r->nr_timelines]);
	if (!r->nr_timelines) {
		free(r->timelines);
		r->timelines = NULL;
	}
}

const struct atag_report_timeline_site *
atag_report_timeline_site(const struct atag_report_timeline *t, const struct atag_report_tag *tag)
{
	size_t i;

	for (i = 0; i < t->nr_sites; i++)
		if (t->sites[i].tag == tag)
			return &t->sites[i];
	return NULL;
}

static uint64_t *copy(const uint64_t *v, unsigned int n)
{
	uint64_t *c = malloc((n ? n : 1) * sizeof(*c));

	if (c && n)
		memcpy(c, v, n * sizeof(*c));
	return c;
}

/* The site of @tag in @t, added on first sight; NULL on ENOMEM. */
static struct atag_report_timeline_site *site_of(struct atag_report_timeline *t,
						 struct atag_report_tag *tag, GHashTable *idx)
{
	struct atag_report_timeline_site *s;
	gpointer at;

	if (g_hash_table_lookup_extended(idx, tag, NULL, &at))
		return &t->sites[GPOINTER_TO_SIZE(at)];
	s = realloc(t->sites, (t->nr_sites + 1) * sizeof(*s));
	if (!s)
		return NULL;
	t->sites = s;
	s = &s[t->nr_sites];
	memset(s, 0, sizeof(*s));
	s->tag = tag;
	s->live = calloc(t->nr_buckets ? t->nr_buckets : 1, sizeof(*s->live));
	s->max = calloc(t->nr_buckets ? t->nr_buckets : 1, sizeof(*s->max));
	if (!s->live || !s->max) {
		free(s->live);
		free(s->max);
		return NULL;
	}
	g_hash_table_insert(idx, tag, GSIZE_TO_POINTER(t->nr_sites));
	t->nr_sites++;
	return s;
}

/* Several of the file's tags may be one call site of the report: they add up. */
static int fold_sites(struct atag_report_timeline *t, struct atag_timeline *tl,
		      struct atag_report_tag **tags, size_t nr_tags)
{
	struct atag_report_timeline_site *s;
	const uint64_t *live, *max;
	GHashTable *idx = g_hash_table_new(g_direct_hash, g_direct_equal);
	unsigned int b;
	size_t i;
	int ret = 0;

	for (i = 0; i < nr_tags && i < atag_timeline_nr_sites(tl); i++) {
		live = atag_timeline_site(tl, i, &max);
		if (!tags[i] || !live)
			continue;
		s = site_of(t, tags[i], idx);
		if (!s) {
			ret = -ENOMEM;
			break;
		}
		for (b = 0; b < t->nr_buckets; b++) {
			s->live[b] += live[b];
			/* the maxima of two tags need not coincide: their sum bounds it */
			s->max[b] += max[b];
		}
		s->at_peak += atag_timeline_site_at_peak(tl, i);
	}
	g_hash_table_destroy(idx);
	return ret;
}

static int by_bytes(const void *a, const void *b)
{
	const struct atag_report_timeline_stack *x = a, *y = b;

	return x->at_peak < y->at_peak ? 1 : x->at_peak > y->at_peak ? -1 : 0;
}

/*
 * The stacks that held bytes at the peak, as the report names them. Pairs the
 * fold merged (a report stack is of one tag; no stack: the tag alone) add up
 * into one, found in a map: a scan of those found so far was quadratic (16 000
 * stacks live at the peak took 1.2 s, 64 000 took 12 s).
 */
static int fold_stacks(struct atag_report_timeline *t, struct atag_timeline *tl,
		       struct atag_aggr *aggr, struct atag_report_tag **tags,
		       const struct atag_map *by_pair)
{
	struct atag_report_timeline_stack *st;
	const struct atag_stack_stats *ss;
	struct atag_report_stack *rs;
	struct atag_map seen = { 0 };
	uint64_t v, *at;
	size_t i, cap = 0;
	bool created;
	int ret = 0;

	for (i = 0; i < atag_timeline_nr_stacks(tl); i++) {
		v = atag_timeline_stack_at_peak(tl, i);
		ss = atag_aggr_stack(aggr, i);
		if (!v || !ss || !tags[ss->tag_idx])
			continue;
		rs = atag_fold_pair(by_pair, (uint64_t)ss->tag_idx << 32 | ss->stack_id);
		/* an object's address is even: the tag's, plus one, stands for no stack */
		at = atag_map_get(&seen, rs ? (uintptr_t)rs : (uintptr_t)tags[ss->tag_idx] + 1,
				  t->nr_stacks, &created);
		if (!at) {
			ret = -ENOMEM;
			break;
		}
		if (created) {
			if (t->nr_stacks == cap) {
				cap = cap ? 2 * cap : 16;
				st = realloc(t->stacks, cap * sizeof(*st));
				if (!st) {
					ret = -ENOMEM;
					break;
				}
				t->stacks = st;
			}
			st = &t->stacks[t->nr_stacks++];
			st->tag = tags[ss->tag_idx];
			st->stack = rs;
			st->at_peak = 0;
		}
		t->stacks[*at].at_peak += v;
	}
	atag_map_free(&seen);
	if (!ret && t->nr_stacks)
		qsort(t->stacks, t->nr_stacks, sizeof(*t->stacks), by_bytes);
	return ret;
}

int atag_fold_timeline(struct atag_report *r, const char *source, struct atag_aggr *aggr,
		       struct atag_report_tag **tags, const struct atag_map *by_pair)
{
	struct atag_timeline *tl = atag_aggr_timeline(aggr);
	struct atag_report_timeline *t;
	const uint64_t *total, *max;
	unsigned int nr = r->nr_timelines;
	int ret;

	if (!tl)
		return 0;
	atag_timeline_finish(tl);
	t = realloc(r->timelines, (r->nr_timelines + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	r->timelines = t;
	t = &t[r->nr_timelines++];
	memset(t, 0, sizeof(*t));
	t->file = r->nr_files - 1;
	t->source = source;
	t->start = atag_timeline_start(tl);
	t->width = atag_timeline_width(tl);
	t->nr_buckets = atag_timeline_nr_buckets(tl);
	t->nr_asked = atag_timeline_cap(tl);
	t->peak = atag_timeline_peak(tl, &t->peak_ts);
	total = atag_timeline_total(tl, &max);
	t->total = copy(total, t->nr_buckets);
	t->total_max = copy(max, t->nr_buckets);
	ret = t->total && t->total_max ? 0 : -ENOMEM;
	if (!ret)
		ret = fold_sites(t, tl, tags, atag_aggr_nr_tags(aggr));
	if (!ret)
		ret = fold_stacks(t, tl, aggr, tags, by_pair);
	if (ret)
		atag_report_timelines_trim(r, nr);
	return ret;
}
