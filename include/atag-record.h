/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-record.h - recording trace events into a trace.dat through a tracefs instance
 * of our own.
 *
 * The writer is stock `trace-cmd record -d -k -B INSTANCE ...`: the standard
 * trace.dat writer (kallsyms, cmdlines, event formats, splice per CPU). It needs
 * -d -k on kernels whose ftrace_enabled or function-tracer files are not writable,
 * and -k makes it leave what it set up: the events it enabled, their triggers and
 * the buffer size. All of that lives inside the instance, which we create before
 * (atag_instance_create()) and remove after (atag_instance_destroy()); removing an
 * instance disables its events and drops its triggers. Nothing outside the instance
 * is written: trace-cmd records only the instances named with -B.
 *
 * The recorder runs in a process group of its own (the terminal's Ctrl-C goes to the
 * caller, who decides) and gets SIGINT when its parent dies, so that even a SIGKILLed
 * caller leaves a complete trace.dat behind.
 */
#ifndef _ATAG_RECORD_H
#define _ATAG_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "atag-utils.h"

#define ATAG_INSTANCE_PREFIX	"trace-cmd-alloc-tag-"
#define ATAG_TRACE_CMD_ENV	"ATAG_TRACE_CMD"

struct atag_recorder_opts {
	const char		*instance;	/* the instance to record */
	const char		*output;	/* the trace.dat to write */
	const char		*trace_cmd;	/* NULL: $ATAG_TRACE_CMD, else "trace-cmd" */
	const char * const	*events;	/* "system:event", NULL-terminated */
	const char * const	*stack_events;	/* those of @events that get a stacktrace
						 * trigger, NULL-terminated (may be NULL) */
	unsigned long		buffer_kb;	/* per-CPU buffer size, 0: the default */
	int			log_fd;		/* trace-cmd's stdout and stderr, -1: /dev/null
						 * (may be close-on-exec) */
};

/* Events the kernel dropped or overwrote, summed over the CPUs of an instance. */
struct atag_lost {
	unsigned long long	overrun;	/* overwritten before they were read */
	unsigned long long	dropped;	/* dropped because the buffer was full */
	unsigned long long	read;		/* read out of the buffer */
	int			nr_cpus;	/* CPUs whose stats could be read */
};

struct atag_recorder;

/**
 * atag_event_exists - whether the kernel has a trace event
 * @system: its system ("alloc_tag")
 * @event: its name
 */
bool atag_event_exists(const char *system, const char *event);

/**
 * atag_instance_create - create a new tracefs instance, stopped
 * @name: its name
 *
 * Never adopts an existing instance. The new instance has tracing_on 0, so that
 * atag_recorder_wait_ready() can see the recorder switch it on.
 * Returns 0, -EEXIST when it exists, or another -errno.
 */
int atag_instance_create(const char *name);

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
 * @lost: filled from per_cpu/cpuN/stats
 *
 * Returns 0 or -errno.
 */
int atag_instance_lost_events(const char *name, struct atag_lost *lost);

/**
 * atag_recorder_start - start trace-cmd record on an instance
 * @opts: what to record
 *
 * Returns the recorder, or NULL with errno set (ENOENT: trace-cmd not found).
 */
struct atag_recorder *atag_recorder_start(const struct atag_recorder_opts *opts);

/**
 * atag_recorder_pid - the process id of the recorder
 * @r: the recorder
 */
pid_t atag_recorder_pid(const struct atag_recorder *r);

/**
 * atag_recorder_wait_ready - wait until the recorder records
 * @r: the recorder
 * @timeout_ms: how long to wait at most
 * @stop: the caller's stop flag, polled (may be NULL)
 *
 * Ready means the instance's tracing_on is 1: trace-cmd switches it on after its
 * readers run. Returns 0, -ECHILD when the recorder exited, -ETIMEDOUT, or -EINTR
 * when *@stop became set.
 */
int atag_recorder_wait_ready(struct atag_recorder *r, int timeout_ms,
			     volatile sig_atomic_t *stop);

/**
 * atag_recorder_running - whether the recorder is still running
 * @r: the recorder
 *
 * Reaps it when it exited; atag_recorder_stop() then returns its status.
 */
bool atag_recorder_running(struct atag_recorder *r);

/**
 * atag_recorder_stop - make the recorder finish its trace.dat and wait for it
 * @r: the recorder
 * @timeout_ms: how long to wait before killing its process group
 *
 * Returns its exit status (0 when the trace.dat is complete), 128 + signal when a
 * signal ended it, or -ETIMEDOUT when it had to be killed.
 */
int atag_recorder_stop(struct atag_recorder *r, int timeout_ms);

/**
 * atag_recorder_free - free a recorder, killing it first if it still runs
 * @r: the recorder, may be NULL
 */
void atag_recorder_free(struct atag_recorder *r);

#endif /* _ATAG_RECORD_H */
