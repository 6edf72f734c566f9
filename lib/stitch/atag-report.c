// SPDX-License-Identifier: LGPL-2.1
/*
 * Building a report: run the pipeline on each trace.dat and fold the per-file
 * aggregates into call sites and stacks that can be compared across files.
 * See atag-report.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <trace-cmd.h>

#include "atag-pipe.h"
#include "atag-report.h"
#include "atag-source.h"
#include "atag-symbols.h"
#include "atag-trace.h"
#include "atag-utils.h"

#define PROBE_RECORDS		4096
#define PROGRESS_EVERY		(1 << 18)
#define RELEASE_EVERY		(1 << 19)	/* records between dropping mapped pages */
#define PIPE_BYTES		(8 << 20)

struct report_priv {
	struct atag_report_opts	opts;
	GHashTable		*tag_by_key;	/* identity -> struct atag_report_tag * */
	size_t			cap_tags;
	size_t			cap_live;
};

/* The state of one file while it is read. */
struct file_run {
	struct atag_report	*r;
	struct atag_report_file	*file;
	struct atag_trace	*trace;
	struct tep_handle	*tep;
	struct atag_decoder	*dec;
	struct atag_aggr	*aggr;
	struct atag_stacks	*stacks;
	struct atag_stitcher	*st;
	struct atag_sink	sink;		/* where record_cb sends decoded events */
	struct atag_pipe	*pipe;		/* to the stitching thread, if any */
	int			buffer;
	int			error;
	int			fault;		/* signal libtracecmd raised on corrupt data */
	uint64_t		*missed;	/* per CPU: events lost, or ~0 if unknown */
	bool			*missed_seen;
	int			nr_cpus;
	uint64_t		span_start;
	uint64_t		span_end;
};

/* ------------------------------------------------------------ notices */

static void add_line(char ***list, unsigned int *nr, const char *fmt, va_list ap)
{
	char **p, *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return;
	p = realloc(*list, (*nr + 1) * sizeof(*p));
	if (!p) {
		free(s);
		return;
	}
	p[(*nr)++] = s;
	*list = p;
}

static void __attribute__((format(printf, 2, 3)))
notice(struct atag_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(&r->notices, &r->nr_notices, fmt, ap);
	va_end(ap);
	r->complete = false;
}

static void __attribute__((format(printf, 2, 3)))
remark(struct atag_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(&r->remarks, &r->nr_remarks, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ alloc and free */

struct atag_report *atag_report_alloc(const struct atag_report_opts *opts)
{
	struct atag_report *r = calloc(1, sizeof(*r));
	struct report_priv *p = calloc(1, sizeof(*p));

	if (!r || !p) {
		free(r);
		free(p);
		return NULL;
	}
	if (opts)
		p->opts = *opts;
	p->tag_by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	r->priv = p;
	r->complete = true;
	return r;
}

static void stack_free(struct atag_report_stack *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_frames; i++)
		free(s->frames[i]);
	free(s->frames);
	free(s);
}

static void tag_free(struct atag_report_tag *t)
{
	size_t i;

	for (i = 0; i < t->nr_stacks; i++)
		stack_free(t->stacks[i]);
	free(t->stacks);
	free(t->function);
	free(t->file);
	free(t->module);
	atag_lifetime_free(&t->lifetimes);
	free(t);
}

static void file_free(struct atag_report_file *f)
{
	unsigned int i;

	free(f->path);
	free(f->buffer);
	for (i = 0; i < f->nr_also; i++)
		free(f->also[i]);
	free(f->also);
	for (i = 0; i < f->nr_counts; i++)
		free(f->counts[i].event);
	free(f->counts);
}

void atag_report_free(struct atag_report *r)
{
	struct report_priv *p;
	unsigned int i;
	size_t j;

	if (!r)
		return;
	p = r->priv;
	for (j = 0; j < r->nr_tags; j++)
		tag_free(r->tags[j]);
	free(r->tags);
	for (j = 0; j < r->nr_live; j++)
		free(r->live[j].comm);
	free(r->live);
	for (i = 0; i < r->nr_files; i++)
		file_free(&r->files[i]);
	free(r->files);
	for (i = 0; i < r->nr_notices; i++)
		free(r->notices[i]);
	free(r->notices);
	for (i = 0; i < r->nr_remarks; i++)
		free(r->remarks[i]);
	free(r->remarks);
	if (p)
		g_hash_table_destroy(p->tag_by_key);
	free(p);
	free(r);
}

/* ------------------------------------------------------------ folding a file in */

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

static struct atag_report_tag *report_tag(struct file_run *fr, const struct atag_tag_stats *t)
{
	struct report_priv *p = fr->r->priv;
	const char *function = t->function, *module = t->module;
	struct atag_report_tag *rt, **tags;
	uint64_t off = 0;
	long long offset = -1;
	char *key;

	if (!function && t->tag && atag_decoder_name_tag(fr->dec, t->tag, &function, &off, &module))
		offset = off;
	key = tag_key(t, function, offset, module);
	rt = g_hash_table_lookup(p->tag_by_key, key);
	if (rt) {
		g_free(key);
		return rt;
	}
	if (fr->r->nr_tags == p->cap_tags) {
		p->cap_tags = p->cap_tags ? p->cap_tags * 2 : 64;
		tags = realloc(fr->r->tags, p->cap_tags * sizeof(*tags));
		if (!tags)
			goto nomem;
		fr->r->tags = tags;
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
	fr->r->tags[fr->r->nr_tags++] = rt;
	g_hash_table_insert(p->tag_by_key, key, rt);
	return rt;
nomem:
	g_free(key);
	return NULL;
}

static char **symbolize_frames(struct file_run *fr, uint32_t stack_id, unsigned int *nr)
{
	const struct report_priv *p = fr->r->priv;
	const uint64_t *frames;
	unsigned int n, skip, i;
	char buf[256], **out;

	frames = atag_stacks_get(fr->stacks, stack_id, &n);
	skip = p->opts.raw_stacks ? 0 : atag_stack_skip(fr->tep, frames, n);
	*nr = n - skip;
	if (!*nr)
		return NULL;
	out = calloc(*nr, sizeof(*out));
	for (i = 0; out && i < *nr; i++)
		out[i] = strdup(atag_symbolize(fr->tep, atag_trace_modules(fr->trace),
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

static int fold_tag(struct atag_report_tag *rt, const struct atag_tag_stats *t)
{
	rt->allocs += t->allocs;
	rt->frees += t->frees;
	rt->unmatched_frees += t->unmatched_frees;
	rt->partial_frees += t->partial_frees;
	rt->replaced += t->replaced;
	rt->live += t->live;
	rt->live_bytes += t->live_bytes;
	if (t->peak_live_bytes > rt->peak_live_bytes)
		rt->peak_live_bytes = t->peak_live_bytes;
	rt->bytes_alloced += t->bytes_alloced;
	rt->bytes_freed += t->bytes_freed;
	return atag_lifetime_merge(&rt->lifetimes, &t->lifetimes);
}

struct folded {
	struct atag_report_tag	**tags;		/* by per-file tag index */
	struct atag_report_stack **stacks;	/* by per-file stack-stats index */
	GHashTable		*by_pair;	/* tag_idx << 32 | stack_id -> report stack */
};

static int fold_stacks(struct file_run *fr, struct folded *fo)
{
	const struct atag_stack_stats *s;
	struct atag_report_stack *rs;
	unsigned int nr;
	char **frames;
	uint64_t key;
	size_t i;

	for (i = 0; i < atag_aggr_nr_stacks(fr->aggr); i++) {
		s = atag_aggr_stack(fr->aggr, i);
		if (!fo->tags[s->tag_idx] || !s->allocs)
			continue;
		frames = symbolize_frames(fr, s->stack_id, &nr);
		rs = report_stack(fo->tags[s->tag_idx], frames, nr);
		if (!rs)
			return -ENOMEM;
		rs->allocs += s->allocs;
		rs->live += s->live;
		rs->live_bytes += s->live_bytes;
		rs->bytes_alloced += s->bytes_alloced;
		key = (uint64_t)s->tag_idx << 32 | s->stack_id;
		g_hash_table_insert(fo->by_pair, g_memdup2(&key, sizeof(key)), rs);
	}
	return 0;
}

static int add_live(struct file_run *fr, struct folded *fo, const struct atag_live *l)
{
	struct report_priv *p = fr->r->priv;
	uint64_t key = (uint64_t)l->tag_idx << 32 | l->stack_id;
	struct atag_report_live *lv;
	const char *comm;

	if (!l->counted || !fo->tags[l->tag_idx])
		return 0;
	if (fr->r->nr_live == p->cap_live) {
		p->cap_live = p->cap_live ? p->cap_live * 2 : 256;
		lv = realloc(fr->r->live, p->cap_live * sizeof(*lv));
		if (!lv)
			return -ENOMEM;
		fr->r->live = lv;
	}
	lv = &fr->r->live[fr->r->nr_live++];
	lv->ptr = l->ptr;
	lv->tag = fo->tags[l->tag_idx];
	lv->stack = g_hash_table_lookup(fo->by_pair, &key);
	lv->bytes = l->bytes;
	lv->pid = l->pid;
	comm = tep_is_pid_registered(fr->tep, l->pid) ?
	       tep_data_comm_from_pid(fr->tep, l->pid) : NULL;
	lv->comm = dup_or_null(comm);
	lv->alloc_ts = l->ts;
	lv->age_ns = fr->file->last_ts > l->ts ? fr->file->last_ts - l->ts : 0;
	lv->file = fr->r->nr_files - 1;
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

static int fold_file(struct file_run *fr)
{
	struct folded fo = { 0 };
	const struct atag_live *l;
	size_t i, n = atag_aggr_nr_tags(fr->aggr), iter = 0;
	int ret = -ENOMEM;

	fo.tags = calloc(n + 1, sizeof(*fo.tags));
	fo.by_pair = g_hash_table_new_full(u64_hash, u64_equal, g_free, NULL);
	if (!fo.tags)
		goto out;
	for (i = 0; i < n; i++) {
		const struct atag_tag_stats *t = atag_aggr_tag(fr->aggr, i);

		/* a tag seen only in hits, with nothing allocated or freed, is not a row */
		if (!t->allocs && !t->unmatched_frees && !t->frees)
			continue;
		fo.tags[i] = report_tag(fr, t);
		if (!fo.tags[i] || fold_tag(fo.tags[i], t))
			goto out;
	}
	ret = fold_stacks(fr, &fo);
	while (!ret && (l = atag_stitch_live_next(fr->st, &iter)))
		ret = add_live(fr, &fo, l);
out:
	free(fo.tags);
	g_hash_table_destroy(fo.by_pair);
	return ret;
}

/* ------------------------------------------------------------ reading a file */

static bool select_pid(void *ctx, int pid)
{
	struct file_run *fr = ctx;
	const struct report_priv *p = fr->r->priv;
	const char *comm;
	unsigned int i;

	for (i = 0; i < p->opts.nr_pids; i++)
		if (p->opts.pids[i] == pid)
			return true;
	if (!p->opts.nr_comms || !tep_is_pid_registered(fr->tep, pid))
		return false;
	comm = tep_data_comm_from_pid(fr->tep, pid);
	for (i = 0; i < p->opts.nr_comms; i++)
		if (atag_glob_match(p->opts.comms[i], comm))
			return true;
	return false;
}

/* tag_from_stack of the source, and the pid filter, under one context. */
static uint64_t tag_from_stack(void *ctx, uint32_t stack_id, const uint64_t *frames,
			       unsigned int nr)
{
	struct file_run *fr = ctx;
	struct atag_stitch_opts o = { 0 };

	atag_decoder_stitch_opts(fr->dec, &o);
	return o.tag_from_stack ? o.tag_from_stack(o.ctx, stack_id, frames, nr) : 0;
}

static void note_missed(struct file_run *fr, const struct tep_record *rec)
{
	bool *seen;
	uint64_t *m;
	int n;

	if (rec->cpu >= fr->nr_cpus) {
		n = rec->cpu + 1;
		m = realloc(fr->missed, n * sizeof(*m));
		seen = m ? realloc(fr->missed_seen, n * sizeof(*seen)) : NULL;
		if (!m || !seen) {
			if (m)
				fr->missed = m;
			return;
		}
		memset(m + fr->nr_cpus, 0, (n - fr->nr_cpus) * sizeof(*m));
		memset(seen + fr->nr_cpus, 0, (n - fr->nr_cpus) * sizeof(*seen));
		fr->missed = m;
		fr->missed_seen = seen;
		fr->nr_cpus = n;
	}
	fr->missed_seen[rec->cpu] = true;
	if (rec->missed_events < 0 || fr->missed[rec->cpu] == ~0ULL)
		fr->missed[rec->cpu] = ~0ULL;
	else
		fr->missed[rec->cpu] += rec->missed_events;
}

static void show_progress(struct file_run *fr, const struct tep_record *rec)
{
	const struct report_priv *p = fr->r->priv;
	double done = atag_trace_progress(fr->trace);

	if (done < 0 && fr->span_end > fr->span_start)
		done = (double)(rec->ts - fr->span_start) / (fr->span_end - fr->span_start);
	if (done >= 0)
		p->opts.progress(p->opts.progress_ctx, fr->file->path, done);
}

static int record_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct file_run *fr = data;
	const struct report_priv *p = fr->r->priv;
	int ret;

	if (rec->missed_events) {
		note_missed(fr, rec);
		if (fr->sink.missed(fr->sink.ctx, rec->cpu))
			goto nomem;
	}
	if (p->opts.has_start && rec->ts < p->opts.start)
		return 0;
	/*
	 * Past the window nothing more counts; stopping the iteration early would be
	 * cheaper, but libtracecmd 1.3.1 then mismanages the records it peeked.
	 */
	if (p->opts.has_end && rec->ts > p->opts.end)
		return 0;
	if (!fr->file->records++)
		fr->file->first_ts = rec->ts;
	if (!(fr->file->records % RELEASE_EVERY))
		atag_trace_release_pages(fr->trace);
	fr->file->last_ts = rec->ts;
	if (p->opts.progress && !(fr->file->records % PROGRESS_EVERY))
		show_progress(fr, rec);
	ret = atag_decoder_feed(fr->dec, &fr->sink, rec);
	if (ret)
		goto nomem;
	return 0;
nomem:
	fr->error = -ENOMEM;
	return -1;
}


static int event_ids(const struct atag_source *src, struct tep_handle *tep, int *ids)
{
	const struct atag_source_event *e;
	struct tep_event *ev;
	int n = 0;

	for (e = src->events; e->name; e++) {
		ev = tep_find_event_by_name(tep, e->system, e->name);
		if (ev)
			ids[n++] = ev->id;
	}
	return n;
}

static int pick_buffer(struct file_run *fr, const struct atag_source *src, char *err,
		       size_t errlen)
{
	const struct report_priv *p = fr->r->priv;
	int ids[16], n, i, chosen = -1;
	char **also;

	if (p->opts.buffer) {
		chosen = atag_trace_find_buffer(fr->trace, p->opts.buffer);
		if (chosen < 0) {
			snprintf(err, errlen, "has no buffer '%s'", p->opts.buffer);
			return -ENOENT;
		}
	}
	n = event_ids(src, fr->tep, ids);
	for (i = 0; i < atag_trace_nr_buffers(fr->trace); i++) {
		if (i == chosen || !atag_trace_buffer_has(fr->trace, i, ids, n, PROBE_RECORDS))
			continue;
		if (chosen < 0) {
			chosen = i;
			continue;
		}
		also = realloc(fr->file->also, (fr->file->nr_also + 1) * sizeof(*also));
		if (!also)
			return -ENOMEM;
		fr->file->also = also;
		also[fr->file->nr_also++] = strdup(atag_trace_buffer_name(fr->trace, i));
	}
	fr->buffer = chosen < 0 ? 0 : chosen;
	fr->file->buffer = strdup(atag_trace_buffer_name(fr->trace, fr->buffer));
	return 0;
}

static const struct atag_source *pick_source(struct file_run *fr, char *err, size_t errlen)
{
	const struct report_priv *p = fr->r->priv;
	const struct atag_source *src;

	if (p->opts.source) {
		src = atag_source_find(p->opts.source);
		if (!src)
			snprintf(err, errlen, "unknown source '%s' (alloc_tag, kmem, page)",
				 p->opts.source);
		else if (!atag_source_nr_present(src, fr->tep))
			snprintf(err, errlen, "has no %s events (%s)", src->name, src->description);
		else
			return src;
		return NULL;
	}
	src = atag_source_detect(fr->tep);
	if (!src)
		snprintf(err, errlen, "has no allocation events: record alloc_tag:* or kmem:* "
			 "(trace-cmd-alloc-tag record)");
	return src;
}

static void note_counts(struct file_run *fr, const struct atag_source *src)
{
	struct atag_report_file *f = fr->file;
	int i, n;

	for (n = 0; src->events[n].name; n++)
		;
	f->counts = calloc(n + 1, sizeof(*f->counts));
	if (!f->counts)
		return;
	for (i = 0; i < n; i++) {
		if (!atag_decoder_has_event(fr->dec, i))
			continue;
		f->counts[f->nr_counts].event = g_strdup_printf("%s:%s", src->events[i].system,
								 src->events[i].name);
		f->counts[f->nr_counts++].count = atag_decoder_count(fr->dec, i);
	}
	if (tep_find_event_by_name(fr->tep, "ftrace", "kernel_stack")) {
		f->counts[f->nr_counts].event = strdup("ftrace:kernel_stack");
		f->counts[f->nr_counts++].count = atag_decoder_stack_count(fr->dec);
	}
	f->malformed = atag_decoder_malformed(fr->dec);
	f->orphan_stacks = atag_stitch_orphan_stacks(fr->st);
}

static void note_losses(struct file_run *fr)
{
	struct atag_report_file *f = fr->file;
	uint64_t size, needed;
	const char *b = f->buffer[0] ? f->buffer : "top";
	unsigned int i;
	int cpu;

	for (cpu = 0; cpu < fr->nr_cpus; cpu++) {
		if (!fr->missed_seen[cpu])
			continue;
		if (fr->missed[cpu] == ~0ULL)
			notice(fr->r, "%s: buffer %s, CPU %d: events were lost (count unknown)",
			       f->path, b, cpu);
		else
			notice(fr->r, "%s: buffer %s, CPU %d: %llu events were lost", f->path, b,
			       cpu, (unsigned long long)fr->missed[cpu]);
	}
	if (atag_trace_truncated(fr->trace, &size, &needed)) {
		f->truncated = true;
		notice(fr->r, "%s: truncated (%llu of %llu bytes): what follows the cut is missing",
		       f->path, (unsigned long long)size, (unsigned long long)needed);
	}
	for (i = 0; i < atag_trace_nr_warnings(fr->trace); i++)
		notice(fr->r, "%s: libtracecmd: %s", f->path, atag_trace_warning(fr->trace, i));
	if (f->malformed)
		notice(fr->r, "%s: %llu malformed records skipped", f->path,
		       (unsigned long long)f->malformed);
	if (f->orphan_stacks)
		remark(fr->r, "%s: %llu kernel stacks belonged to no waiting event", f->path,
		       (unsigned long long)f->orphan_stacks);
	if (!f->records)
		remark(fr->r, "%s: buffer %s holds no records to read", f->path, b);
}

static void run_free(struct file_run *fr)
{
	atag_stitcher_free(fr->st);
	atag_stacks_free(fr->stacks);
	atag_aggr_free(fr->aggr);
	atag_decoder_free(fr->dec);
	atag_trace_close(fr->trace);
	free(fr->missed);
	free(fr->missed_seen);
}

static struct atag_report_file *new_file(struct atag_report *r, const char *path)
{
	struct atag_report_file *f;

	f = realloc(r->files, (r->nr_files + 1) * sizeof(*f));
	if (!f)
		return NULL;
	r->files = f;
	f = &r->files[r->nr_files++];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	return f;
}

/* The reading thread: the records of the chosen buffer, decoded into the pipe. */
static void *reader(void *arg)
{
	struct file_run *fr = arg;

	fr->fault = atag_trace_iterate(fr->trace, fr->buffer, record_cb, fr);
	atag_pipe_close(fr->pipe);
	return NULL;
}

/*
 * Read and stitch: on two CPUs or more, reading and decoding run in a thread of
 * their own and stitching in this one, joined by a pipe (ATAG_THREADS=1 keeps
 * one thread); the results are the same either way.
 */
static int stitch_records(struct file_run *fr)
{
	const char *env = getenv("ATAG_THREADS");
	struct atag_sink out;
	pthread_t thread;
	int ret;

	atag_stitch_sink(fr->st, &out);
	if ((env && !strcmp(env, "1")) || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		goto single;
	fr->pipe = atag_pipe_alloc(PIPE_BYTES);
	if (!fr->pipe)
		goto single;
	/* build libtraceevent's function map now: both threads look symbols up */
	tep_find_function(fr->tep, 0);
	atag_pipe_sink(fr->pipe, &fr->sink);
	if (pthread_create(&thread, NULL, reader, fr)) {
		atag_pipe_free(fr->pipe);
		fr->pipe = NULL;
		goto single;
	}
	ret = atag_pipe_drain(fr->pipe, &out);
	pthread_join(thread, NULL);
	atag_pipe_free(fr->pipe);
	fr->pipe = NULL;
	return ret;
single:
	fr->sink = out;
	fr->fault = atag_trace_iterate(fr->trace, fr->buffer, record_cb, fr);
	return 0;
}

static int read_file(struct file_run *fr, char *err, size_t errlen)
{
	struct atag_stitch_opts so = { .ctx = fr };
	const struct report_priv *p = fr->r->priv;
	const struct atag_source *src;
	struct tracecmd_input *h;
	int ret;

	src = pick_source(fr, err, errlen);
	if (!src)
		return -ENOENT;
	fr->file->source = src->name;
	fr->dec = atag_decoder_alloc(src, fr->tep);
	if (fr->dec)
		atag_decoder_set_modules(fr->dec, atag_trace_modules(fr->trace));
	fr->aggr = atag_aggr_alloc();
	fr->stacks = atag_stacks_alloc();
	if (!fr->dec || !fr->aggr || !fr->stacks)
		return -ENOMEM;
	ret = pick_buffer(fr, src, err, errlen);
	if (ret)
		return ret;
	if (src->tag_from_stack)
		so.tag_from_stack = tag_from_stack;
	if (p->opts.nr_pids || p->opts.nr_comms)
		so.select_pid = select_pid;
	fr->st = atag_stitcher_alloc(fr->aggr, fr->stacks, &so);
	if (!fr->st)
		return -ENOMEM;
	h = atag_trace_buffer(fr->trace, fr->buffer);
	if (p->opts.progress && !atag_trace_direct(fr->trace, fr->buffer)) {
		fr->span_start = tracecmd_get_first_ts(h);
		fr->span_end = atag_trace_last_ts(fr->trace, fr->buffer);
	}
	ret = stitch_records(fr);
	if (ret || fr->error || atag_stitch_finish(fr->st))
		return -ENOMEM;
	if (fr->fault)
		notice(fr->r, "%s: corrupt ring-buffer data in buffer %s: reading stopped after "
		       "%llu records", fr->file->path,
		       fr->file->buffer[0] ? fr->file->buffer : "top",
		       (unsigned long long)fr->file->records);
	note_counts(fr, src);
	note_losses(fr);
	return fold_file(fr);
}

int atag_report_add_file(struct atag_report *r, const char *path, char *err, size_t errlen)
{
	struct file_run fr = { .r = r };
	int ret;

	ret = atag_trace_open(path, &fr.trace, err, errlen);
	if (ret)
		return ret;
	fr.file = new_file(r, path);
	if (!fr.file) {
		atag_trace_close(fr.trace);
		return atag_err(-ENOMEM);
	}
	fr.tep = atag_trace_tep(fr.trace);
	ret = read_file(&fr, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	run_free(&fr);
	if (ret) {
		file_free(&r->files[--r->nr_files]);
		return atag_err(ret);
	}
	return 0;
}
