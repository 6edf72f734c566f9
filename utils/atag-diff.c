// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag diff (and report --diff): what changed between two
 * recordings, per call site and per stack. Offline, like report.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-report-diff.h"
#include "atag-render-diff.h"
#include "atag-report.h"
#include "atag-source.h"
#include "atag-utils.h"
#include "atag-viewopts.h"

#define DEFAULT_TEXT_ROWS	25

static const char usage[] =
"usage: trace-cmd-alloc-tag diff [options] BEFORE.dat AFTER.dat\n"
"       trace-cmd-alloc-tag report --diff BEFORE.dat [options] [-i] AFTER.dat...\n"
"\n"
"Compare two recordings: per call site, and per stack, the change in allocations,\n"
"bytes, live at the end, peak live and lifetime percentiles, largest change first,\n"
"with the call sites that appeared or disappeared. Call sites are matched by\n"
"function, file, line and module (alloc_tag), or by function and module without\n"
"the offset (kmem, page), stacks by their functions: never by address, so two\n"
"boots or two kernels compare. Reads files offline; needs no root. Either side\n"
"may be a JSON document that report -f json or leaks -o wrote.\n"
"\n"
"input (both sides alike):\n"
"  -B, --buffer NAME     instance buffer to read (default: as report chooses)\n"
"      --source SRC      only alloc_tag, kmem or page events (default: every source\n"
"                        the files have, compared source by source)\n"
"      --comm GLOB       count only allocations by tasks whose comm matches (repeatable)\n"
"      --raw-stacks      keep the tracing machinery's frames at the top of stacks\n"
"\n"
"what to compare:\n"
"  -s, --sort KEY        the largest change of: live_bytes (default), live, peak, bytes,\n"
"                        allocs, frees, unmatched, p50, p90, p99, max; or site (by name)\n"
"  -n, --rows N          call sites shown (text default 25; 0 = all; machine formats: all)\n"
"      --all             also the call sites and stacks that did not change\n"
"      --stacks          text: each call site's changed stacks\n"
"      --function GLOB   only call sites whose function matches\n"
"      --file GLOB       only call sites whose file matches\n"
"      --module GLOB     only call sites in matching modules\n"
"      --per N[:M]       per workload operation: BEFORE did N, AFTER did M (default N)\n"
"      --per-second      per second of each side's recording\n"
"\n"
"output:\n"
"  -f, --format FMT      text (default), json, csv or folded (FlameGraph's two-column\n"
"                        differential input)\n"
"      --weight W        folded: alloc_space (default), alloc_objects, inuse_space or\n"
"                        inuse_objects\n"
"  -o, --output FILE     write to FILE instead of stdout\n"
"      --no-progress     no progress bar (it is shown on a terminal for large files)\n"
"  -h, --help            this help\n"
"\n"
"A diff of a recording with itself shows no change. Lost events and truncated files\n"
"are reported, and the diff flagged incomplete.\n";

enum {
	OPT_all = OPT_VIEWOPTS_END, OPT_per, OPT_per_second, OPT_diff, OPT_not_here,
};

struct diff_params {
	const char			**inputs[2];	/* BEFORE, AFTER */
	int				nr_inputs[2];
	struct atag_report_opts		opts;
	struct atag_report_view		view;
	struct atag_diff_opts		diff;
	struct atag_render_opts		render;
	const char			*format;
	const char			*output;
	bool				rows_given;
	bool				no_progress;
	bool				per_second;
	struct atag_viewopts		vo;		/* the options shared with report */
};

static void add_input(struct diff_params *p, int side, const char *path)
{
	const char **a = realloc(p->inputs[side], (p->nr_inputs[side] + 1) * sizeof(*a));

	if (!a)
		die("out of memory");
	a[p->nr_inputs[side]++] = path;
	p->inputs[side] = a;
}

/* --per N or N:M: counts of workload operations, above 0. */
static void parse_per(struct diff_params *p, const char *arg)
{
	char *end;
	double v[2];
	int i;

	errno = 0;
	v[0] = strtod(arg, &end);
	v[1] = v[0];
	if (!errno && *end == ':')
		v[1] = strtod(end + 1, &end);
	for (i = 0; i < 2; i++)
		if (errno || *end || end == arg || !(v[i] > 0) || !isfinite(v[i]))
			atag_usage_error(usage, "--per: '%s' is not a count of operations (N, or "
					 "N:M for before and after)", arg);
	p->diff.norm = ATAG_DIFF_NORM_OPERATIONS;
	p->diff.ops[0] = v[0];
	p->diff.ops[1] = v[1];
}

static void parse_args(int argc, char **argv, struct diff_params *p)
{
	static const struct option long_options[] = {
		ATAG_VIEWOPTS_LONG,
		{ "input", required_argument, NULL, 'i' },
		{ "diff", required_argument, NULL, OPT_diff },
		{ "all", no_argument, NULL, OPT_all },
		{ "per", required_argument, NULL, OPT_per },
		{ "per-second", no_argument, NULL, OPT_per_second },
		{ "help", no_argument, NULL, 'h' },
		/* report's options that a diff has no use for: said so, by name */
		{ "start", required_argument, NULL, OPT_not_here },
		{ "end", required_argument, NULL, OPT_not_here },
		{ "pid", required_argument, NULL, OPT_not_here },
		{ "live", no_argument, NULL, OPT_not_here },
		{ "min-age", required_argument, NULL, OPT_not_here },
		{ "hist", no_argument, NULL, OPT_not_here },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const formats[] = { "text", "json", "csv", "folded", "pprof", NULL };
	/* options may follow the files, as with diff(1) */
	static const char optstring[] = ":i:" ATAG_VIEWOPTS_SHORT "h";
	bool report = !strcmp(argv[1], "report");
	struct atag_output_opts fo = { 0 };
	int c, idx = -1;

	p->vo = (struct atag_viewopts){ .opts = &p->opts, .view = &p->view,
		.render = &p->render, .sort = &p->diff.sort, .formats = formats,
		.format = "text" };
	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, &idx)) != -1) {
		if (atag_viewopts_parse(&p->vo, c, optarg, usage))
			continue;
		switch (c) {
		case 'i':
			if (!report)
				atag_usage_error(usage, "-i: give BEFORE.dat and AFTER.dat as arguments");
			add_input(p, 1, optarg);
			break;
		case OPT_diff:
			if (!report)
				atag_usage_error(usage, "--diff belongs to report: here give BEFORE.dat and AFTER.dat");
			if (p->nr_inputs[0])
				atag_usage_error(usage, "--diff: one baseline only");
			add_input(p, 0, optarg);
			break;
		case OPT_all: p->diff.unchanged = true; break;
		case OPT_per:
			parse_per(p, optarg);
			break;
		case OPT_per_second:
			p->per_second = true;
			break;
		case 'h': atag_usage_exit(usage);
		case OPT_not_here:
			atag_usage_error(usage, "--%s does not apply to a diff",
					 long_options[idx].name);
		default:
			atag_option_error(usage, optstring, c, argv);
		}
	}
	for (c = optind + 1; c < argc; c++) {
		if (report)
			add_input(p, 1, argv[c]);
		else if (p->nr_inputs[0] < 1)
			add_input(p, 0, argv[c]);
		else if (p->nr_inputs[1] < 1)
			add_input(p, 1, argv[c]);
		else
			atag_usage_error(usage, "'%s': give two files, BEFORE.dat and AFTER.dat",
					 argv[c]);
	}
	p->format = fo.format = p->vo.format;
	p->output = p->vo.output;
	p->rows_given = p->vo.rows_given;
	p->no_progress = p->vo.no_progress;
	if (p->per_second && p->diff.norm == ATAG_DIFF_NORM_OPERATIONS)
		atag_usage_error(usage, "--per and --per-second exclude each other");
	if (p->per_second)
		p->diff.norm = ATAG_DIFF_NORM_DURATION;
	if (report && !p->nr_inputs[1])
		add_input(p, 1, "trace.dat");
	if (!p->nr_inputs[0] || !p->nr_inputs[1])
		atag_usage_error(usage, "give two files, BEFORE.dat and AFTER.dat");
	if (!strcmp(p->format, "pprof"))
		atag_usage_error(usage, "--format pprof: pprof compares profiles itself: write each side with 'report --format pprof -o FILE' and run 'pprof -diff_base BEFORE.pb.gz AFTER.pb.gz'");
	/* options a format has no use for (man page, OUTPUT) */
	atag_output_only(&fo, usage, p->render.weight, "--weight", "folded");
	atag_output_only(&fo, usage, p->render.stacks, "--stacks", "text, json or folded");
	atag_output_redundant(&fo, p->render.stacks, "--stacks", "text");
	atag_output_redundant(&fo, p->diff.unchanged, "--all", "text, json or csv");
}

/* The report of one side; NULL (said why) when a file cannot be read. */
static struct atag_report *read_side(struct diff_params *p, int side)
{
	static const char * const names[] = { "before", "after" };
	struct atag_report *r;
	bool shown = false;
	char err[512], what[32];
	unsigned int k;
	int i;

	if (!p->no_progress && isatty(STDERR_FILENO)) {
		p->opts.read.progress = atag_progress_bar;
		p->opts.read.progress_ctx = &shown;
	}
	atag_expect_inputs(p->inputs[side], p->nr_inputs[side]);
	r = atag_report_alloc(&p->opts);
	if (!r)
		die("out of memory");
	for (i = 0; i < p->nr_inputs[side]; i++) {
		/* a document report -f json or leaks -o wrote, or a trace.dat */
		if (atag_report_is_document(p->inputs[side][i]) ?
		    atag_report_add_document(r, p->inputs[side][i], err, sizeof(err)) :
		    atag_report_add_file(r, p->inputs[side][i], err, sizeof(err))) {
			if (shown)
				fputc('\n', stderr);
			atag_warn_text(p->inputs[side][i], err);
			atag_report_free(r);
			return NULL;
		}
		if (shown) {
			fprintf(stderr, "\r%*s\r", 60 + (int)strlen(p->inputs[side][i]), "");
			shown = false;
		}
	}
	for (k = 0; k < r->nr_notices; k++) {
		snprintf(what, sizeof(what), "warning: %s", names[side]);
		atag_warn_text(what, r->notices[k]);
	}
	if (atag_report_finish(r, &p->view))
		die("cannot apply the view");
	return r;
}

static int render(const struct atag_diff *d, const struct diff_params *p, FILE *f)
{
	if (!strcmp(p->format, "json"))
		return atag_render_diff_json(d, &p->render, f);
	if (!strcmp(p->format, "csv"))
		return atag_render_diff_csv(d, &p->render, f);
	if (!strcmp(p->format, "folded"))
		return atag_render_diff_folded(d, &p->render, f);
	return atag_render_diff_text(d, &p->render, f);
}

static int run_diff(struct diff_params *p)
{
	struct atag_report *r[2] = { NULL, NULL };
	struct atag_diff *d = NULL;
	int ret = ATAG_EXIT_FAIL;
	char err[512];
	mode_t mode;

	r[0] = read_side(p, 0);
	r[1] = r[0] ? read_side(p, 1) : NULL;
	if (!r[1])
		goto out;
	if (atag_diff_compute(r[0], r[1], &p->diff, &d, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ATAG_PROG, err);
		goto out;
	}
	mode = atag_output_mode_of(p->inputs[0], p->nr_inputs[0]) &
	       atag_output_mode_of(p->inputs[1], p->nr_inputs[1]);
	atag_output_redirect(&(struct atag_output_opts){ .path = p->output, .mode = mode });
	p->render.columns = atag_columns();
	if (render(d, p, stdout))
		die("%s: %s", atag_output_name(), errno ? strerror(errno) : "write error");
	atag_output_finish();
	ret = ATAG_EXIT_OK;
out:
	atag_diff_free(d);
	atag_report_keep(r[0]);
	atag_report_keep(r[1]);
	return ret;
}

void trace_alloc_tag_diff(int argc, char **argv)
{
	struct diff_params p = { .format = "text" };
	int ret;

	parse_args(argc, argv, &p);
	if (!strcmp(p.format, "text") && !p.rows_given)
		p.render.limit = DEFAULT_TEXT_ROWS;
	/* a differential flame graph needs the unchanged part too */
	if (!strcmp(p.format, "folded"))
		p.diff.unchanged = true;
	ret = run_diff(&p);
	free(p.inputs[0]);
	free(p.inputs[1]);
	atag_viewopts_release(&p.vo);
	exit(ret);
}

bool atag_diff_asked(int argc, char **argv)
{
	int i;

	for (i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--diff") || !strncmp(argv[i], "--diff=", 7))
			return true;
	return false;
}
