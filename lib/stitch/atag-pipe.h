/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-pipe.h - a queue of decoded events from a reading thread to a stitching
 * thread (library-internal). See lib/stitch/atag-pipe.c.
 */
#ifndef _ATAG_PIPE_H
#define _ATAG_PIPE_H

#include <stddef.h>

#include "atag-stitch.h"

struct atag_pipe;

/* A queue of about @size bytes (rounded up to a power of two). */
struct atag_pipe *atag_pipe_alloc(size_t size);
void atag_pipe_free(struct atag_pipe *p);

/* Producer side: a sink whose calls enqueue; atag_pipe_close() when done. */
void atag_pipe_sink(struct atag_pipe *p, struct atag_sink *sink);
void atag_pipe_close(struct atag_pipe *p);

/* Consumer side: deliver everything to @out until closed; the first error it returned. */
int atag_pipe_drain(struct atag_pipe *p, const struct atag_sink *out);

#endif /* _ATAG_PIPE_H */
