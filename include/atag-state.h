/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-state.h - the state file of a session (include/atag-session.h), so that `reset`
 * can undo what a command killed with SIGKILL left behind, and only that
 * (lib/kernel/atag-state.c: the file; the undoing is the session's).
 *
 * One file a session, $ATAG_STATE_DIR/record-PID.state (default directory
 * /run/trace-cmd-alloc-tag), removed when the session ends with everything undone.
 * Each line is written before the change it describes, so the file never misses a
 * change:
 *
 *   owner PID STARTTIME           the process that owns the session (record)
 *   allocinfo PATH                where the tags were toggled
 *   instance NAME                 the tracefs instance it created
 *   output TMPDIR FINAL           the private directory its recorder writes in, and
 *                                 the trace.dat that goes to FINAL (tab-separated)
 *   recorder PID STARTTIME EXE    the trace-cmd record it started, and the program it
 *                                 runs (tab before EXE; EXE may be missing)
 *   tag MODULE FILE LINE FUNCTION a tag it holds (MODULE "-" for built-in; fields
 *                                 separated by tabs): see the holder records below
 *   untag MODULE FILE LINE ...    it does not hold that tag after all (its hold
 *                                 failed): the tag listed last as above
 *
 * A line without its newline (the writer died mid-line) is ignored.
 *
 * Undoing a listed instance or recorder that never came to be is harmless: the
 * instance is absent (and named after the owner's pid), and the recorder is signalled
 * only when it is provably the one listed: the pid, its start time, an argument "-B"
 * followed by the owner's instance name, and the program listed (reset never signals
 * pid 1 or below, nor a process group the recorder does not lead).
 *
 * Holder records: tags are shared. Several sessions may need the same tag, and a tag
 * may have been traced before any of them. The state directory keeps one holder
 * record per tag that a session holds, in DIR/tags/ (one file each, replaced whole
 * by rename, under an flock() of that directory, which goes when it is empty):
 *
 *   tag MODULE FILE LINE FUNCTION the call site (tab-separated, as above)
 *   allocinfo PATH                where its tracing is turned on and off
 *   owned                         a session turned its tracing on: the last holder
 *                                 to end turns it off again (absent: it was traced
 *                                 before any session, and stays so)
 *   holder PID STARTTIME          a session that needs it (one line each)
 *
 * A session lists a tag in its state file, then adds itself as holder (marking the
 * record owned before it turns tracing on), and at its end removes itself; whoever
 * removes the last holder of an owned record turns the tag off and deletes the
 * record. A holder that no longer runs (a SIGKILLed record) is dropped by the next
 * session that reads the record, and by reset, which also finishes records no
 * running session holds. The window that remains: a tag turned on by someone else
 * between a session's listing and its own toggle is found traced by that toggle,
 * which then takes back the owned mark; a session killed right there leaves the mark.
 *
 * When only part of a change could be undone, the file is rewritten (whole, by
 * rename) to list only what still needs undoing.
 */
#ifndef _ATAG_STATE_H
#define _ATAG_STATE_H

#include <stdbool.h>
#include <sys/types.h>

#include "atag-allocinfo.h"

#define ATAG_STATE_DIR		"/run/trace-cmd-alloc-tag"
#define ATAG_STATE_DIR_ENV	"ATAG_STATE_DIR"

struct atag_state {
	char			*path;		/* the state file */
	int			fd;		/* open for appending, or -1 (loaded) */
	pid_t			owner;
	unsigned long long	owner_start;
	char			*allocinfo;	/* NULL: no tags were touched */
	char			*instance;	/* NULL: no instance was created */
	pid_t			recorder;	/* 0: none started */
	unsigned long long	recorder_start;
	char			*recorder_exe;	/* NULL: not known */
	char			*output_tmp;	/* NULL: no private directory */
	char			*output_final;
	struct atag_taglist	tags;		/* tags held */
};
/*
 * The fields list what is to be undone; the session that undid part of it removes
 * that from them (frees and NULLs @instance and @output_*, sets @recorder 0, drops
 * @tags) and then calls atag_state_rewrite().
 */

/**
 * atag_state_dir - the directory of the state files
 *
 * Returns $ATAG_STATE_DIR when set and not empty, else ATAG_STATE_DIR.
 */
const char *atag_state_dir(void);

/**
 * atag_state_create - start the state file of this process
 * @dir: the directory (created, mode 0700, when missing)
 *
 * Writes the owner line. Returns the state, or NULL with errno set.
 */
struct atag_state *atag_state_create(const char *dir);

/**
 * atag_state_set_allocinfo - note the allocinfo file the tags are toggled through
 * @st: the state
 * @path: its path
 *
 * Returns 0 or -errno (a write error).
 */
int atag_state_set_allocinfo(struct atag_state *st, const char *path);

/**
 * atag_state_set_instance - note the instance about to be created
 * @st: the state
 * @name: its name
 *
 * Returns 0 or -errno.
 */
int atag_state_set_instance(struct atag_state *st, const char *name);

/**
 * atag_state_set_recorder - note the recorder process
 * @st: the state
 * @pid: its pid
 * @exe: the program it runs (atag_recorder_exe()), NULL or "" when unknown
 *
 * Returns 0 or -errno.
 */
int atag_state_set_recorder(struct atag_state *st, pid_t pid, const char *exe);

/**
 * atag_state_set_output - note the private directory of the recorder's output
 * @st: the state
 * @tmpdir: the directory, absolute, about to be made
 * @final: the trace.dat it is for, absolute
 *
 * Returns 0 or -errno (-EINVAL for a path with a tab or newline).
 */
int atag_state_set_output(struct atag_state *st, const char *tmpdir, const char *final);

/**
 * atag_state_add_tag - note a tag about to be held
 * @st: the state
 * @t: the tag
 *
 * Returns 0 or -errno (-EINVAL for a name with a tab or newline).
 */
int atag_state_add_tag(struct atag_state *st, const struct atag_tag *t);

/**
 * atag_state_untag - note that a tag is not held after all
 * @st: the state
 * @t: the tag, noted with atag_state_add_tag() before its hold failed
 *
 * Appends an untag line, so that reset leaves @t alone, and removes @t from
 * @st->tags (also when the write fails). Returns 0 or -errno.
 */
int atag_state_untag(struct atag_state *st, const struct atag_tag *t);

/**
 * atag_state_rewrite - replace the state file by what @st lists now
 * @st: the state, created or loaded
 *
 * Writes PATH.tmp and renames it over the file, so that the file is the old one or
 * the new one, whole. A created state keeps appending to the new file.
 * Returns 0 or -errno (the old file is then unchanged).
 */
int atag_state_rewrite(struct atag_state *st);

/**
 * atag_state_load - read a state file
 * @path: its path
 *
 * Returns the state (fd -1), or NULL with errno set (EBADMSG: not a state file).
 */
struct atag_state *atag_state_load(const char *path);

/**
 * atag_state_list - the state files in a directory
 * @dir: the directory
 * @paths: set to a NULL-terminated, sorted array of paths; free each and the array
 *
 * Returns the number of files (0 also when @dir does not exist) or -errno.
 */
int atag_state_list(const char *dir, char ***paths);

/**
 * atag_state_remove - delete the state file and free the state
 * @st: the state, may be NULL
 *
 * Returns 0 or -errno from unlink.
 */
int atag_state_remove(struct atag_state *st);

/**
 * atag_state_free - close and free the state, keeping the file
 * @st: the state, may be NULL
 */
void atag_state_free(struct atag_state *st);

/* ------------------------------------------------------------------ holder records
 * (lib/kernel/atag-holds.c; the format is above) */

#define ATAG_HOLDS_SUBDIR	"tags"

struct atag_holder {
	pid_t			pid;
	unsigned long long	start;
};

/* The holder record of one tag. */
struct atag_hold {
	struct atag_tag		tag;
	char			*allocinfo;	/* NULL: not known */
	bool			owned;		/* a session turned its tracing on */
	struct atag_holder	*holders;
	size_t			nr;
};

/* The holder records of a state directory, locked while open. */
struct atag_holds;

/**
 * atag_holds_lock - open the holder records of a state directory, and lock them
 * @dir: the state directory (created, 0700, with its tags/ subdirectory, if missing)
 *
 * Blocks until no other process holds the lock (an flock() of DIR/tags, which the
 * kernel releases when its holder dies); a directory removed meanwhile is made anew.
 * Returns the records, or NULL with errno set.
 */
struct atag_holds *atag_holds_lock(const char *dir);

/**
 * atag_holds_unlock - unlock and free; DIR/tags goes when it holds no record
 * @h: the records, may be NULL
 */
void atag_holds_unlock(struct atag_holds *h);

/**
 * atag_holds_read - the holder record of a tag
 * @h: the records
 * @t: the tag
 * @hold: filled (free with atag_hold_release()); a tag without a record gets an
 *        empty one: no holder, not owned
 *
 * Returns 1 when the tag has a record, 0 when not, or -errno (-EBADMSG: a record that
 * is not in the format above).
 */
int atag_holds_read(struct atag_holds *h, const struct atag_tag *t, struct atag_hold *hold);

/**
 * atag_holds_write - replace the holder record of a tag (whole, by rename)
 * @h: the records
 * @hold: the record; one without holders that is not owned is deleted instead
 *
 * Returns 0 or -errno.
 */
int atag_holds_write(struct atag_holds *h, const struct atag_hold *hold);

/**
 * atag_holds_delete - delete the holder record of a tag
 * @h: the records
 * @t: the tag
 *
 * Returns 0 (also when there was none) or -errno.
 */
int atag_holds_delete(struct atag_holds *h, const struct atag_tag *t);

/**
 * atag_holds_all - every holder record of the directory
 * @h: the records
 * @holds: set to an array of them (free each with atag_hold_release(), then the array)
 *
 * Records that cannot be read are left out. Returns how many, or -errno.
 */
int atag_holds_all(struct atag_holds *h, struct atag_hold **holds);

/* Add a holder, once (0 or -ENOMEM); drop one (whether it was there). */
int atag_hold_add(struct atag_hold *hold, pid_t pid, unsigned long long start);
bool atag_hold_drop(struct atag_hold *hold, pid_t pid, unsigned long long start);

/* Drop the holders that no longer run; returns how many were dropped. */
size_t atag_hold_prune(struct atag_hold *hold);

/* Free what a record holds (not @hold itself). */
void atag_hold_release(struct atag_hold *hold);

#endif /* _ATAG_STATE_H */
