/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-bigmem.h - large buffers backed by transparent huge pages where the
 * system allows them (used by the command too).
 *
 * A first touch of a 4 KiB page costs a page fault, and virtual machines that
 * trap page-table updates to the host make each fault expensive: a 4 MiB buffer
 * filled once costs 1 024 faults on small pages, two on huge pages (bench/README.md
 * has what that is worth). Where transparent huge pages are off ("never"), the
 * buffer is ordinary memory.
 */
#ifndef _ATAG_BIGMEM_H
#define _ATAG_BIGMEM_H

#include <stddef.h>

/*
 * @size bytes, zero-filled; from 2 MiB up aligned to 2 MiB and on huge pages, a
 * smaller buffer from malloc. NULL on ENOMEM. Free with atag_bigmem_free() and
 * the same @size.
 */
void *atag_bigmem_alloc(size_t size);
void atag_bigmem_free(void *p, size_t size);

/*
 * A hint for a block from malloc of @size bytes, which malloc takes from mmap past
 * its threshold (M_MMAP_THRESHOLD: where atag_bigmem_hint_heap() cannot reach): from
 * ATAG_BIGMEM_HINT_MIN bytes up, the aligned 2 MiB ranges inside it are marked for
 * huge pages. Best before the block is touched: pages touched already stay small.
 */
#define ATAG_BIGMEM_HINT_MIN	(8UL << 20)
void atag_bigmem_hint(void *p, size_t size);

/*
 * Mark the next @size bytes of malloc's heap for huge pages: allocated untouched
 * in blocks of @piece bytes (at most 16 of them), hinted, freed again. Only for a
 * process that has told malloc to take blocks of @piece from the heap and never
 * to trim it (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD), as trace-cmd-alloc-tag's main()
 * does. Untouched, the memory costs no RSS.
 */
void atag_bigmem_hint_heap(size_t size, size_t piece);

#endif /* _ATAG_BIGMEM_H */
