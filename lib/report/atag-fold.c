// SPDX-License-Identifier: LGPL-2.1
/*
 * Folding the aggregates of one file into the report: call sites that can be
 * compared across files, their stacks as symbolised frames (with source lines
 * when debug information is given), the live allocations, and per source what
 * the scope and the recording's selection left out. See atag-fold.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atag-debuginfo.h"
#include "atag-fold.h"
#include "atag-map.h"
#include "atag-read.h"
#include "atag-recording.h"
#include "atag-run.h"
#include "atag-source.h"
#include "atag-symbols.h"
#include "atag-trace.h"

/* A stack of a call site as the report shows it: its tag and its frames' names. */
struct folded_stack {
	const struct atag_report_tag	*rt;
	struct atag_report_stack	*s;
};

struct atag_fold {
	GHashTable	*tag_by_key;	/* identity -> struct atag_report_tag * */
	/*
	 * The stacks folded, found by their tag and their frames' names: a hash of
	 * them (the next value on a collision) -> index into stacks. Neither holds a
	 * copy of the frames: a stack's own array of names is its key.
	 */
	struct atag_map		stack_index;
	struct folded_stack	*stacks;
	size_t			nr_stacks;
	size_t			cap_stacks;
	/*
	 * The frames' names, each once for the report ("function+0xoff"): the report's
	 * stacks point into it, so that two stacks with the same frames hold the same
	 * pointers, and a stack is found by its tag and those pointers.
	 */
	GHashTable	*names;
	size_t		cap_tags;
	size_t		cap_live;
};

struct atag_fold *atag_fold_alloc(void)
{
	struct atag_fold *fold = calloc(1, sizeof(*fold));

	if (!fold)
		return NULL;
	fold->tag_by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	fold->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return fold;
}

void atag_fold_free(struct atag_fold *fold)
{
	if (!fold)
		return;
	g_hash_table_destroy(fold->tag_by_key);
	atag_map_free(&fold->stack_index);
	free(fold->stacks);
	g_hash_table_destroy(fold->names);
	free(fold);
}

struct atag_report_source *atag_fold_source(struct atag_report *r, const char *name)
{
	struct atag_report_source *s;
	unsigned int i, at, rank, k;

	for (i = 0; i < r->nr_sources; i++)
		if (!strcmp(r->sources[i].name, name))
			return &r->sources[i];
	s = realloc(r->sources, (r->nr_sources + 1) * sizeof(*s));
	if (!s)
		return NULL;
	r->sources = s;
	/* keep the registry's order */
	for (rank = 0; atag_sources[rank] && strcmp(atag_sources[rank]->name, name); rank++)
		;
	for (at = 0; at < r->nr_sources; at++) {
		for (k = 0; atag_sources[k] && strcmp(atag_sources[k]->name, s[at].name); k++)
			;
		if (k > rank)
			break;
	}
	memmove(&s[at + 1], &s[at], (r->nr_sources - at) * sizeof(*s));
	memset(&s[at], 0, sizeof(*s));
	s[at].name = atag_source_find(name) ? atag_source_find(name)->name : "?";
	r->nr_sources++;
	return &s[at];
}

/* One file being folded in. */
struct file_fold {
	struct atag_fold		*fold;
	struct atag_report		*r;
	const struct atag_run		*run;
	struct atag_reader		*rd;
	const struct atag_report_opts	*opts;
	struct atag_debuginfo		*di;
	const struct atag_recording	*rec;		/* NULL: no description */
	unsigned int			src;		/* the source being folded */
	const char			*src_name;
	struct atag_report_tag		**tags;		/* by the source's tag index */
	struct atag_map			by_pair;	/* tag_idx << 32 | stack_id -> stack */
	/* each address symbolized once: address -> index into names (fold->names') */
	struct atag_map			name_index;
	const char			**names;
	size_t				nr_names;
	size_t				cap_names;
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The identity of a call site across files. */
static char *tag_key(const char *source, uint64_t tag, const char *function,
		     const char *file, long line, long long offset, const char *module)
{
	if (!function)
		return g_strdup_printf("%s\x1f" "0x%llx", source, (unsigned long long)tag);
	return g_strdup_printf("%s\x1f%s\x1f%s\x1f%ld\x1f%s\x1f%lld", source, function,
			       file ? file : "", line, module ? module : "", offset);
}

/* The source line of code at @addr (a return address: the call before it), or -1. */
static int code_line(struct file_fold *ff, uint64_t addr, const char **file)
{
	struct atag_trace *trace = atag_reader_trace(ff->rd);
	const char *function, *module;
	uint64_t offset;
	int line;

	if (!ff->di)
		return -1;
	function = atag_function_of(atag_trace_tep(trace), atag_trace_modules(trace), addr,
				    &offset, &module);
	if (!function || atag_debuginfo_line(ff->di, module, function, offset, addr, true, file,
					     &line))
		return -1;
	return line;
}

struct atag_report_tag *atag_fold_tag(struct atag_fold *fold, struct atag_report *r,
				      const char *source, uint64_t tag, const char *function,
				      const char *file, long line, long long offset,
				      const char *module)
{
	struct atag_report_tag *rt, **tags;
	char *key;

	key = tag_key(source, tag, function, file, line, offset, module);
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
	rt->tag = tag;
	rt->source = source;
	rt->function = dup_or_null(function);
	rt->file = dup_or_null(file);
	rt->module = dup_or_null(module);
	rt->line = line;
	rt->offset = offset;
	rt->selected = true;
	if ((function && !rt->function) || (file && !rt->file) || (module && !rt->module)) {
		free(rt->function);
		free(rt->file);
		free(rt->module);
		free(rt);
		goto nomem;
	}
	r->tags[r->nr_tags++] = rt;
	g_hash_table_insert(fold->tag_by_key, key, rt);
	return rt;
nomem:
	g_free(key);
	return NULL;
}

static struct atag_report_tag *report_tag(struct file_fold *ff, const struct atag_tag_stats *t)
{
	const char *function = t->function, *module = t->module, *file = t->file;
	long long offset = -1;
	long line = t->line;
	uint64_t off = 0;
	int dl;

	if (!function && t->tag &&
	    atag_decoder_name_source_tag(atag_reader_decoder(ff->rd), ff->src, t->tag, &function,
					 &off, &module)) {
		offset = off;
		/* a code address: its line from debug information, as the call it returns from */
		dl = file ? -1 : code_line(ff, t->tag, &file);
		if (dl >= 0)
			line = dl;
	}
	return atag_fold_tag(ff->fold, ff->r, ff->src_name, t->tag, function, file, line, offset,
			     module);
}

static int fold_tag(struct atag_report_tag *rt, const struct atag_tag_stats *t)
{
	atag_counters_add(&rt->counts, &t->counts);
	atag_inflation_add(&rt->inflation, &t->inflation);
	rt->nested += t->nested;
	rt->sub_page |= t->sub_page;
	return atag_lifetime_merge(&rt->lifetimes, &t->lifetimes);
}

const char *atag_fold_name(struct atag_fold *fold, const char *name)
{
	char *kept = g_hash_table_lookup(fold->names, name);

	if (!kept) {
		kept = g_strdup(name);
		g_hash_table_add(fold->names, kept);
	}
	return kept;
}

/*
 * The name of @addr as the report shows it ("function+0xoff"), symbolized once
 * per file: stacks share most of their frames. NULL without memory.
 */
static const char *frame_name(struct file_fold *ff, uint64_t addr)
{
	struct atag_trace *trace = atag_reader_trace(ff->rd);
	uint64_t *idx;
	bool created;
	char buf[256];
	void *p;

	idx = atag_map_get(&ff->name_index, addr, ff->nr_names, &created);
	if (!idx)
		return NULL;
	if (!created)
		return ff->names[*idx];
	if (ff->nr_names == ff->cap_names) {
		ff->cap_names = ff->cap_names ? 2 * ff->cap_names : 256;
		p = realloc(ff->names, ff->cap_names * sizeof(*ff->names));
		if (!p)
			goto fail;
		ff->names = p;
	}
	ff->names[ff->nr_names] = atag_fold_name(ff->fold, atag_symbolize(atag_trace_tep(trace),
								       atag_trace_modules(trace),
								       addr, buf, sizeof(buf)));
	return ff->names[ff->nr_names++];
fail:
	atag_map_remove(&ff->name_index, addr, NULL);
	return NULL;
}

static void free_names(struct file_fold *ff)
{
	free(ff->names);
	atag_map_free(&ff->name_index);
}

/*
 * The frames of stack @stack_id as the report shows them ("function+0xoff"), names
 * of fold->names; NULL where there was no memory.
 */
static char **symbolize_frames(struct file_fold *ff, uint32_t stack_id, unsigned int *nr,
			       char ***lines)
{
	const uint64_t *frames;
	unsigned int n, skip, i;
	const char *file, *name;
	char **out;
	int line;

	*lines = NULL;
	frames = atag_stacks_get(ff->run->stacks, stack_id, &n);
	skip = ff->opts->raw_stacks ? 0 :
	       atag_stack_skip(atag_decoder_frames(atag_reader_decoder(ff->rd)), frames, n);
	*nr = n - skip;
	if (!*nr)
		return NULL;
	out = calloc(*nr, sizeof(*out));
	for (i = 0; out && i < *nr; i++) {
		name = frame_name(ff, frames[skip + i]);
		out[i] = (char *)name;
	}
	if (!out || !ff->di)
		return out;
	*lines = calloc(*nr, sizeof(**lines));
	for (i = 0; *lines && i < *nr; i++) {
		line = code_line(ff, frames[skip + i], &file);
		if (line >= 0 && asprintf(&(*lines)[i], "%s:%d", file, line) < 0)
			(*lines)[i] = NULL;
	}
	return out;
}

static void free_strings(char **s, unsigned int n)
{
	unsigned int i;

	for (i = 0; s && i < n; i++)
		free(s[i]);
	free(s);
}

/* A hash of @rt and the pointers of its frames' names. */
static uint64_t hash_stack(const struct atag_report_tag *rt, char *const *frames,
			   unsigned int nr)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL * (nr + 1) ^ (uintptr_t)rt;
	unsigned int i;

	for (i = 0; i < nr; i++)
		h = (h ^ (uintptr_t)frames[i]) * 0x100000001B3ULL;
	return h ^ h >> 29;
}

/*
 * The stack of @rt with these frames (names of fold->names; taking the arrays),
 * added on first sight: found by its tag and its frames' pointers in a hash map,
 * so that folding costs the same per stack however many stacks a call site has (a
 * scan of the call site's stacks was quadratic).
 */
struct atag_report_stack *atag_fold_stack(struct atag_fold *fold, struct atag_report_tag *rt,
					 char **frames, char **lines, unsigned int nr)
{
	struct atag_report_stack *s, **p;
	const struct folded_stack *f;
	struct folded_stack *n;
	uint64_t h, *idx;
	bool created;

	for (h = hash_stack(rt, frames, nr);; h++) {
		idx = atag_map_get(&fold->stack_index, h, fold->nr_stacks, &created);
		if (!idx)
			goto nomem;
		if (created)
			break;
		f = &fold->stacks[*idx];
		s = f->s;
		if (f->rt != rt || s->nr_frames != nr ||
		    (nr && memcmp(s->frames, frames, nr * sizeof(*frames))))
			continue;
		free(frames);
		if (!s->lines)
			s->lines = lines;
		else
			free_strings(lines, nr);
		return s;
	}
	if (fold->nr_stacks == fold->cap_stacks) {
		n = realloc(fold->stacks, (fold->cap_stacks ? 2 * fold->cap_stacks : 256) *
			    sizeof(*n));
		if (!n)
			goto unindex;
		fold->stacks = n;
		fold->cap_stacks = fold->cap_stacks ? 2 * fold->cap_stacks : 256;
	}
	/* the array doubles at each power of two of its count */
	p = rt->stacks;
	if (!(rt->nr_stacks & (rt->nr_stacks - 1)))
		p = realloc(rt->stacks, (rt->nr_stacks ? 2 * rt->nr_stacks : 1) * sizeof(*p));
	if (!p)
		goto unindex;
	rt->stacks = p;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto unindex;
	s->frames = frames;
	s->lines = lines;
	s->nr_frames = nr;
	rt->stacks[rt->nr_stacks++] = s;
	fold->stacks[fold->nr_stacks++] = (struct folded_stack){ .rt = rt, .s = s };
	return s;
unindex:
	atag_map_remove(&fold->stack_index, h, NULL);
nomem:
	free(frames);
	free_strings(lines, nr);
	return NULL;
}

static int fold_stacks(struct file_fold *ff, struct atag_aggr *aggr)
{
	const struct atag_stack_stats *s;
	struct atag_report_stack *rs;
	char **frames, **lines;
	unsigned int nr;
	uint64_t key, *v;
	size_t i;

	for (i = 0; i < atag_aggr_nr_stacks(aggr); i++) {
		s = atag_aggr_stack(aggr, i);
		if (!ff->tags[s->tag_idx] || !s->counts.allocs)
			continue;
		frames = symbolize_frames(ff, s->stack_id, &nr, &lines);
		if (!frames && nr) {
			free_strings(lines, nr);
			return -ENOMEM;
		}
		rs = atag_fold_stack(ff->fold, ff->tags[s->tag_idx], frames, lines, nr);
		if (!rs)
			return -ENOMEM;
		atag_counters_add(&rs->counts, &s->counts);
		if (s->stack_id)
			ff->tags[s->tag_idx]->stacked += s->counts.allocs;
		key = (uint64_t)s->tag_idx << 32 | s->stack_id;
		v = atag_map_get(&ff->by_pair, key, 0, NULL);
		if (!v)
			return -ENOMEM;
		*v = (uintptr_t)rs;
	}
	return 0;
}

static const char *live_comm(struct file_fold *ff, int pid)
{
	const char *comm = atag_trace_comm(atag_reader_trace(ff->rd), pid);

	return comm ? comm : atag_scope_comm(atag_reader_scope(ff->rd), pid);
}

static int add_live(struct file_fold *ff, const struct atag_live *l)
{
	uint64_t key = (uint64_t)l->tag_idx << 32 | l->stack_id;
	uint64_t last_ts = atag_reader_stats(ff->rd)->last_ts;
	struct atag_report *r = ff->r;
	struct atag_report_live *lv;

	if (!l->counted || l->src != ff->src || !ff->tags[l->tag_idx])
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
	lv->stack = atag_fold_pair(&ff->by_pair, key);
	lv->bytes = l->bytes;
	lv->pid = l->pid;
	lv->comm = dup_or_null(live_comm(ff, l->pid));
	lv->alloc_ts = l->ts;
	lv->age_ns = last_ts > l->ts ? last_ts - l->ts : 0;
	lv->file = r->nr_files - 1;
	lv->task_exited = atag_scope_exited(atag_reader_scope(ff->rd), l->pid);
	lv->suspect = false;
	lv->suspect_why = NULL;
	return 0;
}

/* Whether the recording selected tag @t (a file without description: every tag). */
static bool recorded(const struct file_fold *ff, const struct atag_tag_stats *t)
{
	if (!ff->rec || ff->opts->all_tags)
		return true;
	return atag_recording_selects(ff->rec, t->function, t->file, t->line, t->module);
}

/* The tags, stacks and live allocations of source ff->src of the run. */
static int fold_source(struct file_fold *ff)
{
	struct atag_aggr *aggr = ff->run->aggr[ff->src];
	size_t i, n = atag_aggr_nr_tags(aggr), iter = 0;
	const struct atag_tag_stats *t;
	struct atag_report_source *sec;
	const struct atag_live *l;
	int k, ret = -ENOMEM;

	sec = atag_fold_source(ff->r, ff->src_name);
	if (sec && atag_reader_stack_every(ff->rd, ff->src))
		sec->stack_every = atag_reader_stack_every(ff->rd, ff->src);
	ff->tags = calloc(n + 1, sizeof(*ff->tags));
	if (!sec || !ff->tags)
		goto out;
	for (k = 0; k < ATAG_TASK_NR; k++)
		atag_counters_add(&sec->excluded[k],
				  atag_stitch_excluded(ff->run->st, ff->src, k));
	for (i = 0; i < n; i++) {
		t = atag_aggr_tag(aggr, i);
		if (!recorded(ff, t)) {
			sec->hidden_tags++;
			sec->hidden_events += t->events;
			continue;
		}
		/* a tag seen only in hits, with nothing allocated or freed, is not a row */
		if (!t->counts.allocs && !t->counts.unmatched_frees && !t->counts.frees)
			continue;
		ff->tags[i] = report_tag(ff, t);
		if (!ff->tags[i] || fold_tag(ff->tags[i], t))
			goto out;
	}
	ret = fold_stacks(ff, aggr);
	if (!ret)
		ret = atag_fold_timeline(ff->r, ff->src_name, aggr, ff->tags, &ff->by_pair);
	while (!ret && (l = atag_stitch_live_next(ff->run->st, &iter)))
		ret = add_live(ff, l);
out:
	free(ff->tags);
	ff->tags = NULL;
	atag_map_free(&ff->by_pair);
	ff->by_pair = (struct atag_map){ 0 };
	return ret;
}

int atag_fold_file(struct atag_fold *fold, struct atag_report *r, const struct atag_run *run,
		   struct atag_reader *rd, const struct atag_report_opts *opts,
		   struct atag_debuginfo *di)
{
	struct file_fold ff = { .fold = fold, .r = r, .run = run, .rd = rd, .opts = opts,
				.di = di };
	int ret = 0;

	/* the report's file holds the description now (atag-report-files.c took it over) */
	if (r->nr_files && atag_recording_labelled(r->files[r->nr_files - 1].recording))
		ff.rec = r->files[r->nr_files - 1].recording;
	for (ff.src = 0; !ret && ff.src < run->nr_src; ff.src++) {
		ff.src_name = atag_reader_source_at(rd, ff.src)->name;
		ret = fold_source(&ff);
	}
	free_names(&ff);
	return ret;
}
