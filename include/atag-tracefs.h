/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-tracefs.h - the trace events and the tracefs instances of the kernel side, on
 * libtracefs' instance API (lib/kernel/atag-tracefs.c).
 *
 * Everything happens under atag_tracefs_dir() (include/atag-utils.h): the first
 * tracefs mount, or the fake tree a test set with atag_tracefs_set_dir(). The
 * instances this tool creates are named ATAG_INSTANCE_PREFIX and the pid of the
 * command that owns them; nothing here touches an instance it was not asked to, and
 * nothing touches the top-level buffer.
 *
 * libtracefs creates instances under its own tracing directory only: for the one call
 * to tracefs_instance_create(), its directory is set to atag_tracefs_dir() with
 * tracefs_set_tracing_dir() and set back to automatic after. That is the only
 * process-wide setting this module changes.
 */
#ifndef _ATAG_TRACEFS_H
#define _ATAG_TRACEFS_H

#include <stdbool.h>

struct tracefs_instance;

#define ATAG_INSTANCE_PREFIX	"trace-cmd-alloc-tag-"

/* Events the kernel dropped or overwrote, summed over the CPUs of an instance. */
struct atag_lost {
	unsigned long long	overrun;	/* overwritten before they were read */
	unsigned long long	dropped;	/* dropped because the buffer was full */
	unsigned long long	read;		/* read out of the buffer */
	unsigned long long	unread;		/* still in it ("entries") */
	int			nr_cpus;	/* CPUs whose stats could be read */
};

/**
 * atag_event_exists - whether the kernel has a trace event
 * @system: its system ("alloc_tag")
 * @event: its name
 */
bool atag_event_exists(const char *system, const char *event);

/* The same for "system:event" (false without the colon). */
bool atag_event_spec_exists(const char *spec);

/**
 * atag_instance_create - create a new tracefs instance, stopped
 * @name: its name
 *
 * Never adopts an existing instance. The new instance has tracing_on 0, so that its
 * user (atag_recorder_wait_ready()) can see the recorder switch it on; when that
 * write fails, the instance is removed again.
 * Returns 0, -EEXIST when it exists, or another -errno.
 */
int atag_instance_create(const char *name);

/**
 * atag_instance_get - the libtracefs handle of an existing instance
 * @name: its name
 *
 * Returns the handle (tracefs_instance_free() it), or NULL with errno set (ENOENT:
 * there is no such instance).
 */
struct tracefs_instance *atag_instance_get(const char *name);

/**
 * atag_instance_exists - whether a tracefs instance exists
 * @name: its name
 */
bool atag_instance_exists(const char *name);

/**
 * atag_instance_destroy - remove a tracefs instance, with its events and triggers
 * @name: its name
 *
 * Returns 0, -ENOENT when there is no such instance, or another -errno (-EBUSY while
 * a recorder still has its files open).
 */
int atag_instance_destroy(const char *name);

/**
 * atag_instance_lost_events - lost-event counters of an instance
 * @name: its name
 * @lost: filled from its per_cpu/cpuN/stats files (atag_parse_cpu_stats())
 *
 * A CPU whose stats cannot be read is left out of @lost->nr_cpus.
 * Returns 0, -ENOENT when there is no such instance, -EBADMSG when a stats file is not
 * in the known format, or another -errno.
 */
int atag_instance_lost_events(const char *name, struct atag_lost *lost);

#endif /* _ATAG_TRACEFS_H */
