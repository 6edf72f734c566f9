// SPDX-License-Identifier: LGPL-2.1
/*
 * Running one trace.dat through the pipeline: the reader on the calling thread,
 * the stitcher on a thread of its own, joined by a pipe. The thread contract is
 * in atag-run.h.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atag-pipe.h"
#include "atag-read.h"
#include "atag-rows.h"
#include "atag-run.h"
#include "atag-source.h"

/*
 * The ring between the threads. Measured side by side at 2 M events, medians of
 * 21 runs: 4 MiB 0.232 s, 8 MiB 0.254 s (its first filling costs 2 048 page
 * faults), 1 MiB 0.266 s (the reader waits on a full ring more often).
 */
#define PIPE_BYTES	(4 << 20)
#define THREAD_MIN_BYTES (4 << 20)	/* of ring-buffer data */
#define DRAIN_EVERY	4096		/* messages read between two drains of the rows */

/* The stitching thread's part. */
struct stitching {
	struct atag_pipe	*pipe;
	struct atag_sink	out;		/* into the stitcher */
	int			ret;
};

static void *stitch_thread(void *arg)
{
	struct stitching *s = arg;

	s->ret = atag_pipe_drain(s->pipe, &s->out);
	return NULL;
}

/*
 * In front of the sink the reader feeds (the pipe, or the stitcher itself): every
 * DRAIN_EVERY messages, the rows queued meanwhile are written, on this thread.
 * Counted in messages read, so the rows come out in the same order either way.
 */
struct draining {
	struct atag_sink	inner;
	struct atag_rows	*rows;
	unsigned int		n;
};

static int drain_some(struct draining *d, int ret)
{
	if (!ret && ++d->n == DRAIN_EVERY) {
		d->n = 0;
		ret = atag_rows_drain(d->rows);
	}
	return ret;
}

static int d_event(void *ctx, const struct atag_event *ev)
{
	struct draining *d = ctx;

	return drain_some(d, d->inner.event(d->inner.ctx, ev));
}

static int d_stack(void *ctx, const struct atag_kstack *ks)
{
	struct draining *d = ctx;

	return drain_some(d, d->inner.stack(d->inner.ctx, ks));
}

static int d_missed(void *ctx, int cpu)
{
	struct draining *d = ctx;

	return drain_some(d, d->inner.missed(d->inner.ctx, cpu));
}

/* What the reader feeds: @sink, behind a drain of @rows when there are rows. */
static int read_into(struct atag_reader *rd, const struct atag_sink *sink, struct atag_rows *rows)
{
	struct draining d = { .inner = *sink, .rows = rows };
	struct atag_sink s = { .event = d_event, .stack = d_stack, .missed = d_missed, .ctx = &d };

	return atag_reader_run(rd, rows ? &s : sink);
}

/*
 * Whether to stitch on a thread of its own: when two CPUs are allowed to this
 * process and the buffer holds enough data for the hand-over to pay.
 * ATAG_THREADS=1 or 2 decides instead. The load of the rest of the machine is
 * not asked: measured side by side on a 2-core machine with other work running
 * (load 4 to 7), two threads still took 0.82 times the time of one, as the
 * scheduler gives each thread its share.
 */
static bool use_thread(const struct atag_reader *rd)
{
	const char *env = getenv("ATAG_THREADS");
	cpu_set_t set;
	int cpus;

	if (env && (!strcmp(env, "1") || !strcmp(env, "2")))
		return env[0] == '2';
	if (atag_reader_data_size(rd) < THREAD_MIN_BYTES)
		return false;
	cpus = sched_getaffinity(0, sizeof(set), &set) ? sysconf(_SC_NPROCESSORS_ONLN) :
		CPU_COUNT(&set);
	return cpus >= 2;
}

/*
 * Read into the pipe here while the stitching thread drains it. False if no
 * thread could be started; else *@err is the first error of either side.
 */
static bool run_threaded(struct stitching *s, struct atag_reader *rd, struct atag_rows *rows,
			 int *err)
{
	struct atag_sink in;
	pthread_t thread;

	s->pipe = atag_pipe_alloc(PIPE_BYTES);
	if (!s->pipe)
		return false;
	if (pthread_create(&thread, NULL, stitch_thread, s)) {
		atag_pipe_free(s->pipe);
		return false;
	}
	atag_pipe_sink(s->pipe, &in);
	*err = read_into(rd, &in, rows);
	atag_pipe_close(s->pipe);
	pthread_join(thread, NULL);
	atag_pipe_free(s->pipe);
	if (!*err)
		*err = s->ret;
	return true;
}

int atag_run_stitch(struct atag_run *run, struct atag_reader *rd, bool raw,
		    struct atag_rows *rows)
{
	unsigned int k, nr = atag_reader_nr_sources(rd), buckets = run->timeline;
	struct stitching s = { 0 };
	int ret, werr;

	memset(run, 0, sizeof(*run));
	run->timeline = buckets;
	if (nr > ATAG_STITCH_MAX_SOURCES)
		nr = ATAG_STITCH_MAX_SOURCES;
	for (k = 0; k < nr; k++) {
		run->aggr[k] = atag_aggr_alloc();
		if (!run->aggr[k])
			return -ENOMEM;
		run->nr_src++;
		if (buckets && atag_aggr_keep_timeline(run->aggr[k], buckets))
			return -ENOMEM;
	}
	run->stacks = atag_stacks_alloc();
	if (!run->stacks)
		return -ENOMEM;
	run->st = atag_stitcher_alloc(run->aggr[0], run->stacks);
	if (!run->st)
		return -ENOMEM;
	for (k = 1; k < nr; k++)
		if (atag_stitcher_add_source(run->st, run->aggr[k]) < 0)
			return -ENOMEM;
	for (k = 0; k < nr; k++)
		atag_stitcher_nesting(run->st, k, atag_reader_source_at(rd, k)->nests);
	atag_stitcher_raw_lifetimes(run->st, raw);
	atag_stitch_sink(run->st, &s.out);
	if (rows)
		atag_rows_attach(rows, run);
	if (!use_thread(rd) || !run_threaded(&s, rd, rows, &ret))
		ret = read_into(rd, &s.out, rows);
	/* an output error of the rows says so; else only memory can run out */
	if (ret && rows) {
		werr = atag_rows_drain(rows);
		if (werr)
			return werr;
	}
	if (ret || atag_stitch_finish(run->st))
		return -ENOMEM;
	return 0;
}

void atag_run_free(struct atag_run *run)
{
	unsigned int k;

	atag_stitcher_free(run->st);
	atag_stacks_free(run->stacks);
	for (k = 0; k < ATAG_STITCH_MAX_SOURCES; k++)
		atag_aggr_free(run->aggr[k]);
	memset(run, 0, sizeof(*run));
}
