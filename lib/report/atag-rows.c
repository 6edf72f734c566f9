// SPDX-License-Identifier: LGPL-2.1
/*
 * The report's allocations a row each, streamed: the stitcher's end hook queues
 * a row of numbers on the stitching thread, the calling thread names it and
 * writes it. See atag-rows.h for who runs what; include/atag-report.h for what
 * a row holds.
 *
 * What crosses the queue is copied, as through the pipe: a row's numbers, and
 * the first time the file's run names them, its call site's tag and strings
 * (alloc_tag: from the hits) and its stack's frames. Each side keeps, per file,
 * what it sent or learned: a byte per tag and per stack on the stitching side; a
 * name per tag and a report stack id per stack on the calling side. Stack ids
 * are the report's: stacks with the same frames (as the report prints them) get
 * the same id across the files of one report.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atag-read.h"
#include "atag-recording.h"
#include "atag-rows.h"
#include "atag-run.h"
#include "atag-source.h"
#include "atag-symbols.h"
#include "atag-trace.h"

/* A row as the stitching thread queues it. */
struct pending {
	uint64_t	ptr;
	uint64_t	bytes;
	uint64_t	alloc_ts;
	uint64_t	free_ts;
	uint64_t	lifetime;
	uint64_t	tag;		/* with has_tag */
	uint64_t	*frames;	/* with has_frames: the stack's, owned */
	char		*function;	/* with has_site: the call site's, owned */
	char		*file;
	char		*module;
	long		line;
	uint32_t	tag_idx;
	uint32_t	stack_id;	/* the run's */
	uint32_t	nr_frames;
	int32_t		pid;
	uint8_t		src;
	uint8_t		state;		/* enum atag_row_state */
	uint8_t		has_tag;
	uint8_t		has_site;
	uint8_t		has_frames;
};

struct queue {
	struct pending	*p;
	size_t		n;
	size_t		cap;
};

/* What the calling thread knows of a tag of the file. */
struct ident {
	uint64_t	tag;
	char		*site_function;	/* from the hits (what the recording selects by) */
	char		*site_file;
	char		*site_module;
	long		site_line;
	char		*function;	/* its name in the rows */
	char		*file;
	char		*module;
	long		line;
	long long	offset;
	bool		named;
	bool		selected;
};

enum { TAG_UNSEEN, TAG_SENT, TAG_SITE_SENT };

struct atag_rows {
	struct atag_report_rows		out;
	struct atag_report_view		view;
	bool				raw_stacks;
	bool				all_tags;
	GHashTable			*stack_ids;	/* frames joined by '\n' -> id */
	uint32_t			nr_stacks;
	int				err;		/* the output's first error */

	/* the queue: the only thing both threads touch */
	pthread_mutex_t			lock;
	struct queue			q;
	struct queue			spare;

	/* the file being read */
	struct atag_reader		*rd;
	const struct atag_run		*run;
	const char			*trace;
	char				*host;
	/* stitching side */
	uint8_t				*tag_state[ATAG_STITCH_MAX_SOURCES];
	size_t				nr_tag_state[ATAG_STITCH_MAX_SOURCES];
	uint8_t				*stack_sent;
	size_t				nr_stack_sent;
	/* calling side */
	struct ident			*ids[ATAG_STITCH_MAX_SOURCES];
	size_t				nr_ids[ATAG_STITCH_MAX_SOURCES];
	uint32_t			*stack_map;	/* run's id -> report id + 1; 0: not yet */
	size_t				nr_stack_map;
};

struct atag_rows *atag_rows_alloc(const struct atag_report_rows *out,
				  const struct atag_report_view *view,
				  const struct atag_report_opts *opts)
{
	struct atag_rows *rows = calloc(1, sizeof(*rows));

	if (!rows)
		return NULL;
	rows->out = *out;
	if (view)
		rows->view = *view;
	rows->raw_stacks = opts && opts->raw_stacks;
	rows->all_tags = opts && opts->all_tags;
	rows->stack_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	pthread_mutex_init(&rows->lock, NULL);
	return rows;
}

static void pending_free(struct pending *p)
{
	free(p->frames);
	free(p->function);
	free(p->file);
	free(p->module);
}

static void queue_clear(struct queue *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		pending_free(&q->p[i]);
	q->n = 0;
}

static void ident_clear(struct ident *id)
{
	free(id->site_function);
	free(id->site_file);
	free(id->site_module);
	free(id->function);
	free(id->file);
	free(id->module);
}

void atag_rows_done(struct atag_rows *rows)
{
	unsigned int k;
	size_t i;

	queue_clear(&rows->q);
	for (k = 0; k < ATAG_STITCH_MAX_SOURCES; k++) {
		free(rows->tag_state[k]);
		rows->tag_state[k] = NULL;
		rows->nr_tag_state[k] = 0;
		for (i = 0; i < rows->nr_ids[k]; i++)
			ident_clear(&rows->ids[k][i]);
		free(rows->ids[k]);
		rows->ids[k] = NULL;
		rows->nr_ids[k] = 0;
	}
	free(rows->stack_sent);
	free(rows->stack_map);
	free(rows->host);
	rows->stack_sent = NULL;
	rows->stack_map = NULL;
	rows->host = NULL;
	rows->nr_stack_sent = rows->nr_stack_map = 0;
	rows->rd = NULL;
	rows->run = NULL;
}

void atag_rows_free(struct atag_rows *rows)
{
	if (!rows)
		return;
	atag_rows_done(rows);
	free(rows->q.p);
	free(rows->spare.p);
	pthread_mutex_destroy(&rows->lock);
	g_hash_table_destroy(rows->stack_ids);
	free(rows);
}

/* The node name of the trace's machine: the second word of its uname. */
static char *trace_host(struct atag_reader *rd)
{
	const char *u = atag_trace_uname(atag_reader_trace(rd));
	size_t n;

	if (!u)
		return NULL;
	u += strspn(u, " ");
	u += strcspn(u, " ");
	u += strspn(u, " ");
	n = strcspn(u, " ");
	if (!n)
		return NULL;
	return strndup(u, n);
}

int atag_rows_begin(struct atag_rows *rows, struct atag_reader *rd)
{
	atag_rows_done(rows);
	rows->rd = rd;
	rows->trace = atag_reader_path(rd);
	rows->host = trace_host(rd);
	return 0;
}

/* ------------------------------------------------------------ the stitching thread */

/* Element @i of the byte array *@a of *@n, grown (zeroed) to hold it; NULL on ENOMEM. */
static void *grow_at(void *a, size_t *n, size_t i, size_t size, void **out)
{
	size_t cap = *n;
	char *p = a;

	if (i >= cap) {
		cap = cap ? cap : 64;
		while (cap <= i)
			cap *= 2;
		p = realloc(a, cap * size);
		if (!p)
			return NULL;
		memset(p + *n * size, 0, (cap - *n) * size);
		*n = cap;
	}
	*out = p;
	return p + i * size;
}

static uint8_t *tag_state(struct atag_rows *rows, unsigned int src, uint32_t idx)
{
	void *arr;
	uint8_t *s = grow_at(rows->tag_state[src], &rows->nr_tag_state[src], idx, 1, &arr);

	if (s)
		rows->tag_state[src] = arr;
	return s;
}

static uint8_t *stack_sent(struct atag_rows *rows, uint32_t id)
{
	void *arr;
	uint8_t *s = grow_at(rows->stack_sent, &rows->nr_stack_sent, id, 1, &arr);

	if (s)
		rows->stack_sent = arr;
	return s;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The row of @l, with what the calling thread does not know yet. 0 or -ENOMEM. */
static int make_pending(struct atag_rows *rows, const struct atag_live *l, int state,
			uint64_t free_ts, uint64_t lifetime, struct pending *p)
{
	const struct atag_tag_stats *t = atag_aggr_tag(rows->run->aggr[l->src], l->tag_idx);
	const uint64_t *frames;
	uint8_t *ts, *ss;
	unsigned int nr;

	*p = (struct pending){
		.ptr = l->ptr, .bytes = l->bytes, .alloc_ts = l->ts, .free_ts = free_ts,
		.lifetime = lifetime, .tag_idx = l->tag_idx, .stack_id = l->stack_id,
		.pid = l->pid, .src = l->src, .state = state,
	};
	ts = tag_state(rows, l->src, l->tag_idx);
	if (!ts)
		return -ENOMEM;
	if (*ts == TAG_UNSEEN) {
		p->has_tag = 1;
		p->tag = t->tag;
		*ts = TAG_SENT;
	}
	if (*ts == TAG_SENT && t->function) {
		p->has_site = 1;
		p->function = strdup(t->function);
		p->file = dup_or_null(t->file);
		p->module = dup_or_null(t->module);
		p->line = t->line;
		if (!p->function || (t->file && !p->file) || (t->module && !p->module))
			goto nomem;
		*ts = TAG_SITE_SENT;
	}
	if (!l->stack_id)
		return 0;
	ss = stack_sent(rows, l->stack_id);
	if (!ss)
		goto nomem;
	if (!*ss) {
		frames = atag_stacks_get(rows->run->stacks, l->stack_id, &nr);
		p->has_frames = 1;
		p->nr_frames = nr;
		if (nr) {
			p->frames = malloc(nr * sizeof(*frames));
			if (!p->frames)
				goto nomem;
			memcpy(p->frames, frames, nr * sizeof(*frames));
		}
		*ss = 1;
	}
	return 0;
nomem:
	pending_free(p);
	memset(p, 0, sizeof(*p));
	return -ENOMEM;
}

static int queue_push(struct queue *q, const struct pending *p)
{
	struct pending *np;
	size_t cap;

	if (q->n == q->cap) {
		cap = q->cap ? q->cap * 2 : 256;
		np = realloc(q->p, cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		q->p = np;
		q->cap = cap;
	}
	q->p[q->n++] = *p;
	return 0;
}

/* The stitcher's end hook: queue the row. */
static int on_end(void *ctx, const struct atag_ended *e)
{
	struct atag_rows *rows = ctx;
	struct pending p;
	int ret;

	ret = make_pending(rows, e->l,
			   e->how == ATAG_END_FREED ? ATAG_ROW_FREED : ATAG_ROW_REPLACED, e->ts,
			   e->how == ATAG_END_FREED ? e->lifetime : 0, &p);
	if (ret)
		return ret;
	pthread_mutex_lock(&rows->lock);
	ret = queue_push(&rows->q, &p);
	pthread_mutex_unlock(&rows->lock);
	if (ret)
		pending_free(&p);
	return ret;
}

void atag_rows_attach(struct atag_rows *rows, const struct atag_run *run)
{
	rows->run = run;
	atag_stitcher_on_end(run->st, on_end, rows);
}

/* ------------------------------------------------------------ the calling thread */

/* Whether the report counts and shows tag @id (the recording's selection, the view). */
static bool ident_selected(struct atag_rows *rows, const struct ident *id)
{
	const struct atag_recording *rec = atag_reader_recording(rows->rd);

	if (atag_recording_labelled(rec) && !rows->all_tags &&
	    !atag_recording_selects(rec, id->site_function, id->site_file, id->site_line,
				    id->site_module))
		return false;
	return atag_view_selects(&rows->view, id->function, id->file, id->module);
}

/* Name tag @id of source @src as the report's call sites are named. */
static int ident_name(struct atag_rows *rows, unsigned int src, struct ident *id)
{
	const char *function = id->site_function, *module = id->site_module;
	uint64_t off = 0;

	free(id->function);
	free(id->file);
	free(id->module);
	id->function = id->file = id->module = NULL;
	id->line = id->site_line;
	id->offset = -1;
	if (!function && id->tag &&
	    atag_decoder_name_source_tag(atag_reader_decoder(rows->rd), src, id->tag, &function,
					 &off, &module))
		id->offset = off;
	id->function = dup_or_null(function);
	id->file = dup_or_null(id->site_file);
	id->module = dup_or_null(module);
	if ((function && !id->function) || (id->site_file && !id->file) || (module && !id->module))
		return -ENOMEM;
	id->named = true;
	id->selected = ident_selected(rows, id);
	return 0;
}

/* The report's id of the run's stack @p names, given its frames the first time. */
static int map_stack(struct atag_rows *rows, struct pending *p, uint32_t *out)
{
	struct atag_trace *trace = atag_reader_trace(rows->rd);
	unsigned int skip, nr, i;
	char buf[256], **strs;
	GString *key;
	uint32_t *m;
	void *arr, *v;
	int ret = 0;

	*out = 0;
	if (!p->stack_id)
		return 0;
	m = grow_at(rows->stack_map, &rows->nr_stack_map, p->stack_id, sizeof(*m), &arr);
	if (!m)
		return -ENOMEM;
	rows->stack_map = arr;
	if (!p->has_frames) {
		*out = *m ? *m - 1 : 0;
		return 0;
	}
	skip = rows->raw_stacks ? 0 :
	       atag_stack_skip(atag_decoder_frames(atag_reader_decoder(rows->rd)), p->frames,
			       p->nr_frames);
	nr = p->nr_frames - skip;
	if (!nr) {
		*m = 1;		/* nothing left of it: no stack */
		return 0;
	}
	strs = calloc(nr, sizeof(*strs));
	key = g_string_new(NULL);
	for (i = 0; strs && i < nr; i++) {
		strs[i] = strdup(atag_symbolize(atag_trace_tep(trace), atag_trace_modules(trace),
						p->frames[skip + i], buf, sizeof(buf)));
		if (!strs[i])
			break;
		if (i)
			g_string_append_c(key, '\n');
		g_string_append(key, strs[i]);
	}
	if (!strs || i < nr) {
		ret = -ENOMEM;
		goto out;
	}
	if (g_hash_table_lookup_extended(rows->stack_ids, key->str, NULL, &v)) {
		*out = GPOINTER_TO_UINT(v);
	} else {
		*out = ++rows->nr_stacks;
		g_hash_table_insert(rows->stack_ids, g_strdup(key->str), GUINT_TO_POINTER(*out));
		if (rows->out.stack)
			ret = rows->out.stack(rows->out.ctx, *out, strs, nr);
	}
	*m = *out + 1;
out:
	for (i = 0; strs && i < nr; i++)
		free(strs[i]);
	free(strs);
	g_string_free(key, TRUE);
	return ret;
}

/* Name the row @p and write it (taking what it owns). */
static int put_row(struct atag_rows *rows, struct pending *p)
{
	struct atag_trace *trace = atag_reader_trace(rows->rd);
	struct atag_report_row row;
	struct ident *id;
	uint32_t stack;
	void *arr;
	int ret;

	id = grow_at(rows->ids[p->src], &rows->nr_ids[p->src], p->tag_idx, sizeof(*id), &arr);
	if (!id)
		return -ENOMEM;
	rows->ids[p->src] = arr;
	if (p->has_tag)
		id->tag = p->tag;
	if (p->has_site) {
		free(id->site_function);
		free(id->site_file);
		free(id->site_module);
		id->site_function = p->function;
		id->site_file = p->file;
		id->site_module = p->module;
		id->site_line = p->line;
		p->function = p->file = p->module = NULL;
		id->named = false;
	} else if (p->has_tag) {
		id->site_line = -1;
	}
	if (!id->named && (ret = ident_name(rows, p->src, id)))
		return ret;
	ret = map_stack(rows, p, &stack);
	if (ret || !id->selected || !rows->out.row)
		return ret;
	row = (struct atag_report_row){
		.trace = rows->trace, .host = rows->host,
		.source = atag_reader_source_at(rows->rd, p->src)->name,
		.tag = id->tag, .function = id->function, .file = id->file, .module = id->module,
		.line = id->line, .offset = id->offset, .stack_id = stack, .pid = p->pid,
		.comm = atag_trace_comm(trace, p->pid), .ptr = p->ptr, .bytes = p->bytes,
		.alloc_ts = p->alloc_ts, .free_ts = p->free_ts, .lifetime_ns = p->lifetime,
		.state = p->state,
	};
	return rows->out.row(rows->out.ctx, &row);
}

int atag_rows_drain(struct atag_rows *rows)
{
	struct queue q;
	size_t i;
	int ret;

	pthread_mutex_lock(&rows->lock);
	q = rows->q;
	rows->q = rows->spare;
	pthread_mutex_unlock(&rows->lock);
	for (i = 0; i < q.n; i++) {
		ret = rows->err ? 0 : put_row(rows, &q.p[i]);
		if (ret && !rows->err)
			rows->err = ret;
		pending_free(&q.p[i]);
	}
	q.n = 0;
	rows->spare = q;
	return rows->err;
}

static int by_seq(const void *a, const void *b)
{
	const struct atag_live *x = *(const struct atag_live *const *)a;
	const struct atag_live *y = *(const struct atag_live *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int atag_rows_end(struct atag_rows *rows, const struct atag_run *run)
{
	const struct atag_live **live = NULL, *l, **p;
	size_t n = 0, cap = 0, iter = 0, i;
	struct pending pd;
	int ret;

	ret = atag_rows_drain(rows);
	while (!ret && (l = atag_stitch_live_next(run->st, &iter))) {
		if (!l->counted)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			p = realloc(live, cap * sizeof(*p));
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			live = p;
		}
		live[n++] = l;
	}
	/* none live: no array to sort (qsort() takes no NULL, even of 0 elements) */
	if (!ret && n > 1)
		qsort(live, n, sizeof(*live), by_seq);
	for (i = 0; !ret && i < n; i++) {
		ret = make_pending(rows, live[i], ATAG_ROW_LIVE, 0, 0, &pd);
		if (!ret)
			ret = put_row(rows, &pd);
		pending_free(&pd);
	}
	free(live);
	if (ret && !rows->err)
		rows->err = ret;
	return rows->err;
}
