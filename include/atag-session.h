/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-session.h - a session: what a command changes on the system to trace
 * allocation call sites, and the undoing of it (lib/kernel/atag-session.c).
 *
 * A session owns:
 *  - its state file (include/atag-state.h), which lists each change before it is made,
 *    so that `reset` can undo what a command killed with SIGKILL left behind;
 *  - a tracefs instance of its own, ATAG_INSTANCE_PREFIX and the owner's pid, created
 *    stopped (include/atag-tracefs.h), and the lines it writes into the instance's
 *    trace_marker (the recording's self-description, below);
 *  - its holds on tags: every tag it needs is held in the state directory's holder
 *    records (include/atag-state.h), and its tracing turned on through
 *    /proc/allocinfo when it is off. A tag stays on while any session holds it; the
 *    last holder of a tag that a session turned on turns it off again. A tag traced
 *    before any session is never turned off;
 *  - the recorder it started on the instance (include/atag-recorder.h), if any, and the
 *    private directory its trace.dat is written in until it is complete.
 * Its users: `record` (all of it), `reset` (a session loaded from a state file, to
 * undo it), and a live view such as `top` (instance and tags, reading the instance
 * itself). Whatever a user sets up inside the instance (events, triggers, the buffer
 * size: trace-cmd record does, a live view would through libtracefs on
 * atag_session_instance()) goes away with it, and needs no undoing of its own.
 *
 *	s = atag_session_create(atag_state_dir());	   the state file
 *	atag_session_set_allocinfo(s, ai);		   where tags are toggled
 *	atag_session_create_output(s, "trace.dat");	   optional: else with the recorder
 *	atag_session_create_instance(s);
 *	atag_session_enable_tags(s, tags, stop_fd, &n);	   holds them
 *	atag_session_start_recorder(s, &opts);		   optional
 *	atag_session_mark(s, "record", ..., NULL);	   optional
 *	...
 *	atag_session_stop_recorder(s, timeout_ms);	   its exit status
 *	atag_session_commit_output(s);			   when it is 0
 *	atag_session_lost_events(s, &lost);		   while the instance exists
 *	atag_session_undo(s, &undo);
 *	atag_session_close(s, &kept);
 *
 * Undoing stops the recorder (SIGINT, repeated, then SIGKILL to its process group),
 * removes an output that was not committed, lets go of the held tags (turning
 * tracing off on those it was the last to hold, of those a session turned on), and
 * removes the instance; each step is tried even when one before failed, and what was
 * undone drops out of the session. Closing removes the state file when nothing is
 * left to undo, else rewrites it to list what is left, for a later reset.
 *
 * Failures come back as -errno, and atag_session_failed() names the part of the
 * session they come from (the state file, the output, allocinfo, the instance, the
 * recorder), for the command's message. The session prints nothing.
 *
 * Process-wide effects: none of its own. It forks only through the recorder, sets
 * libtracefs' tracing directory only for the call that creates the instance
 * (include/atag-tracefs.h), and installs no signal handler: waits end early when the
 * caller's stop fd becomes readable. Holding tags takes an flock() of the state
 * directory's records for the length of the call.
 *
 * The recording's self-description: atag_session_mark() writes one line into the
 * instance's trace_marker (so that it lands in the recorded buffer as an ftrace:print
 * event), as atag-marker.h defines the lines: a prefix with the format's
 * version, a keyword, and tab-separated fields. A field with a tab or newline is
 * written as "?"; a line longer than ATAG_MARKER_MAX is not written. The keywords and
 * their fields are the contract between record and report (report's man page,
 * MARKERS); the session only writes them.
 */
#ifndef _ATAG_SESSION_H
#define _ATAG_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "atag-allocinfo.h"
#include "atag-recorder.h"
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
	ATAG_PART_STATE,	/* writing the state file or the holder records */
	ATAG_PART_OUTPUT,	/* the private directory of the output */
	ATAG_PART_ALLOCINFO,	/* turning tracing on or off on tags */
	ATAG_PART_INSTANCE,	/* the tracefs instance */
	ATAG_PART_RECORDER,	/* the recorder process */
};

/* What atag_session_enable_tags() found (every tag counted is held). */
struct atag_enabled {
	size_t	turned_on;	/* by this session */
	size_t	already_on;	/* traced before, or turned on by someone else meanwhile */
};

/* What atag_session_undo() did. */
struct atag_undo {
	bool		owner_alive;	/* a loaded session whose owner still runs: nothing
					 * was done */
	bool		recorder_stopped; /* a recorder still ran and was stopped */
	bool		recorder_unproven; /* the process listed runs, but is not provably
					 * the recorder: it was left alone */
	bool		output_moved;	/* a loaded session's trace.dat moved into place */
	char		output[4096];	/* where to */
	size_t		tags_disabled;	/* tracing turned off again */
	size_t		tags_gone;	/* no longer traced, or no longer there */
	size_t		tags_held;	/* left on: other running sessions hold them */
	size_t		tags_kept;	/* left on: traced before any session */
	size_t		tags_left;	/* could not be turned off: still listed */
	int		tags_error;	/* the first -errno turning them off */
	bool		instance_removed;
	int		instance_error;	/* -errno removing it (it is still listed) */
	int		error;		/* the first -errno, 0 when all was undone */
	const char	*failed_step;	/* "recorder", "output", "allocinfo", "instance" or
					 * NULL */
};

/* What atag_session_sweep_holds() did. */
struct atag_sweep {
	size_t		pruned;		/* holders that no longer ran, dropped */
	size_t		disabled;	/* tags nobody held any more, turned off */
	size_t		left;		/* such tags that could not be turned off */
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
 * atag_session_create_output - the private directory the recorder writes the trace.dat in
 * @s: a created session
 * @path: the trace.dat to write (its directory must exist)
 *
 * See atag_output_create(); the directory is listed in the state file before it is
 * made. Without this call, atag_session_start_recorder() makes it for @opts->output.
 * Returns 0 or -errno.
 */
int atag_session_create_output(struct atag_session *s, const char *path);

/**
 * atag_session_output - the trace.dat the session's output is for (absolute)
 * @s: the session
 *
 * NULL without an output, or once it was committed.
 */
const char *atag_session_output(const struct atag_session *s);

/**
 * atag_session_output_tmpdir - the private directory the recorder writes its
 * ATAG_OUTPUT_NAME in (absolute), to read it back before it is committed
 * @s: the session
 *
 * NULL without an output, or once it was committed.
 */
const char *atag_session_output_tmpdir(const struct atag_session *s);

/**
 * atag_session_output_full - whether the output's file system has no space left
 * @s: the session
 *
 * For the message after a recorder failed (before the output is discarded).
 */
bool atag_session_output_full(const struct atag_session *s);

/**
 * atag_session_commit_output - move the recorder's trace.dat into place
 * @s: a session whose recorder ended with status 0
 *
 * atag_output_commit(); the output is then no longer listed. Returns 0, 1 when an
 * older file was kept as NAME.old, or -errno (-ENOENT: the recorder wrote no
 * trace.dat). An output not committed is removed by atag_session_undo().
 */
int atag_session_commit_output(struct atag_session *s);

/**
 * atag_session_enable_tag - hold one tag, and turn its tracing on when it is off
 * @s: a session with an allocinfo file
 * @t: the tag, as listed
 *
 * Notes the tag in the state file and joins its holder record as a holder. A tag
 * listed as untraced is marked owned (a session turns it on) and toggled on; when
 * the toggle finds it traced already (someone else turned it on since the listing)
 * the mark is taken back. When holding fails, the note is taken back (an untag line),
 * so that reset leaves the tag alone. Returns 0 when this session turned it on, 1
 * when it was on already (it is held then too), or -errno (-EINVAL without an
 * allocinfo file).
 */
int atag_session_enable_tag(struct atag_session *s, const struct atag_tag *t);

/**
 * atag_session_enable_tags - hold the tags of a list, turning on those that are off
 * @s: a session with an allocinfo file
 * @tags: the tags, as listed (those listed as traced are held, not toggled)
 * @stop_fd: stop before the next tag once it is readable (-1: never)
 * @n: the counts, also when the call fails halfway
 *
 * The holder records stay locked for the whole call. Returns 0, -EINTR when stopped,
 * or the first -errno (atag_session_failed() says whether the state file or
 * allocinfo failed).
 */
int atag_session_enable_tags(struct atag_session *s, const struct atag_taglist *tags,
			     int stop_fd, struct atag_enabled *n);

/**
 * atag_session_start_recorder - start trace-cmd record on the session's instance
 * @s: a session whose instance was created
 * @opts: what to record; @opts->instance and @opts->out are the session's, and
 *        @opts->output is only used when the session has no output yet
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
 * atag_session_mark - write one line of the recording's self-description
 * @s: a session whose instance exists
 * @keyword: the line's keyword ("record", "select-all", "end"...)
 * @...: its fields, strings, NULL-terminated
 *
 * Writes ATAG_MARKER_PREFIX, the version, KEYWORD, then TAB FIELD for each field, and a
 * newline (atag-marker.h), into the instance's trace_marker with one write().
 * The instance must be recording (tracing_on 1), else the kernel drops the line.
 * Returns 0, -E2BIG for a line longer than ATAG_MARKER_MAX (not written), or -errno.
 */
int atag_session_mark(struct atag_session *s, const char *keyword, ...)
	__attribute__((sentinel));

/**
 * atag_session_mark_tag - a line about a tag: the fields given, then the tag's
 * @s: a session whose instance exists
 * @keyword: the line's keyword ("select", "also-traced", "counters"...)
 * @t: the tag: its module ("-" for built-in), file, line and function end the line
 * @...: the fields before those, strings, NULL-terminated
 *
 * Returns as atag_session_mark().
 */
int atag_session_mark_tag(struct atag_session *s, const char *keyword,
			  const struct atag_tag *t, ...) __attribute__((sentinel));

/**
 * atag_session_undo - undo what the session lists, unless its owner still runs
 * @s: the session
 * @u: what was done
 *
 * A loaded session whose owner still runs is left alone (@u->owner_alive). Otherwise:
 * the recorder is stopped (SIGINT, repeated, for ATAG_SESSION_STOP_MS, then SIGKILL to
 * its group); for a loaded session only when the process listed is provably the
 * recorder (include/atag-state.h), else it is left alone (@u->recorder_unproven).
 * Then the output: a created session removes what was not committed, a loaded one
 * moves a trace.dat its recorder completed into place (@u->output_moved). Then the
 * listed tags are let go: the session leaves each holder record, and turns tracing
 * off on the tags whose record is owned and has no other holder that still runs.
 * Last the instance is removed (only an instance named ATAG_INSTANCE_PREFIX...:
 * -EINVAL for another name). Each step is tried even when one before failed; what
 * was undone drops out of the session.
 * Returns 0 when all was undone (or the owner runs), else the first -errno, with
 * @u->failed_step naming its step.
 */
int atag_session_undo(struct atag_session *s, struct atag_undo *u);

/**
 * atag_session_sweep_holds - finish the holder records of sessions that ended
 * @dir: the state directory
 * @sw: what was done
 *
 * For reset, after the state files: holders that no longer run are dropped from every
 * record; a record left without holders is deleted, and the tag's tracing turned off
 * when the record was owned (a record whose tag cannot be turned off stays, for the
 * next reset). Returns 0 or the first -errno.
 */
int atag_session_sweep_holds(const char *dir, struct atag_sweep *sw);

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
