// SPDX-License-Identifier: LGPL-2.1
/*
 * Running one trace.dat through the pipeline: the reader on the calling thread,
 * the stitcher on a thread of its own, joined by a pipe. The thread contract is
 * in atag-run.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atag-pipe.h"
#include "atag-read.h"
#include "atag-rows.h"
#include "atag-run.h"
#include "atag-source.h"

/*
 * The ring between the threads: a larger one costs page faults at its first
 * filling, a smaller one makes the reader wait on a full ring more often
 * (bench/README.md has the measurements).
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

static void prefetch_cb(void *ctx, unsigned int stage, unsigned int src, uint64_t ptr,
			uint32_t key)
{
	atag_stitch_prefetch(ctx, stage, src, ptr, key);
}

static bool prefetch_wanted(void *ctx)
{
	return atag_stitch_wants_prefetch(ctx);
}

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

/* What the runnable count of /proc/loadavg says: other tasks able to run now, or -1. */
static int others_runnable(void)
{
	char buf[128], *slash;
	ssize_t n;
	int fd;

	fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "0.52 0.58 0.59 RUNNABLE/TOTAL LASTPID": RUNNABLE counts this thread */
	slash = strchr(buf, '/');
	if (!slash)
		return -1;
	while (slash > buf && slash[-1] >= '0' && slash[-1] <= '9')
		slash--;
	return atoi(slash) - 1;
}

/*
 * Whether the other CPUs allowed to us are taken by other work right now: the
 * runnable tasks besides this one, looked at three times a millisecond apart (a
 * task that comes and goes is not load), fill every CPU but ours each time.
 */
static bool others_busy(int cpus)
{
	struct timespec ms = { 0, 1000000 };
	int i, n;

	for (i = 0; i < 3; i++) {
		n = others_runnable();
		if (n < 0 || n < cpus - 1)
			return false;
		if (i < 2)
			nanosleep(&ms, NULL);
	}
	return true;
}

/*
 * How to stitch: on a thread of its own when two CPUs are allowed to this
 * process, the buffer holds enough data for the hand-over to pay and the other
 * CPUs are not taken by other work; the run then watches the two threads and
 * goes on with one when they stop gaining (struct switching). ATAG_THREADS=1 or
 * 2 decides instead (2: two threads throughout); ATAG_THREADS=2to1 starts with two
 * and goes on with one at the first look, for the tests.
 */
enum threads { ONE, TWO, ADAPT, TWO_TO_ONE };

/* Whether a second CPU is there for a thread: allowed to the process, not taken. */
static bool second_cpu_free(void)
{
	cpu_set_t set;
	int cpus;

	cpus = sched_getaffinity(0, sizeof(set), &set) ? sysconf(_SC_NPROCESSORS_ONLN) :
		CPU_COUNT(&set);
	return cpus >= 2 && !others_busy(cpus);
}

static enum threads choose_threads(const struct atag_reader *rd)
{
	const char *env = getenv("ATAG_THREADS");

	if (env && (!strcmp(env, "1") || !strcmp(env, "2")))
		return env[0] == '2' ? TWO : ONE;
	if (env && !strcmp(env, "2to1"))
		return TWO_TO_ONE;
	if (atag_reader_data_size(rd) < THREAD_MIN_BYTES)
		return ONE;
	return second_cpu_free() ? ADAPT : ONE;
}

bool atag_second_thread_pays(void)
{
	const char *env = getenv("ATAG_THREADS");

	if (env && !strcmp(env, "1"))
		return false;
	if (env && (!strcmp(env, "2") || !strcmp(env, "2to1")))
		return true;
	return second_cpu_free();
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * The reader's sink while the stitcher may run on a thread of its own: into the
 * pipe while it does, straight into the stitcher once it no longer does. Every
 * JUDGE_EVERY messages the run looks at what the two threads got over the last
 * window of at least JUDGE_NS: the CPU time of the process (both threads) over
 * the wall time. Two threads only gain where they run side by side; where the
 * other CPU is taken by other work, each hand-over waits for the scheduler to
 * run the thread woken (a wake-up lands behind the other work's time slice) and
 * the pair gets less than one thread would. Below PAIR_MIN_CPU (in hundredths
 * of a CPU) in two windows running, the reader closes the pipe, waits for the
 * stitching thread to drain it and end, and feeds the stitcher itself: the same
 * messages in the same order, so the results are those of one thread.
 */
#define JUDGE_EVERY	8192		/* messages */
#define JUDGE_NS	(40 * 1000000ULL)
#define PAIR_MIN_CPU	125

struct switching {
	struct atag_sink	pipe;		/* into the pipe, while threaded */
	struct atag_sink	direct;		/* into the stitcher */
	struct stitching	*s;
	pthread_t		thread;
	bool			threaded;
	enum threads		mode;
	unsigned int		n;		/* messages since the last look */
	unsigned int		low;		/* windows in a row below PAIR_MIN_CPU */
	uint64_t		wall0, cpu0;	/* at the start of the window */
};

/* Go on with one thread: the stitching thread drains the pipe and ends. */
static int go_single(struct switching *w)
{
	w->threaded = false;
	atag_pipe_close(w->s->pipe);
	pthread_join(w->thread, NULL);
	return w->s->ret;
}

static void window_start(struct switching *w)
{
	w->wall0 = clock_ns(CLOCK_MONOTONIC);
	w->cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* After a message into the pipe: time to look at the window, and to go single? */
static int judge(struct switching *w)
{
	uint64_t wall, cpu;

	if (++w->n < JUDGE_EVERY || w->mode == TWO)
		return 0;
	w->n = 0;
	if (w->mode == TWO_TO_ONE)
		return go_single(w);
	wall = clock_ns(CLOCK_MONOTONIC) - w->wall0;
	if (wall < JUDGE_NS)
		return 0;
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - w->cpu0;
	if (cpu * 100 < wall * PAIR_MIN_CPU)
		w->low++;
	else
		w->low = 0;
	if (w->low >= 2)
		return go_single(w);
	window_start(w);
	return 0;
}

static int sw_event(void *ctx, const struct atag_event *ev)
{
	struct switching *w = ctx;
	int ret;

	if (!w->threaded)
		return w->direct.event(w->direct.ctx, ev);
	ret = w->pipe.event(w->pipe.ctx, ev);
	return ret ? ret : judge(w);
}

static int sw_stack(void *ctx, const struct atag_kstack *ks)
{
	struct switching *w = ctx;
	int ret;

	if (!w->threaded)
		return w->direct.stack(w->direct.ctx, ks);
	ret = w->pipe.stack(w->pipe.ctx, ks);
	return ret ? ret : judge(w);
}

static int sw_missed(void *ctx, int cpu)
{
	struct switching *w = ctx;
	int ret;

	if (!w->threaded)
		return w->direct.missed(w->direct.ctx, cpu);
	ret = w->pipe.missed(w->pipe.ctx, cpu);
	return ret ? ret : judge(w);
}

/*
 * Read into the pipe here while the stitching thread drains it (or, once the run
 * went single, into the stitcher). False if no thread could be started; else
 * *@err is the first error of either side.
 */
static bool run_threaded(struct stitching *s, enum threads mode, struct atag_reader *rd,
			 struct atag_rows *rows, int *err)
{
	struct switching w = { .direct = s->out, .s = s, .threaded = true, .mode = mode };
	struct atag_sink in = { .event = sw_event, .stack = sw_stack, .missed = sw_missed,
				.ctx = &w };
	int ret;

	s->pipe = atag_pipe_alloc(PIPE_BYTES);
	if (!s->pipe)
		return false;
	/* the stitching thread looks ahead in the ring (lib/queue/atag-pipe.h) */
	atag_pipe_set_ahead(s->pipe, prefetch_cb, prefetch_wanted, s->out.ctx);
	if (pthread_create(&w.thread, NULL, stitch_thread, s)) {
		atag_pipe_free(s->pipe);
		return false;
	}
	atag_pipe_sink(s->pipe, &w.pipe);
	window_start(&w);
	*err = read_into(rd, &in, rows);
	if (w.threaded) {
		ret = go_single(&w);
		if (!*err)
			*err = ret;
	}
	atag_pipe_free(s->pipe);
	return true;
}

int atag_run_stitch(struct atag_run *run, struct atag_reader *rd, bool raw,
		    struct atag_rows *rows)
{
	unsigned int k, nr = atag_reader_nr_sources(rd), buckets = run->timeline;
	struct stitching s = { 0 };
	enum threads mode;
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
	atag_stacks_borrow_kept(run->stacks);
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
	mode = choose_threads(rd);
	if (mode == ONE || !run_threaded(&s, mode, rd, rows, &ret))
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
