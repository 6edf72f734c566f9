/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-stitch.h - turn allocation and free events into allocation lifetimes.
 *
 * The engine of "report", in three objects that data flows through one way:
 *
 *   reader --atag_event, atag_kstack--> stitcher --> aggregates (per tag, per stack)
 *
 * A reader (include/atag-read.h) decodes trace records into the messages of
 * include/atag-event.h; the stitcher applies the stitching rules and updates the
 * aggregates. The stitcher knows nothing of trace.dat files, never calls back
 * into the reader, and calls no libtraceevent function, so it can run in a
 * thread of its own and its rules can be tested on in-memory event streams.
 *
 * Stitching rules:
 *  - HIT (pid P, tag T): the kernel stack recorded right after it on the same CPU
 *    with the same pid is the stack of the call at T; it is cached under (P, T)
 *    and stays there until the next HIT of (P, T) drops it. One call can make
 *    several allocations of its tag (a vmalloc'ed thread stack: its vm_struct,
 *    then its pages), each an ALLOC of (P, T) after the one HIT.
 *  - Stacks attach to the latest event on their CPU still waiting for one: an
 *    interrupt's event and its stack may fall between an event and its own stack.
 *    A stack that names its event (the trace_event_raw_event_<event> frame) goes
 *    to the latest waiting event of that type; otherwise event types never
 *    followed by a stack stop waiting once that is seen.
 *  - ALLOC (P, T, ptr, bytes): a live record keyed by ptr, with the stack cached
 *    under (P, T), looked up and not consumed, as the series' documentation says
 *    tools correlate the events (none cached: the empty stack). With
 *    stack_follows, the ALLOC's own stack follows it instead (kmem and page
 *    sources, recorded with -T).
 *  - ALLOC at a ptr still live: when the live record is task P's own last
 *    allocation or free event, made on the same CPU (kvmalloc's inner kmalloc
 *    event, then its caller's event for the same pointer), the two events are one
 *    allocation: the inner one is taken back from its call site and the
 *    allocation counts once, under the outer call site ("nested"). Any other
 *    live record at ptr is retired as "replaced" (its free was not traced).
 *  - FREE (ptr, bytes): retires the live record at ptr, whoever frees it;
 *    lifetime = ts difference, counted for the tag of the allocation. No live
 *    record: an "unmatched" free, counted for the tag of the free. Fewer bytes
 *    than allocated: a "partial" free (still retired). bytes 0 means the event
 *    carries no size: the record's bytes.
 *  - Observer cost: a stack's capture cost is the time from the record before it
 *    on its CPU (its event, or what nested in between) to the stack. It is
 *    summed per CPU and per task. A lifetime ended by the allocating task's own
 *    free has the capture time of that task in between taken out (unless raw
 *    lifetimes are asked for); one ended by another task stays raw. Both are
 *    counted per tag (struct atag_inflation).
 *  - A tag of 0 on an ALLOC whose stack follows takes the call site its stack
 *    carries (struct atag_kstack.site: page events carry no call site).
 *  - An ALLOC marked filtered (its task is outside the task filter) is live but
 *    never counted in the tag aggregates, nor is its free; it is counted per
 *    task class instead (atag_stitch_excluded()). A filtered FREE that matches
 *    nothing is ignored.
 *  - Sources: each has its own tags, aggregates and live records (an address of
 *    one source is not one of another: slab objects and pages); stack
 *    attribution and observer cost are shared.
 *  - WINDOW: between its open and close, every ALLOC and FREE (of any task) also
 *    counts in its tag's struct atag_window.
 *
 * Memory grows with live records, distinct stacks and cached stacks (one per
 * (pid, tag) pair that had a hit with a stack: bounded by the tasks that allocated
 * at traced call sites, not by the hits), never with the number of events.
 *
 * Threads: a stitcher, its aggregates and its stacks belong to one thread at a
 * time and need nothing else: report stitches on a thread of its own and reads
 * the results after joining it (lib/report/atag-run.h). Functions that return
 * an int return 0 or a negative errno (-ENOMEM: the only way they fail).
 */
#ifndef _ATAG_STITCH_H
#define _ATAG_STITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atag-counters.h"
#include "atag-event.h"
#include "atag-lifetime.h"

/* ------------------------------------------------------------ stacks */

/*
 * Interned stacks: each distinct sequence of frames is stored once, named by a
 * small id that stays valid while the table lives. Id 0 is the empty stack.
 */
struct atag_stacks;

/* An empty table (holding the empty stack); NULL on ENOMEM. */
struct atag_stacks *atag_stacks_alloc(void);
void atag_stacks_free(struct atag_stacks *stacks);

/* The id of the stack @frames[0..@nr), interned on first sight; -1 on ENOMEM. */
int64_t atag_stacks_intern(struct atag_stacks *stacks, const uint64_t *frames, unsigned int nr);

/*
 * From now on, frames their producer keeps (struct atag_kstack.kept, given as
 * @kept to atag_stacks_intern_kept()) are not copied: the table points to them.
 * Only for a table freed before the readers whose stacks it interns are closed.
 */
void atag_stacks_borrow_kept(struct atag_stacks *stacks);

/* atag_stacks_intern(), of frames @kept by their producer or not. */
int64_t atag_stacks_intern_kept(struct atag_stacks *stacks, const uint64_t *frames,
				unsigned int nr, bool kept);

/* The frames of stack @id (NULL for the empty stack) and their number in *@nr. */
const uint64_t *atag_stacks_get(const struct atag_stacks *stacks, uint32_t id, unsigned int *nr);

/* How many distinct stacks the table holds, the empty one included. */
size_t atag_stacks_count(const struct atag_stacks *stacks);

/* ------------------------------------------------------------ aggregates */

/*
 * The aggregates of one stitched trace: per tag (its call site when known, its
 * counters and lifetimes) and per (tag, stack), in the order first seen. The
 * stitcher updates them; what they count is include/atag-counters.h.
 */

/* What is known of a tag and what happened to it. */
struct atag_tag_stats {
	uint64_t		tag;		/* tag pointer, or call_site address */
	char			*function;	/* learned from HIT events; NULL if never seen */
	char			*file;
	char			*module;	/* NULL for built-in */
	long			line;		/* -1 if unknown */
	struct atag_counters	counts;
	struct atag_lifetime	lifetimes;	/* corrected for captures unless raw */
	struct atag_inflation	inflation;
	uint64_t		nested;		/* inner events folded into its allocations */
	struct atag_window	window;
	uint64_t		events;		/* ALLOC and FREE events of any task */
	/*
	 * An allocation or free counted here was not a whole number of pages
	 * (ATAG_MIN_PAGE_SIZE): atag_counters_may_be_pages()
	 */
	bool			sub_page;
};

/* Allocations of one tag with one stack. */
struct atag_stack_stats {
	uint32_t		tag_idx;
	uint32_t		stack_id;
	struct atag_counters	counts;
};

struct atag_aggr;

/* Empty aggregates; NULL on ENOMEM. */
struct atag_aggr *atag_aggr_alloc(void);
void atag_aggr_free(struct atag_aggr *aggr);

/* Index of @tag in the tag table, added on first sight; -1 on ENOMEM. */
int64_t atag_aggr_tag_index(struct atag_aggr *aggr, uint64_t tag);

/* Record the call site of @tag_idx (strings are copied; @module NULL = built-in). */
int atag_aggr_set_site(struct atag_aggr *aggr, uint32_t tag_idx, const char *function,
		       const char *file, long line, const char *module);

/* The tags, indexed 0 .. nr - 1 (NULL past the end); a tag's index never changes. */
size_t atag_aggr_nr_tags(const struct atag_aggr *aggr);
const struct atag_tag_stats *atag_aggr_tag(const struct atag_aggr *aggr, size_t idx);
/* The (tag, stack) pairs likewise. */
size_t atag_aggr_nr_stacks(const struct atag_aggr *aggr);
const struct atag_stack_stats *atag_aggr_stack(const struct atag_aggr *aggr, size_t idx);
/* The totals over every tag (computed when asked). */
const struct atag_totals *atag_aggr_totals(struct atag_aggr *aggr);

/*
 * Prefetching, for a look-ahead of the stitcher (atag_stitch_prefetch()): what
 * counting an allocation under stack @stack_id will read (with @pair false its
 * entry in the index of first pairs, then with @pair true the pair that leads
 * to); the (tag, stack) pair @idx. No effect on the counts.
 */
void atag_aggr_prefetch_stack(const struct atag_aggr *aggr, uint32_t stack_id, bool pair);
void atag_aggr_prefetch_pair(const struct atag_aggr *aggr, uint32_t idx);
/* Bytes of its (tag, stack) pairs and their index: what misses the caches first. */
size_t atag_aggr_bytes(const struct atag_aggr *aggr);

/*
 * Also keep a timeline of live bytes (include/atag-timeline.h) of @buckets
 * buckets: its sites are the tag indices, its stacks the (tag, stack) indices
 * above. Before the first event. 0 or -ENOMEM.
 */
int atag_aggr_keep_timeline(struct atag_aggr *aggr, unsigned int buckets);
/* The timeline kept, or NULL. */
struct atag_timeline *atag_aggr_timeline(const struct atag_aggr *aggr);

/* ------------------------------------------------------------ the stitcher */

/* A live allocation, as atag_stitch_live_next() shows it. */
struct atag_live {
	uint64_t	ptr;
	uint64_t	ts;
	uint64_t	bytes;
	uint64_t	seq;		/* its number in the stitcher: never reused */
	uint64_t	observed;	/* its task's capture time so far, when it was made */
	uint32_t	tag_idx;	/* in the aggregates of its source */
	uint32_t	stack_id;
	uint32_t	stats_idx;	/* its (tag, stack) aggregate, once counted */
	int32_t		pid;
	uint8_t		pending;	/* waiting for its own stack */
	uint8_t		counted;	/* not filtered: in the aggregates */
	uint8_t		src;		/* its source */
	uint8_t		task;		/* enum atag_task of the allocating task */
	uint8_t		provisional;	/* its tag stands until its stack gives a call site */
};

struct atag_stitcher;

/*
 * A stitcher that feeds @aggr (source 0) and interns stacks in @stacks (both
 * owned by the caller, and to outlive it); NULL on ENOMEM.
 */
struct atag_stitcher *atag_stitcher_alloc(struct atag_aggr *aggr, struct atag_stacks *stacks);
void atag_stitcher_free(struct atag_stitcher *st);

/* At most this many sources per stitcher. */
#define ATAG_STITCH_MAX_SOURCES	8

/*
 * One more source, whose events (struct atag_event.src) feed @aggr. Returns its
 * index, or -ENOMEM, -E2BIG past ATAG_STITCH_MAX_SOURCES. Before the first event.
 */
int atag_stitcher_add_source(struct atag_stitcher *st, struct atag_aggr *aggr);

/*
 * Source @src's allocations may nest (struct atag_source.nests): an allocation at a
 * live pointer that is the same task's last event, on the same CPU, is the outer
 * event of one allocation, not a replace. Off by default. Before the first event.
 */
void atag_stitcher_nesting(struct atag_stitcher *st, unsigned int src, bool nests);

/* Keep lifetimes raw: the capture time of the task is not taken out. Before the first event. */
void atag_stitcher_raw_lifetimes(struct atag_stitcher *st, bool raw);

/*
 * Keep no live record of the allocations marked filtered (struct atag_event):
 * memory then follows the live allocations of the tasks counted, not the whole
 * system's. Such an allocation still retires a live record at its address
 * (replaced: its free was not seen); a counted task's free of what a filtered
 * task allocated is an unmatched free. Off by default (report keeps them, to
 * match frees and count the other tasks); top and leaks turn it on. Before the
 * first event.
 */
void atag_stitcher_forget_filtered(struct atag_stitcher *st, bool forget);

/*
 * The messages of include/atag-event.h, in the order the reader made them
 * (timestamp order across CPUs). Each returns 0 or -ENOMEM.
 *   atag_stitch_event()   one decoded record
 *   atag_stitch_stack()   one kernel stack: it goes to the event waiting for it
 *                         (interned once per key, when the stream gives keys)
 *   atag_stitch_missed()  events were lost on @cpu: no event before the gap can
 *                         own a stack after it
 */
int atag_stitch_event(struct atag_stitcher *st, const struct atag_event *ev);
int atag_stitch_stack(struct atag_stitcher *st, const struct atag_kstack *ks);
int atag_stitch_missed(struct atag_stitcher *st, int cpu);

/*
 * The end of the stream: allocations still waiting for a stack are committed
 * without one. Call it once, before reading the aggregates. 0 or -ENOMEM.
 */
int atag_stitch_finish(struct atag_stitcher *st);

/* Stacks that matched no waiting event (a sign of lost events or odd recording). */
uint64_t atag_stitch_orphan_stacks(const struct atag_stitcher *st);

/* What the stack captures of one CPU cost (the observer's cost). */
struct atag_captures {
	uint64_t		stacks;		/* captures measured */
	uint64_t		ns;		/* their time */
	struct atag_lifetime	cost;		/* the distribution of their costs */
};

/* The CPUs to ask atag_stitch_captures() about: 0 .. this - 1. */
int atag_stitch_nr_cpus(const struct atag_stitcher *st);
/* The captures of @cpu; NULL when it had none. */
const struct atag_captures *atag_stitch_captures(const struct atag_stitcher *st, int cpu);

/*
 * Allocations of source @src by tasks of class @task (enum atag_task) that the
 * task filter left out: counted here instead, frees and live ones included.
 */
const struct atag_counters *atag_stitch_excluded(const struct atag_stitcher *st, int src,
						 int task);

/* The counters window: whether it opened and closed, and when (ns). */
bool atag_stitch_window(const struct atag_stitcher *st, uint64_t *open, uint64_t *close);

/* A sink (include/atag-event.h) that feeds @st. */
void atag_stitch_sink(struct atag_stitcher *st, struct atag_sink *sink);

/*
 * A look-ahead: prefetch, in @stage 0, 1 then 2 (each a few messages later),
 * what a stack of key @key (@ptr 0), or a free of @ptr by source @src (@key 0),
 * coming later in the stream will read: the key's stack id, its first pair's
 * index entry, the pair; the live map's slot, the live record, its pair. No
 * effect on the stitch. Pays only when those tables are past the caches:
 * atag_stitch_wants_prefetch() says whether they are.
 */
void atag_stitch_prefetch(struct atag_stitcher *st, unsigned int stage, unsigned int src,
			  uint64_t ptr, uint32_t key);
bool atag_stitch_wants_prefetch(const struct atag_stitcher *st);

/*
 * How a counted allocation ended, as atag_stitcher_on_end() tells it: freed, or
 * replaced (an allocation at its address while it was live: its free was not
 * traced). An inner event folded into its outer one (nested) does not end: the
 * allocation goes on under the outer call site.
 */
enum atag_end_how {
	ATAG_END_FREED,
	ATAG_END_REPLACED,
};

struct atag_ended {
	const struct atag_live	*l;		/* its record, as it was when it ended */
	enum atag_end_how	how;
	uint64_t		ts;		/* of the free, or of the replacing allocation */
	uint64_t		lifetime;	/* freed: as counted (captures out unless raw) */
	uint64_t		bytes_freed;	/* freed: the bytes the free said */
};

/*
 * Call @fn (with @ctx) whenever an allocation that counts in the aggregates
 * ends, in stream order, on the stitcher's thread; NULL: no hook. What it
 * returns (0, or -ENOMEM) is what the event that ended the allocation returns.
 * Memory stays that of the stitcher: the hook is told, nothing is kept for it.
 * Before the first event.
 */
typedef int (*atag_end_fn)(void *ctx, const struct atag_ended *e);
void atag_stitcher_on_end(struct atag_stitcher *st, atag_end_fn fn, void *ctx);

/* Walk the live records: for (i = 0; (l = atag_stitch_live_next(st, &i)); ) */
const struct atag_live *atag_stitch_live_next(const struct atag_stitcher *st, size_t *iter);

#endif /* _ATAG_STITCH_H */
