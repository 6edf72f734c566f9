/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atag-watch.h - what the commands that watch allocations live (top, leaks) share:
 * the task and source options, the checks made before anything changes, the session
 * (state file, instance, held tags) around a live view (include/atag-live.h),
 * COMMAND, the scope said in the header, and the undoing of it all.
 *
 * Until atag_watch_set_up() nothing on the system has changed: the checks die()
 * with a clear line. From there on a failure is kept (atag_watch_fail(), the first
 * one wins) and the command goes on to its teardown, which undoes everything as
 * record does; `reset` undoes a killed command.
 */
#ifndef _ATAG_WATCH_H
#define _ATAG_WATCH_H

#include <stdbool.h>

#include "atag-command.h"
#include "atag-session.h"
#include "atag-tagopts.h"

struct atag_liveview;
struct atag_live_opts;

/* The options top and leaks share, after the tag filters (OPT_TAGOPTS_END on). */
enum {
	OPT_WATCH_all = OPT_TAGOPTS_END, OPT_WATCH_kmem, OPT_WATCH_pid, OPT_WATCH_comm,
	OPT_WATCH_all_tasks, OPT_WATCH_END
};

#define ATAG_WATCH_LONG							\
	ATAG_TAGOPTS_LONG,						\
	{ "all",	no_argument,		NULL, OPT_WATCH_all },	\
	{ "kmem",	no_argument,		NULL, OPT_WATCH_kmem },	\
	{ "pid",	required_argument,	NULL, OPT_WATCH_pid },	\
	{ "comm",	required_argument,	NULL, OPT_WATCH_comm },	\
	{ "all-tasks",	no_argument,		NULL, OPT_WATCH_all_tasks }

struct atag_watch_params {
	struct atag_tagopts	tagopts;
	unsigned long long	buffer_kb;	/* -b */
	bool			all;
	bool			kmem;
	bool			all_tasks;
	int			*pids;
	unsigned int		nr_pids;
	const char		**comms;
	unsigned int		nr_comms;
	char			**command;
};

struct atag_watch {
	struct atag_watch_params *p;
	const char		*name;		/* the command, for messages ("top") */
	struct atag_allocinfo	*ai;
	struct atag_taglist	*tags;
	struct atag_session	*sess;
	struct atag_enabled	n;
	struct atag_liveview	*lv;
	struct atag_command	cmd;		/* COMMAND, if any */
	char			scope[128];
	bool			done;		/* the command ended it (--duration): COMMAND,
						 * stopped then, did not fail */
	int			error;
	char			errmsg[1024];
};

void atag_watch_init(struct atag_watch_params *p);
void atag_watch_release(struct atag_watch_params *p);

/* Handle option @c of the shared ones (-b too); false for another. */
bool atag_watch_option(struct atag_watch_params *p, int c, const char *arg, const char *usage);

/* The checks across options, after parsing (usage errors). */
void atag_watch_check(struct atag_watch_params *p, const char *usage);

/* Before changing anything: tracefs, root, the events, the tags (dies saying why). */
void atag_watch_preflight(struct atag_watch *w);

/* Profiling switched off: said on stderr before watching and after (@after). */
void atag_watch_warn_profiling(struct atag_watch *w, bool after);

/* Keep the first failure (errno @err, a message) for the end. */
void atag_watch_fail(struct atag_watch *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The session, its instance and a live view of it with @o (its source and task
 * filter filled in here from the parameters), the tags held. 0 or -errno (kept).
 */
int atag_watch_set_up(struct atag_watch *w, struct atag_live_opts *o);

/* Start the view, then COMMAND when there is one; false when something failed. */
bool atag_watch_start(struct atag_watch *w);

/* Read what the buffers hold (@all: everything, at the end); 0 or -errno (kept). */
int atag_watch_read(struct atag_watch *w, bool all);

/* The pidfd of COMMAND to poll (-1: none); *@unwatched when it must be polled by time. */
int atag_watch_command_fd(struct atag_watch *w, bool *unwatched);

/* Whether COMMAND (if any) has ended. */
bool atag_watch_command_done(struct atag_watch *w);

/* Undo everything; true when something could not be undone (said on stderr). */
bool atag_watch_teardown(struct atag_watch *w);

/* The exit status: the failure kept, what could not be undone, COMMAND's end. */
int atag_watch_status(struct atag_watch *w, bool restore_failed);

#endif /* _ATAG_WATCH_H */
