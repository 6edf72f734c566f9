/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-render-samples.h - what the sample renderers (folded, pprof) share, internal
 * to lib/render/.
 */
#ifndef _ATAG_RENDER_SAMPLES_H
#define _ATAG_RENDER_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

/*
 * What the sample renderers (folded, pprof) share: atag-render-samples.c.
 * A sample is one (call site, stack) with pprof's four heap values; the stack is
 * NULL for the call site alone, which carries what the tag's stacks with frames
 * do not (stackless allocations).
 */
enum atag_render_value {
	ATAG_V_ALLOC_OBJECTS,	/* allocs */
	ATAG_V_ALLOC_SPACE,	/* bytes_alloced */
	ATAG_V_INUSE_OBJECTS,	/* live */
	ATAG_V_INUSE_SPACE,	/* live_bytes */
	ATAG_V_NR
};

struct atag_report;
struct atag_report_tag;
struct atag_report_stack;

struct atag_render_sample {
	const struct atag_report_tag	*tag;
	size_t				tag_idx;	/* in report->tags */
	const struct atag_report_stack	*stack;		/* NULL: the call site alone */
	uint64_t			v[ATAG_V_NR];
};

/* pprof's name of a value ("alloc_space") and its unit ("bytes"). */
const char *atag_render_value_name(enum atag_render_value v) __hidden;
const char *atag_render_value_unit(enum atag_render_value v) __hidden;

/* The value a weight name selects; NULL is alloc_space. -EINVAL (errno too) if unknown. */
int atag_render_weight(const char *name) __hidden;

/*
 * Call @fn for every sample of the first @limit (0: all) selected tags, in tag
 * order and then stack order, the call site alone last (only if not all zero).
 * Stops at and returns the first non-zero return of @fn.
 */
int atag_render_for_each_sample(const struct atag_report *r, long limit,
				int (*fn)(void *ctx, const struct atag_render_sample *s),
				void *ctx) __hidden;

/*
 * The root frame of @s when @r reports more than one source (slab and page events):
 * "[kmem]", "[page]", so that each source is a tower of its own and says which it
 * is; NULL for one source. In @buf.
 */
const char *atag_render_source_root(const struct atag_report *r,
				    const struct atag_render_sample *s, char *buf,
				    size_t len) __hidden;

/*
 * The call site as one frame: "function@file:line", "function@file",
 * "function+0xoff" or "function" as far as known, else "0x<tag>"; "[module]"
 * appended for a module's tag. Returns @buf.
 */
char *atag_render_site_frame(const struct atag_report_tag *t, char *buf, size_t len) __hidden;

/*
 * Where the stack of @s shows its call site: the index of that frame; the frames
 * before it (inside it: the allocator's) are left out, the call site is the leaf
 * and the frames after it its callers. -1: the stack does not show it (then the
 * call site is a leaf of its own, after every frame).
 */
int atag_render_site_index(const struct atag_render_sample *s) __hidden;

/*
 * A frame as folded and pprof write it: "function" ("function[module]"), the
 * offsets of a function one frame; the frame as it is with @keep_offsets.
 */
char *atag_render_frame_name(const char *frame, bool keep_offsets, char *buf, size_t len) __hidden;

/*
 * Write the first @len bytes of @s (up to its NUL) as a folded frame, to @f: what
 * the format cannot carry becomes '_' (';', spaces, C0 and C1 controls, DEL), so
 * does each byte of no well-formed UTF-8 sequence (flamegraph.pl copies the names
 * into an SVG, which must be UTF-8).
 */
void atag_render_folded_name(FILE *f, const char *s, size_t len) __hidden;

#endif /* _ATAG_RENDER_SAMPLES_H */
