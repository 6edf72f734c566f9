// SPDX-License-Identifier: LGPL-2.1
/*
 * A single-producer, single-consumer queue of decoded events between the thread
 * that reads a trace.dat and the thread that stitches it, so that reading
 * (libtracecmd: record allocation, page walking, decompression) and stitching
 * (hash maps, histograms) run on two cores. The order of events is kept, so the
 * result is exactly that of stitching in one thread.
 *
 * Messages are 8-byte aligned records in one ring of bytes; one never wraps (a
 * PAD message fills the end). The producer publishes its position in batches,
 * the consumer its own after each batch it drained. A side with nothing to do
 * spins briefly, then sleeps on a futex the other side wakes: yielding instead
 * would hand the CPU to any other runnable task for a whole time slice.
 *
 * A hit carries its call-site strings only the first time its tag goes through
 * (the stitcher keeps the first it learns), so the strings are not copied per
 * event.
 *
 * Threads: one producer calls the sink of atag_pipe_sink() and atag_pipe_close();
 * one consumer calls atag_pipe_drain(). What crosses is copied into the ring:
 * the fields of an event, its call-site strings, the frames of a stack. No
 * pointer of the producer's reaches the consumer.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "atag-map.h"
#include "atag-pipe.h"

#define PUBLISH_EVERY	64
#define SPINS		200

enum {
	M_PAD,
	M_EVENT,
	M_STACK,
	M_MISSED,
};

/* msg.flags */
#define F_STACK_FOLLOWS	0x1
#define F_FILTERED	0x2
#define F_SITE		0x4	/* the call-site strings follow */
#define F_TASK_SHIFT	3	/* 2 bits: enum atag_task */
_Static_assert(ATAG_TASK_NR <= 4, "a task class fits in two bits of msg.flags");

struct msg {
	uint32_t	size;		/* of the whole message, a multiple of 8 */
	uint8_t		kind;
	uint8_t		ev_kind;
	uint8_t		flags;
	uint8_t		src;
	int32_t		type;
	int32_t		cpu;
	int32_t		pid;
	uint32_t	nr;		/* stack frames */
	int64_t		line;
	uint64_t	ts;
	uint64_t	tag;		/* of a stack: its call site */
	uint64_t	ptr;
	uint64_t	bytes;
	/* then frames[nr], or "function\0file\0module\0" with F_SITE */
};

#define CACHELINE	64

struct atag_pipe {
	char			*buf;
	size_t			size;		/* a power of two */
	/* written by the producer, read by the consumer */
	_Atomic size_t		head __attribute__((aligned(CACHELINE)));	/* published */
	_Atomic uint32_t	head_seq;	/* futex: bumped with each publish */
	_Atomic int		closed;
	_Atomic int		producer_sleeps;
	/* written by the consumer, read by the producer */
	_Atomic size_t		tail __attribute__((aligned(CACHELINE)));	/* consumed */
	_Atomic uint32_t	tail_seq;	/* futex: bumped with each release */
	_Atomic int		consumer_sleeps;
	_Atomic int		error;		/* the consumer's first error: producer stops */
	/* producer only */
	size_t			pos __attribute__((aligned(CACHELINE)));
	size_t			seen_tail;	/* the last tail it read */
	unsigned int		unpublished;
	struct atag_map		described;	/* tags whose call site went through */
};

struct atag_pipe *atag_pipe_alloc(size_t size)
{
	struct atag_pipe *p = aligned_alloc(CACHELINE, sizeof(*p));

	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->size = 1;
	while (p->size < size)
		p->size <<= 1;
	p->buf = malloc(p->size);
	if (!p->buf) {
		free(p);
		return NULL;
	}
	return p;
}

void atag_pipe_free(struct atag_pipe *p)
{
	if (!p)
		return;
	atag_map_free(&p->described);
	free(p->buf);
	free(p);
}

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Wait a little by spinning; false once it is time to sleep instead. */
static bool spin(unsigned int *spins)
{
	if (++*spins > SPINS)
		return false;
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
	return true;
}

/*
 * The sleep/wake handshake is a store-buffering pattern (each side stores its
 * position, then loads the other's sleep flag; a sleeper stores its flag, then
 * loads the position), so it takes sequentially consistent operations.
 */
static void publish(struct atag_pipe *p)
{
	atomic_store(&p->head, p->pos);
	atomic_fetch_add(&p->head_seq, 1);
	if (atomic_load(&p->consumer_sleeps))
		futex_wake(&p->head_seq);
	p->unpublished = 0;
}

/* Room for @n contiguous bytes at the producer's position. */
static struct msg *reserve(struct atag_pipe *p, size_t n)
{
	size_t off = p->pos & (p->size - 1), room_end = p->size - off;
	unsigned int spins = 0;
	struct msg *pad;

	if (n > room_end) {
		/* the message would wrap: pad to the end of the ring first */
		pad = reserve(p, room_end);
		pad->size = room_end;
		pad->kind = M_PAD;
		p->pos += room_end;
		off = 0;
	}
	/* read the consumer's position only when the one seen last leaves too little room */
	while (p->size - (p->pos - p->seen_tail) < n) {
		uint32_t seq = atomic_load_explicit(&p->tail_seq, memory_order_acquire);

		p->seen_tail = atomic_load_explicit(&p->tail, memory_order_acquire);
		if (p->size - (p->pos - p->seen_tail) >= n)
			break;
		publish(p);
		if (spin(&spins))
			continue;
		atomic_store_explicit(&p->producer_sleeps, 1, memory_order_seq_cst);
		if (atomic_load_explicit(&p->tail, memory_order_seq_cst) == p->seen_tail)
			futex_wait(&p->tail_seq, seq);
		atomic_store_explicit(&p->producer_sleeps, 0, memory_order_relaxed);
	}
	return (struct msg *)(p->buf + off);
}

static void commit(struct atag_pipe *p, struct msg *m)
{
	p->pos += m->size;
	if (++p->unpublished >= PUBLISH_EVERY)
		publish(p);
}

static size_t align8(size_t n)
{
	return (n + 7) & ~7UL;
}

/* The consumer's error, once it had one: the producer gives up reading. */
static int stopped(struct atag_pipe *p)
{
	return atomic_load_explicit(&p->error, memory_order_relaxed);
}

/* Room for a message of @kind with @extra bytes after its header; NULL: stopped or too big. */
static struct msg *put(struct atag_pipe *p, int kind, size_t extra, int *err)
{
	size_t n = align8(sizeof(struct msg) + extra);
	struct msg *m;

	*err = stopped(p);
	if (!*err && n > p->size / 2)
		*err = -E2BIG;
	if (*err)
		return NULL;
	m = reserve(p, n);
	memset(m, 0, sizeof(*m));
	m->size = n;
	m->kind = kind;
	return m;
}

static int put_event(void *ctx, const struct atag_event *ev)
{
	const char *file = ev->file ? ev->file : "", *module = ev->module ? ev->module : "";
	size_t lf = 0, lfi = 0, lm = 0;
	struct atag_pipe *p = ctx;
	bool created = false;
	struct msg *m;
	int err;

	if (ev->kind == ATAG_EV_HIT && ev->function && !stopped(p) &&
	    !atag_map_find(&p->described, ev->tag)) {
		lf = strlen(ev->function) + 1;
		lfi = strlen(file) + 1;
		lm = strlen(module) + 1;
		if (!atag_map_get(&p->described, ev->tag, 1, &created))
			return -ENOMEM;
	}
	m = put(p, M_EVENT, lf + lfi + lm, &err);
	if (!m)
		return err;
	m->ev_kind = ev->kind;
	m->flags = (ev->stack_follows ? F_STACK_FOLLOWS : 0) | (ev->filtered ? F_FILTERED : 0) |
		   (created ? F_SITE : 0) | (ev->task & 3) << F_TASK_SHIFT;
	m->src = ev->src;
	m->type = ev->type;
	m->cpu = ev->cpu;
	m->pid = ev->pid;
	m->line = ev->line;
	m->ts = ev->ts;
	m->tag = ev->tag;
	m->ptr = ev->ptr;
	m->bytes = ev->bytes;
	if (created) {
		char *s = (char *)(m + 1);

		memcpy(s, ev->function, lf);
		memcpy(s + lf, file, lfi);
		memcpy(s + lf + lfi, module, lm);
	}
	commit(p, m);
	return 0;
}

static int put_stack(void *ctx, const struct atag_kstack *ks)
{
	struct atag_pipe *p = ctx;
	struct msg *m;
	int err;

	m = put(p, M_STACK, ks->nr * sizeof(*ks->frames), &err);
	if (!m)
		return err;
	m->cpu = ks->cpu;
	m->pid = ks->pid;
	m->ts = ks->ts;
	m->type = ks->type;
	m->tag = ks->site;
	m->nr = ks->nr;
	memcpy(m + 1, ks->frames, ks->nr * sizeof(*ks->frames));
	commit(p, m);
	return 0;
}

static int put_missed(void *ctx, int cpu)
{
	struct atag_pipe *p = ctx;
	struct msg *m;
	int err;

	m = put(p, M_MISSED, 0, &err);
	if (!m)
		return err;
	m->cpu = cpu;
	commit(p, m);
	return 0;
}

void atag_pipe_sink(struct atag_pipe *p, struct atag_sink *sink)
{
	sink->event = put_event;
	sink->stack = put_stack;
	sink->missed = put_missed;
	sink->ctx = p;
}

void atag_pipe_close(struct atag_pipe *p)
{
	publish(p);
	atomic_store_explicit(&p->closed, 1, memory_order_seq_cst);
	/* wake a consumer that went to sleep between the publish and now */
	atomic_fetch_add_explicit(&p->head_seq, 1, memory_order_seq_cst);
	futex_wake(&p->head_seq);
}

/* Hand message @m to @out. */
static int deliver(const struct msg *m, const struct atag_sink *out)
{
	struct atag_kstack ks;
	struct atag_event ev;
	const char *s;

	switch (m->kind) {
	case M_STACK:
		ks = (struct atag_kstack){
			.cpu = m->cpu, .pid = m->pid, .ts = m->ts, .type = m->type, .site = m->tag,
			.frames = (const uint64_t *)(m + 1), .nr = m->nr,
		};
		return out->stack(out->ctx, &ks);
	case M_MISSED:
		return out->missed(out->ctx, m->cpu);
	case M_EVENT:
		ev = (struct atag_event){
			.kind = m->ev_kind, .type = m->type, .cpu = m->cpu, .pid = m->pid,
			.ts = m->ts, .tag = m->tag, .ptr = m->ptr, .bytes = m->bytes,
			.stack_follows = m->flags & F_STACK_FOLLOWS,
			.filtered = m->flags & F_FILTERED, .line = m->line, .src = m->src,
			.task = m->flags >> F_TASK_SHIFT & 3,
		};
		if (m->flags & F_SITE) {
			s = (const char *)(m + 1);
			ev.function = s;
			ev.file = s + strlen(s) + 1;
			ev.module = ev.file + strlen(ev.file) + 1;
		}
		return out->event(out->ctx, &ev);
	default:
		return 0;
	}
}

int atag_pipe_drain(struct atag_pipe *p, const struct atag_sink *out)
{
	size_t tail = atomic_load_explicit(&p->tail, memory_order_relaxed), head;
	unsigned int spins = 0;
	const struct msg *m;
	int closed, ret;

	for (;;) {
		uint32_t seq = atomic_load_explicit(&p->head_seq, memory_order_acquire);

		closed = atomic_load_explicit(&p->closed, memory_order_acquire);
		head = atomic_load_explicit(&p->head, memory_order_acquire);
		if (tail == head) {
			if (closed)
				return atomic_load(&p->error);
			if (spin(&spins))
				continue;
			atomic_store_explicit(&p->consumer_sleeps, 1, memory_order_seq_cst);
			if (atomic_load_explicit(&p->head, memory_order_seq_cst) == tail &&
			    !atomic_load_explicit(&p->closed, memory_order_seq_cst))
				futex_wait(&p->head_seq, seq);
			atomic_store_explicit(&p->consumer_sleeps, 0, memory_order_relaxed);
			continue;
		}
		spins = 0;
		while (tail != head) {
			m = (const struct msg *)(p->buf + (tail & (p->size - 1)));
			/* after an error keep draining, so the producer never blocks */
			if (!atomic_load_explicit(&p->error, memory_order_relaxed)) {
				ret = deliver(m, out);
				if (ret)
					atomic_store(&p->error, ret);
			}
			tail += m->size;
		}
		atomic_store(&p->tail, tail);
		atomic_fetch_add(&p->tail_seq, 1);
		if (atomic_load(&p->producer_sleeps))
			futex_wake(&p->tail_seq);
	}
}
