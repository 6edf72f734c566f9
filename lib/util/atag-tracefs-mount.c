// SPDX-License-Identifier: LGPL-2.1
/*
 * What the kernel side and the buffer-memory side both read of tracefs: where it is
 * mounted, and a ring buffer's per-CPU stats file.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-utils.h"

static char *dir_override;
static char dir_found[PATH_MAX];

/* /proc/mounts writes space, tab, newline and backslash as \ooo */
static void unescape_octal(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = '\0';
}

int atag_tracefs_find(const char *mounts, char *buf, size_t len)
{
	char dev[256], dir[PATH_MAX], type[64], line[PATH_MAX + 512];
	int ret = -ENODEV;
	FILE *f;

	f = fopen(mounts ? mounts : "/proc/mounts", "re");
	if (!f)
		return atag_err(-errno);
	while (ret && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) != 3 ||
		    strcmp(type, "tracefs"))
			continue;
		unescape_octal(dir);
		snprintf(buf, len, "%s", dir);
		ret = 0;
	}
	fclose(f);
	return atag_err(ret);
}

const char *atag_tracefs_dir(void)
{
	int ret;

	if (dir_override)
		return dir_override;
	if (dir_found[0])
		return dir_found;
	ret = atag_tracefs_find(NULL, dir_found, sizeof(dir_found));
	if (ret) {
		dir_found[0] = '\0';
		return NULL;
	}
	return dir_found;
}

int atag_tracefs_set_dir(const char *dir)
{
	char *copy = NULL;

	if (dir && !(copy = strdup(dir)))
		return atag_err(-ENOMEM);
	free(dir_override);
	dir_override = copy;
	return 0;
}

/* A timestamp as the stats file prints it: "sec.usec" or a raw counter. */
static int check_ts(const char *s)
{
	const char *p = s;

	while (isdigit((unsigned char)*p))
		p++;
	if (p == s)
		return -EINVAL;
	if (*p == '.') {
		s = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == s)
			return -EINVAL;
	}
	return *p ? -EINVAL : 0;
}

static int stats_kv(const char *key, const char *value, void *ctx)
{
	static const struct {
		const char	*key;
		size_t		off;
	} nums[] = {
		{ "entries", offsetof(struct atag_cpu_stats, entries) },
		{ "overrun", offsetof(struct atag_cpu_stats, overrun) },
		{ "commit overrun", offsetof(struct atag_cpu_stats, commit_overrun) },
		{ "bytes", offsetof(struct atag_cpu_stats, bytes) },
		{ "dropped events", offsetof(struct atag_cpu_stats, dropped_events) },
		{ "read events", offsetof(struct atag_cpu_stats, read_events) },
	};
	struct atag_cpu_stats *st = ctx;
	char *ts = NULL;
	size_t i;

	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (!strcmp(key, nums[i].key))
			return atag_parse_u64(value,
					      (unsigned long long *)((char *)st + nums[i].off));
	if (!strcmp(key, "oldest event ts"))
		ts = st->oldest_ts;
	else if (!strcmp(key, "now ts"))
		ts = st->now_ts;
	if (!ts)
		return 0;
	if (check_ts(value) || strlen(value) >= sizeof(st->now_ts))
		return -EINVAL;
	strcpy(ts, value);
	return 0;
}

int atag_parse_cpu_stats(const char *text, struct atag_cpu_stats *stats, int *line)
{
	stats->entries = ATAG_STATS_UNKNOWN;
	stats->overrun = ATAG_STATS_UNKNOWN;
	stats->commit_overrun = ATAG_STATS_UNKNOWN;
	stats->bytes = ATAG_STATS_UNKNOWN;
	stats->dropped_events = ATAG_STATS_UNKNOWN;
	stats->read_events = ATAG_STATS_UNKNOWN;
	stats->oldest_ts[0] = '\0';
	stats->now_ts[0] = '\0';
	return atag_parse_kv(text, stats_kv, stats, line);
}
