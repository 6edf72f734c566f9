// SPDX-License-Identifier: GPL-2.0
/*
 * atag_test: allocations from known call sites, and a trace remote, for the
 * VM test tier.
 *
 * Each kind of allocation has its own function, so its allocation tag can be
 * selected by function name in /proc/allocinfo:
 *
 *   echo "slab SIZE COUNT"    > /proc/atag_test   kmalloc(SIZE), COUNT times
 *   echo "large SIZE COUNT"   > /proc/atag_test   kmalloc(SIZE) above the slab
 *                                                 sizes, served by the page allocator
 *   echo "long SIZE COUNT"    > /proc/atag_test   kmalloc() from a function whose
 *                                                 name is longer than 63 characters
 *   echo "page ORDER COUNT"   > /proc/atag_test   alloc_pages(ORDER), COUNT times
 *   echo "percpu SIZE COUNT"  > /proc/atag_test   __alloc_percpu(SIZE), COUNT times
 *                                                 (only memory outside the first
 *                                                 percpu chunk is accounted to tags)
 *   echo "split ORDER COUNT"  > /proc/atag_test   alloc_pages(ORDER) of a non-compound
 *                                                 page, split_page(); each page is
 *                                                 held and later freed on its own
 *   echo "pinned ORDER COUNT" > /proc/atag_test   alloc_pages(ORDER) of a non-compound
 *                                                 page, an extra reference taken, then
 *                                                 __free_pages(): the tail pages go at
 *                                                 once, the head page when "free"
 *                                                 drops the reference
 *   echo "migrate 0 COUNT"    > /proc/atag_test   a page (atag_test_migrate_alloc) is
 *                                                 migrated with migrate_folio() to a
 *                                                 page of atag_test_migration_target_alloc,
 *                                                 and freed; the target page is held
 *   echo "free"               > /proc/atag_test   release everything held, newest first
 *
 * Reading /proc/atag_test lists what is held, one line per allocation:
 *
 *   KIND PTR BYTES ADDRESS
 *
 * PTR is the value the alloc_tag events carry for this memory, computed here
 * from the kernel's data structures: the address of the object's codetag_ref
 * (slab: in the slab's extension vector, per-CPU: in the chunk's), the head
 * struct page for pages; "-" for per-CPU memory in the first chunk, which is
 * not accounted.  BYTES is what the tag is charged for it now, ADDRESS the
 * object, page or __percpu address.
 *
 * /proc/atag_test_counts has one line per kind with what the module did since
 * it was loaded, counted as the alloc_tag events report it for the kind's tag:
 *
 *   KIND allocs N alloc_bytes N frees N free_bytes N unmatched N partial N
 *
 * "unmatched" frees carry a ptr that no allocation of the kind had (split
 * tail pages; after a migration, the page each tag was swapped onto),
 * "partial" ones fewer bytes than the allocation with their ptr (the head of
 * a split page, a head page freed late).  The kind "migration_target" is the
 * tag of the pages migrations move to.  A last line describes the remote:
 *
 *   remote loads N unloads N tracing 0|1 cpus N pages N
 *
 * The module registers the trace remote "atag_test" with a buffer on the
 * first online CPU only: pages is the number of pages its loaded buffer has.
 *
 * This is a test module: it prints raw kernel addresses.
 */
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/trace_remote.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

/* mm internals, to find the codetag_ref of slab objects and per-CPU memory */
#include "slab.h"
#include "percpu-internal.h"

#define ATAG_TEST_MAX	256

enum atag_kind {
	ATAG_SLAB, ATAG_LARGE, ATAG_LONG, ATAG_PAGE, ATAG_PERCPU, ATAG_SPLIT, ATAG_PINNED,
	ATAG_MIGRATE, ATAG_MIGRATION_TARGET, ATAG_NR_KINDS
};

static const char * const atag_kind_name[] = {
	[ATAG_SLAB]		= "slab",
	[ATAG_LARGE]		= "large",
	[ATAG_LONG]		= "long",
	[ATAG_PAGE]		= "page",
	[ATAG_PERCPU]		= "percpu",
	[ATAG_SPLIT]		= "split",
	[ATAG_PINNED]		= "pinned",
	[ATAG_MIGRATE]		= "migrate",
	[ATAG_MIGRATION_TARGET]	= "migration_target",
};

/* What the alloc_tag events of one kind's tag report, as this module predicts. */
struct atag_count {
	unsigned long allocs, alloc_bytes, frees, free_bytes, unmatched, partial;
};

struct atag_held {
	enum atag_kind kind;		/* the tag the memory is charged to now */
	void *addr;			/* object, page address or __percpu pointer */
	const void *ptr;		/* what the events carry; NULL: not accounted */
	struct page *page;
	unsigned int order;		/* of a page allocation still whole */
	size_t bytes;			/* charged to the tag now */
	size_t alloc_bytes;		/* of the allocation event with this ptr */
	bool foreign;			/* ptr never alloced under this kind's tag */
};

static DEFINE_MUTEX(atag_lock);
static struct atag_held atag_held[ATAG_TEST_MAX];
static unsigned int atag_nr_held;
static struct atag_count atag_counts[ATAG_NR_KINDS];

static noinline void *atag_test_slab_alloc(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static noinline void *atag_test_large_alloc(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static noinline void *
atag_test_function_with_a_deliberately_long_name_to_check_suffix_match(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static noinline struct page *atag_test_page_alloc(unsigned int order)
{
	return alloc_pages(GFP_KERNEL, order);
}

/* Not __GFP_COMP: split_page() wants a non-compound page. */
static noinline struct page *atag_test_split_alloc(unsigned int order)
{
	return alloc_pages(GFP_KERNEL, order);
}

static noinline void __percpu *atag_test_percpu_alloc(size_t size)
{
	return __alloc_percpu(size, sizeof(long));
}

/* Non-compound too: __free_pages() frees its head page late. */
static noinline struct page *atag_test_pinned_alloc(unsigned int order)
{
	return alloc_pages(GFP_KERNEL, order);
}

static noinline struct page *atag_test_migrate_alloc(void)
{
	return alloc_pages(GFP_KERNEL, 0);
}

static noinline struct page *atag_test_migration_target_alloc(void)
{
	return alloc_pages(GFP_KERNEL, 0);
}

/* The codetag_ref of a slab object: its entry in the slab's extension vector. */
static const void *atag_slab_ref(const void *obj, size_t *bytes)
{
	struct slab *slab = virt_to_slab(obj);
	struct slabobj_ext *exts;

	if (!slab)
		return NULL;
	exts = slab_obj_exts(slab);
	if (!exts)
		return NULL;
	*bytes = slab->slab_cache->size;
	return &exts[obj_to_index(slab->slab_cache, slab, (void *)obj)].ref;
}

/*
 * The codetag_ref of per-CPU memory: its entry in the extension vector of the
 * chunk, by the offset of the memory in the chunk.  Only chunks in vmalloc
 * space have the vector (the first chunk is not accounted); the chunk is the
 * page->index of any of their pages.  The offset is taken from the unit of
 * the first possible CPU, which is at unit offset 0 on a machine with one
 * NUMA node; a result outside the chunk means it is not.
 */
static const void *atag_percpu_ref(void __percpu *p, size_t size, size_t *bytes)
{
	int cpu0 = cpumask_first(cpu_possible_mask), cpu;
	void *addr = per_cpu_ptr(p, cpu0);
	struct pcpu_chunk *chunk;
	unsigned long off;

	if (!is_vmalloc_addr(addr))
		return NULL;
	chunk = (struct pcpu_chunk *)vmalloc_to_page(addr)->index;
	if (!chunk->obj_exts)
		return NULL;
	for_each_possible_cpu(cpu)
		if ((struct pcpu_chunk *)vmalloc_to_page(per_cpu_ptr(p, cpu))->index != chunk)
			return ERR_PTR(-EINVAL);
	off = addr - chunk->base_addr;
	if (addr < chunk->base_addr || off >= (unsigned long)chunk->nr_pages << PAGE_SHIFT)
		return ERR_PTR(-EINVAL);
	*bytes = pcpu_obj_full_size(size);
	return &chunk->obj_exts[off >> PCPU_MIN_ALLOC_SHIFT].tag;
}

static int atag_hold(const struct atag_held *h)
{
	struct atag_count *c = &atag_counts[h->kind];

	if (atag_nr_held == ATAG_TEST_MAX)
		return -ENOSPC;
	atag_held[atag_nr_held++] = *h;
	if (h->ptr && !h->foreign) {
		c->allocs++;
		c->alloc_bytes += h->alloc_bytes;
	}
	return 0;
}

/* The free event of the memory of @h, charged to its tag now, as predicted. */
static void atag_count_free(const struct atag_held *h)
{
	struct atag_count *c = &atag_counts[h->kind];

	if (!h->ptr)
		return;
	c->frees++;
	c->free_bytes += h->bytes;
	if (h->foreign)
		c->unmatched++;
	else if (h->bytes < h->alloc_bytes)
		c->partial++;
}

static void atag_release(struct atag_held *h)
{
	atag_count_free(h);
	switch (h->kind) {
	case ATAG_SLAB:
	case ATAG_LARGE:
	case ATAG_LONG:
		kfree(h->addr);
		break;
	case ATAG_PERCPU:
		free_percpu((void __percpu *)h->addr);
		break;
	case ATAG_PINNED:
		put_page(h->page);
		break;
	default:
		__free_pages(h->page, h->order);
		break;
	}
}

static void atag_free_all(void)
{
	while (atag_nr_held)
		atag_release(&atag_held[--atag_nr_held]);
}

/*
 * The helpers that atag_write() dispatches to are inlined, so that every
 * allocating stack reads atag_test_*_alloc, atag_write, proc_reg_write.
 */
static __always_inline int atag_alloc_kmalloc(enum atag_kind kind, size_t size)
{
	struct atag_held h = { .kind = kind };
	int ret;

	if (kind == ATAG_LARGE ? size <= KMALLOC_MAX_CACHE_SIZE || size > KMALLOC_MAX_SIZE :
				 !size || size > KMALLOC_MAX_CACHE_SIZE)
		return -EINVAL;
	if (kind == ATAG_SLAB)
		h.addr = atag_test_slab_alloc(size);
	else if (kind == ATAG_LARGE)
		h.addr = atag_test_large_alloc(size);
	else
		h.addr = atag_test_function_with_a_deliberately_long_name_to_check_suffix_match(size);
	if (!h.addr)
		return -ENOMEM;
	if (kind == ATAG_LARGE) {
		h.page = virt_to_head_page(h.addr);
		h.ptr = h.page;
		h.bytes = page_size(h.page);
	} else {
		h.ptr = atag_slab_ref(h.addr, &h.bytes);
	}
	h.alloc_bytes = h.bytes;
	ret = atag_hold(&h);
	if (ret)
		kfree(h.addr);
	return ret;
}

static __always_inline int atag_alloc_percpu(size_t size)
{
	struct atag_held h = { .kind = ATAG_PERCPU };
	void __percpu *p;
	int ret;

	if (!size || size > PCPU_MIN_UNIT_SIZE)
		return -EINVAL;
	p = atag_test_percpu_alloc(size);
	if (!p)
		return -ENOMEM;
	h.addr = (__force void *)p;
	h.ptr = atag_percpu_ref(p, size, &h.bytes);
	ret = PTR_ERR_OR_ZERO(h.ptr);
	if (!ret) {
		h.alloc_bytes = h.bytes;
		ret = atag_hold(&h);
	}
	if (ret)
		free_percpu(p);
	return ret;
}

static __always_inline int atag_alloc_pages(enum atag_kind kind, unsigned int order)
{
	struct atag_held h = { .kind = kind };
	unsigned int i, nr = 1 << order;
	int ret;

	if (order > 4 || (kind != ATAG_PAGE && !order))
		return -EINVAL;
	if (atag_nr_held + (kind == ATAG_SPLIT ? nr : 1) > ATAG_TEST_MAX)
		return -ENOSPC;
	if (kind == ATAG_PAGE)
		h.page = atag_test_page_alloc(order);
	else if (kind == ATAG_SPLIT)
		h.page = atag_test_split_alloc(order);
	else
		h.page = atag_test_pinned_alloc(order);
	if (!h.page)
		return -ENOMEM;
	h.addr = page_address(h.page);
	h.ptr = h.page;
	h.alloc_bytes = PAGE_SIZE << order;
	h.bytes = h.alloc_bytes;
	h.order = order;

	switch (kind) {
	case ATAG_SPLIT:
		/* each page is an allocation of its own now, charged one page */
		split_page(h.page, order);
		h.order = 0;
		h.bytes = PAGE_SIZE;
		atag_hold(&h);
		for (i = 1; i < nr; i++) {
			struct atag_held tail = h;

			tail.page = h.page + i;
			tail.addr = page_address(tail.page);
			tail.ptr = tail.page;
			tail.foreign = true;
			atag_hold(&tail);
		}
		return 0;
	case ATAG_PINNED:
		/* another user still holds the head page: it outlives the free */
		get_page(h.page);
		__free_pages(h.page, order);
		h.order = 0;
		h.bytes = PAGE_SIZE;
		break;
	default:
		break;
	}
	ret = atag_hold(&h);
	if (ret)
		__free_pages(h.page, order);
	return ret;
}

/*
 * Migrate a page as migrate_pages() does for a folio without a mapping:
 * migrate_folio() on the locked source and target, then free the source.
 * The two pages swap their tags: the target is now charged to
 * atag_test_migrate_alloc, the source, freed here, to the target's tag.
 */
static __always_inline int atag_migrate(void)
{
	struct page *src, *dst;
	struct atag_held h;
	int ret;

	if (atag_nr_held + 1 > ATAG_TEST_MAX)
		return -ENOSPC;
	src = atag_test_migrate_alloc();
	dst = atag_test_migration_target_alloc();
	if (!src || !dst) {
		if (src)
			__free_page(src);
		if (dst)
			__free_page(dst);
		return -ENOMEM;
	}
	atag_counts[ATAG_MIGRATE].allocs++;
	atag_counts[ATAG_MIGRATE].alloc_bytes += PAGE_SIZE;
	atag_counts[ATAG_MIGRATION_TARGET].allocs++;
	atag_counts[ATAG_MIGRATION_TARGET].alloc_bytes += PAGE_SIZE;

	memset(page_address(src), 0x5a, PAGE_SIZE);
	folio_lock(page_folio(src));
	folio_lock(page_folio(dst));
	ret = migrate_folio(NULL, page_folio(dst), page_folio(src), MIGRATE_SYNC);
	folio_unlock(page_folio(dst));
	folio_unlock(page_folio(src));
	if (ret != MIGRATEPAGE_SUCCESS) {
		/* not migrated: each page is freed under its own tag */
		h = (struct atag_held){ .kind = ATAG_MIGRATE, .ptr = src, .bytes = PAGE_SIZE,
					.alloc_bytes = PAGE_SIZE };
		atag_count_free(&h);
		h = (struct atag_held){ .kind = ATAG_MIGRATION_TARGET, .ptr = dst,
					.bytes = PAGE_SIZE, .alloc_bytes = PAGE_SIZE };
		atag_count_free(&h);
		__free_page(src);
		__free_page(dst);
		return ret < 0 ? ret : -EAGAIN;
	}

	/* the source page carries the target's tag now */
	h = (struct atag_held){ .kind = ATAG_MIGRATION_TARGET, .page = src, .ptr = src,
				.bytes = PAGE_SIZE, .alloc_bytes = PAGE_SIZE, .foreign = true };
	atag_count_free(&h);
	__free_page(src);

	h = (struct atag_held){ .kind = ATAG_MIGRATE, .page = dst, .addr = page_address(dst),
				.ptr = dst, .bytes = PAGE_SIZE, .alloc_bytes = PAGE_SIZE,
				.foreign = true };
	return atag_hold(&h);
}

static ssize_t atag_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	unsigned long arg = 0, n = 1, i;
	char buf[64], kind[24];
	int k, ret = 0;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	if (sscanf(buf, "%23s %lu %lu", kind, &arg, &n) < 1)
		return -EINVAL;

	mutex_lock(&atag_lock);
	if (!strcmp(kind, "free")) {
		atag_free_all();
		goto out;
	}
	for (k = 0; k < ATAG_MIGRATION_TARGET; k++)
		if (!strcmp(kind, atag_kind_name[k]))
			break;
	/* migration of order-0 pages only */
	if (k == ATAG_MIGRATION_TARGET || n > ATAG_TEST_MAX || (k == ATAG_MIGRATE && arg)) {
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		switch (k) {
		case ATAG_SLAB:
		case ATAG_LARGE:
		case ATAG_LONG:
			ret = atag_alloc_kmalloc(k, arg);
			break;
		case ATAG_PERCPU:
			ret = atag_alloc_percpu(arg);
			break;
		case ATAG_MIGRATE:
			ret = atag_migrate();
			break;
		default:
			ret = atag_alloc_pages(k, arg);
			break;
		}
	}
out:
	mutex_unlock(&atag_lock);
	return ret ? ret : count;
}

static int atag_show(struct seq_file *m, void *v)
{
	const struct atag_held *h;

	mutex_lock(&atag_lock);
	for (h = atag_held; h < atag_held + atag_nr_held; h++) {
		seq_printf(m, "%s ", atag_kind_name[h->kind]);
		if (h->ptr)
			seq_printf(m, "%px", h->ptr);
		else
			seq_puts(m, "-");
		seq_printf(m, " %zu %px\n", h->bytes, h->addr);
	}
	mutex_unlock(&atag_lock);
	return 0;
}

static int atag_open(struct inode *inode, struct file *file)
{
	return single_open(file, atag_show, NULL);
}

static const struct proc_ops atag_proc_ops = {
	.proc_open	= atag_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= atag_write,
};

/* ------------------------------------------------------------------ remote */

static struct {
	unsigned long loads, unloads, pages;
	unsigned int cpus;
	bool tracing;
} atag_remote;

/*
 * The descriptor of the loaded buffer: static, so that the module has no
 * allocation tag besides those of its test call sites.  It has room for one
 * CPU's buffer of up to about 2 MiB; a larger buffer_size_kb fails to load.
 */
static union {
	struct trace_buffer_desc desc;
	char room[4096];
} atag_remote_desc;

static struct trace_buffer_desc *atag_remote_load(unsigned long size, void *priv)
{
	const struct cpumask *mask = cpumask_of(cpumask_first(cpu_online_mask));
	struct trace_buffer_desc *desc = &atag_remote_desc.desc;
	struct ring_buffer_desc *rb;
	int ret, i;

	ret = trace_remote_alloc_buffer(desc, sizeof(atag_remote_desc), size, mask);
	if (ret)
		return ERR_PTR(ret);
	mutex_lock(&atag_lock);
	atag_remote.loads++;
	atag_remote.cpus = desc->nr_cpus;
	atag_remote.pages = 0;
	for_each_ring_buffer_desc(rb, i, desc)
		atag_remote.pages += rb->nr_page_va + 1;	/* and the meta page */
	mutex_unlock(&atag_lock);
	return desc;
}

static void atag_remote_unload(struct trace_buffer_desc *desc, void *priv)
{
	trace_remote_free_buffer(desc);
	mutex_lock(&atag_lock);
	atag_remote.unloads++;
	atag_remote.pages = 0;
	atag_remote.cpus = 0;
	mutex_unlock(&atag_lock);
}

static int atag_remote_enable(bool enable, void *priv)
{
	mutex_lock(&atag_lock);
	atag_remote.tracing = enable;
	mutex_unlock(&atag_lock);
	return 0;
}

/* Nothing reads the remote's buffer. */
static int atag_remote_swap_reader_page(unsigned int cpu, void *priv)
{
	return -EOPNOTSUPP;
}

static struct trace_remote_callbacks atag_remote_cbs = {
	.load_trace_buffer	= atag_remote_load,
	.unload_trace_buffer	= atag_remote_unload,
	.enable_tracing		= atag_remote_enable,
	.swap_reader_page	= atag_remote_swap_reader_page,
};

static int atag_counts_show(struct seq_file *m, void *v)
{
	const struct atag_count *c;
	int k;

	mutex_lock(&atag_lock);
	for (k = 0; k < ATAG_NR_KINDS; k++) {
		c = &atag_counts[k];
		seq_printf(m, "%s allocs %lu alloc_bytes %lu frees %lu free_bytes %lu unmatched %lu partial %lu\n",
			   atag_kind_name[k], c->allocs, c->alloc_bytes, c->frees, c->free_bytes,
			   c->unmatched, c->partial);
	}
	seq_printf(m, "remote loads %lu unloads %lu tracing %d cpus %u pages %lu\n",
		   atag_remote.loads, atag_remote.unloads, atag_remote.tracing, atag_remote.cpus,
		   atag_remote.pages);
	mutex_unlock(&atag_lock);
	return 0;
}

DEFINE_PROC_SHOW_ATTRIBUTE(atag_counts);

static struct proc_dir_entry *atag_entry, *atag_counts_entry;

static int __init atag_test_init(void)
{
	int ret;

	atag_entry = proc_create("atag_test", 0600, NULL, &atag_proc_ops);
	atag_counts_entry = proc_create("atag_test_counts", 0400, NULL, &atag_counts_proc_ops);
	ret = atag_entry && atag_counts_entry ? 0 : -ENOMEM;
	if (!ret)
		ret = trace_remote_register("atag_test", &atag_remote_cbs, NULL);
	if (ret) {
		proc_remove(atag_counts_entry);
		proc_remove(atag_entry);
	}
	return ret;
}

static void __exit atag_test_exit(void)
{
	trace_remote_unregister("atag_test");
	proc_remove(atag_counts_entry);
	proc_remove(atag_entry);
	mutex_lock(&atag_lock);
	atag_free_all();
	mutex_unlock(&atag_lock);
}

module_init(atag_test_init);
module_exit(atag_test_exit);
MODULE_DESCRIPTION("Known allocation call sites and a trace remote for the alloc_tag VM tests");
MODULE_LICENSE("GPL");
