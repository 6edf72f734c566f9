// SPDX-License-Identifier: LGPL-2.1
/*
 * Interned kernel stacks: each distinct sequence of frames is stored once, in one
 * growing array, and named by a small id. See atag-stitch.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-map.h"
#include "atag-stitch.h"

struct atag_stacks {
	uint64_t	*frames;	/* all stacks' frames, back to back */
	size_t		nr_frames;
	size_t		cap_frames;
	uint64_t	*start;		/* start[id] = offset in frames; start[id + 1] ends it */
	size_t		nr;		/* stacks, including the empty one (id 0) */
	size_t		cap;
	struct atag_map	index;		/* hash (probed on collision) -> id */
};

struct atag_stacks *atag_stacks_alloc(void)
{
	struct atag_stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cap = 64;
	s->start = malloc(s->cap * sizeof(*s->start));
	if (!s->start) {
		free(s);
		return NULL;
	}
	s->start[0] = 0;	/* the empty stack */
	s->start[1] = 0;
	s->nr = 1;
	return s;
}

void atag_stacks_free(struct atag_stacks *s)
{
	if (!s)
		return;
	free(s->frames);
	free(s->start);
	atag_map_free(&s->index);
	free(s);
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
	*nr = s->start[id + 1] - s->start[id];
	return *nr ? s->frames + s->start[id] : NULL;
}

size_t atag_stacks_count(const struct atag_stacks *s)
{
	return s->nr;
}

static int add_stack(struct atag_stacks *s, const uint64_t *f, unsigned int nr)
{
	void *p;

	if (s->nr_frames + nr > s->cap_frames) {
		size_t cap = s->cap_frames ? s->cap_frames * 2 : 1024;

		while (cap < s->nr_frames + nr)
			cap *= 2;
		p = realloc(s->frames, cap * sizeof(*s->frames));
		if (!p)
			return -ENOMEM;
		s->frames = p;
		s->cap_frames = cap;
	}
	if (s->nr + 2 > s->cap) {
		p = realloc(s->start, s->cap * 2 * sizeof(*s->start));
		if (!p)
			return -ENOMEM;
		s->start = p;
		s->cap *= 2;
	}
	memcpy(s->frames + s->nr_frames, f, nr * sizeof(*f));
	s->nr_frames += nr;
	s->start[++s->nr] = s->nr_frames;
	return 0;
}

int64_t atag_stacks_intern(struct atag_stacks *s, const uint64_t *f, unsigned int nr)
{
	uint64_t h, *id;
	unsigned int n;
	bool created;

	if (!nr)
		return 0;
	for (h = hash_frames(f, nr);; h++) {
		id = atag_map_get(&s->index, h, s->nr, &created);
		if (!id)
			return -ENOMEM;
		if (created)
			break;
		n = s->start[*id + 1] - s->start[*id];
		if (n == nr && !memcmp(s->frames + s->start[*id], f, nr * sizeof(*f)))
			return *id;
	}
	if (add_stack(s, f, nr)) {
		atag_map_remove(&s->index, h, NULL);
		return -ENOMEM;
	}
	return s->nr - 1;
}
