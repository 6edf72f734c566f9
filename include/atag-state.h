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
 *   recorder PID STARTTIME        the trace-cmd record it started
 *   tag MODULE FILE LINE FUNCTION a tag whose tracing it turns on (MODULE "-" for
 *                                 built-in; fields separated by tabs)
 *   untag MODULE FILE LINE ...    that toggle did not happen after all: the tag
 *                                 listed last as above is not ours to turn off
 *
 * A line without its newline (the writer died mid-line) is ignored.
 *
 * Undoing a listed instance or recorder that never came to be is harmless: the
 * instance is absent (and named after the owner's pid), the recorder is named by pid
 * and start time. Undoing a tag is not: a tag whose toggle failed, or found it traced
 * already (someone else turned it on meanwhile), must not be turned off by reset, so
 * such a toggle is followed by an untag line. What is left is the window between a
 * tag line and its toggle: a record killed right there lists a tag it did not turn
 * on, which was untraced when it listed the tags a moment before.
 *
 * When only part of a change could be undone, the file is rewritten (whole, by
 * rename) to list only what still needs undoing, so that a later reset does not
 * turn off a tag that was turned off and then on again by someone else.
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
	struct atag_taglist	tags;		/* tags whose tracing was turned on */
};
/*
 * The fields list what is to be undone; the session that undid part of it removes
 * that from them (frees and NULLs @instance, sets @recorder 0, drops @tags) and then
 * calls atag_state_rewrite().
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
 *
 * Returns 0 or -errno.
 */
int atag_state_set_recorder(struct atag_state *st, pid_t pid);

/**
 * atag_state_add_tag - note a tag whose tracing is about to be turned on
 * @st: the state
 * @t: the tag
 *
 * Returns 0 or -errno (-EINVAL for a name with a tab or newline).
 */
int atag_state_add_tag(struct atag_state *st, const struct atag_tag *t);

/**
 * atag_state_untag - note that tracing on a tag was not turned on after all
 * @st: the state
 * @t: the tag, noted with atag_state_add_tag() before its toggle failed or found
 *     it traced already
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

#endif /* _ATAG_STATE_H */
