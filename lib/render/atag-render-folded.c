// SPDX-License-Identifier: LGPL-2.1
/*
 * The report as folded stacks, the input of FlameGraph (flamegraph.pl),
 * inferno and speedscope: one line per sample (see atag-render-samples.c),
 *
 *   root;...;caller;<call site> <weight>
 *
 * The stack's callers come root first, as the format wants; the call site,
 * written as by atag_render_site_frame() ("kmalloc_foo@fs/foo.c:42[foo]"), is the
 * leaf, so a flame graph's top edge names the allocation tags. It stands for the
 * stack's own frame of the call site, once: the frames inside it (the allocator's)
 * are left out; a stack that does not show the call site keeps every frame under
 * it. A call site without a stack is a line of its own. Frames are functions
 * ("function", "function[module]"), so a function is one box however many
 * offsets its frames have; keep_offsets writes the frames as they are. Lines of
 * the same frames add up (FlameGraph sums them). Characters the format cannot
 * carry in a frame (';', spaces, control characters) and bytes of no UTF-8
 * character become '_' (atag_render_folded_name()). The weight is
 * the chosen sample value; lines that weigh 0 are left out. A report of more than
 * one source (slab and page events: their bytes overlap) roots every line in a frame
 * naming its source, "[kmem]" or "[page]", so that no tower mixes the two.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "atag-render.h"
#include "atag-render-samples.h"
#include "atag-report.h"
#include "atag-utils.h"

struct folded {
	const struct atag_report *r;
	FILE	*f;
	int	weight;
	bool	keep_offsets;
};

static void put_frame(FILE *f, const char *s)
{
	atag_render_folded_name(f, s, SIZE_MAX);
}

static int folded_line(void *ctx, const struct atag_render_sample *s)
{
	struct folded *fo = ctx;
	char site[1024], name[512];
	unsigned int i, first;
	const char *root;
	int at;

	if (!s->v[fo->weight])
		return 0;
	root = atag_render_source_root(fo->r, s, name, sizeof(name));
	if (root) {
		put_frame(fo->f, root);
		fputc(';', fo->f);
	}
	at = atag_render_site_index(s);
	first = at >= 0 ? (unsigned int)at + 1 : 0;
	for (i = s->stack ? s->stack->nr_frames : 0; i-- > first;) {
		put_frame(fo->f, atag_render_frame_name(s->stack->frames[i], fo->keep_offsets,
							name, sizeof(name)));
		fputc(';', fo->f);
	}
	put_frame(fo->f, atag_render_site_frame(s->tag, site, sizeof(site)));
	fprintf(fo->f, " %" PRIu64 "\n", s->v[fo->weight]);
	return ferror(fo->f) ? -EIO : 0;
}

/**
 * atag_render_folded - write the report as folded stacks
 * @r: the finished report
 * @o: options: weight (alloc_space by default, alloc_objects, inuse_space or
 *     inuse_objects), limit (how many call sites, 0 for all), keep_offsets;
 *     NULL for defaults
 * @f: where to write
 *
 * Returns 0, -EINVAL for an unknown weight, or -EIO when writing failed (errno set).
 */
int atag_render_folded(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	struct folded fo = { .r = r, .f = f, .keep_offsets = o && o->keep_offsets };
	int ret;

	fo.weight = atag_render_weight(o ? o->weight : NULL);
	if (fo.weight < 0)
		return fo.weight;
	ret = atag_render_for_each_sample(r, o ? o->limit : 0, folded_line, &fo);
	if (!ret && ferror(f))
		ret = -EIO;
	return ret ? atag_err(ret) : 0;
}
