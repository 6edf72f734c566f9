// SPDX-License-Identifier: LGPL-2.1
/*
 * Parsers for the tracefs files that describe ring buffers: buffer_size_kb,
 * buffer_meta, remotes' buffer_size_kb, events/header_page, snapshot and
 * trace_stats/memory_usage_kb (per_cpu/cpuN/stats: lib/util/atag-tracefs-mount.c).
 * Pure functions of the text.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-bufstat.h"
#include "atag-utils.h"

static const char * const row_keys[ATAG_ROW_MAX] = {
	[ATAG_ROW_GLOBAL]		= "global",
	[ATAG_ROW_INSTANCES]		= "instances",
	[ATAG_ROW_SNAPSHOTS]		= "snapshots",
	[ATAG_ROW_PERSISTENTS]		= "persistents",
	[ATAG_ROW_REMOTES]		= "remotes",
	[ATAG_ROW_TOTAL_SYSTEM]		= "total_system",
	[ATAG_ROW_TOTAL_CARVEOUT]	= "total_carveout",
	[ATAG_ROW_BUFFERS]		= "buffers",
	[ATAG_ROW_SNAPSHOT_BUFFERS]	= "snapshot_buffers",
};

const char *atag_bufstat_row_key(enum atag_bufstat_row row)
{
	return row < ATAG_ROW_MAX ? row_keys[row] : NULL;
}

int atag_bufstat_parse_size(const char *text, struct atag_bufsize *size)
{
	unsigned long long kb, exp;
	char tail[8];
	int n = 0;

	size->kb = ATAG_BUFSTAT_UNKNOWN;
	size->expanded_kb = ATAG_BUFSTAT_UNKNOWN;
	size->differ = false;
	if (!text)
		return atag_err(-EINVAL);
	if (sscanf(text, " X %n", &n) == 0 && n && !text[n]) {
		size->differ = true;
		return 0;
	}
	n = 0;
	if (sscanf(text, "%llu %n", &kb, &n) == 1 && isdigit((unsigned char)text[0]) && !text[n]) {
		size->kb = kb;
		return 0;
	}
	n = 0;
	if (sscanf(text, "%llu (expanded: %llu%1[)] %n", &kb, &exp, tail, &n) == 3 &&
	    isdigit((unsigned char)text[0]) && n && !text[n]) {
		size->kb = kb;
		size->expanded_kb = exp;
		return 0;
	}
	return atag_err(-EINVAL);
}

static int memusage_kv(const char *key, const char *value, void *ctx)
{
	struct atag_memusage *mu = ctx;
	int row;

	for (row = 0; row < ATAG_ROW_MAX; row++) {
		if (strcmp(key, row_keys[row]))
			continue;
		if (row < ATAG_ROW_BUFFERS)
			mu->format = ATAG_MEMUSAGE_SPLIT;
		else if (mu->format != ATAG_MEMUSAGE_SPLIT)
			mu->format = ATAG_MEMUSAGE_BUFFERS;
		return atag_parse_u64(value, &mu->kb[row]);
	}
	return 0;
}

int atag_bufstat_parse_memusage(const char *text, struct atag_memusage *mu, int *line)
{
	int row;

	mu->format = ATAG_MEMUSAGE_EMPTY;
	for (row = 0; row < ATAG_ROW_MAX; row++)
		mu->kb[row] = ATAG_BUFSTAT_UNKNOWN;
	return atag_parse_kv(text, memusage_kv, mu, line);
}

static int meta_kv(const char *key, const char *value, void *ctx)
{
	struct atag_bufstat_meta *meta = ctx;

	if (!strcmp(key, "subbuf_size"))
		return atag_parse_u64(value, &meta->subbuf_size);
	if (!strcmp(key, "nr_subbufs"))
		return atag_parse_u64(value, &meta->nr_subbufs);
	return 0;
}

int atag_bufstat_parse_meta(const char *text, struct atag_bufstat_meta *meta, int *line)
{
	int ret;

	meta->subbuf_size = ATAG_BUFSTAT_UNKNOWN;
	meta->nr_subbufs = ATAG_BUFSTAT_UNKNOWN;
	ret = atag_parse_kv(text, meta_kv, meta, line);
	if (ret)
		return ret;
	if (meta->subbuf_size == ATAG_BUFSTAT_UNKNOWN || meta->nr_subbufs == ATAG_BUFSTAT_UNKNOWN)
		return atag_err(-EINVAL);
	return 0;
}

int atag_bufstat_parse_remote_size(const char *text, unsigned long long *kb, int *loaded)
{
	char state[10];
	int n = 0;

	*loaded = -1;
	if (!text || !isdigit((unsigned char)text[0]))
		return atag_err(-EINVAL);
	if (sscanf(text, "%llu %n", kb, &n) == 1 && !text[n])
		return 0;
	n = 0;
	if (sscanf(text, "%llu (%9[a-z]) %n", kb, state, &n) != 2 || !n || text[n])
		return atag_err(-EINVAL);
	if (!strcmp(state, "loaded"))
		*loaded = 1;
	else if (!strcmp(state, "unloaded"))
		*loaded = 0;
	else
		return atag_err(-EINVAL);
	return 0;
}

int atag_bufstat_parse_header_page(const char *text, unsigned int *hdr)
{
	const char *p = text ? strstr(text, "field: char data;") : NULL;
	unsigned int off;

	if (!p)
		return atag_err(-EINVAL);
	p = strstr(p, "offset:");
	if (!p || sscanf(p, "offset:%u;", &off) != 1 || !off)
		return atag_err(-EINVAL);
	*hdr = off;
	return 0;
}

enum atag_snapshot_state atag_bufstat_parse_snapshot(const char *text)
{
	if (!text)
		return ATAG_SNAPSHOT_UNKNOWN;
	if (strstr(text, "* Snapshot is freed *"))
		return ATAG_SNAPSHOT_FREED;
	if (strstr(text, "* Snapshot is allocated *"))
		return ATAG_SNAPSHOT_ALLOCATED;
	/* the help text is printed only when the snapshot is empty: this one holds a trace */
	if (!strncmp(text, "# tracer:", 9))
		return ATAG_SNAPSHOT_ALLOCATED;
	return ATAG_SNAPSHOT_UNKNOWN;
}

int atag_bufstat_parse_flag(const char *text)
{
	if (!text || (text[0] != '0' && text[0] != '1'))
		return -1;
	if (text[1] && strcmp(text + 1, "\n"))
		return -1;
	return text[0] - '0';
}

/*
 * The next parameter of a kernel command line, as the kernel's next_arg() reads it:
 * whitespace ends it outside double quotes, and the quotes themselves are dropped.
 * Copied into @buf (cut at @len - 1); returns where the rest starts, NULL at the end.
 */
static const char *next_param(const char *p, char *buf, size_t len)
{
	bool quoted = false;
	size_t n = 0;

	while (*p && isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	for (; *p && (quoted || !isspace((unsigned char)*p)); p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (n + 1 < len)
			buf[n++] = *p;
	}
	buf[n] = '\0';
	return p;
}

bool atag_bufstat_parse_backup(const char *cmdline, const char *name, char *origin, size_t len)
{
	static const char key[] = "trace_instance=";
	char param[4096], *field, *eq, *at;
	const char *p = cmdline;

	if (!cmdline || !name)
		return false;
	while ((p = next_param(p, param, sizeof(param)))) {
		if (!strcmp(param, "--"))
			break;		/* the rest is init's */
		if (strncmp(param, key, sizeof(key) - 1))
			continue;
		field = param + sizeof(key) - 1;
		field[strcspn(field, ",")] = '\0';
		eq = strchr(field, '=');
		at = strchr(field, '@');
		if (!eq || (at && at < eq))
			continue;	/* NAME[^flags]@MEMORY: a persistent instance */
		*eq = '\0';
		field[strcspn(field, "^")] = '\0';
		if (strcmp(field, name) || !eq[1])
			continue;
		eq[1 + strcspn(eq + 1, "^")] = '\0';
		snprintf(origin, len, "%s", eq + 1);
		return true;
	}
	return false;
}
