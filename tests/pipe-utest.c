// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the queue between the reading and the stitching thread
 * (lib/queue/atag-pipe.c): order and content across ring wraps, call-site strings
 * sent once per tag, oversized messages, and a consumer error stopping the
 * producer without a hang. make check also runs them under ThreadSanitizer.
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atag-utest.h"
#include "atag-pipe.h"
#include "atag-stack-ids.h"

#define NR_MSGS		(200000 / atag_utest_scale())

/* The i-th message of the stream both sides agree on. */
static int msg_kind(unsigned int i)
{
	return i % 7 == 3 ? 2 : i % 97 == 5 ? 3 : 1;	/* 1 event, 2 stack, 3 missed */
}

/*
 * repeat: stacks repeat (the pipe sends their frames once), events with empty
 * fields. The producer numbers the sets of frames as the decoder does.
 */
static int repeat;

static unsigned int msg_frames(unsigned int i)
{
	if (repeat)
		return (i % 23) * 3 % 40;
	return (i * 2654435761u >> 16) % 40;	/* 0..39 frames: messages of many sizes */
}

static uint64_t msg_frame(unsigned int i, unsigned int j)
{
	return repeat ? (uint64_t)(i % 23) << 8 | j : (uint64_t)i << 8 | j;
}

/* The fields of event i: zero and -1 often, when repeat is set */
static uint64_t msg_tag(unsigned int i)
{
	return repeat && i % 13 == 0 ? 0 : 0xa0 + i % 3;
}

static long msg_line(unsigned int i)
{
	return repeat && i % 11 == 0 ? (long)i : -1;
}

static uint64_t msg_ptr(unsigned int i)
{
	return repeat && i % 17 == 0 ? 0 : 0xffff888000000000ULL + i * 64;
}

struct producer {
	struct atag_pipe	*pipe;
	unsigned int		count;
	int			ret;		/* first error a put returned */
	unsigned int		sent;
};

static void *produce(void *arg)
{
	struct atag_stack_ids *ids = atag_stack_ids_alloc();
	struct atag_stack_entry *e;
	struct producer *pr = arg;
	uint64_t frames[64];
	struct atag_kstack ks;
	struct atag_event ev;
	struct atag_sink in;
	unsigned int i, j;
	bool created;
	int ret = ids ? 0 : -ENOMEM;

	atag_pipe_sink(pr->pipe, &in);
	for (i = 0; i < pr->count && !ret; i++) {
		switch (msg_kind(i)) {
		case 1:
			ev = (struct atag_event){
				.kind = i & 1 ? ATAG_EV_ALLOC : ATAG_EV_FREE, .type = 3,
				.cpu = i % 5, .pid = i, .ts = 1000ULL + i, .tag = msg_tag(i),
				.ptr = msg_ptr(i), .bytes = i * 8,
				.stack_follows = i % 3 == 0, .filtered = i % 4 == 1,
				.line = msg_line(i), .src = i % 7, .task = i % ATAG_TASK_NR,
			};
			ret = in.event(in.ctx, &ev);
			break;
		case 2:
			for (j = 0; j < msg_frames(i); j++)
				frames[j] = msg_frame(i, j);
			ks = (struct atag_kstack){ .cpu = i % 5, .pid = i, .type = 9,
						   .ts = 5000ULL + i,
						   .site = 0xc0de0000ULL + i, .frames = frames,
						   .nr = msg_frames(i) };
			e = atag_stack_ids_find(ids, frames, ks.nr, &created);
			ks.key = e ? e->id : 0;
			ret = in.stack(in.ctx, &ks);
			break;
		default:
			ret = in.missed(in.ctx, i % 5);
		}
		if (!ret)
			pr->sent++;
	}
	pr->ret = ret;
	atag_pipe_close(pr->pipe);
	atag_stack_ids_free(ids);
	return NULL;
}

struct consumer {
	unsigned int	next;		/* index of the message expected next */
	unsigned int	bad;		/* messages that differ from the stream */
	unsigned int	fail_at;	/* return -EIO at this message (0: never) */
	/* keys (atag_kstack.key): of each repeated set of frames; the last new one */
	uint32_t	key_of[23];
	uint32_t	last_key;
	uint32_t	empty_key;	/* where frames never repeat, but for the empty stack */
	unsigned int	stacks;
	unsigned int	keyed;
	unsigned int	alone;		/* keys handed on without their frames */
	/* by key: the frames it came with the first time */
	uint64_t	**kept;
	unsigned int	*kept_nr;
	uint32_t	nr_kept;
};

/* Keep @ks's frames as its key's, the first time it comes with them. */
static void keep_frames(struct consumer *c, const struct atag_kstack *ks)
{
	uint32_t n;

	if (ks->key < c->nr_kept && c->kept[ks->key])
		return;
	if (ks->key >= c->nr_kept) {
		n = 2 * ks->key + 1;
		c->kept = realloc(c->kept, n * sizeof(*c->kept));
		c->kept_nr = realloc(c->kept_nr, n * sizeof(*c->kept_nr));
		CU_ASSERT_PTR_NOT_NULL_FATAL(c->kept);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c->kept_nr);
		memset(c->kept + c->nr_kept, 0, (n - c->nr_kept) * sizeof(*c->kept));
		c->nr_kept = n;
	}
	c->kept[ks->key] = malloc(ks->nr * sizeof(uint64_t) + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->kept[ks->key]);
	memcpy(c->kept[ks->key], ks->frames, ks->nr * sizeof(uint64_t));
	c->kept_nr[ks->key] = ks->nr;
}

static void drop_kept(struct consumer *c)
{
	uint32_t i;

	for (i = 0; i < c->nr_kept; i++)
		free(c->kept[i]);
	free(c->kept);
	free(c->kept_nr);
	c->kept = NULL;
	c->kept_nr = NULL;
	c->nr_kept = 0;
}

/*
 * A key names one set of frames: in a repeated stream, each of the 23 sets has
 * one key, no other set's; where frames never repeat (but for the empty stack),
 * every other key is new.
 */
static void check_key(struct consumer *c, unsigned int i, unsigned int nr, uint32_t key)
{
	unsigned int set = i % 23, j;

	c->stacks++;
	if (!key)
		return;
	c->keyed++;
	if (!repeat && !nr && c->empty_key) {
		if (key != c->empty_key)
			c->bad++;
		return;
	}
	if (!repeat) {
		if (key <= c->last_key)
			c->bad++;
		c->last_key = key;
		if (!nr)
			c->empty_key = key;
		return;
	}
	if (c->key_of[set]) {
		if (c->key_of[set] != key)
			c->bad++;
		return;
	}
	for (j = 0; j < 23; j++)
		if (c->key_of[j] == key)
			c->bad++;
	c->key_of[set] = key;
}

static int check_index(struct consumer *c, int kind)
{
	unsigned int i = c->next++;

	if (msg_kind(i) != kind)
		c->bad++;
	if (c->fail_at && i == c->fail_at)
		return -EIO;
	return 0;
}

static int got_event(void *ctx, const struct atag_event *ev)
{
	struct consumer *c = ctx;
	unsigned int i = c->next;

	if (ev->kind != (i & 1 ? ATAG_EV_ALLOC : ATAG_EV_FREE) || ev->type != 3 ||
	    ev->cpu != (int)(i % 5) || ev->pid != (int)i || ev->ts != 1000ULL + i ||
	    ev->tag != msg_tag(i) || ev->ptr != msg_ptr(i) ||
	    ev->bytes != i * 8ULL || ev->stack_follows != (i % 3 == 0) || ev->line != msg_line(i) ||
	    ev->filtered != (i % 4 == 1) || ev->function || ev->src != i % 7 ||
	    ev->task != i % ATAG_TASK_NR)
		c->bad++;
	return check_index(c, 1);
}

static int got_stack(void *ctx, const struct atag_kstack *ks)
{
	struct consumer *c = ctx;
	unsigned int i = c->next, j, nr = ks->nr;
	const uint64_t *frames = ks->frames;

	if (frames && ks->key) {
		keep_frames(c, ks);
	} else if (!frames) {
		/* alone: a key that came with its frames before, and those frames */
		c->alone++;
		if (ks->nr || !ks->key || ks->key >= c->nr_kept || !c->kept[ks->key]) {
			c->bad++;
			return check_index(c, 2);
		}
		frames = c->kept[ks->key];
		nr = c->kept_nr[ks->key];
	}
	if (ks->cpu != (int)(i % 5) || ks->pid != (int)i || ks->type != 9 ||
	    ks->ts != 5000ULL + i ||
	    ks->site != 0xc0de0000ULL + i || nr != msg_frames(i))
		c->bad++;
	for (j = 0; j < nr && nr == msg_frames(i); j++)
		if (frames[j] != msg_frame(i, j))
			c->bad++;
	check_key(c, i, nr, ks->key);
	return check_index(c, 2);
}

static int got_missed(void *ctx, int cpu)
{
	struct consumer *c = ctx;

	if (cpu != (int)(c->next % 5))
		c->bad++;
	return check_index(c, 3);
}

static int run(size_t pipe_bytes, unsigned int count, struct consumer *c, struct producer *pr)
{
	struct atag_sink out = { got_event, got_stack, got_missed, c };
	pthread_t thread;
	int ret;

	pr->pipe = atag_pipe_alloc(pipe_bytes);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pr->pipe);
	pr->count = count;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, produce, pr), 0);
	ret = atag_pipe_drain(pr->pipe, &out);
	pthread_join(thread, NULL);
	atag_pipe_free(pr->pipe);
	drop_kept(c);
	return ret;
}

/* A ring of 1 KiB wraps thousands of times; every message arrives intact, in order. */
static void test_order_across_wraps(void)
{
	struct consumer c = { 0 };
	struct producer pr = { 0 };

	CU_ASSERT_EQUAL(run(1024, NR_MSGS, &c, &pr), 0);
	CU_ASSERT_EQUAL(pr.ret, 0);
	CU_ASSERT_EQUAL(pr.sent, NR_MSGS);
	CU_ASSERT_EQUAL(c.next, NR_MSGS);
	CU_ASSERT_EQUAL(c.bad, 0);
}

/* A large ring (the size report uses) passes the same stream. */
static void test_large_ring(void)
{
	struct consumer c = { 0 };
	struct producer pr = { 0 };

	CU_ASSERT_EQUAL(run(1 << 20, NR_MSGS, &c, &pr), 0);
	CU_ASSERT_EQUAL(c.next, NR_MSGS);
	CU_ASSERT_EQUAL(c.bad, 0);
}

/*
 * Stacks that repeat go through as ids after their first time, events with
 * empty fields go through short: both arrive as they were sent.
 */
static void test_repeated_stacks(void)
{
	struct consumer c = { 0 };
	struct producer pr = { 0 };

	repeat = 1;
	CU_ASSERT_EQUAL(run(1024, NR_MSGS, &c, &pr), 0);
	CU_ASSERT_EQUAL(pr.sent, NR_MSGS);
	CU_ASSERT_EQUAL(c.next, NR_MSGS);
	CU_ASSERT_EQUAL(c.bad, 0);
	/* every stack is keyed; each of the 23 sets came with its frames once */
	CU_ASSERT(c.stacks > 1000);
	CU_ASSERT_EQUAL(c.keyed, c.stacks);
	CU_ASSERT_EQUAL(c.alone, c.stacks - 23);
	c = (struct consumer){ 0 };
	pr = (struct producer){ 0 };
	CU_ASSERT_EQUAL(run(1 << 20, NR_MSGS, &c, &pr), 0);
	CU_ASSERT_EQUAL(c.next, NR_MSGS);
	CU_ASSERT_EQUAL(c.bad, 0);
	repeat = 0;
}

/* The consumer's first error comes back from drain, and the producer stops. */
static void test_consumer_error(void)
{
	struct consumer c = { .fail_at = 5000 };
	struct producer pr = { 0 };

	CU_ASSERT_EQUAL(run(1024, NR_MSGS, &c, &pr), -EIO);
	CU_ASSERT_EQUAL(pr.ret, -EIO);
	/* nothing is delivered after the error */
	CU_ASSERT_EQUAL(c.next, 5001);
	CU_ASSERT_EQUAL(c.bad, 0);
	/* the producer stopped within what the ring held */
	CU_ASSERT(pr.sent < 5001 + 1024 / 8);
}

/* A message larger than half the ring is refused, not deadlocked on. */
static void test_too_big(void)
{
	struct atag_pipe *p = atag_pipe_alloc(512);
	uint64_t frames[64] = { 0 };
	struct atag_kstack big = { .cpu = 0, .pid = 1, .type = 9, .frames = frames, .nr = 64 };
	struct atag_kstack small = { .cpu = 0, .pid = 1, .type = 9, .frames = frames, .nr = 2 };
	struct atag_sink in;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	atag_pipe_sink(p, &in);
	CU_ASSERT_EQUAL(in.stack(in.ctx, &big), -E2BIG);
	CU_ASSERT_EQUAL(in.stack(in.ctx, &small), 0);
	atag_pipe_close(p);
	atag_pipe_free(p);
}

static const char *site_function;
static const char *site_file;
static const char *site_module;
static unsigned int site_hits;

static void drop_site(void);

static int site_event(void *ctx, const struct atag_event *ev)
{
	(void)ctx;
	site_hits++;
	drop_site();
	site_function = ev->function ? strdup(ev->function) : NULL;
	site_file = ev->file ? strdup(ev->file) : NULL;
	site_module = ev->module ? strdup(ev->module) : NULL;
	return 0;
}

static void drop_site(void)
{
	free((void *)site_function);
	free((void *)site_file);
	free((void *)site_module);
	site_function = site_file = site_module = NULL;
}

/* A hit carries its call site the first time its tag goes through. */
static void test_site_once(void)
{
	struct atag_pipe *p = atag_pipe_alloc(4096);
	struct atag_sink in, out = { site_event, NULL, NULL, NULL };
	struct atag_event hit = { .kind = ATAG_EV_HIT, .tag = 0xa0, .line = 10,
				  .function = "foo_create", .file = "mm/foo.c" };

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	atag_pipe_sink(p, &in);
	CU_ASSERT_EQUAL(in.event(in.ctx, &hit), 0);
	CU_ASSERT_EQUAL(in.event(in.ctx, &hit), 0);
	atag_pipe_close(p);

	site_hits = 0;
	out.event = site_event;
	CU_ASSERT_EQUAL(atag_pipe_drain(p, &out), 0);
	CU_ASSERT_EQUAL(site_hits, 2);
	/* the second delivery (kept) has no strings: the stitcher knows the tag */
	CU_ASSERT_PTR_NULL(site_function);
	drop_site();
	atag_pipe_free(p);

	p = atag_pipe_alloc(4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	atag_pipe_sink(p, &in);
	CU_ASSERT_EQUAL(in.event(in.ctx, &hit), 0);
	atag_pipe_close(p);
	CU_ASSERT_EQUAL(atag_pipe_drain(p, &out), 0);
	CU_ASSERT_STRING_EQUAL(site_function ? site_function : "", "foo_create");
	CU_ASSERT_STRING_EQUAL(site_file ? site_file : "", "mm/foo.c");
	/* a built-in call site: an empty module string */
	CU_ASSERT_STRING_EQUAL(site_module ? site_module : "(null)", "");
	drop_site();
	atag_pipe_free(p);
}

struct paced {
	struct atag_pipe	*pipe;
	unsigned int		count;
	int			ret;
};

/* Events of 64 bytes each, with a pause every 500: the consumer catches up and sleeps. */
static void *produce_paced(void *arg)
{
	struct paced *pc = arg;
	struct atag_sink in;
	unsigned int i;

	atag_pipe_sink(pc->pipe, &in);
	for (i = 0; i < pc->count && !pc->ret; i++) {
		struct atag_event ev = {
			.kind = ATAG_EV_ALLOC, .type = 3, .cpu = 1, .pid = 7, .ts = 1000ULL + i,
			.tag = 0xa0, .ptr = 0x1000 + i, .bytes = 64, .line = 12,
		};

		pc->ret = in.event(in.ctx, &ev);
		if (i % 500 == 499)
			usleep(300);
	}
	atag_pipe_close(pc->pipe);
	return NULL;
}

static unsigned int paced_seen;

static int count_event(void *ctx, const struct atag_event *ev)
{
	(void)ctx;
	paced_seen += ev->ptr == 0x1000 + paced_seen;
	return 0;
}

/*
 * A consumer faster than its producer is not woken for every batch: a wake is a
 * system call of the producer's, and a stitcher that keeps up would otherwise
 * cost the reader one per 64 messages. Each wake needs an eighth of the ring
 * (8 KiB here) put since the consumer went to sleep, however the threads are
 * scheduled; the old rule (wake whenever it sleeps) woke it about once per
 * 4 KiB here.
 */
static void test_batched_wakeups(void)
{
	struct paced pc = { .pipe = atag_pipe_alloc(64 << 10), .count = 40000 };
	struct atag_sink out = { .event = count_event };
	unsigned long bound = 40000UL * 64 / (8 << 10) + 1;
	pthread_t th;

	CU_ASSERT_PTR_NOT_NULL_FATAL(pc.pipe);
	paced_seen = 0;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, produce_paced, &pc), 0);
	CU_ASSERT_EQUAL(atag_pipe_drain(pc.pipe, &out), 0);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(pc.ret, 0);
	CU_ASSERT_EQUAL(paced_seen, 40000);
	CU_ASSERT(atag_pipe_wakeups(pc.pipe) >= 1);	/* the close, at least */
	CU_ASSERT(atag_pipe_wakeups(pc.pipe) <= bound);
	if (atag_pipe_wakeups(pc.pipe) > bound)
		fprintf(stderr, "pipe: %lu wake-ups, at most %lu expected\n",
			atag_pipe_wakeups(pc.pipe), bound);
	atag_pipe_free(pc.pipe);
}

static uint32_t got_keys[8];
static uint64_t got_first[8];
static unsigned int got_nr[8], nr_got;
static bool got_frames[8], got_kept[8];
static const uint64_t *got_at[8];

static int key_stack(void *ctx, const struct atag_kstack *ks)
{
	(void)ctx;
	if (nr_got < 8) {
		got_at[nr_got] = ks->frames;
		got_kept[nr_got] = ks->kept;
		got_keys[nr_got] = ks->key;
		got_nr[nr_got] = ks->nr;
		got_frames[nr_got] = ks->frames;
		got_first[nr_got] = ks->nr ? ks->frames[0] : 0;
	}
	nr_got++;
	return 0;
}

/*
 * A key the consumer has the frames of goes alone and arrives alone (frames
 * NULL); a stack without a key, or with one out of the order 1, 2, 3, ..., goes
 * through whole and arrives without.
 */
static void test_stack_keys(void)
{
	struct atag_pipe *p = atag_pipe_alloc(4096);
	struct atag_sink in, out = { .stack = key_stack };
	uint64_t a[3] = { 0xa1, 0xa2, 0xa3 }, b[2] = { 0xb1, 0xb2 };
	struct atag_kstack sa = { .cpu = 0, .pid = 1, .type = -1, .frames = a, .nr = 3 };
	struct atag_kstack sb = { .cpu = 0, .pid = 1, .type = -1, .frames = b, .nr = 2 };
	static const uint32_t keys[] = { 0, 2, 1, 1, 2, 2 };
	static const uint32_t want[] = { 0, 0, 1, 1, 2, 2 };
	unsigned int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	atag_pipe_sink(p, &in);
	for (i = 0; i < 6; i++) {
		struct atag_kstack *ks = keys[i] == 1 || i == 0 ? &sa : &sb;

		ks->key = keys[i];
		CU_ASSERT_EQUAL(in.stack(in.ctx, ks), 0);
	}
	atag_pipe_close(p);
	nr_got = 0;
	CU_ASSERT_EQUAL(atag_pipe_drain(p, &out), 0);
	CU_ASSERT_EQUAL_FATAL(nr_got, 6);
	for (i = 0; i < 6; i++) {
		bool is_a = keys[i] == 1 || i == 0, alone = i == 3 || i == 5;

		CU_ASSERT_EQUAL(got_keys[i], want[i]);
		CU_ASSERT_EQUAL(got_frames[i], !alone);
		CU_ASSERT_EQUAL(got_nr[i], alone ? 0U : is_a ? 3U : 2U);
		CU_ASSERT_EQUAL(got_first[i], alone ? 0U : is_a ? 0xa1U : 0xb1U);
	}
	atag_pipe_free(p);
}

/*
 * Frames their producer keeps (struct atag_kstack.kept) cross as their address
 * and arrive kept, where they are; frames not kept arrive as a copy, not kept;
 * a key met before still arrives alone.
 */
static void test_kept_frames(void)
{
	struct atag_pipe *p = atag_pipe_alloc(4096);
	struct atag_sink in, out = { .stack = key_stack };
	uint64_t a[3] = { 0xa1, 0xa2, 0xa3 }, b[2] = { 0xb1, 0xb2 };
	struct atag_kstack sa = { .type = -1, .frames = a, .nr = 3, .kept = true, .key = 1 };
	struct atag_kstack sb = { .type = -1, .frames = b, .nr = 2, .key = 2 };
	struct atag_kstack s0 = { .type = -1, .frames = a, .nr = 3, .kept = true };

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	atag_pipe_sink(p, &in);
	CU_ASSERT_EQUAL(in.stack(in.ctx, &sa), 0);
	CU_ASSERT_EQUAL(in.stack(in.ctx, &sb), 0);
	CU_ASSERT_EQUAL(in.stack(in.ctx, &s0), 0);
	CU_ASSERT_EQUAL(in.stack(in.ctx, &sa), 0);
	atag_pipe_close(p);
	nr_got = 0;
	CU_ASSERT_EQUAL(atag_pipe_drain(p, &out), 0);
	CU_ASSERT_EQUAL_FATAL(nr_got, 4);
	CU_ASSERT_PTR_EQUAL(got_at[0], a);
	CU_ASSERT(got_kept[0]);
	CU_ASSERT_EQUAL(got_keys[0], 1);
	CU_ASSERT_EQUAL(got_nr[0], 3);
	CU_ASSERT(got_at[1] != b);
	CU_ASSERT(!got_kept[1]);
	CU_ASSERT_EQUAL(got_first[1], 0xb1);
	CU_ASSERT_EQUAL(got_nr[1], 2);
	CU_ASSERT_EQUAL(got_keys[1], 2);
	CU_ASSERT_PTR_EQUAL(got_at[2], a);
	CU_ASSERT(got_kept[2]);
	CU_ASSERT_EQUAL(got_keys[2], 0);
	CU_ASSERT_PTR_NULL(got_at[3]);
	CU_ASSERT_EQUAL(got_keys[3], 1);
	atag_pipe_free(p);
}

/*
 * The look-ahead: every free (by its unique ptr) and every stack that comes
 * alone (the empty stack, in a stream of otherwise distinct frames) is told at
 * stage 0, 1 and 2, in that order, before it is delivered, never after; no
 * other message is told. Across a 1 KiB ring that wraps thousands of times,
 * and a large one.
 */
static uint8_t *told_stages;
static unsigned int told_wrong, told_frees, told_stacks[3], untold_last;
static struct consumer *told_c;

static void tell_cb(void *ctx, unsigned int stage, unsigned int src, uint64_t ptr, uint32_t key)
{
	unsigned int i;

	(void)ctx;
	if (stage > 2) {
		told_wrong++;
		return;
	}
	if (key) {
		if (ptr || key != told_c->empty_key)
			told_wrong++;
		told_stacks[stage]++;
		return;
	}
	i = (ptr - 0xffff888000000000ULL) / 64;
	if (i >= NR_MSGS || msg_ptr(i) != ptr || msg_kind(i) != 1 || (i & 1) || src != i % 7 ||
	    i < told_c->next || told_stages[i] != (1U << stage) - 1) {
		told_wrong++;
		return;
	}
	told_stages[i] |= 1U << stage;
}

static bool tell_wanted(void *ctx)
{
	(void)ctx;
	return true;
}

static int told_event(void *ctx, const struct atag_event *ev)
{
	struct consumer *c = ctx;
	unsigned int i = c->next;

	if (ev->kind == ATAG_EV_FREE) {
		if (told_stages[i] == 7)
			told_frees++;
		else if (told_stages[i])
			told_wrong++;
		else
			untold_last = i;
	}
	return got_event(ctx, ev);
}

static void *produce(void *arg);

static void check_look_ahead(size_t ring)
{
	struct consumer c = { 0 };
	struct producer pr = { 0 };
	struct atag_sink out = { told_event, got_stack, got_missed, &c };
	unsigned int i, frees = 0;
	pthread_t thread;

	told_stages = calloc(NR_MSGS, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(told_stages);
	told_wrong = told_frees = untold_last = 0;
	memset(told_stacks, 0, sizeof(told_stacks));
	told_c = &c;
	pr.pipe = atag_pipe_alloc(ring);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pr.pipe);
	pr.count = NR_MSGS;
	atag_pipe_set_ahead(pr.pipe, tell_cb, tell_wanted, NULL);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, produce, &pr), 0);
	CU_ASSERT_EQUAL(atag_pipe_drain(pr.pipe, &out), 0);
	pthread_join(thread, NULL);
	atag_pipe_free(pr.pipe);
	drop_kept(&c);
	for (i = 0; i < NR_MSGS; i++)
		frees += msg_kind(i) == 1 && !(i & 1);
	CU_ASSERT_EQUAL(c.next, NR_MSGS);
	CU_ASSERT_EQUAL(c.bad, 0);
	CU_ASSERT_EQUAL(told_wrong, 0);
	/*
	 * all but those of the first eighth of the ring, before it is switched on:
	 * messages of 32 bytes or more
	 */
	CU_ASSERT(told_frees <= frees && told_frees > frees / 2);
	CU_ASSERT(untold_last < ring / 8 / 32);
	CU_ASSERT(told_stacks[0] > 0);
	CU_ASSERT(told_stacks[2] <= told_stacks[1] && told_stacks[1] <= told_stacks[0]);
	CU_ASSERT(told_stacks[0] - told_stacks[2] <= 18);
	free(told_stages);
}

static void test_look_ahead(void)
{
	check_look_ahead(1024);
	check_look_ahead(1 << 20);
}

static void add_pipe_suite(void)
{
	CU_pSuite s = CU_add_suite("pipe", NULL, NULL);

	CU_add_test(s, "order and content across ring wraps", test_order_across_wraps);
	CU_add_test(s, "large ring", test_large_ring);
	CU_add_test(s, "repeated stacks, events with empty fields", test_repeated_stacks);
	CU_add_test(s, "consumer error stops the producer", test_consumer_error);
	CU_add_test(s, "message larger than half the ring", test_too_big);
	CU_add_test(s, "call site sent once per tag", test_site_once);
	CU_add_test(s, "stack keys: alone once sent, else the frames", test_stack_keys);
	CU_add_test(s, "kept frames: their address crosses, not a copy", test_kept_frames);
	CU_add_test(s, "a consumer that keeps up is woken in batches", test_batched_wakeups);
	CU_add_test(s, "look-ahead: frees and keys alone, three stages before", test_look_ahead);
}
ATAG_UTEST_SUITE("pipe", add_pipe_suite);
