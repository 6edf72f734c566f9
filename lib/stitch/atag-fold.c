// SPDX-License-Identifier: LGPL-2.1
/*
 * Folding the aggregates of one file into the report: call sites that can be
 * compared across files, their stacks as symbolised frames, and the live
 * allocations. See atag-fold.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atag-fold.h"
#include "atag-read.h"
#include "atag-run.h"
#include "atag-source.h"
#include "atag-symbols.h"
#include "atag-trace.h"

struct atag_fold {
	GHashTable	*tag_by_key;	/* identity -> struct atag_report_tag * */
	size_t		cap_tags;
	size_t		cap_live;
};

struct atag_fold *atag_fold_alloc(void)
{
	struct atag_fold *fold = calloc(1, sizeof(*fold));

	if (fold)
		fold->tag_by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return fold;
}

void atag_fold_free(struct atag_fold *fold)
{
	if (!fold)
		return;
	g_hash_table_destroy(fold->tag_by_key);
	free(fold);
}

/* One file being folded in. */
struct file_fold {
	struct atag_fold		*fold;
	struct atag_report		*r;
	const struct atag_run		*run;
	struct atag_reader		*rd;
	bool				raw_stacks;
	struct atag_report_tag		**tags;		/* by the file's tag index */
	GHashTable			*by_pair;	/* tag_idx << 32 | stack_id -> stack */
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The identity of a call site across files. */
static char *tag_key(const struct atag_tag_stats *t, const char *function, long long offset,
		     const char *module)
{
	if (!function)
		return g_strdup_printf("0x%llx", (unsigned long long)t->tag);
	return g_strdup_printf("%s\x1f%s\x1f%ld\x1f%s\x1f%lld", function, t->file ? t->file : "",
			       t->line, module ? module : "", offset);
}

static struct atag_report_tag *report_tag(struct file_fold *ff, const struct atag_tag_stats *t)
{
	const char *function = t->function, *module = t->module;
	struct atag_fold *fold = ff->fold;
	struct atag_report_tag *rt, **tags;
	struct atag_report *r = ff->r;
	long long offset = -1;
	uint64_t off = 0;
	char *key;

	if (!function && t->tag && atag_decoder_name_tag(atag_reader_decoder(ff->rd), t->tag,
							 &function, &off, &module))
		offset = off;
	key = tag_key(t, function, offset, module);
	rt = g_hash_table_lookup(fold->tag_by_key, key);
	if (rt) {
		g_free(key);
		return rt;
	}
	if (r->nr_tags == fold->cap_tags) {
		fold->cap_tags = fold->cap_tags ? fold->cap_tags * 2 : 64;
		tags = realloc(r->tags, fold->cap_tags * sizeof(*tags));
		if (!tags)
			goto nomem;
		r->tags = tags;
	}
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		goto nomem;
	rt->tag = t->tag;
	rt->function = dup_or_null(function);
	rt->file = dup_or_null(t->file);
	rt->module = dup_or_null(module);
	rt->line = t->line;
	rt->offset = offset;
	rt->selected = true;
	r->tags[r->nr_tags++] = rt;
	g_hash_table_insert(fold->tag_by_key, key, rt);
	return rt;
nomem:
	g_free(key);
	return NULL;
}

static int fold_tag(struct atag_report_tag *rt, const struct atag_tag_stats *t)
{
	atag_counters_add(&rt->counts, &t->counts);
	return atag_lifetime_merge(&rt->lifetimes, &t->lifetimes);
}

/* The frames of stack @stack_id as the report shows them ("function+0xoff"). */
static char **symbolize_frames(struct file_fold *ff, uint32_t stack_id, unsigned int *nr)
{
	struct atag_trace *trace = atag_reader_trace(ff->rd);
	const uint64_t *frames;
	unsigned int n, skip, i;
	char buf[256], **out;

	frames = atag_stacks_get(ff->run->stacks, stack_id, &n);
	skip = ff->raw_stacks ? 0 :
	       atag_stack_skip(atag_decoder_frames(atag_reader_decoder(ff->rd)), frames, n);
	*nr = n - skip;
	if (!*nr)
		return NULL;
	out = calloc(*nr, sizeof(*out));
	for (i = 0; out && i < *nr; i++)
		out[i] = strdup(atag_symbolize(atag_trace_tep(trace), atag_trace_modules(trace),
					       frames[skip + i], buf, sizeof(buf)));
	return out;
}

static bool same_frames(const struct atag_report_stack *s, char **frames, unsigned int nr)
{
	unsigned int i;

	if (s->nr_frames != nr)
		return false;
	for (i = 0; i < nr; i++)
		if (strcmp(s->frames[i], frames[i]))
			return false;
	return true;
}

/* The stack of @rt with these frames (taking them), added on first sight. */
static struct atag_report_stack *report_stack(struct atag_report_tag *rt, char **frames,
					      unsigned int nr)
{
	struct atag_report_stack *s, **p;
	size_t i;

	for (i = 0; i < rt->nr_stacks; i++) {
		if (same_frames(rt->stacks[i], frames, nr)) {
			for (; nr; nr--)
				free(frames[nr - 1]);
			free(frames);
			return rt->stacks[i];
		}
	}
	p = realloc(rt->stacks, (rt->nr_stacks + 1) * sizeof(*p));
	s = calloc(1, sizeof(*s));
	if (!p || !s) {
		free(s);
		return NULL;
	}
	rt->stacks = p;
	s->frames = frames;
	s->nr_frames = nr;
	rt->stacks[rt->nr_stacks++] = s;
	return s;
}

static int fold_stacks(struct file_fold *ff)
{
	const struct atag_stack_stats *s;
	struct atag_report_stack *rs;
	struct atag_aggr *aggr = ff->run->aggr;
	unsigned int nr;
	char **frames;
	uint64_t key;
	size_t i;

	for (i = 0; i < atag_aggr_nr_stacks(aggr); i++) {
		s = atag_aggr_stack(aggr, i);
		if (!ff->tags[s->tag_idx] || !s->counts.allocs)
			continue;
		frames = symbolize_frames(ff, s->stack_id, &nr);
		rs = report_stack(ff->tags[s->tag_idx], frames, nr);
		if (!rs)
			return -ENOMEM;
		atag_counters_add(&rs->counts, &s->counts);
		key = (uint64_t)s->tag_idx << 32 | s->stack_id;
		g_hash_table_insert(ff->by_pair, g_memdup2(&key, sizeof(key)), rs);
	}
	return 0;
}

static int add_live(struct file_fold *ff, const struct atag_live *l)
{
	uint64_t key = (uint64_t)l->tag_idx << 32 | l->stack_id;
	uint64_t last_ts = atag_reader_stats(ff->rd)->last_ts;
	struct atag_report *r = ff->r;
	struct atag_report_live *lv;

	if (!l->counted || !ff->tags[l->tag_idx])
		return 0;
	if (r->nr_live == ff->fold->cap_live) {
		ff->fold->cap_live = ff->fold->cap_live ? ff->fold->cap_live * 2 : 256;
		lv = realloc(r->live, ff->fold->cap_live * sizeof(*lv));
		if (!lv)
			return -ENOMEM;
		r->live = lv;
	}
	lv = &r->live[r->nr_live++];
	lv->ptr = l->ptr;
	lv->tag = ff->tags[l->tag_idx];
	lv->stack = g_hash_table_lookup(ff->by_pair, &key);
	lv->bytes = l->bytes;
	lv->pid = l->pid;
	lv->comm = dup_or_null(atag_trace_comm(atag_reader_trace(ff->rd), l->pid));
	lv->alloc_ts = l->ts;
	lv->age_ns = last_ts > l->ts ? last_ts - l->ts : 0;
	lv->file = r->nr_files - 1;
	return 0;
}

static guint u64_hash(gconstpointer k)
{
	uint64_t v = *(const uint64_t *)k;

	return (guint)(v ^ (v >> 32)) * 2654435761u;
}

static gboolean u64_equal(gconstpointer a, gconstpointer b)
{
	return *(const uint64_t *)a == *(const uint64_t *)b;
}

int atag_fold_file(struct atag_fold *fold, struct atag_report *r, const struct atag_run *run,
		   struct atag_reader *rd, bool raw_stacks)
{
	struct file_fold ff = { .fold = fold, .r = r, .run = run, .rd = rd,
				.raw_stacks = raw_stacks };
	size_t i, n = atag_aggr_nr_tags(run->aggr), iter = 0;
	const struct atag_tag_stats *t;
	const struct atag_live *l;
	int ret = -ENOMEM;

	ff.tags = calloc(n + 1, sizeof(*ff.tags));
	ff.by_pair = g_hash_table_new_full(u64_hash, u64_equal, g_free, NULL);
	if (!ff.tags)
		goto out;
	for (i = 0; i < n; i++) {
		t = atag_aggr_tag(run->aggr, i);
		/* a tag seen only in hits, with nothing allocated or freed, is not a row */
		if (!t->counts.allocs && !t->counts.unmatched_frees && !t->counts.frees)
			continue;
		ff.tags[i] = report_tag(&ff, t);
		if (!ff.tags[i] || fold_tag(ff.tags[i], t))
			goto out;
	}
	ret = fold_stacks(&ff);
	while (!ret && (l = atag_stitch_live_next(run->st, &iter)))
		ret = add_live(&ff, l);
out:
	free(ff.tags);
	g_hash_table_destroy(ff.by_pair);
	return ret;
}
