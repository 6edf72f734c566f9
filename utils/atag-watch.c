// SPDX-License-Identifier: GPL-2.0
/*
 * What top and leaks share: options, checks, the session around a live view,
 * COMMAND, the teardown. See atag-watch.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-live.h"
#include "atag-profiling.h"
#include "atag-stop.h"
#include "atag-utils.h"
#include "atag-watch.h"

#define CHILD_TERM_MS		5000

void atag_watch_init(struct atag_watch_params *p)
{
	memset(p, 0, sizeof(*p));
	atag_tagopts_init(&p->tagopts);
}

void atag_watch_release(struct atag_watch_params *p)
{
	atag_tagopts_release(&p->tagopts);
	free(p->pids);
	free(p->comms);
}

static void add_pids(struct atag_watch_params *p, const char *list, const char *usage)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned long long v;
	int *a;

	if (!copy)
		die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (atag_parse_u64(tok, &v) || !v || v > 0x7fffffff)
			atag_usage_error(usage, "--pid: '%s' is not a pid", tok);
		a = realloc(p->pids, (p->nr_pids + 1) * sizeof(*a));
		if (!a)
			die("out of memory");
		a[p->nr_pids++] = v;
		p->pids = a;
	}
	free(copy);
}

static void add_comm(struct atag_watch_params *p, const char *glob)
{
	const char **a = realloc(p->comms, (p->nr_comms + 1) * sizeof(*a));

	if (!a)
		die("out of memory");
	a[p->nr_comms++] = glob;
	p->comms = a;
}

bool atag_watch_option(struct atag_watch_params *p, int c, const char *arg, const char *usage)
{
	if (atag_tagopts_parse(&p->tagopts, c, arg, usage))
		return true;
	switch (c) {
	case 'b':
		if (atag_parse_u64(arg, &p->buffer_kb) || !p->buffer_kb)
			atag_usage_error(usage, "-b: '%s' is not a size in KiB", arg);
		return true;
	case OPT_WATCH_all: p->all = true; return true;
	case OPT_WATCH_kmem: p->kmem = true; return true;
	case OPT_WATCH_pid: add_pids(p, arg, usage); return true;
	case OPT_WATCH_comm: add_comm(p, arg); return true;
	case OPT_WATCH_all_tasks: p->all_tasks = true; return true;
	default: return false;
	}
}

void atag_watch_check(struct atag_watch_params *p, const char *usage)
{
	atag_tagopts_check(&p->tagopts, usage);
	if (p->kmem && (p->all || !atag_filter_is_empty(&p->tagopts.filter)))
		atag_usage_error(usage, "--kmem watches every allocation: no tag filter");
	if (!p->kmem && !p->all && atag_filter_is_empty(&p->tagopts.filter))
		atag_usage_error(usage, "give a filter, or --all to trace every call site");
	if (p->all && !atag_filter_is_empty(&p->tagopts.filter))
		atag_usage_error(usage, "--all and a filter exclude each other");
	if (p->all_tasks && !p->command)
		atag_usage_error(usage, "--all-tasks goes with a COMMAND");
	if (p->all_tasks && (p->nr_pids || p->nr_comms))
		atag_usage_error(usage, "--all-tasks and --pid or --comm exclude each other");
}

void atag_watch_preflight(struct atag_watch *w)
{
	const char *dir = atag_tracefs_dir(), * const *evs;
	char path[4096];
	int i, optional, n;

	if (w->p->command)
		atag_command_check(w->p->command[0]);
	if (!dir)
		die("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	snprintf(path, sizeof(path), "%s/instances", dir);
	if (access(path, W_OK))
		die("%s: %s: run as root", path, strerror(errno));
	evs = atag_live_events(w->p->kmem ? "kmem" : "alloc_tag", &optional);
	for (n = 0; evs[n]; n++)
		;
	for (i = 0; i < n - optional; i++) {
		if (atag_event_spec_exists(evs[i]))
			continue;
		if (w->p->kmem)
			die("%s/events/%s: no such event: this kernel cannot be watched with --kmem",
			    dir, evs[i]);
		die("%s/events/alloc_tag: no alloc_tag trace events: this kernel lacks the patch series \"%s\" (%s --kmem works without it)",
		    dir, ATAG_TRACING_SERIES, w->name);
	}
	if (w->p->kmem)
		return;
	w->ai = atag_tagopts_open(&w->p->tagopts);
	if (atag_allocinfo_source(w->ai) != ATAG_SRC_IOCTL)
		atag_tagopts_die(&w->p->tagopts, w->ai, ATAG_TAGOP_TOGGLE, ENOTTY);
	if (atag_allocinfo_list(w->ai, &w->p->tagopts.filter, &w->tags))
		atag_tagopts_die(&w->p->tagopts, w->ai, ATAG_TAGOP_LIST, errno);
	if (!w->tags->nr)
		atag_tagopts_die(&w->p->tagopts, w->ai, ATAG_TAGOP_TOGGLE, ENOENT);
}

void atag_watch_warn_profiling(struct atag_watch *w, bool after)
{
	struct atag_profiling_state st;
	char off[256];

	if (w->p->kmem || atag_profiling_read(atag_allocinfo_name(w->ai), &st) !=
			  ATAG_PROFILING_OFF)
		return;
	fprintf(stderr, "%s %s: %s: %s\n", ATAG_PROG, w->name,
		atag_profiling_off(&st, off, sizeof(off)),
		after ? "what was allocated while it was off is in no screen" :
		"no allocation shows while it is off (sysctl vm.mem_profiling=1 turns it on)");
}

void atag_watch_fail(struct atag_watch *w, int err, const char *fmt, ...)
{
	va_list ap;

	if (w->error)
		return;
	w->error = err ? err : EIO;
	va_start(ap, fmt);
	vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
	va_end(ap);
}

/* What is counted, for the header: the tasks, and the tags traced. */
static void describe_scope(struct atag_watch *w)
{
	const struct atag_watch_params *p = w->p;
	size_t n;

	if (p->command && !p->all_tasks)
		snprintf(w->scope, sizeof(w->scope), "%s and its children",
			 strrchr(p->command[0], '/') ? strrchr(p->command[0], '/') + 1 :
			 p->command[0]);
	else if (p->nr_pids || p->nr_comms)
		snprintf(w->scope, sizeof(w->scope), "%u %s, %u %s", p->nr_pids,
			 atag_plural(p->nr_pids, "pid", "pids"), p->nr_comms,
			 atag_plural(p->nr_comms, "comm glob", "comm globs"));
	else
		snprintf(w->scope, sizeof(w->scope), "all tasks");
	n = strlen(w->scope);
	if (!p->kmem)
		snprintf(w->scope + n, sizeof(w->scope) - n, "; %zu %s traced",
			 w->n.turned_on + w->n.already_on,
			 atag_plural(w->n.turned_on + w->n.already_on, "tag", "tags"));
}

int atag_watch_set_up(struct atag_watch *w, struct atag_live_opts *o)
{
	const char *name;
	char err[1024], msg[1024];
	int ret;

	o->source = w->p->kmem ? "kmem" : "alloc_tag";
	o->buffer_kb = w->p->buffer_kb;
	o->pids = w->p->pids;
	o->nr_pids = w->p->nr_pids;
	o->comms = w->p->comms;
	o->nr_comms = w->p->nr_comms;
	o->children = w->p->command && !w->p->all_tasks;
	w->sess = atag_cmd_session(w->ai, w->name);
	name = atag_session_instance_name(w->sess);
	ret = atag_session_create_instance(w->sess);
	if (ret == -EEXIST) {
		atag_watch_fail(w, EEXIST, "tracefs instance %s exists already (not ours): not touching it",
				name);
		return ret;
	}
	if (ret) {
		atag_watch_fail(w, -ret, "cannot create tracefs instance %s: %s", name,
				strerror(-ret));
		return ret;
	}
	ret = atag_live_open(atag_session_instance(w->sess), o, &w->lv, err, sizeof(err));
	if (ret) {
		atag_watch_fail(w, -ret, "%s", err);
		return ret;
	}
	if (w->p->kmem) {
		describe_scope(w);
		return 0;
	}
	ret = atag_session_enable_tags(w->sess, w->tags, atag_stop_fd(), &w->n);
	describe_scope(w);
	if (!ret || ret == -EINTR)
		return 0;
	if (atag_session_failed(w->sess) == ATAG_PART_STATE) {
		atag_watch_fail(w, -ret, "%s: cannot write: %s", atag_session_state(w->sess)->path,
				strerror(-ret));
	} else {
		atag_tagopts_message(msg, sizeof(msg), &w->p->tagopts, w->ai, ATAG_TAGOP_TOGGLE,
				     ret);
		atag_watch_fail(w, -ret, "%s", msg);
	}
	return ret;
}

/* Starts COMMAND, counted from its first allocation on; false when it did not start. */
static bool start_command(struct atag_watch *w)
{
	int err = atag_command_fork(&w->cmd, w->p->command);

	if (err) {
		if (err != -EINTR)
			atag_watch_fail(w, -err, "cannot run %s: %s", w->p->command[0],
					strerror(-err));
		return false;
	}
	/* before any record of it is read */
	if (!w->p->all_tasks && atag_live_add_pid(w->lv, w->cmd.pid))
		atag_watch_fail(w, ENOMEM, "out of memory");
	err = atag_command_go(&w->cmd);
	if (err)
		atag_watch_fail(w, err, "cannot run %s: %s", w->p->command[0], strerror(err));
	return !err;
}

bool atag_watch_start(struct atag_watch *w)
{
	if (atag_live_start(w->lv))
		atag_watch_fail(w, EIO, "%s/tracing_on: cannot turn the instance on",
				atag_session_instance_name(w->sess));
	if (!w->error && w->p->command)
		start_command(w);
	return !w->error;
}

int atag_watch_read(struct atag_watch *w, bool all)
{
	int ret = atag_live_read(w->lv, all);

	if (ret)
		atag_watch_fail(w, -ret, "%s: cannot read its buffers: %s",
				atag_session_instance_name(w->sess), strerror(-ret));
	return ret;
}

int atag_watch_command_fd(struct atag_watch *w, bool *unwatched)
{
	int fd = w->cmd.pid > 0 ? atag_pidfd_open(w->cmd.pid) : -1;

	*unwatched = w->cmd.pid > 0 && fd < 0;
	return fd;
}

bool atag_watch_command_done(struct atag_watch *w)
{
	return w->p->command && atag_command_done(&w->cmd);
}

bool atag_watch_teardown(struct atag_watch *w)
{
	bool failed, kept;

	atag_command_end(&w->cmd, CHILD_TERM_MS);
	atag_live_close(w->lv);
	w->lv = NULL;
	failed = atag_cmd_undo(w->sess, w->ai, NULL);
	kept = atag_cmd_session_close(w->sess);
	w->sess = NULL;
	return failed || kept;
}

int atag_watch_status(struct atag_watch *w, bool restore_failed)
{
	const char *cmd = w->p->command ? w->p->command[0] : "";
	int st = w->cmd.status, ret;

	if (w->error) {
		fprintf(stderr, "%s: %s\n", ATAG_PROG, w->errmsg);
		ret = ATAG_EXIT_FAIL;
	} else if (restore_failed) {
		ret = ATAG_EXIT_FAIL;
	} else if (!w->cmd.reaped || atag_stop_sig || w->done) {
		ret = ATAG_EXIT_OK;
	} else if (WIFSIGNALED(st)) {
		fprintf(stderr, "%s: %s was killed by signal %d\n", ATAG_PROG, cmd, WTERMSIG(st));
		ret = ATAG_EXIT_FAIL;
	} else if (WEXITSTATUS(st)) {
		fprintf(stderr, "%s: %s exited with status %d\n", ATAG_PROG, cmd, WEXITSTATUS(st));
		ret = ATAG_EXIT_FAIL;
	} else {
		ret = ATAG_EXIT_OK;
	}
	atag_taglist_free(w->tags);
	atag_allocinfo_close(w->ai);
	w->tags = NULL;
	w->ai = NULL;
	return ret;
}
