/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atag-viewopts.h - the options report and diff share: what is read (-B,
 * --source, --comm, --raw-stacks), which call sites are shown and in which order
 * (--function, --file, --module, -s, -n, --stacks) and how they are written (-f,
 * --weight, -o, --no-progress). One parser, so that the two commands take them
 * alike.
 *
 * A command puts ATAG_VIEWOPTS_LONG in its getopt_long table and
 * ATAG_VIEWOPTS_SHORT in its option string, numbers its own long-only options
 * from OPT_VIEWOPTS_END, and hands every option to atag_viewopts_parse() first.
 */
#ifndef _ATAG_VIEWOPTS_H
#define _ATAG_VIEWOPTS_H

#include <getopt.h>
#include <stdbool.h>

#include "atag-render.h"
#include "atag-report.h"

enum {
	OPT_view_source = 256,
	OPT_view_comm,
	OPT_view_raw_stacks,
	OPT_view_stacks,
	OPT_view_function,
	OPT_view_file,
	OPT_view_module,
	OPT_view_weight,
	OPT_view_no_progress,
	OPT_VIEWOPTS_END
};

#define ATAG_VIEWOPTS_SHORT	"B:s:n:f:o:"

#define ATAG_VIEWOPTS_LONG							\
	{ "buffer",	 required_argument,	NULL, 'B' },			\
	{ "source",	 required_argument,	NULL, OPT_view_source },	\
	{ "comm",	 required_argument,	NULL, OPT_view_comm },		\
	{ "raw-stacks",	 no_argument,		NULL, OPT_view_raw_stacks },	\
	{ "sort",	 required_argument,	NULL, 's' },			\
	{ "rows",	 required_argument,	NULL, 'n' },			\
	{ "stacks",	 no_argument,		NULL, OPT_view_stacks },	\
	{ "function",	 required_argument,	NULL, OPT_view_function },	\
	{ "file",	 required_argument,	NULL, OPT_view_file },		\
	{ "module",	 required_argument,	NULL, OPT_view_module },	\
	{ "format",	 required_argument,	NULL, 'f' },			\
	{ "weight",	 required_argument,	NULL, OPT_view_weight },	\
	{ "output",	 required_argument,	NULL, 'o' },			\
	{ "no-progress", no_argument,		NULL, OPT_view_no_progress }

/* Where the options go: the command's own structures. */
struct atag_viewopts {
	struct atag_report_opts		*opts;		/* -B, --source, --comm, --raw-stacks */
	struct atag_report_view		*view;		/* --function, --file, --module */
	struct atag_render_opts		*render;	/* -n, --stacks, --weight */
	const char			**sort;		/* -s: report's view, diff's own */
	const char * const		*formats;	/* the -f values the command takes */
	const char			*format;	/* -f, "text" by default */
	const char			*output;	/* -o */
	bool				rows_given;	/* -n */
	bool				no_progress;
	const char			**comms;	/* --comm, in order */
};

/*
 * Handle option @c (with @arg) when it is one of the shared options: true; a
 * usage error exits with @usage. False for any other option.
 */
bool atag_viewopts_parse(struct atag_viewopts *v, int c, const char *arg, const char *usage);

/* What atag_viewopts_parse() allocated. */
void atag_viewopts_release(struct atag_viewopts *v);

#endif /* _ATAG_VIEWOPTS_H */
