// SPDX-License-Identifier: LGPL-2.1
/*
 * Interned kernel stacks: each distinct sequence of frames is stored once and
 * named by a small id. See atag-stitch.h.
 *
 * An id leads to its frames and their number. The frames are copied into
 * blocks that never move (growing copies nothing), or, for frames their
 * producer keeps (atag_stacks_borrow_kept()), not copied at all: with 50 000
 * distinct stacks, the decoder's table and this one held 8 MiB of the same
 * frames each, every page of them touched for the first time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-map.h"
#include "atag-stitch.h"

#define BLOCK_MIN	512			/* frames of the first block */
#define BLOCK_MAX	((1U << 20) / 8)	/* ... of the largest */

struct stack {
	const uint64_t	*frames;
	uint64_t	nr;
};

struct atag_stacks {
	struct stack	*ids;		/* by id; ids[0] is the empty stack */
	size_t		nr;		/* stacks, including the empty one */
	size_t		cap;
	uint64_t	**blocks;	/* of frames copied; the last one fills */
	size_t		nr_blocks;
	size_t		cap_blocks;
	size_t		used;		/* frames of the last block */
	size_t		room;		/* ... it has */
	bool		borrow;		/* point to frames kept by their producer */
	struct atag_map	index;		/* hash (probed on collision) -> id */
};

struct atag_stacks *atag_stacks_alloc(void)
{
	struct atag_stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cap = 64;
	s->ids = calloc(s->cap, sizeof(*s->ids));
	if (!s->ids) {
		free(s);
		return NULL;
	}
	s->nr = 1;	/* the empty stack */
	return s;
}

void atag_stacks_free(struct atag_stacks *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_blocks; i++)
		free(s->blocks[i]);
	free(s->blocks);
	free(s->ids);
	atag_map_free(&s->index);
	free(s);
}

void atag_stacks_borrow_kept(struct atag_stacks *s)
{
	s->borrow = true;
}

static uint64_t hash_frames(const uint64_t *f, unsigned int nr)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ nr;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		h ^= f[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

const uint64_t *atag_stacks_get(const struct atag_stacks *s, uint32_t id, unsigned int *nr)
{
	if (id >= s->nr) {
		*nr = 0;
		return NULL;
	}
	*nr = s->ids[id].nr;
	return s->ids[id].frames;
}

size_t atag_stacks_count(const struct atag_stacks *s)
{
	return s->nr;
}

/* Room for @nr frames that never moves; NULL on ENOMEM. */
static uint64_t *copy_room(struct atag_stacks *s, unsigned int nr)
{
	size_t room;
	uint64_t *b;
	void *p;

	if (s->used + nr > s->room) {
		room = s->room ? 2 * s->room : BLOCK_MIN;
		if (room > BLOCK_MAX)
			room = BLOCK_MAX;
		if (room < nr)
			room = nr;
		if (s->nr_blocks == s->cap_blocks) {
			p = realloc(s->blocks, (s->cap_blocks ? 2 * s->cap_blocks : 16) *
				    sizeof(*s->blocks));
			if (!p)
				return NULL;
			s->blocks = p;
			s->cap_blocks = s->cap_blocks ? 2 * s->cap_blocks : 16;
		}
		b = malloc(room * sizeof(*b));
		if (!b)
			return NULL;
		s->blocks[s->nr_blocks++] = b;
		s->room = room;
		s->used = 0;
	}
	b = s->blocks[s->nr_blocks - 1] + s->used;
	s->used += nr;
	return b;
}

static int add_stack(struct atag_stacks *s, const uint64_t *f, unsigned int nr, bool kept)
{
	uint64_t *copy;
	void *p;

	if (s->nr == s->cap) {
		p = realloc(s->ids, s->cap * 2 * sizeof(*s->ids));
		if (!p)
			return -ENOMEM;
		s->ids = p;
		s->cap *= 2;
	}
	if (!(kept && s->borrow)) {
		copy = copy_room(s, nr);
		if (!copy)
			return -ENOMEM;
		f = memcpy(copy, f, nr * sizeof(*f));
	}
	s->ids[s->nr].frames = f;
	s->ids[s->nr].nr = nr;
	s->nr++;
	return 0;
}

int64_t atag_stacks_intern_kept(struct atag_stacks *s, const uint64_t *f, unsigned int nr,
				bool kept)
{
	const struct stack *k;
	uint64_t h, *id;
	bool created;

	if (!nr)
		return 0;
	for (h = hash_frames(f, nr);; h++) {
		id = atag_map_get(&s->index, h, s->nr, &created);
		if (!id)
			return -ENOMEM;
		if (created)
			break;
		k = &s->ids[*id];
		if (k->nr == nr && !memcmp(k->frames, f, nr * sizeof(*f)))
			return *id;
	}
	if (add_stack(s, f, nr, kept)) {
		atag_map_remove(&s->index, h, NULL);
		return -ENOMEM;
	}
	return s->nr - 1;
}

int64_t atag_stacks_intern(struct atag_stacks *s, const uint64_t *f, unsigned int nr)
{
	return atag_stacks_intern_kept(s, f, nr, false);
}
