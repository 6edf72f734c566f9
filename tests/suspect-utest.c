// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the leak verdicts atag_report_finish() gives a report's live
 * allocations (lib/report/atag-report-view.c, by the rules of
 * lib/stitch/atag-suspect.c): each allocation gets the verdict of its own facts,
 * though the verdict is worked out once per call site, task state and (for
 * pages) stack.
 */
#include <stdlib.h>
#include <string.h>

#include "atag-utest.h"
#include "atag-report.h"
#include "atag-suspect.h"

/* A page call site @fn of @r (a literal, copied). */
static struct atag_report_tag *page_site(struct atag_report *r, uint64_t tag, const char *fn)
{
	struct atag_report_tag *t = calloc(1, sizeof(*t));

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	r->tags = realloc(r->tags, (r->nr_tags + 1) * sizeof(*r->tags));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->tags);
	r->tags[r->nr_tags++] = t;
	t->tag = tag;
	t->function = strdup(fn);
	t->line = -1;
	t->offset = -1;
	t->source = "page";
	t->selected = true;
	return t;
}

/* A stack of @t: the two frames (literals, as a report's names are). */
static struct atag_report_stack *two_frames(struct atag_report_tag *t, const char *inner,
					    const char *outer)
{
	struct atag_report_stack *s = calloc(1, sizeof(*s));

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	t->stacks = realloc(t->stacks, (t->nr_stacks + 1) * sizeof(*t->stacks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->stacks);
	t->stacks[t->nr_stacks++] = s;
	s->frames = calloc(3, sizeof(*s->frames));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->frames);
	s->frames[0] = (char *)inner;
	s->frames[1] = (char *)outer;
	s->nr_frames = 2;
	return s;
}

/* A live allocation at @ptr of @t, stack @s, its task exited (1), ran (0), unknown (-1). */
static void live(struct atag_report *r, uint64_t ptr, struct atag_report_tag *t,
		 struct atag_report_stack *s, int exited)
{
	r->live = realloc(r->live, (r->nr_live + 1) * sizeof(*r->live));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->live);
	r->live[r->nr_live++] = (struct atag_report_live){
		.ptr = ptr, .tag = t, .stack = s, .bytes = 4096, .age_ns = 1000 + ptr,
		.task_exited = exited,
	};
	t->counts.allocs++;
	t->counts.live++;
}

static const struct atag_report_live *at(const struct atag_report *r, uint64_t ptr)
{
	size_t i;

	for (i = 0; i < r->nr_live; i++)
		if (r->live[i].ptr == ptr)
			return &r->live[i];
	CU_FAIL_FATAL("a live allocation went missing");
	return NULL;
}

/*
 * One page call site, two stacks: its pages through the slab allocator are
 * explained, the other one not, whichever came first. An anonymous page is
 * explained once its task exited, not while it runs or when that is unknown.
 */
static void test_verdict_per_allocation(void)
{
	struct atag_report *r = atag_report_alloc(NULL);
	struct atag_report_stack *slab, *plain;
	struct atag_report_tag *site, *anon;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	site = page_site(r, 1, "foo_fill");
	slab = two_frames(site, "foo_fill+0x10", "allocate_slab+0x40");
	plain = two_frames(site, "foo_fill+0x10", "vfs_write+0x20");
	anon = page_site(r, 2, "do_anonymous_page");
	live(r, 1, site, slab, 0);
	live(r, 2, site, plain, 0);
	live(r, 3, site, slab, 0);
	live(r, 4, anon, NULL, 1);
	live(r, 5, anon, NULL, 0);
	live(r, 6, anon, NULL, -1);
	live(r, 7, anon, NULL, 1);
	CU_ASSERT_EQUAL_FATAL(atag_report_finish(r, NULL), 0);
	CU_ASSERT_EQUAL(r->nr_live, 7);
	CU_ASSERT_PTR_NOT_NULL(at(r, 1)->suspect_why);
	CU_ASSERT_PTR_NULL(at(r, 2)->suspect_why);
	CU_ASSERT_TRUE(at(r, 2)->suspect);
	CU_ASSERT_PTR_EQUAL(at(r, 3)->suspect_why, at(r, 1)->suspect_why);
	CU_ASSERT_PTR_NOT_NULL(at(r, 4)->suspect_why);
	CU_ASSERT_TRUE(at(r, 5)->suspect);
	CU_ASSERT_TRUE(at(r, 6)->suspect);
	CU_ASSERT_PTR_EQUAL(at(r, 7)->suspect_why, at(r, 4)->suspect_why);
	CU_ASSERT_NOT_EQUAL(at(r, 1)->suspect_why, at(r, 4)->suspect_why);
	CU_ASSERT_EQUAL(r->totals.live_suspects, 3);
	atag_report_free(r);
}

/* The verdict of an alloc_tag allocation at @function, its task exited. */
static const char *tag_why(const char *function)
{
	struct atag_suspect_facts f = { .source = "alloc_tag", .function = function,
					.task_exited = 1 };

	return atag_suspect_why(&f);
}

/*
 * The alloc_tag source names a call site by the function that holds the tag: the
 * slab allocator's own pages and vectors, tmpfs pages, XArray nodes and vmalloc's
 * descriptors are explained there too (a recording with --all showed them all as
 * suspects), each with its own reason; a call site of the same files that holds
 * memory for someone else stays a suspect.
 */
static void test_alloc_tag_sites(void)
{
	const char *explained[] = {
		"alloc_slab_page", "alloc_slab_obj_exts", "shmem_alloc_folio", "xas_alloc",
		"radix_tree_node_alloc", "alloc_vmap_area", "preload_this_cpu_lock",
		"__get_vm_area_node", "alloc_thread_stack_node", "p9_fid_create",
		"__d_alloc", "v9fs_alloc_inode", "page_cache_ra_unbounded",
	};
	struct atag_suspect_facts running = { .source = "alloc_tag",
					      .function = "alloc_thread_stack_node" };
	struct atag_suspect_facts kmem = { .source = "kmem",
					   .function = "__vmalloc_node_range_noprof" };
	unsigned int i;

	for (i = 0; i < sizeof(explained) / sizeof(explained[0]); i++)
		CU_ASSERT_PTR_NOT_NULL(tag_why(explained[i]));
	CU_ASSERT_PTR_EQUAL(tag_why("alloc_slab_page"), tag_why("alloc_slab_page"));
	CU_ASSERT_NOT_EQUAL(tag_why("alloc_slab_page"), tag_why("alloc_slab_obj_exts"));
	CU_ASSERT_PTR_EQUAL(tag_why("xas_alloc"), tag_why("radix_tree_node_alloc"));
	CU_ASSERT_PTR_EQUAL(tag_why("alloc_vmap_area"), tag_why("preload_this_cpu_lock"));
	CU_ASSERT_NOT_EQUAL(tag_why("shmem_alloc_folio"), tag_why("filemap_alloc_folio"));
	/* the same files' call sites that hold memory for their callers */
	CU_ASSERT_PTR_NULL(tag_why("__vmalloc_area_node"));
	CU_ASSERT_PTR_NULL(tag_why("shmem_get_inode"));
	CU_ASSERT_PTR_NULL(tag_why("xa_store"));
	CU_ASSERT_PTR_NULL(tag_why("kmalloc_slab_page"));
	CU_ASSERT_PTR_NULL(tag_why("p9_client_create"));
	/* the kmem source names vmalloc's array of pages where it is inlined */
	CU_ASSERT_PTR_EQUAL(atag_suspect_why(&kmem), tag_why("__get_vm_area_node"));
	kmem.function = "__vmalloc_node_noprof";
	CU_ASSERT_PTR_NULL(atag_suspect_why(&kmem));
	/* a running task's stack is its own: a suspect until it exits */
	CU_ASSERT_PTR_NULL(atag_suspect_why(&running));
	running.task_exited = -1;
	CU_ASSERT_PTR_NULL(atag_suspect_why(&running));
}

static void add_suite(void)
{
	CU_pSuite s = CU_add_suite("suspect", NULL, NULL);

	CU_add_test(s, "each live allocation its own verdict", test_verdict_per_allocation);
	CU_add_test(s, "alloc_tag call sites of the allocators' own memory",
		    test_alloc_tag_sites);
}

ATAG_UTEST_SUITE("suspect", add_suite)
