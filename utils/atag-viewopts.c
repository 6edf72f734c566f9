// SPDX-License-Identifier: GPL-2.0
/*
 * The options report and diff share. See atag-viewopts.h.
 */
#include <stdlib.h>

#include "atag-cmd.h"
#include "atag-sort.h"
#include "atag-source.h"
#include "atag-utils.h"
#include "atag-viewopts.h"

static void add_comm(struct atag_viewopts *v, const char *glob)
{
	struct atag_read_opts *r = &v->opts->read;
	const char **a = realloc(v->comms, (r->nr_comms + 1) * sizeof(*a));

	if (!a)
		die("out of memory");
	a[r->nr_comms++] = glob;
	v->comms = a;
	r->comms = a;
}

bool atag_viewopts_parse(struct atag_viewopts *v, int c, const char *arg, const char *usage)
{
	static const char *const weights[] = { "alloc_space", "alloc_objects", "inuse_space",
		"inuse_objects", NULL };
	unsigned long long n;

	switch (c) {
	case 'B':
		v->opts->read.buffer = arg;
		break;
	case OPT_view_source:
		if (!atag_source_find(arg))
			atag_usage_error(usage, "--source: unknown value '%s'", arg);
		v->opts->read.source = arg;
		break;
	case OPT_view_comm:
		add_comm(v, arg);
		break;
	case OPT_view_raw_stacks:
		v->opts->raw_stacks = true;
		break;
	case 's':
		if (!atag_sort_key(arg))
			atag_usage_error(usage, "--sort: unknown value '%s'", arg);
		*v->sort = arg;
		break;
	case 'n':
		if (atag_parse_u64(arg, &n) || n > 1000000000)
			atag_usage_error(usage, "-n: '%s' is not a row count", arg);
		v->render->limit = n;
		v->rows_given = true;
		break;
	case OPT_view_stacks:
		v->render->stacks = true;
		break;
	case OPT_view_function:
		v->view->function = arg;
		break;
	case OPT_view_file:
		v->view->file = arg;
		break;
	case OPT_view_module:
		v->view->module = arg;
		break;
	case 'f':
		atag_check_choice(usage, "--format", arg, v->formats);
		v->format = arg;
		break;
	case OPT_view_weight:
		atag_check_choice(usage, "--weight", arg, weights);
		v->render->weight = arg;
		break;
	case 'o':
		v->output = arg;
		break;
	case OPT_view_no_progress:
		v->no_progress = true;
		break;
	default:
		return false;
	}
	return true;
}

void atag_viewopts_release(struct atag_viewopts *v)
{
	free(v->comms);
	v->comms = NULL;
}
