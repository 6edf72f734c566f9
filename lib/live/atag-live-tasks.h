/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-live-tasks.h - which tasks a live view counts, kept up to date from the
 * instance's sched events (library-internal; lib/live/atag-live-tasks.c; the
 * rules are in include/atag-live.h).
 */
#ifndef _ATAG_LIVE_TASKS_H
#define _ATAG_LIVE_TASKS_H

#include <stdbool.h>
#include <stddef.h>

#include "atag-map.h"

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct tep_handle;
struct tep_record;
struct tep_format_field;

struct live_tasks {
	bool			active;		/* a filter at all */
	bool			children;
	const char * const	*comms;
	unsigned int		nr_comms;
	struct atag_map		tasks;		/* pid -> TASK_* bits */
	int			fork_id, exec_id, exit_id, rename_id;	/* -1: not there */
	struct tep_format_field	*fork_parent, *fork_child, *fork_comm;
	struct tep_format_field	*exec_pid, *exec_file;
	struct tep_format_field	*exit_pid;
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
