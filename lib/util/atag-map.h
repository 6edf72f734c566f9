/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-map.h - a hash map from 64-bit keys to 64-bit values (library-internal).
 *
 * Generic and domain-free: open addressing with linear probing, deletion by
 * backward shift (no tombstones), so lookups stay short however many inserts and
 * removals go by. The stitcher does one or two map operations per trace event; at
 * the rates the reader delivers, GHashTable's per-node allocation and indirect
 * hashing cost more than the reading itself (make bench), hence this map. Not
 * thread safe.
 */
#ifndef _ATAG_MAP_H
#define _ATAG_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct atag_map_entry {
	uint64_t	key;
	uint64_t	val;
};

struct atag_map {
	struct atag_map_entry	*e;
	size_t			cap;	/* a power of two, or 0 */
	size_t			nr;
	bool			has_max;	/* the entry of key UINT64_MAX */
	uint64_t		max_val;
};

/* An empty map needs no allocation: struct atag_map m = { 0 }. */
void atag_map_free(struct atag_map *m);

#define ATAG_MAP_EMPTY	UINT64_MAX

static inline size_t atag_map_slot(uint64_t key, size_t cap)
{
	/* Fibonacci hashing: spreads pointer and pfn keys whose low bits repeat */
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
}

/* The out-of-line cases of the inline functions: the key ATAG_MAP_EMPTY, a map to grow. */
uint64_t *atag_map_find_slow(const struct atag_map *m, uint64_t key);
uint64_t *atag_map_get_slow(struct atag_map *m, uint64_t key, uint64_t init, bool *created);

/* Pointer to the value of @key, or NULL. Valid until the next insert or remove. */
static inline uint64_t *atag_map_find(const struct atag_map *m, uint64_t key)
{
	struct atag_map_entry *e;
	size_t i;

	if (key == ATAG_MAP_EMPTY || !m->cap)
		return atag_map_find_slow(m, key);
	for (i = atag_map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		e = &m->e[i];
		if (e->key == key)
			return &e->val;
		if (e->key == ATAG_MAP_EMPTY)
			return NULL;
	}
}

/*
 * Prefetch the slot where a lookup of @key starts. Always inlined: GCC (12) takes
 * a function that only prefetches for one without effects and drops the calls
 * it did not inline early (tests/t-layers.sh counts the prefetches built).
 */
static inline __attribute__((always_inline)) void atag_map_prefetch(const struct atag_map *m,
								    uint64_t key)
{
	if (m->cap)
		__builtin_prefetch(&m->e[atag_map_slot(key, m->cap)]);
}

/*
 * The value slot of @key, inserted with value @init if absent (*@created says
 * which). NULL on allocation failure (errno ENOMEM).
 */
static inline uint64_t *atag_map_get(struct atag_map *m, uint64_t key, uint64_t init,
				     bool *created)
{
	struct atag_map_entry *e;
	size_t i;

	if (key == ATAG_MAP_EMPTY || (m->nr + 1) * 8 > m->cap * 7)
		return atag_map_get_slow(m, key, init, created);
	for (i = atag_map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		e = &m->e[i];
		if (e->key == key) {
			if (created)
				*created = false;
			return &e->val;
		}
		if (e->key == ATAG_MAP_EMPTY)
			break;
	}
	e->key = key;
	e->val = init;
	m->nr++;
	if (created)
		*created = true;
	return &e->val;
}

/* Remove @key; returns true (and its value in *@val if @val) if it was there. */
bool atag_map_remove(struct atag_map *m, uint64_t key, uint64_t *val);

static inline size_t atag_map_count(const struct atag_map *m)
{
	return m->nr;
}

/*
 * Iterate: for (i = 0; atag_map_next(m, &i, &key, &val); ) ...; the map must not
 * change during the walk.
 */
bool atag_map_next(const struct atag_map *m, size_t *iter, uint64_t *key, uint64_t *val);

#endif /* _ATAG_MAP_H */
