/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-frame-store.h - sets of kernel stack frames kept in one array, numbered
 * 0, 1, 2, ... as they are added (library-internal). The decoder's table of
 * distinct stacks and the pipe's consumer keep their frames here.
 */
#ifndef _ATAG_FRAME_STORE_H
#define _ATAG_FRAME_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ATAG_FRAME_STORE_MAX		(1U << 20)	/* sets of frames */
#define ATAG_FRAME_STORE_MAX_FRAMES	(16U << 20)	/* frames of all of them */

/* Empty: struct atag_frame_store s = { 0 }. */
struct atag_frame_store {
	uint64_t	*frames;
	size_t		nr_frames;
	size_t		cap_frames;
	uint32_t	*off;		/* by set */
	uint32_t	*len;
	uint32_t	nr;
	uint32_t	cap;
};

void atag_frame_store_free(struct atag_frame_store *s);

/*
 * Keep the @nr frames at @raw (u64 in the machine's byte order, at any alignment)
 * as set s->nr; false without memory or room (the limits above).
 */
bool atag_frame_store_add(struct atag_frame_store *s, const void *raw, unsigned int nr);

/* The frames of set @i (aligned, never NULL), their number in *@nr. */
static inline const uint64_t *atag_frame_store_get(const struct atag_frame_store *s,
						   uint32_t i, unsigned int *nr)
{
	*nr = s->len[i];
	return s->frames + s->off[i];
}

#endif /* _ATAG_FRAME_STORE_H */
