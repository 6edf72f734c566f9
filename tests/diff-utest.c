// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the diff of two reports (lib/report/atag-report-diff.c) on hand-built
 * reports: matching by stable identity (no addresses, no offsets), frames without
 * offsets, the unknown call sites, statuses, sorting, normalisation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-utest.h"
#include "atag-report-diff.h"
#include "atag-report.h"
#include "atag-sort.h"

/* A call site of @r: tag pointer, names (NULL: unknown), offset, allocs, live, live bytes. */
static struct atag_report_tag *add_tag(struct atag_report *r, uint64_t tag, const char *fn,
				       const char *file, long line, const char *mod,
				       long long offset, uint64_t allocs, uint64_t live,
				       uint64_t live_bytes)
{
	struct atag_report_tag *t = calloc(1, sizeof(*t));

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	r->tags = realloc(r->tags, (r->nr_tags + 1) * sizeof(*r->tags));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->tags);
	r->tags[r->nr_tags++] = t;
	t->tag = tag;
	t->function = fn ? strdup(fn) : NULL;
	t->file = file ? strdup(file) : NULL;
	t->module = mod ? strdup(mod) : NULL;
	t->line = line;
	t->offset = offset;
	t->counts.allocs = allocs;
	t->counts.live = live;
	t->counts.live_bytes = live_bytes;
	t->counts.bytes_alloced = live_bytes;
	t->counts.peak_live_bytes = live_bytes;
	t->selected = true;
	return t;
}

/* A stack of @t with @nr frames of @frames, and @allocs of its allocations. */
static void add_stack(struct atag_report_tag *t, const char * const *frames, unsigned int nr,
		      uint64_t allocs)
{
	struct atag_report_stack *s = calloc(1, sizeof(*s));
	unsigned int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	t->stacks = realloc(t->stacks, (t->nr_stacks + 1) * sizeof(*t->stacks));
	t->stacks[t->nr_stacks++] = s;
	/* the names are the report's, never freed with a stack (atag-report.h): literals */
	s->frames = calloc(nr + 1, sizeof(*s->frames));
	for (i = 0; i < nr; i++)
		s->frames[i] = (char *)frames[i];
	s->nr_frames = nr;
	s->counts.allocs = allocs;
}

static struct atag_report *new_report(uint64_t first_ts, uint64_t last_ts)
{
	struct atag_report *r = atag_report_alloc(NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	r->files = calloc(1, sizeof(*r->files));
	r->files[0].path = strdup("x.dat");
	r->files[0].buffer = strdup("");
	r->files[0].source = "kmem";
	r->files[0].first_ts = first_ts;
	r->files[0].last_ts = last_ts;
	r->nr_files = 1;
	return r;
}

static struct atag_diff *compute(struct atag_report *a, struct atag_report *b,
				 const struct atag_diff_opts *o)
{
	struct atag_diff *d = NULL;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(atag_report_finish(a, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(atag_report_finish(b, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(atag_diff_compute(a, b, o, &d, err, sizeof(err)), 0);
	return d;
}

static const struct atag_diff_site *find(const struct atag_diff *d, const char *fn)
{
	size_t i;

	for (i = 0; i < d->nr_sites; i++)
		if ((!fn && !d->sites[i]->function) ||
		    (fn && d->sites[i]->function && !strcmp(d->sites[i]->function, fn)))
			return d->sites[i];
	return NULL;
}

/* kmem call sites: function and module, never the offset or the address */
static void test_kmem_identity(void)
{
	static const char * const f1[] = { "kmem_cache_alloc_noprof+0x1a", "alloc_empty_file+0x45",
					   "path_openat+0x30", "foo_ioctl+0x10 [foo]" };
	static const char * const f2[] = { "kmem_cache_alloc_noprof+0x22", "alloc_empty_file+0x50",
					   "path_openat+0x38", "foo_ioctl+0x18 [foo]" };
	struct atag_report *a = new_report(0, 1000), *b = new_report(0, 1000);
	struct atag_diff_opts o = { .unchanged = true };
	const struct atag_diff_site *s;
	struct atag_report_tag *t;
	struct atag_diff *d;

	t = add_tag(a, 0xffffffff81234545, "alloc_empty_file", NULL, -1, NULL, 0x45, 5, 2, 512);
	t->counts.peak_live_bytes = 256;
	add_stack(t, f1, 4, 5);
	/* another boot and build: another address, another offset, two call sites */
	t = add_tag(b, 0xffffffffa3234550, "alloc_empty_file", NULL, -1, NULL, 0x50, 3, 1, 256);
	add_stack(t, f2, 4, 3);
	t = add_tag(b, 0xffffffffa3234590, "alloc_empty_file", NULL, -1, NULL, 0x90, 2, 1, 256);
	add_stack(t, f2, 4, 2);
	/* the same function in a module is another call site */
	add_tag(b, 0xffffffffc0001000, "alloc_empty_file", NULL, -1, "foo", 0x10, 1, 1, 8);
	d = compute(a, b, &o);
	CU_ASSERT_EQUAL_FATAL(d->nr_sites, 2);
	/* the largest change first: the new one in the module */
	s = d->sites[1];
	CU_ASSERT_STRING_EQUAL(s->function, "alloc_empty_file");
	CU_ASSERT_PTR_NULL(s->module);
	CU_ASSERT_EQUAL(s->status, ATAG_DIFF_SAME);
	CU_ASSERT_EQUAL(s->nr_sites[0], 1);
	CU_ASSERT_EQUAL(s->nr_sites[1], 2);
	CU_ASSERT_EQUAL(s->counts[1].allocs, 5);
	CU_ASSERT_EQUAL(s->counts[1].live_bytes, 512);
	/* peaks of two call sites do not add: the higher one is kept */
	CU_ASSERT_EQUAL(s->counts[1].peak_live_bytes, 256);
	CU_ASSERT_EQUAL_FATAL(s->nr_stacks, 1);
	CU_ASSERT_EQUAL_FATAL(s->stacks[0]->nr_frames, 4);
	CU_ASSERT_STRING_EQUAL(s->stacks[0]->frames[0], "kmem_cache_alloc_noprof");
	CU_ASSERT_STRING_EQUAL(s->stacks[0]->frames[3], "foo_ioctl [foo]");
	CU_ASSERT_EQUAL(s->stacks[0]->counts[0].allocs, 5);
	CU_ASSERT_EQUAL(s->stacks[0]->counts[1].allocs, 5);
	CU_ASSERT_EQUAL(s->stacks[0]->status, ATAG_DIFF_SAME);
	s = d->sites[0];
	CU_ASSERT_STRING_EQUAL(s->module, "foo");
	CU_ASSERT_EQUAL(s->status, ATAG_DIFF_APPEARED);
	CU_ASSERT_EQUAL(d->nr_same, 1);
	CU_ASSERT_EQUAL(d->nr_appeared, 1);
	atag_diff_free(d);
	atag_report_free(a);
	atag_report_free(b);
}

/* alloc_tag call sites: the line is part of the identity; unnamed ones are one row */
static void test_tag_identity(void)
{
	static const char * const unknown[] = { "0xffffffff81000010", "do_thing+0x20" };
	struct atag_report *a = new_report(0, 1000), *b = new_report(0, 1000);
	const struct atag_diff_site *s;
	struct atag_report_tag *t;
	struct atag_diff *d;
	char name[128];

	add_tag(a, 0x100, "foo_alloc", "drivers/foo.c", 12, "foo", -1, 4, 1, 64);
	add_tag(b, 0x900, "foo_alloc", "drivers/foo.c", 13, "foo", -1, 4, 1, 64);
	add_tag(a, 0x200, NULL, NULL, -1, NULL, -1, 1, 1, 8);
	t = add_tag(b, 0x300, NULL, NULL, -1, NULL, -1, 2, 1, 8);
	add_stack(t, unknown, 2, 2);
	add_tag(b, 0x400, NULL, NULL, -1, NULL, -1, 3, 0, 0);
	d = compute(a, b, NULL);
	CU_ASSERT_EQUAL(d->nr_sites, 3);
	CU_ASSERT_EQUAL(d->nr_gone, 1);
	CU_ASSERT_EQUAL(d->nr_appeared, 1);
	CU_ASSERT_EQUAL(d->nr_changed, 1);
	s = find(d, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(atag_diff_site_name(s, name, sizeof(name)), "(unknown call site)");
	CU_ASSERT_EQUAL(s->nr_sites[1], 2);
	CU_ASSERT_EQUAL(s->counts[1].allocs, 5);
	CU_ASSERT_EQUAL(s->status, ATAG_DIFF_CHANGED);
	CU_ASSERT_EQUAL_FATAL(s->nr_stacks, 1);
	CU_ASSERT_STRING_EQUAL(s->stacks[0]->frames[0], "?");
	CU_ASSERT_STRING_EQUAL(s->stacks[0]->frames[1], "do_thing");
	CU_ASSERT_EQUAL(s->stacks[0]->status, ATAG_DIFF_APPEARED);
	/* the live bytes of both foo_alloc rows changed by 64: the gone one sorts first,
	 * the unknown (no change of live bytes) last */
	CU_ASSERT_EQUAL(d->sites[0]->status, ATAG_DIFF_GONE);
	CU_ASSERT_EQUAL(d->sites[0]->line, 12);
	CU_ASSERT_STRING_EQUAL(atag_diff_site_name(d->sites[1], name, sizeof(name)),
			       "foo_alloc drivers/foo.c:13 [foo]");
	CU_ASSERT_PTR_NULL(d->sites[2]->function);
	atag_diff_free(d);
	atag_report_free(a);
	atag_report_free(b);
}

/* normalisation scales counts and sizes, not lifetimes; changes are exact without it */
static void test_normalise(void)
{
	struct atag_report *a = new_report(1000, 2000001000), *b = new_report(0, 4000000000);
	struct atag_diff_opts o = { .norm = ATAG_DIFF_NORM_DURATION };
	const struct atag_counter_field *allocs = &atag_counter_fields[ATAG_COUNTER_ALLOCS];
	const struct atag_diff_site *s;
	struct atag_report_tag *t;
	struct atag_diff *d;
	char err[256];
	uint64_t ns;

	t = add_tag(a, 1, "f", NULL, -1, NULL, 0, 10, 0, 0);
	atag_lifetime_add(&t->lifetimes, 5000);
	t = add_tag(b, 2, "f", NULL, -1, NULL, 0, 20, 0, 0);
	atag_lifetime_add(&t->lifetimes, 5000);
	d = compute(a, b, &o);
	CU_ASSERT_EQUAL(d->duration_ns[0], 2000000000);
	CU_ASSERT_EQUAL(d->duration_ns[1], 4000000000);
	s = d->sites ? find(d, "f") : NULL;
	/* 10 in 2 s, 20 in 4 s: the same rate, nothing changed */
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(d->nr_same, 1);
	atag_diff_free(d);

	o.norm = ATAG_DIFF_NORM_OPERATIONS;
	o.ops[0] = 4;
	o.ops[1] = 5;
	CU_ASSERT_EQUAL_FATAL(atag_diff_compute(a, b, &o, &d, err, sizeof(err)), 0);
	s = find(d, "f");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_DOUBLE_EQUAL(atag_diff_value(d, ATAG_DIFF_BEFORE, &s->counts[0], allocs), 2.5,
			       1e-9);
	CU_ASSERT_DOUBLE_EQUAL(atag_diff_delta(d, &s->counts[0], &s->counts[1], allocs), 1.5,
			       1e-9);
	CU_ASSERT(atag_diff_lifetime(&s->lifetimes[1], 0, &ns));
	CU_ASSERT_EQUAL(ns, 5000);
	atag_diff_free(d);

	o.ops[1] = 0;
	CU_ASSERT_EQUAL(atag_diff_compute(a, b, &o, &d, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NULL(d);
	CU_ASSERT_STRING_EQUAL(err, "the count of operations after must be above 0");
	o.norm = ATAG_DIFF_NORM_NONE;
	o.sort = "nope";
	CU_ASSERT_EQUAL(atag_diff_compute(a, b, &o, &d, err, sizeof(err)), -EINVAL);
	CU_ASSERT(!atag_sort_key("nope"));
	CU_ASSERT(atag_sort_key("p99") != NULL);
	atag_report_free(a);
	atag_report_free(b);
}

/* changes past 2^53 stay exact; a decrease is negative */
static void test_exact(void)
{
	const struct atag_counter_field *bytes = &atag_counter_fields[ATAG_COUNTER_BYTES_ALLOCED];
	struct atag_report *a = new_report(0, 1), *b = new_report(0, 1);
	struct atag_report_tag *t;
	struct atag_diff *d;

	t = add_tag(a, 1, "g", NULL, -1, NULL, 0, 1, 0, 0);
	t->counts.bytes_alloced = (1ULL << 60) + 1;
	t = add_tag(b, 1, "g", NULL, -1, NULL, 0, 1, 0, 0);
	t->counts.bytes_alloced = 1ULL << 60;
	d = compute(a, b, NULL);
	CU_ASSERT_EQUAL_FATAL(d->nr_sites, 1);
	CU_ASSERT_EQUAL((long long)atag_diff_delta(d, &d->sites[0]->counts[0],
						   &d->sites[0]->counts[1], bytes), -1);
	atag_diff_free(d);
	atag_report_free(a);
	atag_report_free(b);
}

/* lifetimes make a change when the diff is sorted by them, not otherwise */
static void test_lifetime_change(void)
{
	struct atag_report *a = new_report(0, 1), *b = new_report(0, 1);
	struct atag_diff_opts o = { 0 };
	struct atag_report_tag *t;
	struct atag_diff *d;
	char err[256];

	t = add_tag(a, 1, "h", NULL, -1, NULL, 0, 1, 0, 0);
	atag_lifetime_add(&t->lifetimes, 5000000);
	t = add_tag(b, 1, "h", NULL, -1, NULL, 0, 1, 0, 0);
	atag_lifetime_add(&t->lifetimes, 9000000);
	d = compute(a, b, &o);
	CU_ASSERT_EQUAL(d->nr_sites, 0);
	CU_ASSERT_EQUAL(d->nr_same, 1);
	atag_diff_free(d);
	o.sort = "p99";
	CU_ASSERT_EQUAL_FATAL(atag_diff_compute(a, b, &o, &d, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(d->nr_sites, 1);
	CU_ASSERT_EQUAL(d->sites[0]->status, ATAG_DIFF_CHANGED);
	atag_diff_free(d);
	atag_report_free(a);
	atag_report_free(b);
}

static void add_suite(void)
{
	CU_pSuite s = CU_add_suite("diff", NULL, NULL);

	CU_add_test(s, "kmem call sites: function and module, no offsets", test_kmem_identity);
	CU_add_test(s, "alloc_tag call sites: line counts; unknown ones are one row",
		    test_tag_identity);
	CU_add_test(s, "normalisation by duration and by operations", test_normalise);
	CU_add_test(s, "exact changes of large counters", test_exact);
	CU_add_test(s, "lifetimes change only when sorted by", test_lifetime_change);
}

ATAG_UTEST_SUITE("diff", add_suite)
