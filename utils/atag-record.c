// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag record: trace the matching call sites and record their
 * alloc_tag events with kernel stacks into a trace.dat, then undo every change.
 *
 * This file is the command: options, the checks made before anything changes (die()
 * is allowed up to there), signals, COMMAND, and the messages. What changes on the
 * system is a session's (include/atag-session.h): the state file, our instance, the
 * tags turned on (each noted in the state file first), trace-cmd record on the
 * instance; then, whatever happened, the session undoes it all and removes the state
 * file when all of that worked.
 *
 * Signals: the stop signals set flags and write to a self-pipe, whose read end is the
 * stop fd of every wait (the library's and the wait for COMMAND here), so a signal
 * ends a wait at once; nothing sleeps and looks again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atag-allocinfo-uapi.h"
#include "atag-cmd.h"
#include "atag-command.h"
#include "atag-marker.h"
#include "atag-profiling.h"
#include "atag-readback.h"
#include "atag-session.h"
#include "atag-stop.h"
#include "atag-tagopts.h"
#include "atag-utils.h"

static const char record_usage[] =
	"usage: trace-cmd-alloc-tag record [FILTERS | --all] [-o FILE] [-b KB] [STACKS]\n"
	"                 [--duration TIME] [-- COMMAND [ARGS...] | -p PID]\n"
	"       trace-cmd-alloc-tag record --kmem [-o FILE] [-b KB] [STACKS]\n"
	"                 [--duration TIME] [-- COMMAND [ARGS...] | -p PID]\n"
	"\n"
	"Trace the matching allocation call sites and record their alloc_tag events, with\n"
	"kernel stacks, into a trace.dat until COMMAND exits, the duration ends or Ctrl-C.\n"
	"Tracing is turned on for the matching tags that were off, and recorded in a\n"
	"tracefs instance of its own (trace-cmd-alloc-tag-PID) by trace-cmd record; all of\n"
	"it is undone at the end, also on errors and on SIGINT, SIGTERM, SIGQUIT and the\n"
	"other signals that end a process but for the faults. Tags that other running\n"
	"records hold stay on until the last of them ends. While it records, a state file\n"
	"in $ATAG_STATE_DIR (default /run/trace-cmd-alloc-tag) lets\n"
	"'trace-cmd-alloc-tag reset' undo what a killed record left behind. The trace.dat\n"
	"is written mode 0600 and describes itself (who the workload and the recorder\n"
	"were, the tags selected and their counters) in trace_marker lines.\n"
	"\n"
	"  -o FILE             the trace.dat to write (default trace.dat)\n"
	"  -b KB               per-CPU buffer size of the instance, in KiB\n"
	"  -p PID              attach to a running process and its threads until Ctrl-C,\n"
	"                      the duration or its end (instead of COMMAND)\n"
	"      --stack-every N a kernel stack for 1 allocation in N (a power of two up to\n"
	"                      1024; default 16): those whose address bits 6 and up hold\n"
	"                      a pattern that moves on every 200 ms (slab: the object's,\n"
	"                      alloc_tag: its ptr); page allocations always carry one\n"
	"                      (their call site is in it)\n"
	"      --all-stacks    a stack for every allocation (--stack-every 1: with\n"
	"                      alloc_tag, at every hit)\n"
	"      --no-stack      no kernel stacks\n"
	"      --linger TIME   once the workload ended by itself, record TIME more\n"
	"                      (default 250ms) so that what the kernel frees after an\n"
	"                      RCU grace period lands in the trace\n"
	"      --no-linger     stop as soon as the workload ended\n"
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
/* after a stop signal: COMMAND gets SIGTERM this much later, SIGKILL CHILD_TERM_MS later */
#define CHILD_STOP_TERM_MS	2000
/* the lines of sites that record prints, at most */
#define MAX_SITES_SHOWN		10

struct record_params {
	struct atag_tagopts	tagopts;
	const char		*output;
	unsigned long long	buffer_kb;
	unsigned long long	duration_ns;	/* 0: none */
	bool			no_stack;
	unsigned int		stack_every;	/* 1: every allocation */
	unsigned long long	linger_ns;	/* past the workload's own end; 0: none */
	bool			all;
	bool			kmem;
	char			**command;	/* NULL: none */
	pid_t			attach;		/* -p PID, 0: none */
	unsigned long long	attach_start;
};

struct recording {
	struct record_params	*p;
	struct atag_allocinfo	*ai;
	struct atag_taglist	*tags;		/* the matching tags, as listed (sorted) */
	struct atag_taglist	*at_start;	/* every tag when recording started */
	struct atag_taglist	*whole;		/* tags of the text with long names */
	size_t			nr_also;	/* traced then, outside the selection */
	size_t			nr_tags_off;	/* selected, found untraced at the end */
	size_t			tags_held;	/* left on for other records */
	struct atag_taglist	tags_off;
	struct atag_session	*sess;
	struct atag_enabled	n;		/* tags turned on here, already on */
	struct atag_recorder	*rec;		/* the session's */
	FILE			*log;		/* trace-cmd's output */
	struct atag_command	cmd;		/* COMMAND, if any */
	bool			duration_over;	/* COMMAND got SIGTERM when it ended */
	bool			attach_over;	/* the process attached to ended */
	bool			restore_failed;
	bool			described;	/* the first lines were written */
	bool			mark_failed;	/* a line could not be written: said once */
	bool			stopped_early;	/* stopped before trace-cmd recorded */
	bool			committed;	/* the trace.dat is in place */
	unsigned long long	lingered_ns;	/* recorded past the workload's end */
	struct atag_readback	rb;		/* what reading it back found */
	bool			unreadable;	/* it does not read back: rb.why */
	const char		**events;	/* recorded, NULL-terminated */
	struct atag_sampler	*sampler;	/* moves the sampled stack triggers on */
	struct atag_sampler_result sampled;
	char			end_reason[64];	/* why the recording ended normally */
	int			error;		/* set once: the first failure */
	char			errmsg[1024];
};

enum { OPT_no_stack = OPT_TAGOPTS_END, OPT_duration, OPT_all, OPT_kmem, OPT_stack_every,
       OPT_all_stacks, OPT_linger, OPT_no_linger };

/* How long record goes on past the workload's end by default (see --linger). */
#define LINGER_NS		250000000ULL

/* By default one allocation in this many carries a stack (include/atag-recorder.h). */
#define STACK_EVERY		16
#define STACK_EVERY_MAX		1024
/* how long one pattern of address bits stays: a change takes a grace period or two */
#define STACK_PERIOD_MS		200

static const char * const sched_events[] = {
	"sched:sched_process_fork", "sched:sched_process_exec", "sched:sched_process_exit",
	NULL
};

/* ------------------------------------------------------------------ options */

static void parse_record_options(struct record_params *p, int argc, char **argv)
{
	static const struct option long_options[] = {
		ATAG_TAGOPTS_LONG,
		{ "no-stack", no_argument, NULL, OPT_no_stack },
		{ "stack-every", required_argument, NULL, OPT_stack_every },
		{ "all-stacks", no_argument, NULL, OPT_all_stacks },
		{ "linger", required_argument, NULL, OPT_linger },
		{ "no-linger", no_argument, NULL, OPT_no_linger },
		{ "duration", required_argument, NULL, OPT_duration },
		{ "all", no_argument, NULL, OPT_all },
		{ "kmem", no_argument, NULL, OPT_kmem },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char optstring[] = "+:ho:b:p:";
	unsigned long long pid, every;
	bool every_given = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, NULL)) != -1) {
		if (atag_tagopts_parse(&p->tagopts, c, optarg, record_usage))
			continue;
		switch (c) {
		case 'o':
			if (!*optarg)
				atag_usage_error(record_usage, "--output: an empty file name");
			p->output = optarg;
			break;
		case 'b':
			if (atag_parse_u64(optarg, &p->buffer_kb) || !p->buffer_kb)
				atag_usage_error(record_usage, "-b: '%s' is not a size in KiB",
						 optarg);
			break;
		case 'p':
			if (atag_parse_u64(optarg, &pid) || !pid || pid > INT_MAX)
				atag_usage_error(record_usage, "-p: '%s' is not a process id",
						 optarg);
			p->attach = (pid_t)pid;
			break;
		case OPT_no_stack: p->no_stack = true; break;
		case OPT_stack_every:
			if (atag_parse_u64(optarg, &every) || !every || every > STACK_EVERY_MAX ||
			    (every & (every - 1)))
				atag_usage_error(record_usage, "--stack-every: '%s' is not a power of "
						 "two from 1 to %d", optarg, STACK_EVERY_MAX);
			p->stack_every = every;
			every_given = true;
			break;
		case OPT_all_stacks:
			p->stack_every = 1;
			every_given = true;
			break;
		case OPT_linger:
			if (atag_parse_duration(optarg, &p->linger_ns) ||
			    p->linger_ns > 60000000000ULL)
				atag_usage_error(record_usage, "--linger: '%s' is not a duration of "
						 "a minute or less", optarg);
			break;
		case OPT_no_linger: p->linger_ns = 0; break;
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
	if (p->command && p->attach)
		atag_usage_error(record_usage, "-p and a COMMAND exclude each other");
	if (p->no_stack && every_given)
		atag_usage_error(record_usage, "--no-stack and --stack-every or --all-stacks "
				 "exclude each other");
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
/* the slab allocation events, whose stacks are sampled by the object's address */
static const char * const slab_alloc_events[] = {
	"kmem:kmalloc", "kmem:kmalloc_node", "kmem:kmem_cache_alloc",
	"kmem:kmem_cache_alloc_node", NULL
};

/*
 * The stack triggers: with stack_every N > 1, slab allocations carry a stack when
 * their address holds the first pattern of the sampler's round (include/atag-recorder.h), the
 * alloc_tag source's when their ptr does (its stack then comes with
 * alloc_tag_mem_alloced, which has the ptr; the hit has none); page allocations
 * always (the page source takes its call site from the stack). Returns the list,
 * ending with a NULL event; NULL for --no-stack. The sampled ones are those whose
 * trigger is not a bare "stacktrace".
 */
static const struct atag_stack_trigger *stack_triggers(const struct record_params *p)
{
	static struct atag_stack_trigger t[8];
	static char sampled[512];
	int n = 0, i;

	if (p->no_stack)
		return NULL;
	atag_sampler_trigger(p->stack_every, 0, sampled, sizeof(sampled));
	if (!p->kmem) {
		t[n++] = p->stack_every > 1 ?
			 (struct atag_stack_trigger){ "alloc_tag:alloc_tag_mem_alloced", sampled } :
			 (struct atag_stack_trigger){ "alloc_tag:alloc_tag_hit", "stacktrace" };
	} else {
		for (i = 0; slab_alloc_events[i]; i++)
			t[n++] = (struct atag_stack_trigger){ slab_alloc_events[i],
				p->stack_every > 1 ? sampled : "stacktrace" };
		t[n++] = (struct atag_stack_trigger){ "kmem:mm_page_alloc", "stacktrace" };
	}
	t[n] = (struct atag_stack_trigger){ NULL, NULL };
	return t;
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
		if (atag_event_spec_exists(*all))
			events[n++] = *all;
		else if (p->kmem && !listed(kmem_optional, *all))
			die("%s/events/%s: no such event: this kernel cannot record --kmem",
			    dir, *all);
		else if (!p->kmem)
			die("%s/events/alloc_tag: no alloc_tag trace events: this kernel lacks the patch series \"%s\" (record --kmem works without it)",
			    dir, ATAG_TRACING_SERIES);
	}
	/* the workload's tasks, for report; no stacks on them */
	for (all = sched_events; *all; all++)
		if (atag_event_spec_exists(*all))
			events[n++] = *all;
	events[n] = NULL;
}

/* ------------------------------------------------------------------ checks */

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
	if (atag_kernel_fs(dir))
		die("%s: %s is in the kernel's %s file system: no file can be made there",
		    output, dir, atag_kernel_fs(dir));
	if (!stat(output, &st) && S_ISDIR(st.st_mode))
		die("%s: %s", output, strerror(EISDIR));
	/* the trace.dat replaces what is there by rename: only a file or a link */
	if (!lstat(output, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		die("%s: not a regular file: record writes a new file in its place", output);
	/*
	 * A link to a device, a pipe or a socket (/dev/stdout, /dev/null) is someone's
	 * way out, not a file: renaming over it would leave a file where the link was
	 */
	if (!lstat(output, &st) && S_ISLNK(st.st_mode) && !stat(output, &st) &&
	    !S_ISREG(st.st_mode))
		die("%s: a link to a device, a pipe or a socket: record writes a regular file, by rename in the link's place",
		    output);
	if (!access(output, F_OK) && access(output, W_OK))
		die("%s: %s", output, strerror(errno));
	if (strpbrk(output, "\t\n"))
		die("%s: a tab or newline in the name: the state file cannot list it", output);
	free(copy);
}

/*
 * The tags of the allocinfo text whose names the ioctls may cut (the lines name a
 * call site as its events do: whole); NULL when it has none or cannot be read.
 */
static struct atag_taglist *long_names(struct atag_allocinfo *ai)
{
	struct atag_taglist *all = NULL;
	size_t i, n = 0, len;
	char *text;

	text = atag_read_file(atag_allocinfo_name(ai), 256 << 20, &len);
	if (!text)
		return NULL;
	if (atag_allocinfo_parse_text(text, len, NULL, &all, NULL))
		all = NULL;
	free(text);
	for (i = 0; all && i < all->nr; i++)
		if (strlen(all->tags[i].modname) >= ALLOCINFO_STR_SIZE - 1 ||
		    strlen(all->tags[i].function) >= ALLOCINFO_STR_SIZE - 1 ||
		    strlen(all->tags[i].filename) >= ALLOCINFO_STR_SIZE - 1)
			all->tags[n++] = all->tags[i];
	if (all && !n) {
		atag_taglist_free(all);
		return NULL;
	}
	if (all)
		all->nr = n;
	return all;
}

/* Everything that can fail before anything changes: die() is fine here. */
static void preflight(struct recording *r, const char **events)
{
	const char *dir = atag_tracefs_dir();
	char path[4096];

	if (r->p->command)
		atag_command_check(r->p->command[0]);
	if (!dir)
		die("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	snprintf(path, sizeof(path), "%s/instances", dir);
	if (access(path, W_OK))
		die("%s: %s: run as root", path, strerror(errno));
	check_output(r->p->output);
	if (r->p->attach && !(r->p->attach_start = atag_proc_starttime(r->p->attach)))
		die("-p %d: no such process", (int)r->p->attach);
	choose_events(r->p, events);
	if (!atag_recorder_found(NULL))
		die("%s: not found: record writes the trace.dat with trace-cmd record (Debian package trace-cmd)",
		    atag_recorder_program(NULL));
	if (r->p->kmem)
		return;
	r->ai = atag_tagopts_open(&r->p->tagopts);
	if (atag_allocinfo_source(r->ai) != ATAG_SRC_IOCTL)
		atag_tagopts_die(&r->p->tagopts, r->ai, ATAG_TAGOP_TOGGLE, ENOTTY);
	if (atag_allocinfo_list(r->ai, &r->p->tagopts.filter, &r->tags))
		atag_tagopts_die(&r->p->tagopts, r->ai, ATAG_TAGOP_LIST, errno);
	if (!r->tags->nr)
		atag_tagopts_die(&r->p->tagopts, r->ai, ATAG_TAGOP_TOGGLE, ENOENT);
	atag_taglist_sort(r->tags);
	r->whole = long_names(r->ai);
}

/* ------------------------------------------------------------------ signals */

/*
 * The signals that stop a recording, with the whole teardown: those whose default
 * action ends the process, but for the faults. SIGPIPE is ignored instead: a closed
 * stderr must not end a recording before it can undo what it changed.
 */
/* What COMMAND gets for a stop signal sent to record alone. */
static int forward_signal(int sig)
{
	return sig == SIGINT || sig == SIGHUP ? sig : SIGTERM;
}

/* ------------------------------------------------------------------ errors */

static void __attribute__((format(printf, 3, 4)))
record_fail(struct recording *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->error)
		return;
	r->error = err ? err : EIO;
	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
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
static const char *log_reason(struct recording *r, char *buf, size_t len)
{
	char line[512], last[512] = "", *p;

	*buf = '\0';
	if (r->log) {
		fflush(r->log);
		rewind(r->log);
		while (fgets(line, sizeof(line), r->log)) {
			line[strcspn(line, "\n")] = '\0';
			p = line + strspn(line, " \t");
			if (strstr(p, "Error") || strstr(p, "trace-cmd:"))
				add_line(buf, len, p);
			if (*p)
				snprintf(last, sizeof(last), "%s", p);
		}
		fseek(r->log, 0, SEEK_END);
	}
	if (!*buf)
		snprintf(buf, len, "%s", *last ? last : "no output");
	return buf;
}

/* ------------------------------------------------------------------ setup */

/* The session and its state file; nothing has changed yet, so die() is still fine. */
/* The private directory trace-cmd writes in, beside the output. */
static int create_output(struct recording *r)
{
	int ret = atag_session_create_output(r->sess, r->p->output);

	if (ret && atag_session_failed(r->sess) == ATAG_PART_STATE)
		record_fail(r, -ret, "%s: cannot write: %s", atag_session_state(r->sess)->path,
			    strerror(-ret));
	else if (ret)
		record_fail(r, -ret, "%s: cannot make a private directory beside it: %s",
			    r->p->output, strerror(-ret));
	return ret;
}

static int create_instance(struct recording *r)
{
	const char *name = atag_session_instance_name(r->sess);
	int ret = atag_session_create_instance(r->sess);

	if (ret == -EEXIST)
		record_fail(r, EEXIST, "tracefs instance %s exists already (not ours): not touching it",
			    name);
	else if (ret)
		record_fail(r, -ret, "cannot create tracefs instance %s: %s", name, strerror(-ret));
	return ret;
}

static int enable_tags(struct recording *r)
{
	char msg[1024];
	int ret;

	ret = atag_session_enable_tags(r->sess, r->tags, atag_stop_fd(), &r->n);
	if (!ret || ret == -EINTR)
		return 0;
	if (atag_session_failed(r->sess) == ATAG_PART_STATE) {
		record_fail(r, -ret, "%s: cannot write: %s", atag_session_state(r->sess)->path,
			    strerror(-ret));
	} else {
		atag_tagopts_message(msg, sizeof(msg), &r->p->tagopts, r->ai, ATAG_TAGOP_TOGGLE,
				     ret);
		record_fail(r, -ret, "%s", msg);
	}
	return ret;
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

static int start_recorder(struct recording *r, const char **events)
{
	struct atag_recorder_opts o = {
		.output = r->p->output,
		.events = events,
		.stacks = stack_triggers(r->p),
		.buffer_kb = r->p->buffer_kb,
	};
	char tail[512];
	int ret;

	r->log = open_log();
	o.log_fd = r->log ? fileno(r->log) : -1;
	r->rec = atag_session_start_recorder(r->sess, &o);
	if (!r->rec) {
		record_fail(r, errno, "cannot start trace-cmd record: %s", strerror(errno));
		return -1;
	}
	ret = atag_recorder_wait_ready(r->rec, READY_TIMEOUT_MS, atag_stop_fd());
	if (ret == -ECHILD && atag_stop_sig)
		ret = -EINTR;	/* it ended on the stop that came meanwhile */
	if (ret == -ECHILD)
		record_fail(r, ECHILD, "trace-cmd record failed: %s",
			    log_reason(r, tail, sizeof(tail)));
	else if (ret == -ETIMEDOUT)
		record_fail(r, ETIMEDOUT, "trace-cmd record did not start recording within %d s",
			    READY_TIMEOUT_MS / 1000);
	return ret == -EINTR ? 0 : ret;
}

/* ------------------------------------------------------------------ the description */

/* A line could not be written: said once, and the recording goes on without it. */
static void mark_result(struct recording *r, int ret)
{
	if (!ret || r->mark_failed)
		return;
	r->mark_failed = true;
	fprintf(stderr, "%s: %s: cannot write the recording's description into trace_marker: %s\n",
		ATAG_PROG, atag_session_instance_name(r->sess), strerror(-ret));
}

/*
 * Memory allocation profiling switched off: the kernel emits no alloc_tag event
 * (include/atag-profiling.h). A line of the description for report, and said when
 * recording starts and when it ends.
 */
static void check_profiling(struct recording *r, const char *when)
{
	struct atag_profiling_state st;
	char off[256];

	if (r->p->kmem)
		return;
	mark_result(r, atag_profiling_mark(r->sess, atag_allocinfo_name(r->ai), when, &st));
	if (st.state == ATAG_PROFILING_OFF)
		fprintf(stderr, "%s record: %s: %s\n", ATAG_PROG,
			atag_profiling_off(&st, off, sizeof(off)), strcmp(when, "end") ?
			"no alloc_tag event is recorded while it is off" :
			"what was allocated while it was off has no event in the trace");
}

/* "workload" or "recorder", PID and its command name ("?" when it cannot be read) */
static void mark_task(struct recording *r, const char *keyword, pid_t pid, const char *comm)
{
	char spid[24], name[64];

	snprintf(spid, sizeof(spid), "%d", (int)pid);
	if (!comm)
		comm = atag_proc_comm(pid, name, sizeof(name)) ? "?" : name;
	mark_result(r, atag_session_mark(r->sess, keyword, spid, comm, NULL));
}

/* @t with its names whole (a copy in @buf when the ioctls cut one), for the lines. */
static const struct atag_tag *named(const struct recording *r, const struct atag_tag *t,
				    struct atag_tag *buf)
{
	const struct atag_tag *w = atag_taglist_whole(r->whole, t);

	if (!w)
		return t;
	*buf = *t;
	memcpy(buf->modname, w->modname, sizeof(buf->modname));
	memcpy(buf->function, w->function, sizeof(buf->function));
	memcpy(buf->filename, w->filename, sizeof(buf->filename));
	return buf;
}

/* "KEYWORD\tMODULE\tFILE\tLINE\tFUNCTION", the names whole */
static void mark_tag(struct recording *r, const char *keyword, const struct atag_tag *t)
{
	struct atag_tag buf;

	mark_result(r, atag_session_mark_tag(r->sess, keyword, named(r, t, &buf), NULL));
}

/* "counters\tstart|end\tBYTES\tCALLS\tMODULE\tFILE\tLINE\tFUNCTION" */
static void mark_counters(struct recording *r, const char *when, const struct atag_tag *t)
{
	char bytes[32], calls[32];
	struct atag_tag buf;

	snprintf(bytes, sizeof(bytes), "%lld", t->bytes);
	snprintf(calls, sizeof(calls), "%llu", t->calls);
	mark_result(r, atag_session_mark_tag(r->sess, ATAG_MK_COUNTERS, named(r, t, &buf), when, bytes,
					     calls, NULL));
}

/* Whether @t is one the recording selected. */
static bool selected(const struct recording *r, const struct atag_tag *t)
{
	return r->p->all || atag_taglist_find(r->tags, t);
}

/* Every tag with its counters and trace state, now (NULL when they cannot be listed). */
static struct atag_taglist *list_now(struct recording *r)
{
	struct atag_taglist *list = NULL;
	int ret;

	if (r->p->kmem)
		return NULL;
	ret = atag_allocinfo_list(r->ai, NULL, &list);
	if (ret) {
		fprintf(stderr, "%s: %s: cannot list the tags for their counters: %s\n", ATAG_PROG,
			atag_allocinfo_name(r->ai), strerror(-ret));
		return NULL;
	}
	return list;
}

/* Whether @event is one the recording has (some optional ones may be missing). */
static bool recorded_event(const char **events, const char *event)
{
	for (; *events; events++)
		if (!strcmp(*events, event))
			return true;
	return false;
}

/*
 * "stack-sample EVENT N HOW": the events whose stacks one allocation in N carries;
 * and the sampler that moves their triggers on (none: said, and the recording goes
 * on with the first pattern).
 */
static void start_sampling(struct recording *r, const char **events)
{
	const struct atag_stack_trigger *t = stack_triggers(r->p);
	const char *sampled[8];
	char every[16], how[96];
	int n = 0;

	snprintf(every, sizeof(every), "%u", r->p->stack_every);
	snprintf(how, sizeof(how), "ptr bits %d-%d, a pattern every %d ms", ATAG_SAMPLE_SHIFT,
		 ATAG_SAMPLE_SHIFT + __builtin_ctz(r->p->stack_every) - 1, STACK_PERIOD_MS);
	for (; t && t->event && n < 7; t++) {
		if (!strcmp(t->trigger, "stacktrace") || !recorded_event(events, t->event))
			continue;
		sampled[n++] = t->event;
		mark_result(r, atag_session_mark(r->sess, ATAG_MK_STACK_SAMPLE, t->event, every, how,
						 NULL));
	}
	sampled[n] = NULL;
	if (!n)
		return;
	r->sampler = atag_sampler_start(atag_session_instance_name(r->sess), sampled,
					r->p->stack_every, STACK_PERIOD_MS);
	if (!r->sampler)
		fprintf(stderr, "%s record: cannot move the sampled stacks on (%s): one "
			"address pattern for the whole recording\n", ATAG_PROG, strerror(errno));
}

/* Stop moving the sampled stacks on; say so when it stopped early. */
static void stop_sampling(struct recording *r)
{
	if (!r->sampler)
		return;
	atag_sampler_stop(r->sampler, &r->sampled);
	r->sampler = NULL;
	if (r->sampled.error)
		fprintf(stderr, "%s record: the sampled stacks stopped moving on after %u "
			"changes: %s: %s\n", ATAG_PROG, r->sampled.rotations, r->sampled.failed,
			strerror(-r->sampled.error));
}

/*
 * The first lines, once trace-cmd records: who records, the selection, the tags
 * traced outside it, and the selection's counters right before COMMAND starts.
 */
static void describe_start(struct recording *r)
{
	char spid[24], site[3 * ATAG_NAME_MAX + 32];
	const struct atag_tag *t;
	struct atag_tag buf;
	pid_t *kids = NULL, tc;
	int i, nr;
	size_t j;

	snprintf(spid, sizeof(spid), "%d", (int)getpid());
	mark_result(r, atag_session_mark(r->sess, ATAG_MK_RECORD, spid,
					 r->p->kmem ? "kmem" : "alloc_tag",
					 r->p->no_stack ? "no" : "yes", NULL));
	r->described = true;
	start_sampling(r, r->events);
	/* the recording machinery: record, trace-cmd record and its readers */
	mark_task(r, ATAG_MK_RECORDER, getpid(), NULL);
	tc = atag_recorder_pid(r->rec);
	mark_task(r, ATAG_MK_RECORDER, tc, NULL);
	nr = atag_proc_descendants(tc, &kids);
	for (i = 0; i < nr; i++)
		mark_task(r, ATAG_MK_RECORDER, kids[i], NULL);
	free(kids);
	if (r->p->all || r->p->kmem)
		mark_result(r, atag_session_mark(r->sess, ATAG_MK_SELECT_ALL, NULL));
	for (j = 0; !r->p->all && !r->p->kmem && j < r->tags->nr; j++)
		mark_tag(r, ATAG_MK_SELECT, &r->tags->tags[j]);
	/* the counters right after their reading-start line: the window is the reading's */
	if (!r->p->kmem)
		mark_result(r, atag_session_mark(r->sess, ATAG_MK_COUNTERS_READING, "start", NULL));
	r->at_start = list_now(r);
	for (j = 0; r->at_start && j < r->at_start->nr; j++) {
		t = &r->at_start->tags[j];
		if (selected(r, t))
			mark_counters(r, "start", t);
	}
	for (j = 0; r->at_start && j < r->at_start->nr; j++) {
		t = &r->at_start->tags[j];
		if (!selected(r, t) && t->traced == 1) {
			mark_tag(r, ATAG_MK_ALSO_TRACED, t);
			if (r->nr_also++ < MAX_SITES_SHOWN) {
				atag_tag_site(named(r, t, &buf), site, sizeof(site));
				fprintf(stderr, "%s record: traced already, outside the selection: %s\n",
					ATAG_PROG, site);
			}
		}
	}
	if (r->nr_also)
		fprintf(stderr, "%s record: %zu %s outside the selection %s traced already: %s events are in the trace.dat too (report shows only the selection)\n",
			ATAG_PROG, r->nr_also, atag_plural(r->nr_also, "tag", "tags"),
			r->nr_also == 1 ? "was" : "were", r->nr_also == 1 ? "its" : "their");
	check_profiling(r, "start");
}

/* The description is complete: COMMAND runs (or -p attaches) right after this line. */
static void mark_described(struct recording *r)
{
	mark_result(r, atag_session_mark(r->sess, ATAG_MK_DESCRIBED, NULL));
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

/*
 * The last lines, right after COMMAND ended: the selection's counters, which tags
 * were turned off meanwhile, and why the recording ends.
 */
static void describe_end(struct recording *r)
{
	struct atag_taglist *now;
	const struct atag_tag *t;
	size_t j;

	if (!r->described)
		return;
	if (r->sampler) {
		char moves[16];

		stop_sampling(r);
		snprintf(moves, sizeof(moves), "%u", r->sampled.rotations);
		mark_result(r, atag_session_mark(r->sess, ATAG_MK_STACK_SAMPLE_MOVES, moves, NULL));
	}
	if (!r->p->kmem)
		mark_result(r, atag_session_mark(r->sess, ATAG_MK_COUNTERS_READING, "end", NULL));
	now = list_now(r);
	if (now)
		atag_taglist_sort(now);
	for (j = 0; now && j < now->nr; j++) {
		t = &now->tags[j];
		if (selected(r, t))
			mark_counters(r, "end", t);
	}
	/* the selected tags someone turned off while we held them */
	for (j = 0; now && j < r->tags->nr; j++) {
		t = atag_taglist_find(now, &r->tags->tags[j]);
		if (t && t->traced == 0 && !atag_taglist_add(&r->tags_off, t))
			r->nr_tags_off++;
	}
	atag_taglist_free(now);
	check_profiling(r, "end");
	if (!r->error && r->end_reason[0])
		mark_result(r, atag_session_mark(r->sess, ATAG_MK_END, r->end_reason, NULL));
}

/* ------------------------------------------------------------------ running */

/* The command name the kernel gives COMMAND at exec: its file's base name, cut. */
static void command_comm(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');

	snprintf(buf, len, "%.15s", base ? base + 1 : path);
}

/*
 * Starts COMMAND (atag-command.h): once forked, its workload and described lines
 * are written before it may exec. False when it did not start.
 */
static bool start_command(struct recording *r)
{
	char comm[32];
	int err;

	err = atag_command_fork(&r->cmd, r->p->command);
	if (err) {
		if (err != -EINTR)
			record_fail(r, -err, "cannot run %s: %s", r->p->command[0], strerror(-err));
		return false;
	}
	command_comm(r->p->command[0], comm, sizeof(comm));
	mark_task(r, ATAG_MK_WORKLOAD, r->cmd.pid, comm);
	mark_described(r);
	err = atag_command_go(&r->cmd);
	if (err)
		record_fail(r, err, "cannot run %s: %s", r->p->command[0], strerror(err));
	return !err;
}

/* -p PID: one workload line a thread. */
static void attach_process(struct recording *r)
{
	pid_t *tids;
	int i, nr;

	nr = atag_proc_threads(r->p->attach, &tids);
	if (nr <= 0) {
		mark_task(r, ATAG_MK_WORKLOAD, r->p->attach, NULL);
	} else {
		for (i = 0; i < nr; i++)
			mark_task(r, ATAG_MK_WORKLOAD, tids[i], NULL);
		free(tids);
	}
	mark_described(r);
}

/* The nearest of three deadlines (0: none) as a poll() timeout. */
static int wait_ms(unsigned long long a, unsigned long long b, unsigned long long c)
{
	int m[3] = { atag_ms_until(a), atag_ms_until(b), atag_ms_until(c) }, ms = -1, i;

	for (i = 0; i < 3; i++)
		if (m[i] >= 0 && (ms < 0 || m[i] < ms))
			ms = m[i];
	return ms;
}

/* A pidfd to wait on, or -1 (then it is looked at every ATAG_NO_PIDFD_MS). */
static int watch_fd(struct recording *r, pid_t pid, const char *what)
{
	int fd;

	if (pid <= 0)
		return -1;
	fd = atag_pidfd_open(pid);
	if (fd < 0 && fd != -ENOSYS && fd != -ESRCH)
		record_fail(r, -fd, "cannot wait for %s: %s", what, strerror(-fd));
	return fd < 0 ? -1 : fd;
}

/* trace-cmd record ended before it was asked to: how, and what it said. */
static void recorder_died(struct recording *r)
{
	int st = atag_recorder_status(r->rec);
	char tail[512], name[32];

	if (st > 128)
		record_fail(r, ECHILD, "trace-cmd record exited while recording: killed by %s",
			    signal_name(st - 128, name, sizeof(name)));
	else
		record_fail(r, ECHILD, "trace-cmd record exited while recording: status %d: %s",
			    st, log_reason(r, tail, sizeof(tail)));
}

/* Why the recording ends: @reason, or (NULL) the stop signal's name. */
static void set_reason(struct recording *r, const char *reason)
{
	char name[32];

	if (reason)
		snprintf(r->end_reason, sizeof(r->end_reason), "%s", reason);
	else
		snprintf(r->end_reason, sizeof(r->end_reason), "signal %s",
			 signal_name(atag_stop_sig, name, sizeof(name)));
}

/*
 * Wait for COMMAND (or the process attached to), the duration, a signal or the
 * recorder's death: on the stop pipe, their pidfds and the recorder's, until the next
 * deadline. A stop signal reaches COMMAND (forwarded when it came to record alone);
 * a COMMAND that still runs CHILD_STOP_TERM_MS later gets SIGTERM, and SIGKILL
 * CHILD_TERM_MS after the signal: it cannot keep record waiting.
 */
static void record_wait(struct recording *r)
{
	unsigned long long end = r->p->duration_ns ? atag_now_ns() + r->p->duration_ns : 0;
	unsigned long long kill_at = 0, term_at = 0;
	int forwarded = 0, killed = 0, stopping = 0;
	struct pollfd p[3] = {
		{ .fd = atag_stop_fd(), .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
		{ .fd = atag_recorder_fd(r->rec), .events = POLLIN },
	};
	bool unwatched;
	int ms;

	p[1].fd = r->cmd.pid > 0 ? watch_fd(r, r->cmd.pid, r->p->command[0]) :
		  watch_fd(r, r->p->attach, "the process attached to");
	/* no pidfds here: look again every ATAG_NO_PIDFD_MS */
	unwatched = ((r->cmd.pid > 0 || r->p->attach) && p[1].fd < 0) || p[2].fd < 0;
	for (;;) {
		atag_stop_drain();
		if (atag_command_done(&r->cmd) && (r->p->command || atag_stop_sig)) {
			set_reason(r, r->duration_over ? "duration" : atag_stop_sig ? NULL :
				   "command-exited");
			break;
		}
		if (r->p->attach && !atag_proc_alive(r->p->attach, r->p->attach_start)) {
			r->attach_over = true;
			set_reason(r, "process-exited");
			break;
		}
		if (atag_stop_sig && !stopping++ && r->cmd.pid > 0) {
			term_at = atag_stop_sig == SIGTERM ? 0 :
				  atag_now_ns() + CHILD_STOP_TERM_MS * 1000000ULL;
			kill_at = atag_now_ns() + CHILD_TERM_MS * 1000000ULL;
		}
		if (atag_stop_sig && atag_stop_alone && !forwarded++)
			atag_command_signal(&r->cmd, forward_signal(atag_stop_sig));
		if (atag_stop_count > 1 && !killed++)
			atag_command_signal(&r->cmd, SIGKILL);
		if (end && atag_now_ns() >= end) {
			if (r->cmd.pid <= 0) {
				set_reason(r, "duration");
				break;
			}
			atag_command_signal(&r->cmd, SIGTERM);
			r->duration_over = true;
			end = 0;
			kill_at = atag_now_ns() + CHILD_TERM_MS * 1000000ULL;
		}
		if (term_at && atag_now_ns() >= term_at) {
			atag_command_signal(&r->cmd, SIGTERM);	/* it did not end on the first signal */
			term_at = 0;
		}
		if (kill_at && atag_now_ns() >= kill_at && !killed++)
			atag_command_signal(&r->cmd, SIGKILL);	/* it ignored the SIGTERM */
		if (!atag_recorder_running(r->rec) && !r->error)
			recorder_died(r);
		if (r->error)
			break;		/* teardown stops COMMAND */
		ms = wait_ms(end, term_at, killed ? 0 : kill_at);
		if (unwatched && (ms < 0 || ms > ATAG_NO_PIDFD_MS))
			ms = ATAG_NO_PIDFD_MS;
		if (atag_poll(p, 3, ms) < 0)
			record_fail(r, errno, "cannot wait: %s", strerror(errno));
	}
	if (p[1].fd >= 0)
		close(p[1].fd);
}

/*
 * Once the workload ended by itself: a while more (--linger), so that what the kernel
 * frees after an RCU grace period (credentials, page tables, the objects of a task
 * that exited) lands in the trace rather than looking live. A stop signal or the
 * recorder's end cuts it short.
 */
static void linger(struct recording *r)
{
	unsigned long long t0 = atag_now_ns(), end = t0 + r->p->linger_ns;
	struct pollfd p[2] = {
		{ .fd = atag_stop_fd(), .events = POLLIN },
		{ .fd = atag_recorder_fd(r->rec), .events = POLLIN },
	};
	char ms[24];
	int wait;

	if (!r->p->linger_ns || r->error || atag_stop_sig ||
	    (strcmp(r->end_reason, "command-exited") && strcmp(r->end_reason, "process-exited")))
		return;
	snprintf(ms, sizeof(ms), "%llu", r->p->linger_ns / 1000000);
	mark_result(r, atag_session_mark(r->sess, ATAG_MK_LINGER, ms, NULL));
	while (!atag_stop_sig && (wait = atag_ms_until(end)) > 0) {
		if (p[1].fd < 0 && wait > ATAG_NO_PIDFD_MS)
			wait = ATAG_NO_PIDFD_MS;
		atag_poll(p, 2, wait);
		atag_stop_drain();
		if (!atag_recorder_running(r->rec)) {
			recorder_died(r);
			break;
		}
	}
	r->lingered_ns = atag_now_ns() - t0;
}

static void run_and_wait(struct recording *r)
{
	if (atag_stop_sig)
		return;
	describe_start(r);
	if (r->p->command) {
		if (!start_command(r))
			return;
	} else if (r->p->attach) {
		attach_process(r);
		if (!r->p->duration_ns)
			fprintf(stderr, "%s record: recording process %d into %s; Ctrl-C to stop\n",
				ATAG_PROG, (int)r->p->attach, r->p->output);
	} else {
		mark_described(r);
		if (!r->p->duration_ns)
			fprintf(stderr, "%s record: recording into %s; Ctrl-C to stop\n",
				ATAG_PROG, r->p->output);
	}
	record_wait(r);
	linger(r);
	describe_end(r);
}

/* ------------------------------------------------------------------ teardown */


/*
 * Read back the trace.dat trace-cmd wrote, in its private directory (atag-readback.h):
 * its saved comms mended when cut, every record read by this library and by
 * libtracecmd, as many as the instance's reader took out of the ring buffer. A file
 * that fails is still moved into place, and said to be unreadable.
 */
static void read_back(struct recording *r, const struct atag_lost *lost, bool have_lost)
{
	const char *dir = atag_session_output_tmpdir(r->sess);
	char path[PATH_MAX];

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, ATAG_OUTPUT_NAME);
	if (access(path, F_OK))
		return;		/* none written: the commit says so */
	if (atag_readback(path, atag_session_instance_name(r->sess),
			  have_lost ? (int64_t)lost->read : -1, &r->rb))
		r->unreadable = true;
	if (r->rb.mended[0])
		fprintf(stderr, "%s record: %s: %s\n", ATAG_PROG, r->p->output, r->rb.mended);
}

/*
 * Stop the recorder, read back its trace.dat and move it into place; after a failure,
 * say why (a full disk by its name) before the partial files go.
 */
static void stop_recorder(struct recording *r, struct atag_lost *lost, bool *have_lost)
{
	char tail[512];
	bool ready = atag_recorder_ready(r->rec);
	int status, ret;

	status = atag_session_stop_recorder(r->sess, STOP_TIMEOUT_MS);
	*have_lost = !atag_session_lost_events(r->sess, lost);
	if (!status) {
		read_back(r, lost, *have_lost);
		if (r->unreadable && r->rb.no_buffer && atag_stop_sig && !ready) {
			/* stopped before it recorded: it wrote headers alone (discarded) */
			r->unreadable = false;
			r->stopped_early = true;
			return;
		}
		ret = atag_session_commit_output(r->sess);
		if (ret > 0)
			fprintf(stderr, "%s record: %s existed: kept as %s.old\n", ATAG_PROG,
				r->p->output, r->p->output);
		if (ret >= 0)
			r->committed = true;
		else if (ret == -ENOENT)
			record_fail(r, ENOENT, "trace-cmd record wrote no %s: %s", r->p->output,
				    log_reason(r, tail, sizeof(tail)));
		else
			record_fail(r, -ret, "%s: cannot move the trace.dat into place: %s",
				    r->p->output, strerror(-ret));
		return;
	}
	log_reason(r, tail, sizeof(tail));
	if (atag_stop_sig && !ready && !r->error) {
		r->stopped_early = true;	/* nothing recorded: nothing written */
	} else if (atag_session_output_full(r->sess) || strstr(tail, strerror(ENOSPC))) {
		record_fail(r, ENOSPC, "%s: %s (trace-cmd record: %s)", r->p->output,
			    strerror(ENOSPC), tail);
	} else {
		record_fail(r, ECHILD, "trace-cmd record %s %d: %s",
			    status < 0 ? "hung; killed after" : "exited with status",
			    status < 0 ? STOP_TIMEOUT_MS / 1000 : status, tail);
	}
}

/* What could not be undone is said; the state file then lists it for reset. */
static void teardown(struct recording *r, struct atag_lost *lost, bool *have_lost)
{
	atag_command_end(&r->cmd, CHILD_TERM_MS);
	stop_sampling(r);
	if (r->rec)
		stop_recorder(r, lost, have_lost);
	else if (atag_stop_sig && !r->error)
		r->stopped_early = true;	/* stopped while setting up: nothing written */
	if (atag_cmd_undo(r->sess, r->ai, &r->tags_held))
		r->restore_failed = true;
	atag_cmd_session_close(r->sess);	/* says when reset must finish */
	r->sess = NULL;
	r->rec = NULL;
	if (r->log)
		fclose(r->log);
}

/* ------------------------------------------------------------------ summary */

static void print_tags_off(struct recording *r)
{
	char site[3 * ATAG_NAME_MAX + 32];
	struct atag_tag buf;
	size_t i;

	for (i = 0; i < r->tags_off.nr && i < MAX_SITES_SHOWN; i++) {
		atag_tag_site(named(r, &r->tags_off.tags[i], &buf), site, sizeof(site));
		fprintf(stderr, "%s record: turned off by someone else while recording: %s\n",
			ATAG_PROG, site);
	}
}

static void print_summary(struct recording *r, const struct atag_lost *lost, bool have_lost)
{
	size_t traced = r->n.turned_on + r->n.already_on;
	unsigned long long nr_lost = lost->overrun + lost->dropped;

	/* a failure before any tag was traced has its own message only */
	if (!r->p->kmem && !(r->error && !traced))
		fprintf(stderr, "%s record: %zu %s traced (%zu turned on here, %zu already on)\n",
			ATAG_PROG, traced, atag_plural(traced, "tag", "tags"), r->n.turned_on,
			r->n.already_on);
	if (r->tags_held)
		fprintf(stderr, "%s record: %zu %s left on: other running records hold %s\n",
			ATAG_PROG, r->tags_held, atag_plural(r->tags_held, "tag", "tags"),
			r->tags_held == 1 ? "it" : "them");
	print_tags_off(r);
	if (r->error || !r->committed || r->unreadable)
		return;
	if (r->lingered_ns)
		fprintf(stderr, "%s record: recorded %llu ms past the workload's end, for what the "
			"kernel frees after an RCU grace period (--linger, --no-linger)\n", ATAG_PROG,
			r->lingered_ns / 1000000);
	fprintf(stderr, "%s record: wrote %s", ATAG_PROG, r->p->output);
	if (have_lost && nr_lost)
		fprintf(stderr, ": %llu events, %llu LOST (%llu overwritten, %llu dropped); use a "
			"larger -b\n", lost->read, nr_lost, lost->overrun, lost->dropped);
	else if (have_lost && lost->unread)
		fprintf(stderr, ": %llu events; %llu LOST: trace-cmd record left them in the ring "
			"buffer\n", lost->read, lost->unread);
	else if (have_lost && r->nr_tags_off)
		fprintf(stderr, ": %llu events; INCOMPLETE: %zu %s turned off while recording\n",
			lost->read, r->nr_tags_off, atag_plural(r->nr_tags_off, "tag was",
								  "tags were"));
	else if (have_lost)
		fprintf(stderr, ": %llu events, none lost\n", lost->read);
	else
		fprintf(stderr, " (lost-event counters unreadable)\n");
	if (have_lost && nr_lost && lost->unread)
		fprintf(stderr, "%s record: %llu more LOST: trace-cmd record left them in the ring "
			"buffer\n", ATAG_PROG, lost->unread);
	if (have_lost && (nr_lost || lost->unread) && r->nr_tags_off)
		fprintf(stderr, "%s record: INCOMPLETE too: %zu %s turned off while recording\n",
			ATAG_PROG, r->nr_tags_off, atag_plural(r->nr_tags_off, "tag was",
							       "tags were"));
}

/* How COMMAND ended: a failure unless it exited 0 or a signal of ours ended it. */
static int command_status(struct recording *r)
{
	const char *cmd = r->p->command ? r->p->command[0] : "";
	int st = r->cmd.status, sig;
	char name[32];

	if (!r->cmd.reaped)
		return ATAG_EXIT_OK;
	/* killed by it, or a shell that reports it as 128 + N */
	sig = WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st) > 128 ? WEXITSTATUS(st) - 128 : 0;
	if (r->duration_over && ((sig > 0 && sig < 64 && (r->cmd.sent & (1UL << sig))) ||
				 (WIFEXITED(st) && !WEXITSTATUS(st)))) {
		fprintf(stderr, "%s record: the duration ended: %s got SIGTERM%s\n", ATAG_PROG,
			cmd, r->cmd.sent & (1UL << SIGKILL) ? ", then SIGKILL" : "");
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

/* How COMMAND ended after a stop signal, when it took escalating. */
static void print_escalation(const struct recording *r)
{
	const char *cmd = r->p->command ? r->p->command[0] : "";

	if (r->cmd.sent & (1UL << SIGKILL))
		fprintf(stderr, "%s record: %s did not end on the signal: it got SIGKILL\n",
			ATAG_PROG, cmd);
}

static int exit_status(struct recording *r)
{
	if (r->error) {
		fprintf(stderr, "%s: %s\n", ATAG_PROG, r->errmsg);
		return ATAG_EXIT_FAIL;
	}
	if (r->committed && r->unreadable) {
		fprintf(stderr, "%s: %s: written, but it does not read back: %s\n", ATAG_PROG,
			r->p->output, r->rb.why);
		return ATAG_EXIT_FAIL;
	}
	if (r->restore_failed)
		return ATAG_EXIT_FAIL;
	if (r->stopped_early) {
		fprintf(stderr, "%s: stopped by %s before trace-cmd recorded: no trace.dat written\n",
			ATAG_PROG, strsignal(atag_stop_sig));
		return ATAG_EXIT_FAIL;
	}
	/* the paths above say why no file was written: exit 0 always comes with one */
	if (!r->committed) {
		fprintf(stderr, "%s: no trace.dat written\n", ATAG_PROG);
		return ATAG_EXIT_FAIL;
	}
	if (atag_stop_sig) {
		print_escalation(r);
		fprintf(stderr, "%s record: stopped by %s\n", ATAG_PROG, strsignal(atag_stop_sig));
		return ATAG_EXIT_OK;
	}
	return command_status(r);
}

static int run_record(struct record_params *p)
{
	struct recording r = { .p = p };
	const char *events[24];
	struct atag_lost lost = { 0 };
	bool have_lost = false;
	int ret;

	preflight(&r, events);
	r.events = events;
	atag_stop_install();
	r.sess = atag_cmd_session(r.ai, "record");
	if (!create_output(&r) && !create_instance(&r) && !enable_tags(&r) && !atag_stop_sig &&
	    !start_recorder(&r, events))
		run_and_wait(&r);
	teardown(&r, &lost, &have_lost);
	print_summary(&r, &lost, have_lost);
	ret = exit_status(&r);
	atag_taglist_free(r.tags);
	atag_taglist_free(r.at_start);
	atag_taglist_free(r.whole);
	free(r.tags_off.tags);
	atag_allocinfo_close(r.ai);
	return ret;
}

void trace_alloc_tag_record(int argc, char **argv)
{
	struct record_params p = { .output = "trace.dat", .stack_every = STACK_EVERY,
				   .linger_ns = LINGER_NS };
	int ret;

	atag_tagopts_init(&p.tagopts);
	parse_record_options(&p, argc, argv);
	ret = run_record(&p);
	atag_tagopts_release(&p.tagopts);
	exit(ret);
}
