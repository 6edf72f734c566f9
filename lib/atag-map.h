/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-map.h - a hash map from 64-bit keys to 64-bit values (library-internal).
 *
 * Generic and domain-free: open addressing with linear probing, deletion by
 * backward shift (no tombstones), so lookups stay short however many inserts and
 * removals go by. The stitcher does one or two map operations per trace event; at
 * the rates libtracecmd delivers (over 10 M events/s on uncompressed files),
 * GHashTable's per-node allocation and indirect hashing cost more than the
 * iteration itself (bench/), hence this map. Not thread safe.
 */
#ifndef _ATAG_MAP_H
#define _ATAG_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct atag_map {
	uint64_t	*keys;
	uint64_t	*vals;
	uint8_t		*used;
	size_t		cap;	/* a power of two, or 0 */
	size_t		nr;
};

/* An empty map needs no allocation: struct atag_map m = { 0 }. */
void atag_map_free(struct atag_map *m);

/* Pointer to the value of @key, or NULL. Valid until the next insert or remove. */
uint64_t *atag_map_find(const struct atag_map *m, uint64_t key);

/*
 * The value slot of @key, inserted with value @init if absent (*@created says
 * which). NULL on allocation failure (errno ENOMEM).
 */
uint64_t *atag_map_get(struct atag_map *m, uint64_t key, uint64_t init, bool *created);

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
