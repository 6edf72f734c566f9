/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-event.h - what readers produce: decoded events, kernel stacks, gaps, and
 * the sink they are delivered into.
 *
 * The engine runs one way:
 *
 *   trace.dat -> reader (include/atag-read.h) --sink--> stitcher -> aggregates -> renderers
 *
 * A reader decodes trace records into the three messages of this header and hands
 * them to a struct atag_sink: straight into a stitcher (atag_stitch_sink() of
 * lib/stitch/atag-stitch.h), or into the queue to a stitching thread. Everything a
 * message needs from the trace (libtraceevent's symbol and comm tables, the
 * strings inside a record) is resolved by the reader before the message is
 * handed over, so a sink never calls back into the reader side, and everything it
 * gets is plain data:
 *
 *  - the call site of a hit (its strings), the first time the reader meets its tag;
 *  - which source an event belongs to, when a file holds the events of several
 *    (slab and page events of one recording);
 *  - who the task of an allocation or free is (the recording's workload, its
 *    recorder, another task) and whether it passes the task filter;
 *  - where the recording's counters window opens and closes (its marker lines);
 *  - the event type a kernel stack names, and the call site the page source takes
 *    from it (the first frame outside the tracing machinery and the allocator).
 *
 * Messages come in timestamp order, per CPU in record order. A message's cpu
 * is the CPU's index among those its buffer lists (0 .. CPUs - 1), not the id
 * the file gives it (atag_reader_cpu_id()): per-CPU state is sized by the CPUs
 * present. Pointers inside a message (strings, frames) need only live during
 * the sink call.
 */
#ifndef _ATAG_EVENT_H
#define _ATAG_EVENT_H

#include <stdbool.h>
#include <stdint.h>

enum atag_event_kind {
	ATAG_EV_OTHER,		/* any other record: only matters for stack attribution */
	ATAG_EV_HIT,		/* a call site was hit: its stack is the allocation's */
	ATAG_EV_ALLOC,
	ATAG_EV_FREE,
	/*
	 * A mark of the recording's counters window, in ptr (enum atag_window_mark):
	 * the first "counters start" and "counters end" marker lines (record read
	 * /proc/allocinfo's counters of the selected tags before them) and the
	 * "counters-reading" lines record writes before it reads. Otherwise an
	 * ATAG_EV_OTHER for stack attribution.
	 */
	ATAG_EV_WINDOW,
};

/* The ptr of an ATAG_EV_WINDOW event. */
enum atag_window_mark {
	ATAG_WINDOW_CLOSE,		/* "counters end" */
	ATAG_WINDOW_OPEN,		/* "counters start" */
	ATAG_WINDOW_READING_START,	/* "counters-reading start": the start read begins */
	ATAG_WINDOW_READING_END,	/* "counters-reading end": the end read begins */
};

/* Who a task is, as far as the recording's description tells. */
enum atag_task {
	ATAG_TASK_ANY,		/* the file carries no description: nobody is told apart */
	ATAG_TASK_WORKLOAD,	/* the workload's process tree (COMMAND or -p PID, forks) */
	ATAG_TASK_RECORDER,	/* the recording machinery: never the workload's */
	ATAG_TASK_OTHER,	/* every other task of the system */
	ATAG_TASK_NR
};

/* One trace record, decoded. */
struct atag_event {
	enum atag_event_kind	kind;
	int			type;		/* trace event id (>= 0) */
	int			cpu;
	int			pid;
	uint64_t		ts;
	uint64_t		tag;		/* tag pointer or call site; 0: none */
	uint64_t		ptr;		/* ALLOC, FREE: the key (pointer, pfn) */
	uint64_t		bytes;		/* FREE: 0 when the event carries no size */
	bool			stack_follows;	/* ALLOC: its own stack comes next */
	/*
	 * ALLOC: @tag stands until the ALLOC's own stack gives the call site (struct
	 * atag_kstack.site): the page source names an allocation by what its event
	 * knows, and by its stack when one comes.
	 */
	bool			tag_provisional;
	/*
	 * ALLOC, HIT: the recording took stacks of some events of this type only
	 * (sampled): one may come next, or not. The stitcher waits for it, and never
	 * learns that the type gets no stacks.
	 */
	bool			stack_maybe;
	/* ALLOC, FREE: the task is outside the task filter (scope): do not count it */
	bool			filtered;
	uint8_t			src;		/* ALLOC, FREE, HIT: the reader's source index */
	uint8_t			task;		/* ALLOC, FREE: enum atag_task */
	/*
	 * HIT: the call site, the first time the reader meets the tag (NULL after,
	 * and when the record lacks it). @module NULL or "NONE" is built-in code.
	 */
	const char		*function;
	const char		*file;
	const char		*module;
	long			line;		/* HIT: -1 if unknown */
};

/* One ftrace:kernel_stack record, decoded. */
struct atag_kstack {
	int			cpu;
	int			pid;
	uint64_t		ts;		/* the stack was taken by then: its cost ends */
	/* the event the stack says it was recorded for (trace_event_raw_event_<event>), or -1 */
	int			type;
	/*
	 * The call site of the allocation that owns the stack, for sources whose
	 * events carry none (page: the first frame outside the tracing machinery
	 * and the allocator); 0 otherwise, and when the stack names an event that
	 * made no ALLOC of tag 0. The stitcher gives it to a waiting ALLOC of tag 0.
	 */
	uint64_t		site;
	/*
	 * Innermost first. NULL (nr 0) for a key met before, from the pipe between
	 * the report's threads alone (lib/queue/atag-pipe.c): its frames are those
	 * the key came with the first time, which its consumer, the stitcher, keeps.
	 */
	const uint64_t		*frames;
	unsigned int		nr;
	/*
	 * The frames stay where they are, unchanged, until the reader that produced
	 * them is closed (the decoder's table of distinct stacks): a consumer freed
	 * before that reader may point to them rather than copy them
	 * (atag_stacks_borrow_kept()). Else they are valid during the call only.
	 */
	bool			kept;
	/*
	 * 0, or a number naming these frames: stacks of one key have the same
	 * frames (the decoder numbers the distinct sets of a trace 1, 2, 3, ... as
	 * it meets them), so that a consumer can skip comparing them again. Keys
	 * of one producer only: a consumer fed by two must not mix them.
	 */
	uint32_t		key;
};

/*
 * Where a reader delivers: each call returns 0 or a negative errno, and the
 * reader stops at the first error.
 *   event   one decoded record
 *   stack   one kernel stack
 *   missed  events were lost on @cpu just before the next message of that CPU
 */
struct atag_sink {
	int	(*event)(void *ctx, const struct atag_event *ev);
	int	(*stack)(void *ctx, const struct atag_kstack *ks);
	int	(*missed)(void *ctx, int cpu);
	void	*ctx;
};

#endif /* _ATAG_EVENT_H */
