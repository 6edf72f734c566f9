// SPDX-License-Identifier: LGPL-2.1
/*
 * A 64-bit key -> 64-bit value hash map. See atag-map.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "atag-map.h"

#define MIN_CAP		16

static inline size_t slot_of(uint64_t key, size_t cap)
{
	/* Fibonacci hashing: spreads pointer and pfn keys whose low bits repeat */
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
}

void atag_map_free(struct atag_map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	m->keys = m->vals = NULL;
	m->used = NULL;
	m->cap = m->nr = 0;
}

uint64_t *atag_map_find(const struct atag_map *m, uint64_t key)
{
	size_t i;

	if (!m->nr)
		return NULL;
	for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return &m->vals[i];
	return NULL;
}

static int grow(struct atag_map *m)
{
	struct atag_map n = { 0 };
	size_t i, j;

	n.cap = m->cap ? m->cap * 2 : MIN_CAP;
	n.keys = malloc(n.cap * sizeof(*n.keys));
	n.vals = malloc(n.cap * sizeof(*n.vals));
	n.used = calloc(n.cap, 1);
	if (!n.keys || !n.vals || !n.used) {
		atag_map_free(&n);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		for (j = slot_of(m->keys[i], n.cap); n.used[j]; j = (j + 1) & (n.cap - 1))
			;
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	n.nr = m->nr;
	atag_map_free(m);
	*m = n;
	return 0;
}

uint64_t *atag_map_get(struct atag_map *m, uint64_t key, uint64_t init, bool *created)
{
	size_t i;

	if ((m->nr + 1) * 8 > m->cap * 7 && grow(m))	/* load factor <= 7/8 */
		return NULL;
	for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			if (created)
				*created = false;
			return &m->vals[i];
		}
	}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = init;
	m->nr++;
	if (created)
		*created = true;
	return &m->vals[i];
}

bool atag_map_remove(struct atag_map *m, uint64_t key, uint64_t *val)
{
	size_t i, j, home, mask = m->cap - 1;

	if (!m->nr)
		return false;
	for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & mask)
		if (m->keys[i] == key)
			break;
	if (!m->used[i])
		return false;
	if (val)
		*val = m->vals[i];
	/* backward shift: move later members of the probe run into the hole */
	for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
		home = slot_of(m->keys[j], m->cap);
		/* may slot j move to i? only if its home is not in (i, j] cyclically */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->nr--;
	return true;
}

bool atag_map_next(const struct atag_map *m, size_t *iter, uint64_t *key, uint64_t *val)
{
	size_t i;

	for (i = *iter; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		*key = m->keys[i];
		if (val)
			*val = m->vals[i];
		*iter = i + 1;
		return true;
	}
	*iter = m->cap;
	return false;
}
