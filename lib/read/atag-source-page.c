// SPDX-License-Identifier: LGPL-2.1
/*
 * Source adapter for the page allocator events:
 *
 *   mm_page_alloc          pfn (or page), order
 *   mm_page_free           pfn (or page), order
 *   mm_page_free_batched   pfn (or page): order 0
 *
 * Keyed by pfn; bytes = page size << order. The events carry no call site: as
 * perf kmem does, the call site is the first frame of the allocation's stack
 * (recorded with -T) that is neither tracing machinery nor the allocator.
 */
#include "atag-source.h"

enum { F_PFN, F_ORDER };

static int decode(struct atag_decoder *d, const struct atag_field *f,
		  const struct tep_record *rec, struct atag_event *ev, bool has_order)
{
	uint64_t order = 0;

	if (atag_field_read(d, &f[F_PFN], rec, &ev->ptr) ||
	    (has_order && atag_field_read(d, &f[F_ORDER], rec, &order)) || order > 40)
		return -1;
	ev->bytes = (uint64_t)atag_decoder_page_size(d) << order;
	/* a failed allocation records pfn -1 */
	return ev->ptr == ~0ULL || ev->ptr == 0xffffffffULL ? 1 : 0;
}

static int decode_alloc(struct atag_decoder *d, const struct atag_field *f,
			const struct tep_record *rec, struct atag_event *ev)
{
	ev->kind = ATAG_EV_ALLOC;
	ev->tag = 0;
	ev->stack_follows = true;
	return decode(d, f, rec, ev, true);
}

static int decode_free(struct atag_decoder *d, const struct atag_field *f,
		       const struct tep_record *rec, struct atag_event *ev)
{
	ev->kind = ATAG_EV_FREE;
	ev->tag = 0;
	return decode(d, f, rec, ev, true);
}

static int decode_free_batched(struct atag_decoder *d, const struct atag_field *f,
			       const struct tep_record *rec, struct atag_event *ev)
{
	ev->kind = ATAG_EV_FREE;
	ev->tag = 0;
	return decode(d, f, rec, ev, false);
}

static const struct atag_source_event events[] = {
	{ "kmem", "mm_page_alloc", { "pfn|page", "order" }, decode_alloc },
	{ "kmem", "mm_page_free", { "pfn|page", "order" }, decode_free },
	{ "kmem", "mm_page_free_batched", { "pfn|page" }, decode_free_batched },
	{ NULL }
};

const struct atag_source atag_source_page = {
	.name = "page",
	.description = "kmem:mm_page_alloc, mm_page_free, mm_page_free_batched",
	.events = events,
	.stack_site = atag_source_stack_call_site,
	.name_tag = atag_source_name_code,
};
