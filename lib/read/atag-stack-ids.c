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

#include "atag-frame-store.h"
#include "atag-map.h"
#include "atag-stack-ids.h"

struct atag_stack_ids {
	struct atag_map		by_hash;	/* hash -> id */
	struct atag_frame_store	frames;		/* id - 1 -> its frames */
	struct atag_stack_info	*info;		/* by id - 1 */
	uint32_t		cap_info;
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
	atag_frame_store_free(&t->frames);
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

/* Room for the info of one more id. */
static bool grow_info(struct atag_stack_ids *t)
{
	struct atag_stack_info *n;
	uint32_t cap;

	if (t->frames.nr < t->cap_info)
		return true;
	cap = t->cap_info ? 2 * t->cap_info : 256;
	n = realloc(t->info, cap * sizeof(*n));
	if (!n)
		return false;
	t->info = n;
	t->cap_info = cap;
	return true;
}

uint32_t atag_stack_ids_get(struct atag_stack_ids *t, const void *raw, unsigned int nr,
			    bool *created)
{
	uint64_t h = frames_hash(raw, nr), *v;
	const uint64_t *f;
	unsigned int len;
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
		f = atag_frame_store_get(&t->frames, *v - 1, &len);
		if (len == nr && !memcmp(f, raw, nr * 8UL))
			return *v;
		return 0;
	}
	i = t->frames.nr;
	if (!grow_info(t) || !atag_frame_store_add(&t->frames, raw, nr))
		return 0;	/* the entry stays 0: looked up again, never numbered */
	t->info[i] = (struct atag_stack_info){ .type = -1 };
	*v = i + 1;
	*created = true;
	return *v;
}

const uint64_t *atag_stack_ids_frames(const struct atag_stack_ids *t, uint32_t id,
				      unsigned int *nr)
{
	return atag_frame_store_get(&t->frames, id - 1, nr);
}

struct atag_stack_info *atag_stack_ids_info(struct atag_stack_ids *t, uint32_t id)
{
	return &t->info[id - 1];
}
