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
#include "atag-run.h"
#include "atag-source.h"

#define PIPE_BYTES	(8 << 20)
#define THREAD_MIN_BYTES (4 << 20)	/* of ring-buffer data */

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
static bool run_threaded(struct stitching *s, struct atag_reader *rd, int *err)
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
	*err = atag_reader_run(rd, &in);
	atag_pipe_close(s->pipe);
	pthread_join(thread, NULL);
	atag_pipe_free(s->pipe);
	if (!*err)
		*err = s->ret;
	return true;
}

int atag_run_stitch(struct atag_run *run, struct atag_reader *rd, bool raw)
{
	unsigned int k, nr = atag_reader_nr_sources(rd), buckets = run->timeline;
	struct stitching s = { 0 };
	int ret;

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
	if (!use_thread(rd) || !run_threaded(&s, rd, &ret))
		ret = atag_reader_run(rd, &s.out);
	/* the stitcher fails only for want of memory, and so do the sinks in front of it */
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
