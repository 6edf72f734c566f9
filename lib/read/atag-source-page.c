// SPDX-License-Identifier: LGPL-2.1
/*
 * Source adapter for the page allocator events:
 *
 *   mm_page_alloc          pfn (or page), order, gfp_flags, migratetype
 *   mm_page_free           pfn (or page), order
 *   mm_page_free_batched   pfn (or page): order 0
 *
 * Keyed by pfn; bytes = page size << order. The events carry no call site: as
 * perf kmem does, the call site is the first frame of the allocation's stack
 * (recorded with -T) that is neither tracing machinery nor the allocator. Until its
 * stack names it (and for good when none comes: recorded without stacks, or the
 * stack lost), an allocation is named by what its event knows: order, GFP flags (by
 * their names, as the event's format prints them) and migrate type. A free whose allocation the trace does not hold is named by its
 * order. Those names are tags no kernel address can be (non-canonical values, top
 * byte 0x50), so that they never meet a call site's.
 */
#include <stdio.h>

#include "atag-print-flags.h"
#include "atag-source.h"

enum { F_PFN, F_ORDER, F_GFP, F_MIGRATETYPE };

/* tag = 0x50 in the top byte, the kind, then the order, migrate type and GFP flags */
#define NAMED		0x5000000000000000ULL
#define NAMED_MASK	0xff00000000000000ULL
#define KIND_FREE	0x0080000000000000ULL
#define ORDER_SHIFT	48
#define MT_SHIFT	40

static uint64_t alloc_name(uint64_t order, uint64_t gfp, uint64_t mt)
{
	return NAMED | (order & 0x7f) << ORDER_SHIFT | (mt & 0xff) << MT_SHIFT |
	       (gfp & 0xffffffffULL);
}

static uint64_t free_name(uint64_t order)
{
	return NAMED | KIND_FREE | (order & 0x7f) << ORDER_SHIFT;
}

static int decode(struct atag_decoder *d, const struct atag_field *f,
		  const struct tep_record *rec, struct atag_event *ev, bool has_order,
		  uint64_t *order)
{
	*order = 0;
	if (atag_field_read(d, &f[F_PFN], rec, &ev->ptr) ||
	    (has_order && atag_field_read(d, &f[F_ORDER], rec, order)) || *order > 40)
		return -1;
	ev->bytes = (uint64_t)atag_decoder_page_size(d) << *order;
	/* a failed allocation records pfn -1 */
	return ev->ptr == ~0ULL || ev->ptr == 0xffffffffULL ? 1 : 0;
}

static int decode_alloc(struct atag_decoder *d, const struct atag_field *f,
			const struct tep_record *rec, struct atag_event *ev)
{
	uint64_t order, gfp = 0, mt = 0;
	int ret = decode(d, f, rec, ev, true, &order);

	/* fields older kernels may lack are 0 */
	if (!ret && f[F_GFP].size && atag_field_read(d, &f[F_GFP], rec, &gfp))
		return -1;
	if (!ret && f[F_MIGRATETYPE].size && atag_field_read(d, &f[F_MIGRATETYPE], rec, &mt))
		return -1;
	ev->kind = ATAG_EV_ALLOC;
	ev->tag = alloc_name(order, gfp, mt);
	ev->tag_provisional = true;
	ev->stack_follows = true;
	return ret;
}

static int decode_free(struct atag_decoder *d, const struct atag_field *f,
		       const struct tep_record *rec, struct atag_event *ev)
{
	uint64_t order;
	int ret = decode(d, f, rec, ev, true, &order);

	ev->kind = ATAG_EV_FREE;
	ev->tag = free_name(order);
	return ret;
}

static int decode_free_batched(struct atag_decoder *d, const struct atag_field *f,
			       const struct tep_record *rec, struct atag_event *ev)
{
	uint64_t order;
	int ret = decode(d, f, rec, ev, false, &order);

	ev->kind = ATAG_EV_FREE;
	ev->tag = free_name(0);
	return ret;
}

/*
 * The migrate types every kernel of the page events has in this order
 * (include/linux/mmzone.h: MIGRATE_UNMOVABLE, MOVABLE, RECLAIMABLE); higher ones
 * depend on the configuration and are given as numbers.
 */
static const char *const migratetypes[] = { "unmovable", "movable", "reclaimable" };

/*
 * A named tag ("pages of order 0, GFP_HIGHUSER_MOVABLE, movable: no stack"); other
 * tags are code addresses, named by the trace's kallsyms.
 */
static void name_tag(struct atag_decoder *d, uint64_t tag, const char **function,
		     uint64_t *offset, const char **module)
{
	char *buf = atag_decoder_name_buf(d);
	unsigned int order = tag >> ORDER_SHIFT & 0x7f, mt = tag >> MT_SHIFT & 0xff;
	char mts[16], gfp[192];

	if ((tag & NAMED_MASK) != NAMED) {
		atag_source_name_code(d, tag, function, offset, module);
		return;
	}
	if (tag & KIND_FREE) {
		snprintf(buf, ATAG_DECODER_NAME_LEN, "pages of order %u, allocated before the "
			 "trace", order);
	} else {
		if (mt < sizeof(migratetypes) / sizeof(migratetypes[0]))
			snprintf(mts, sizeof(mts), "%s", migratetypes[mt]);
		else
			snprintf(mts, sizeof(mts), "migratetype %u", mt);
		/* as the event prints them (0 is "none" there); a number without names */
		if (!(tag & 0xffffffffULL))
			snprintf(gfp, sizeof(gfp), "no GFP flags");
		else if (atag_decoder_gfp_names(d))
			atag_print_flags_format(atag_decoder_gfp_names(d), tag & 0xffffffffULL,
						gfp, sizeof(gfp));
		else
			snprintf(gfp, sizeof(gfp), "gfp 0x%llx", tag & 0xffffffffULL);
		snprintf(buf, ATAG_DECODER_NAME_LEN, "pages of order %u, %s, %s: no stack",
			 order, gfp, mts);
	}
	*function = buf;
	*offset = ~0ULL;
	*module = NULL;
}

static const struct atag_source_event events[] = {
	{ "kmem", "mm_page_alloc", { "pfn|page", "order", "gfp_flags", "migratetype" },
	  decode_alloc },
	{ "kmem", "mm_page_free", { "pfn|page", "order" }, decode_free },
	{ "kmem", "mm_page_free_batched", { "pfn|page" }, decode_free_batched },
	{ NULL }
};

const struct atag_source atag_source_page = {
	.name = "page",
	.description = "kmem:mm_page_alloc, mm_page_free, mm_page_free_batched",
	.events = events,
	.stack_site = atag_source_stack_call_site,
	.name_tag = name_tag,
};
