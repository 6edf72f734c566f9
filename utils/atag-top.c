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
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-live.h"
#include "atag-stop.h"
#include "atag-tagopts.h"
#include "atag-utils.h"
#include "atag-watch.h"

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

struct top_params {
	struct atag_watch_params	w;
	unsigned long long		interval_ns;
	unsigned long long		count;		/* 0: no limit */
	long				rows;
	bool				rows_given;
	const char			*sort;
	struct atag_output_opts		out;
	bool				json;		/* -f json */
};

struct top {
	struct top_params	*p;
	struct atag_watch	w;
	bool			tty;
	unsigned long long	screens;
};

enum { OPT_count = OPT_WATCH_END, OPT_json };

/* ------------------------------------------------------------------ options */

static void parse_top_options(struct top_params *p, int argc, char **argv)
{
	static const struct option long_options[] = {
		ATAG_WATCH_LONG,
		{ "interval", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, OPT_count },
		{ "rows", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, OPT_json },
		ATAG_OUTPUT_LONG,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char optstring[] = "+:hd:n:s:b:f:o:";
	unsigned long long v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, NULL)) != -1) {
		if (atag_watch_option(&p->w, c, optarg, top_usage) ||
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
		case OPT_json: p->out.format = "json"; break;
		case 'h': atag_usage_exit(top_usage);
		default:
			atag_option_error(top_usage, optstring, c, argv);
		}
	}
	if (optind + 1 < argc)
		p->w.command = argv + optind + 1;
	p->json = atag_output_is(&p->out, "json");
	atag_watch_check(&p->w, top_usage);
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
		.rows = screen_rows(t), .scope = t->w.scope, .sort = t->p->sort,
		.columns = atag_columns(),
	};
	struct atag_live_snapshot snap;
	size_t len = 0;
	char *buf = NULL;
	FILE *f;
	int ret;

	ret = atag_live_snapshot(t->w.lv, t->p->sort, &snap);
	f = ret ? NULL : open_memstream(&buf, &len);
	if (!f) {
		atag_live_snapshot_release(&snap);
		atag_watch_fail(&t->w, ENOMEM, "out of memory");
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
		atag_watch_fail(&t->w, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	t->screens++;
	if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
		/* the reader of a pipe left, a disk is full: said once, by us */
		ret = errno ? errno : EIO;
		__fpurge(stdout);
		clearerr(stdout);
		atag_watch_fail(&t->w, ret, "standard output: %s", strerror(ret));
		ret = -EIO;
	}
	free(buf);
	return ret;
}

/* Read as events come, show a screen every interval, until something ends it. */
static void watch(struct top *t)
{
	unsigned int i, nr = atag_live_nr_fds(t->w.lv);
	unsigned long long next = atag_now_ns() + t->p->interval_ns;
	struct pollfd *p = calloc(nr + 2, sizeof(*p));
	bool unwatched;
	int ms;

	if (!p) {
		atag_watch_fail(&t->w, ENOMEM, "out of memory");
		return;
	}
	p[0] = (struct pollfd){ .fd = atag_stop_fd(), .events = POLLIN };
	p[1] = (struct pollfd){ .fd = atag_watch_command_fd(&t->w, &unwatched), .events = POLLIN };
	for (i = 0; i < nr; i++)
		p[i + 2] = (struct pollfd){ .fd = atag_live_fd(t->w.lv, i), .events = POLLIN };
	for (;;) {
		atag_stop_drain();
		if (atag_stop_sig || atag_watch_command_done(&t->w) || t->w.error)
			break;
		if (atag_watch_read(&t->w, false))
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
			atag_watch_fail(&t->w, errno, "cannot wait: %s", strerror(errno));
	}
	if (p[1].fd >= 0)
		close(p[1].fd);
	free(p);
}

static int run_top(struct top_params *p)
{
	struct top t = { .p = p, .w = { .p = &p->w, .name = "top" } };
	struct atag_live_opts o = { 0 };
	bool restore_failed;

	atag_watch_preflight(&t.w);
	atag_watch_warn_profiling(&t.w, false);
	atag_output_redirect(&p->out);
	t.tty = isatty(STDOUT_FILENO);
	atag_stop_install();
	if (!atag_watch_set_up(&t.w, &o) && !atag_stop_sig) {
		if (atag_watch_start(&t.w))
			watch(&t);
		/* the last screen: everything up to the end */
		if (!t.w.error && !atag_live_stop(t.w.lv) && !atag_watch_read(&t.w, true))
			show(&t);
	}
	restore_failed = atag_watch_teardown(&t.w);
	atag_watch_warn_profiling(&t.w, true);
	/* the screens written are the output, whatever COMMAND's status */
	if (!t.w.error)
		atag_output_finish();
	return atag_watch_status(&t.w, restore_failed);
}

void trace_alloc_tag_top(int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", NULL };
	struct top_params p = { .interval_ns = 1000000000ULL, .out.formats = formats };
	int ret;

	atag_watch_init(&p.w);
	parse_top_options(&p, argc, argv);
	ret = run_top(&p);
	atag_watch_release(&p.w);
	exit(ret);
}
