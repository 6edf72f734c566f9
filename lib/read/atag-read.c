// SPDX-License-Identifier: LGPL-2.1
/*
 * The reader: choosing the sources and the buffer of a trace.dat, reading the
 * recording's description ahead, then walking its records into a sink (time
 * window, lost events, progress, the task scope). See atag-read.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "atag-read.h"
#include "atag-recording.h"
#include "atag-source.h"
#include "atag-trace.h"
#include "atag-utils.h"

#define PROBE_RECORDS		4096
#define PROGRESS_EVERY		(1 << 18)
#define PRESCAN_QUIET		(1 << 20)	/* records without a marker line that end it */

struct atag_reader {
	struct atag_read_opts		opts;
	struct atag_trace		*trace;
	const struct atag_source	*src[ATAG_DECODER_MAX_SOURCES];
	unsigned int			nr_src;
	struct atag_decoder		*dec;
	struct atag_recording		*recording;
	struct atag_scope		*scope;
	uint64_t			prescanned;
	/* per source: one allocation in this many carries a stack; 0: not sampled */
	unsigned int			stack_every[ATAG_DECODER_MAX_SOURCES];
	int				buffer;
	int				*also;		/* other buffers with the events */
	unsigned int			nr_also;
	struct atag_read_stats		stats;
	uint64_t			*missed;	/* per CPU: events lost, or ~0 if unknown */
	bool				*missed_seen;
	uint64_t			*last_ts;	/* per CPU: of its latest record */
	uint64_t			*backwards;	/* per CPU: records before the latest */
	int				nr_cpus;
	uint64_t			span_start;	/* for progress by timestamps */
	uint64_t			span_end;
	const struct atag_sink		*out;		/* during a run */
	int				error;		/* the sink's first error */
};

/* ------------------------------------------------------------ choosing */

/* The sources to read: the one asked for, else every one the file has events of. */
static bool pick_sources(struct atag_reader *rd, char *err, size_t errlen)
{
	struct tep_handle *tep = atag_trace_tep(rd->trace);
	const struct atag_source *src;
	char names[128];
	int i;

	if (rd->opts.source) {
		src = atag_source_find(rd->opts.source);
		if (!src)
			snprintf(err, errlen, "unknown source '%s' (%s)", rd->opts.source,
				 atag_source_names(names, sizeof(names)));
		else if (!atag_source_nr_present(src, tep))
			snprintf(err, errlen, "has no %s events (%s)", src->name, src->description);
		else
			rd->src[rd->nr_src++] = src;
		return rd->nr_src;
	}
	for (i = 0; atag_sources[i] && rd->nr_src < ATAG_DECODER_MAX_SOURCES; i++)
		if (atag_source_nr_present(atag_sources[i], tep))
			rd->src[rd->nr_src++] = atag_sources[i];
	if (!rd->nr_src)
		snprintf(err, errlen, "has no allocation events: record alloc_tag:* or kmem:* "
			 "(trace-cmd-alloc-tag record)");
	return rd->nr_src;
}

static int event_ids(const struct atag_reader *rd, struct tep_handle *tep, int *ids, int max)
{
	const struct atag_source_event *e;
	struct tep_event *ev;
	unsigned int k;
	int n = 0;

	for (k = 0; k < rd->nr_src; k++) {
		for (e = rd->src[k]->events; e->name && n < max; e++) {
			ev = tep_find_event_by_name(tep, e->system, e->name);
			if (ev)
				ids[n++] = ev->id;
		}
	}
	return n;
}

/*
 * No buffer holds the sources' events: the first holding the recording's description
 * (its ftrace:print lines, in record's instance), so that a recording that caught
 * no event (memory allocation profiling switched off, tags that never allocated)
 * still says what it was and why. -1 when there is none.
 */
static int described_buffer(const struct atag_reader *rd)
{
	struct tep_event *ev = tep_find_event_by_name(atag_trace_tep(rd->trace), "ftrace",
						      "print");
	int i;

	for (i = 0; ev && i < atag_trace_nr_buffers(rd->trace); i++)
		if (atag_trace_buffer_has(rd->trace, i, &ev->id, 1, PROBE_RECORDS))
			return i;
	return -1;
}

static int pick_buffer(struct atag_reader *rd, char *err, size_t errlen)
{
	int ids[64], n, i, chosen = -1, *also;

	if (rd->opts.buffer) {
		chosen = atag_trace_find_buffer(rd->trace, rd->opts.buffer);
		if (chosen < 0) {
			snprintf(err, errlen, "has no buffer '%s'", rd->opts.buffer);
			return -ENOENT;
		}
	}
	n = event_ids(rd, atag_trace_tep(rd->trace), ids, 64);
	for (i = 0; i < atag_trace_nr_buffers(rd->trace); i++) {
		if (i == chosen || !atag_trace_buffer_has(rd->trace, i, ids, n, PROBE_RECORDS))
			continue;
		if (chosen < 0) {
			chosen = i;
			continue;
		}
		also = realloc(rd->also, (rd->nr_also + 1) * sizeof(*also));
		if (!also)
			return -ENOMEM;
		rd->also = also;
		also[rd->nr_also++] = i;
	}
	if (chosen < 0)
		chosen = described_buffer(rd);
	rd->buffer = chosen < 0 ? 0 : chosen;
	return 0;
}

/* ------------------------------------------------------------ the description */

/* The comm the file saved, for the scope's comm globs. */
static const char *saved_comm(void *ctx, int pid)
{
	return atag_trace_comm(ctx, pid);
}

struct prescan {
	struct tep_handle	*tep;
	int			print_id;
	int			buf_offset;
	struct atag_recording	*r;
	uint64_t		records;
	uint64_t		last_marker;	/* record count at the last marker line */
	bool			done;
};

static int prescan_cb(const struct tep_record *rec, void *data)
{
	struct prescan *ps = data;
	enum atag_marker m;
	const char *text;
	size_t len;

	if (ps->done)
		return 1;
	ps->records++;
	if (rec->size > ps->buf_offset &&
	    tep_data_type(ps->tep, (struct tep_record *)rec) == ps->print_id) {
		text = (const char *)rec->data + ps->buf_offset;
		len = strnlen(text, rec->size - ps->buf_offset);
		m = atag_recording_line(ps->r, text, len, rec->ts);
		if (m != ATAG_MARKER_NONE)
			ps->last_marker = ps->records;
		if (m == ATAG_MARKER_DESCRIBED || m == ATAG_MARKER_END)
			ps->done = true;
	}
	if (ps->records - ps->last_marker >= PRESCAN_QUIET)
		ps->done = true;
	return ps->done;
}

/*
 * Read the description at the head of the buffer (atag-read.h) and tell the scope
 * who the tasks it names are. A walk of the file's own pages may stop early; one
 * through libtracecmd may not (it would lose records of the run after), so that
 * one reads the file opened anew.
 */
static int prescan(struct atag_reader *rd)
{
	struct tep_handle *tep = atag_trace_tep(rd->trace);
	struct tep_event *print = tep_find_event_by_name(tep, "ftrace", "print");
	struct prescan ps = { .tep = tep };
	struct tep_format_field *f;
	struct atag_trace *t = rd->trace;
	const struct atag_recording *r;
	char err[256];
	unsigned int i;
	int ret = 0, src;

	f = print ? tep_find_field(print, "buf") : NULL;
	if (!f || f->offset < 0)
		return 0;
	ps.print_id = print->id;
	ps.buf_offset = f->offset;
	ps.r = atag_recording_alloc();
	if (!ps.r)
		return -ENOMEM;
	if (!atag_trace_direct(rd->trace, rd->buffer) &&
	    atag_trace_open(atag_trace_path(rd->trace), &t, err, sizeof(err)))
		t = NULL;
	if (t) {
		ps.tep = atag_trace_tep(t);
		atag_trace_iterate(t, rd->buffer, prescan_cb, &ps);
	}
	if (t && t != rd->trace)
		atag_trace_close(t);
	rd->prescanned = ps.records;
	r = ps.r;
	if (atag_recording_labelled(r)) {
		atag_scope_set_labelled(rd->scope, r->nr_workloads);
		ret = atag_scope_name(rd->scope, r->record_pid, ATAG_TASK_RECORDER, NULL);
		for (i = 0; !ret && i < r->nr_recorders; i++)
			ret = atag_scope_name(rd->scope, r->recorders[i].pid, ATAG_TASK_RECORDER,
					      r->recorders[i].comm);
		for (i = 0; !ret && i < r->nr_workloads; i++)
			ret = atag_scope_name(rd->scope, r->workloads[i].pid, ATAG_TASK_WORKLOAD,
					      r->workloads[i].comm);
		/* an event whose stacks were sampled: its allocations may carry one, or not */
		for (i = 0; i < r->nr_sampled; i++) {
			src = atag_decoder_stacks_sampled(rd->dec, r->sampled[i].event);
			if (src >= 0 && src < ATAG_DECODER_MAX_SOURCES)
				rd->stack_every[src] = r->sampled[i].every;
		}
	}
	atag_recording_free(ps.r);
	return ret;
}

static int make_scope(struct atag_reader *rd)
{
	const struct atag_read_opts *o = &rd->opts;
	struct atag_scope_opts so = {
		.pids = o->pids, .nr_pids = o->nr_pids, .comms = o->comms,
		.nr_comms = o->nr_comms, .exclude_pids = o->exclude_pids,
		.nr_exclude_pids = o->nr_exclude_pids, .exclude_comms = o->exclude_comms,
		.nr_exclude_comms = o->nr_exclude_comms, .all_tasks = o->all_tasks,
		.comm = saved_comm, .comm_ctx = rd->trace,
	};

	rd->scope = atag_scope_alloc(&so);
	rd->recording = atag_recording_alloc();
	if (!rd->scope || !rd->recording)
		return -ENOMEM;
	atag_decoder_set_scope(rd->dec, rd->scope, rd->recording);
	return 0;
}

int atag_reader_open(const char *path, const struct atag_read_opts *opts,
		     struct atag_reader **reader, char *err, size_t errlen)
{
	struct atag_reader *rd;
	int ret;

	*reader = NULL;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return atag_err(-ENOMEM);
	if (opts)
		rd->opts = *opts;
	ret = atag_trace_open(path, &rd->trace, err, errlen);
	if (ret)
		goto fail;
	if (!pick_sources(rd, err, errlen)) {
		ret = -ENOENT;
		goto fail;
	}
	rd->dec = atag_decoder_alloc_sources(rd->src, rd->nr_src, atag_trace_tep(rd->trace));
	if (!rd->dec) {
		ret = -ENOMEM;
		goto fail;
	}
	atag_decoder_set_modules(rd->dec, atag_trace_modules(rd->trace));
	atag_decoder_set_gfp_names(rd->dec, atag_trace_gfp_names(rd->trace));
	ret = pick_buffer(rd, err, errlen);
	if (!ret)
		ret = make_scope(rd);
	if (!ret)
		ret = prescan(rd);
	if (ret)
		goto fail;
	*reader = rd;
	return 0;
fail:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	atag_reader_close(rd);
	return atag_err(ret);
}

void atag_reader_close(struct atag_reader *rd)
{
	if (!rd)
		return;
	atag_decoder_free(rd->dec);
	atag_recording_free(rd->recording);
	atag_scope_free(rd->scope);
	atag_trace_close(rd->trace);
	free(rd->also);
	free(rd->missed);
	free(rd->missed_seen);
	free(rd->last_ts);
	free(rd->backwards);
	free(rd);
}

/* ------------------------------------------------------------ reading */

static void note_missed(struct atag_reader *rd, const struct tep_record *rec)
{
	if (rec->cpu < 0 || rec->cpu >= rd->nr_cpus)
		return;
	rd->missed_seen[rec->cpu] = true;
	if (rec->missed_events < 0 || rd->missed[rec->cpu] == ~0ULL)
		rd->missed[rec->cpu] = ~0ULL;
	else
		rd->missed[rec->cpu] += rec->missed_events;
}

static void show_progress(struct atag_reader *rd, const struct tep_record *rec)
{
	double done = atag_trace_progress(rd->trace);

	if (done < 0 && rd->span_end > rd->span_start)
		done = (double)(rec->ts - rd->span_start) / (rd->span_end - rd->span_start);
	if (done >= 0)
		rd->opts.progress(rd->opts.progress_ctx, atag_trace_path(rd->trace), done);
}

/* A record earlier than its CPU's previous one: the pages ran backwards. */
static void note_order(struct atag_reader *rd, const struct tep_record *rec)
{
	if (rec->cpu < 0 || rec->cpu >= rd->nr_cpus)
		return;
	if (rec->ts < rd->last_ts[rec->cpu]) {
		rd->backwards[rec->cpu]++;
		rd->stats.backwards++;
	}
	rd->last_ts[rec->cpu] = rec->ts;
}

static int record_cb(const struct tep_record *rec, void *data)
{
	struct atag_reader *rd = data;
	int ret;

	note_order(rd, rec);
	if (rec->missed_events) {
		note_missed(rd, rec);
		ret = rd->out->missed(rd->out->ctx, rec->cpu);
		if (ret)
			goto fail;
	}
	if (!rd->stats.all_first_ts || rec->ts < rd->stats.all_first_ts)
		rd->stats.all_first_ts = rec->ts;
	if (rec->ts > rd->stats.all_last_ts)
		rd->stats.all_last_ts = rec->ts;
	/*
	 * Past the window nothing more counts; stopping the iteration early would be
	 * cheaper, but libtracecmd 1.3.1 then mismanages the records it peeked.
	 */
	if ((rd->opts.has_start && rec->ts < rd->opts.start) ||
	    (rd->opts.has_end && rec->ts > rd->opts.end)) {
		rd->stats.outside++;
		return 0;
	}
	if (!rd->stats.records++)
		rd->stats.first_ts = rec->ts;
	rd->stats.last_ts = rec->ts;
	if (rd->opts.progress && !(rd->stats.records % PROGRESS_EVERY))
		show_progress(rd, rec);
	ret = atag_decoder_feed(rd->dec, rd->out, rec);
	if (ret)
		goto fail;
	return 0;
fail:
	rd->error = ret;
	return -1;
}

static bool ahead_cb(void *data, int cpu, const void *rec, uint32_t size)
{
	return atag_decoder_ahead(data, cpu, rec, size);
}

int atag_reader_run(struct atag_reader *rd, const struct atag_sink *sink)
{
	/* per CPU of the buffer: as many as it lists, whatever their ids */
	if (!rd->missed) {
		rd->nr_cpus = atag_trace_nr_cpus(rd->trace, rd->buffer);
		rd->missed = calloc(rd->nr_cpus + 1, sizeof(*rd->missed));
		rd->missed_seen = calloc(rd->nr_cpus + 1, sizeof(*rd->missed_seen));
		rd->last_ts = calloc(rd->nr_cpus + 1, sizeof(*rd->last_ts));
		rd->backwards = calloc(rd->nr_cpus + 1, sizeof(*rd->backwards));
		if (!rd->missed || !rd->missed_seen || !rd->last_ts || !rd->backwards)
			return -ENOMEM;
	}
	rd->out = sink;
	if (rd->opts.progress && !atag_trace_direct(rd->trace, rd->buffer)) {
		rd->span_start = atag_trace_first_ts(rd->trace, rd->buffer);
		rd->span_end = atag_trace_last_ts(rd->trace, rd->buffer);
	}
	rd->error = 0;
	atag_trace_set_ahead(rd->trace, ahead_cb, rd->dec);
	rd->stats.fault = atag_trace_iterate(rd->trace, rd->buffer, record_cb, rd);
	atag_trace_set_ahead(rd->trace, NULL, NULL);
	rd->out = NULL;
	return rd->error;
}

/* ------------------------------------------------------------ what was read */

const struct atag_read_stats *atag_reader_stats(const struct atag_reader *rd)
{
	return &rd->stats;
}

bool atag_reader_missed(const struct atag_reader *rd, int cpu, uint64_t *count)
{
	if (cpu < 0 || cpu >= rd->nr_cpus || !rd->missed_seen[cpu])
		return false;
	*count = rd->missed[cpu];
	return true;
}

uint64_t atag_reader_backwards(const struct atag_reader *rd, int cpu)
{
	return cpu >= 0 && cpu < rd->nr_cpus ? rd->backwards[cpu] : 0;
}

int atag_reader_nr_cpus(const struct atag_reader *rd)
{
	return rd->nr_cpus;
}

uint64_t atag_reader_data_size(const struct atag_reader *rd)
{
	return atag_trace_data_size(rd->trace, rd->buffer);
}

int atag_reader_cpu_id(const struct atag_reader *rd, int cpu)
{
	return atag_trace_cpu_id(rd->trace, rd->buffer, cpu);
}

const char *atag_reader_path(const struct atag_reader *rd)
{
	return atag_trace_path(rd->trace);
}

unsigned int atag_reader_nr_sources(const struct atag_reader *rd)
{
	return rd->nr_src;
}

const struct atag_source *atag_reader_source_at(const struct atag_reader *rd, unsigned int i)
{
	return i < rd->nr_src ? rd->src[i] : NULL;
}

const struct atag_source *atag_reader_source(const struct atag_reader *rd)
{
	return rd->src[0];
}

const struct atag_recording *atag_reader_recording(const struct atag_reader *rd)
{
	return rd->recording;
}

struct atag_recording *atag_reader_take_recording(struct atag_reader *rd)
{
	struct atag_recording *r = rd->recording;

	rd->recording = NULL;
	atag_decoder_set_scope(rd->dec, rd->scope, NULL);
	return r;
}

const struct atag_scope *atag_reader_scope(const struct atag_reader *rd)
{
	return rd->scope;
}

unsigned int atag_reader_stack_every(const struct atag_reader *rd, unsigned int i)
{
	return i < rd->nr_src ? rd->stack_every[i] : 0;
}

uint64_t atag_reader_prescanned(const struct atag_reader *rd)
{
	return rd->prescanned;
}

const char *atag_reader_buffer(const struct atag_reader *rd)
{
	return atag_trace_buffer_name(rd->trace, rd->buffer);
}

unsigned int atag_reader_nr_also(const struct atag_reader *rd)
{
	return rd->nr_also;
}

const char *atag_reader_also(const struct atag_reader *rd, unsigned int i)
{
	return i < rd->nr_also ? atag_trace_buffer_name(rd->trace, rd->also[i]) : NULL;
}

struct atag_trace *atag_reader_trace(const struct atag_reader *rd)
{
	return rd->trace;
}

struct atag_decoder *atag_reader_decoder(const struct atag_reader *rd)
{
	return rd->dec;
}
