/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-arena.h - memory handed out piece by piece that never moves (library-
 * internal): pieces are cut from blocks, the first 4 KiB, each next one twice
 * the last up to 2 MiB (larger when a piece needs it), and are all freed
 * together. What a table grows into without copying what it holds: a pointer
 * to a piece stays valid until atag_arena_free(). Not thread safe; a piece
 * written before its address is published (with release semantics) may be read
 * on another thread.
 */
#ifndef _ATAG_ARENA_H
#define _ATAG_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct atag_arena {
	uint64_t	**block;
	size_t		nr_blocks;
	size_t		cap_blocks;
	size_t		used;		/* words of the last block */
	size_t		room;		/* ... it has */
};

/* An empty arena needs no allocation: struct atag_arena a = { 0 }. */

/* @words 64-bit words, uninitialised, never moved; NULL on ENOMEM. */
uint64_t *atag_arena_alloc(struct atag_arena *a, size_t words);

/* Free every piece; the arena is empty again. */
void atag_arena_free(struct atag_arena *a);

#endif /* _ATAG_ARENA_H */
