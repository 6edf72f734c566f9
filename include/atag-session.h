/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-session.h - a session: what a command changes on the system to trace
 * allocation call sites, and the undoing of it (lib/kernel/atag-session.c).
 *
 * A session owns:
 *  - its state file (include/atag-state.h), which lists each change before it is made,
 *    so that `reset` can undo what a command killed with SIGKILL left behind;
 *  - a tracefs instance of its own, ATAG_INSTANCE_PREFIX and the owner's pid, created
 *    stopped (include/atag-tracefs.h);
 *  - the tags whose tracing it turned on through /proc/allocinfo, never one that was
 *    on already or that someone else turned on meanwhile;
 *  - the recorder it started on the instance (include/atag-record.h), if any.
 * Its users: `record` (all four), `reset` (a session loaded from a state file, to undo
 * it), and a live view such as `top` (instance and tags, reading the instance itself).
 * Whatever a user sets up inside the instance (events, triggers, the buffer size:
 * trace-cmd record does, a live view would through libtracefs on
 * atag_session_instance()) goes away with it, and needs no undoing of its own.
 *
 *	s = atag_session_create(atag_state_dir());	   the state file
 *	atag_session_set_allocinfo(s, ai);		   where tags are toggled
 *	atag_session_create_instance(s);
 *	atag_session_enable_tags(s, tags, stop_fd, &n);
 *	atag_session_start_recorder(s, &opts);		   optional
 *	...
 *	atag_session_stop_recorder(s, timeout_ms);	   its exit status
 *	atag_session_lost_events(s, &lost);		   while the instance exists
 *	atag_session_undo(s, &undo);
 *	atag_session_close(s, &kept);
 *
 * Undoing stops the recorder (SIGINT, then SIGKILL to its process group), turns
 * tracing off again on the session's tags that are still on, and removes the
 * instance; each step is tried even when one before failed, and what was undone
 * drops out of the session. Closing removes the state file when nothing is left to
 * undo, else rewrites it to list what is left, for a later reset.
 *
 * Failures come back as -errno, and atag_session_failed() names the part of the
 * session they come from (the state file, allocinfo, the instance, the recorder), for
 * the command's message. The session prints nothing.
 *
 * Process-wide effects: none of its own. It forks only through the recorder, sets
 * libtracefs' tracing directory only for the call that creates the instance
 * (include/atag-tracefs.h), and installs no signal handler: waits end early when the
 * caller's stop fd becomes readable.
 */
#ifndef _ATAG_SESSION_H
#define _ATAG_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "atag-allocinfo.h"
#include "atag-record.h"
#include "atag-state.h"
#include "atag-tracefs.h"

/* How long an undo waits for a recorder to end after SIGINT, and after SIGKILL. */
#define ATAG_SESSION_STOP_MS	30000
#define ATAG_SESSION_KILL_MS	2000

struct atag_session;
struct tracefs_instance;

/* The parts of a session, for atag_session_failed(). */
enum atag_session_part {
	ATAG_PART_NONE,
	ATAG_PART_STATE,	/* writing the state file */
	ATAG_PART_ALLOCINFO,	/* turning tracing on or off on tags */
	ATAG_PART_INSTANCE,	/* the tracefs instance */
	ATAG_PART_RECORDER,	/* the recorder process */
};

/* What atag_session_enable_tags() found. */
struct atag_enabled {
	size_t	turned_on;	/* by this session */
	size_t	already_on;	/* traced before, or turned on by someone else meanwhile */
};

/* What atag_session_undo() did. */
struct atag_undo {
	bool		owner_alive;	/* a loaded session whose owner still runs: nothing
					 * was done */
	bool		recorder_stopped; /* a recorder still ran and was stopped */
	size_t		tags_disabled;	/* tracing turned off again */
	size_t		tags_gone;	/* no longer traced, or no longer there */
	size_t		tags_left;	/* could not be turned off: still listed */
	int		tags_error;	/* the first -errno turning them off */
	bool		instance_removed;
	int		instance_error;	/* -errno removing it (it is still listed) */
	int		error;		/* the first -errno, 0 when all was undone */
	const char	*failed_step;	/* "recorder", "allocinfo", "instance" or NULL */
};

/**
 * atag_session_create - a new session of this process, and its state file
 * @dir: the directory of state files (atag_state_dir(); created, 0700, if missing)
 *
 * Returns the session, or NULL with errno set (EEXIST: a state file of this pid is
 * left over from a killed command: reset first).
 */
struct atag_session *atag_session_create(const char *dir);

/**
 * atag_session_load - the session a state file lists, to undo it
 * @path: the state file (atag_state_list())
 *
 * Returns the session, or NULL with errno set (EBADMSG: not a state file).
 */
struct atag_session *atag_session_load(const char *path);

/**
 * atag_session_state - what the session lists to be undone (owner, instance, tags...)
 * @s: the session
 *
 * Read-only for the caller.
 */
const struct atag_state *atag_session_state(const struct atag_session *s);

/**
 * atag_session_failed - the part the last failure of a session call came from
 * @s: the session
 */
enum atag_session_part atag_session_failed(const struct atag_session *s);

/**
 * atag_session_set_allocinfo - the allocinfo file the session toggles tags through
 * @s: a created session
 * @ai: the open file, borrowed: close it after the session
 *
 * Notes its path in the state file. Returns 0 or -errno (a write error).
 */
int atag_session_set_allocinfo(struct atag_session *s, struct atag_allocinfo *ai);

/**
 * atag_session_create_instance - create the session's tracefs instance, stopped
 * @s: a created session
 *
 * Named ATAG_INSTANCE_PREFIX and the owner's pid (atag_session_instance_name()),
 * noted in the state file first. Returns 0, -EEXIST when an instance of that name
 * exists (someone else's: it is left alone and not listed), or another -errno.
 */
int atag_session_create_instance(struct atag_session *s);

/**
 * atag_session_instance_name - the name of the session's instance
 * @s: a created session
 *
 * Known before the instance is created (for messages about creating it).
 */
const char *atag_session_instance_name(const struct atag_session *s);

/**
 * atag_session_instance - the libtracefs handle of the session's instance
 * @s: a session whose instance was created
 *
 * Owned by the session; NULL before the instance exists or after it was removed.
 */
struct tracefs_instance *atag_session_instance(const struct atag_session *s);

/**
 * atag_session_enable_tag - turn tracing on for one tag that is off
 * @s: a session with an allocinfo file
 * @t: the tag, as listed
 *
 * Notes the tag in the state file, toggles it (only if it is still off) and, when it
 * was not turned on after all, takes the note back (an untag line), so that reset
 * leaves it alone. Returns 0 when this session turned it on, 1 when it was on already
 * (someone else turned it on since the listing), or -errno (-EINVAL without an
 * allocinfo file).
 */
int atag_session_enable_tag(struct atag_session *s, const struct atag_tag *t);

/**
 * atag_session_enable_tags - turn tracing on for the tags of a list that are off
 * @s: a session with an allocinfo file
 * @tags: the tags, as listed (those listed as traced are left alone)
 * @stop_fd: stop before the next tag once it is readable (-1: never)
 * @n: the counts, also when the call fails halfway
 *
 * Returns 0, -EINTR when stopped, or the first -errno (atag_session_failed() says
 * whether the state file or allocinfo failed).
 */
int atag_session_enable_tags(struct atag_session *s, const struct atag_taglist *tags,
			     int stop_fd, struct atag_enabled *n);

/**
 * atag_session_start_recorder - start trace-cmd record on the session's instance
 * @s: a session whose instance was created
 * @opts: what to record; @opts->instance is ignored (the session's is used)
 *
 * The recorder's pid is noted in the state file, and the session stops it when it
 * is undone. Returns the recorder (owned by the session: do not free it), or NULL
 * with errno set.
 */
struct atag_recorder *atag_session_start_recorder(struct atag_session *s,
						  const struct atag_recorder_opts *opts);

/**
 * atag_session_stop_recorder - make the session's recorder finish and wait for it
 * @s: the session
 * @timeout_ms: how long it may take after SIGINT before its group is killed
 *
 * Returns as atag_recorder_stop(): its exit status, or -ETIMEDOUT; 0 when there is no
 * recorder. The recorder is not listed in the state file afterwards.
 */
int atag_session_stop_recorder(struct atag_session *s, int timeout_ms);

/**
 * atag_session_lost_events - the lost-event counters of the session's instance
 * @s: a session whose instance exists
 * @lost: filled (atag_instance_lost_events())
 *
 * Returns 0 or -errno.
 */
int atag_session_lost_events(struct atag_session *s, struct atag_lost *lost);

/**
 * atag_session_undo - undo what the session lists, unless its owner still runs
 * @s: the session
 * @u: what was done
 *
 * A loaded session whose owner still runs is left alone (@u->owner_alive). Otherwise:
 * the recorder is stopped (ATAG_SESSION_STOP_MS, then SIGKILL to its group), tracing
 * is turned off again on the listed tags still on, and the instance is removed (only
 * an instance named ATAG_INSTANCE_PREFIX...: -EINVAL for another name). Each step is
 * tried even when one before failed; what was undone drops out of the session.
 * Returns 0 when all was undone (or the owner runs), else the first -errno, with
 * @u->failed_step naming its step.
 */
int atag_session_undo(struct atag_session *s, struct atag_undo *u);

/**
 * atag_session_close - end a session: remove or rewrite its state file, and free it
 * @s: the session, may be NULL
 * @kept: set to whether something is left to undo, the state file then rewritten to
 *        list only that (may be NULL)
 *
 * Returns 0, or the -errno of the unlink() (nothing left) or of the rewrite (*@kept;
 * the file then still lists what was undone).
 */
int atag_session_close(struct atag_session *s, bool *kept);

/**
 * atag_session_free - free a session, leaving its state file as it is
 * @s: the session, may be NULL
 *
 * For a loaded session that was not undone (its owner runs). A recorder the session
 * still holds is killed.
 */
void atag_session_free(struct atag_session *s);

#endif /* _ATAG_SESSION_H */
