// SPDX-License-Identifier: LGPL-2.1
/*
 * Interned kernel stacks: each distinct sequence of frames is stored once and
 * named by a small id. See atag-stitch.h.
 *
 * An id leads to its frames and their number. The frames are copied into an
 * arena (atag-arena.h: growing copies nothing), or, for frames their
 * producer keeps (atag_stacks_borrow_kept()), not copied at all: with 50 000
 * distinct stacks, the decoder's table and this one held 8 MiB of the same
 * frames each, every page of them touched for the first time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-arena.h"
#include "atag-map.h"
#include "atag-stitch.h"

struct stack {
	const uint64_t	*frames;
	uint64_t	nr;
};

struct atag_stacks {
	struct stack	*ids;		/* by id; ids[0] is the empty stack */
	size_t		nr;		/* stacks, including the empty one */
	size_t		cap;
	struct atag_arena copies;	/* of the frames not borrowed */
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
	if (!s)
		return;
	atag_arena_free(&s->copies);
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
		copy = atag_arena_alloc(&s->copies, nr);
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
