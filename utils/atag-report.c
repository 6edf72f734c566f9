// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag report: allocation lifetimes from trace.dat files, offline.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-render.h"
#include "atag-report.h"
#include "atag-source.h"
#include "atag-timeline.h"
#include "atag-utils.h"
#include "atag-viewopts.h"

#define DEFAULT_TEXT_ROWS	25
#define DEFAULT_TIMELINE_COLUMNS 5
#define DEFAULT_HTML_ROWS	1000

static const char usage[] =
"usage: trace-cmd-alloc-tag report [options] [-i FILE]... [FILE...]\n"
"\n"
"Stitch the allocation events of trace.dat files into allocation lifetimes, per\n"
"call site and per stack. Reads files offline; needs no root.\n"
"\n"
"input:\n"
"  -i, --input FILE      trace.dat to read (repeatable; default ./trace.dat)\n"
"  -B, --buffer NAME     instance buffer to read (default: the top buffer if it holds\n"
"                        the events, otherwise the first instance that does)\n"
"      --source SRC      only alloc_tag, kmem or page events (default: every source the\n"
"                        file has, each in a section of its own)\n"
"      --start TS        ignore events before TS (seconds as trace-cmd report prints\n"
"                        them, e.g. 1284.788182, or nanoseconds with 'ns')\n"
"      --end TS          ignore events after TS\n"
"      --raw-stacks      keep the tracing machinery's frames at the top of stacks\n"
"      --raw-lifetimes   keep the time stack captures took inside lifetimes (by default\n"
"                        it is taken out where the same task allocated and freed)\n"
"      --vmlinux PATH    kernel image with debug info: file:line for call sites and\n"
"                        frames (default: the distribution's debug-info vmlinux of the\n"
"                        trace's kernel release, when there); refused if not that kernel\n"
"      --module-dir DIR  where the modules' .ko files are (repeatable)\n"
"      --no-debuginfo    no debug information, even where the default paths have it\n"
"\n"
"tasks (a recording of trace-cmd-alloc-tag record tells its workload from its\n"
"recorder; the recorder's processes are never counted, and counted apart):\n"
"      --all-tasks       every task, not only the workload's process tree\n"
"      --pid PID[,PID]   count only allocations made by these tasks\n"
"      --comm GLOB       count only allocations by tasks whose comm matches (repeatable)\n"
"      --exclude-pid PID[,PID]  never count these tasks\n"
"      --exclude-comm GLOB      never count tasks whose comm matches (repeatable)\n"
"      --all-tags        also the call sites the recording did not select\n"
"\n"
"views (text):\n"
"  -s, --sort KEY        order of call sites: live_bytes (default), live, peak, bytes,\n"
"                        allocs, frees, unmatched, p50, p90, p99, max, site\n"
"  -n, --rows N          rows per list (text default 25; 0 = all; machine formats: all;\n"
"                        html: 1000)\n"
"      --stacks          each call site's distinct stacks, with their share\n"
"      --live            allocations still live at the end: the leak suspects, oldest\n"
"                        first, then those explained (see LEAK SUSPECTS in the manual)\n"
"      --min-age DUR     with --live: only those at least DUR old (e.g. 500ms, 2s)\n"
"      --hist            a log2 lifetime histogram per call site\n"
"      --timeline        live bytes per call site over time instead (text, json, csv;\n"
"                        call sites by their peak unless --sort; text shows 5 unless -n)\n"
"      --buckets N       time buckets of the timeline and the HTML page (default 100)\n"
"      --function GLOB   only call sites whose function matches\n"
"      --file GLOB       only call sites whose file matches\n"
"      --module GLOB     only call sites in matching modules\n"
"\n"
"output:\n"
"  -f, --format FMT      text (default), json, csv, folded, pprof, html (one\n"
"                        self-contained page: timeline, peak, flame graphs, tables),\n"
"                        or lifetimes (CSV) and lifetimes-json (JSON lines): a row per\n"
"                        allocation, written as it is stitched\n"
"      --stacks-out FILE lifetimes: the stacks their stack_id names, to FILE\n"
"      --weight W        folded and pprof default sample: alloc_space (default),\n"
"                        alloc_objects, inuse_space or inuse_objects\n"
"      --keep-offsets    folded and pprof frames as function+0xoff (default: functions)\n"
"  -o, --output FILE     write to FILE instead of stdout\n"
"      --no-progress     no progress bar (it is shown on a terminal for large files)\n"
"      --diff BEFORE.dat compare with that baseline instead (diff --help has the options)\n"
"  -h, --help            this help\n"
"\n"
"Lost events, truncated files and allocations /proc/allocinfo counted but the trace\n"
"does not show are reported and the data flagged incomplete. The text says per\n"
"file what the recording was and what its stack captures cost, and marks call\n"
"sites whose objects were reused while live (frees the kernel does not trace).\n"
"A FILE may also be a JSON document of report -f json or leaks -o: its call sites\n"
"and stacks (not --timeline, not -f lifetimes; its leak suspects are unknown).\n";

enum {
	OPT_start = OPT_VIEWOPTS_END, OPT_end, OPT_pid, OPT_live, OPT_min_age, OPT_hist,
	OPT_all_tasks, OPT_exclude_pid, OPT_exclude_comm, OPT_all_tags, OPT_raw_lifetimes,
	OPT_vmlinux, OPT_module_dir, OPT_no_debuginfo, OPT_keep_offsets, OPT_stacks_out,
	OPT_timeline, OPT_buckets,
};

struct report_params {
	const char			**inputs;
	int				nr_inputs;
	struct atag_report_opts		opts;
	struct atag_report_view		view;
	struct atag_render_opts		render;
	const char			*format;
	const char			*output;
	const char			*stacks_out;
	mode_t				mode;		/* of the outputs: the traces' */
	bool				rows_given;
	bool				no_progress;
	bool				timeline;
	unsigned int			buckets;
	int				*pids;
	struct atag_viewopts		vo;		/* the options shared with diff */
	int				*exclude_pids;
	const char			**exclude_comms;
	const char			**module_dirs;
	unsigned int			nr_module_dirs;
};

/* @arr with room for one more element after its @nr of @size bytes. */
static void *grow(void *arr, size_t nr, size_t size)
{
	arr = realloc(arr, (nr + 1) * size);
	if (!arr)
		die("out of memory");
	return arr;
}

static void add_input(struct report_params *p, const char *path)
{
	p->inputs = grow(p->inputs, p->nr_inputs, sizeof(*p->inputs));
	p->inputs[p->nr_inputs++] = path;
}

/* The pids of a comma-separated @list into *@pids of *@nr. */
static void add_pids(const char *opt, int **pids, unsigned int *nr, const char *list)
{
	unsigned long long v;
	char *copy = strdup(list), *tok, *save = NULL;

	if (!copy)
		die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (atag_parse_u64(tok, &v) || v > 0x7fffffff)
			atag_usage_error(usage, "%s: '%s' is not a pid", opt, tok);
		*pids = grow(*pids, *nr, sizeof(**pids));
		(*pids)[(*nr)++] = v;
	}
	free(copy);
}

static void add_comm(const char ***comms, unsigned int *nr, const char *glob)
{
	*comms = grow(*comms, *nr, sizeof(**comms));
	(*comms)[(*nr)++] = glob;
}

static uint64_t parse_ts(const char *opt, const char *arg)
{
	unsigned long long ns;

	if (atag_parse_timestamp(arg, &ns))
		atag_usage_error(usage, "%s: '%s' is not a timestamp (seconds like 1284.788182, "
				 "or nanoseconds like 1284788182000ns)", opt, arg);
	return ns;
}

/* Options a format has no use for: refused, or said to do nothing (man page). */
static void check_formats(const struct report_params *p)
{
	const struct atag_output_opts o = { .format = p->format };
	const char *tables = "text, json, csv, folded, pprof or html";

	atag_output_only(&o, usage, p->render.weight, "--weight", "folded or pprof");
	atag_output_only(&o, usage, p->render.keep_offsets, "--keep-offsets", "folded or pprof");
	atag_output_only(&o, usage, p->render.hist, "--hist", "text or html");
	atag_output_only(&o, usage, p->render.stacks, "--stacks", "text, json, folded, pprof or html");
	atag_output_only(&o, usage, p->render.live, "--live", "text, json, csv or html");
	/* json and html always have the stacks, the live list (html: the histograms) */
	atag_output_redundant(&o, p->render.stacks, "--stacks", "text");
	atag_output_redundant(&o, p->render.live && !p->view.min_age, "--live", "text or csv");
	atag_output_redundant(&o, p->render.hist, "--hist", "text");
	/* lifetimes: a row per allocation, in no order, all of them */
	atag_output_redundant(&o, p->rows_given, "-n", tables);
	atag_output_redundant(&o, p->view.sort && !p->timeline, "--sort", tables);
	if (p->timeline && (p->render.stacks || p->render.live || p->render.hist))
		atag_usage_error(usage, "--timeline replaces the views: no --stacks, --live or --hist");
}

static void parse_args(int argc, char **argv, struct report_params *p)
{
	static const struct option long_options[] = {
		ATAG_VIEWOPTS_LONG,
		{ "input", required_argument, NULL, 'i' },
		{ "start", required_argument, NULL, OPT_start },
		{ "end", required_argument, NULL, OPT_end },
		{ "pid", required_argument, NULL, OPT_pid },
		{ "all-tasks", no_argument, NULL, OPT_all_tasks },
		{ "exclude-pid", required_argument, NULL, OPT_exclude_pid },
		{ "exclude-comm", required_argument, NULL, OPT_exclude_comm },
		{ "all-tags", no_argument, NULL, OPT_all_tags },
		{ "raw-lifetimes", no_argument, NULL, OPT_raw_lifetimes },
		{ "vmlinux", required_argument, NULL, OPT_vmlinux },
		{ "module-dir", required_argument, NULL, OPT_module_dir },
		{ "no-debuginfo", no_argument, NULL, OPT_no_debuginfo },
		{ "keep-offsets", no_argument, NULL, OPT_keep_offsets },
		{ "live", no_argument, NULL, OPT_live },
		{ "min-age", required_argument, NULL, OPT_min_age },
		{ "hist", no_argument, NULL, OPT_hist },
		{ "timeline", no_argument, NULL, OPT_timeline },
		{ "buckets", required_argument, NULL, OPT_buckets },
		{ "stacks-out", required_argument, NULL, OPT_stacks_out },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const formats[] = { "text", "json", "csv", "folded", "pprof", "html",
		"lifetimes", "lifetimes-json", NULL };
	unsigned long long v;
	static const char optstring[] = ":i:" ATAG_VIEWOPTS_SHORT "h";
	int c;

	p->vo = (struct atag_viewopts){ .opts = &p->opts, .view = &p->view,
		.render = &p->render, .sort = &p->view.sort, .formats = formats,
		.format = "text" };
	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options,
				NULL)) != -1) {
		if (atag_viewopts_parse(&p->vo, c, optarg, usage))
			continue;
		switch (c) {
		case 'i': add_input(p, optarg); break;
		case OPT_start:
			p->opts.read.has_start = true;
			p->opts.read.start = parse_ts("--start", optarg);
			break;
		case OPT_end:
			p->opts.read.has_end = true;
			p->opts.read.end = parse_ts("--end", optarg);
			break;
		case OPT_pid:
			add_pids("--pid", &p->pids, &p->opts.read.nr_pids, optarg);
			p->opts.read.pids = p->pids;
			break;
		case OPT_exclude_pid:
			add_pids("--exclude-pid", &p->exclude_pids, &p->opts.read.nr_exclude_pids,
				 optarg);
			p->opts.read.exclude_pids = p->exclude_pids;
			break;
		case OPT_exclude_comm:
			add_comm(&p->exclude_comms, &p->opts.read.nr_exclude_comms, optarg);
			p->opts.read.exclude_comms = p->exclude_comms;
			break;
		case OPT_all_tasks: p->opts.read.all_tasks = true; break;
		case OPT_all_tags: p->opts.all_tags = true; break;
		case OPT_raw_lifetimes: p->opts.raw_lifetimes = true; break;
		case OPT_vmlinux: p->opts.vmlinux = optarg; break;
		case OPT_module_dir:
			p->module_dirs = grow(p->module_dirs, p->nr_module_dirs + 1,
					      sizeof(*p->module_dirs));
			p->module_dirs[p->nr_module_dirs++] = optarg;
			p->module_dirs[p->nr_module_dirs] = NULL;
			p->opts.module_dirs = p->module_dirs;
			break;
		case OPT_no_debuginfo: p->opts.no_debuginfo = true; break;
		case OPT_keep_offsets: p->render.keep_offsets = true; break;
		case OPT_live: p->render.live = true; break;
		case OPT_min_age:
			if (atag_parse_duration(optarg, &v))
				atag_usage_error(usage, "--min-age: '%s' is not a duration", optarg);
			p->view.min_age = v;
			break;
		case OPT_hist: p->render.hist = true; break;
		case OPT_timeline: p->timeline = true; break;
		case OPT_buckets:
			if (atag_parse_u64(optarg, &v) || v < 2 || v > 100000)
				atag_usage_error(usage, "--buckets: '%s' is not a number from 2 "
						 "to 100000", optarg);
			p->buckets = v;
			break;
		case OPT_stacks_out: p->stacks_out = optarg; break;
		case 'h': atag_usage_exit(usage);
		default:
			atag_option_error(usage, optstring, c, argv);
		}
	}
	for (c = optind + 1; c < argc; c++)
		add_input(p, argv[c]);
	p->format = p->vo.format;
	p->output = p->vo.output;
	p->rows_given = p->vo.rows_given;
	p->no_progress = p->vo.no_progress;
	if (!p->nr_inputs)
		add_input(p, "trace.dat");
	p->mode = atag_output_mode_of(p->inputs, p->nr_inputs);
	if (p->opts.read.has_start && p->opts.read.has_end && p->opts.read.end < p->opts.read.start)
		atag_usage_error(usage, "--end is before --start");
	if (p->view.min_age && !p->render.live)
		atag_usage_error(usage, "--min-age goes with --live");
	if (p->opts.read.all_tasks && (p->opts.read.nr_pids || p->opts.read.nr_comms))
		atag_usage_error(usage, "--all-tasks and --pid/--comm exclude each other");
	if (p->stacks_out && strncmp(p->format, "lifetimes", 9))
		atag_usage_error(usage, "--stacks-out goes with -f lifetimes or lifetimes-json");
	if (p->timeline && strcmp(p->format, "text") && strcmp(p->format, "json") &&
	    strcmp(p->format, "csv"))
		atag_usage_error(usage, "--timeline goes with --format text, json or csv");
	if (p->buckets && !p->timeline && strcmp(p->format, "html"))
		atag_usage_error(usage, "--buckets goes with --timeline or --format html");
	if (p->opts.no_debuginfo && (p->opts.vmlinux || p->opts.module_dirs))
		atag_usage_error(usage,
				 "--no-debuginfo and --vmlinux/--module-dir exclude each other");
	check_formats(p);
}

static int term_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 100;
}

/* Standard output, made -o FILE (see atag_output_redirect()), of the traces' mode. */
static FILE *open_output(const struct report_params *p)
{
	struct atag_output_opts o = { .path = p->output, .mode = p->mode };
	static char buf[64 << 10];

	if (!p->output && !strcmp(p->format, "pprof") && isatty(STDOUT_FILENO))
		die("pprof output is binary: use -o FILE or redirect stdout");
	atag_output_redirect(&o);
	/*
	 * Megabytes of JSON or rows: in 64 KiB writes, not stdio's 4 KiB (nothing went
	 * out on stdout yet). glibc sizes the buffer only when it is given one.
	 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	return stdout;
}

static int render(const struct atag_report *r, const struct report_params *p, FILE *f)
{
	if (p->timeline && !strcmp(p->format, "json"))
		return atag_render_timeline_json(r, &p->render, f);
	if (p->timeline && !strcmp(p->format, "csv"))
		return atag_render_timeline_csv(r, &p->render, f);
	if (p->timeline)
		return atag_render_timeline_text(r, &p->render, f);
	if (!strcmp(p->format, "html"))
		return atag_render_html(r, &p->render, f);
	if (!strcmp(p->format, "json"))
		return atag_render_json(r, &p->render, f);
	if (!strcmp(p->format, "csv"))
		return atag_render_csv(r, &p->render, f);
	if (!strcmp(p->format, "folded"))
		return atag_render_folded(r, &p->render, f);
	if (!strcmp(p->format, "pprof"))
		return atag_render_pprof(r, &p->render, f);
	return atag_render_text(r, &p->render, f);
}

/* -f lifetimes: the rows go out while the files are read. */
static void stream_rows(struct atag_report *r, const struct report_params *p,
			struct atag_lifetimes_out *lo)
{
	struct atag_report_rows sink;

	lo->json = !strcmp(p->format, "lifetimes-json");
	lo->rows = open_output(p);
	if (p->stacks_out)
		lo->stacks = atag_output_fopen(p->stacks_out, p->mode);
	if (atag_render_lifetimes_begin(lo, &sink))
		die("%s: %s", p->output ? p->output : "standard output", strerror(errno));
	if (atag_report_stream_rows(r, &sink, &p->view))
		die("out of memory");
}

static void end_rows(const struct report_params *p, struct atag_lifetimes_out *lo)
{
	if (atag_render_lifetimes_end(lo) || fflush(lo->rows))
		die("%s: %s", p->output ? p->output : "standard output",
		    errno ? strerror(errno) : "write error");
	/* the stacks file is flushed and closed by the commit */
	atag_output_finish();
}

static int run_report(struct report_params *p)
{
	struct atag_lifetimes_out lo = { 0 };
	bool shown = false;
	struct atag_report *r;
	char err[512];
	int i, ret = ATAG_EXIT_OK;
	FILE *out;

	if (!p->no_progress && isatty(STDERR_FILENO)) {
		p->opts.read.progress = atag_progress_bar;
		p->opts.read.progress_ctx = &shown;
	}
	/* a document keeps call sites and stacks, not the allocations one by one */
	for (i = 0; i < p->nr_inputs; i++)
		if ((p->timeline || !strncmp(p->format, "lifetimes", 9)) &&
		    atag_report_is_document(p->inputs[i]))
			die("%s: a JSON document keeps no allocations one by one: %s reads trace.dat "
			    "files only", p->inputs[i], p->timeline ? "--timeline" : "-f lifetimes");
	atag_expect_inputs(p->inputs, p->nr_inputs);
	r = atag_report_alloc(&p->opts);
	if (!r)
		die("out of memory");
	if (!strncmp(p->format, "lifetimes", 9))
		stream_rows(r, p, &lo);
	for (i = 0; i < p->nr_inputs; i++) {
		/* report -f json's and leaks -o's documents: their call sites and stacks */
		if (atag_report_is_document(p->inputs[i]) ?
		    atag_report_add_document(r, p->inputs[i], err, sizeof(err)) :
		    atag_report_add_file(r, p->inputs[i], err, sizeof(err))) {
			if (shown)
				fputc('\n', stderr);
			atag_warn_text(p->inputs[i], err);
			ret = ATAG_EXIT_FAIL;
			goto out;
		}
		if (shown) {
			fprintf(stderr, "\r%*s\r", 60 + (int)strlen(p->inputs[i]), "");
			shown = false;
		}
	}
	for (i = 0; i < (int)r->nr_notices; i++)
		atag_warn_text("warning", r->notices[i]);
	if (atag_report_finish(r, &p->view))
		die("cannot apply the view");
	if (lo.rows) {
		end_rows(p, &lo);
		goto out;
	}
	out = open_output(p);
	p->render.columns = atag_columns();
	if (render(r, p, out))
		die("%s: %s", atag_output_name(), errno ? strerror(errno) : "write error");
	atag_output_finish();
out:
	atag_report_keep(r);
	return ret;
}

void trace_alloc_tag_report(int argc, char **argv)
{
	struct report_params p = {
		.format = "text",
		.render = { .summary = true, .sites = true },
	};
	int ret;

	/* report --diff BEFORE.dat: the diff command's (utils/atag-diff.c) */
	if (atag_diff_asked(argc, argv))
		trace_alloc_tag_diff(argc, argv);
	parse_args(argc, argv, &p);
	p.render.width = term_width();
	if (p.timeline || !strcmp(p.format, "html")) {
		p.opts.timeline = p.buckets ? p.buckets : ATAG_TIMELINE_BUCKETS;
		if (!p.view.sort)
			p.view.sort = "peak";
	}
	if (!strcmp(p.format, "html") && !p.rows_given)
		p.render.limit = DEFAULT_HTML_ROWS;
	if (!strcmp(p.format, "text") && !p.rows_given)
		p.render.limit = p.timeline ? DEFAULT_TIMELINE_COLUMNS : DEFAULT_TEXT_ROWS;
	if (p.render.live && !p.render.stacks && !p.render.hist && !strcmp(p.format, "text"))
		p.render.sites = true;
	ret = run_report(&p);
	free(p.inputs);
	free(p.pids);
	atag_viewopts_release(&p.vo);
	free(p.exclude_pids);
	free(p.exclude_comms);
	free(p.module_dirs);
	exit(ret);
}
