// SPDX-License-Identifier: LGPL-2.1
/*
 * Memory handed out piece by piece that never moves. See atag-arena.h.
 *
 * A block's unused tail, where the next piece does not fit, stays unused: at
 * most the largest piece asked for, against the half of the memory a table
 * doubled by realloc() copies into pages touched for the first time (on a
 * virtual machine, zeroing them cost more than the copy).
 */
#include <stdlib.h>

#include "atag-arena.h"

#define BLOCK_MIN	(4096 / sizeof(uint64_t))		/* words */
#define BLOCK_MAX	((2U << 20) / sizeof(uint64_t))

uint64_t *atag_arena_alloc(struct atag_arena *a, size_t words)
{
	size_t room, cap;
	uint64_t **n, *b;

	if (a->used + words > a->room || !a->nr_blocks) {
		room = a->room ? 2 * a->room : BLOCK_MIN;
		if (room > BLOCK_MAX)
			room = BLOCK_MAX;
		if (room < words)
			room = words;
		if (room > SIZE_MAX / sizeof(uint64_t))
			return NULL;
		if (a->nr_blocks == a->cap_blocks) {
			cap = a->cap_blocks ? 2 * a->cap_blocks : 16;
			n = realloc(a->block, cap * sizeof(*n));
			if (!n)
				return NULL;
			a->block = n;
			a->cap_blocks = cap;
		}
		b = malloc(room * sizeof(uint64_t));
		if (!b)
			return NULL;
		a->block[a->nr_blocks++] = b;
		a->room = room;
		a->used = 0;
	}
	b = a->block[a->nr_blocks - 1] + a->used;
	a->used += words;
	return b;
}

void atag_arena_free(struct atag_arena *a)
{
	size_t i;

	for (i = 0; i < a->nr_blocks; i++)
		free(a->block[i]);
	free(a->block);
	*a = (struct atag_arena){ 0 };
}
