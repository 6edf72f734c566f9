// SPDX-License-Identifier: LGPL-2.1
/*
 * The distinct kernel stacks of one trace. See atag-stack-ids.h.
 *
 * A hash of the frames leads through a map to the stack's entry: its id, what
 * the decoder learned of it and its frames, back to back, so that a stack met
 * again costs the map's slot and one run of adjacent cache lines, two addresses
 * the look-ahead below can prefetch. The entries are laid out in an arena
 * (atag-arena.h): an entry's frames stay where they are until the table is freed,
 * so that the stitcher can point to them rather than copy them, and growing the
 * table copies nothing (with 50 000 distinct stacks, doubling one array copied
 * 8 MiB into pages touched for the first time: a tenth of the reading time). Past the caches (50 000
 * distinct stacks), those misses were a third of the reading time; the entry in
 * one piece alone did not change that, the prefetching did (bench/README.md).
 * The hash runs four lanes of multiply-xor over the frames, so that a 20-frame
 * stack is not one chain of 20 dependent multiplications.
 */
#include <stdlib.h>
#include <string.h>

#include "atag-arena.h"
#include "atag-map.h"
#include "atag-stack-ids.h"

#define HDR_WORDS	(sizeof(struct atag_stack_entry) / sizeof(uint64_t))

#define AHEAD_STACKS	64		/* of one page, prefetched */
#define AHEAD_CPUS	4096
#define AHEAD_BYTES	(1U << 20)	/* of the table, before a look-ahead pays */

/*
 * The hashes of the stacks a CPU's next page holds, their slots prefetched; and
 * the entries of those of the page it is in, in the order of its records.
 */
struct ahead {
	uint32_t			nr;
	uint64_t			hash[AHEAD_STACKS];
	uint32_t			bytes[AHEAD_STACKS];	/* of their entries, if known */
	uint32_t			nr_at;
	uint32_t			pos;			/* the next one met */
	struct atag_stack_entry		*at[AHEAD_STACKS];	/* NULL: not known then */
};

struct atag_stack_ids {
	struct atag_map		by_hash;	/* hash -> the entry's address; 0: no id */
	struct atag_arena	entries;	/* back to back */
	uint32_t		nr;		/* ids given */
	size_t			nr_frames;
	struct ahead		*ahead;		/* by CPU */
	int			nr_ahead;
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
	atag_arena_free(&t->entries);
	free(t->ahead);
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

/* A new entry for the @nr frames at @raw, numbered t->nr + 1; NULL without memory or room. */
static struct atag_stack_entry *add_entry(struct atag_stack_ids *t, const void *raw,
					  unsigned int nr)
{
	struct atag_stack_entry *e;

	if (t->nr >= ATAG_STACK_IDS_MAX || t->nr_frames + nr > ATAG_STACK_IDS_MAX_FRAMES)
		return NULL;
	e = (struct atag_stack_entry *)atag_arena_alloc(&t->entries, HDR_WORDS + nr);
	if (!e)
		return NULL;
	e->id = t->nr + 1;
	e->nr = nr;
	e->info = (struct atag_stack_info){ .type = -1 };
	if (nr)
		memcpy(e->frames, raw, nr * sizeof(uint64_t));
	t->nr++;
	t->nr_frames += nr;
	return e;
}

struct atag_stack_entry *atag_stack_ids_find(struct atag_stack_ids *t, const void *raw,
					     unsigned int nr, bool *created)
{
	uint64_t h = frames_hash(raw, nr), *v;
	struct atag_stack_entry *e;
	bool added;

	*created = false;
	v = atag_map_get(&t->by_hash, h, 0, &added);
	if (!v)
		return NULL;
	if (!added) {
		/* another set of frames with this hash came first: these get no id */
		if (!*v)
			return NULL;
		e = (struct atag_stack_entry *)(uintptr_t)*v;
		if (e->nr == nr && !memcmp(e->frames, raw, nr * 8UL))
			return e;
		return NULL;
	}
	e = add_entry(t, raw, nr);
	if (!e)
		return NULL;	/* the map's value stays 0: looked up again, never numbered */
	*v = (uintptr_t)e;
	*created = true;
	return e;
}


/* ------------------------------------------------------------ look-ahead */

/*
 * Misses are what a lookup costs once the table is past the caches: the map's
 * slot, then the entry it leads to (with 50 000 distinct stacks of 14 frames,
 * 7 MiB in all, each stack record cost about 180 ns more than with 2 000).
 * Named a page ahead, a stack's slot is prefetched; when its page is entered,
 * the slot is read and its entry prefetched, a page's records before the
 * decoder compares the frames.
 */
static struct ahead *ahead_of(struct atag_stack_ids *t, int cpu)
{
	struct ahead *n;
	int nr;

	if (cpu < 0 || cpu >= AHEAD_CPUS)
		return NULL;
	if (cpu >= t->nr_ahead) {
		nr = cpu + 1 > 2 * t->nr_ahead ? cpu + 1 : 2 * t->nr_ahead;
		n = realloc(t->ahead, nr * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + t->nr_ahead, 0, (nr - t->nr_ahead) * sizeof(*n));
		t->ahead = n;
		t->nr_ahead = nr;
	}
	return &t->ahead[cpu];
}

bool atag_stack_ids_ahead_page(struct atag_stack_ids *t, int cpu)
{
	uintptr_t line, end;
	const uint64_t *v;
	struct ahead *a;
	size_t bytes;
	uint32_t i;

	bytes = (t->nr * HDR_WORDS + t->nr_frames) * sizeof(uint64_t) +
		t->by_hash.cap * sizeof(struct atag_map_entry);
	if (bytes < AHEAD_BYTES || !(a = ahead_of(t, cpu)))
		return false;
	for (i = 0; i < a->nr; i++) {
		v = atag_map_find(&t->by_hash, a->hash[i]);
		a->at[i] = v && *v ? (struct atag_stack_entry *)(uintptr_t)*v : NULL;
		if (!a->at[i])
			continue;
		/* the record's size: the entry's own would be a miss to wait for */
		line = (uintptr_t)*v;
		end = line + a->bytes[i];
		for (line &= ~(uintptr_t)63; line < end; line += 64)
			__builtin_prefetch((const void *)line);
	}
	a->nr_at = a->nr;
	a->pos = 0;
	a->nr = 0;
	return true;
}

struct atag_stack_entry *atag_stack_ids_find_on(struct atag_stack_ids *t, int cpu,
						const void *raw, unsigned int nr, bool *created)
{
	struct atag_stack_entry *e;
	struct ahead *a;

	if (cpu >= 0 && cpu < t->nr_ahead) {
		a = &t->ahead[cpu];
		if (a->pos < a->nr_at) {
			/* the entry found when the page was entered, if these are its frames */
			e = a->at[a->pos++];
			if (e && e->nr == nr && !memcmp(e->frames, raw, nr * 8UL)) {
				*created = false;
				return e;
			}
		}
	}
	return atag_stack_ids_find(t, raw, nr, created);
}

void atag_stack_ids_ahead(struct atag_stack_ids *t, int cpu, const void *raw, unsigned int nr)
{
	struct ahead *a;
	uint64_t h;

	if (cpu < 0 || cpu >= t->nr_ahead || !t->by_hash.cap)
		return;
	a = &t->ahead[cpu];
	if (a->nr == AHEAD_STACKS)
		return;
	h = frames_hash(raw, nr);
	__builtin_prefetch(&t->by_hash.e[atag_map_slot(h, t->by_hash.cap)]);
	a->bytes[a->nr] = sizeof(struct atag_stack_entry) + nr * 8UL;
	a->hash[a->nr++] = h;
}
