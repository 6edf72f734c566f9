// SPDX-License-Identifier: LGPL-2.1
/*
 * The frames of a view's stacks as report names them ("function+0xoff [module]",
 * the tracing machinery's left out), symbolized once per stack while a store lives
 * (a snapshot of leaks, a save). See atag-live-int.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-live-int.h"
#include "atag-symbols.h"

const struct live_frames *live_frames_get(struct live_frame_store *fs, struct atag_liveview *lv,
					  uint32_t id)
{
	const uint64_t *addr;
	unsigned int n, skip, i;
	struct live_frames *fr;
	uint64_t *idx;
	bool created;
	char buf[256];
	void *p;

	idx = atag_map_get(&fs->index, id, fs->nr, &created);
	if (!idx)
		return NULL;
	if (!created)
		return &fs->v[*idx];
	if (fs->nr == fs->cap) {
		p = realloc(fs->v, (fs->cap ? 2 * fs->cap : 64) * sizeof(*fs->v));
		if (!p) {
			atag_map_remove(&fs->index, id, NULL);
			return NULL;
		}
		fs->v = p;
		fs->cap = fs->cap ? 2 * fs->cap : 64;
	}
	fr = &fs->v[fs->nr++];
	addr = atag_stacks_get(lv->stacks, id, &n);
	skip = atag_stack_skip(atag_decoder_frames(lv->dec), addr, n);
	fr->nr = n - skip;
	fr->names = fr->nr ? calloc(fr->nr, sizeof(*fr->names)) : NULL;
	if (!fr->names)
		fr->nr = 0;
	for (i = 0; i < fr->nr; i++)
		fr->names[i] = strdup(atag_symbolize(lv->tep, lv->modules, addr[skip + i], buf,
						     sizeof(buf)));
	return fr;
}

void live_frame_store_free(struct live_frame_store *fs)
{
	unsigned int k;
	size_t i;

	for (i = 0; i < fs->nr; i++) {
		for (k = 0; k < fs->v[i].nr; k++)
			free(fs->v[i].names[k]);
		free(fs->v[i].names);
	}
	free(fs->v);
	atag_map_free(&fs->index);
	memset(fs, 0, sizeof(*fs));
}
