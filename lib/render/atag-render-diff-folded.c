// SPDX-License-Identifier: LGPL-2.1
/*
 * A diff as differential folded stacks, the two-column input of FlameGraph's
 * flamegraph.pl (as difffolded.pl writes it):
 *
 *   root;...;frame0;<call site> <before> <after>
 *
 * one line per (call site, stack) as in the report's folded output
 * (atag-render-folded.c): the frames without their offsets ("function[module]", as
 * the diff matches them), the call site written "function@file:line[module]" (or
 * "function[module]", "?" when unknown) as the leaf, standing for the stack's own
 * frame of the call site: the frames inside it (the allocator's) are left out, and a
 * stack that does not show the call site keeps every frame under it. The allocations of a call
 * site without a stack are a line of the call site alone. The two numbers are the
 * chosen weight before and after (normalised values with three decimals); lines
 * that weigh 0 on both sides are left out. A diff of more than one source roots
 * every line in a frame naming its source ("[kmem]", "[page]"), as the report's
 * folded output does. flamegraph.pl colours by the change:
 * give it a diff that kept the unchanged call sites and stacks.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "atag-report-diff.h"
#include "atag-render-diff.h"
#include "atag-render-samples.h"
#include "atag-utils.h"

static const int weight_counter[ATAG_V_NR] = {
	[ATAG_V_ALLOC_OBJECTS]	= ATAG_COUNTER_ALLOCS,
	[ATAG_V_ALLOC_SPACE]	= ATAG_COUNTER_BYTES_ALLOCED,
	[ATAG_V_INUSE_OBJECTS]	= ATAG_COUNTER_LIVE,
	[ATAG_V_INUSE_SPACE]	= ATAG_COUNTER_LIVE_BYTES,
};

static void put_frame(FILE *f, const char *s)
{
	atag_render_folded_name(f, s, SIZE_MAX);
}

static void put_site(FILE *f, const struct atag_diff_site *s)
{
	char buf[64];

	if (!s->function) {
		fputc('?', f);
		return;
	}
	put_frame(f, s->function);
	if (s->file) {
		fputc('@', f);
		put_frame(f, s->file);
		snprintf(buf, sizeof(buf), ":%ld", s->line);
		fputs(buf, f);
	}
	if (s->module) {
		fputc('[', f);
		put_frame(f, s->module);
		fputc(']', f);
	}
}

static void put_value(FILE *f, const struct atag_diff *d, uint64_t v, int side)
{
	if (atag_diff_normalised(d))
		fprintf(f, " %.3f", v / d->per[side]);
	else
		fprintf(f, " %" PRIu64, v);
}

/* A diff frame ("function", "function [module]") as folded names it: "function[module]". */
static void put_stack_frame(FILE *f, const char *frame)
{
	const char *mod = strstr(frame, " [");

	if (!mod) {
		put_frame(f, frame);
		return;
	}
	atag_render_folded_name(f, frame, mod - frame);
	put_frame(f, mod + 1);
}

/*
 * The innermost frame of @st in the call site's function, as the report's folded
 * output finds it (atag_render_site_index()), or -1: "function" or "function [module]".
 */
static int site_index(const struct atag_diff_site *s, const struct atag_diff_stack *st)
{
	size_t n = s->function ? strlen(s->function) : 0;
	unsigned int i;
	const char *fr;

	for (i = 0; n && i < st->nr_frames; i++) {
		fr = st->frames[i];
		if (!strncmp(fr, s->function, n) && (!fr[n] || !strncmp(fr + n, " [", 2)))
			return i;
	}
	return -1;
}

static void line(FILE *f, const struct atag_diff *d, const struct atag_diff_site *s,
		 const struct atag_diff_stack *st, const uint64_t *v)
{
	unsigned int i, first = 0;
	int at;

	if (!v[0] && !v[1])
		return;
	if (d->nr_sources > 1)
		fprintf(f, "[%s];", s->source);
	if (st) {
		at = site_index(s, st);
		first = at >= 0 ? (unsigned int)at + 1 : 0;
	}
	for (i = st ? st->nr_frames : 0; i-- > first;) {
		put_stack_frame(f, st->frames[i]);
		fputc(';', f);
	}
	put_site(f, s);
	put_value(f, d, v[0], 0);
	put_value(f, d, v[1], 1);
	fputc('\n', f);
}

static void site_lines(FILE *f, const struct atag_diff *d, const struct atag_diff_site *s,
		       const struct atag_counter_field *fl)
{
	uint64_t rest[2], v[2];
	size_t k;
	int i;

	for (i = 0; i < 2; i++)
		rest[i] = atag_counter_value(&s->counts[i], fl);
	for (k = 0; k < s->nr_stacks; k++) {
		if (!s->stacks[k]->nr_frames)
			continue;	/* stackless: with the call site alone */
		for (i = 0; i < 2; i++) {
			v[i] = atag_counter_value(&s->stacks[k]->counts[i], fl);
			rest[i] -= v[i] < rest[i] ? v[i] : rest[i];
		}
		line(f, d, s, s->stacks[k], v);
	}
	line(f, d, s, NULL, rest);
}

/**
 * atag_render_diff_folded - write a diff as differential folded stacks
 * @d: the diff (computed with the unchanged kept, for a complete flame graph)
 * @o: weight (alloc_space by default, alloc_objects, inuse_space, inuse_objects)
 *     and limit (call sites, 0 for all); NULL for defaults
 * @f: where to write
 *
 * Returns 0, -EINVAL for an unknown weight, or -EIO when writing failed.
 */
int atag_render_diff_folded(const struct atag_diff *d, const struct atag_render_opts *o,
			    FILE *f)
{
	int weight = atag_render_weight(o ? o->weight : NULL);
	size_t i, n = d->nr_sites;

	if (weight < 0)
		return weight;
	if (o && o->limit > 0 && (size_t)o->limit < n)
		n = o->limit;
	for (i = 0; i < n; i++)
		site_lines(f, d, d->sites[i], &atag_counter_fields[weight_counter[weight]]);
	return ferror(f) ? atag_err(-EIO) : 0;
}
