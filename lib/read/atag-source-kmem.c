// SPDX-License-Identifier: LGPL-2.1
/*
 * Source adapter for the slab events of today's kernels:
 *
 *   kmalloc, kmalloc_node, kmem_cache_alloc, kmem_cache_alloc_node
 *                          call_site, ptr, bytes_alloc
 *   kfree, kmem_cache_free call_site, ptr
 *
 * The call site plays the tag's role; a stack recorded with -T follows the
 * allocation itself. Failed allocations (ptr 0) and kfree(NULL) are skipped.
 */
#include "atag-source.h"

enum { F_CALL_SITE, F_PTR, F_BYTES };

static int decode_alloc(struct atag_decoder *d, const struct atag_field *f,
			const struct tep_record *rec, struct atag_event *ev)
{
	if (atag_field_read(d, &f[F_CALL_SITE], rec, &ev->tag) ||
	    atag_field_read(d, &f[F_PTR], rec, &ev->ptr) ||
	    atag_field_read(d, &f[F_BYTES], rec, &ev->bytes))
		return -1;
	ev->kind = ATAG_EV_ALLOC;
	ev->stack_follows = true;
	return ev->ptr ? 0 : 1;
}

static int decode_free(struct atag_decoder *d, const struct atag_field *f,
		       const struct tep_record *rec, struct atag_event *ev)
{
	if (atag_field_read(d, &f[F_CALL_SITE], rec, &ev->tag) ||
	    atag_field_read(d, &f[F_PTR], rec, &ev->ptr))
		return -1;
	ev->kind = ATAG_EV_FREE;
	return ev->ptr ? 0 : 1;
}

#define ALLOC_FIELDS	{ "call_site", "ptr", "bytes_alloc" }
#define FREE_FIELDS	{ "call_site", "ptr" }

static const struct atag_source_event events[] = {
	{ "kmem", "kmalloc", ALLOC_FIELDS, decode_alloc },
	{ "kmem", "kmalloc_node", ALLOC_FIELDS, decode_alloc },
	{ "kmem", "kmem_cache_alloc", ALLOC_FIELDS, decode_alloc },
	{ "kmem", "kmem_cache_alloc_node", ALLOC_FIELDS, decode_alloc },
	{ "kmem", "kfree", FREE_FIELDS, decode_free },
	{ "kmem", "kmem_cache_free", FREE_FIELDS, decode_free },
	{ NULL }
};

const struct atag_source atag_source_kmem = {
	.name = "kmem",
	.description = "kmem:kmalloc, kmem_cache_alloc, kfree, kmem_cache_free",
	.events = events,
	.nests = true,
	.name_tag = atag_source_name_code,
};
