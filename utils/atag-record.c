// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag record: trace the matching call sites and record their
 * alloc_tag events with kernel stacks into a trace.dat, then undo every change.
 *
 * Order: check everything that can be checked without changing anything (die() is
 * allowed up to there); write the state file; create our instance; turn tracing on
 * for the matching tags that were off, noting each in the state file first; start
 * trace-cmd record on the instance and wait until it records; run COMMAND / wait;
 * then, whatever happened: stop the recorder, turn those tags off again, remove the
 * instance, and remove the state file when all of that worked.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-record.h"
#include "atag-state.h"
#include "atag-tagopts.h"
#include "atag-utils.h"

static const char record_usage[] =
	"usage: trace-cmd-alloc-tag record [FILTERS | --all] [-o FILE] [-b KB] [--no-stack]\n"
	"                 [--duration TIME] [-- COMMAND [ARGS...]]\n"
	"       trace-cmd-alloc-tag record --kmem [-o FILE] [-b KB] [--no-stack]\n"
	"                 [--duration TIME] [-- COMMAND [ARGS...]]\n"
	"\n"
	"Trace the matching allocation call sites and record their alloc_tag events, with\n"
	"kernel stacks, into a trace.dat until COMMAND exits, the duration ends or Ctrl-C.\n"
	"Tracing is turned on for the matching tags that were off, and recorded in a\n"
	"tracefs instance of its own (trace-cmd-alloc-tag-PID) by trace-cmd record; all of\n"
	"it is undone at the end, also on errors and on SIGINT, SIGTERM, SIGQUIT and the\n"
	"other signals that end a process but for the faults. While it records, a\n"
	"state file in $ATAG_STATE_DIR (default /run/trace-cmd-alloc-tag) lets\n"
	"'trace-cmd-alloc-tag reset' undo what a killed record left behind.\n"
	"\n"
	"  -o FILE             the trace.dat to write (default trace.dat)\n"
	"  -b KB               per-CPU buffer size of the instance, in KiB\n"
	"      --no-stack      no stacktrace trigger: no kernel stacks\n"
	"      --duration TIME stop after TIME (500ms, 10s, 2m); a COMMAND still\n"
	"                      running then gets SIGTERM (SIGKILL 5 s later)\n"
	"      --all           trace every call site\n"
	"      --kmem          record kmem:kmalloc, kfree, kmem_cache_alloc, kmem_cache_free,\n"
	"                      mm_page_alloc, mm_page_free and mm_page_free_batched with\n"
	"                      stacks instead (kernels without per-tag tracing; no tags,\n"
	"                      no filters)\n"
	"  -h, --help          show this help\n"
	"\n"
	ATAG_TAGOPTS_HELP;

#define READY_TIMEOUT_MS	20000
#define STOP_TIMEOUT_MS		60000
#define CHILD_TERM_MS		5000
#define POLL_MS			20

struct record_params {
	struct atag_tagopts	tagopts;
	const char		*output;
	unsigned long long	buffer_kb;
	unsigned long long	duration_ns;	/* 0: none */
	bool			no_stack;
	bool			all;
	bool			kmem;
	char			**command;	/* NULL: none */
};

struct record_session {
	struct record_params	*p;
	struct atag_allocinfo	*ai;
	struct atag_taglist	*tags;		/* the matching tags, as listed */
	struct atag_taglist	enabled;	/* those we turned on */
	struct atag_taglist	still_on;	/* those we could not turn off again */
	size_t			already;	/* matching tags already traced */
	struct atag_state	*state;
	char			instance[64];
	bool			instance_created;
	struct atag_recorder	*rec;
	FILE			*log;		/* trace-cmd's output */
	pid_t			child;
	int			child_status;	/* its wait status, once reaped */
	bool			child_reaped;
	unsigned long		child_sent;	/* 1UL << signal: those we sent COMMAND */
	bool			duration_over;	/* COMMAND got SIGTERM when it ended */
	bool			restore_failed;
	int			error;		/* set once: the first failure */
	char			errmsg[1024];
};

static volatile sig_atomic_t stop_sig;		/* the signal that asked us to stop */
static volatile sig_atomic_t stop_count;
static volatile sig_atomic_t stop_forward;	/* COMMAND did not get it too */

enum { OPT_no_stack = OPT_TAGOPTS_END, OPT_duration, OPT_all, OPT_kmem };

/* ------------------------------------------------------------------ options */

static void parse_record_options(struct record_params *p, int argc, char **argv)
{
	static const struct option long_options[] = {
		ATAG_TAGOPTS_LONG,
		{ "no-stack", no_argument, NULL, OPT_no_stack },
		{ "duration", required_argument, NULL, OPT_duration },
		{ "all", no_argument, NULL, OPT_all },
		{ "kmem", no_argument, NULL, OPT_kmem },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char optstring[] = "+:ho:b:";
	int c;

	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, NULL)) != -1) {
		if (atag_tagopts_parse(&p->tagopts, c, optarg, record_usage))
			continue;
		switch (c) {
		case 'o': p->output = optarg; break;
		case 'b':
			if (atag_parse_u64(optarg, &p->buffer_kb) || !p->buffer_kb)
				atag_usage_error(record_usage, "-b: '%s' is not a size in KiB",
						 optarg);
			break;
		case OPT_no_stack: p->no_stack = true; break;
		case OPT_duration:
			if (atag_parse_duration(optarg, &p->duration_ns) || !p->duration_ns)
				atag_usage_error(record_usage, "--duration: '%s' is not a duration",
						 optarg);
			break;
		case OPT_all: p->all = true; break;
		case OPT_kmem: p->kmem = true; break;
		case 'h': atag_usage_exit(record_usage);
		default:
			atag_option_error(record_usage, optstring, c, argv);
		}
	}
	if (optind + 1 < argc)
		p->command = argv + optind + 1;
	atag_tagopts_check(&p->tagopts, record_usage);
	if (p->kmem && (p->all || !atag_filter_is_empty(&p->tagopts.filter)))
		atag_usage_error(record_usage, "--kmem records every allocation: no tag filter");
	if (!p->kmem && !p->all && atag_filter_is_empty(&p->tagopts.filter))
		atag_usage_error(record_usage, "give a filter, or --all to trace every call site");
	if (p->all && !atag_filter_is_empty(&p->tagopts.filter))
		atag_usage_error(record_usage, "--all and a filter exclude each other");
}

/* ------------------------------------------------------------------ events */

static const char * const tag_events[] = {
	"alloc_tag:alloc_tag_hit", "alloc_tag:alloc_tag_mem_alloced",
	"alloc_tag:alloc_tag_mem_freed", NULL
};
static const char * const tag_stack_events[] = { "alloc_tag:alloc_tag_hit", NULL };

/*
 * The kmem events; the _node variants only exist on older kernels, and
 * mm_page_free_batched (pages freed in batches, which mm_page_free does not see)
 * may be missing on some.
 */
static const char * const kmem_events[] = {
	"kmem:kmalloc", "kmem:kmalloc_node", "kmem:kfree", "kmem:kmem_cache_alloc",
	"kmem:kmem_cache_alloc_node", "kmem:kmem_cache_free", "kmem:mm_page_alloc",
	"kmem:mm_page_free", "kmem:mm_page_free_batched", NULL
};
static const char * const kmem_optional[] = {
	"kmem:kmalloc_node", "kmem:kmem_cache_alloc_node", "kmem:mm_page_free_batched", NULL
};
static const char * const kmem_stack_events[] = {
	"kmem:kmalloc", "kmem:kmalloc_node", "kmem:kmem_cache_alloc",
	"kmem:kmem_cache_alloc_node", "kmem:mm_page_alloc", NULL
};

static bool event_exists(const char *spec)
{
	char sys[64];
	const char *colon = strchr(spec, ':');

	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
	return atag_event_exists(sys, colon + 1);
}

static bool listed(const char * const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* The events to record: all required ones must exist (else die), optional ones may. */
static void choose_events(const struct record_params *p, const char **events)
{
	const char * const *all = p->kmem ? kmem_events : tag_events;
	const char *dir = atag_tracefs_dir();
	int n = 0;

	for (; *all; all++) {
		if (event_exists(*all))
			events[n++] = *all;
		else if (p->kmem && !listed(kmem_optional, *all))
			die("%s/events/%s: no such event: this kernel cannot record --kmem",
			    dir, *all);
		else if (!p->kmem)
			die("%s/events/alloc_tag: no alloc_tag trace events: this kernel lacks the patch series \"%s\" (record --kmem works without it)",
			    dir, ATAG_TRACING_SERIES);
	}
	events[n] = NULL;
}

/* ------------------------------------------------------------------ checks */

static bool executable_in_path(const char *name)
{
	char *path, *dir, *save = NULL, full[4096];
	bool found = false;

	if (strchr(name, '/'))
		return !access(name, X_OK);
	path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	for (dir = strtok_r(path, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		snprintf(full, sizeof(full), "%s/%s", dir, name);
		found = !access(full, X_OK);
	}
	free(path);
	return found;
}

/* trace-cmd writes the output at the end, and its per-CPU files next to it first. */
static void check_output(const char *output)
{
	char *copy = strdup(output), *dir;
	struct stat st;

	if (!copy)
		die("%s: %s", output, strerror(ENOMEM));
	dir = dirname(copy);
	if (access(dir, W_OK | X_OK))
		die("%s: cannot write into %s: %s", output, dir, strerror(errno));
	if (!stat(output, &st) && S_ISDIR(st.st_mode))
		die("%s: %s", output, strerror(EISDIR));
	if (!access(output, F_OK) && access(output, W_OK))
		die("%s: %s", output, strerror(errno));
	free(copy);
}

/* Everything that can fail before anything changes: die() is fine here. */
static void preflight(struct record_session *s, const char **events)
{
	const char *tc = getenv(ATAG_TRACE_CMD_ENV);
	const char *dir = atag_tracefs_dir();
	char path[4096];

	if (!dir)
		die("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	snprintf(path, sizeof(path), "%s/instances", dir);
	if (access(path, W_OK))
		die("%s: %s: run as root", path, strerror(errno));
	check_output(s->p->output);
	choose_events(s->p, events);
	if (!executable_in_path(tc && *tc ? tc : "trace-cmd"))
		die("%s: not found: record writes the trace.dat with trace-cmd record (Debian package trace-cmd)",
		    tc && *tc ? tc : "trace-cmd");
	if (s->p->kmem)
		return;
	s->ai = atag_tagopts_open(&s->p->tagopts);
	if (atag_allocinfo_source(s->ai) != ATAG_SRC_IOCTL)
		atag_tagopts_die(&s->p->tagopts, s->ai, ATAG_TAGOP_TOGGLE, ENOTTY);
	if (atag_allocinfo_list(s->ai, &s->p->tagopts.filter, &s->tags))
		atag_tagopts_die(&s->p->tagopts, s->ai, ATAG_TAGOP_LIST, errno);
	if (!s->tags->nr)
		atag_tagopts_die(&s->p->tagopts, s->ai, ATAG_TAGOP_TOGGLE, ENOENT);
}

/* ------------------------------------------------------------------ signals */

/*
 * The signals that stop a recording, with the whole teardown: those whose default
 * action ends the process, but for the faults. SIGPIPE is ignored instead: a closed
 * stderr must not end a recording before it can undo what it changed.
 */
static const int stop_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
	SIGXCPU, SIGXFSZ, SIGPWR,
};
#define NR_STOP_SIGNALS		(sizeof(stop_signals) / sizeof(stop_signals[0]))

/* How we were started, for COMMAND: the stop signals' actions, then SIGPIPE's. */
static struct sigaction orig_actions[NR_STOP_SIGNALS + 1];
static sigset_t orig_mask;

static void on_stop_signal(int sig, siginfo_t *info, void *uctx)
{
	/* the terminal sends INT, QUIT and HUP to COMMAND too; anything else reached us alone */
	stop_forward = info->si_code != SI_KERNEL ||
		       (sig != SIGINT && sig != SIGQUIT && sig != SIGHUP);
	stop_sig = sig;
	stop_count++;
}

static void stop_signal_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaddset(set, stop_signals[i]);
}

static void install_signals(void)
{
	struct sigaction sa, ign;
	sigset_t set;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	stop_signal_set(&sa.sa_mask);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, &orig_actions[i]);
	sigaction(SIGPIPE, &ign, &orig_actions[i]);
	stop_signal_set(&set);
	sigprocmask(SIG_UNBLOCK, &set, &orig_mask);
}

/* In COMMAND's child, before exec: the signal handling record was started with. */
static void restore_signals(void)
{
	size_t i;

	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &orig_actions[i], NULL);
	sigaction(SIGPIPE, &orig_actions[i], NULL);
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
}

/* What COMMAND gets for a stop signal sent to record alone. */
static int forward_signal(int sig)
{
	return sig == SIGINT || sig == SIGHUP ? sig : SIGTERM;
}

/* ------------------------------------------------------------------ errors */

static void __attribute__((format(printf, 3, 4)))
session_fail(struct record_session *s, int err, const char *fmt, ...)
{
	va_list ap;

	if (s->error)
		return;
	s->error = err ? err : EIO;
	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
	va_end(ap);
}

/* "line" or "; line" appended to @buf */
static void add_line(char *buf, size_t len, const char *line)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", n ? "; " : "", line);
}

/*
 * Why trace-cmd failed, for messages: its lines that say "Error" or "trace-cmd:",
 * else the last one it printed (which may well be "Hit Ctrl^C to stop recording").
 */
static const char *log_reason(struct record_session *s, char *buf, size_t len)
{
	char line[512], last[512] = "", *p;

	*buf = '\0';
	if (s->log) {
		fflush(s->log);
		rewind(s->log);
		while (fgets(line, sizeof(line), s->log)) {
			line[strcspn(line, "\n")] = '\0';
			p = line + strspn(line, " \t");
			if (strstr(p, "Error") || strstr(p, "trace-cmd:"))
				add_line(buf, len, p);
			if (*p)
				snprintf(last, sizeof(last), "%s", p);
		}
		fseek(s->log, 0, SEEK_END);
	}
	if (!*buf)
		snprintf(buf, len, "%s", *last ? last : "no output");
	return buf;
}

/* ------------------------------------------------------------------ setup */

static int create_state(struct record_session *s)
{
	const char *dir = atag_state_dir();

	s->state = atag_state_create(dir);
	if (!s->state && errno == EEXIST)
		die("%s/record-%d.state exists: a killed record left things behind; run '%s reset' first",
		    dir, (int)getpid(), ATAG_PROG);
	if (!s->state)
		die("%s: cannot create the state file: %s", dir, strerror(errno));
	if (s->ai && atag_state_set_allocinfo(s->state, s->p->tagopts.allocinfo))
		die("%s: cannot write: %s", s->state->path, strerror(errno));
	return 0;
}

static int create_instance(struct record_session *s)
{
	int ret;

	snprintf(s->instance, sizeof(s->instance), "%s%d", ATAG_INSTANCE_PREFIX, (int)getpid());
	ret = atag_state_set_instance(s->state, s->instance);
	if (!ret)
		ret = atag_instance_create(s->instance);
	if (ret == -EEXIST)
		session_fail(s, EEXIST, "tracefs instance %s exists already (not ours): not touching it",
			     s->instance);
	else if (ret)
		session_fail(s, -ret, "cannot create tracefs instance %s: %s", s->instance,
			     strerror(-ret));
	s->instance_created = !ret;
	return ret;
}

static int enable_tags(struct record_session *s)
{
	const struct atag_tag *t;
	char msg[1024];
	size_t i;
	int ret, err;

	for (i = 0; s->tags && i < s->tags->nr && !stop_sig; i++) {
		t = &s->tags->tags[i];
		if (t->traced) {
			s->already++;
			continue;
		}
		ret = atag_state_add_tag(s->state, t);
		if (ret) {
			session_fail(s, -ret, "%s: cannot write: %s", s->state->path,
				     strerror(-ret));
			return ret;
		}
		ret = atag_allocinfo_toggle_tag(s->ai, t, true);
		/* not turned on by us after all: reset must leave it alone */
		if (ret && (err = atag_state_untag(s->state, t))) {
			session_fail(s, -err, "%s: cannot write: %s", s->state->path,
				     strerror(-err));
			return err;
		}
		if (ret == -ENOENT) {
			s->already++;	/* turned on by someone else meanwhile */
			continue;
		}
		if (ret) {
			atag_tagopts_message(msg, sizeof(msg), &s->p->tagopts, s->ai,
					     ATAG_TAGOP_TOGGLE, ret);
			session_fail(s, -ret, "%s", msg);
			return ret;
		}
		atag_taglist_add(&s->enabled, t);
	}
	return 0;
}

/* trace-cmd's log: an unnamed temporary file that COMMAND does not inherit */
static FILE *open_log(void)
{
	FILE *f = tmpfile();

	if (f && fcntl(fileno(f), F_SETFD, FD_CLOEXEC)) {
		fclose(f);
		return NULL;
	}
	return f;
}

static int start_recorder(struct record_session *s, const char **events)
{
	struct atag_recorder_opts o = {
		.instance = s->instance,
		.output = s->p->output,
		.events = events,
		.stack_events = s->p->no_stack ? NULL :
				s->p->kmem ? kmem_stack_events : tag_stack_events,
		.buffer_kb = s->p->buffer_kb,
	};
	char tail[512];
	int ret;

	s->log = open_log();
	o.log_fd = s->log ? fileno(s->log) : -1;
	s->rec = atag_recorder_start(&o);
	if (!s->rec) {
		session_fail(s, errno, "cannot start trace-cmd record: %s", strerror(errno));
		return -1;
	}
	atag_state_set_recorder(s->state, atag_recorder_pid(s->rec));
	ret = atag_recorder_wait_ready(s->rec, READY_TIMEOUT_MS, &stop_sig);
	if (ret == -ECHILD)
		session_fail(s, ECHILD, "trace-cmd record failed: %s",
			     log_reason(s, tail, sizeof(tail)));
	else if (ret == -ETIMEDOUT)
		session_fail(s, ETIMEDOUT, "trace-cmd record did not start recording within %d s",
			     READY_TIMEOUT_MS / 1000);
	return ret == -EINTR ? 0 : ret;
}

/* ------------------------------------------------------------------ running */

/*
 * Starts COMMAND; returns its pid, or -1 (a failure, or a stop signal came first).
 * The stop signals are blocked around fork(): one the terminal sends to both of us
 * then either came before (COMMAND is not started) or reaches COMMAND with its own
 * action, never our handler in the child.
 */
static pid_t start_command(struct record_session *s)
{
	int pipefd[2], err = 0;
	sigset_t set, old;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC)) {
		session_fail(s, errno, "cannot run %s: %s", s->p->command[0], strerror(errno));
		return -1;
	}
	stop_signal_set(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = stop_sig ? -1 : fork();
	if (pid == 0) {
		restore_signals();
		close(pipefd[0]);
		execvp(s->p->command[0], s->p->command);
		err = errno;
		/* the pipe tells the parent why (it closes unread when exec works) */
		_exit(write(pipefd[1], &err, sizeof(err)) == sizeof(err) ? 127 : 126);
	}
	if (pid < 0 && !stop_sig)
		session_fail(s, errno, "cannot run %s: %s", s->p->command[0], strerror(errno));
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pipefd[1]);
	if (pid > 0 && read(pipefd[0], &err, sizeof(err)) == sizeof(err)) {
		waitpid(pid, NULL, 0);
		session_fail(s, err, "cannot run %s: %s", s->p->command[0], strerror(err));
		pid = -1;
	}
	close(pipefd[0]);
	return pid;
}

static bool child_done(struct record_session *s)
{
	int status;

	if (s->child <= 0)
		return true;
	if (waitpid(s->child, &status, WNOHANG) != s->child)
		return false;
	s->child_status = status;
	s->child_reaped = true;
	s->child = 0;
	return true;
}

static void signal_command(struct record_session *s, int sig)
{
	if (s->child <= 0)
		return;
	kill(s->child, sig);
	s->child_sent |= 1UL << sig;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Wait for COMMAND, the duration, a signal or the recorder's death. */
static void record_wait(struct record_session *s)
{
	unsigned long long end = s->p->duration_ns ? now_ns() + s->p->duration_ns : 0;
	unsigned long long kill_at = 0;
	int forwarded = 0, killed = 0;

	while (!child_done(s) || (!s->p->command && !stop_sig)) {
		if (stop_sig && stop_forward && !forwarded++)
			signal_command(s, forward_signal(stop_sig));
		if (stop_count > 1 && !killed++)
			signal_command(s, SIGKILL);
		if (end && now_ns() >= end) {
			if (s->child <= 0)
				break;
			signal_command(s, SIGTERM);
			s->duration_over = true;
			end = 0;
			kill_at = now_ns() + CHILD_TERM_MS * 1000000ULL;
		}
		if (kill_at && now_ns() >= kill_at && !killed++)
			signal_command(s, SIGKILL);	/* it ignored the SIGTERM */
		if (!atag_recorder_running(s->rec) && !s->error)
			session_fail(s, ECHILD, "trace-cmd record exited while recording");
		if (s->error)
			break;		/* teardown stops COMMAND */
		atag_sleep_ms(POLL_MS);
	}
}

static void run_and_wait(struct record_session *s)
{
	if (stop_sig)
		return;
	if (s->p->command) {
		s->child = start_command(s);
		if (s->child < 0)
			return;
	} else if (!s->p->duration_ns) {
		fprintf(stderr, "%s record: recording into %s; Ctrl-C to stop\n", ATAG_PROG,
			s->p->output);
	}
	record_wait(s);
}

/* ------------------------------------------------------------------ teardown */

static void stop_command(struct record_session *s)
{
	int waited;

	if (s->child <= 0)
		return;
	signal_command(s, SIGTERM);
	for (waited = 0; !child_done(s) && waited < CHILD_TERM_MS; waited += POLL_MS)
		atag_sleep_ms(POLL_MS);
	if (!child_done(s)) {
		signal_command(s, SIGKILL);
		waitpid(s->child, NULL, 0);
		s->child = 0;
	}
}

static void stop_recorder(struct record_session *s, struct atag_lost *lost, bool *have_lost)
{
	char tail[512];
	int status;

	if (!s->rec)
		return;
	status = atag_recorder_stop(s->rec, STOP_TIMEOUT_MS);
	if (status)
		session_fail(s, ECHILD, "trace-cmd record %s %d: %s",
			     status < 0 ? "hung; killed after" : "exited with status",
			     status < 0 ? STOP_TIMEOUT_MS / 1000 : status,
			     log_reason(s, tail, sizeof(tail)));
	*have_lost = !atag_instance_lost_events(s->instance, lost);
}

static void restore_tags(struct record_session *s)
{
	size_t i, failed = 0;
	int ret, first = 0;

	for (i = 0; i < s->enabled.nr; i++) {
		ret = atag_allocinfo_toggle_tag(s->ai, &s->enabled.tags[i], false);
		if (!ret || ret == -ENOENT)
			continue;
		if (!failed++)
			first = ret;
		atag_taglist_add(&s->still_on, &s->enabled.tags[i]);
	}
	if (failed) {
		fprintf(stderr, "%s: %s: could not turn tracing off again on %zu %s: %s\n",
			ATAG_PROG, atag_allocinfo_name(s->ai), failed,
			atag_plural(failed, "tag", "tags"), strerror(-first));
		s->restore_failed = true;
	}
}

/* Leave the state file for reset, listing only what is still to be undone. */
static void keep_state(struct record_session *s)
{
	struct atag_state *st = s->state;
	int ret;

	st->recorder = 0;		/* stopped, or killed */
	if (!s->instance_created) {
		free(st->instance);
		st->instance = NULL;
	}
	free(st->tags.tags);
	st->tags = s->still_on;
	memset(&s->still_on, 0, sizeof(s->still_on));
	ret = atag_state_rewrite(st);
	if (ret)
		fprintf(stderr, "%s: %s: cannot rewrite: %s; it still lists what was undone\n",
			ATAG_PROG, st->path, strerror(-ret));
	fprintf(stderr, "%s: %s kept: run '%s reset' to finish undoing\n", ATAG_PROG,
		st->path, ATAG_PROG);
	atag_state_free(st);
}

static void teardown(struct record_session *s, struct atag_lost *lost, bool *have_lost)
{
	int ret;

	stop_command(s);
	stop_recorder(s, lost, have_lost);
	if (s->ai)
		restore_tags(s);
	if (s->instance_created) {
		ret = atag_instance_destroy(s->instance);
		if (ret && ret != -ENOENT) {
			fprintf(stderr, "%s: cannot remove tracefs instance %s: %s\n", ATAG_PROG,
				s->instance, strerror(-ret));
			s->restore_failed = true;
		} else {
			s->instance_created = false;
		}
	}
	if (s->restore_failed)
		keep_state(s);
	else
		atag_state_remove(s->state);
	s->state = NULL;
	atag_recorder_free(s->rec);
	s->rec = NULL;
	if (s->log)
		fclose(s->log);
}

/* ------------------------------------------------------------------ summary */

static void print_summary(struct record_session *s, const struct atag_lost *lost, bool have_lost)
{
	unsigned long long nr_lost = lost->overrun + lost->dropped;

	/* a failure before any tag was traced has its own message only */
	if (!s->p->kmem && !(s->error && !s->enabled.nr && !s->already))
		fprintf(stderr, "%s record: %zu %s traced (%zu turned on here, %zu already on)\n",
			ATAG_PROG, s->enabled.nr + s->already,
			atag_plural(s->enabled.nr + s->already, "tag", "tags"), s->enabled.nr,
			s->already);
	if (s->error)
		return;
	fprintf(stderr, "%s record: wrote %s", ATAG_PROG, s->p->output);
	if (have_lost && nr_lost)
		fprintf(stderr, ": %llu events LOST (%llu overwritten, %llu dropped); use a larger -b\n",
			nr_lost, lost->overrun, lost->dropped);
	else if (have_lost)
		fprintf(stderr, ": %llu events, none lost\n", lost->read);
	else
		fprintf(stderr, " (lost-event counters unreadable)\n");
}

/* "SIGTERM" */
static const char *signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

/* How COMMAND ended: a failure unless it exited 0 or a signal of ours ended it. */
static int command_status(struct record_session *s)
{
	const char *cmd = s->p->command ? s->p->command[0] : "";
	int st = s->child_status, sig;
	char name[32];

	if (!s->child_reaped)
		return ATAG_EXIT_OK;
	/* killed by it, or a shell that reports it as 128 + N */
	sig = WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st) > 128 ? WEXITSTATUS(st) - 128 : 0;
	if (s->duration_over && ((sig > 0 && sig < 64 && (s->child_sent & (1UL << sig))) ||
				 (WIFEXITED(st) && !WEXITSTATUS(st)))) {
		fprintf(stderr, "%s record: the duration ended: %s got SIGTERM%s\n", ATAG_PROG,
			cmd, s->child_sent & (1UL << SIGKILL) ? ", then SIGKILL" : "");
		return ATAG_EXIT_OK;
	}
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "%s: %s was killed by %s%s\n", ATAG_PROG, cmd,
			signal_name(WTERMSIG(st), name, sizeof(name)),
			WCOREDUMP(st) ? " (core dumped)" : "");
		return ATAG_EXIT_FAIL;
	}
	if (WEXITSTATUS(st)) {
		fprintf(stderr, "%s: %s exited with status %d\n", ATAG_PROG, cmd, WEXITSTATUS(st));
		return ATAG_EXIT_FAIL;
	}
	return ATAG_EXIT_OK;
}

static int exit_status(struct record_session *s)
{
	if (s->error) {
		fprintf(stderr, "%s: %s\n", ATAG_PROG, s->errmsg);
		return ATAG_EXIT_FAIL;
	}
	if (s->restore_failed)
		return ATAG_EXIT_FAIL;
	if (stop_sig) {
		fprintf(stderr, "%s record: stopped by %s\n", ATAG_PROG, strsignal(stop_sig));
		return ATAG_EXIT_OK;
	}
	return command_status(s);
}

static int run_record(struct record_params *p)
{
	struct record_session s = { .p = p };
	const char *events[16];
	struct atag_lost lost = { 0 };
	bool have_lost = false;
	int ret;

	preflight(&s, events);
	install_signals();
	create_state(&s);
	if (!create_instance(&s) && !enable_tags(&s) && !stop_sig &&
	    !start_recorder(&s, events))
		run_and_wait(&s);
	teardown(&s, &lost, &have_lost);
	print_summary(&s, &lost, have_lost);
	ret = exit_status(&s);
	free(s.enabled.tags);
	free(s.still_on.tags);
	atag_taglist_free(s.tags);
	atag_allocinfo_close(s.ai);
	return ret;
}

void trace_alloc_tag_record(int argc, char **argv)
{
	struct record_params p = { .output = "trace.dat" };
	int ret;

	atag_tagopts_init(&p.tagopts);
	parse_record_options(&p, argc, argv);
	ret = run_record(&p);
	atag_tagopts_release(&p.tagopts);
	exit(ret);
}
