// SPDX-License-Identifier: LGPL-2.1
/*
 * A single-producer, single-consumer queue of decoded events between the thread
 * that reads a trace.dat and the thread that stitches it, so that reading
 * (libtracecmd: record allocation, page walking, decompression) and stitching
 * (hash maps, histograms) run on two cores. The order of events is kept, so the
 * result is exactly that of stitching in one thread.
 *
 * Messages are 8-byte aligned records in one ring of bytes; one never wraps (a
 * PAD message fills the end). The producer publishes its position every
 * PUBLISH_EVERY messages, the consumer its own every eighth of the ring it
 * drained, so that neither waits for the other to finish a large batch. A side
 * with nothing to do spins briefly, then sleeps on a futex the other side
 * wakes; wake-ups are batched both ways: a producer that found the ring full
 * sleeps until the consumer has emptied half of it, and a consumer that drained
 * it sleeps until an eighth of it is filled again (or the producer closes), so
 * either thread ahead of the other costs a few wake-ups per ring, not one per
 * batch of messages. The ring lies on huge pages where the system has them.
 * Yielding instead of sleeping would hand the CPU to any other runnable task
 * for a whole time slice.
 *
 * What crosses the ring between two cores is what the two threads pay for
 * most (each cache line written on one side is read from the other), so
 * messages carry no field that is empty: an event has a 32-byte header and then
 * only its tag, key, bytes and line when set. A hit carries its call-site
 * strings only the first time its tag goes through (the stitcher keeps the
 * first it learns), and a kernel stack its frames only the first time its key
 * goes through (struct atag_kstack.key: the decoder numbers the distinct sets
 * of frames 1, 2, 3, ... as it meets them): after that the key alone, handed
 * on without frames (the stitcher knows each key's frames from its first
 * time), so the stitcher interns each set of frames once, not once per stack
 * record, and no third copy of every set is kept here.
 *
 * Threads: one producer calls the sink of atag_pipe_sink() and atag_pipe_close();
 * one consumer calls atag_pipe_drain(). What crosses is copied into the ring:
 * the fields of an event, its call-site strings, the frames of a stack. The one
 * pointer of the producer's that reaches the consumer is that of frames the
 * producer keeps unchanged until its reader is closed (struct atag_kstack.kept):
 * they were written before the message was committed, and the ring's release
 * and acquire order them for the consumer.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "atag-bigmem.h"
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
#define F_STACK_FOLLOWS	0x01
#define F_FILTERED	0x02
#define F_SITE		0x04	/* the call-site strings follow */
#define F_TAG		0x08	/* the optional fields present, in this order */
#define F_PTR		0x10
#define F_BYTES		0x20
#define F_LINE		0x40
#define F_FRAMES	0x80	/* a stack: its frames follow */
#define F_KEEP		0x100	/* ... the first time of the next key */
#define F_TASK_SHIFT	9	/* 2 bits: enum atag_task */
#define F_STACK_MAYBE	0x800
#define F_PROVISIONAL	0x1000
#define F_AT		0x2000	/* ... not the frames but where they are kept */
_Static_assert(ATAG_TASK_NR <= 4, "a task class fits in two bits of msg.flags");

struct msg {
	uint32_t	size;		/* of the whole message, a multiple of 8 */
	uint8_t		kind;
	uint8_t		ev_kind;
	uint16_t	flags;
	int32_t		type;
	int32_t		cpu;
	int32_t		pid;
	uint32_t	nr;		/* a stack: frames, or its key - 1 without them;
					   an event: its source */
	uint64_t	ts;
	/*
	 * then an event's tag, ptr, bytes, line (u64 each, those flagged) and
	 * "function\0file\0module\0" with F_SITE; a stack's call site (u64), then
	 * its frames with F_FRAMES (with F_AT: their address, the producer's
	 * decoder keeping them, struct atag_kstack.kept)
	 */
};

#define CACHELINE	64

struct atag_pipe {
	char			*buf;
	size_t			size;		/* a power of two */
	/* written by the producer, read by the consumer */
	_Atomic size_t		head __attribute__((aligned(CACHELINE)));	/* published */
	_Atomic uint32_t	head_seq;	/* futex: bumped to wake the consumer */
	_Atomic int		closed;
	_Atomic int		producer_sleeps;
	/* written by the consumer, read by the producer */
	_Atomic size_t		tail __attribute__((aligned(CACHELINE)));	/* consumed */
	_Atomic uint32_t	tail_seq;	/* futex: bumped to wake the producer */
	_Atomic int		consumer_sleeps;
	_Atomic uint32_t	sleeps;		/* how often it went to sleep */
	_Atomic int		error;		/* the consumer's first error: producer stops */
	/* producer only */
	size_t			pos __attribute__((aligned(CACHELINE)));
	size_t			room_end;	/* pos may reach it without a look at tail */
	size_t			seen_tail;	/* the last tail it read */
	unsigned int		unpublished;
	unsigned long		wakeups;	/* of the consumer */
	uint32_t		woken;		/* the sleep it was woken from last */
	struct atag_map		described;	/* tags whose call site went through */
	uint32_t		sent_keys;	/* stack keys 1.. whose frames went through */
	/* consumer only */
	uint32_t		got_keys __attribute__((aligned(CACHELINE)));
	atag_pipe_ahead_fn	ahead;
	bool			(*ahead_wanted)(void *ctx);
	void			*ahead_ctx;
};

/*
 * The look-ahead's cursors: AHEAD_STEP messages apart, the furthest
 * AHEAD_STAGES * AHEAD_STEP messages before the one delivered next.
 */
#define AHEAD_STAGES	3
#define AHEAD_STEP	6

struct cursor {
	size_t		pos;		/* of the next message it tells of */
	unsigned int	lead;		/* messages from the consumer's tail to pos */
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
	/* filled once from end to end: huge pages spare a fault per 4 KiB */
	p->buf = atag_bigmem_alloc(p->size);
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
	atag_bigmem_free(p->buf, p->size);
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

static void wake_consumer(struct atag_pipe *p)
{
	p->wakeups++;
	atomic_fetch_add(&p->head_seq, 1);
	futex_wake(&p->head_seq);
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
 *
 * A consumer that drained all there was sleeps until an eighth of the ring
 * waits for it (or the producer waits for room, or closes): a stitcher faster
 * than the reader would otherwise sleep and be woken for every batch, and each
 * wake is a system call of the reader's (bench/README.md has the count).
 */
static void publish(struct atag_pipe *p)
{
	uint32_t sleep;

	atomic_store(&p->head, p->pos);
	if (atomic_load(&p->consumer_sleeps) &&
	    p->pos - atomic_load_explicit(&p->tail, memory_order_relaxed) >= p->size / 8) {
		/* once per sleep: until it clears its flag, it may look asleep still */
		sleep = atomic_load_explicit(&p->sleeps, memory_order_relaxed);
		if (sleep != p->woken) {
			p->woken = sleep;
			wake_consumer(p);
		}
	}
	p->unpublished = 0;
}

/*
 * Room for @n contiguous bytes at the producer's position, the long way: the
 * message wraps, or the room the consumer's last seen position left is used up.
 */
static struct msg *reserve_slow(struct atag_pipe *p, size_t n)
{
	size_t off = p->pos & (p->size - 1), room_end = p->size - off;
	unsigned int spins = 0;
	struct msg *pad;

	if (n > room_end) {
		/* the message would wrap: pad to the end of the ring first */
		pad = reserve_slow(p, room_end);
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
		/* the consumer wakes us once it emptied half the ring (release()) */
		atomic_store_explicit(&p->producer_sleeps, 1, memory_order_seq_cst);
		if (p->size - (p->pos - atomic_load_explicit(&p->tail, memory_order_seq_cst)) < n)
			futex_wait(&p->tail_seq, seq);
		atomic_store_explicit(&p->producer_sleeps, 0, memory_order_relaxed);
	}
	/* up to the end of the ring or of the room seen, whichever comes first */
	p->room_end = p->seen_tail + p->size;
	if (p->room_end > p->pos - off + p->size)
		p->room_end = p->pos - off + p->size;
	return (struct msg *)(p->buf + off);
}

/* Room for @n contiguous bytes at the producer's position. */
static inline struct msg *reserve(struct atag_pipe *p, size_t n)
{
	if (p->pos + n <= p->room_end)
		return (struct msg *)(p->buf + (p->pos & (p->size - 1)));
	return reserve_slow(p, n);
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
	m->size = n;
	m->kind = kind;
	return m;
}

/* How many of the four optional fields (F_TAG..F_LINE, shifted down) a message has. */
static const uint8_t nr_fields[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };
_Static_assert(F_PTR == 2 * F_TAG && F_BYTES == 4 * F_TAG && F_LINE == 8 * F_TAG,
	       "the optional fields are four bits in a row");

/* The flags of @ev but its optional fields and F_SITE. */
static inline uint16_t event_flags(const struct atag_event *ev)
{
	return (ev->stack_follows ? F_STACK_FOLLOWS : 0) | (ev->filtered ? F_FILTERED : 0) |
	       (ev->stack_maybe ? F_STACK_MAYBE : 0) | (ev->tag_provisional ? F_PROVISIONAL : 0) |
	       (ev->task & 3) << F_TASK_SHIFT;
}

/* Fill the header of event message @m, @n bytes long. */
static inline void event_header(struct msg *m, size_t n, uint16_t flags,
				const struct atag_event *ev)
{
	*m = (struct msg){
		.size = n, .kind = M_EVENT, .ev_kind = ev->kind, .flags = flags,
		.type = ev->type, .cpu = ev->cpu, .pid = ev->pid, .nr = ev->src, .ts = ev->ts,
	};
}

/* The first hit of a tag: its call-site strings go through with it, once. */
static int put_described(struct atag_pipe *p, const struct atag_event *ev)
{
	const char *file = ev->file ? ev->file : "", *module = ev->module ? ev->module : "";
	size_t lf = strlen(ev->function) + 1, lfi = strlen(file) + 1, lm = strlen(module) + 1;
	uint16_t flags = event_flags(ev) | F_SITE;
	size_t extra = lf + lfi + lm;
	uint64_t *o;
	struct msg *m;
	char *s;
	int err;

	if (!atag_map_get(&p->described, ev->tag, 1, NULL))
		return -ENOMEM;
	flags |= (ev->tag ? F_TAG : 0) | (ev->ptr ? F_PTR : 0) | (ev->bytes ? F_BYTES : 0) |
		 (ev->line != -1 ? F_LINE : 0);
	extra += 8 * nr_fields[(flags & (F_TAG | F_PTR | F_BYTES | F_LINE)) / F_TAG];
	m = put(p, M_EVENT, extra, &err);
	if (!m)
		return err;
	event_header(m, m->size, flags, ev);
	o = (uint64_t *)(m + 1);
	if (flags & F_TAG)
		*o++ = ev->tag;
	if (flags & F_PTR)
		*o++ = ev->ptr;
	if (flags & F_BYTES)
		*o++ = ev->bytes;
	if (flags & F_LINE)
		*o++ = ev->line;
	s = (char *)o;
	memcpy(s, ev->function, lf);
	memcpy(s + lf, file, lfi);
	memcpy(s + lf + lfi, module, lm);
	commit(p, m);
	return 0;
}

static int put_event(void *ctx, const struct atag_event *ev)
{
	struct atag_pipe *p = ctx;
	uint16_t flags = event_flags(ev);
	unsigned int k = 0;
	uint64_t f[4];
	struct msg *m;
	size_t n;
	int err;

	err = stopped(p);
	if (err)
		return err;
	if (ev->kind == ATAG_EV_HIT && ev->function && !atag_map_find(&p->described, ev->tag))
		return put_described(p, ev);
	/* the optional fields, those set, in their order */
	if (ev->tag) {
		f[k++] = ev->tag;
		flags |= F_TAG;
	}
	if (ev->ptr) {
		f[k++] = ev->ptr;
		flags |= F_PTR;
	}
	if (ev->bytes) {
		f[k++] = ev->bytes;
		flags |= F_BYTES;
	}
	if (ev->line != -1) {
		f[k++] = ev->line;
		flags |= F_LINE;
	}
	n = sizeof(*m) + 8 * k;
	m = reserve(p, n);
	event_header(m, n, flags, ev);
	memcpy(m + 1, f, 8 * k);
	commit(p, m);
	return 0;
}

static int put_stack(void *ctx, const struct atag_kstack *ks)
{
	struct atag_pipe *p = ctx;
	bool keep_it = false;
	uint64_t *o;
	int64_t id = -1;
	struct msg *m;
	int err;

	/*
	 * A key whose frames went through goes alone; the next new key goes with its
	 * frames, which the consumer's sink keeps; the frames of a stack without a
	 * key (or of one out of order) go through every time.
	 */
	if (ks->key && ks->key <= p->sent_keys)
		id = ks->key - 1;
	else if (ks->key && ks->key == p->sent_keys + 1)
		keep_it = true;
	m = put(p, M_STACK, 8 + (id >= 0 ? 0 : ks->kept ? 8 : ks->nr * sizeof(*ks->frames)), &err);
	if (!m)
		return err;
	m->cpu = ks->cpu;
	m->pid = ks->pid;
	m->type = ks->type;
	m->ts = ks->ts;
	o = (uint64_t *)(m + 1);
	*o++ = ks->site;
	if (id >= 0) {
		m->flags = 0;
		m->nr = id;
	} else {
		m->flags = F_FRAMES | (keep_it ? F_KEEP : 0) | (ks->kept ? F_AT : 0);
		m->nr = ks->nr;
		if (ks->kept)
			*o = (uintptr_t)ks->frames;
		else
			memcpy(o, ks->frames, ks->nr * sizeof(*ks->frames));
		if (keep_it)
			p->sent_keys++;
	}
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
	m->flags = 0;
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
	wake_consumer(p);
}

unsigned long atag_pipe_wakeups(const struct atag_pipe *p)
{
	return p->wakeups;
}

/* Hand message @m to @out. */
static int deliver(struct atag_pipe *p, const struct msg *m, const struct atag_sink *out)
{
	const uint64_t *o;
	struct atag_kstack ks;
	struct atag_event ev;
	const char *s;

	switch (m->kind) {
	case M_STACK:
		o = (const uint64_t *)(m + 1);
		ks = (struct atag_kstack){
			.cpu = m->cpu, .pid = m->pid, .ts = m->ts, .type = m->type, .site = o[0],
		};
		if (m->flags & F_FRAMES) {
			ks.frames = o + 1;
			ks.nr = m->nr;
			if (m->flags & F_AT) {
				ks.frames = (const uint64_t *)(uintptr_t)o[1];
				ks.kept = true;
			}
			/* the first time of this key: the sink keeps its frames */
			if (m->flags & F_KEEP)
				ks.key = ++p->got_keys;
		} else {
			/* a key met before, alone: struct atag_kstack's frames NULL */
			ks.key = m->nr + 1;
		}
		return out->stack(out->ctx, &ks);
	case M_MISSED:
		return out->missed(out->ctx, m->cpu);
	case M_EVENT:
		o = (const uint64_t *)(m + 1);
		ev = (struct atag_event){
			.kind = m->ev_kind, .type = m->type, .cpu = m->cpu, .pid = m->pid,
			.ts = m->ts, .stack_follows = m->flags & F_STACK_FOLLOWS,
			.stack_maybe = m->flags & F_STACK_MAYBE,
			.tag_provisional = m->flags & F_PROVISIONAL,
			.filtered = m->flags & F_FILTERED, .line = -1, .src = m->nr,
			.task = m->flags >> F_TASK_SHIFT & 3,
		};
		if (m->flags & F_TAG)
			ev.tag = *o++;
		if (m->flags & F_PTR)
			ev.ptr = *o++;
		if (m->flags & F_BYTES)
			ev.bytes = *o++;
		if (m->flags & F_LINE)
			ev.line = *o++;
		if (m->flags & F_SITE) {
			s = (const char *)o;
			ev.function = s;
			ev.file = s + strlen(s) + 1;
			ev.module = ev.file + strlen(ev.file) + 1;
		}
		return out->event(out->ctx, &ev);
	default:
		return 0;
	}
}

/*
 * The consumer's position, up to which the producer may write again; a sleeping
 * producer is woken once no more than half the ring (of what it published) is
 * left to drain.
 */
static void release(struct atag_pipe *p, size_t tail, size_t head)
{
	atomic_store(&p->tail, tail);
	if (atomic_load(&p->producer_sleeps) && head - tail <= p->size / 2) {
		atomic_fetch_add(&p->tail_seq, 1);
		futex_wake(&p->tail_seq);
	}
}

void atag_pipe_set_ahead(struct atag_pipe *p, atag_pipe_ahead_fn ahead,
			 bool (*wanted)(void *ctx), void *ctx)
{
	p->ahead = ahead;
	p->ahead_wanted = wanted;
	p->ahead_ctx = ctx;
}

/* Tell the look-ahead of message @m at @stage: a stack's key met before, or a free. */
static void tell(struct atag_pipe *p, const struct msg *m, unsigned int stage)
{
	const uint64_t *o = (const uint64_t *)(m + 1);

	if (m->kind == M_STACK && !(m->flags & F_FRAMES))
		p->ahead(p->ahead_ctx, stage, 0, 0, m->nr + 1);
	else if (m->kind == M_EVENT && m->ev_kind == ATAG_EV_FREE && (m->flags & F_PTR))
		p->ahead(p->ahead_ctx, stage, m->nr, o[m->flags & F_TAG ? 1 : 0], 0);
}

/* Move the cursors on (the message at @tail was delivered: @moved) up to @head. */
static void look_ahead(struct atag_pipe *p, struct cursor *c, size_t tail, size_t head,
		       bool moved)
{
	const struct msg *m;
	unsigned int s;

	for (s = 0; s < AHEAD_STAGES; s++) {
		if (moved && c[s].lead)
			c[s].lead--;
		if (c[s].pos - tail > head - tail || !c[s].lead)
			c[s].pos = tail;	/* behind the tail */
		while (c[s].lead < (AHEAD_STAGES - s) * AHEAD_STEP && c[s].pos != head) {
			m = (const struct msg *)(p->buf + (c[s].pos & (p->size - 1)));
			tell(p, m, s);
			c[s].pos += m->size;
			c[s].lead++;
		}
	}
}

int atag_pipe_drain(struct atag_pipe *p, const struct atag_sink *out)
{
	size_t tail = atomic_load_explicit(&p->tail, memory_order_relaxed), head, mark;
	struct cursor c[AHEAD_STAGES] = { 0 };
	unsigned int spins = 0;
	const struct msg *m;
	bool ahead = false;
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
			atomic_fetch_add_explicit(&p->sleeps, 1, memory_order_relaxed);
			atomic_store_explicit(&p->consumer_sleeps, 1, memory_order_seq_cst);
			if (atomic_load_explicit(&p->head, memory_order_seq_cst) == tail &&
			    !atomic_load_explicit(&p->closed, memory_order_seq_cst))
				futex_wait(&p->head_seq, seq);
			atomic_store_explicit(&p->consumer_sleeps, 0, memory_order_relaxed);
			continue;
		}
		spins = 0;
		mark = tail + p->size / 8;
		if (ahead)
			look_ahead(p, c, tail, head, false);
		while (tail != head) {
			m = (const struct msg *)(p->buf + (tail & (p->size - 1)));
			/* after an error keep draining, so the producer never blocks */
			if (!atomic_load_explicit(&p->error, memory_order_relaxed)) {
				ret = deliver(p, m, out);
				if (ret)
					atomic_store(&p->error, ret);
			}
			tail += m->size;
			if (ahead)
				look_ahead(p, c, tail, head, true);
			if (tail >= mark) {
				release(p, tail, head);
				mark = tail + p->size / 8;
				/* whether it pays changes as the consumer's tables grow */
				ahead = p->ahead && p->ahead_wanted(p->ahead_ctx);
				if (!ahead)
					memset(c, 0, sizeof(c));
			}
		}
		release(p, tail, head);
	}
}
