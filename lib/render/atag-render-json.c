// SPDX-License-Identifier: LGPL-2.1
/*
 * The JSON rendering of a report: one object, the contract of the report command
 * (Documentation/trace-cmd-alloc-tag-report.1.txt):
 *
 *   { "complete", "totals": {...}, "tags": [ {..., "lifetime_ns": {...},
 *     "stacks": [...]} ], "live": [...], "files": [...], "notices": [...],
 *     "remarks": [...], "sources": [...], "observer": {...}, "completeness" }
 *
 * Pointers are "0x..." strings; numbers are exact integers; unknowns are null.
 * Compact, with a call site or a live allocation a line (lib/util/atag-json.c writes it).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-json.h"
#include "atag-map.h"
#include "atag-recording.h"
#include "atag-render.h"
#include "atag-render-counters.h"
#include "atag-report.h"
#include "atag-run.h"

/* A lifetime figure: null when there is no lifetime. */
static void ns(struct atag_json *w, const char *key, const struct atag_lifetime *lt,
	       unsigned long long v)
{
	if (lt->count)
		atag_json_uint(w, key, v);
	else
		atag_json_null(w, key);
}

static void lifetimes(struct atag_json *w, const struct atag_lifetime *lt,
		      const struct atag_inflation *in)
{
	static const struct { const char *name; double pct; } pcts[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 },
	};
	size_t i;

	atag_json_open_object(w, "lifetime_ns");
	atag_json_uint(w, "count", lt->count);
	ns(w, "min", lt, lt->min);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		ns(w, pcts[i].name, lt, lt->count ? atag_lifetime_percentile(lt, pcts[i].pct) : 0);
	ns(w, "max", lt, lt->max);
	atag_json_uint(w, "inflated", in->lifetimes);
	atag_json_uint(w, "observer_ns", in->ns);
	atag_json_uint(w, "other_task", in->other_task);
	atag_json_close(w);
}

/*
 * A stack's counters are those of its allocations; when the source's stacks were
 * sampled, "estimate" scales them to the call site (null for the allocations
 * without a stack, "frames": []).
 */
static void stacks(struct atag_json *w, const struct atag_report *r,
		   const struct atag_report_tag *t, bool sampled)
{
	const struct atag_report_stack *s;
	struct atag_counters est;
	size_t i;

	atag_json_open_array(w, "stacks");
	for (i = 0; i < t->nr_stacks; i++) {
		s = t->stacks[i];
		atag_json_open_object(w, NULL);
		atag_json_strs(w, "frames", s->frames, s->nr_frames);
		if (s->lines)
			atag_json_strs(w, "frame_lines", s->lines, s->nr_frames);
		atag_render_counters_json(w, &s->counts, atag_counter_fields, ATAG_COUNTERS_STACK);
		if (sampled && s->nr_frames) {
			atag_report_stack_estimate(r, t, s, &est);
			atag_json_open_object(w, "estimate");
			atag_render_counters_json(w, &est, atag_counter_fields, ATAG_COUNTERS_STACK);
			atag_json_close(w);
		} else if (sampled) {
			atag_json_null(w, "estimate");
		}
		atag_json_close(w);
	}
	atag_json_close(w);
}

static void tag(struct atag_json *w, const struct atag_report *r, const struct atag_report_tag *t)
{
	double scale = atag_report_stack_scale(r, t);
	bool sampled = atag_report_stacks_sampled(r, t);

	atag_json_open_object(w, NULL);
	atag_json_hex(w, "tag", t->tag);
	atag_json_str(w, "function", t->function);
	atag_json_str(w, "file", t->file);
	atag_json_known_int(w, "line", t->line);
	atag_json_str(w, "module", t->module);
	atag_json_known_int(w, "offset", t->offset);
	atag_render_counters_json(w, &t->counts, atag_counter_fields, ATAG_COUNTERS_ALL);
	atag_json_uint(w, "live_maybe_freed", atag_report_tag_maybe_freed(t));
	lifetimes(w, &t->lifetimes, &t->inflation);
	atag_json_uint(w, "stacked", t->stacked);
	if (sampled && t->stacked)
		atag_json_fixed(w, "stack_scale", scale, 3);
	else if (sampled)
		atag_json_null(w, "stack_scale");
	else
		atag_json_uint(w, "stack_scale", 1);
	stacks(w, r, t, sampled);
	atag_json_str(w, "source", t->source);
	atag_json_uint(w, "nested", t->nested);
	atag_json_bool(w, "reused_while_live", t->counts.replaced != 0);
	atag_json_close(w);
}

/*
 * The frames (and frame lines) of the stacks live allocations share, written
 * once as JSON text and then copied: the live list repeats them thousands of
 * times. The texts lie back to back, NUL-terminated, in one memory stream.
 */
struct frames_cache {
	struct atag_map	index;		/* the stack's address (| 1: its lines) -> offset */
	FILE		*f;		/* NULL: not opened, or failed */
	char		*buf;
	size_t		len;
	bool		failed;
};

/* Write the strings @s (@n of them) of @owner under @key, from the cache when it can. */
static void cached_strs(struct atag_json *w, struct frames_cache *c, const char *key,
			uintptr_t owner, char * const *s, unsigned int n)
{
	uint64_t *off;
	bool created;
	long at;

	if (!c->f && !c->failed) {
		c->f = open_memstream(&c->buf, &c->len);
		c->failed = !c->f;
	}
	off = c->f ? atag_map_get(&c->index, owner, 0, &created) : NULL;
	if (off && created) {
		at = ftell(c->f);
		atag_json_write_strs(c->f, s, n);
		if (at < 0 || fputc('\0', c->f) == EOF || fflush(c->f)) {
			/* no memory: written the long way from now on */
			fclose(c->f);
			c->f = NULL;
			c->failed = true;
			off = NULL;
		} else {
			*off = at;
		}
	}
	if (off)
		atag_json_text(w, key, c->buf + *off);
	else
		atag_json_strs(w, key, s, n);
}

static void frames_cache_free(struct frames_cache *c)
{
	if (c->f)
		fclose(c->f);
	free(c->buf);
	atag_map_free(&c->index);
}

static void live(struct atag_json *w, struct frames_cache *c, const struct atag_report *r,
		 const struct atag_report_live *l)
{
	atag_json_open_object(w, NULL);
	atag_json_hex(w, "ptr", l->ptr);
	atag_json_hex(w, "tag", l->tag->tag);
	atag_json_str(w, "function", l->tag->function);
	atag_json_uint(w, "bytes", l->bytes);
	atag_json_int(w, "pid", l->pid);
	atag_json_str(w, "comm", l->comm);
	atag_json_uint(w, "alloc_ts", l->alloc_ts);
	atag_json_uint(w, "age_ns", l->age_ns);
	atag_json_str(w, "trace", r->files[l->file].path);	/* "file": a source file */
	if (l->stack)
		cached_strs(w, c, "frames", (uintptr_t)l->stack, l->stack->frames,
			    l->stack->nr_frames);
	else
		atag_json_strs(w, "frames", NULL, 0);
	if (l->stack && l->stack->lines)
		cached_strs(w, c, "frame_lines", (uintptr_t)l->stack | 1, l->stack->lines,
			    l->stack->nr_frames);
	atag_json_str(w, "source", l->tag->source);
	atag_json_bool(w, "reused_while_live", l->tag->counts.replaced != 0);
	atag_json_bool(w, "suspect", l->suspect);
	atag_json_str(w, "suspect_why", l->suspect_why);
	if (l->task_exited < 0)
		atag_json_null(w, "task_running");
	else
		atag_json_bool(w, "task_running", !l->task_exited);
	atag_json_close(w);
}

static void tasks(struct atag_json *w, const char *key, const struct atag_marker_task *t,
		  unsigned int n)
{
	unsigned int i;

	atag_json_open_array(w, key);
	for (i = 0; i < n; i++) {
		atag_json_open_object(w, NULL);
		atag_json_int(w, "pid", t[i].pid);
		atag_json_str(w, "comm", t[i].comm);
		atag_json_close(w);
	}
	atag_json_close(w);
}

static void marker_tags(struct atag_json *w, const char *key, const struct atag_marker_tag *t,
			unsigned int n)
{
	unsigned int i;

	atag_json_open_array(w, key);
	for (i = 0; i < n; i++) {
		atag_json_open_object(w, NULL);
		atag_json_str(w, "function", t[i].function);
		atag_json_str(w, "file", t[i].file);
		atag_json_int(w, "line", t[i].line);
		atag_json_str(w, "module", t[i].module);
		atag_json_close(w);
	}
	atag_json_close(w);
}

/* The recording's description, or null. */
static void recording(struct atag_json *w, const struct atag_report_file *rf)
{
	const struct atag_recording *rec = rf->recording;

	if (!rec) {
		atag_json_null(w, "recording");
		return;
	}
	atag_json_open_object(w, "recording");
	atag_json_int(w, "record_pid", rec->record_pid);
	atag_json_str(w, "source", rec->source);
	atag_json_bool(w, "stacks", rec->stacks);
	tasks(w, "recorders", rec->recorders, rec->nr_recorders);
	tasks(w, "workloads", rec->workloads, rec->nr_workloads);
	atag_json_open_object(w, "tasks");
	atag_json_uint(w, "workload", rf->tasks[ATAG_TASK_WORKLOAD]);
	atag_json_uint(w, "recorder", rf->tasks[ATAG_TASK_RECORDER]);
	atag_json_close(w);
	atag_json_bool(w, "select_all", rec->select_all);
	marker_tags(w, "selected", rec->selected, rec->nr_selected);
	marker_tags(w, "also_traced", rec->also_traced, rec->nr_also_traced);
	if (rf->window) {
		atag_json_open_object(w, "counters_window");
		atag_json_uint(w, "start_ts", rf->window_open);
		atag_json_uint(w, "end_ts", rf->window_close);
		atag_json_close(w);
	} else {
		atag_json_null(w, "counters_window");
	}
	atag_json_str(w, "end", rec->end_reason);
	atag_json_known_int(w, "linger_ms", rec->linger_ms);
	atag_json_close(w);
}

/* What the stack captures of each CPU cost. */
static void observer_cpus(struct atag_json *w, const struct atag_report_file *rf)
{
	const struct atag_report_cpu *c;
	unsigned int i;

	atag_json_open_array(w, "observer");
	for (i = 0; i < rf->nr_cpus; i++) {
		c = &rf->cpus[i];
		atag_json_open_object(w, NULL);
		atag_json_int(w, "cpu", c->cpu);
		atag_json_uint(w, "stacks", c->stacks);
		atag_json_uint(w, "ns", c->ns);
		atag_json_uint(w, "p50_ns", atag_lifetime_percentile(&c->cost, 50));
		atag_json_uint(w, "p99_ns", atag_lifetime_percentile(&c->cost, 99));
		atag_json_uint(w, "max_ns", c->cost.max);
		atag_json_close(w);
	}
	atag_json_close(w);
}


static void file(struct atag_json *w, const struct atag_report_file *rf)
{
	unsigned int i;

	atag_json_open_object(w, NULL);
	atag_json_str(w, "path", rf->path);
	atag_json_str(w, "source", rf->source);
	atag_json_open_array(w, "sources");
	for (i = 0; i < rf->nr_sources; i++)
		atag_json_str(w, NULL, rf->sources[i]);
	atag_json_close(w);
	atag_json_str(w, "buffer", rf->buffer);
	atag_json_strs(w, "also_in_buffers", rf->also, rf->nr_also);
	atag_json_open_object(w, "events");
	for (i = 0; i < rf->nr_counts; i++)
		atag_json_uint(w, rf->counts[i].event, rf->counts[i].count);
	atag_json_close(w);
	atag_json_uint(w, "records", rf->records);
	atag_json_uint(w, "first_ts", rf->first_ts);
	atag_json_uint(w, "last_ts", rf->last_ts);
	atag_json_bool(w, "truncated", rf->truncated);
	recording(w, rf);
	observer_cpus(w, rf);
	atag_json_close(w);
}

static const char *const task_keys[ATAG_TASK_NR] = {
	[ATAG_TASK_ANY] = "filtered", [ATAG_TASK_WORKLOAD] = "workload",
	[ATAG_TASK_RECORDER] = "recorder", [ATAG_TASK_OTHER] = "other",
};

/* live_suspects, null when a JSON document was read (its live ones are not listed) */
static void suspects(struct atag_json *w, const struct atag_report *r, uint64_t n)
{
	if (r->live_unlisted)
		atag_json_null(w, "live_suspects");
	else
		atag_json_uint(w, "live_suspects", n);
}

static void sources(struct atag_json *w, const struct atag_report *r)
{
	const struct atag_report_source *src;
	unsigned int i, k;
	uint64_t nested;
	size_t j;

	atag_json_open_array(w, "sources");
	for (i = 0; i < r->nr_sources; i++) {
		src = &r->sources[i];
		for (j = 0, nested = 0; j < r->nr_selected; j++)
			if (!strcmp(r->tags[j]->source, src->name))
				nested += r->tags[j]->nested;
		atag_json_break(w);
		atag_json_open_object(w, NULL);
		atag_json_str(w, "source", src->name);
		atag_json_open_object(w, "totals");
		atag_render_counters_json(w, &src->totals, atag_total_fields, ~0u);
		suspects(w, r, src->totals.live_suspects);
		atag_json_close(w);
		atag_json_uint(w, "nested", nested);
		atag_json_open_object(w, "excluded");
		for (k = 0; k < ATAG_TASK_NR; k++) {
			atag_json_open_object(w, task_keys[k]);
			atag_render_counters_json(w, &src->excluded[k], atag_counter_fields,
						  ATAG_COUNTERS_STACK);
			atag_json_close(w);
		}
		atag_json_close(w);
		atag_json_uint(w, "hidden_tags", src->hidden_tags);
		atag_json_uint(w, "hidden_events", src->hidden_events);
		if (src->stack_every)
			atag_json_uint(w, "stack_every", src->stack_every);
		else
			atag_json_null(w, "stack_every");
		atag_json_uint(w, "stacked", src->stacked);
		atag_json_open_object(w, "lifetimes");
		atag_json_uint(w, "inflated", src->inflation.lifetimes);
		atag_json_uint(w, "observer_ns", src->inflation.ns);
		atag_json_uint(w, "other_task", src->inflation.other_task);
		atag_json_close(w);
		atag_json_close(w);
	}
	atag_json_close(w);
}

static void observer(struct atag_json *w, const struct atag_report *r)
{
	uint64_t stacks = 0, ns = 0;
	unsigned int i, c;

	for (i = 0; i < r->nr_files; i++) {
		for (c = 0; c < r->files[i].nr_cpus; c++) {
			stacks += r->files[i].cpus[c].stacks;
			ns += r->files[i].cpus[c].ns;
		}
	}
	atag_json_open_object(w, "observer");
	atag_json_str(w, "lifetimes", r->raw_lifetimes ? "raw" : "corrected");
	atag_json_uint(w, "stacks", stacks);
	atag_json_uint(w, "ns", ns);
	atag_json_close(w);
}

static void completeness(struct atag_json *w, const struct atag_report *r)
{
	const struct atag_report_completeness *c;
	unsigned int i, ok = 0, reshaped = 0;

	if (!r->nr_completeness) {
		atag_json_null(w, "completeness");
		return;
	}
	for (i = 0; i < r->nr_completeness; i++)
	{
		ok += r->completeness[i].complete;
		reshaped += r->completeness[i].reshaped;
	}
	atag_json_open_object(w, "completeness");
	atag_json_uint(w, "complete", ok);
	atag_json_uint(w, "incomplete", r->nr_completeness - ok - reshaped);
	atag_json_uint(w, "reshaped", reshaped);
	atag_json_open_array(w, "tags");
	for (i = 0; i < r->nr_completeness; i++) {
		c = &r->completeness[i];
		atag_json_break(w);
		atag_json_open_object(w, NULL);
		atag_json_str(w, "trace", r->files[c->file].path);
		atag_json_str(w, "function", c->function);
		atag_json_str(w, "file", c->source_file);
		atag_json_int(w, "line", c->line);
		atag_json_str(w, "module", c->module);
		atag_json_uint(w, "tags", c->tags);
		atag_json_bool(w, "complete", c->complete);
		atag_json_bool(w, "reshaped", c->reshaped);
		atag_json_int(w, "counted_calls", c->counted_calls);
		atag_json_int(w, "counted_bytes", c->counted_bytes);
		atag_json_int(w, "traced_calls", c->traced_calls);
		atag_json_int(w, "traced_bytes", c->traced_bytes);
		atag_json_uint(w, "uncertain_calls", c->uncertain_calls);
		atag_json_uint(w, "uncertain_bytes", c->uncertain_bytes);
		atag_json_int(w, "missing_calls", c->missing_calls);
		atag_json_int(w, "missing_bytes", c->missing_bytes);
		atag_json_int(w, "unnamed_calls", c->unnamed_calls);
		atag_json_int(w, "unnamed_bytes", c->unnamed_bytes);
		atag_json_close(w);
	}
	atag_json_close(w);
	atag_json_close(w);
}


/* How many of @nr rows a list shows: all, or the -n limit. */
static size_t rows(const struct atag_render_opts *o, size_t nr)
{
	return o && o->limit > 0 && (size_t)o->limit < nr ? (size_t)o->limit : nr;
}

/*
 * The call sites' rows on two threads, where their stacks are many (50 000
 * distinct stacks write 26 MB, 0.045 s of a 0.3 s report): the second thread
 * writes the rows of the second half of the frames into blocks of memory,
 * taken from what the stitch freed, while the calling thread writes the first
 * half to the file; then the blocks follow, and the writer goes on from the
 * state the second thread left. The bytes are those of one thread.
 */
#define SPLIT_MIN_FRAMES	200000		/* of the rows' stacks, before a thread pays */
#define BLOCK_BYTES		(1U << 20)

struct half_rows {
	const struct atag_report	*r;
	size_t				from, to;	/* rows */
	struct atag_json		w;
	FILE				*f;
	char				**block;
	size_t				nr_blocks;
	size_t				used;		/* bytes of the last block */
	bool				failed;
};

static ssize_t blocks_write(void *cookie, const char *buf, size_t size)
{
	struct half_rows *h = cookie;
	size_t n, done = 0;
	char **b;

	while (done < size) {
		if (!h->nr_blocks || h->used == BLOCK_BYTES) {
			b = realloc(h->block, (h->nr_blocks + 1) * sizeof(*b));
			if (!b)
				goto fail;
			h->block = b;
			b[h->nr_blocks] = malloc(BLOCK_BYTES);
			if (!b[h->nr_blocks])
				goto fail;
			h->nr_blocks++;
			h->used = 0;
		}
		n = size - done < BLOCK_BYTES - h->used ? size - done : BLOCK_BYTES - h->used;
		memcpy(h->block[h->nr_blocks - 1] + h->used, buf + done, n);
		h->used += n;
		done += n;
	}
	return size;
fail:
	h->failed = true;
	return -1;
}

static void *write_half(void *arg)
{
	struct half_rows *h = arg;
	size_t i;

	for (i = h->from; i < h->to; i++) {
		atag_json_break(&h->w);
		tag(&h->w, h->r, h->r->tags[i]);
	}
	atag_outbuf_flush(&h->w.out);
	if (fclose(h->f))
		h->failed = true;
	return NULL;
}

/* The first row of the second half, or 0 to write all on this thread. */
static size_t split_rows(const struct atag_report *r, size_t n)
{
	size_t i, j, total = 0, sum = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < r->tags[i]->nr_stacks; j++)
			total += r->tags[i]->stacks[j]->nr_frames + 1;
	if (n < 2 || total < SPLIT_MIN_FRAMES || !atag_second_thread_pays())
		return 0;
	for (i = 0; i < n - 1 && sum < total / 2; i++)
		for (j = 0; j < r->tags[i]->nr_stacks; j++)
			sum += r->tags[i]->stacks[j]->nr_frames + 1;
	return i;
}

/*
 * The rows of r->tags[0..@n) into @w, inside the open array "tags". 0, or
 * -ENOMEM when the second thread's blocks could not be had (the rest of the
 * document is not written).
 */
static int tag_rows(struct atag_json *w, const struct atag_report *r, size_t n)
{
	static const cookie_io_functions_t io = { .write = blocks_write };
	struct half_rows h = { .r = r, .to = n };
	size_t i, split = split_rows(r, n);
	bool threaded = false;
	pthread_t th;

	if (split) {
		h.from = split;
		h.w = *w;
		/* as after the first half: the array has its first element */
		h.w.level[h.w.depth].items = true;
		h.f = fopencookie(&h, "w", io);
		if (h.f)
			setvbuf(h.f, NULL, _IOFBF, 64 << 10);
		if (h.f) {
			atag_outbuf_init(&h.w.out, h.f);
			threaded = !pthread_create(&th, NULL, write_half, &h);
			if (!threaded)
				fclose(h.f);
		}
		if (!threaded) {
			for (i = 0; i < h.nr_blocks; i++)
				free(h.block[i]);
			free(h.block);
		}
	}
	for (i = 0; i < (threaded ? split : n); i++) {
		atag_json_break(w);
		tag(w, r, r->tags[i]);
	}
	if (!threaded)
		return 0;
	pthread_join(th, NULL);
	atag_outbuf_flush(&w->out);
	for (i = 0; i < h.nr_blocks; i++) {
		if (!h.failed)
			fwrite(h.block[i], 1, i + 1 < h.nr_blocks ? BLOCK_BYTES : h.used, w->out.f);
		free(h.block[i]);
	}
	free(h.block);
	if (h.failed)
		return -ENOMEM;
	w->depth = h.w.depth;
	memcpy(w->level, h.w.level, sizeof(w->level));
	w->brk = h.w.brk;
	w->misuse |= h.w.misuse;
	return 0;
}

int atag_render_json(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	struct frames_cache cache = { 0 };
	struct atag_json w;
	size_t i;

	atag_json_init(&w, f, 0);
	atag_json_open_object(&w, NULL);
	atag_json_bool(&w, "complete", r->complete);
	atag_json_open_object(&w, "totals");
	atag_render_counters_json(&w, &r->totals, atag_total_fields, ~0u);
	suspects(&w, r, r->totals.live_suspects);
	atag_json_close(&w);
	atag_json_open_array(&w, "tags");
	if (tag_rows(&w, r, rows(o, r->nr_selected))) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	atag_json_close(&w);
	atag_json_break(&w);
	atag_json_open_array(&w, "live");
	for (i = 0; i < rows(o, r->nr_live); i++) {
		atag_json_break(&w);
		live(&w, &cache, r, &r->live[i]);
	}
	atag_json_close(&w);
	frames_cache_free(&cache);
	atag_json_break(&w);
	atag_json_open_array(&w, "files");
	for (i = 0; i < r->nr_files; i++)
		file(&w, &r->files[i]);
	atag_json_close(&w);
	atag_json_break(&w);
	atag_json_strs(&w, "notices", r->notices, r->nr_notices);
	atag_json_break(&w);
	atag_json_strs(&w, "remarks", r->remarks, r->nr_remarks);
	atag_json_break(&w);
	sources(&w, r);
	atag_json_break(&w);
	observer(&w, r);
	atag_json_break(&w);
	completeness(&w, r);
	atag_json_close(&w);
	return atag_json_finish(&w);
}
