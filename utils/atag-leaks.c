// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag leaks: a long-running leak hunt on tracefs alone. Every
 * interval, the live allocations older than --min-age, by call site and stack, with
 * the tasks that made them and whether report's rules explain them; on exit,
 * optionally, everything still live as report's JSON document (-o).
 *
 * This file is the command: options, signals, the intervals. The session (state
 * file, instance, held tags), the checks and COMMAND are top's (atag-watch.h); the
 * engine is the live view (include/atag-live.h): no trace.dat, memory that follows
 * the live allocations and distinct stacks.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-live.h"
#include "atag-stop.h"
#include "atag-utils.h"
#include "atag-watch.h"

static const char leaks_usage[] =
	"usage: trace-cmd-alloc-tag leaks [FILTERS | --all] [options] [-p PID | -- COMMAND...]\n"
	"       trace-cmd-alloc-tag leaks --kmem [options] [-p PID | -- COMMAND...]\n"
	"\n"
	"Hunt kernel memory leaks while the system runs: allocations and frees are read\n"
	"from a tracefs instance of leaks' own as they come (trace-cmd-alloc-tag-PID; no\n"
	"trace.dat), with sampled kernel stacks, and every interval the allocations still\n"
	"live and older than --min-age are shown by call site and stack: count, bytes,\n"
	"oldest age, the tasks that made them, example pointers, and how many are leak\n"
	"suspects by report's rules. Memory follows the live allocations and the distinct\n"
	"stacks, never the events. Lost events make allocations made before them uncertain\n"
	"(their free may be lost): said per interval and per call site. Ends on Ctrl-C,\n"
	"SIGTERM, --duration or COMMAND's end; everything is undone as record undoes it,\n"
	"and 'trace-cmd-alloc-tag reset' undoes a killed leaks.\n"
	"\n"
	"  -m, --min-age TIME  only allocations at least this old (default 5s)\n"
	"  -d, --interval TIME time between intervals (default 5s; 100ms at least)\n"
	"  -t, --duration TIME stop after this long\n"
	"  -n, --rows N        call sites an interval shows (default: text what fits the\n"
	"                      terminal, else 25; json all; 0 = all)\n"
	"  -f, --format FMT    text (default) or json (a JSON object a line per interval,\n"
	"                      an empty interval too)\n"
	"  -o, --output FILE   on exit, write every allocation still live, with its stack,\n"
	"                      as report -f json writes (live[], tags[], totals)\n"
	"      --stack-every N a kernel stack for 1 allocation in N (a power of two up to\n"
	"                      1024; default 16, as record; page allocations always)\n"
	"      --all-stacks    a stack for every allocation (--stack-every 1)\n"
	"      --no-stack      no kernel stacks\n"
	"  -b KB               per-CPU buffer size of the instance, in KiB (default 4096)\n"
	"      --all           trace every call site\n"
	"      --kmem          watch the slab and page events instead (kernels without\n"
	"                      per-tag tracing; no tag filters)\n"
	"      --no-pages      with --kmem: the slab events only\n"
	"  -p, --pid PID[,PID] count only these tasks (and the tasks they fork)\n"
	"      --comm GLOB     count only tasks whose comm matches (repeatable)\n"
	"      --all-tasks     with COMMAND: count every task, not COMMAND's alone\n"
	"  -h, --help          show this help\n"
	"\n"
	"With COMMAND, only the allocations of COMMAND and of the tasks it forks are\n"
	"counted (frees of them by anyone), and leaks ends when COMMAND exits. COMMAND\n"
	"runs from the first operand on, '--' or not: the words after it are its own.\n"
	"\n"
	ATAG_TAGOPTS_HELP;

#define DEFAULT_ROWS		25
#define DEFAULT_NS		(5 * 1000000000ULL)
#define MIN_INTERVAL_NS		(100 * 1000000ULL)
#define READ_EVERY_MS		250
#define DEFAULT_BUFFER_KB	4096
#define STACK_EVERY		16
#define STACK_EVERY_MAX		1024

struct leaks_params {
	struct atag_watch_params	w;
	unsigned long long		min_age_ns;
	unsigned long long		interval_ns;
	unsigned long long		duration_ns;	/* 0: none */
	long				rows;
	bool				rows_given;
	struct atag_output_opts		out;		/* -f; -o is save */
	const char			*save;		/* -o FILE */
	bool				json;
	unsigned int			stack_every;	/* 0: --no-stack */
	bool				no_pages;
};

struct leaks {
	struct leaks_params	*p;
	struct atag_watch	w;
	bool			tty;
	unsigned long long	intervals;
	unsigned long long	end_ns;		/* --duration's end, 0: none */
};

enum {
	OPT_stack_every = OPT_WATCH_END, OPT_all_stacks, OPT_no_stack, OPT_no_pages,
};

/* ------------------------------------------------------------------ options */

static void duration(const char *opt, const char *arg, unsigned long long *ns,
		     unsigned long long min)
{
	if (atag_parse_duration(arg, ns) || *ns < min)
		atag_usage_error(leaks_usage, "%s: '%s' is not a duration%s", opt, arg,
				 min ? " of 100ms or more" : "");
}

static void parse_leaks_options(struct leaks_params *p, int argc, char **argv)
{
	static const struct option long_options[] = {
		ATAG_WATCH_LONG,
		{ "min-age", required_argument, NULL, 'm' },
		{ "interval", required_argument, NULL, 'd' },
		{ "duration", required_argument, NULL, 't' },
		{ "rows", required_argument, NULL, 'n' },
		{ "stack-every", required_argument, NULL, OPT_stack_every },
		{ "all-stacks", no_argument, NULL, OPT_all_stacks },
		{ "no-stack", no_argument, NULL, OPT_no_stack },
		{ "no-pages", no_argument, NULL, OPT_no_pages },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char optstring[] = "+:hm:d:t:n:b:f:o:p:";
	bool every_given = false, no_stack = false;
	unsigned long long v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, NULL)) != -1) {
		if (c == 'p')
			c = OPT_WATCH_pid;
		if (c != 'o' && (atag_watch_option(&p->w, c, optarg, leaks_usage) ||
				 atag_output_parse(&p->out, c, optarg, leaks_usage)))
			continue;
		switch (c) {
		case 'm': duration("--min-age", optarg, &p->min_age_ns, 0); break;
		case 'd': duration("--interval", optarg, &p->interval_ns, MIN_INTERVAL_NS); break;
		case 't':
			duration("--duration", optarg, &p->duration_ns, 0);
			if (!p->duration_ns)
				atag_usage_error(leaks_usage, "--duration: '%s' is no time at all",
						 optarg);
			break;
		case 'n':
			if (atag_parse_u64(optarg, &v) || v > 1000000000)
				atag_usage_error(leaks_usage, "-n: '%s' is not a row count", optarg);
			p->rows = v;
			p->rows_given = true;
			break;
		case 'o': p->save = optarg; break;
		case OPT_stack_every:
			if (atag_parse_u64(optarg, &v) || !v || v > STACK_EVERY_MAX || (v & (v - 1)))
				atag_usage_error(leaks_usage, "--stack-every: '%s' is not a power of two from 1 to %d",
						 optarg, STACK_EVERY_MAX);
			p->stack_every = v;
			every_given = true;
			break;
		case OPT_all_stacks:
			p->stack_every = 1;
			every_given = true;
			break;
		case OPT_no_stack: no_stack = true; break;
		case OPT_no_pages: p->no_pages = true; break;
		case 'h': atag_usage_exit(leaks_usage);
		default:
			atag_option_error(leaks_usage, optstring, c, argv);
		}
	}
	if (optind + 1 < argc)
		p->w.command = argv + optind + 1;
	p->json = atag_output_is(&p->out, "json");
	atag_watch_check(&p->w, leaks_usage);
	if (no_stack && every_given)
		atag_usage_error(leaks_usage, "--no-stack and --stack-every or --all-stacks exclude each other");
	if (no_stack)
		p->stack_every = 0;
	if (p->no_pages && !p->w.kmem)
		atag_usage_error(leaks_usage, "--no-pages goes with --kmem");
	if (!p->w.buffer_kb)
		p->w.buffer_kb = DEFAULT_BUFFER_KB;
}

/* ------------------------------------------------------------------ intervals */

static long screen_lines(const struct leaks *l)
{
	struct winsize ws;

	if (l->tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 8)
		return ws.ws_row - 1;
	return 0;
}

static long screen_rows(const struct leaks *l)
{
	long lines = screen_lines(l);

	if (l->p->rows_given)
		return l->p->rows;
	if (l->p->json)
		return 0;
	/* half the screen for the call sites, the rest for their stacks */
	return lines ? (lines - 6) / 2 > 1 ? (lines - 6) / 2 : 1 : DEFAULT_ROWS;
}

/* One interval, written whole: one write, and its error is the real one. */
static int show(struct leaks *l)
{
	struct atag_leak_render_opts o = {
		.rows = screen_rows(l), .lines = screen_lines(l), .columns = atag_columns(),
		.scope = l->w.scope,
	};
	struct atag_leak_opts lo = { .min_age_ns = l->p->min_age_ns };
	struct atag_leak_snapshot snap;
	size_t len = 0;
	char *buf = NULL;
	FILE *f;
	int ret;

	ret = atag_live_leaks(l->w.lv, &lo, &snap);
	f = ret ? NULL : open_memstream(&buf, &len);
	if (!f) {
		if (!ret)
			atag_leak_snapshot_release(&snap);
		atag_watch_fail(&l->w, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	if (l->p->json) {
		ret = atag_leak_render_json(&snap, &o, f);
	} else {
		if (l->tty)
			fputs("\033[H\033[J", f);	/* home, clear the screen */
		else if (l->intervals)
			fputc('\n', f);
		ret = atag_leak_render_text(&snap, &o, f);
	}
	atag_leak_snapshot_release(&snap);
	if (fclose(f) || ret) {
		free(buf);
		atag_watch_fail(&l->w, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	l->intervals++;
	if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
		/* the reader of a pipe left, a disk is full: said once, by us */
		ret = errno ? errno : EIO;
		__fpurge(stdout);
		clearerr(stdout);
		atag_watch_fail(&l->w, ret, "standard output: %s", strerror(ret));
		ret = -EIO;
	}
	free(buf);
	return ret;
}

/* Read as events come, an interval every --interval, until something ends it. */
static void watch(struct leaks *l)
{
	unsigned int i, nr = atag_live_nr_fds(l->w.lv);
	unsigned long long next = atag_now_ns() + l->p->interval_ns;
	struct pollfd *p = calloc(nr + 2, sizeof(*p));
	bool unwatched;
	int ms;

	if (!p) {
		atag_watch_fail(&l->w, ENOMEM, "out of memory");
		return;
	}
	p[0] = (struct pollfd){ .fd = atag_stop_fd(), .events = POLLIN };
	p[1] = (struct pollfd){ .fd = atag_watch_command_fd(&l->w, &unwatched), .events = POLLIN };
	for (i = 0; i < nr; i++)
		p[i + 2] = (struct pollfd){ .fd = atag_live_fd(l->w.lv, i), .events = POLLIN };
	for (;;) {
		atag_stop_drain();
		if (atag_stop_sig || atag_watch_command_done(&l->w) || l->w.error)
			break;
		if (l->end_ns && atag_now_ns() >= l->end_ns) {
			l->w.done = true;
			break;
		}
		if (atag_watch_read(&l->w, false))
			break;
		if (atag_now_ns() >= next) {
			if (show(l))
				break;
			next += l->p->interval_ns;
			if (next < atag_now_ns())
				next = atag_now_ns() + l->p->interval_ns;
		}
		ms = atag_ms_until(next);
		if (l->end_ns && atag_ms_until(l->end_ns) < ms)
			ms = atag_ms_until(l->end_ns);
		if (ms > READ_EVERY_MS)
			ms = READ_EVERY_MS;
		if (unwatched && ms > ATAG_NO_PIDFD_MS)
			ms = ATAG_NO_PIDFD_MS;
		if (atag_poll(p, nr + 2, ms) < 0)
			atag_watch_fail(&l->w, errno, "cannot wait: %s", strerror(errno));
	}
	if (p[1].fd >= 0)
		close(p[1].fd);
	free(p);
}

/* -o FILE: everything still live, as report's JSON document. */
static void save(struct leaks *l)
{
	FILE *f = atag_output_fopen(l->p->save, 0600);
	int ret;

	if (!f) {
		atag_watch_fail(&l->w, errno, "%s: %s", l->p->save, strerror(errno));
		return;
	}
	ret = atag_live_save(l->w.lv, l->w.scope, f);
	if (ret)
		atag_watch_fail(&l->w, -ret, "%s: %s", l->p->save, strerror(-ret));
}

static int run_leaks(struct leaks_params *p)
{
	struct leaks l = { .p = p, .w = { .p = &p->w, .name = "leaks" } };
	struct atag_live_opts o = {
		.pages = p->w.kmem && !p->no_pages, .stack_every = p->stack_every, .names = true,
		.not_self = true,
	};
	bool restore_failed;

	atag_watch_preflight(&l.w);
	atag_watch_warn_profiling(&l.w, false);
	atag_output_redirect(&p->out);
	l.tty = isatty(STDOUT_FILENO);
	atag_stop_install();
	if (!atag_watch_set_up(&l.w, &o) && !atag_stop_sig) {
		if (atag_watch_start(&l.w)) {
			if (p->duration_ns)
				l.end_ns = atag_now_ns() + p->duration_ns;
			watch(&l);
		}
		/* the last interval: everything up to the end */
		if (!l.w.error && !atag_live_stop(l.w.lv) && !atag_watch_read(&l.w, true))
			show(&l);
		if (!l.w.error && p->save)
			save(&l);
	}
	restore_failed = atag_watch_teardown(&l.w);
	atag_watch_warn_profiling(&l.w, true);
	/* the intervals written are the output, whatever COMMAND's status */
	if (!l.w.error)
		atag_output_finish();
	return atag_watch_status(&l.w, restore_failed);
}

void trace_alloc_tag_leaks(int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", NULL };
	struct leaks_params p = {
		.min_age_ns = DEFAULT_NS, .interval_ns = DEFAULT_NS, .stack_every = STACK_EVERY,
		.out.formats = formats,
	};
	int ret;

	atag_watch_init(&p.w);
	parse_leaks_options(&p, argc, argv);
	ret = run_leaks(&p);
	atag_watch_release(&p.w);
	exit(ret);
}
