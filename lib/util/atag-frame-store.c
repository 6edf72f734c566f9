// SPDX-License-Identifier: LGPL-2.1
/*
 * Sets of stack frames in one array. See atag-frame-store.h.
 */
#include <stdlib.h>
#include <string.h>

#include "atag-frame-store.h"

void atag_frame_store_free(struct atag_frame_store *s)
{
	free(s->frames);
	free(s->off);
	free(s->len);
	memset(s, 0, sizeof(*s));
}

bool atag_frame_store_add(struct atag_frame_store *s, const void *raw, unsigned int nr)
{
	size_t cap;
	void *n;

	if (s->nr >= ATAG_FRAME_STORE_MAX || s->nr_frames + nr > ATAG_FRAME_STORE_MAX_FRAMES)
		return false;
	if (s->nr == s->cap) {
		cap = s->cap ? 2 * s->cap : 256;
		n = realloc(s->off, cap * sizeof(*s->off));
		if (!n)
			return false;
		s->off = n;
		n = realloc(s->len, cap * sizeof(*s->len));
		if (!n)
			return false;
		s->len = n;
		s->cap = cap;
	}
	/* allocated with the first set, an empty one too: frames + off is never NULL + 0 */
	if (s->nr_frames + nr > s->cap_frames || !s->frames) {
		cap = s->cap_frames ? 2 * s->cap_frames : 4096;
		while (cap < s->nr_frames + nr)
			cap *= 2;
		n = realloc(s->frames, cap * sizeof(*s->frames));
		if (!n)
			return false;
		s->frames = n;
		s->cap_frames = cap;
	}
	if (nr)
		memcpy(s->frames + s->nr_frames, raw, nr * sizeof(*s->frames));
	s->off[s->nr] = s->nr_frames;
	s->len[s->nr] = nr;
	s->nr_frames += nr;
	s->nr++;
	return true;
}
