// SPDX-License-Identifier: LGPL-2.1
/*
 * What a live view holds, written as report's JSON document (leaks -o): the call
 * sites that counted anything (tags[], with their stacks), every live allocation
 * (live[], with its stack, task and suspect verdict by report's rules) and the
 * totals, in the keys report -f json writes (Documentation/trace-cmd-alloc-tag-
 * report.1.txt, JSON), so that what reads one reads the other. See include/atag-live.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "atag-json.h"
#include "atag-live-int.h"
#include "atag-suspect.h"

struct save {
	struct atag_liveview	*lv;
	struct atag_json	w;
	struct live_frame_store	frames;
	const char		*trace;		/* what live[].trace and files[].path name */
	uint64_t		now;
	struct atag_totals	totals[ATAG_LIVE_SOURCES_MAX];
	uint64_t		suspects[ATAG_LIVE_SOURCES_MAX];
	/* the (tag, stack) pairs of each source by tag: pairs of tag i are by[at[i]..at[i+1]) */
	size_t			*at[ATAG_LIVE_SOURCES_MAX];
	size_t			*by[ATAG_LIVE_SOURCES_MAX];
};

static void counters(struct atag_json *w, const void *obj, const struct atag_counter_field *f,
		     unsigned int mask)
{
	unsigned int i;

	for (i = 0; f[i].name; i++)
		if (mask & (1u << i))
			atag_json_uint(w, f[i].name, atag_counter_value(obj, &f[i]));
}

/* Index the (tag, stack) pairs of source @k by their tag: a counting sort. */
static int index_pairs(struct save *sv, unsigned int k)
{
	struct atag_aggr *aggr = sv->lv->aggrs[k];
	size_t i, nt = atag_aggr_nr_tags(aggr), np = atag_aggr_nr_stacks(aggr);
	size_t *fill;

	sv->at[k] = calloc(nt + 2, sizeof(size_t));
	sv->by[k] = calloc(np + 1, sizeof(size_t));
	fill = calloc(nt + 1, sizeof(size_t));
	if (!sv->at[k] || !sv->by[k] || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (i = 0; i < np; i++)
		sv->at[k][atag_aggr_stack(aggr, i)->tag_idx + 1]++;
	for (i = 0; i < nt; i++)
		sv->at[k][i + 1] += sv->at[k][i];
	for (i = 0; i < np; i++) {
		size_t t = atag_aggr_stack(aggr, i)->tag_idx;

		sv->by[k][sv->at[k][t] + fill[t]++] = i;
	}
	free(fill);
	return 0;
}

static void name_of(struct save *sv, unsigned int k, const struct atag_tag_stats *t,
		    const char **function, const char **module, long long *offset)
{
	uint64_t off = 0;

	*function = t->function;
	*module = t->module;
	*offset = -1;
	if (!*function && t->tag &&
	    atag_decoder_name_source_tag(sv->lv->dec, k, t->tag, function, &off, module))
		*offset = off;
}

static void frames_json(struct save *sv, const char *key, uint32_t id)
{
	const struct live_frames *fr = id ? live_frames_get(&sv->frames, sv->lv, id) : NULL;

	atag_json_strs(&sv->w, key, fr ? fr->names : NULL, fr ? fr->nr : 0);
}

static void lifetime_json(struct atag_json *w, const struct atag_tag_stats *t)
{
	static const struct { const char *name; double pct; } pcts[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 },
	};
	const struct atag_lifetime *lt = &t->lifetimes;
	size_t i;

	atag_json_open_object(w, "lifetime_ns");
	atag_json_uint(w, "count", lt->count);
	if (lt->count)
		atag_json_uint(w, "min", lt->min);
	else
		atag_json_null(w, "min");
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		if (lt->count)
			atag_json_uint(w, pcts[i].name, atag_lifetime_percentile(lt, pcts[i].pct));
		else
			atag_json_null(w, pcts[i].name);
	}
	if (lt->count)
		atag_json_uint(w, "max", lt->max);
	else
		atag_json_null(w, "max");
	atag_json_uint(w, "inflated", t->inflation.lifetimes);
	atag_json_uint(w, "observer_ns", t->inflation.ns);
	atag_json_uint(w, "other_task", t->inflation.other_task);
	atag_json_close(w);
}

static void tag_json(struct save *sv, unsigned int k, size_t idx)
{
	const struct atag_tag_stats *t = atag_aggr_tag(sv->lv->aggrs[k], idx);
	const struct atag_stack_stats *ss;
	struct atag_json *w = &sv->w;
	const char *function, *module;
	uint64_t stacked = 0;
	long long offset;
	size_t i;

	name_of(sv, k, t, &function, &module, &offset);
	for (i = sv->at[k][idx]; i < sv->at[k][idx + 1]; i++) {
		ss = atag_aggr_stack(sv->lv->aggrs[k], sv->by[k][i]);
		if (ss->stack_id)
			stacked += ss->counts.allocs;
	}
	atag_json_break(w);
	atag_json_open_object(w, NULL);
	atag_json_hex(w, "tag", t->tag);
	atag_json_str(w, "function", function);
	atag_json_str(w, "file", t->file);
	atag_json_known_int(w, "line", t->line);
	atag_json_str(w, "module", module);
	atag_json_known_int(w, "offset", offset);
	counters(w, &t->counts, atag_counter_fields, ATAG_COUNTERS_ALL);
	atag_json_uint(w, "live_maybe_freed", atag_counters_live_maybe_freed(&t->counts,
			atag_counters_may_be_pages(sv->lv->srcs[k]->name, t->sub_page,
						   &t->counts)));
	lifetime_json(w, t);
	atag_json_uint(w, "stacked", stacked);
	/* stacks' counters are those of the sampled allocations, as report says */
	if (sv->lv->stack_every > 1 && strcmp(sv->lv->srcs[k]->name, "page"))
		atag_json_null(w, "stack_scale");
	else
		atag_json_uint(w, "stack_scale", 1);
	atag_json_open_array(w, "stacks");
	for (i = sv->at[k][idx]; i < sv->at[k][idx + 1]; i++) {
		ss = atag_aggr_stack(sv->lv->aggrs[k], sv->by[k][i]);
		if (!ss->counts.allocs)
			continue;
		atag_json_open_object(w, NULL);
		frames_json(sv, "frames", ss->stack_id);
		counters(w, &ss->counts, atag_counter_fields, ATAG_COUNTERS_STACK);
		atag_json_close(w);
	}
	atag_json_close(w);
	atag_json_str(w, "source", sv->lv->srcs[k]->name);
	atag_json_uint(w, "nested", t->nested);
	atag_json_bool(w, "reused_while_live", t->counts.replaced != 0);
	atag_json_close(w);
}

static void live_json(struct save *sv, const struct atag_live *l)
{
	const struct atag_tag_stats *t = atag_aggr_tag(sv->lv->aggrs[l->src], l->tag_idx);
	const struct live_name *n = live_tasks_name(&sv->lv->tasks, l->pid);
	const struct live_frames *fr = l->stack_id ?
				       live_frames_get(&sv->frames, sv->lv, l->stack_id) : NULL;
	struct atag_suspect_facts f = { 0 };
	struct atag_json *w = &sv->w;
	const char *function, *module, *why;
	long long offset;

	name_of(sv, l->src, t, &function, &module, &offset);
	f.source = sv->lv->srcs[l->src]->name;
	f.function = function;
	f.frames = fr ? (const char *const *)fr->names : NULL;
	f.nr_frames = fr ? fr->nr : 0;
	f.task_exited = !n ? -1 : n->exited || n->since > l->ts;
	f.replaced = t->counts.replaced;
	f.unmatched_frees = t->counts.unmatched_frees;
	f.partial_frees = t->counts.partial_frees;
	why = atag_suspect_why(&f);
	sv->suspects[l->src] += !why;
	atag_json_break(w);
	atag_json_open_object(w, NULL);
	atag_json_hex(w, "ptr", l->ptr);
	atag_json_hex(w, "tag", t->tag);
	atag_json_str(w, "function", function);
	atag_json_uint(w, "bytes", l->bytes);
	atag_json_int(w, "pid", l->pid);
	atag_json_str(w, "comm", n && n->comm[0] && n->since <= l->ts ? n->comm : NULL);
	atag_json_uint(w, "alloc_ts", l->ts);
	atag_json_uint(w, "age_ns", sv->now > l->ts ? sv->now - l->ts : 0);
	atag_json_str(w, "trace", sv->trace);
	atag_json_strs(w, "frames", fr ? fr->names : NULL, fr ? fr->nr : 0);
	atag_json_str(w, "source", f.source);
	atag_json_bool(w, "reused_while_live", t->counts.replaced != 0);
	atag_json_bool(w, "suspect", !why);
	atag_json_str(w, "suspect_why", why);
	if (f.task_exited < 0)
		atag_json_null(w, "task_running");
	else
		atag_json_bool(w, "task_running", !f.task_exited);
	atag_json_close(w);
}

static void totals_json(struct atag_json *w, const struct atag_totals *t, uint64_t suspects)
{
	atag_json_open_object(w, "totals");
	counters(w, t, atag_total_fields, ~0u);
	atag_json_uint(w, "live_suspects", suspects);
	atag_json_close(w);
}

static int write_doc(struct save *sv, const char *scope)
{
	struct atag_liveview *lv = sv->lv;
	struct atag_json *w = &sv->w;
	struct atag_totals all = { 0 };
	const struct atag_tag_stats *t;
	const struct atag_live *l;
	uint64_t lost = 0, suspects = 0;
	bool lost_known;
	size_t i, iter = 0;
	unsigned int k;
	char note[256];

	lost_known = live_lost(lv, &lost);
	atag_json_open_object(w, NULL);
	atag_json_bool(w, "complete", lost_known && !lost && !lv->gaps);
	atag_json_break(w);
	atag_json_open_array(w, "tags");
	for (k = 0; k < lv->nr_src; k++) {
		for (i = 0; i < atag_aggr_nr_tags(lv->aggrs[k]); i++) {
			t = atag_aggr_tag(lv->aggrs[k], i);
			atag_totals_add(&sv->totals[k], &t->counts);
			atag_totals_add(&all, &t->counts);
			if (t->counts.allocs || t->counts.frees || t->counts.unmatched_frees)
				tag_json(sv, k, i);
		}
	}
	atag_json_close(w);
	atag_json_break(w);
	atag_json_open_array(w, "live");
	while ((l = atag_stitch_live_next(lv->st, &iter)))
		if (l->counted && !l->pending)
			live_json(sv, l);
	atag_json_close(w);
	for (k = 0; k < lv->nr_src; k++)
		suspects += sv->suspects[k];
	atag_json_break(w);
	totals_json(w, &all, suspects);
	atag_json_break(w);
	atag_json_open_array(w, "files");
	atag_json_open_object(w, NULL);
	atag_json_str(w, "path", sv->trace);
	atag_json_str(w, "source", lv->src->name);
	atag_json_open_array(w, "sources");
	for (k = 0; k < lv->nr_src; k++)
		atag_json_str(w, NULL, lv->srcs[k]->name);
	atag_json_close(w);
	atag_json_str(w, "scope", scope);
	atag_json_uint(w, "records", lv->cpus.records);
	atag_json_uint(w, "elapsed_ns", live_now_ns() - lv->start_ns);
	atag_json_close(w);
	atag_json_close(w);
	atag_json_break(w);
	atag_json_open_array(w, "notices");
	if (!lost_known) {
		atag_json_str(w, NULL, "the instance's lost-event counters could not be read");
	} else if (lost || lv->gaps) {
		snprintf(note, sizeof(note), "%" PRIu64 " events lost: allocations made before "
			 "the latest loss may have been freed (their frees lost)", lost);
		atag_json_str(w, NULL, note);
	}
	atag_json_close(w);
	atag_json_strs(w, "remarks", NULL, 0);
	atag_json_break(w);
	atag_json_open_array(w, "sources");
	for (k = 0; k < lv->nr_src; k++) {
		atag_json_open_object(w, NULL);
		atag_json_str(w, "source", lv->srcs[k]->name);
		totals_json(w, &sv->totals[k], sv->suspects[k]);
		if (lv->stack_every > 1 && strcmp(lv->srcs[k]->name, "page"))
			atag_json_uint(w, "stack_every", lv->stack_every);
		else
			atag_json_null(w, "stack_every");
		atag_json_close(w);
	}
	atag_json_close(w);
	atag_json_close(w);
	return atag_json_finish(w);
}

int atag_live_save(struct atag_liveview *lv, const char *scope, FILE *f)
{
	struct save sv = { .lv = lv };
	char trace[256];
	unsigned int k;
	int ret = 0;

	snprintf(trace, sizeof(trace), "%s (live)", tracefs_instance_get_name(lv->inst));
	sv.trace = trace;
	sv.now = lv->mono ? live_now_ns() : lv->last_ts;
	for (k = 0; !ret && k < lv->nr_src; k++)
		ret = index_pairs(&sv, k);
	atag_json_init(&sv.w, f, 0);
	if (!ret)
		ret = write_doc(&sv, scope);
	for (k = 0; k < lv->nr_src; k++) {
		free(sv.at[k]);
		free(sv.by[k]);
	}
	live_frame_store_free(&sv.frames);
	if (!ret && (fflush(f) || ferror(f)))
		ret = -EIO;
	return ret;
}
