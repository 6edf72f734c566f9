// SPDX-License-Identifier: LGPL-2.1
/*
 * Memory allocation profiling switched on or off: the sysctl vm.mem_profiling,
 * read for the commands' messages and noted in a recording's description. See
 * atag-profiling.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atag-allocinfo.h"
#include "atag-marker.h"
#include "atag-profiling.h"
#include "atag-session.h"
#include "atag-utils.h"

/* The switch that speaks for @allocinfo, or NULL. */
static const char *switch_path(const char *allocinfo)
{
	const char *env = getenv(ATAG_MEM_PROFILING_ENV);

	if (env && *env)
		return env;
	if (allocinfo && !strcmp(allocinfo, ATAG_ALLOCINFO_PATH))
		return ATAG_MEM_PROFILING_PATH;
	return NULL;
}

enum atag_profiling atag_profiling_read(const char *allocinfo, struct atag_profiling_state *st)
{
	const char *path = switch_path(allocinfo);
	struct stat sb;
	char *text;

	memset(st, 0, sizeof(*st));
	st->state = ATAG_PROFILING_UNKNOWN;
	if (!path)
		return st->state;
	snprintf(st->path, sizeof(st->path), "%s", path);
	text = atag_read_file(path, 64, NULL);
	if (!text)
		return st->state;
	/* proc_do_static_key() prints "%d\n" */
	if (!strcmp(text, "0\n") || !strcmp(text, "0"))
		st->state = ATAG_PROFILING_OFF;
	else if (!strcmp(text, "1\n") || !strcmp(text, "1"))
		st->state = ATAG_PROFILING_ON;
	free(text);
	/* 0444 instead of 0644: "never" at boot, or CONFIG_MEM_ALLOC_PROFILING_DEBUG */
	st->read_only = !stat(path, &sb) && !(sb.st_mode & 0222);
	return st->state;
}

const char *atag_profiling_word(enum atag_profiling p)
{
	switch (p) {
	case ATAG_PROFILING_OFF:
		return "off";
	case ATAG_PROFILING_ON:
		return "on";
	default:
		return "unknown";
	}
}

const char *atag_profiling_off(const struct atag_profiling_state *st, char *buf, size_t len)
{
	snprintf(buf, len, "memory allocation profiling is off (vm.mem_profiling = 0)%s",
		 st->read_only ? ", and the sysctl is read-only: it stays off until the next boot" :
		 "");
	return buf;
}

int atag_profiling_mark(struct atag_session *s, const char *allocinfo, const char *when,
			struct atag_profiling_state *st)
{
	/* no switch to read: no line, as from a record that did not write them */
	if (atag_profiling_read(allocinfo, st) == ATAG_PROFILING_UNKNOWN)
		return 0;
	return atag_session_mark(s, ATAG_MK_PROFILING, when, atag_profiling_word(st->state), NULL);
}
