/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-live-tasks.h - which tasks a live view counts, kept up to date from the
 * instance's sched events (library-internal; lib/live/atag-live-tasks.c; the
 * rules are in include/atag-live.h); and, when asked, the name of every task and
 * whether it exited (leaks: the tasks that made old allocations).
 */
#ifndef _ATAG_LIVE_TASKS_H
#define _ATAG_LIVE_TASKS_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "atag-map.h"

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct tep_handle;
struct tep_record;
struct tep_format_field;
typedef struct _GHashTable GHashTable;

/* What the names follow of one task (a thread: its pid is the kernel's). */
struct live_name {
	char		comm[16];	/* TASK_COMM_LEN; "" when not known */
	uint64_t	since;		/* its fork (record time), 0: older than the view */
	uint64_t	exit_ts;	/* its exit, when exited */
	bool		exited;
};

struct live_tasks {
	bool			active;		/* a filter at all */
	bool			children;
	const char * const	*comms;
	unsigned int		nr_comms;
	struct atag_map		tasks;		/* pid -> TASK_* bits */
	GHashTable		*names;		/* pid -> struct live_name, NULL: not kept */
	int			fork_id, exec_id, exit_id, rename_id;	/* -1: not there */
	struct tep_format_field	*fork_parent, *fork_child, *fork_comm;
	struct tep_format_field	*exec_pid, *exec_file;
	struct tep_format_field	*exit_pid, *exit_comm;
	struct tep_format_field	*rename_pid, *rename_comm;
	struct tep_handle	*tep;
};

/*
 * The sched events the filter follows ("system:event", NULL-terminated; the last
 * one, task:task_rename, may be missing): none without a filter.
 */
const char * const *live_tasks_events(const struct live_tasks *t) __hidden;

/*
 * A filter (@active: none, everything counts) of pids to be added and of @comms
 * (kept by reference), following children or not.
 */
void live_tasks_init(struct live_tasks *t, bool active, const char * const *comms,
		     unsigned int nr_comms, bool children) __hidden;
/*
 * Also keep the name of every task and whether it exited (before binding). 0 or
 * -ENOMEM.
 */
int live_tasks_keep_names(struct live_tasks *t) __hidden;

/*
 * What the names say of task @pid: the one a fork or exec event named, else (a task
 * older than the view) the one /proc/PID/comm names now, else an exited task of no
 * known name; NULL without memory or without names kept.
 */
const struct live_name *live_tasks_name(struct live_tasks *t, int pid) __hidden;

/* Forget the exited tasks for which @keep says false. */
void live_tasks_forget_exited(struct live_tasks *t, bool (*keep)(void *ctx, int pid),
			      void *ctx) __hidden;

/* How many tasks the names follow. */
unsigned int live_tasks_nr_names(const struct live_tasks *t) __hidden;

/* Find the fields of the sched events in @tep (after they were enabled). */
void live_tasks_bind(struct live_tasks *t, struct tep_handle *tep) __hidden;
void live_tasks_free(struct live_tasks *t) __hidden;

/* Select @pid (and its children to come, if followed). 0 or -ENOMEM. */
int live_tasks_add(struct live_tasks *t, int pid) __hidden;

/* Note a record if it is one of the sched events followed. 0 or -ENOMEM. */
int live_tasks_note(struct live_tasks *t, const struct tep_record *rec, int type) __hidden;

/* Whether @pid is counted. */
bool live_tasks_selected(struct live_tasks *t, int pid) __hidden;

#endif /* _ATAG_LIVE_TASKS_H */
