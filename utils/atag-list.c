// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag list: the allocation call sites (tags) of /proc/allocinfo with
 * their bytes, calls, trace state and accuracy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-cmd.h"
#include "atag-json.h"
#include "atag-profiling.h"
#include "atag-tagopts.h"
#include "atag-utils.h"

static const char list_usage[] =
	"usage: trace-cmd-alloc-tag list [FILTERS] [-s KEY] [-n N] [-f FMT] [-o FILE]\n"
	"\n"
	"List the allocation call sites (tags) of /proc/allocinfo: the bytes and calls\n"
	"they account for, whether they are traced, whether their counters are accurate,\n"
	"and where they are. Without the ioctls of Linux 7.3 the text is parsed instead,\n"
	"and the trace state shows as '-'.\n"
	"\n"
	"  -s, --sort KEY      bytes (default), calls, function, file or module\n"
	"  -n, --rows N        show the first N tags only (0 = all, the default)\n"
	"  -f, --format FMT    text (default), json or csv\n"
	"  -o, --output FILE   write to FILE (an existing FILE is kept as FILE.old)\n"
	"  -h, --help          show this help\n"
	"\n"
	ATAG_TAGOPTS_HELP;

enum sort_key { SORT_BYTES, SORT_CALLS, SORT_FUNCTION, SORT_FILE, SORT_MODULE };

static const char * const sort_names[] = { "bytes", "calls", "function", "file", "module" };

struct list_params {
	struct atag_tagopts	tagopts;
	enum sort_key		sort;
	unsigned long long	max_rows;	/* 0: all */
	struct atag_output_opts	out;
};

static void parse_list_options(struct list_params *p, int argc, char **argv)
{
	static const struct option long_options[] = {
		ATAG_TAGOPTS_LONG,
		ATAG_OUTPUT_LONG,
		{ "sort", required_argument, NULL, 's' },
		{ "rows", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned int i;
	static const char optstring[] = ":hs:n:f:o:";
	int c;

	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, NULL)) != -1) {
		if (atag_tagopts_parse(&p->tagopts, c, optarg, list_usage) ||
		    atag_output_parse(&p->out, c, optarg, list_usage))
			continue;
		switch (c) {
		case 's':
			for (i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
				if (!strcmp(optarg, sort_names[i]))
					break;
			if (i == sizeof(sort_names) / sizeof(sort_names[0]))
				atag_usage_error(list_usage, "-s: unknown sort key '%s'", optarg);
			p->sort = i;
			break;
		case 'n':
			if (atag_parse_u64(optarg, &p->max_rows))
				atag_usage_error(list_usage, "-n: '%s' is not a row count", optarg);
			break;
		case 'h':
			atag_usage_exit(list_usage);
		default:
			atag_option_error(list_usage, optstring, c, argv);
		}
	}
	if (optind + 1 < argc)
		atag_usage_error(list_usage, "unexpected argument '%s'", argv[optind + 1]);
	atag_tagopts_check(&p->tagopts, list_usage);
}

/* ------------------------------------------------------------------ sorting */

static enum sort_key sort_by;

static int cmp_site(const struct atag_tag *a, const struct atag_tag *b)
{
	int r = strcmp(a->filename, b->filename);

	if (r)
		return r;
	if (a->lineno != b->lineno)
		return a->lineno < b->lineno ? -1 : 1;
	return strcmp(a->function, b->function) ?: strcmp(a->modname, b->modname);
}

static int cmp_tags(const void *pa, const void *pb)
{
	const struct atag_tag *a = pa, *b = pb;
	int r = 0;

	switch (sort_by) {
	case SORT_BYTES:
		r = a->bytes == b->bytes ? 0 : a->bytes > b->bytes ? -1 : 1;
		break;
	case SORT_CALLS:
		r = a->calls == b->calls ? 0 : a->calls > b->calls ? -1 : 1;
		break;
	case SORT_FUNCTION:
		r = strcmp(a->function, b->function);
		break;
	case SORT_FILE:
		break;
	case SORT_MODULE:
		r = strcmp(a->modname, b->modname);
		break;
	}
	return r ?: cmp_site(a, b);
}

/* ------------------------------------------------------------------ output */

static const char *yes_no(int v)
{
	return v < 0 ? "-" : v ? "yes" : "no";
}

static char *signed_size(char *buf, size_t len, long long bytes)
{
	if (bytes >= 0)
		return atag_format_size(buf, len, bytes);
	buf[0] = '-';
	atag_format_size(buf + 1, len - 1, -(unsigned long long)bytes);
	return buf;
}

/* The width of the columns before the call site's. */
#define TEXT_PREFIX	(12 + 1 + 10 + 2 + 6 + 2 + 8 + 2)

static void print_text(const struct atag_taglist *list, size_t rows)
{
	char size[32], site[3 * ATAG_NAME_MAX + 32], cut[sizeof(site)];
	int columns = atag_columns();
	size_t i, width = 0;
	const struct atag_tag *t;

	if (columns >= TEXT_PREFIX + ATAG_MIN_SITE_WIDTH)
		width = columns - TEXT_PREFIX;
	printf("%12s %10s  %-6s  %-8s  %s\n", "BYTES", "CALLS", "TRACED", "ACCURATE", "CALL SITE");
	for (i = 0; i < rows; i++) {
		t = &list->tags[i];
		atag_tag_site(t, site, sizeof(site));
		printf("%12s %10llu  %-6s  %-8s  %s\n", signed_size(size, sizeof(size), t->bytes),
		       t->calls, yes_no(t->traced), yes_no(t->accurate),
		       atag_elide_middle(cut, sizeof(cut), site, width));
	}
}

static void print_json_tag(const struct atag_tag *t)
{
	printf("    { \"function\": ");
	atag_json_write_string(stdout, t->function);
	printf(", \"file\": ");
	atag_json_write_string(stdout, t->filename);
	printf(", \"line\": %llu, \"module\": ", t->lineno);
	atag_json_write_string(stdout, t->modname[0] ? t->modname : NULL);
	printf(", \"bytes\": %lld, \"calls\": %llu, \"accurate\": %s, \"traced\": %s }",
	       t->bytes, t->calls, t->accurate ? "true" : "false",
	       t->traced < 0 ? "null" : t->traced ? "true" : "false");
}

/* One object: the source, whether it reports trace state, then a tag a line. */
static void print_json(const struct atag_taglist *list, size_t rows)
{
	static const char * const sources[] = {
		[ATAG_SRC_IOCTL] = "ioctl", [ATAG_SRC_IOCTL_V73] = "ioctl-7.3",
		[ATAG_SRC_TEXT] = "text",
	};
	size_t i;

	printf("{ \"source\": \"%s\", \"trace_state\": %s,\n  \"tags\": [\n",
	       sources[list->source], list->source == ATAG_SRC_IOCTL ? "true" : "false");
	for (i = 0; i < rows; i++) {
		print_json_tag(&list->tags[i]);
		printf("%s\n", i + 1 < rows ? "," : "");
	}
	printf("  ] }\n");
}

/* A header line, then a tag a line; an unknown trace state is an empty cell. */
static void print_csv(const struct atag_taglist *list, size_t rows)
{
	const struct atag_tag *t;
	size_t i;

	printf("bytes,calls,traced,accurate,function,file,line,module\n");
	for (i = 0; i < rows; i++) {
		t = &list->tags[i];
		printf("%lld,%llu,%s,%d,", t->bytes, t->calls,
		       t->traced < 0 ? "" : t->traced ? "1" : "0", t->accurate ? 1 : 0);
		atag_csv_write_string(stdout, t->function);
		putchar(',');
		atag_csv_write_string(stdout, t->filename);
		printf(",%llu,", t->lineno);
		atag_csv_write_string(stdout, t->modname);
		putchar('\n');
	}
}

/* Profiling switched off: the counters stand still (include/atag-profiling.h). */
static void warn_profiling_off(struct atag_allocinfo *ai)
{
	struct atag_profiling_state st;
	char off[256];

	if (atag_profiling_read(atag_allocinfo_name(ai), &st) == ATAG_PROFILING_OFF)
		fprintf(stderr, "%s list: %s: these counters do not move and traced tags emit no "
			"events while it is off\n", ATAG_PROG,
			atag_profiling_off(&st, off, sizeof(off)));
}

static int run_list(struct list_params *p)
{
	struct atag_allocinfo *ai = atag_tagopts_open(&p->tagopts);
	struct atag_taglist *list;
	size_t rows;
	int ret;

	ret = atag_allocinfo_list(ai, &p->tagopts.filter, &list);
	if (ret)
		atag_tagopts_die(&p->tagopts, ai, ATAG_TAGOP_LIST, ret);
	sort_by = p->sort;
	if (list->nr)
		qsort(list->tags, list->nr, sizeof(*list->tags), cmp_tags);
	rows = p->max_rows && p->max_rows < list->nr ? p->max_rows : list->nr;
	atag_output_redirect(&p->out);
	if (atag_output_is(&p->out, "json"))
		print_json(list, rows);
	else if (atag_output_is(&p->out, "csv"))
		print_csv(list, rows);
	else
		print_text(list, rows);
	atag_output_finish();
	atag_taglist_free(list);
	warn_profiling_off(ai);
	atag_allocinfo_close(ai);
	return ATAG_EXIT_OK;
}

void trace_alloc_tag_list(int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", "csv", NULL };
	struct list_params p = { .sort = SORT_BYTES, .out.formats = formats };
	int ret;

	atag_tagopts_init(&p.tagopts);
	parse_list_options(&p, argc, argv);
	ret = run_list(&p);
	atag_tagopts_release(&p.tagopts);
	exit(ret);
}
