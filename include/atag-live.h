/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-live.h - allocations watched as they happen: the events of a tracefs
 * instance read while they come, stitched online with report's engine, and
 * snapshots per call site (lib/live/; the engine of `top`).
 *
 *   instance ring buffers --trace_pipe_raw, per CPU (libtracefs)--> records
 *     --merged in timestamp order--> decoder (include/atag-source.h)
 *     --> task filter --> stitcher (lib/stitch/atag-stitch.h) --> snapshots
 *
 * No trace.dat is written. The instance is a session's (include/atag-session.h):
 * atag_live_open() sets it up (the source's events, a trace clock user space can
 * read, the buffer size), atag_live_start() turns it on, the session removes it.
 *
 * Order: records of several CPUs are handed on in timestamp order. A CPU's buffer
 * may still receive a record older than what another CPU already gave, so a read
 * hands on only the records older than the moment it began, less a margin
 * (ATAG_LIVE_MARGIN_NS); the rest waits for the next read. With the instance's
 * trace clock "mono" that moment is CLOCK_MONOTONIC; a kernel without that clock
 * gets every record at once (and a free may then, rarely, come before its
 * allocation from another CPU: an unmatched free and an allocation that stays live).
 *
 * Tasks: with pids, comm globs or a followed command, only the allocations and
 * frees of the selected tasks are counted (a free of a counted allocation retires
 * it whoever frees). Selection follows the instance's sched events: a task forked
 * from a selected one is selected when children are followed; a task's comm is the
 * one of its fork, exec (the program's name) or rename events, /proc/PID/comm for
 * a task older than the view; an exited task is forgotten, so a pid used again is
 * judged afresh.
 *
 * Memory: the stitcher's (live allocations, one aggregate per call site), the task
 * table (tasks seen alive), one sub-buffer per CPU: never the number of events.
 *
 * Threads: one. Nothing here prints, installs a signal handler or forks; the
 * libtracefs calls are on the instance given.
 */
#ifndef _ATAG_LIVE_H
#define _ATAG_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "atag-counters.h"
#include "atag-lifetime.h"

struct tracefs_instance;

/* Sources one view reads at most (slab and page events). */
#define ATAG_LIVE_SOURCES_MAX	2
/* the view (struct atag_live of lib/stitch/atag-stitch.h is a live allocation) */
struct atag_liveview;

/* How much older than the start of a read a record must be to be handed on. */
#define ATAG_LIVE_MARGIN_NS	(10 * 1000000ULL)

struct atag_live_opts {
	const char		*source;	/* "alloc_tag" (default) or "kmem" */
	bool			pages;		/* with "kmem": the page events too ("page") */
	/*
	 * Kernel stacks: 0 none; 1 every allocation's; N (a power of two) one
	 * allocation's in N, by address patterns that move on as record's do
	 * (include/atag-recorder.h: slab objects and alloc_tag_mem_alloced; pages always
	 * carry one, their call site is in it)
	 */
	unsigned int		stack_every;
	bool			names;		/* follow every task's name and exit */
	bool			not_self;	/* leave out this process's own allocations */
	unsigned long		buffer_kb;	/* per-CPU buffer of the instance, 0: kept */
	const int		*pids;		/* count only these tasks ... */
	unsigned int		nr_pids;
	const char *const	*comms;		/* ... and those whose comm matches one */
	unsigned int		nr_comms;
	bool			children;	/* ... and the tasks forked from them after */
};

/**
 * atag_live_events - the trace events a source needs, "system:event"
 * @source: "alloc_tag" or "kmem"
 * @optional: set to the number of trailing entries the kernel may lack
 *
 * Returns a NULL-terminated list, or NULL for an unknown source.
 */
const char * const *atag_live_events(const char *source, int *optional);

/**
 * atag_live_open - a live view of an instance
 * @inst: the instance (a session's), stopped; borrowed
 * @opts: the source and the task filter (copied, with the arrays)
 * @out: the view
 * @err: a one-line reason on failure, naming the file or event
 * @errlen: its size
 *
 * Reads the event formats (and for kmem the kallsyms) of the running kernel,
 * enables the source's events in @inst (and the sched events the task filter
 * follows), sets its trace clock and buffer size, and opens each CPU's
 * trace_pipe_raw. Returns 0 or -errno.
 */
int atag_live_open(struct tracefs_instance *inst, const struct atag_live_opts *opts,
		   struct atag_liveview **out, char *err, size_t errlen);

/* Turn the instance on: events flow from here. 0 or -errno. */
int atag_live_start(struct atag_liveview *lv);

/* Select one more task (a command just forked), with its children if followed. */
int atag_live_add_pid(struct atag_liveview *lv, int pid);

/**
 * atag_live_read - read and stitch what the buffers hold
 * @lv: the view
 * @all: everything, also the records of the last ATAG_LIVE_MARGIN_NS (after the
 *	 instance was turned off, at the end)
 *
 * Returns 0, or -errno (-ENOMEM, or a read error of a CPU's buffer).
 */
int atag_live_read(struct atag_liveview *lv, bool all);

/* Turn the instance off (nothing more comes; read with @all then). 0 or -errno. */
int atag_live_stop(struct atag_liveview *lv);

/* The file descriptors of the CPUs' buffers, for poll(): readable when one fills. */
unsigned int atag_live_nr_fds(const struct atag_liveview *lv);
int atag_live_fd(const struct atag_liveview *lv, unsigned int i);

void atag_live_close(struct atag_liveview *lv);

/* ------------------------------------------------------------ snapshots */

/* Sort keys of snapshots: the largest first. */
#define ATAG_LIVE_SORT_KEYS "live_bytes, live, allocs, frees, total, bytes, oldest, p50, " \
			    "p99, site"

bool atag_live_sort_key_known(const char *name);

/* One call site, as a snapshot sees it. */
struct atag_live_site {
	uint64_t			tag;		/* tag pointer or call_site address */
	const char			*function;	/* NULL when unknown */
	const char			*file;
	const char			*module;	/* NULL: built-in */
	long				line;		/* -1 when unknown */
	long long			offset;		/* into function, -1 when unknown */
	uint64_t			allocs;		/* in the interval */
	uint64_t			frees;		/* in the interval, matched and not */
	uint64_t			oldest_ns;	/* age of its oldest live allocation */
	struct atag_counters		counts;		/* since the start */
	const struct atag_lifetime	*lifetimes;	/* since the start */
};

struct atag_live_snapshot {
	const char		*source;
	uint64_t		elapsed_ns;	/* since atag_live_start() */
	uint64_t		interval_ns;	/* since the snapshot before */
	uint64_t		records;	/* read since the start */
	uint64_t		lost;		/* events the kernel lost since the start */
	bool			lost_known;	/* the instance's counters could be read */
	uint64_t		allocs;		/* in the interval, all call sites */
	uint64_t		frees;		/* matched or not */
	uint64_t		replaced;	/* live ones allocated again: free missed */
	struct atag_totals	totals;		/* since the start, all call sites */
	struct atag_live_site	*sites;		/* sorted; those that counted anything */
	size_t			nr_sites;
	uint64_t		tasks;		/* tasks the filter knows (0: no filter) */
};

/**
 * atag_live_snapshot - where the allocations stand now
 * @lv: the view (its last read is the snapshot's end)
 * @sort: one of ATAG_LIVE_SORT_KEYS, NULL: live_bytes
 * @snap: filled; release with atag_live_snapshot_release()
 *
 * The interval is the time since the snapshot before (or the start). Strings and
 * lifetimes point into @lv: valid until its next read. Returns 0, -EINVAL for an
 * unknown key, or -ENOMEM.
 */
int atag_live_snapshot(struct atag_liveview *lv, const char *sort, struct atag_live_snapshot *snap);
void atag_live_snapshot_release(struct atag_live_snapshot *snap);

/* ------------------------------------------------------------ rendering (atag-live-render.c) */

struct atag_live_render_opts {
	long		rows;		/* call sites, 0 = all */
	const char	*scope;		/* what is counted, for the header ("all tasks") */
	const char	*sort;
	int		columns;	/* text: the table cut to this width by eliding the
					 * call site in its middle; 0: no limit */
};

/* A screen: a header, the totals, a row per call site (top's text view). */
int atag_live_render_text(const struct atag_live_snapshot *s,
			  const struct atag_live_render_opts *o, FILE *f);

/* One JSON object on one line (top --json; documented in its man page). */
int atag_live_render_json(const struct atag_live_snapshot *s,
			  const struct atag_live_render_opts *o, FILE *f);

/* ------------------------------------------------------------ leaks (atag-live-leaks*.c) */

/*
 * Where the allocations older than a minimum age stand: leaks' interval. Every
 * allocation still live and at least min_age old (counted by the task filter, its
 * stack come when one was to come) is grouped by call site and then by stack. An
 * allocation is a leak suspect unless the rules report applies explain it
 * (lib/stitch/atag-suspect.h: untraced free paths, RCU frees once its task exited,
 * caches...); one its task still holds stays a suspect.
 *
 * Lost events make the view uncertain: an allocation whose free was lost stays live
 * here for ever. Events are lost when the buffers said so (a gap before a record) or
 * the instance's counters rose; every allocation made before the latest loss is
 * "uncertain": its free may be among the lost ones. The snapshot says how many
 * events were lost in the interval and since the start, how many intervals lost
 * some, and per call site and stack how many of its old allocations are uncertain.
 *
 * Memory: the snapshot's, while it is held, follows the old allocations and their
 * distinct stacks; the view's follows the live allocations, the distinct stacks and
 * the tasks that run or own live allocations (the names of exited tasks that own none
 * are forgotten at each snapshot).
 */

/* Example pointers and tasks kept per call site and per stack. */
#define ATAG_LEAK_EXAMPLES	3
#define ATAG_LEAK_TASKS		3

struct atag_leak_opts {
	uint64_t	min_age_ns;	/* only allocations at least this old */
};

/* A task that made old allocations. */
struct atag_leak_task {
	int		pid;
	char		comm[16];	/* "" when not known */
	int		exited;		/* 1 exited, 0 runs, -1 not known */
	uint64_t	allocs;		/* of the group's old allocations */
};

/* What one group of old allocations (a call site, or one of its stacks) adds up to. */
struct atag_leak_group {
	uint64_t		allocs;
	uint64_t		bytes;
	uint64_t		oldest_ns;	/* the age of the oldest */
	uint64_t		suspects;	/* nothing explains them */
	uint64_t		uncertain;	/* made before the latest loss of events */
	const char		*why;		/* what explains the others (the first met) */
	uint64_t		ptrs[ATAG_LEAK_EXAMPLES];	/* the oldest's pointers */
	unsigned int		nr_ptrs;
	struct atag_leak_task	tasks[ATAG_LEAK_TASKS];		/* most allocations first */
	unsigned int		nr_tasks;
	unsigned int		more_tasks;	/* tasks beyond those */
};

struct atag_leak_stack {
	char			**frames;	/* innermost first, as report names them; */
	unsigned int		nr_frames;	/* 0: allocations without a stack */
	struct atag_leak_group	g;
};

struct atag_leak_site {
	const char		*source;	/* "alloc_tag", "kmem", "page" */
	uint64_t		tag;
	const char		*function;	/* NULL when unknown */
	const char		*file;
	const char		*module;
	long			line;
	long long		offset;
	uint64_t		live;		/* all its live allocations, young ones too */
	uint64_t		live_bytes;
	struct atag_leak_group	g;		/* its old ones */
	struct atag_leak_stack	*stacks;	/* most bytes first */
	size_t			nr_stacks;
};

struct atag_leak_snapshot {
	const char		*sources[ATAG_LIVE_SOURCES_MAX + 1];	/* NULL-terminated */
	uint64_t		interval;	/* its number, from 1 */
	uint64_t		elapsed_ns;	/* since atag_live_start() */
	uint64_t		interval_ns;
	uint64_t		min_age_ns;
	unsigned int		stack_every;	/* 0: no stacks */
	uint64_t		records;
	bool			lost_known;	/* the instance's counters could be read */
	uint64_t		lost;		/* in this interval */
	uint64_t		lost_total;	/* since the start */
	uint64_t		lossy_intervals;	/* intervals that lost events, this one too */
	/* the age of the latest loss (allocations older are uncertain); 0 and false: none */
	bool			uncertain;
	uint64_t		loss_age_ns;
	uint64_t		live;		/* every live allocation */
	uint64_t		live_bytes;
	struct atag_leak_group	g;		/* the old ones, over every call site */
	struct atag_leak_site	*sites;		/* most bytes first */
	size_t			nr_sites;
	uint64_t		tasks;		/* tasks followed (names, filter) */
	void			*priv;		/* what the snapshot owns */
};

/**
 * atag_live_leaks - the allocations older than @o->min_age_ns, now
 * @lv: a view opened with names (its last read is the snapshot's end)
 * @o: the options
 * @snap: filled; release with atag_leak_snapshot_release()
 *
 * Strings point into @lv: valid until its next read. Returns 0 or -ENOMEM.
 */
int atag_live_leaks(struct atag_liveview *lv, const struct atag_leak_opts *o,
		    struct atag_leak_snapshot *snap);
void atag_leak_snapshot_release(struct atag_leak_snapshot *snap);

struct atag_leak_render_opts {
	long		rows;		/* call sites, 0 = all */
	long		lines;		/* text: lines at most (the terminal's), 0 = no limit */
	int		columns;	/* text: the width lines are cut to; 0: no limit */
	const char	*scope;		/* what is counted ("all tasks") */
};

/* leaks' text for one interval: a header, a row per call site, its stacks. */
int atag_leak_render_text(const struct atag_leak_snapshot *s,
			  const struct atag_leak_render_opts *o, FILE *f);

/* One JSON object on one line (leaks -f json; documented in its man page). */
int atag_leak_render_json(const struct atag_leak_snapshot *s,
			  const struct atag_leak_render_opts *o, FILE *f);

/**
 * atag_live_save - what the view holds, as report's JSON document
 * @lv: the view (after its last read)
 * @scope: what was counted, for the document
 * @f: where to write
 *
 * Every live allocation (counted, with its stack when it has one), in the keys of
 * report -f json's live[], with the call sites they belong to in tags[] and the
 * totals (Documentation/trace-cmd-alloc-tag-leaks.1.txt). Returns 0, -ENOMEM, or -EIO
 * for a write error.
 */
int atag_live_save(struct atag_liveview *lv, const char *scope, FILE *f);

#endif /* _ATAG_LIVE_H */
