// SPDX-License-Identifier: LGPL-2.1
/*
 * Sessions: the state file, the tracefs instance, the tags turned on and the recorder
 * of one command, done and undone in one place (rules in include/atag-session.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "atag-marker.h"
#include "atag-session.h"
#include "atag-utils.h"

struct atag_session {
	struct atag_state	*st;		/* what is to be undone, as listed */
	char			*dir;		/* the state directory */
	bool			loaded;		/* from a state file, to be undone */
	enum atag_session_part	failed;
	struct atag_allocinfo	*ai;		/* borrowed: set_allocinfo() */
	char			instance_name[64];
	struct tracefs_instance	*instance;	/* while ours exists */
	int			marker_fd;	/* its trace_marker, once written */
	struct atag_recorder	*rec;		/* the one we started */
	struct atag_output	*out;		/* its private directory */
};

static struct atag_session *session_alloc(struct atag_state *st, bool loaded)
{
	struct atag_session *s;
	char *slash;

	if (!st)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (s)
		s->dir = strdup(st->path);
	if (!s || !s->dir) {
		free(s);
		atag_state_free(st);
		errno = ENOMEM;
		return NULL;
	}
	slash = strrchr(s->dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(s->dir, ".");
	s->st = st;
	s->loaded = loaded;
	s->marker_fd = -1;
	snprintf(s->instance_name, sizeof(s->instance_name), "%s%d", ATAG_INSTANCE_PREFIX,
		 (int)st->owner);
	return s;
}

struct atag_session *atag_session_create(const char *dir)
{
	return session_alloc(atag_state_create(dir), false);
}

struct atag_session *atag_session_load(const char *path)
{
	return session_alloc(atag_state_load(path), true);
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

static int note_output(const char *tmpdir, const char *final, void *ctx)
{
	return atag_state_set_output(ctx, tmpdir, final);
}

static void unlist_output(struct atag_session *s)
{
	free(s->st->output_tmp);
	free(s->st->output_final);
	s->st->output_tmp = s->st->output_final = NULL;
}

int atag_session_create_output(struct atag_session *s, const char *path)
{
	if (s->out)
		return failed(s, ATAG_PART_OUTPUT, -EEXIST);
	s->out = atag_output_create(path, note_output, s->st);
	if (s->out)
		return 0;
	/* what was listed was not made (or is not ours): nothing to undo */
	unlist_output(s);
	return failed(s, ATAG_PART_OUTPUT, -errno);
}

const char *atag_session_output(const struct atag_session *s)
{
	return s->out ? atag_output_path(s->out) : NULL;
}

const char *atag_session_output_tmpdir(const struct atag_session *s)
{
	return s->out ? atag_output_tmpdir(s->out) : NULL;
}

bool atag_session_output_full(const struct atag_session *s)
{
	return s->out && atag_output_full(s->out);
}

int atag_session_commit_output(struct atag_session *s)
{
	int ret;

	if (!s->out)
		return failed(s, ATAG_PART_OUTPUT, -ENOENT);
	ret = atag_output_commit(s->out);
	atag_output_free(s->out);
	s->out = NULL;
	unlist_output(s);
	return ret > 0 ? ret : failed(s, ATAG_PART_OUTPUT, ret);
}

/* ------------------------------------------------------------------ tags and holds */

/*
 * Hold one tag: listed in the state file, then its holder record takes us in, and
 * its tracing is turned on when it is off (the record marked owned first). Returns
 * 0 when we turned it on, 1 when it was on already, or -errno.
 */
static int hold_tag(struct atag_session *s, struct atag_holds *h, const struct atag_tag *t)
{
	const struct atag_state *st = s->st;
	struct atag_hold hold;
	bool was_owned;
	int ret, err;

	ret = atag_state_add_tag(s->st, t);
	if (ret)
		return failed(s, ATAG_PART_STATE, ret);
	ret = atag_holds_read(h, t, &hold);
	if (ret < 0)
		goto untag;
	atag_hold_prune(&hold);		/* holders killed meanwhile hold nothing */
	was_owned = hold.owned;
	ret = atag_hold_add(&hold, st->owner, st->owner_start);
	if (!ret && !hold.allocinfo && st->allocinfo && !(hold.allocinfo = strdup(st->allocinfo)))
		ret = -ENOMEM;
	if (!ret && t->traced != 1)
		hold.owned = true;	/* before the toggle: reset must know */
	if (!ret)
		ret = atag_holds_write(h, &hold);
	if (ret)
		goto release;
	if (t->traced == 1) {
		atag_hold_release(&hold);
		return 1;
	}
	ret = atag_allocinfo_toggle_tag(s->ai, t, true);
	if (!ret) {
		atag_hold_release(&hold);
		return 0;
	}
	/* not turned on by us after all (found on: someone else's; or an error) */
	hold.owned = was_owned;
	if (ret != -ENOENT)
		atag_hold_drop(&hold, st->owner, st->owner_start);
	err = atag_holds_write(h, &hold);
	if (ret == -ENOENT && !err) {
		atag_hold_release(&hold);
		return 1;
	}
	ret = ret == -ENOENT ? err : ret;
	atag_hold_release(&hold);
	err = atag_state_untag(s->st, t);
	return failed(s, err ? ATAG_PART_STATE : ATAG_PART_ALLOCINFO, err ?: ret);
release:
	atag_hold_release(&hold);
untag:
	err = atag_state_untag(s->st, t);
	return failed(s, ATAG_PART_STATE, err ?: ret);
}

int atag_session_enable_tag(struct atag_session *s, const struct atag_tag *t)
{
	struct atag_holds *h;
	int ret;

	if (!s->ai)
		return failed(s, ATAG_PART_ALLOCINFO, -EINVAL);	/* no set_allocinfo() */
	h = atag_holds_lock(s->dir);
	if (!h)
		return failed(s, ATAG_PART_STATE, -errno);
	ret = hold_tag(s, h, t);
	atag_holds_unlock(h);
	return ret;
}

static bool stop_asked(int stop_fd)
{
	struct pollfd p = { .fd = stop_fd, .events = POLLIN };

	return stop_fd >= 0 && atag_poll(&p, 1, 0) > 0;
}

int atag_session_enable_tags(struct atag_session *s, const struct atag_taglist *tags,
			     int stop_fd, struct atag_enabled *n)
{
	struct atag_holds *h;
	size_t i;
	int ret = 0;

	memset(n, 0, sizeof(*n));
	if (!tags || !tags->nr)
		return 0;
	if (!s->ai)
		return failed(s, ATAG_PART_ALLOCINFO, -EINVAL);
	h = atag_holds_lock(s->dir);
	if (!h)
		return failed(s, ATAG_PART_STATE, -errno);
	for (i = 0; i < tags->nr; i++) {
		if (stop_asked(stop_fd)) {
			ret = atag_err(-EINTR);
			break;
		}
		ret = hold_tag(s, h, &tags->tags[i]);
		if (ret < 0)
			break;
		if (ret)
			n->already_on++;
		else
			n->turned_on++;
		ret = 0;
	}
	atag_holds_unlock(h);
	return ret;
}

struct atag_recorder *atag_session_start_recorder(struct atag_session *s,
						  const struct atag_recorder_opts *opts)
{
	struct atag_recorder_opts o = *opts;

	if (!s->out && opts->output && atag_session_create_output(s, opts->output))
		return NULL;
	o.instance = s->instance_name;
	o.out = s->out;
	s->rec = atag_recorder_start(&o);
	if (!s->rec) {
		failed(s, ATAG_PART_RECORDER, -errno);
		return NULL;
	}
	/* as before the state file had it: a recorder not listed is still stopped here */
	atag_state_set_recorder(s->st, atag_recorder_pid(s->rec), atag_recorder_exe(s->rec));
	return s->rec;
}

/*
 * Nothing more is committed to the instance before its recorder writes the trace.dat:
 * trace-cmd reads saved_cmdlines twice (once for the size, once for the bytes) and, up
 * to trace-cmd 3.4 at least, writes a comm list cut short when the table changed in
 * between. Each commit of an event lets the next sched_switch save a comm, and with -k
 * trace-cmd leaves the instance recording. (Others' tracing can still change the
 * table: record reads the file back and mends it, include/atag-trace.h.)
 */
static void quiet_instance(struct atag_session *s)
{
	struct tracefs_instance *inst = s->instance;

	if (!inst && atag_instance_exists(s->instance_name))
		inst = atag_instance_get(s->instance_name);
	if (inst)
		tracefs_instance_file_write(inst, "tracing_on", "0");
	if (inst != s->instance)
		tracefs_instance_free(inst);
}

int atag_session_stop_recorder(struct atag_session *s, int timeout_ms)
{
	int status;

	if (!s->rec)
		return 0;
	quiet_instance(s);
	status = atag_recorder_stop(s->rec, timeout_ms);
	s->st->recorder = 0;		/* ended, or killed and reaped */
	return status;
}

int atag_session_lost_events(struct atag_session *s, struct atag_lost *lost)
{
	return atag_instance_lost_events(s->instance_name, lost);
}

/* ------------------------------------------------------------------ markers */

/* One line, built (atag-marker.h), in one write() */
static int marker_write(struct atag_session *s, struct atag_marker_line *l)
{
	char *path;
	ssize_t w;

	if (atag_marker_end(l))
		return atag_err(-E2BIG);	/* never written in part */
	if (s->marker_fd < 0) {
		if (!s->instance)
			return failed(s, ATAG_PART_INSTANCE, -ENOENT);
		path = tracefs_instance_get_file(s->instance, "trace_marker");
		s->marker_fd = path ? open(path, O_WRONLY | O_CLOEXEC) : -1;
		tracefs_put_tracing_file(path);
		if (s->marker_fd < 0)
			return failed(s, ATAG_PART_INSTANCE, path ? -errno : -ENOMEM);
	}
	w = write(s->marker_fd, l->buf, l->len);
	if (w != (ssize_t)l->len)
		return failed(s, ATAG_PART_INSTANCE, w < 0 ? -errno : -EIO);
	return 0;
}

/* "PREFIX KEYWORD" then the fields of @ap up to NULL, then the tag's when @t. */
static int vmark(struct atag_session *s, const char *keyword, const struct atag_tag *t,
		 va_list ap)
{
	struct atag_marker_line l;
	const char *f;
	char line[32];

	atag_marker_begin(&l, keyword);
	while ((f = va_arg(ap, const char *)))
		atag_marker_add(&l, f);
	if (t) {
		snprintf(line, sizeof(line), "%llu", t->lineno);
		atag_marker_add(&l, t->modname[0] ? t->modname : "-");
		atag_marker_add(&l, t->filename);
		atag_marker_add(&l, line);
		atag_marker_add(&l, t->function);
	}
	return marker_write(s, &l);
}

int atag_session_mark(struct atag_session *s, const char *keyword, ...)
{
	va_list ap;
	int ret;

	va_start(ap, keyword);
	ret = vmark(s, keyword, NULL, ap);
	va_end(ap);
	return ret;
}

int atag_session_mark_tag(struct atag_session *s, const char *keyword,
			  const struct atag_tag *t, ...)
{
	va_list ap;
	int ret;

	va_start(ap, t);
	ret = vmark(s, keyword, t, ap);
	va_end(ap);
	return ret;
}

/* ------------------------------------------------------------------ undoing */

/*
 * What proves that the process a state file lists is the recorder it started (its
 * start time is checked already): trace-cmd's arguments as atag_recorder_start()
 * gives them, for the instance named after the owner, and the program listed (for a
 * script, its interpreter runs it: the script is its first argument).
 */
static bool is_our_recorder(pid_t pid, void *ctx)
{
	const struct atag_session *s = ctx;
	const char *seq[] = { "record", "-d", "-k", "-B", s->instance_name, NULL };
	const char *exe = s->st->recorder_exe;
	char real[PATH_MAX], arg1[PATH_MAX];
	size_t len, first;
	char *args;
	bool ok;

	args = atag_proc_cmdline(pid, &len);
	if (!args)
		return false;
	ok = atag_args_have(args, len, seq);
	if (ok && exe) {
		first = strnlen(args, len) + 1;
		ok = (!atag_proc_exe(pid, real, sizeof(real)) && !strcmp(real, exe)) ||
		     (first < len && args[first] == '/' && realpath(args + first, arg1) &&
		      !strcmp(arg1, exe));
	}
	free(args);
	return ok;
}

/* A recorder still running gets SIGINT (it completes the trace.dat), then SIGKILL. */
static int undo_recorder(struct atag_session *s, struct atag_undo *u)
{
	const struct atag_state *st = s->st;
	struct atag_stop how = {
		.sig = SIGINT,
		.timeout_ms = ATAG_SESSION_STOP_MS,
		.repeat_ms = 500,
		.kill_timeout_ms = ATAG_SESSION_KILL_MS,
		.group = true,
		.check = is_our_recorder,
		.ctx = s,
	};
	int ret;

	if (s->rec) {
		/* ours: it ends here one way or the other (its status is the caller's) */
		if (atag_recorder_running(s->rec))
			u->recorder_stopped = true;
		atag_session_stop_recorder(s, ATAG_SESSION_STOP_MS);
		return 0;
	}
	if (!st->recorder || !atag_proc_alive(st->recorder, st->recorder_start))
		return 0;		/* gone already */
	if (is_our_recorder(st->recorder, s))
		quiet_instance(s);
	ret = atag_proc_stop(st->recorder, st->recorder_start, &how);
	if (ret == -EPERM || ret == -EINVAL) {
		/* not provably the recorder: never signalled; what was listed is gone */
		u->recorder_unproven = true;
		return 0;
	}
	if (ret >= 0)
		u->recorder_stopped = true;
	return ret < 0 ? ret : 0;
}

/*
 * The output: a session of this process discards what was not committed; a loaded
 * one (its recorder ended above) moves a complete trace.dat into place.
 */
static int undo_output(struct atag_session *s, struct atag_undo *u)
{
	int ret = 0;

	if (s->out) {
		atag_output_free(s->out);
		s->out = NULL;
	} else if (s->st->output_tmp && s->st->recorder) {
		return 0;	/* its recorder still runs: it still writes there */
	} else if (s->st->output_tmp) {
		ret = atag_output_recover(s->st->output_tmp, s->st->output_final,
					  &u->output_moved);
		if (u->output_moved)
			snprintf(u->output, sizeof(u->output), "%s", s->st->output_final);
	}
	if (!ret)
		unlist_output(s);
	return ret;
}

/*
 * Turn tracing off on @t through *@ai (opened on @path, default /proc/allocinfo, when
 * NULL): 0, 1 when it was off or is gone, or -errno.
 */
static int tag_off(struct atag_allocinfo **ai, const char *path, const struct atag_tag *t)
{
	int ret;

	if (!*ai)
		*ai = atag_allocinfo_open(path ? path : ATAG_ALLOCINFO_PATH);
	if (!*ai)
		return atag_err(errno ? -errno : -EIO);
	ret = atag_allocinfo_toggle_tag(*ai, t, false);
	return ret == -ENOENT ? 1 : ret;
}

/*
 * Let go of one held tag: the last holder of a record that a session turned on
 * turns its tracing off. Returns 0 or -errno (the tag stays listed, and its record
 * owned, for a later reset).
 */
static int release_tag(struct atag_session *s, struct atag_holds *h, struct atag_allocinfo **ai,
		       const struct atag_tag *t, struct atag_undo *u)
{
	const struct atag_state *st = s->st;
	struct atag_hold hold;
	int ret;

	ret = atag_holds_read(h, t, &hold);
	if (ret < 0)
		return ret;
	atag_hold_drop(&hold, st->owner, st->owner_start);
	atag_hold_prune(&hold);
	if (hold.nr) {
		u->tags_held++;		/* others still need it: it stays on */
		ret = atag_holds_write(h, &hold);
	} else if (!hold.owned) {
		u->tags_kept++;		/* traced before any session: it stays on */
		ret = atag_holds_delete(h, t);
	} else {
		ret = tag_off(ai, st->allocinfo ? st->allocinfo : hold.allocinfo, t);
		if (!ret)
			u->tags_disabled++;
		else if (ret > 0)
			u->tags_gone++;
		if (ret >= 0)
			ret = atag_holds_delete(h, t);
		else
			atag_holds_write(h, &hold);	/* owned, no holder: for reset */
	}
	atag_hold_release(&hold);
	return ret;
}

/* Lets go of the held tags; only those where that failed stay listed. */
static int undo_tags(struct atag_session *s, struct atag_undo *u)
{
	struct atag_taglist *tags = &s->st->tags;
	struct atag_allocinfo *ai = s->ai;
	struct atag_holds *h;
	size_t i, left = 0;
	int ret;

	if (!tags->nr)
		return 0;
	h = atag_holds_lock(s->dir);
	if (!h) {
		u->tags_left = tags->nr;
		return u->tags_error = -errno;
	}
	for (i = 0; i < tags->nr; i++) {
		ret = release_tag(s, h, &ai, &tags->tags[i], u);
		if (ret) {
			u->tags_error = u->tags_error ?: ret;
			tags->tags[left++] = tags->tags[i];
		}
	}
	atag_holds_unlock(h);
	tags->nr = left;
	u->tags_left = left;
	if (ai != s->ai)
		atag_allocinfo_close(ai);
	return u->tags_error;
}

static void close_marker(struct atag_session *s)
{
	if (s->marker_fd >= 0)
		close(s->marker_fd);
	s->marker_fd = -1;
}

/*
 * How long an instance may stay busy when it is removed. A recorder's per-CPU readers
 * hold its trace_pipe_raw files until they have exited, and their group is sent
 * SIGKILL, not waited for: when trace-cmd was killed from outside, they may still be
 * exiting when the instance goes (rmdir says EBUSY).
 */
#define INSTANCE_BUSY_MS	2000
#define INSTANCE_RETRY_MS	10

static int undo_instance(struct atag_session *s, struct atag_undo *u)
{
	const char *name = s->st->instance;
	int ret, waited;

	if (!name)
		return 0;
	/* only an instance this tool names: never someone else's */
	if (strncmp(name, ATAG_INSTANCE_PREFIX, strlen(ATAG_INSTANCE_PREFIX)) ||
	    strchr(name, '/'))
		return u->instance_error = -EINVAL;
	close_marker(s);		/* an open file keeps the instance busy */
	ret = atag_instance_destroy(name);
	for (waited = 0; ret == -EBUSY && waited < INSTANCE_BUSY_MS; waited += INSTANCE_RETRY_MS) {
		poll(NULL, 0, INSTANCE_RETRY_MS);
		ret = atag_instance_destroy(name);
	}
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
	undo_step(s, u, undo_output(s, u), ATAG_PART_OUTPUT, "output");
	undo_step(s, u, undo_tags(s, u), ATAG_PART_ALLOCINFO, "allocinfo");
	undo_step(s, u, undo_instance(s, u), ATAG_PART_INSTANCE, "instance");
	return atag_err(u->error);
}

int atag_session_sweep_holds(const char *dir, struct atag_sweep *sw)
{
	struct atag_allocinfo *ai;
	struct atag_hold *all;
	struct atag_holds *h;
	int n, i, ret, err = 0;
	char *sub;

	memset(sw, 0, sizeof(*sw));
	if (asprintf(&sub, "%s/%s", dir, ATAG_HOLDS_SUBDIR) < 0)
		return atag_err(-ENOMEM);
	i = access(sub, F_OK);
	free(sub);
	if (i)
		return 0;	/* no session ever held a tag here */
	h = atag_holds_lock(dir);
	if (!h)
		return atag_err(-errno);
	n = atag_holds_all(h, &all);
	if (n < 0) {
		atag_holds_unlock(h);
		return n;
	}
	for (i = 0; i < n; i++) {
		sw->pruned += atag_hold_prune(&all[i]);
		if (all[i].nr) {
			ret = atag_holds_write(h, &all[i]);	/* without the dead */
		} else if (!all[i].owned) {
			ret = atag_holds_delete(h, &all[i].tag);
		} else {
			ai = NULL;
			ret = tag_off(&ai, all[i].allocinfo, &all[i].tag);
			atag_allocinfo_close(ai);
			if (!ret)
				sw->disabled++;
			if (ret >= 0) {
				ret = atag_holds_delete(h, &all[i].tag);
			} else {
				sw->left++;	/* owned, without holders: for the next reset */
				atag_holds_write(h, &all[i]);
			}
		}
		err = err ?: ret;
		atag_hold_release(&all[i]);
	}
	free(all);
	atag_holds_unlock(h);
	return atag_err(err);
}

/* ------------------------------------------------------------------ the end */

void atag_session_free(struct atag_session *s)
{
	if (!s)
		return;
	atag_recorder_free(s->rec);
	atag_output_free(s->out);
	close_marker(s);
	tracefs_instance_free(s->instance);
	atag_state_free(s->st);
	free(s->dir);
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
	left = s->st->recorder > 0 || s->st->instance || s->st->tags.nr || s->st->output_tmp;
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
