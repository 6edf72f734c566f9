// SPDX-License-Identifier: LGPL-2.1
/*
 * Large buffers on transparent huge pages. See atag-bigmem.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "atag-bigmem.h"

#define HUGE_PAGE	(2UL << 20)

static size_t round_up(size_t n)
{
	return (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void *atag_bigmem_alloc(size_t size)
{
	size_t len = round_up(size), head;
	uint8_t *p, *a;

	if (size < HUGE_PAGE)
		return calloc(1, size ? size : 1);
	if (len < size)
		return NULL;
	/* one huge page more, to cut an aligned start out of it */
	p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (uint8_t *)round_up((uintptr_t)p);
	head = a - p;
	if (head)
		munmap(p, head);
	munmap(a + len, HUGE_PAGE - head);
	/* a hint: without huge pages (THP "never") the memory is just ordinary */
	madvise(a, len, MADV_HUGEPAGE);
	return a;
}

void atag_bigmem_free(void *p, size_t size)
{
	if (size < HUGE_PAGE)
		free(p);
	else if (p)
		munmap(p, round_up(size));
}

/* Mark the aligned 2 MiB ranges inside @size bytes at @p for huge pages. */
static void hint_range(void *p, size_t size)
{
	uintptr_t start = round_up((uintptr_t)p), end = ((uintptr_t)p + size) & ~(HUGE_PAGE - 1);

	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}

void atag_bigmem_hint(void *p, size_t size)
{
	if (size >= ATAG_BIGMEM_HINT_MIN)
		hint_range(p, size);
}

#define HINT_PIECES	16

void atag_bigmem_hint_heap(size_t size, size_t piece)
{
	char *p[HINT_PIECES];
	size_t n;

	/* grow the heap untouched, hint it, give it back to malloc (never trimmed) */
	for (n = 0; n < HINT_PIECES && size; n++) {
		p[n] = malloc(piece);
		if (!p[n])
			break;
		hint_range(p[n], piece);
		size -= piece < size ? piece : size;
	}
	while (n)
		free(p[--n]);
}
