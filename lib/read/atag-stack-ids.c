// SPDX-License-Identifier: LGPL-2.1
/*
 * The distinct kernel stacks of one trace. See atag-stack-ids.h.
 *
 * A hash of the frames leads to an id through a map; the frames of all ids lie
 * in one array. The hash runs four lanes of multiply-xor over the frames, so
 * that a 20-frame stack is not one chain of 20 dependent multiplications.
 */
#include <stdlib.h>
#include <string.h>

#include "atag-map.h"
#include "atag-stack-ids.h"

struct atag_stack_ids {
	struct atag_map		by_hash;	/* hash -> id */
	uint64_t		*frames;
	size_t			nr_frames;
	size_t			cap_frames;
	uint32_t		*off;		/* by id - 1 */
	uint32_t		*len;
	struct atag_stack_info	*info;
	uint32_t		nr;
	uint32_t		cap;
};

struct atag_stack_ids *atag_stack_ids_alloc(void)
{
	return calloc(1, sizeof(struct atag_stack_ids));
}

void atag_stack_ids_free(struct atag_stack_ids *t)
{
	if (!t)
		return;
	atag_map_free(&t->by_hash);
	free(t->frames);
	free(t->off);
	free(t->len);
	free(t->info);
	free(t);
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

#define K1	0x9E3779B97F4A7C15ULL
#define K2	0xff51afd7ed558ccdULL

static uint64_t frames_hash(const uint8_t *raw, unsigned int nr)
{
	uint64_t h0 = K1 ^ nr, h1 = K2, h2 = K1 + K2, h3 = K1 - K2;
	unsigned int i = 0;

	for (; i + 4 <= nr; i += 4) {
		h0 = (h0 ^ load64(raw + 8 * i)) * K2;
		h1 = (h1 ^ load64(raw + 8 * i + 8)) * K2;
		h2 = (h2 ^ load64(raw + 8 * i + 16)) * K2;
		h3 = (h3 ^ load64(raw + 8 * i + 24)) * K2;
	}
	for (; i < nr; i++)
		h0 = (h0 ^ load64(raw + 8 * i)) * K2;
	h0 ^= (h1 >> 17 | h1 << 47) ^ (h2 >> 31 | h2 << 33) ^ (h3 >> 43 | h3 << 21);
	h0 *= K1;
	return h0 ^ (h0 >> 32);
}

static bool grow(struct atag_stack_ids *t, unsigned int nr)
{
	size_t cap;
	void *n;

	if (t->nr == t->cap) {
		cap = t->cap ? 2 * t->cap : 256;
		n = realloc(t->off, cap * sizeof(*t->off));
		if (!n)
			return false;
		t->off = n;
		n = realloc(t->len, cap * sizeof(*t->len));
		if (!n)
			return false;
		t->len = n;
		n = realloc(t->info, cap * sizeof(*t->info));
		if (!n)
			return false;
		t->info = n;
		t->cap = cap;
	}
	/* allocated with the first id, even an empty stack: frames + off is never NULL + 0 */
	if (t->nr_frames + nr > t->cap_frames || !t->frames) {
		cap = t->cap_frames ? 2 * t->cap_frames : 4096;
		while (cap < t->nr_frames + nr)
			cap *= 2;
		n = realloc(t->frames, cap * sizeof(*t->frames));
		if (!n)
			return false;
		t->frames = n;
		t->cap_frames = cap;
	}
	return true;
}

uint32_t atag_stack_ids_get(struct atag_stack_ids *t, const void *raw, unsigned int nr,
			    bool *created)
{
	uint64_t h = frames_hash(raw, nr), *v;
	bool added;
	uint32_t i;

	*created = false;
	v = atag_map_get(&t->by_hash, h, 0, &added);
	if (!v)
		return 0;
	if (!added) {
		/* another set of frames with this hash came first: these get no id */
		if (!*v)
			return 0;
		i = *v - 1;
		if (t->len[i] == nr && (!nr || !memcmp(t->frames + t->off[i], raw, nr * 8UL)))
			return *v;
		return 0;
	}
	if (t->nr >= ATAG_STACK_IDS_MAX || t->nr_frames + nr > ATAG_STACK_IDS_MAX_FRAMES ||
	    !grow(t, nr))
		return 0;	/* the entry stays 0: looked up again, never numbered */
	i = t->nr++;
	if (nr)
		memcpy(t->frames + t->nr_frames, raw, nr * 8UL);
	t->off[i] = t->nr_frames;
	t->len[i] = nr;
	t->info[i] = (struct atag_stack_info){ .type = -1 };
	t->nr_frames += nr;
	*v = i + 1;
	*created = true;
	return *v;
}

const uint64_t *atag_stack_ids_frames(const struct atag_stack_ids *t, uint32_t id,
				      unsigned int *nr)
{
	*nr = t->len[id - 1];
	return t->frames + t->off[id - 1];
}

struct atag_stack_info *atag_stack_ids_info(struct atag_stack_ids *t, uint32_t id)
{
	return &t->info[id - 1];
}
