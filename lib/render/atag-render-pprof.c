// SPDX-License-Identifier: LGPL-2.1
/*
 * The report as a pprof heap profile: profile.proto (our subset in
 * lib/render/profile.proto), packed with protobuf-c, gzipped with zlib.
 *
 * Layout:
 *  - sample_type: alloc_objects/count, alloc_space/bytes, inuse_objects/count,
 *    inuse_space/bytes (Go's heap profile order); default_sample_type is the
 *    chosen weight (alloc_space unless told), period_type space/bytes with
 *    period 1 (every allocation traced, none sampled, as Go's MemProfileRate=1).
 *  - One sample per (call site, stack) of atag_render_for_each_sample() with the
 *    four values; location_id leaf first: the call site, then the stack's
 *    callers: the frames past the stack's own frame of the call site (which the
 *    call site stands for; the allocator's frames inside it are left out), or
 *    every frame when the stack does not show the call site. Every sample carries
 *    the string label source=<alloc_tag|kmem|page>, a module's call site also
 *    module=<name> (for -tagfocus). A report of more than one source (slab and
 *    page events, whose bytes overlap) roots every sample in a location named for
 *    its source, "[kmem]" or "[page]", so that no flame graph tower mixes them.
 *  - The call site is a location of its own, one per tag, whose function is
 *    named as atag_render_site_frame() writes it ("func@file:line[module]",
 *    so `pprof -top` ranks call sites), system_name the bare function, filename
 *    the source file, and whose line is the call site's line.
 *  - A stack frame "func+0xoff" is one location per function (and source line,
 *    with debug information: the function's filename and the line are set), with
 *    one line whose function is "func"; with keep_offsets one per distinct frame
 *    string. An unsymbolised "0x<addr>" frame is one location with that address.
 *  - No mappings: everything is symbolised already.
 *  - duration_nanos spans the first to the last event of the files; time_nanos
 *    stays 0, as trace timestamps are not wall-clock time in general.
 *  - comment: one per input file ("file: <path> (<sources>)", its sources joined
 *    by ", ") and one per notice
 *    of incomplete data ("incomplete: <notice>"), shown by `pprof -comments`.
 *  - string_table[0] is "", every string appears once.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <zlib.h>

#include "atag-render.h"
#include "atag-render-samples.h"
#include "atag-map.h"
#include "atag-report.h"
#include "atag-utils.h"
#include "profile.pb-c.h"

/* A location and its one line. */
struct pp_location {
	Pprof__Location		loc;
	Pprof__Line		line;
	Pprof__Line		*lines[1];
};

/* A sample and what it points to. */
struct pp_sample {
	Pprof__Sample		s;
	int64_t			values[ATAG_V_NR];
	Pprof__Label		label[2];
	Pprof__Label		*labels[2];
	uint64_t		ids[];
};

struct pprof {
	Pprof__Profile		prof;
	Pprof__ValueType	types[ATAG_V_NR];
	Pprof__ValueType	*type_ptrs[ATAG_V_NR];
	Pprof__ValueType	period_type;
	size_t			cap_strings;
	size_t			cap_functions;
	size_t			cap_locations;
	size_t			cap_samples;
	size_t			cap_comments;
	GHashTable		*strings;	/* string (owned by string_table) -> index */
	GHashTable		*frames;	/* frame key (owned) -> location id */
	bool			keep_offsets;
	struct atag_map		functions;	/* name << 32 | filename -> function id */
	uint64_t		*sites;		/* per tag index: location id, 0 for none yet */
	const struct atag_report *r;
	bool			nomem;		/* an intern() failed */
};

/* Room for one more element in the array *@arrp of @nr elements of @size bytes. */
static int grow(void *arrp, size_t nr, size_t *cap, size_t size)
{
	void **arr = arrp, *n;
	size_t c;

	if (nr < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	n = realloc(*arr, c * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = c;
	return 0;
}

/* The index of @s in the string table, added if new; out of memory: 0 and p->nomem. */
static int64_t intern(struct pprof *p, const char *s)
{
	Pprof__Profile *pr = &p->prof;
	gpointer idx;
	char *copy;

	if (g_hash_table_lookup_extended(p->strings, s, NULL, &idx))
		return GPOINTER_TO_SIZE(idx);
	copy = strdup(s);
	if (!copy || grow(&pr->string_table, pr->n_string_table, &p->cap_strings, sizeof(char *))) {
		free(copy);
		p->nomem = true;
		return 0;
	}
	pr->string_table[pr->n_string_table] = copy;
	g_hash_table_insert(p->strings, copy, GSIZE_TO_POINTER(pr->n_string_table));
	return pr->n_string_table++;
}

static int add_comment(struct pprof *p, const char *prefix, const char *text)
{
	Pprof__Profile *pr = &p->prof;
	int64_t idx;
	char *s;

	if (asprintf(&s, "%s%s", prefix, text) < 0)
		return -ENOMEM;
	idx = intern(p, s);
	free(s);
	if (grow(&pr->comment, pr->n_comment, &p->cap_comments, sizeof(int64_t)))
		return -ENOMEM;
	pr->comment[pr->n_comment++] = idx;
	return 0;
}

/* The id of the function (@name, @file), added if new; 0 when out of memory. */
static uint64_t function_id(struct pprof *p, const char *name, const char *sys, const char *file)
{
	int64_t n = intern(p, name), s = intern(p, sys), fl = intern(p, file ? file : "");
	Pprof__Profile *pr = &p->prof;
	Pprof__Function *fn;
	uint64_t *id;
	bool created;

	if (p->nomem || grow(&pr->function, pr->n_function, &p->cap_functions, sizeof(fn)))
		return 0;
	id = atag_map_get(&p->functions, (uint64_t)n << 32 | fl, pr->n_function + 1, &created);
	if (!id || !created)
		return id ? *id : 0;
	fn = malloc(sizeof(*fn));
	if (!fn)
		return 0;
	pprof__function__init(fn);
	fn->id = *id;
	fn->name = n;
	fn->system_name = s;
	fn->filename = fl;
	pr->function[pr->n_function++] = fn;
	return fn->id;
}

/* A new location with one line; its id, or 0 when out of memory. */
static uint64_t new_location(struct pprof *p, uint64_t function_id, long line, uint64_t addr)
{
	Pprof__Profile *pr = &p->prof;
	struct pp_location *l;

	if (!function_id || grow(&pr->location, pr->n_location, &p->cap_locations, sizeof(l)))
		return 0;
	l = malloc(sizeof(*l));
	if (!l)
		return 0;
	pprof__location__init(&l->loc);
	pprof__line__init(&l->line);
	l->line.function_id = function_id;
	l->line.line = line > 0 ? line : 0;
	l->lines[0] = &l->line;
	l->loc.n_line = 1;
	l->loc.line = l->lines;
	l->loc.address = addr;
	l->loc.id = pr->n_location + 1;
	pr->location[pr->n_location++] = &l->loc;
	return l->loc.id;
}

/* "file:line" into @file (malloc'ed) and the line; 0 when there is none. */
static long split_line(const char *fl, char **file)
{
	const char *colon = fl ? strrchr(fl, ':') : NULL;

	*file = colon ? strndup(fl, colon - fl) : NULL;
	return *file ? strtol(colon + 1, NULL, 10) : 0;
}

/* The location of frame @frame (with source line @fl "file:line", or NULL). */
static uint64_t frame_location(struct pprof *p, const char *frame, const char *fl)
{
	char *name, *key, *file = NULL;
	uint64_t id, addr = 0;
	gpointer found;
	long line;

	name = strndup(frame, strcspn(frame, "+"));
	if (!name)
		return 0;
	if (p->keep_offsets || !strncmp(frame, "0x", 2))
		key = g_strdup(frame);
	else
		key = g_strdup_printf("%s\x1f%s", name, fl ? fl : "");
	if (g_hash_table_lookup_extended(p->frames, key, NULL, &found)) {
		g_free(key);
		free(name);
		return GPOINTER_TO_SIZE(found);
	}
	if (!strncmp(frame, "0x", 2) && !strchr(frame, '+'))
		addr = strtoull(frame, NULL, 16);
	line = split_line(fl, &file);
	id = new_location(p, function_id(p, name, name, file), line, addr);
	free(name);
	free(file);
	if (id)
		g_hash_table_insert(p->frames, key, GSIZE_TO_POINTER(id));
	else
		g_free(key);
	return id;
}

static uint64_t site_location(struct pprof *p, size_t tag_idx)
{
	const struct atag_report_tag *t = p->r->tags[tag_idx];
	char label[1024];

	if (!p->sites[tag_idx]) {
		atag_render_site_frame(t, label, sizeof(label));
		p->sites[tag_idx] = new_location(p, function_id(p, label, t->function ?
								t->function : label, t->file),
						 t->line, 0);
	}
	return p->sites[tag_idx];
}

static int add_sample(void *ctx, const struct atag_render_sample *s)
{
	int at = atag_render_site_index(s), k;
	unsigned int i, first = at >= 0 ? (unsigned int)at + 1 : 0;
	unsigned int nr = 1 + (s->stack ? s->stack->nr_frames - first : 0);
	struct pprof *p = ctx;
	Pprof__Profile *pr = &p->prof;
	struct pp_sample *ps;
	const char *root;
	char buf[64];
	size_t n;

	root = atag_render_source_root(p->r, s, buf, sizeof(buf));
	if (root)
		nr++;

	if (grow(&pr->sample, pr->n_sample, &p->cap_samples, sizeof(ps)))
		return -ENOMEM;
	ps = malloc(sizeof(*ps) + nr * sizeof(ps->ids[0]));
	if (!ps)
		return -ENOMEM;
	pprof__sample__init(&ps->s);
	pr->sample[pr->n_sample++] = &ps->s;
	ps->ids[0] = site_location(p, s->tag_idx);
	for (i = 1; i < nr - (root ? 1 : 0); i++) {
		k = first + i - 1;
		ps->ids[i] = frame_location(p, s->stack->frames[k],
					    s->stack->lines ? s->stack->lines[k] : NULL);
	}
	if (root)
		ps->ids[nr - 1] = frame_location(p, root, NULL);
	for (i = 0; i < nr; i++)
		if (!ps->ids[i])
			return -ENOMEM;
	for (k = 0; k < ATAG_V_NR; k++)
		ps->values[k] = s->v[k] > INT64_MAX ? INT64_MAX : (int64_t)s->v[k];
	ps->s.n_location_id = nr;
	ps->s.location_id = ps->ids;
	ps->s.n_value = ATAG_V_NR;
	ps->s.value = ps->values;
	for (n = 0; n < 2; n++)
		pprof__label__init(&ps->label[n]);
	n = 0;
	ps->label[n].key = intern(p, "source");
	ps->label[n].str = intern(p, s->tag->source);
	ps->labels[n] = &ps->label[n];
	n++;
	if (s->tag->module) {
		ps->label[n].key = intern(p, "module");
		ps->label[n].str = intern(p, s->tag->module);
		ps->labels[n] = &ps->label[n];
		n++;
	}
	ps->s.n_label = n;
	ps->s.label = ps->labels;
	return p->nomem ? -ENOMEM : 0;
}

static void set_value_type(struct pprof *p, Pprof__ValueType *vt, const char *type,
			   const char *unit)
{
	pprof__value_type__init(vt);
	vt->type = intern(p, type);
	vt->unit = intern(p, unit);
}

static void set_duration(struct pprof *p)
{
	const struct atag_report *r = p->r;
	uint64_t first = UINT64_MAX, last = 0;
	unsigned int i;

	for (i = 0; i < r->nr_files; i++) {
		if (r->files[i].first_ts < first)
			first = r->files[i].first_ts;
		if (r->files[i].last_ts > last)
			last = r->files[i].last_ts;
	}
	if (last > first && last - first <= INT64_MAX)
		p->prof.duration_nanos = last - first;
}

static int profile_header(struct pprof *p, int weight)
{
	const struct atag_report *r = p->r;
	unsigned int i;
	int k, ret = 0;

	intern(p, "");
	for (k = 0; k < ATAG_V_NR; k++) {
		set_value_type(p, &p->types[k], atag_render_value_name(k),
			       atag_render_value_unit(k));
		p->type_ptrs[k] = &p->types[k];
	}
	p->prof.n_sample_type = ATAG_V_NR;
	p->prof.sample_type = p->type_ptrs;
	set_value_type(p, &p->period_type, "space", "bytes");
	p->prof.period_type = &p->period_type;
	p->prof.period = 1;
	p->prof.default_sample_type = intern(p, atag_render_value_name(weight));
	set_duration(p);
	for (i = 0; i < r->nr_files && !ret; i++) {
		const struct atag_report_file *rf = &r->files[i];
		GString *s = g_string_new(rf->path);
		unsigned int j;

		g_string_append(s, " (");
		for (j = 0; j < rf->nr_sources; j++)
			g_string_append_printf(s, "%s%s", j ? ", " : "", rf->sources[j]);
		if (!rf->nr_sources)
			g_string_append(s, rf->source);
		g_string_append_c(s, ')');
		ret = add_comment(p, "file: ", s->str);
		g_string_free(s, TRUE);
	}
	for (i = 0; i < r->nr_notices && !ret; i++)
		ret = add_comment(p, "incomplete: ", r->notices[i]);
	return ret ? ret : p->nomem ? -ENOMEM : 0;
}

/* Write @len bytes of @data gzip-compressed to @f. */
static int gzip_write(const uint8_t *data, size_t len, FILE *f)
{
	unsigned char out[16384];
	z_stream z = { 0 };
	int zret, ret = 0;
	size_t n;

	if (len > UINT32_MAX)
		return -EFBIG;
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)data;
	z.avail_in = len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zret = deflate(&z, Z_FINISH);
		n = sizeof(out) - z.avail_out;
		if ((zret != Z_OK && zret != Z_STREAM_END) || fwrite(out, 1, n, f) != n) {
			ret = -EIO;
			break;
		}
	} while (zret != Z_STREAM_END);
	deflateEnd(&z);
	return ret;
}

static int pack_gzip(const Pprof__Profile *pr, FILE *f)
{
	size_t len = pprof__profile__get_packed_size(pr);
	uint8_t *buf = malloc(len ? len : 1);
	int ret;

	if (!buf)
		return -ENOMEM;
	pprof__profile__pack(pr, buf);
	ret = gzip_write(buf, len, f);
	free(buf);
	return ret;
}

static void pprof_free(struct pprof *p)
{
	Pprof__Profile *pr = &p->prof;
	size_t i;

	for (i = 0; i < pr->n_string_table; i++)
		free(pr->string_table[i]);
	for (i = 0; i < pr->n_function; i++)
		free(pr->function[i]);
	for (i = 0; i < pr->n_location; i++)
		free((struct pp_location *)pr->location[i]);
	for (i = 0; i < pr->n_sample; i++)
		free((struct pp_sample *)pr->sample[i]);
	free(pr->string_table);
	free(pr->function);
	free(pr->location);
	free(pr->sample);
	free(pr->comment);
	if (p->strings)
		g_hash_table_destroy(p->strings);
	if (p->frames)
		g_hash_table_destroy(p->frames);
	atag_map_free(&p->functions);
	free(p->sites);
}

/**
 * atag_render_pprof - write the report as a gzipped pprof heap profile
 * @r: the finished report
 * @o: options: weight (the default sample type: alloc_space unless told,
 *     alloc_objects, inuse_space, inuse_objects), limit (how many call sites,
 *     0 for all), keep_offsets; NULL for defaults
 * @f: where to write (binary)
 *
 * The layout is described at the top of lib/render/atag-render-pprof.c.
 *
 * Returns 0, -EINVAL for an unknown weight, -ENOMEM, or -EIO when writing
 * failed (errno set).
 */
int atag_render_pprof(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	struct pprof p = { .r = r };
	int weight, ret;

	weight = atag_render_weight(o ? o->weight : NULL);
	if (weight < 0)
		return weight;
	pprof__profile__init(&p.prof);
	p.strings = g_hash_table_new(g_str_hash, g_str_equal);
	p.frames = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	p.keep_offsets = o && o->keep_offsets;
	p.sites = calloc(r->nr_tags ? r->nr_tags : 1, sizeof(*p.sites));
	ret = p.sites ? profile_header(&p, weight) : -ENOMEM;
	if (!ret)
		ret = atag_render_for_each_sample(r, o ? o->limit : 0, add_sample, &p);
	if (!ret)
		ret = pack_gzip(&p.prof, f);
	if (!ret && ferror(f))
		ret = -EIO;
	pprof_free(&p);
	return ret ? atag_err(ret) : 0;
}
