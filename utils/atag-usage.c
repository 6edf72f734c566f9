// SPDX-License-Identifier: GPL-2.0
/*
 * Usage and fatal-error helpers shared by the subcommands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "atag-cmd.h"

void atag_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ATAG_PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n\n%s", usage);
	exit(ATAG_EXIT_USAGE);
}

void atag_usage_exit(const char *usage)
{
	fputs(usage, stdout);
	exit(ATAG_EXIT_OK);
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
