/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-stack-ids.h - the distinct kernel stacks of one trace, numbered as the
 * decoder meets them (library-internal).
 *
 * Each distinct set of frames gets an id, 1, 2, 3, ... in the order of first
 * sight, and keeps what the decoder worked out from it once (the event it names,
 * the call site it gives), so a stack met again costs one hash and one
 * comparison of its frames, not a classification. Frames are compared whole:
 * two sets share an id only if they are equal. A set whose hash another set took
 * first gets no id (0), nor does any set once the table is full (the limits
 * below): such stacks are just not numbered. The ids are what struct
 * atag_kstack.key carries.
 */
#ifndef _ATAG_STACK_IDS_H
#define _ATAG_STACK_IDS_H

#include <stdbool.h>
#include <stdint.h>

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

#define ATAG_STACK_IDS_MAX		(1U << 20)	/* sets of frames numbered */
#define ATAG_STACK_IDS_MAX_FRAMES	(16U << 20)	/* frames of all of them */

/* What the decoder learned of a set of frames the first time. */
struct atag_stack_info {
	int		type;		/* the event it names, or -1 */
	bool		site_known;	/* site was worked out */
	uint64_t	site;
};

/*
 * A distinct set of frames: its id, what the decoder learned of it, its frames
 * (aligned copies).
 */
struct atag_stack_entry {
	uint32_t		id;
	uint32_t		nr;
	struct atag_stack_info	info;
	uint64_t		frames[];
};

struct atag_stack_ids;

struct atag_stack_ids *atag_stack_ids_alloc(void) __hidden;
void atag_stack_ids_free(struct atag_stack_ids *t) __hidden;

/*
 * The entry of the @nr frames at @raw (u64 in the machine's byte order, at any
 * alignment), numbered on first sight (then *@created is true and the info is
 * zero, its type -1); NULL if they get no id. An entry stays where it is, its
 * frames unchanged, until the table is freed.
 */
struct atag_stack_entry *atag_stack_ids_find(struct atag_stack_ids *t, const void *raw,
					     unsigned int nr, bool *created) __hidden;

/*
 * atag_stack_ids_find() of a stack record of CPU @cpu, met in the order of its
 * page's records: where the look-ahead found its entry when the page was entered
 * (atag_stack_ids_ahead_page()), and the frames are that entry's, the entry
 * without a hash or a lookup; else the lookup.
 */
struct atag_stack_entry *atag_stack_ids_find_on(struct atag_stack_ids *t, int cpu,
						const void *raw, unsigned int nr,
						bool *created) __hidden;

/*
 * The look-ahead (atag_decoder_ahead()): the @nr frames at @raw are a stack
 * record of CPU @cpu's next page; its slot in the table is prefetched.
 */
void atag_stack_ids_ahead(struct atag_stack_ids *t, int cpu, const void *raw,
			  unsigned int nr) __hidden;

/*
 * CPU @cpu enters the page of the stacks named since its last call: their
 * entries are prefetched. Whether the next page's stacks are worth naming: not
 * while the table fits in the caches.
 */
bool atag_stack_ids_ahead_page(struct atag_stack_ids *t, int cpu) __hidden;

#endif /* _ATAG_STACK_IDS_H */
