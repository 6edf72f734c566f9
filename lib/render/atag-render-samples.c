// SPDX-License-Identifier: LGPL-2.1
/*
 * A report as weighted samples, what the folded and pprof renderers share.
 *
 * A sample is one (call site, stack) pair with pprof's four heap values:
 * alloc_objects, alloc_space, inuse_objects, inuse_space. A tag gives one sample
 * per stack that has frames, then one for the call site alone carrying the rest
 * of the tag's totals: its allocations without a stack (the empty stack, or
 * none recorded). So the samples of a tag add up to the tag's totals.
 * When its source's stacks were sampled, the stacks' values are their estimates,
 * their shares of the call site (atag_report_stack_estimate(), rounded so that they
 * add up): they add up to the call site's, and the rest is what none of the sampled
 * allocations had (live bytes when all of them were freed), not what the sampling
 * passed over.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "atag-render-samples.h"
#include "atag-report.h"
#include "atag-utils.h"

static const struct {
	const char	*name;
	const char	*unit;
} values[ATAG_V_NR] = {
	[ATAG_V_ALLOC_OBJECTS]	= { "alloc_objects", "count" },
	[ATAG_V_ALLOC_SPACE]	= { "alloc_space", "bytes" },
	[ATAG_V_INUSE_OBJECTS]	= { "inuse_objects", "count" },
	[ATAG_V_INUSE_SPACE]	= { "inuse_space", "bytes" },
};

/**
 * atag_render_value_name - pprof's name of a sample value
 * @v: the value
 *
 * Returns "alloc_objects", "alloc_space", "inuse_objects" or "inuse_space".
 */
const char *atag_render_value_name(enum atag_render_value v)
{
	return values[v].name;
}

/**
 * atag_render_value_unit - the unit of a sample value
 * @v: the value
 *
 * Returns "count" or "bytes".
 */
const char *atag_render_value_unit(enum atag_render_value v)
{
	return values[v].unit;
}

/**
 * atag_render_weight - the sample value a weight name selects
 * @name: one of the value names, or NULL for alloc_space
 *
 * Returns an enum atag_render_value, or -EINVAL (errno set) for an unknown name.
 */
int atag_render_weight(const char *name)
{
	int v;

	if (!name)
		return ATAG_V_ALLOC_SPACE;
	for (v = 0; v < ATAG_V_NR; v++)
		if (!strcmp(name, values[v].name))
			return v;
	return atag_err(-EINVAL);
}

/* pprof's four heap values of a call site or a stack. */
static void sample_values(const struct atag_counters *c, uint64_t *v)
{
	v[ATAG_V_ALLOC_OBJECTS] = c->allocs;
	v[ATAG_V_ALLOC_SPACE] = c->bytes_alloced;
	v[ATAG_V_INUSE_OBJECTS] = c->live;
	v[ATAG_V_INUSE_SPACE] = c->live_bytes;
}

static int tag_samples(const struct atag_report *r, size_t i,
		       int (*fn)(void *ctx, const struct atag_render_sample *s), void *ctx)
{
	struct atag_render_sample s = { .tag = r->tags[i], .tag_idx = i };
	const struct atag_report_tag *t = r->tags[i];
	struct atag_counters est;
	uint64_t rest[ATAG_V_NR];
	bool any = false;
	size_t j;
	int k, ret;

	sample_values(&t->counts, rest);
	for (j = 0; j < t->nr_stacks; j++) {
		if (!t->stacks[j]->nr_frames)
			continue;	/* stackless: counted with the call site alone */
		s.stack = t->stacks[j];
		/* a sampled stack stands for its share of the call site */
		atag_report_stack_estimate(r, t, s.stack, &est);
		sample_values(&est, s.v);
		for (k = 0; k < ATAG_V_NR; k++)
			rest[k] -= s.v[k] < rest[k] ? s.v[k] : rest[k];
		ret = fn(ctx, &s);
		if (ret)
			return ret;
	}
	s.stack = NULL;
	for (k = 0; k < ATAG_V_NR; k++) {
		s.v[k] = rest[k];
		any |= rest[k] != 0;
	}
	return any ? fn(ctx, &s) : 0;
}

/**
 * atag_render_for_each_sample - walk the samples of the selected tags
 * @r: the finished report
 * @limit: how many selected tags, 0 for all
 * @fn: called for each sample; a non-zero return stops the walk
 * @ctx: passed to @fn
 *
 * Tags come in report order, a tag's stacks in their order, the call site alone
 * last and only when one of its values is not zero.
 *
 * Returns 0, or the first non-zero return of @fn.
 */
int atag_render_for_each_sample(const struct atag_report *r, long limit,
				int (*fn)(void *ctx, const struct atag_render_sample *s),
				void *ctx)
{
	long done = 0;
	size_t i;
	int ret;

	for (i = 0; i < r->nr_tags && (limit <= 0 || done < limit); i++) {
		if (!r->tags[i]->selected)
			continue;
		done++;
		ret = tag_samples(r, i, fn, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * atag_render_site_frame - a call site written as one frame
 * @t: the tag
 * @buf: where to write
 * @len: size of @buf
 *
 * "function@file:line" (or "function@file" without a line, "function+0xoff"
 * without a file, "function" without either), "0x<tag>" when the function is
 * unknown; "[module]" follows for a module's call site.
 *
 * Returns @buf.
 */
const char *atag_render_source_root(const struct atag_report *r,
				    const struct atag_render_sample *s, char *buf, size_t len)
{
	if (r->nr_sources < 2)
		return NULL;
	snprintf(buf, len, "[%s]", s->tag->source);
	return buf;
}

char *atag_render_site_frame(const struct atag_report_tag *t, char *buf, size_t len)
{
	char name[32] = "", where[32] = "";

	if (!t->function)
		snprintf(name, sizeof(name), "0x%" PRIx64, t->tag);
	if (t->function && t->file && t->line >= 0)
		snprintf(where, sizeof(where), ":%ld", t->line);
	else if (t->function && !t->file && t->offset >= 0)
		snprintf(where, sizeof(where), "+0x%llx", (unsigned long long)t->offset);
	snprintf(buf, len, "%s%s%s%s%s%s%s", t->function ? t->function : name,
		 t->function && t->file ? "@" : "", t->function && t->file ? t->file : "",
		 where, t->module ? "[" : "", t->module ? t->module : "", t->module ? "]" : "");
	return buf;
}

void atag_render_folded_name(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strnlen(s, len);
	size_t n;

	while (p < end) {
		if (*p < 0x80) {
			fputc(*p == ';' || *p == ' ' || *p < 0x20 || *p == 0x7f ? '_' : *p, f);
			p++;
			continue;
		}
		n = atag_utf8_len(p);
		if (n > (size_t)(end - p))
			n = 0;
		/* not UTF-8, or a C1 control (U+0080 .. U+009F: 0xc2 0x80 .. 0xc2 0x9f) */
		if (!n || (p[0] == 0xc2 && p[1] < 0xa0)) {
			fputc('_', f);
			p += n ? n : 1;
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
}

/**
 * atag_render_site_index - where a sample's stack reaches its call site
 * @s: the sample
 *
 * The innermost frame of the stack that is the call site: the frame at the
 * call site's address (function and offset, for sources whose tags are code
 * addresses), or the innermost frame in the call site's function (alloc_tag).
 * The frames inside it (the allocator's) are not the call site's callers.
 *
 * Returns its index, or -1 when the stack does not show the call site.
 */
int atag_render_site_index(const struct atag_render_sample *s)
{
	const struct atag_report_tag *t = s->tag;
	char want[512];
	unsigned int i;
	size_t n;

	if (!s->stack || !t->function)
		return -1;
	if (t->offset >= 0)
		n = snprintf(want, sizeof(want), "%s+0x%llx", t->function,
			     (unsigned long long)t->offset);
	else
		n = snprintf(want, sizeof(want), "%s+", t->function);
	if (n >= sizeof(want))
		return -1;
	for (i = 0; i < s->stack->nr_frames; i++) {
		const char *f = s->stack->frames[i];

		if (!strncmp(f, want, n) && (t->offset < 0 || !f[n] || f[n] == ' '))
			return i;
	}
	return -1;
}

/**
 * atag_render_frame_name - a frame as folded and pprof name it
 * @frame: the report's frame ("function+0xoff", "function+0xoff [module]", "0x<addr>")
 * @keep_offsets: the frame as it is
 * @buf: where to write
 * @len: size of @buf
 *
 * The function, and "[module]" after it for a module's ("function[module]"):
 * the offsets of one function are one frame.
 *
 * Returns @buf.
 */
char *atag_render_frame_name(const char *frame, bool keep_offsets, char *buf, size_t len)
{
	size_t n = strlen(frame), end = n, i;
	const char *mod = NULL;

	/* " [module]" at the end, then "+0x<hex>" before it */
	if (n > 3 && frame[n - 1] == ']') {
		mod = strstr(frame, " [");
		while (mod && strstr(mod + 2, " ["))
			mod = strstr(mod + 2, " [");
		if (mod)
			end = mod - frame;
	}
	for (i = end; i > 2 && isxdigit((unsigned char)frame[i - 1]); i--)
		;
	if (keep_offsets || i == end || i < 3 || strncmp(frame + i - 3, "+0x", 3))
		snprintf(buf, len, "%s", frame);
	else
		snprintf(buf, len, "%.*s%s", (int)(i - 3), frame, mod ? mod + 1 : "");
	return buf;
}
