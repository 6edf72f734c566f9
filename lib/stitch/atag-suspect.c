// SPDX-License-Identifier: LGPL-2.1
/*
 * Leak suspects (lib/stitch/atag-suspect.h; report: struct atag_report_live): an allocation live
 * at the end of its trace is a suspect unless the trace or the kernel explains why it
 * looks live. The explanations, in order:
 *
 *  1. Its call site's objects were allocated again while live here ("reused while
 *     live"): some of its frees are not traced, this one's may be among them.
 *  2. Its call site frees through a path that emits no event (kmem source): the maple
 *     tree's nodes go back with kmem_cache_free_bulk() (mt_free_bulk(),
 *     lib/maple_tree.c), and mm/slub.c's bulk free calls no trace_kmem_cache_free().
 *     (The alloc_tag source sees bulk frees: its free event comes from the per-object
 *     free hook.)
 *  3. The kernel frees it after an RCU grace period once its task exited, and its task
 *     exited: credentials and their LSM blob (put_cred() -> put_cred_rcu(),
 *     kernel/cred.c; security_cred_free()), page tables (tlb_remove_table() with
 *     RCU-freed tables, mm/mmu_gather.c). record lingers past the workload's end for
 *     them (--linger); a grace period can still fall after the stop. Likewise the mm
 *     of a task that exited (mm_alloc()): a CPU that ran it keeps it as its lazy TLB
 *     mm (active_mm) until it next runs another task's, and that last mmdrop() frees
 *     it (kernel/sched/core.c, mmdrop_lazy_tlb()); an idle CPU may hold it long.
 *  4. An anonymous page of a task that exited (page source): folio_add_lru() takes a
 *     reference for the per-CPU LRU batch the folio waits in (mm/swap.c), and
 *     exit_mmap() drains only the exiting CPU's batch, so a page faulted on another
 *     CPU is freed when that batch drains, later. Call sites: the anonymous and
 *     copy-on-write fault paths (do_anonymous_page(), do_wp_page(), wp_page_copy(),
 *     do_cow_fault(), which do_fault() inlines, alloc_anon_folio(), the huge-page
 *     ones, do_swap_page()).
 *  5. Slab memory: a page the slab allocator took for a new slab (its stack runs
 *     through allocate_slab(), mm/slub.c; the alloc_tag source's call site is
 *     alloc_slab_page() itself) stays while an object in it lives and cached when
 *     empty, until the cache is shrunk; a slab's object extension vector
 *     (alloc_slab_obj_exts(): memcg and allocation profiling) goes with its slab.
 *     The objects themselves are the kmem source's, and the alloc_tag source's
 *     other call sites.
 *  6. The kernel keeps it in a cache that reclaim frees: dentries (__d_alloc(),
 *     fs/dcache.c), inodes (alloc_inode() and the file systems' *_alloc_inode()),
 *     buffer heads (alloc_buffer_head()), the page cache (__filemap_get_folio(),
 *     filemap_alloc_folio(), readahead; tmpfs and shared memory's shmem_alloc_folio(),
 *     mm/shmem.c, whose pages swap-out or truncation frees), the nodes of XArrays and
 *     radix trees (xas_alloc(), xas_nomem(), radix_tree_node_alloc(), lib/: the page
 *     cache's among others, freed when the entries under them go; the page cache
 *     keeps a node of evicted pages' shadow entries until its shrinker runs).
 *     Likewise vmalloc's descriptors of address space (alloc_vmap_area(),
 *     preload_this_cpu_lock(), mm/vmalloc.c): vfree() leaves an area to a lazy purge,
 *     after which its descriptor is pooled for reuse or kept as a free range, and
 *     each CPU keeps one preloaded; an area's struct vm_struct (__get_vm_area_node())
 *     and the array of its pages (kmalloc'd in __vmalloc_area_node(), which the kmem
 *     source names by __vmalloc_node_range*(), where it is inlined; the alloc_tag
 *     source counts it at the caller's tag) live as long as the area. A leaked
 *     vmalloc() shows as its caller's allocation, not as these. The thread stack of
 *     a task that exited (alloc_thread_stack_node(), kernel/fork.c: its pages and
 *     their array): each CPU keeps two for the next fork (NR_CACHED_STACKS), the
 *     others go after an RCU grace period. A 9p fid (p9_fid_create(), net/9p/client.c) hangs on its dentry
 *     or inode (v9fs_fid_add(), fs/9p/fid.c) and goes with it.
 *  7. Its call site (page) has unmatched or partial frees: its pages may have been
 *     split or migrated, and freed under another address (see SPLIT AND MIGRATED
 *     PAGES in the report's manual).
 *  8. A page allocation without a stack (recorded with --no-stack) whose migrate
 *     type is movable: user memory, anonymous or page cache (the GFP flags of both
 *     carry __GFP_MOVABLE, include/linux/gfp_types.h), which reclaim, truncation,
 *     munmap or its owner's exit frees; without the stack nothing tells a leak.
 *
 * Every other live allocation is a suspect, as memleak's outstanding allocations are;
 * one whose task still ran at the end is said to be held by that task. The tables
 * name functions as the report names call sites (kallsyms); inferred for kernels
 * other than those read here (6.12 and 6.18), where functions may have moved.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <string.h>

#include "atag-suspect.h"

struct known {
	const char	*source;	/* NULL: every source */
	const char	*function;	/* glob */
	bool		after_exit;	/* only once the allocating task exited */
	const char	*why;
};

static const char maple[] = "maple tree node: freed in bulk (mt_free_bulk() -> "
			    "kmem_cache_free_bulk()), which emits no event";
static const char creds[] = "credentials: freed after an RCU grace period once their task "
			    "exited (put_cred_rcu())";
static const char lazymm[] = "mm of a task that exited: a CPU keeps it as its lazy TLB mm until it "
			     "next switches to another task's (mmdrop_lazy_tlb())";
static const char ptables[] = "page table: freed after an RCU grace period once its mm was "
			      "torn down (tlb_remove_table())";
static const char anon[] = "anonymous page of a task that exited: a per-CPU LRU batch holds it "
			   "until it drains (folio_add_lru(), mm/swap.c)";
static const char slabpage[] = "a slab page: the slab allocator keeps it while an object in it "
			       "lives, and cached when empty (shrinking the cache frees it)";
static const char objexts[] = "object extensions of a slab page (memcg, allocation profiling): "
			      "freed with its slab";
static const char dcache[] = "held by the dentry cache (reclaim frees it)";
static const char icache[] = "held by the inode cache (reclaim frees it)";
static const char bh[] = "buffer head of a cached page (reclaim frees it)";
static const char pcache[] = "held by the page cache (reclaim or truncation frees it)";
static const char shmem[] = "a tmpfs or shared memory page: held by its file's page cache "
			    "(truncation or swap-out frees it)";
static const char xanode[] = "a node of an XArray or radix tree (the page cache's among others): "
			     "freed when the entries under it go";
static const char vmap[] = "vmalloc's descriptor of address space: kept after vfree() until a "
			   "lazy purge, then pooled or kept as a free range (mm/vmalloc.c)";
static const char vmarea[] = "vmalloc's bookkeeping of an area (its struct vm_struct, the array "
			     "of its pages): lives as long as the area, whose memory is its "
			     "caller's allocation";
static const char tstack[] = "thread stack of a task that exited: each CPU keeps two for the next "
			     "fork (kernel/fork.c, NR_CACHED_STACKS)";
static const char p9fid[] = "a 9p fid: hangs on its cached dentry or inode (v9fs_fid_add()) and "
			    "goes with it";

static const struct known known[] = {
	{ "kmem", "mas_*", false, maple },
	{ "kmem", "mt_*", false, maple },
	{ "kmem", "mtree_*", false, maple },
	{ NULL, "prepare_creds", true, creds },
	{ NULL, "prepare_kernel_cred", true, creds },
	{ NULL, "prepare_exec_creds", true, creds },
	{ NULL, "lsm_blob_alloc", true, creds },
	{ NULL, "security_prepare_creds", true, creds },
	{ "kmem", "mm_alloc", true, lazymm },
	{ NULL, "pte_alloc_one", true, ptables },
	{ NULL, "__pte_alloc*", true, ptables },
	{ NULL, "__pmd_alloc", true, ptables },
	{ NULL, "__pud_alloc", true, ptables },
	{ NULL, "__p4d_alloc", true, ptables },
	{ NULL, "pgd_alloc", true, ptables },
	{ NULL, "tlb_remove_table", true, ptables },
	{ "page", "do_anonymous_page", true, anon },
	{ "page", "alloc_anon_folio", true, anon },
	{ "page", "do_wp_page", true, anon },
	{ "page", "wp_page_copy", true, anon },
	{ "page", "do_cow_fault", true, anon },
	{ "page", "do_fault", true, anon },
	{ "page", "*do_huge_pmd_anonymous_page", true, anon },
	{ "page", "do_huge_pmd_wp_page", true, anon },
	{ "page", "do_swap_page", true, anon },
	{ NULL, "alloc_slab_page", false, slabpage },
	{ NULL, "alloc_slab_obj_exts", false, objexts },
	{ NULL, "__d_alloc", false, dcache },
	{ NULL, "d_alloc*", false, dcache },
	{ NULL, "alloc_inode", false, icache },
	{ NULL, "*_alloc_inode", false, icache },
	{ NULL, "alloc_buffer_head", false, bh },
	{ NULL, "__filemap_get_folio", false, pcache },
	{ NULL, "filemap_alloc_folio*", false, pcache },
	{ NULL, "page_cache_ra_*", false, pcache },
	{ NULL, "__page_cache_alloc*", false, pcache },
	{ NULL, "shmem_alloc_folio", false, shmem },
	{ NULL, "shmem_alloc_and_add_folio", false, shmem },
	{ NULL, "xas_alloc", false, xanode },
	{ NULL, "xas_nomem", false, xanode },
	{ NULL, "radix_tree_node_alloc", false, xanode },
	{ NULL, "alloc_vmap_area", false, vmap },
	{ NULL, "preload_this_cpu_lock", false, vmap },
	{ NULL, "__get_vm_area_node", false, vmarea },
	{ "kmem", "__vmalloc_area_node", false, vmarea },
	{ "kmem", "__vmalloc_node_range*", false, vmarea },
	{ NULL, "alloc_thread_stack_node", true, tstack },
	{ NULL, "p9_fid_create", false, p9fid },
};

static const char reused[] = "its call site's objects were allocated again while live: some "
			     "of its frees are not traced";
static const char movable[] = "movable page without a stack: anonymous or page cache memory, "
			      "freed by reclaim, truncation, munmap or exit (stacks tell more)";
static const char split[] = "its call site has unmatched or partial frees: split or migrated "
			    "pages, freed under another address";

/* Whether one of the frames is one of the slab allocator's that take a new slab's page. */
static bool new_slab_frame(const char *const *frames, unsigned int nr)
{
	static const char *const slab[] = {
		"allocate_slab+", "new_slab+", "alloc_slab_page+", "___slab_alloc+",
	};
	unsigned int i, k;

	for (i = 0; frames && i < nr; i++)
		for (k = 0; frames[i] && k < sizeof(slab) / sizeof(slab[0]); k++)
			if (!strncmp(frames[i], slab[k], strlen(slab[k])))
				return true;
	return false;
}

const char *atag_suspect_why(const struct atag_suspect_facts *f)
{
	size_t i;

	if (f->replaced)
		return reused;
	if (!strcmp(f->source, "page") && new_slab_frame(f->frames, f->nr_frames))
		return slabpage;
	for (i = 0; f->function && i < sizeof(known) / sizeof(known[0]); i++) {
		if (known[i].source && strcmp(known[i].source, f->source))
			continue;
		if (fnmatch(known[i].function, f->function, 0))
			continue;
		if (known[i].after_exit && f->task_exited != 1)
			continue;
		return known[i].why;
	}
	if (strcmp(f->source, "page"))
		return NULL;
	if (f->unmatched_frees || f->partial_frees)
		return split;
	/* the page source's names of allocations without a stack (atag-source-page.c) */
	if (f->function && !fnmatch("pages of order *, movable: no stack", f->function, 0))
		return movable;
	return NULL;
}
