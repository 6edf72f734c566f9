// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag enable / disable: switch the tracing of the matching
 * allocation call sites on or off through ALLOCINFO_IOC_TOGGLE_TRACE.
 *
 * A filter the kernel can express is handed to one TOGGLE_TRACE, as the series
 * intends; a filter with globs is resolved by listing, then each listed tag is
 * toggled on its own (module, function, file, line and current state).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-cmd.h"
#include "atag-profiling.h"
#include "atag-tagopts.h"
#include "atag-utils.h"

static const char enable_usage[] =
	"usage: trace-cmd-alloc-tag enable [FILTERS | --all] [--dry-run]\n"
	"       trace-cmd-alloc-tag disable [FILTERS | --all] [--dry-run]\n"
	"\n"
	"Turn the tracing of the matching allocation call sites (tags) on or off: traced\n"
	"tags emit the alloc_tag trace events. Prints how many tags changed state.\n"
	"Needs a kernel with per-tag tracing and CAP_SYS_ADMIN. Both need a filter, or\n"
	"--all: every call site (disable --all turns off what others turned on too).\n"
	"\n"
	"      --dry-run       list the tags that would change state, change nothing\n"
	"      --all           every tag (no filter)\n"
	"  -h, --help          show this help\n"
	"\n"
	ATAG_TAGOPTS_HELP;

struct toggle_params {
	struct atag_tagopts	tagopts;
	bool			enable;
	bool			dry_run;
	bool			all;
};

enum { OPT_dry_run = OPT_TAGOPTS_END, OPT_all };

static void parse_toggle_options(struct toggle_params *p, int argc, char **argv)
{
	static const struct option long_options[] = {
		ATAG_TAGOPTS_LONG,
		{ "dry-run", no_argument, NULL, OPT_dry_run },
		{ "all", no_argument, NULL, OPT_all },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char optstring[] = ":h";
	int c;

	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, NULL)) != -1) {
		if (atag_tagopts_parse(&p->tagopts, c, optarg, enable_usage))
			continue;
		switch (c) {
		case OPT_dry_run:
			p->dry_run = true;
			break;
		case OPT_all:
			p->all = true;
			break;
		case 'h':
			atag_usage_exit(enable_usage);
		default:
			atag_option_error(enable_usage, optstring, c, argv);
		}
	}
	if (optind + 1 < argc)
		atag_usage_error(enable_usage, "unexpected argument '%s'", argv[optind + 1]);
	atag_tagopts_check(&p->tagopts, enable_usage);
	if (!p->all && atag_filter_is_empty(&p->tagopts.filter))
		atag_usage_error(enable_usage, p->enable ?
				 "enable: give a filter, or --all to trace every call site" :
				 "disable: give a filter, or --all to turn off every call site");
	if (p->all && !atag_filter_is_empty(&p->tagopts.filter))
		atag_usage_error(enable_usage, "--all and a filter exclude each other");
}

/* The listed tags whose state differs from the one wanted: they will change. */
static size_t count_changes(const struct atag_taglist *list, bool enable)
{
	size_t i, n = 0;

	for (i = 0; i < list->nr; i++)
		n += list->tags[i].traced != enable;
	return n;
}

static void print_dry_run(const struct atag_taglist *list, bool enable)
{
	char site[3 * ATAG_NAME_MAX + 32];
	size_t i, n = count_changes(list, enable);

	for (i = 0; i < list->nr; i++) {
		if (list->tags[i].traced == enable)
			continue;
		atag_tag_site(&list->tags[i], site, sizeof(site));
		printf("would %s: %s\n", enable ? "enable" : "disable", site);
	}
	printf("%zu %s would change state (tracing %s), %zu already %s\n", n,
	       atag_plural(n, "tag", "tags"), enable ? "on" : "off", list->nr - n,
	       enable ? "on" : "off");
}

/* Toggle each tag that has to change; returns how many did, or -errno. */
static long toggle_each(struct atag_allocinfo *ai, const struct atag_taglist *list, bool enable)
{
	long changed = 0;
	size_t i;
	int ret;

	for (i = 0; i < list->nr; i++) {
		if (list->tags[i].traced == enable)
			continue;
		ret = atag_allocinfo_toggle_tag(ai, &list->tags[i], enable);
		if (ret == -ENOENT)
			continue;	/* someone else changed it meanwhile */
		if (ret) {
			if (changed)
				fprintf(stderr, "%s: %ld tags changed state before the error\n",
					ATAG_PROG, changed);
			return ret;
		}
		changed++;
	}
	return changed;
}

/* Profiling switched off: traced tags emit nothing (include/atag-profiling.h). */
static void warn_profiling_off(struct atag_allocinfo *ai, bool enable)
{
	struct atag_profiling_state st;
	char off[256];

	if (!enable || atag_profiling_read(atag_allocinfo_name(ai), &st) != ATAG_PROFILING_OFF)
		return;
	fprintf(stderr, "%s enable: %s: the traced tags emit no events while it is off%s\n",
		ATAG_PROG, atag_profiling_off(&st, off, sizeof(off)),
		st.read_only ? "" : " (sysctl vm.mem_profiling=1 turns it on)");
}

static int run_toggle(struct toggle_params *p)
{
	struct atag_filter *f = &p->tagopts.filter;
	struct atag_allocinfo *ai = atag_tagopts_open(&p->tagopts);
	struct allocinfo_filter kf;
	struct atag_taglist *list;
	long changed;
	int ret;

	ret = atag_allocinfo_source(ai);
	if (ret >= 0 && ret != ATAG_SRC_IOCTL)
		ret = -ENOTTY;		/* no trace state, no toggle */
	if (ret < 0)
		atag_tagopts_die(&p->tagopts, ai, ATAG_TAGOP_TOGGLE, ret);
	ret = atag_allocinfo_list(ai, f, &list);
	if (ret)
		atag_tagopts_die(&p->tagopts, ai, ATAG_TAGOP_LIST, ret);
	if (!list->nr)
		atag_tagopts_die(&p->tagopts, ai, ATAG_TAGOP_TOGGLE, ENOENT);
	if (p->dry_run) {
		print_dry_run(list, p->enable);
		goto out;
	}
	changed = count_changes(list, p->enable);
	if (changed && atag_filter_to_kernel(f, &kf))
		ret = atag_allocinfo_toggle(ai, f, p->enable);
	else if (changed)
		ret = changed = toggle_each(ai, list, p->enable);
	if (ret < 0)
		atag_tagopts_die(&p->tagopts, ai, ATAG_TAGOP_TOGGLE, ret);
	printf("%ld %s changed state (tracing %s), %zu already %s\n", changed,
	       atag_plural(changed, "tag", "tags"), p->enable ? "on" : "off",
	       list->nr - count_changes(list, p->enable), p->enable ? "on" : "off");
out:
	warn_profiling_off(ai, p->enable);
	atag_taglist_free(list);
	atag_allocinfo_close(ai);
	return ATAG_EXIT_OK;
}

static void __attribute__((noreturn)) toggle_main(int argc, char **argv, bool enable)
{
	struct toggle_params p = { .enable = enable };
	int ret;

	atag_tagopts_init(&p.tagopts);
	parse_toggle_options(&p, argc, argv);
	ret = run_toggle(&p);
	atag_tagopts_release(&p.tagopts);
	exit(ret);
}

void trace_alloc_tag_enable(int argc, char **argv)
{
	toggle_main(argc, argv, true);
}

void trace_alloc_tag_disable(int argc, char **argv)
{
	toggle_main(argc, argv, false);
}
