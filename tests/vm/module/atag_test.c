// SPDX-License-Identifier: GPL-2.0
/*
 * atag_test: allocations from known call sites, for the VM test tier.
 *
 * Each kind of allocation has its own function, so its allocation tag can be
 * selected by function name in /proc/allocinfo:
 *
 *   echo "slab SIZE COUNT"    > /proc/atag_test   kmalloc(SIZE), COUNT times
 *   echo "page ORDER COUNT"   > /proc/atag_test   alloc_pages(ORDER), COUNT times
 *   echo "split ORDER COUNT"  > /proc/atag_test   alloc_pages(ORDER) + split_page()
 *   echo "percpu SIZE COUNT"  > /proc/atag_test   __alloc_percpu(SIZE), COUNT times
 *                                                 (only memory outside the first
 *                                                 percpu chunk is accounted to tags)
 *   echo "large SIZE COUNT"   > /proc/atag_test   kmalloc(SIZE) above the slab
 *                                                 sizes, served by the page allocator
 *   echo "long SIZE COUNT"    > /proc/atag_test   kmalloc() from a function whose
 *                                                 name is longer than 63 characters
 *   echo "free"               > /proc/atag_test   release everything held, newest first
 *
 * The allocations are held until "free" (or module unload).  Reading the file
 * lists what is held, one "KIND ADDRESS BYTES" line per allocation, with the
 * address the alloc_tag trace events report: the object address, the kernel
 * address of each (split) page or the __percpu pointer.  This is a test
 * module: it prints raw kernel addresses.
 */
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#define ATAG_TEST_MAX	256

enum atag_kind { ATAG_SLAB, ATAG_LARGE, ATAG_PAGE, ATAG_SPLIT, ATAG_PERCPU, ATAG_LONG };

static const char * const atag_kind_name[] = {
	[ATAG_SLAB]	= "slab",
	[ATAG_LARGE]	= "large",
	[ATAG_PAGE]	= "page",
	[ATAG_SPLIT]	= "split",
	[ATAG_PERCPU]	= "percpu",
	[ATAG_LONG]	= "long",
};

struct atag_held {
	enum atag_kind kind;
	void *ptr;			/* object, page address or percpu pointer */
	struct page *page;
	unsigned int order;
	size_t size;
};

static DEFINE_MUTEX(atag_lock);
static struct atag_held atag_held[ATAG_TEST_MAX];
static unsigned int atag_nr_held;

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

static noinline struct page *atag_test_split_alloc(unsigned int order)
{
	/* Not __GFP_COMP: split_page() wants a non-compound page. */
	return alloc_pages(GFP_KERNEL, order);
}

static noinline void __percpu *atag_test_percpu_alloc(size_t size)
{
	return __alloc_percpu(size, sizeof(long));
}

static int atag_hold(enum atag_kind kind, void *ptr, struct page *page,
		     unsigned int order, size_t size)
{
	if (atag_nr_held == ATAG_TEST_MAX)
		return -ENOSPC;
	atag_held[atag_nr_held++] = (struct atag_held) {
		.kind = kind, .ptr = ptr, .page = page, .order = order, .size = size,
	};
	return 0;
}

static void atag_release(struct atag_held *h)
{
	switch (h->kind) {
	case ATAG_SLAB:
	case ATAG_LARGE:
	case ATAG_LONG:
		kfree(h->ptr);
		break;
	case ATAG_PAGE:
	case ATAG_SPLIT:
		__free_pages(h->page, h->order);
		break;
	case ATAG_PERCPU:
		free_percpu((void __percpu *)h->ptr);
		break;
	}
}

static void atag_free_all(void)
{
	while (atag_nr_held)
		atag_release(&atag_held[--atag_nr_held]);
}

static int atag_alloc_one(enum atag_kind kind, unsigned long arg)
{
	struct page *page;
	void *ptr;
	int i, ret;

	switch (kind) {
	case ATAG_SLAB:
	case ATAG_LARGE:
	case ATAG_LONG:
		if (kind == ATAG_LARGE ? arg <= KMALLOC_MAX_CACHE_SIZE || arg > KMALLOC_MAX_SIZE :
					 !arg || arg > KMALLOC_MAX_CACHE_SIZE)
			return -EINVAL;
		if (kind == ATAG_SLAB)
			ptr = atag_test_slab_alloc(arg);
		else if (kind == ATAG_LARGE)
			ptr = atag_test_large_alloc(arg);
		else
			ptr = atag_test_function_with_a_deliberately_long_name_to_check_suffix_match(arg);
		if (!ptr)
			return -ENOMEM;
		ret = atag_hold(kind, ptr, NULL, 0, arg);
		if (ret)
			kfree(ptr);
		return ret;
	case ATAG_PAGE:
		if (arg > 4)
			return -EINVAL;
		page = atag_test_page_alloc(arg);
		if (!page)
			return -ENOMEM;
		ret = atag_hold(kind, page_address(page), page, arg, PAGE_SIZE << arg);
		if (ret)
			__free_pages(page, arg);
		return ret;
	case ATAG_SPLIT:
		if (arg < 1 || arg > 4)
			return -EINVAL;
		if (atag_nr_held + (1 << arg) > ATAG_TEST_MAX)
			return -ENOSPC;
		page = atag_test_split_alloc(arg);
		if (!page)
			return -ENOMEM;
		split_page(page, arg);
		for (i = 0; i < (1 << arg); i++)
			atag_hold(kind, page_address(page + i), page + i, 0, PAGE_SIZE);
		return 0;
	case ATAG_PERCPU:
		if (!arg || arg > PCPU_MIN_UNIT_SIZE)
			return -EINVAL;
		ptr = (__force void *)atag_test_percpu_alloc(arg);
		if (!ptr)
			return -ENOMEM;
		ret = atag_hold(kind, ptr, NULL, 0, arg);
		if (ret)
			free_percpu((void __percpu *)ptr);
		return ret;
	}
	return -EINVAL;
}

static ssize_t atag_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	unsigned long arg = 0, n = 1, i;
	char buf[64], kind[16];
	int k, ret = 0;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	if (sscanf(buf, "%15s %lu %lu", kind, &arg, &n) < 1)
		return -EINVAL;

	mutex_lock(&atag_lock);
	if (!strcmp(kind, "free")) {
		atag_free_all();
		goto out;
	}
	for (k = 0; k < ARRAY_SIZE(atag_kind_name); k++)
		if (!strcmp(kind, atag_kind_name[k]))
			break;
	if (k == ARRAY_SIZE(atag_kind_name) || n > ATAG_TEST_MAX) {
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < n && !ret; i++)
		ret = atag_alloc_one(k, arg);
out:
	mutex_unlock(&atag_lock);
	return ret ? ret : count;
}

static int atag_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&atag_lock);
	for (i = 0; i < atag_nr_held; i++)
		seq_printf(m, "%s %px %zu\n", atag_kind_name[atag_held[i].kind],
			   atag_held[i].ptr, atag_held[i].size);
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

static struct proc_dir_entry *atag_entry;

static int __init atag_test_init(void)
{
	atag_entry = proc_create("atag_test", 0600, NULL, &atag_proc_ops);
	return atag_entry ? 0 : -ENOMEM;
}

static void __exit atag_test_exit(void)
{
	proc_remove(atag_entry);
	mutex_lock(&atag_lock);
	atag_free_all();
	mutex_unlock(&atag_lock);
}

module_init(atag_test_init);
module_exit(atag_test_exit);
MODULE_DESCRIPTION("Allocations from known call sites for the alloc_tag VM tests");
MODULE_LICENSE("GPL");
