// SPDX-License-Identifier: LGPL-2.1
/*
 * Sessions: the state file, the tracefs instance, the tags turned on and the recorder
 * of one command, done and undone in one place (rules in include/atag-session.h).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "atag-session.h"
#include "atag-utils.h"

struct atag_session {
	struct atag_state	*st;		/* what is to be undone, as listed */
	enum atag_session_part	failed;
	struct atag_allocinfo	*ai;		/* borrowed: set_allocinfo() */
	char			instance_name[64];
	struct tracefs_instance	*instance;	/* while ours exists */
	struct atag_recorder	*rec;		/* the one we started */
};

static struct atag_session *session_alloc(struct atag_state *st)
{
	struct atag_session *s;

	if (!st)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		atag_state_free(st);
		errno = ENOMEM;
		return NULL;
	}
	s->st = st;
	snprintf(s->instance_name, sizeof(s->instance_name), "%s%d", ATAG_INSTANCE_PREFIX,
		 (int)st->owner);
	return s;
}

struct atag_session *atag_session_create(const char *dir)
{
	return session_alloc(atag_state_create(dir));
}

struct atag_session *atag_session_load(const char *path)
{
	return session_alloc(atag_state_load(path));
}

const struct atag_state *atag_session_state(const struct atag_session *s)
{
	return s->st;
}

enum atag_session_part atag_session_failed(const struct atag_session *s)
{
	return s->failed;
}

/* Note where a failure came from; returns @ret. */
static int failed(struct atag_session *s, enum atag_session_part part, int ret)
{
	if (ret)
		s->failed = part;
	return atag_err(ret);
}

int atag_session_set_allocinfo(struct atag_session *s, struct atag_allocinfo *ai)
{
	s->ai = ai;
	return failed(s, ATAG_PART_STATE, atag_state_set_allocinfo(s->st, atag_allocinfo_name(ai)));
}

const char *atag_session_instance_name(const struct atag_session *s)
{
	return s->instance_name;
}

struct tracefs_instance *atag_session_instance(const struct atag_session *s)
{
	return s->instance;
}

/* What is listed but was never done is not to be undone (nor rewritten). */
static void unlist_instance(struct atag_session *s)
{
	free(s->st->instance);
	s->st->instance = NULL;
}

int atag_session_create_instance(struct atag_session *s)
{
	int ret;

	ret = atag_state_set_instance(s->st, s->instance_name);
	if (ret)
		return failed(s, ATAG_PART_STATE, ret);
	ret = atag_instance_create(s->instance_name);
	if (!ret) {
		s->instance = atag_instance_get(s->instance_name);
		if (!s->instance)
			ret = -errno;	/* and it is ours: it stays listed */
		return failed(s, ATAG_PART_INSTANCE, ret);
	}
	unlist_instance(s);
	return failed(s, ATAG_PART_INSTANCE, ret);
}

int atag_session_enable_tag(struct atag_session *s, const struct atag_tag *t)
{
	int ret, err;

	if (!s->ai)
		return failed(s, ATAG_PART_ALLOCINFO, -EINVAL);	/* no set_allocinfo() */
	ret = atag_state_add_tag(s->st, t);
	if (ret)
		return failed(s, ATAG_PART_STATE, ret);
	ret = atag_allocinfo_toggle_tag(s->ai, t, true);
	if (!ret)
		return 0;
	/* not turned on by us after all: reset must leave it alone */
	err = atag_state_untag(s->st, t);
	if (err)
		return failed(s, ATAG_PART_STATE, err);
	if (ret == -ENOENT)
		return 1;	/* someone else turned it on meanwhile */
	return failed(s, ATAG_PART_ALLOCINFO, ret);
}

static bool stop_asked(int stop_fd)
{
	struct pollfd p = { .fd = stop_fd, .events = POLLIN };

	return stop_fd >= 0 && atag_poll(&p, 1, 0) > 0;
}

int atag_session_enable_tags(struct atag_session *s, const struct atag_taglist *tags,
			     int stop_fd, struct atag_enabled *n)
{
	size_t i;
	int ret;

	memset(n, 0, sizeof(*n));
	for (i = 0; tags && i < tags->nr; i++) {
		if (stop_asked(stop_fd))
			return atag_err(-EINTR);
		if (tags->tags[i].traced) {
			n->already_on++;
			continue;
		}
		ret = atag_session_enable_tag(s, &tags->tags[i]);
		if (ret < 0)
			return ret;
		if (ret)
			n->already_on++;
		else
			n->turned_on++;
	}
	return 0;
}

struct atag_recorder *atag_session_start_recorder(struct atag_session *s,
						  const struct atag_recorder_opts *opts)
{
	struct atag_recorder_opts o = *opts;

	o.instance = s->instance_name;
	s->rec = atag_recorder_start(&o);
	if (!s->rec) {
		failed(s, ATAG_PART_RECORDER, -errno);
		return NULL;
	}
	/* as before the state file had it: a recorder not listed is still stopped here */
	atag_state_set_recorder(s->st, atag_recorder_pid(s->rec));
	return s->rec;
}

int atag_session_stop_recorder(struct atag_session *s, int timeout_ms)
{
	int status;

	if (!s->rec)
		return 0;
	status = atag_recorder_stop(s->rec, timeout_ms);
	s->st->recorder = 0;		/* ended, or killed and reaped */
	return status;
}

int atag_session_lost_events(struct atag_session *s, struct atag_lost *lost)
{
	return atag_instance_lost_events(s->instance_name, lost);
}

/* ------------------------------------------------------------------ undoing */

/* A recorder still running gets SIGINT (it completes the trace.dat), then SIGKILL. */
static int undo_recorder(struct atag_session *s, struct atag_undo *u)
{
	const struct atag_state *st = s->st;
	int ret;

	if (s->rec) {
		/* ours: it ends here one way or the other (its status is the caller's) */
		if (atag_recorder_running(s->rec))
			u->recorder_stopped = true;
		atag_session_stop_recorder(s, ATAG_SESSION_STOP_MS);
		return 0;
	}
	if (!atag_proc_alive(st->recorder, st->recorder_start))
		return 0;		/* gone already */
	u->recorder_stopped = true;
	ret = atag_proc_stop(st->recorder, st->recorder_start, SIGINT, ATAG_SESSION_STOP_MS,
			     ATAG_SESSION_KILL_MS);
	return ret < 0 ? ret : 0;
}

/* Turns tracing off on the listed tags; only those where that failed stay listed. */
static int undo_tags(struct atag_session *s, struct atag_undo *u)
{
	struct atag_taglist *tags = &s->st->tags;
	struct atag_allocinfo *ai = s->ai;
	size_t i, left = 0;
	int ret;

	if (!tags->nr)
		return 0;
	if (!ai)
		ai = atag_allocinfo_open(s->st->allocinfo ? s->st->allocinfo :
					 ATAG_ALLOCINFO_PATH);
	if (!ai) {
		u->tags_left = tags->nr;
		return u->tags_error = -errno;
	}
	for (i = 0; i < tags->nr; i++) {
		ret = atag_allocinfo_toggle_tag(ai, &tags->tags[i], false);
		if (!ret) {
			u->tags_disabled++;
		} else if (ret == -ENOENT) {
			u->tags_gone++;
		} else {
			u->tags_error = u->tags_error ?: ret;
			tags->tags[left++] = tags->tags[i];
		}
	}
	tags->nr = left;
	u->tags_left = left;
	if (ai != s->ai)
		atag_allocinfo_close(ai);
	return u->tags_error;
}

static int undo_instance(struct atag_session *s, struct atag_undo *u)
{
	const char *name = s->st->instance;
	int ret;

	if (!name)
		return 0;
	/* only an instance this tool names: never someone else's */
	if (strncmp(name, ATAG_INSTANCE_PREFIX, strlen(ATAG_INSTANCE_PREFIX)) ||
	    strchr(name, '/'))
		return u->instance_error = -EINVAL;
	ret = atag_instance_destroy(name);
	if (!ret)
		u->instance_removed = true;
	if (ret && ret != -ENOENT)
		return u->instance_error = ret;
	tracefs_instance_free(s->instance);
	s->instance = NULL;
	unlist_instance(s);
	return 0;
}

static void undo_step(struct atag_session *s, struct atag_undo *u, int ret,
		      enum atag_session_part part, const char *step)
{
	if (ret && !u->error) {
		u->error = ret;
		u->failed_step = step;
		s->failed = part;
	}
}

int atag_session_undo(struct atag_session *s, struct atag_undo *u)
{
	const struct atag_state *st = s->st;
	int ret;

	memset(u, 0, sizeof(*u));
	if (st->owner != getpid() && atag_proc_alive(st->owner, st->owner_start)) {
		u->owner_alive = true;
		return 0;
	}
	ret = undo_recorder(s, u);
	undo_step(s, u, ret, ATAG_PART_RECORDER, "recorder");
	if (!ret)
		s->st->recorder = 0;
	undo_step(s, u, undo_tags(s, u), ATAG_PART_ALLOCINFO, "allocinfo");
	undo_step(s, u, undo_instance(s, u), ATAG_PART_INSTANCE, "instance");
	return atag_err(u->error);
}

/* ------------------------------------------------------------------ the end */

void atag_session_free(struct atag_session *s)
{
	if (!s)
		return;
	atag_recorder_free(s->rec);
	tracefs_instance_free(s->instance);
	atag_state_free(s->st);
	free(s);
}

int atag_session_close(struct atag_session *s, bool *kept)
{
	bool left;
	int ret;

	if (kept)
		*kept = false;
	if (!s)
		return 0;
	left = s->st->recorder > 0 || s->st->instance || s->st->tags.nr;
	if (kept)
		*kept = left;
	if (left) {
		ret = atag_state_rewrite(s->st);
		atag_session_free(s);
		return ret;
	}
	ret = atag_state_remove(s->st);
	s->st = NULL;
	atag_session_free(s);
	return ret;
}
