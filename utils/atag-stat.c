// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag stat: what tracing's own ring buffers cost, per instance,
 * snapshot, persistent buffer and trace remote, with the totals computed from the
 * per-buffer files beside the kernel's trace_stats/memory_usage_kb.
 *
 * This file is the command: its options and the --watch loop. libatag reads tracefs
 * (lib/bufstat/atag-bufstat-read.c), computes (lib/bufstat/atag-bufstat.c) and renders the report
 * (lib/bufstat/atag-bufstat-text.c, lib/bufstat/atag-bufstat-json.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atag-bufstat.h"
#include "atag-cmd.h"
#include "atag-utils.h"

#define MOUNT_HINT	"mount -t tracefs nodev /sys/kernel/tracing"

static const char stat_usage[] =
	"usage: " ATAG_PROG " stat [options]\n"
	"\n"
	"What tracing's own ring buffers cost: per instance (the top buffer and each\n"
	"instances/*), its snapshot, persistent (boot-mapped) buffers and trace remotes, with\n"
	"totals computed from the per-buffer files beside the kernel's\n"
	"trace_stats/memory_usage_kb when the kernel has it. Reads tracefs; writes nothing.\n"
	"\n"
	"options:\n"
	"  -B NAME            only the instance NAME (may be repeated); no remotes, no totals\n"
	"  -t                 with -B: the top buffer too\n"
	"  -f, --format FMT   text (default; human-readable sizes) or json (exact KiB)\n"
	"  -o, --output FILE  write to FILE (an existing FILE is kept as FILE.old)\n"
	"  --watch SECONDS    refresh every SECONDS (fractions and ms allowed) until Ctrl-C;\n"
	"                     in place on a terminal\n"
	"  --count N          with --watch: stop after N reports\n"
	"  --tracefs DIR      read the tracefs tree at DIR (default: $ATAG_TRACEFS, else the\n"
	"                     tracefs mount in /proc/mounts)\n"
	"  --cmdline FILE     the kernel command line, which names a backup instance\n"
	"                     (trace_instance=NAME=ORIGIN; default /proc/cmdline)\n"
	"  -h, --help         this help\n";

enum {
	OPT_watch = 256,
	OPT_count,
	OPT_tracefs,
	OPT_cmdline,
};

struct stat_params {
	const char		**names;
	size_t			nr_names;
	bool			top;
	struct atag_output_opts	out;
	unsigned long long	watch_ns;	/* 0: once */
	unsigned long long	count;		/* 0: until interrupted */
	const char		*tracefs;
	const char		*cmdline;
};

static volatile sig_atomic_t stop;

static void __attribute__((noreturn)) read_failed(const struct atag_bufstat_error *e)
{
	if (e->err == EACCES || e->err == EPERM)
		die("cannot read %s: %s; reading tracefs needs root", e->path, strerror(e->err));
	if (e->line)
		die("%s:%d: %s", e->path, e->line, e->msg);
	die("%s: %s", e->path, e->msg);
}

static const char *tracefs_root(const struct stat_params *p, char *buf, size_t len)
{
	const char *env = getenv("ATAG_TRACEFS");
	int ret;

	if (p->tracefs)
		return p->tracefs;
	if (env && *env)
		return env;
	ret = atag_tracefs_find(NULL, buf, len);
	if (ret == -ENODEV)
		die("tracefs is not mounted; mount it with: %s", MOUNT_HINT);
	if (ret)
		die("cannot read /proc/mounts: %s", strerror(-ret));
	return buf;
}

/* One report into a memory buffer, so that a refresh replaces the screen at once. */
static char *report(const struct stat_params *p, const char *root, size_t *len)
{
	struct atag_bufstat_opts opts = {
		.names = p->names, .nr_names = p->nr_names, .top = p->top,
		.cmdline = p->cmdline,
	};
	struct atag_bufstat_error err;
	struct atag_bufstat *bs;
	char *buf = NULL;
	FILE *f;
	int ret;

	bs = atag_bufstat_read(root, &opts, &err);
	if (!bs)
		read_failed(&err);
	f = open_memstream(&buf, len);
	if (!f)
		die("out of memory");
	if (atag_output_is(&p->out, "json"))
		ret = atag_bufstat_render_json(bs, f);
	else
		ret = atag_bufstat_render_text(bs, f);
	if (fclose(f) || ret)
		die("out of memory");
	atag_bufstat_free(bs);
	return buf;
}

static void on_signal(int sig)
{
	stop = 1;
}

static void nap(unsigned long long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };

	while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void run(const struct stat_params *p)
{
	bool tty = p->watch_ns && !p->out.path && isatty(STDOUT_FILENO);
	char rootbuf[PATH_MAX], *out;
	unsigned long long i;
	const char *root;
	size_t len;

	root = tracefs_root(p, rootbuf, sizeof(rootbuf));
	if (p->watch_ns) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
	}
	for (i = 0; !stop && (!p->count || i < p->count); i++) {
		if (i)
			nap(p->watch_ns);
		if (stop)
			break;
		out = report(p, root, &len);
		if (!i)
			atag_output_redirect(&p->out);
		if (tty)
			fputs("\033[H\033[2J", stdout);
		else if (i)
			fputc('\n', stdout);
		fwrite(out, 1, len, stdout);
		fflush(stdout);
		free(out);
		if (!p->watch_ns)
			break;
	}
	atag_output_finish();
}

static void parse_args(int argc, char **argv, struct stat_params *p)
{
	static const struct option long_options[] = {
		ATAG_OUTPUT_LONG,
		{ "watch", required_argument, NULL, OPT_watch },
		{ "count", required_argument, NULL, OPT_count },
		{ "tracefs", required_argument, NULL, OPT_tracefs },
		{ "cmdline", required_argument, NULL, OPT_cmdline },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char **names;
	static const char optstring[] = ":hB:tf:o:";
	int c;

	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, NULL)) != -1) {
		if (atag_output_parse(&p->out, c, optarg, stat_usage))
			continue;
		switch (c) {
		case 'B':
			names = realloc(p->names, sizeof(*names) * (p->nr_names + 1));
			if (!names)
				die("out of memory");
			names[p->nr_names++] = optarg;
			p->names = names;
			break;
		case 't':
			p->top = true;
			break;
		case OPT_watch:
			if (atag_parse_duration(optarg, &p->watch_ns) || !p->watch_ns)
				atag_usage_error(stat_usage, "--watch: '%s' is not a positive "
						 "number of seconds", optarg);
			break;
		case OPT_count:
			if (atag_parse_u64(optarg, &p->count) || !p->count)
				atag_usage_error(stat_usage,
						 "--count: '%s' is not a positive number", optarg);
			break;
		case OPT_tracefs:
			p->tracefs = optarg;
			break;
		case OPT_cmdline:
			p->cmdline = optarg;
			break;
		case 'h':
			atag_usage_exit(stat_usage);
		default:
			atag_option_error(stat_usage, optstring, c, argv);
		}
	}
	if (optind + 1 < argc)
		atag_usage_error(stat_usage, "unexpected argument '%s'", argv[optind + 1]);
	if (p->top && !p->names)
		atag_usage_error(stat_usage, "-t goes with -B (without -B every buffer is shown)");
	if (p->count && !p->watch_ns)
		atag_usage_error(stat_usage, "--count goes with --watch");
}

void trace_alloc_tag_stat(int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", NULL };
	struct stat_params p = { .out.formats = formats, .cmdline = "/proc/cmdline" };

	parse_args(argc, argv, &p);
	run(&p);
	free(p.names);
}
