/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atag-tagopts.h - the tag filter options of list, enable, disable and record, and
 * the one-line messages for what /proc/allocinfo answers.
 *
 * A command puts ATAG_TAGOPTS_LONG in its getopt_long table, numbers its own long-only
 * options from OPT_TAGOPTS_END, hands every option to atag_tagopts_parse() first and
 * prints ATAG_TAGOPTS_HELP in its help.
 */
#ifndef _ATAG_TAGOPTS_H
#define _ATAG_TAGOPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "atag-allocinfo.h"

enum {
	OPT_module = 256,
	OPT_function,
	OPT_file,
	OPT_line,
	OPT_min_size,
	OPT_max_size,
	OPT_accurate,
	OPT_inaccurate,
	OPT_traced,
	OPT_untraced,
	OPT_allocinfo,
	OPT_TAGOPTS_END
};

#define ATAG_TAGOPTS_LONG						\
	{ "module",	required_argument,	NULL, OPT_module },	\
	{ "function",	required_argument,	NULL, OPT_function },	\
	{ "file",	required_argument,	NULL, OPT_file },	\
	{ "line",	required_argument,	NULL, OPT_line },	\
	{ "min-size",	required_argument,	NULL, OPT_min_size },	\
	{ "max-size",	required_argument,	NULL, OPT_max_size },	\
	{ "accurate",	no_argument,		NULL, OPT_accurate },	\
	{ "inaccurate",	no_argument,		NULL, OPT_inaccurate },	\
	{ "traced",	no_argument,		NULL, OPT_traced },	\
	{ "untraced",	no_argument,		NULL, OPT_untraced },	\
	{ "allocinfo",	required_argument,	NULL, OPT_allocinfo }

#define ATAG_TAGOPTS_HELP							\
	"tag filters (a tag must match all; a NAME with * ? [ is a glob):\n"	\
	"  --module NAME       tags of this module ('' selects built-in tags)\n"	\
	"  --function NAME     tags in this function\n"				\
	"  --file NAME         tags in this source file (as listed, e.g. mm/slub.c)\n" \
	"  --line N            tags on this line\n"				\
	"  --min-size SIZE     tags holding at least SIZE bytes (K, M, G suffixes)\n"	\
	"  --max-size SIZE     tags holding at most SIZE bytes\n"		\
	"  --accurate, --inaccurate   tags whose counters are (in)accurate\n"	\
	"  --traced, --untraced       tags whose tracing is on (off)\n"		\
	"  --allocinfo PATH    the allocinfo file (default $ATAG_ALLOCINFO, else\n"	\
	"                      /proc/allocinfo)\n"

/* What the command was doing when the error came. */
enum atag_tagop {
	ATAG_TAGOP_OPEN,
	ATAG_TAGOP_LIST,
	ATAG_TAGOP_TOGGLE,
};

#define ATAG_TAGOPTS_MAX	16

struct atag_tagopts {
	struct atag_filter	filter;
	const char		*allocinfo;	/* resolved by atag_tagopts_open() */
	int			nr_given;
	const char		*given[ATAG_TAGOPTS_MAX];	/* "--function foo", in order */
	char			*given_buf[ATAG_TAGOPTS_MAX];
};

void atag_tagopts_init(struct atag_tagopts *o);
void atag_tagopts_release(struct atag_tagopts *o);

/* Handle @opt when it is a tag option (usage errors exit); false for other options. */
bool atag_tagopts_parse(struct atag_tagopts *o, int opt, const char *arg, const char *usage);

/* Checks across options, after parsing (min-size above max-size: usage error). */
void atag_tagopts_check(const struct atag_tagopts *o, const char *usage);

/* The filter options as given ("--module foo --line 12"), or "no filter". */
const char *atag_tagopts_describe(const struct atag_tagopts *o, char *buf, size_t len);

/* Open the allocinfo file; on failure print the message and exit 1. */
struct atag_allocinfo *atag_tagopts_open(struct atag_tagopts *o);

/* The one-line message for -@err from @op on the allocinfo file (no program prefix). */
void atag_tagopts_message(char *buf, size_t len, const struct atag_tagopts *o,
			  struct atag_allocinfo *ai, enum atag_tagop op, int err);

/* atag_tagopts_message(), printed as a fatal error: exits 1. */
void __attribute__((noreturn)) atag_tagopts_die(const struct atag_tagopts *o,
						struct atag_allocinfo *ai, enum atag_tagop op,
						int err);

/* "tag", "tags" */
static inline const char *atag_plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The call site as users read it: "function file:line [module]". */
void atag_tag_site(const struct atag_tag *t, char *buf, size_t len);

#endif /* _ATAG_TAGOPTS_H */
