// SPDX-License-Identifier: LGPL-2.1
/*
 * A 64-bit key -> 64-bit value hash map. See atag-map.h.
 *
 * Entries are {key, value} pairs in one array, so a probe touches one cache
 * line; the key UINT64_MAX marks an empty slot, and the entry whose key really is
 * UINT64_MAX lives apart, in has_max/max_val.
 */
#include <errno.h>
#include <stdlib.h>

#include "atag-bigmem.h"
#include "atag-map.h"

#define MIN_CAP		16
#define EMPTY		ATAG_MAP_EMPTY
#define slot_of		atag_map_slot

void atag_map_free(struct atag_map *m)
{
	free(m->e);
	m->e = NULL;
	m->cap = m->nr = 0;
	m->has_max = false;
}

uint64_t *atag_map_find_slow(const struct atag_map *m, uint64_t key)
{
	struct atag_map_entry *e;
	size_t i;

	if (key == EMPTY)
		return m->has_max ? (uint64_t *)&m->max_val : NULL;
	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		e = &m->e[i];
		if (e->key == key)
			return &e->val;
		if (e->key == EMPTY)
			return NULL;
	}
}

static int grow(struct atag_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : MIN_CAP, i, j;
	struct atag_map_entry *n;

	n = malloc(cap * sizeof(*n));
	if (!n) {
		errno = ENOMEM;
		return -1;
	}
	atag_bigmem_hint(n, cap * sizeof(*n));
	for (i = 0; i < cap; i++)
		n[i].key = EMPTY;
	for (i = 0; i < m->cap; i++) {
		if (m->e[i].key == EMPTY)
			continue;
		for (j = slot_of(m->e[i].key, cap); n[j].key != EMPTY; j = (j + 1) & (cap - 1))
			;
		n[j] = m->e[i];
	}
	free(m->e);
	m->e = n;
	m->cap = cap;
	return 0;
}

uint64_t *atag_map_get_slow(struct atag_map *m, uint64_t key, uint64_t init, bool *created)
{
	if (key == EMPTY) {
		if (created)
			*created = !m->has_max;
		if (!m->has_max) {
			m->has_max = true;
			m->max_val = init;
			m->nr++;
		}
		return &m->max_val;
	}
	if (grow(m))	/* the load factor stays <= 7/8 */
		return NULL;
	/* there is room now: the inline path finds or inserts */
	return atag_map_get(m, key, init, created);
}

bool atag_map_remove(struct atag_map *m, uint64_t key, uint64_t *val)
{
	size_t i, j, home, mask = m->cap - 1;

	if (key == EMPTY) {
		if (!m->has_max)
			return false;
		if (val)
			*val = m->max_val;
		m->has_max = false;
		m->nr--;
		return true;
	}
	if (!m->cap)
		return false;
	for (i = slot_of(key, m->cap); m->e[i].key != key; i = (i + 1) & mask)
		if (m->e[i].key == EMPTY)
			return false;
	if (val)
		*val = m->e[i].val;
	/* backward shift: move later members of the probe run into the hole */
	for (j = (i + 1) & mask; m->e[j].key != EMPTY; j = (j + 1) & mask) {
		home = slot_of(m->e[j].key, m->cap);
		/* may slot j move to i? only if its home is not in (i, j] cyclically */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->e[i] = m->e[j];
			i = j;
		}
	}
	m->e[i].key = EMPTY;
	m->nr--;
	return true;
}

bool atag_map_next(const struct atag_map *m, size_t *iter, uint64_t *key, uint64_t *val)
{
	size_t i;

	for (i = *iter; i < m->cap; i++) {
		if (m->e[i].key == EMPTY)
			continue;
		*key = m->e[i].key;
		if (val)
			*val = m->e[i].val;
		*iter = i + 1;
		return true;
	}
	if (i == m->cap && m->has_max) {
		*key = EMPTY;
		if (val)
			*val = m->max_val;
		*iter = i + 1;
		return true;
	}
	*iter = m->cap + 1;
	return false;
}
