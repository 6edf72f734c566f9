// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag top: watch allocations by call site while they happen.
 *
 * This file is the command: options, the checks made before anything changes (die()
 * is allowed up to there), signals, COMMAND, the screens. What changes on the system
 * is a session's (include/atag-session.h), as for record: the state file, our
 * instance, the tags turned on; whatever happened, the session undoes it and removes
 * the state file when that worked, so `reset` undoes a killed top. The instance is
 * read by the live engine (include/atag-live.h): no trace.dat, no trace-cmd.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-live.h"
#include "atag-session.h"
#include "atag-command.h"
#include "atag-profiling.h"
#include "atag-stop.h"
#include "atag-tagopts.h"
#include "atag-utils.h"

static const char top_usage[] =
	"usage: trace-cmd-alloc-tag top [FILTERS | --all] [options] [-- COMMAND [ARGS...]]\n"
	"       trace-cmd-alloc-tag top --kmem [options] [-- COMMAND [ARGS...]]\n"
	"\n"
	"Watch allocations while they happen: tracing is turned on for the matching call\n"
	"sites, their events are read from a tracefs instance of top's own as they come\n"
	"(trace-cmd-alloc-tag-PID; no trace.dat) and stitched into lifetimes, and every\n"
	"interval the call sites are shown: allocations and frees in the interval, live\n"
	"allocations and bytes, the age of the oldest live one, lifetime percentiles so\n"
	"far. Ends on Ctrl-C, SIGTERM and the other signals that end a process (but for\n"
	"the faults), after --count screens, or when COMMAND exits; then everything is\n"
	"undone as record undoes it, and 'trace-cmd-alloc-tag reset' undoes a killed top.\n"
	"\n"
	"  -d, --interval TIME time between screens (default 1s; 100ms at least)\n"
	"      --count N       stop after N screens\n"
	"  -n, --rows N        call sites a screen shows (default: what fits the terminal,\n"
	"                      else 25; json: all; 0 = all)\n"
	"  -s, --sort KEY      live_bytes (default), live, allocs, frees (in the interval),\n"
	"                      total (allocations so far), bytes, oldest, p50, p99, site\n"
	"  -f, --format FMT    text (default: screens) or json (a JSON object a line per\n"
	"                      interval, for scripts)\n"
	"      --json          the same as --format json\n"
	"  -o, --output FILE   write to FILE (an existing FILE is kept as FILE.old)\n"
	"  -b KB               per-CPU buffer size of the instance, in KiB\n"
	"      --all           trace every call site\n"
	"      --kmem          watch kmem:kmalloc, kmem_cache_alloc, kfree and kmem_cache_free\n"
	"                      instead (kernels without per-tag tracing; no tag filters)\n"
	"      --pid PID[,PID] count only these tasks\n"
	"      --comm GLOB     count only tasks whose comm matches (repeatable)\n"
	"      --all-tasks     with COMMAND: count every task, not COMMAND's alone\n"
	"  -h, --help          show this help\n"
	"\n"
	"With COMMAND, only the allocations of COMMAND and of the tasks it forks are\n"
	"counted (frees of them by anyone), and top ends when COMMAND exits.\n"
	"\n"
	ATAG_TAGOPTS_HELP;

#define DEFAULT_ROWS		25
#define MIN_INTERVAL_NS		(100 * 1000000ULL)
#define READ_EVERY_MS		250
#define CHILD_TERM_MS		5000

struct top_params {
	struct atag_tagopts	tagopts;
	unsigned long long	interval_ns;
	unsigned long long	count;		/* 0: no limit */
	long			rows;
	bool			rows_given;
	const char		*sort;
	struct atag_output_opts	out;
	bool			json;		/* -f json */
	unsigned long long	buffer_kb;
	bool			all;
	bool			kmem;
	bool			all_tasks;
	int			*pids;
	unsigned int		nr_pids;
	const char		**comms;
	unsigned int		nr_comms;
	char			**command;
};

struct top {
	struct top_params	*p;
	struct atag_allocinfo	*ai;
	struct atag_taglist	*tags;
	struct atag_session	*sess;
	struct atag_enabled	n;
	struct atag_liveview	*lv;
	struct atag_command	cmd;		/* COMMAND, if any */
	bool			tty;
	unsigned long long	screens;
	char			scope[128];
	int			error;
	char			errmsg[1024];
};

enum {
	OPT_count = OPT_TAGOPTS_END, OPT_json, OPT_all, OPT_kmem, OPT_pid,
	OPT_comm, OPT_all_tasks,
};

/* ------------------------------------------------------------------ options */

static void add_pids(struct top_params *p, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned long long v;
	int *a;

	if (!copy)
		die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (atag_parse_u64(tok, &v) || !v || v > 0x7fffffff)
			atag_usage_error(top_usage, "--pid: '%s' is not a pid", tok);
		a = realloc(p->pids, (p->nr_pids + 1) * sizeof(*a));
		if (!a)
			die("out of memory");
		a[p->nr_pids++] = v;
		p->pids = a;
	}
	free(copy);
}

static void add_comm(struct top_params *p, const char *glob)
{
	const char **a = realloc(p->comms, (p->nr_comms + 1) * sizeof(*a));

	if (!a)
		die("out of memory");
	a[p->nr_comms++] = glob;
	p->comms = a;
}

static void parse_top_options(struct top_params *p, int argc, char **argv)
{
	static const struct option long_options[] = {
		ATAG_TAGOPTS_LONG,
		{ "interval", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, OPT_count },
		{ "rows", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, OPT_json },
		ATAG_OUTPUT_LONG,
		{ "all", no_argument, NULL, OPT_all },
		{ "kmem", no_argument, NULL, OPT_kmem },
		{ "pid", required_argument, NULL, OPT_pid },
		{ "comm", required_argument, NULL, OPT_comm },
		{ "all-tasks", no_argument, NULL, OPT_all_tasks },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char optstring[] = "+:hd:n:s:b:f:o:";
	unsigned long long v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, NULL)) != -1) {
		if (atag_tagopts_parse(&p->tagopts, c, optarg, top_usage) ||
		    atag_output_parse(&p->out, c, optarg, top_usage))
			continue;
		switch (c) {
		case 'd':
			if (atag_parse_duration(optarg, &p->interval_ns) ||
			    p->interval_ns < MIN_INTERVAL_NS)
				atag_usage_error(top_usage, "--interval: '%s' is not a duration of 100ms or more",
						 optarg);
			break;
		case OPT_count:
			if (atag_parse_u64(optarg, &p->count) || !p->count)
				atag_usage_error(top_usage, "--count: '%s' is not a count of screens",
						 optarg);
			break;
		case 'n':
			if (atag_parse_u64(optarg, &v) || v > 1000000000)
				atag_usage_error(top_usage, "-n: '%s' is not a row count", optarg);
			p->rows = v;
			p->rows_given = true;
			break;
		case 's':
			if (!atag_live_sort_key_known(optarg))
				atag_usage_error(top_usage, "--sort: unknown value '%s'", optarg);
			p->sort = optarg;
			break;
		case 'b':
			if (atag_parse_u64(optarg, &p->buffer_kb) || !p->buffer_kb)
				atag_usage_error(top_usage, "-b: '%s' is not a size in KiB",
						 optarg);
			break;
		case OPT_json: p->out.format = "json"; break;
		case OPT_all: p->all = true; break;
		case OPT_kmem: p->kmem = true; break;
		case OPT_pid: add_pids(p, optarg); break;
		case OPT_comm: add_comm(p, optarg); break;
		case OPT_all_tasks: p->all_tasks = true; break;
		case 'h': atag_usage_exit(top_usage);
		default:
			atag_option_error(top_usage, optstring, c, argv);
		}
	}
	if (optind + 1 < argc)
		p->command = argv + optind + 1;
	p->json = atag_output_is(&p->out, "json");
	atag_tagopts_check(&p->tagopts, top_usage);
	if (p->kmem && (p->all || !atag_filter_is_empty(&p->tagopts.filter)))
		atag_usage_error(top_usage, "--kmem watches every allocation: no tag filter");
	if (!p->kmem && !p->all && atag_filter_is_empty(&p->tagopts.filter))
		atag_usage_error(top_usage, "give a filter, or --all to trace every call site");
	if (p->all && !atag_filter_is_empty(&p->tagopts.filter))
		atag_usage_error(top_usage, "--all and a filter exclude each other");
	if (p->all_tasks && !p->command)
		atag_usage_error(top_usage, "--all-tasks goes with a COMMAND");
	if (p->all_tasks && (p->nr_pids || p->nr_comms))
		atag_usage_error(top_usage, "--all-tasks and --pid or --comm exclude each other");
}

/* ------------------------------------------------------------------ before changing anything */

static void preflight(struct top *t)
{
	const char *dir = atag_tracefs_dir(), * const *evs;
	char path[4096];
	int i, optional, n;

	if (t->p->command)
		atag_command_check(t->p->command[0]);
	if (!dir)
		die("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	snprintf(path, sizeof(path), "%s/instances", dir);
	if (access(path, W_OK))
		die("%s: %s: run as root", path, strerror(errno));
	evs = atag_live_events(t->p->kmem ? "kmem" : "alloc_tag", &optional);
	for (n = 0; evs[n]; n++)
		;
	for (i = 0; i < n - optional; i++) {
		if (atag_event_spec_exists(evs[i]))
			continue;
		if (t->p->kmem)
			die("%s/events/%s: no such event: this kernel cannot be watched with --kmem",
			    dir, evs[i]);
		die("%s/events/alloc_tag: no alloc_tag trace events: this kernel lacks the patch series \"%s\" (top --kmem works without it)",
		    dir, ATAG_TRACING_SERIES);
	}
	if (t->p->kmem)
		return;
	t->ai = atag_tagopts_open(&t->p->tagopts);
	if (atag_allocinfo_source(t->ai) != ATAG_SRC_IOCTL)
		atag_tagopts_die(&t->p->tagopts, t->ai, ATAG_TAGOP_TOGGLE, ENOTTY);
	if (atag_allocinfo_list(t->ai, &t->p->tagopts.filter, &t->tags))
		atag_tagopts_die(&t->p->tagopts, t->ai, ATAG_TAGOP_LIST, errno);
	if (!t->tags->nr)
		atag_tagopts_die(&t->p->tagopts, t->ai, ATAG_TAGOP_TOGGLE, ENOENT);
}

/*
 * Profiling switched off: the kernel emits no alloc_tag event, so top has nothing to
 * show (include/atag-profiling.h). Said before watching and after.
 */
static void warn_profiling_off(struct top *t, bool after)
{
	struct atag_profiling_state st;
	char off[256];

	if (t->p->kmem || atag_profiling_read(atag_allocinfo_name(t->ai), &st) !=
			  ATAG_PROFILING_OFF)
		return;
	fprintf(stderr, "%s top: %s: %s\n", ATAG_PROG, atag_profiling_off(&st, off, sizeof(off)),
		after ? "what was allocated while it was off is in no screen" :
		"no allocation shows while it is off (sysctl vm.mem_profiling=1 turns it on)");
}

static void __attribute__((format(printf, 3, 4)))
top_fail(struct top *t, int err, const char *fmt, ...)
{
	va_list ap;

	if (t->error)
		return;
	t->error = err ? err : EIO;
	va_start(ap, fmt);
	vsnprintf(t->errmsg, sizeof(t->errmsg), fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ setting up */

static int set_up(struct top *t)
{
	struct atag_live_opts o = {
		.source = t->p->kmem ? "kmem" : "alloc_tag",
		.buffer_kb = t->p->buffer_kb,
		.pids = t->p->pids,
		.nr_pids = t->p->nr_pids,
		.comms = t->p->comms,
		.nr_comms = t->p->nr_comms,
		.children = t->p->command && !t->p->all_tasks,
	};
	const char *name = atag_session_instance_name(t->sess);
	char err[1024], msg[1024];
	int ret;

	ret = atag_session_create_instance(t->sess);
	if (ret == -EEXIST) {
		top_fail(t, EEXIST, "tracefs instance %s exists already (not ours): not touching it",
			 name);
		return ret;
	}
	if (ret) {
		top_fail(t, -ret, "cannot create tracefs instance %s: %s", name, strerror(-ret));
		return ret;
	}
	ret = atag_live_open(atag_session_instance(t->sess), &o, &t->lv, err, sizeof(err));
	if (ret) {
		top_fail(t, -ret, "%s", err);
		return ret;
	}
	if (t->p->kmem)
		return 0;
	ret = atag_session_enable_tags(t->sess, t->tags, atag_stop_fd(), &t->n);
	if (!ret || ret == -EINTR)
		return 0;
	if (atag_session_failed(t->sess) == ATAG_PART_STATE) {
		top_fail(t, -ret, "%s: cannot write: %s", atag_session_state(t->sess)->path,
			 strerror(-ret));
	} else {
		atag_tagopts_message(msg, sizeof(msg), &t->p->tagopts, t->ai, ATAG_TAGOP_TOGGLE,
				     ret);
		top_fail(t, -ret, "%s", msg);
	}
	return ret;
}

/* ------------------------------------------------------------------ COMMAND */

/* Starts COMMAND, counted from its first allocation on; false when it did not start. */
static bool start_command(struct top *t)
{
	int err = atag_command_fork(&t->cmd, t->p->command);

	if (err) {
		if (err != -EINTR)
			top_fail(t, -err, "cannot run %s: %s", t->p->command[0], strerror(-err));
		return false;
	}
	/* before any record of it is read */
	if (!t->p->all_tasks && atag_live_add_pid(t->lv, t->cmd.pid))
		top_fail(t, ENOMEM, "out of memory");
	err = atag_command_go(&t->cmd);
	if (err)
		top_fail(t, err, "cannot run %s: %s", t->p->command[0], strerror(err));
	return !err;
}

/* ------------------------------------------------------------------ screens */

static long screen_rows(const struct top *t)
{
	struct winsize ws;

	if (t->p->rows_given)
		return t->p->rows;
	if (t->p->json)
		return 0;
	if (t->tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 8)
		return ws.ws_row - 6;
	return DEFAULT_ROWS;
}

/* A screen or a JSON line, written whole: one write, and its error is the real one. */
static int show(struct top *t)
{
	struct atag_live_render_opts o = {
		.rows = screen_rows(t), .scope = t->scope, .sort = t->p->sort,
		.columns = atag_columns(),
	};
	struct atag_live_snapshot snap;
	size_t len = 0;
	char *buf = NULL;
	FILE *f;
	int ret;

	ret = atag_live_snapshot(t->lv, t->p->sort, &snap);
	f = ret ? NULL : open_memstream(&buf, &len);
	if (!f) {
		atag_live_snapshot_release(&snap);
		top_fail(t, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	if (t->p->json) {
		ret = atag_live_render_json(&snap, &o, f);
	} else {
		if (t->tty)
			fputs("\033[H\033[J", f);	/* home, clear the screen */
		else if (t->screens)
			fputc('\n', f);
		ret = atag_live_render_text(&snap, &o, f);
	}
	atag_live_snapshot_release(&snap);
	if (fclose(f) || ret) {
		free(buf);
		top_fail(t, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	t->screens++;
	if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
		/* the reader of a pipe left, a disk is full: said once, by us */
		ret = errno ? errno : EIO;
		__fpurge(stdout);
		clearerr(stdout);
		top_fail(t, ret, "standard output: %s", strerror(ret));
		ret = -EIO;
	}
	free(buf);
	return ret;
}

static int read_events(struct top *t, bool all)
{
	int ret = atag_live_read(t->lv, all);

	if (ret)
		top_fail(t, -ret, "%s: cannot read its buffers: %s",
			 atag_session_instance_name(t->sess), strerror(-ret));
	return ret;
}

/* Read as events come, show a screen every interval, until something ends it. */
static void watch(struct top *t)
{
	unsigned int i, nr = atag_live_nr_fds(t->lv);
	unsigned long long next = atag_now_ns() + t->p->interval_ns;
	struct pollfd *p = calloc(nr + 2, sizeof(*p));
	bool unwatched;
	int ms;

	if (!p) {
		top_fail(t, ENOMEM, "out of memory");
		return;
	}
	p[0] = (struct pollfd){ .fd = atag_stop_fd(), .events = POLLIN };
	p[1] = (struct pollfd){ .fd = t->cmd.pid > 0 ? atag_pidfd_open(t->cmd.pid) : -1,
				.events = POLLIN };
	for (i = 0; i < nr; i++)
		p[i + 2] = (struct pollfd){ .fd = atag_live_fd(t->lv, i), .events = POLLIN };
	unwatched = t->cmd.pid > 0 && p[1].fd < 0;
	for (;;) {
		atag_stop_drain();
		if (atag_stop_sig || (t->p->command && atag_command_done(&t->cmd)) || t->error)
			break;
		if (read_events(t, false))
			break;
		if (atag_now_ns() >= next) {
			if (t->p->count && t->screens + 1 >= t->p->count)
				break;	/* the last screen comes after the last read */
			if (show(t))
				break;
			next += t->p->interval_ns;
			if (next < atag_now_ns())
				next = atag_now_ns() + t->p->interval_ns;
		}
		ms = atag_ms_until(next);
		if (ms > READ_EVERY_MS)
			ms = READ_EVERY_MS;
		if (unwatched && ms > ATAG_NO_PIDFD_MS)
			ms = ATAG_NO_PIDFD_MS;
		if (atag_poll(p, nr + 2, ms) < 0)
			top_fail(t, errno, "cannot wait: %s", strerror(errno));
	}
	if (p[1].fd >= 0)
		close(p[1].fd);
	free(p);
}

static void describe_scope(struct top *t)
{
	const struct top_params *p = t->p;
	size_t n;

	if (p->command && !p->all_tasks)
		snprintf(t->scope, sizeof(t->scope), "%s and its children",
			 strrchr(p->command[0], '/') ? strrchr(p->command[0], '/') + 1 :
			 p->command[0]);
	else if (p->nr_pids || p->nr_comms)
		snprintf(t->scope, sizeof(t->scope), "%u %s, %u %s", p->nr_pids,
			 atag_plural(p->nr_pids, "pid", "pids"), p->nr_comms,
			 atag_plural(p->nr_comms, "comm glob", "comm globs"));
	else
		snprintf(t->scope, sizeof(t->scope), "all tasks");
	n = strlen(t->scope);
	if (!p->kmem)
		snprintf(t->scope + n, sizeof(t->scope) - n, "; %zu %s traced",
			 t->n.turned_on + t->n.already_on,
			 atag_plural(t->n.turned_on + t->n.already_on, "tag", "tags"));
}

/* ------------------------------------------------------------------ the end */

static bool teardown(struct top *t)
{
	bool failed, kept;

	atag_command_end(&t->cmd, CHILD_TERM_MS);
	atag_live_close(t->lv);
	t->lv = NULL;
	failed = atag_cmd_undo(t->sess, t->ai, NULL);
	kept = atag_cmd_session_close(t->sess);
	t->sess = NULL;
	return failed || kept;
}

static int command_status(struct top *t)
{
	const char *cmd = t->p->command ? t->p->command[0] : "";
	int st = t->cmd.status;

	if (!t->cmd.reaped || atag_stop_sig)
		return ATAG_EXIT_OK;
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "%s: %s was killed by signal %d\n", ATAG_PROG, cmd, WTERMSIG(st));
		return ATAG_EXIT_FAIL;
	}
	if (WEXITSTATUS(st)) {
		fprintf(stderr, "%s: %s exited with status %d\n", ATAG_PROG, cmd, WEXITSTATUS(st));
		return ATAG_EXIT_FAIL;
	}
	return ATAG_EXIT_OK;
}

static int run_top(struct top_params *p)
{
	struct top t = { .p = p, .tty = isatty(STDOUT_FILENO) };
	bool restore_failed;
	int ret = ATAG_EXIT_OK;

	preflight(&t);
	warn_profiling_off(&t, false);
	atag_output_redirect(&p->out);
	t.tty = isatty(STDOUT_FILENO);
	atag_stop_install();
	t.sess = atag_cmd_session(t.ai, "top");
	if (!set_up(&t) && !atag_stop_sig) {
		describe_scope(&t);
		if (atag_live_start(t.lv))
			top_fail(&t, EIO, "%s/tracing_on: cannot turn the instance on",
				 atag_session_instance_name(t.sess));
		if (!t.error && p->command)
			start_command(&t);
		if (!t.error)
			watch(&t);
		/* the last screen: everything up to the end */
		if (!t.error && !atag_live_stop(t.lv) && !read_events(&t, true))
			show(&t);
	}
	restore_failed = teardown(&t);
	warn_profiling_off(&t, true);
	/* the screens written are the output, whatever COMMAND's status */
	if (!t.error)
		atag_output_finish();
	if (t.error) {
		fprintf(stderr, "%s: %s\n", ATAG_PROG, t.errmsg);
		ret = ATAG_EXIT_FAIL;
	} else if (restore_failed) {
		ret = ATAG_EXIT_FAIL;
	} else {
		ret = command_status(&t);
	}
	atag_taglist_free(t.tags);
	atag_allocinfo_close(t.ai);
	return ret;
}

void trace_alloc_tag_top(int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", NULL };
	struct top_params p = { .interval_ns = 1000000000ULL, .out.formats = formats };
	int ret;

	atag_tagopts_init(&p.tagopts);
	parse_top_options(&p, argc, argv);
	ret = run_top(&p);
	atag_tagopts_release(&p.tagopts);
	free(p.pids);
	free(p.comms);
	exit(ret);
}
