// SPDX-License-Identifier: LGPL-2.1
/*
 * Trace events and tracefs instances through libtracefs, under atag_tracefs_dir()
 * (rules in include/atag-tracefs.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "atag-tracefs.h"
#include "atag-utils.h"

/* The top of our tracefs directory (@name NULL) or one of its instances. */
static struct tracefs_instance *instance_alloc(const char *name)
{
	const char *dir = atag_tracefs_dir();
	struct tracefs_instance *inst;

	if (!dir)
		return NULL;
	errno = 0;
	inst = tracefs_instance_alloc(dir, name);
	if (!inst && !errno)
		errno = ENOENT;		/* there, but not a directory */
	return inst;
}

bool atag_event_exists(const char *system, const char *event)
{
	struct tracefs_instance *top = instance_alloc(NULL);
	bool ret;

	if (!top)
		return false;
	ret = tracefs_event_file_exists(top, system, event, "format");
	tracefs_instance_free(top);
	return ret;
}

bool atag_event_spec_exists(const char *spec)
{
	const char *colon = strchr(spec, ':');
	char sys[64];

	if (!colon || colon - spec >= (long)sizeof(sys))
		return false;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
	return atag_event_exists(sys, colon + 1);
}

struct tracefs_instance *atag_instance_get(const char *name)
{
	return instance_alloc(name);
}

bool atag_instance_exists(const char *name)
{
	struct tracefs_instance *inst = instance_alloc(name);

	tracefs_instance_free(inst);
	return inst;
}

/* tracefs_instance_create() under atag_tracefs_dir(): see the header */
static struct tracefs_instance *create_in_our_dir(const char *name)
{
	const char *dir = atag_tracefs_dir();
	struct tracefs_instance *inst;
	int err;

	if (!dir)
		return NULL;
	if (tracefs_set_tracing_dir((char *)dir)) {
		errno = ENOMEM;
		return NULL;
	}
	errno = 0;
	inst = tracefs_instance_create(name);
	err = errno ? errno : EIO;
	tracefs_set_tracing_dir(NULL);
	errno = err;
	return inst;
}

int atag_instance_create(const char *name)
{
	struct tracefs_instance *inst = create_in_our_dir(name);
	int err;

	if (!inst)
		return atag_err(-errno);
	if (!tracefs_instance_is_new(inst)) {
		tracefs_instance_free(inst);
		return atag_err(-EEXIST);
	}
	errno = 0;
	if (tracefs_instance_file_write(inst, "tracing_on", "0") < 0) {
		err = errno ? errno : EIO;
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
		return atag_err(-err);
	}
	tracefs_instance_free(inst);
	return 0;
}

int atag_instance_destroy(const char *name)
{
	struct tracefs_instance *inst = instance_alloc(name);
	int ret;

	if (!inst)
		return atag_err(-errno);
	ret = tracefs_instance_destroy(inst) ? -errno : 0;
	tracefs_instance_free(inst);
	return atag_err(ret);
}

/* Add one CPU's stats to @lost: 0, 1 when they cannot be read, or -EBADMSG. */
static int add_cpu_stats(struct tracefs_instance *inst, const char *cpu, struct atag_lost *lost)
{
	struct atag_cpu_stats st;
	char file[300], *text;
	int ret, line;

	snprintf(file, sizeof(file), "per_cpu/%s/stats", cpu);
	text = tracefs_instance_file_read(inst, file, NULL);
	if (!text)
		return 1;
	ret = atag_parse_cpu_stats(text, &st, &line);
	free(text);
	if (ret)
		return -EBADMSG;
	lost->overrun += st.overrun != ATAG_STATS_UNKNOWN ? st.overrun : 0;
	lost->dropped += st.dropped_events != ATAG_STATS_UNKNOWN ? st.dropped_events : 0;
	lost->read += st.read_events != ATAG_STATS_UNKNOWN ? st.read_events : 0;
	lost->unread += st.entries != ATAG_STATS_UNKNOWN ? st.entries : 0;
	lost->nr_cpus++;
	return 0;
}

int atag_instance_lost_events(const char *name, struct atag_lost *lost)
{
	struct tracefs_instance *inst;
	struct dirent *d;
	char *dir;
	int ret = 0;
	DIR *dp;

	memset(lost, 0, sizeof(*lost));
	inst = instance_alloc(name);
	if (!inst)
		return atag_err(-errno);
	dir = tracefs_instance_get_file(inst, "per_cpu");
	dp = dir ? opendir(dir) : NULL;
	if (!dp)
		ret = dir ? -errno : -ENOMEM;
	while (dp && !ret && (d = readdir(dp))) {
		if (strncmp(d->d_name, "cpu", 3))
			continue;
		ret = add_cpu_stats(inst, d->d_name, lost);
		ret = ret > 0 ? 0 : ret;
	}
	if (dp)
		closedir(dp);
	tracefs_put_tracing_file(dir);
	tracefs_instance_free(inst);
	return atag_err(ret);
}
