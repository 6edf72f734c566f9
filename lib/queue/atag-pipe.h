/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-pipe.h - a queue of decoded events from a reading thread to a stitching
 * thread (library-internal). See lib/queue/atag-pipe.c.
 *
 * Single producer, single consumer: the producer thread calls the sink of
 * atag_pipe_sink() and then atag_pipe_close(); the consumer thread calls
 * atag_pipe_drain() once. Messages arrive in the order they were put, copied
 * whole (strings and frames included), so the consumer sees the producer's
 * stream exactly as a direct sink would, and shares no memory with it.
 */
#ifndef _ATAG_PIPE_H
#define _ATAG_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atag-event.h"

struct atag_pipe;

/* A queue of about @size bytes (rounded up to a power of two). */
struct atag_pipe *atag_pipe_alloc(size_t size);
void atag_pipe_free(struct atag_pipe *p);

/*
 * Producer side: a sink whose calls enqueue (they block while the queue is full;
 * once the consumer failed they return its error); atag_pipe_close() when done.
 */
void atag_pipe_sink(struct atag_pipe *p, struct atag_sink *sink);
void atag_pipe_close(struct atag_pipe *p);

/*
 * Consumer side: deliver everything to @out until the producer closed the
 * queue; returns the first error @out returned (after which the rest is drained
 * unseen, so the producer never blocks).
 */
int atag_pipe_drain(struct atag_pipe *p, const struct atag_sink *out);

/*
 * A look-ahead for the consumer (before atag_pipe_drain(); @ahead NULL: none).
 * While @wanted says so (asked every eighth of the ring), each message of a
 * kernel stack whose key went through before (@key, @ptr 0), and each free of
 * @ptr by source @src (@key 0), is told to @ahead three times before it is
 * delivered, @stage 0, 1, 2, the first some 18 messages ahead, the last some 6:
 * time for a consumer to prefetch, a step at a time, what that message will
 * read. Nothing else; the consumer's state then is that of the messages before.
 */
typedef void (*atag_pipe_ahead_fn)(void *ctx, unsigned int stage, unsigned int src,
				   uint64_t ptr, uint32_t key);
void atag_pipe_set_ahead(struct atag_pipe *p, atag_pipe_ahead_fn ahead,
			 bool (*wanted)(void *ctx), void *ctx);

/*
 * How often the producer woke a sleeping consumer, closing included (after
 * atag_pipe_close()): a consumer that drained everything sleeps until an eighth
 * of the ring waits for it, so this is at most the bytes put over an eighth of
 * the ring, plus one.
 */
unsigned long atag_pipe_wakeups(const struct atag_pipe *p);

#endif /* _ATAG_PIPE_H */
