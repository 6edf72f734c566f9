// SPDX-License-Identifier: GPL-2.0
/*
 * -f/--format and -o/--output, shared by the commands that write a result.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-utils.h"

static const char *output_name;

bool atag_output_parse(struct atag_output_opts *o, int c, const char *arg, const char *usage)
{
	switch (c) {
	case 'f':
		atag_check_choice(usage, "--format", arg, o->formats);
		o->format = arg;
		return true;
	case 'o':
		if (!*arg)
			atag_usage_error(usage, "--output: an empty file name");
		o->path = arg;
		return true;
	}
	return false;
}

bool atag_output_is(const struct atag_output_opts *o, const char *format)
{
	return !strcmp(o->format ? o->format : o->formats[0], format);
}

/* @path made anew, an existing regular file kept as @path.old (said); dies on failure. */
static int create_kept(const char *path)
{
	char old[PATH_MAX];
	int fd, ret;

	ret = atag_keep_old(AT_FDCWD, path, old, sizeof(old));
	if (ret < 0)
		die("%s: cannot keep it as %s.old: %s", path, path, strerror(-ret));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (ret)
		fprintf(stderr, "%s: %s existed: kept as %s\n", ATAG_PROG, path, old);
	return fd;
}

FILE *atag_output_fopen(const char *path)
{
	FILE *f = fdopen(create_kept(path), "w");

	if (!f)
		die("%s: %s", path, strerror(errno));
	return f;
}

void atag_output_redirect(const struct atag_output_opts *o)
{
	int fd;

	if (!o->path)
		return;
	fd = create_kept(o->path);
	fflush(stdout);
	if (fd != STDOUT_FILENO && dup2(fd, STDOUT_FILENO) < 0)
		die("%s: %s", o->path, strerror(errno));
	if (fd != STDOUT_FILENO)
		close(fd);
	output_name = o->path;
}

int atag_columns(void)
{
	const char *env = getenv("COLUMNS");
	unsigned long long v;
	struct winsize ws;

	if (env && *env && !atag_parse_u64(env, &v) && v > 0 && v < 100000)
		return v;
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 0;
}

const char *atag_output_name(void)
{
	return output_name ? output_name : "standard output";
}

/* Whether the chosen format is one of @formats ("text, json or csv"). */
static bool format_in(const struct atag_output_opts *o, const char *formats)
{
	const char *fmt = o->format ? o->format : o->formats[0], *p = formats;
	size_t len = strlen(fmt), n;

	while (*p) {
		p += strspn(p, ", ");
		n = strcspn(p, ", ");
		if (n == len && !strncmp(p, fmt, n))
			return true;
		p += n;
	}
	return false;
}

void atag_output_only(const struct atag_output_opts *o, const char *usage, bool given,
		      const char *opt, const char *formats)
{
	if (given && !format_in(o, formats))
		atag_usage_error(usage, "%s goes with --format %s", opt, formats);
}

void atag_output_redundant(const struct atag_output_opts *o, bool given, const char *opt,
			   const char *formats)
{
	if (!given || format_in(o, formats))
		return;
	fprintf(stderr, "%s: warning: %s does nothing with --format %s\n", ATAG_PROG, opt,
		o->format ? o->format : o->formats[0]);
}
