// SPDX-License-Identifier: LGPL-2.1
/*
 * The reader: choosing the source and the buffer of a trace.dat, then walking its
 * records into a sink (time window, lost events, progress, the task filter).
 * See atag-read.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-read.h"
#include "atag-source.h"
#include "atag-trace.h"
#include "atag-utils.h"

#define PROBE_RECORDS		4096
#define PROGRESS_EVERY		(1 << 18)

struct atag_reader {
	struct atag_read_opts		opts;
	struct atag_trace		*trace;
	const struct atag_source	*src;
	struct atag_decoder		*dec;
	int				buffer;
	int				*also;		/* other buffers with the events */
	unsigned int			nr_also;
	struct atag_read_stats		stats;
	uint64_t			*missed;	/* per CPU: events lost, or ~0 if unknown */
	bool				*missed_seen;
	int				nr_cpus;
	uint64_t			span_start;	/* for progress by timestamps */
	uint64_t			span_end;
	const struct atag_sink		*out;		/* during a run */
	int				error;		/* the sink's first error */
};

/* ------------------------------------------------------------ choosing */

static const struct atag_source *pick_source(struct atag_reader *rd, char *err, size_t errlen)
{
	struct tep_handle *tep = atag_trace_tep(rd->trace);
	const struct atag_source *src;
	char names[128];

	if (rd->opts.source) {
		src = atag_source_find(rd->opts.source);
		if (!src)
			snprintf(err, errlen, "unknown source '%s' (%s)", rd->opts.source,
				 atag_source_names(names, sizeof(names)));
		else if (!atag_source_nr_present(src, tep))
			snprintf(err, errlen, "has no %s events (%s)", src->name, src->description);
		else
			return src;
		return NULL;
	}
	src = atag_source_detect(tep);
	if (!src)
		snprintf(err, errlen, "has no allocation events: record alloc_tag:* or kmem:* "
			 "(trace-cmd-alloc-tag record)");
	return src;
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

static int pick_buffer(struct atag_reader *rd, char *err, size_t errlen)
{
	int ids[16], n, i, chosen = -1, *also;

	if (rd->opts.buffer) {
		chosen = atag_trace_find_buffer(rd->trace, rd->opts.buffer);
		if (chosen < 0) {
			snprintf(err, errlen, "has no buffer '%s'", rd->opts.buffer);
			return -ENOENT;
		}
	}
	n = event_ids(rd->src, atag_trace_tep(rd->trace), ids);
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
	rd->buffer = chosen < 0 ? 0 : chosen;
	return 0;
}

/* ------------------------------------------------------------ the task filter */

/* The task filter, asked by the decoder once per pid. */
static bool task_selected(void *ctx, int pid)
{
	struct atag_reader *rd = ctx;
	const char *comm;
	unsigned int i;

	for (i = 0; i < rd->opts.nr_pids; i++)
		if (rd->opts.pids[i] == pid)
			return true;
	comm = rd->opts.nr_comms ? atag_trace_comm(rd->trace, pid) : NULL;
	for (i = 0; comm && i < rd->opts.nr_comms; i++)
		if (atag_glob_match(rd->opts.comms[i], comm))
			return true;
	return false;
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
	rd->src = pick_source(rd, err, errlen);
	if (!rd->src) {
		ret = -ENOENT;
		goto fail;
	}
	rd->dec = atag_decoder_alloc(rd->src, atag_trace_tep(rd->trace));
	if (!rd->dec) {
		ret = -ENOMEM;
		goto fail;
	}
	atag_decoder_set_modules(rd->dec, atag_trace_modules(rd->trace));
	if (rd->opts.nr_pids || rd->opts.nr_comms)
		atag_decoder_set_task_filter(rd->dec, task_selected, rd);
	ret = pick_buffer(rd, err, errlen);
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
	atag_trace_close(rd->trace);
	free(rd->also);
	free(rd->missed);
	free(rd->missed_seen);
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

static int record_cb(const struct tep_record *rec, void *data)
{
	struct atag_reader *rd = data;
	int ret;

	if (rec->missed_events) {
		note_missed(rd, rec);
		ret = rd->out->missed(rd->out->ctx, rec->cpu);
		if (ret)
			goto fail;
	}
	if (rd->opts.has_start && rec->ts < rd->opts.start)
		return 0;
	/*
	 * Past the window nothing more counts; stopping the iteration early would be
	 * cheaper, but libtracecmd 1.3.1 then mismanages the records it peeked.
	 */
	if (rd->opts.has_end && rec->ts > rd->opts.end)
		return 0;
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

int atag_reader_run(struct atag_reader *rd, const struct atag_sink *sink)
{
	/* per CPU of the buffer: as many as it lists, whatever their ids */
	if (!rd->missed) {
		rd->nr_cpus = atag_trace_nr_cpus(rd->trace, rd->buffer);
		rd->missed = calloc(rd->nr_cpus + 1, sizeof(*rd->missed));
		rd->missed_seen = calloc(rd->nr_cpus + 1, sizeof(*rd->missed_seen));
		if (!rd->missed || !rd->missed_seen)
			return -ENOMEM;
	}
	rd->out = sink;
	if (rd->opts.progress && !atag_trace_direct(rd->trace, rd->buffer)) {
		rd->span_start = atag_trace_first_ts(rd->trace, rd->buffer);
		rd->span_end = atag_trace_last_ts(rd->trace, rd->buffer);
	}
	rd->error = 0;
	rd->stats.fault = atag_trace_iterate(rd->trace, rd->buffer, record_cb, rd);
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

const struct atag_source *atag_reader_source(const struct atag_reader *rd)
{
	return rd->src;
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
