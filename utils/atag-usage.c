// SPDX-License-Identifier: GPL-2.0
/*
 * Usage and fatal-error helpers shared by the subcommands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "atag-cmd.h"
#include "atag-utils.h"

const char *atag_cmd_name;

void atag_usage_hint(void)
{
	fprintf(stderr, "Try '%s%s%s --help'.\n", ATAG_PROG, atag_cmd_name ? " " : "",
		atag_cmd_name ? atag_cmd_name : "");
}

void atag_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ATAG_PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	atag_usage_hint();
	exit(ATAG_EXIT_USAGE);
}

void atag_option_error(const char *usage, const char *optstring, int c, char **argv)
{
	/* argv is the unshifted vector: argv[optind] is the word getopt just read */
	const char *word = argv[optind] ? argv[optind] : "";
	int len = strcspn(word, "=");

	if (c == '?' && optopt > 0 && optopt < 128 && !strchr(optstring, optopt))
		atag_usage_error(usage, "unknown option '-%c'", optopt);
	if (c == ':' && optopt > 0 && optopt < 128 && strncmp(word, "--", 2))
		atag_usage_error(usage, "option '-%c' needs a value", optopt);
	if (c == ':')
		atag_usage_error(usage, "option '%s' needs a value", word);
	if (word[len])
		atag_usage_error(usage, "option '%.*s' takes no value", len, word);
	atag_usage_error(usage, "unknown option '%s'", word);
}

void atag_usage_exit(const char *usage)
{
	fputs(usage, stdout);
	exit(ATAG_EXIT_OK);
}

void atag_warn_text(const char *what, const char *text)
{
	fprintf(stderr, "%s: ", ATAG_PROG);
	atag_text_fputs(what, stderr);
	fputs(": ", stderr);
	atag_text_fputs(text, stderr);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ATAG_PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(ATAG_EXIT_FAIL);
}

void atag_check_choice(const char *usage, const char *opt, const char *val,
		       const char *const *choices)
{
	int i;

	for (i = 0; choices[i]; i++)
		if (!strcmp(val, choices[i]))
			return;
	atag_usage_error(usage, "%s: unknown value '%s'", opt, val);
}

void atag_progress_bar(void *ctx, const char *path, double done)
{
	int width = 40, fill = done * width;

	if (fill > width)
		fill = width;
	fprintf(stderr, "\r%s: [%.*s%*s] %3d%%", path, fill,
		"########################################", width - fill, "", (int)(done * 100));
	*(bool *)ctx = true;
}
