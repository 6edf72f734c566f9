// SPDX-License-Identifier: LGPL-2.1
/*
 * The report as folded stacks, the input of FlameGraph (flamegraph.pl),
 * inferno and speedscope: one line per sample (see atag-render-samples.c),
 *
 *   root;...;caller;frame0;<call site> <weight>
 *
 * The stack's frames come root first, as the format wants (frame 0, where the
 * allocation was made, last among them); the call site, written as by
 * atag_render_site_frame() ("kmalloc_foo@fs/foo.c:42[foo]"), is the leaf, so a
 * flame graph's top edge names the allocation tags. A call site without a stack
 * is a line of its own. Frames keep their "+0xoff" offsets, so lines stay one
 * per (call site, stack). Characters the format cannot carry in a frame (';',
 * spaces, control characters) become '_'. The weight is the chosen sample value;
 * lines that weigh 0 are left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "atag-render.h"
#include "atag-render-samples.h"
#include "atag-report.h"
#include "atag-utils.h"

struct folded {
	FILE	*f;
	int	weight;
};

static void put_frame(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		fputc(c == ';' || c == ' ' || c < 0x20 || c == 0x7f ? '_' : c, f);
	}
}

static int folded_line(void *ctx, const struct atag_render_sample *s)
{
	struct folded *fo = ctx;
	char site[1024];
	unsigned int i;

	if (!s->v[fo->weight])
		return 0;
	for (i = s->stack ? s->stack->nr_frames : 0; i-- > 0;) {
		put_frame(fo->f, s->stack->frames[i]);
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
 *     inuse_objects), limit (how many call sites, 0 for all); NULL for defaults
 * @f: where to write
 *
 * Returns 0, -EINVAL for an unknown weight, or -EIO when writing failed (errno set).
 */
int atag_render_folded(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	struct folded fo = { .f = f };
	int ret;

	fo.weight = atag_render_weight(o ? o->weight : NULL);
	if (fo.weight < 0)
		return fo.weight;
	ret = atag_render_for_each_sample(r, o ? o->limit : 0, folded_line, &fo);
	if (!ret && ferror(f))
		ret = -EIO;
	return ret ? atag_err(ret) : 0;
}
