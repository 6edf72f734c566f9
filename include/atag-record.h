/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-record.h - the recorder: trace events of one tracefs instance written into a
 * trace.dat by stock trace-cmd record (lib/kernel/atag-recorder.c).
 *
 * The writer is `trace-cmd record -d -k -B INSTANCE ...`: the standard trace.dat
 * writer (kallsyms, cmdlines, event formats, splice per CPU). It needs -d -k on
 * kernels whose ftrace_enabled or function-tracer files are not writable, and -k makes
 * it leave what it set up: the events it enabled, their triggers and the buffer size.
 * All of that lives inside the instance, which a session creates before and removes
 * after (include/atag-session.h); removing an instance disables its events and drops
 * its triggers. Nothing outside the instance is written: trace-cmd records only the
 * instances named with -B.
 *
 * Processes: atag_recorder_start() forks. The child runs in a process group of its own
 * (the terminal's Ctrl-C goes to the caller, who decides), gets SIGINT when its parent
 * dies (so that even a SIGKILLed caller leaves a complete trace.dat behind), has
 * SIGINT, SIGTERM and SIGPIPE at their default actions, and stdin on /dev/null,
 * stdout and stderr on the log; the caller's other files follow their close-on-exec
 * flags.
 * The caller keeps its signal handling; the recorder is reaped by pid (waitpid() on
 * it, never on -1), so the caller's other children are left alone.
 *
 * Waits: the recorder's end is seen through a pidfd (atag_recorder_fd(), for the
 * caller's own poll()), its start through an inotify watch on the instance's
 * tracing_on. A wait also ends when the caller's stop fd becomes readable (a self-pipe
 * its signal handler writes): see include/atag-utils.h.
 */
#ifndef _ATAG_RECORD_H
#define _ATAG_RECORD_H

#include <stdbool.h>
#include <sys/types.h>

#define ATAG_TRACE_CMD_ENV	"ATAG_TRACE_CMD"

struct atag_recorder_opts {
	const char		*instance;	/* the instance to record */
	const char		*output;	/* the trace.dat to write */
	const char		*trace_cmd;	/* NULL: atag_recorder_program(NULL) */
	const char * const	*events;	/* "system:event", NULL-terminated */
	const char * const	*stack_events;	/* those of @events that get a stacktrace
						 * trigger, NULL-terminated (may be NULL) */
	unsigned long		buffer_kb;	/* per-CPU buffer size, 0: the default */
	int			log_fd;		/* trace-cmd's stdout and stderr, -1: /dev/null
						 * (may be close-on-exec) */
};

struct atag_recorder;

/**
 * atag_recorder_program - the trace-cmd to run
 * @trace_cmd: the one asked for, or NULL
 *
 * Returns @trace_cmd, else $ATAG_TRACE_CMD when set and not empty, else "trace-cmd".
 */
const char *atag_recorder_program(const char *trace_cmd);

/**
 * atag_recorder_found - whether atag_recorder_program(@trace_cmd) can be run
 * @trace_cmd: as for atag_recorder_program()
 *
 * A name with a slash must be executable; a bare name must be found in $PATH.
 */
bool atag_recorder_found(const char *trace_cmd);

/**
 * atag_recorder_start - start trace-cmd record on an instance
 * @opts: what to record
 *
 * Returns the recorder, or NULL with errno set. A trace-cmd that cannot be run is not
 * an error here: the child exits 127 (atag_recorder_wait_ready() says -ECHILD).
 */
struct atag_recorder *atag_recorder_start(const struct atag_recorder_opts *opts);

/**
 * atag_recorder_pid - the process id of the recorder (also its process group)
 * @r: the recorder
 */
pid_t atag_recorder_pid(const struct atag_recorder *r);

/**
 * atag_recorder_fd - a pidfd of the recorder, readable once it exited
 * @r: the recorder
 *
 * For the caller's poll(); owned by @r.
 */
int atag_recorder_fd(const struct atag_recorder *r);

/**
 * atag_recorder_wait_ready - wait until the recorder records
 * @r: the recorder
 * @timeout_ms: how long to wait at most
 * @stop_fd: the caller's stop fd, -1 for none
 *
 * Ready means the instance's tracing_on is 1 (trace-cmd switches it on once it
 * forked its per-CPU readers) and every CPU's trace_pipe_raw is open in a process of
 * the recorder's group (a reader opens it once its handlers are set: stopped before,
 * it would die and its CPU's events would be lost). Returns 0, -EINTR when @stop_fd is readable (checked first),
 * -ECHILD when the recorder exited, or -ETIMEDOUT.
 */
int atag_recorder_wait_ready(struct atag_recorder *r, int timeout_ms, int stop_fd);

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
 * @timeout_ms: how long to wait after SIGINT before killing its process group
 *
 * Returns its exit status (0 when the trace.dat is complete), 128 + signal when a
 * signal ended it, or -ETIMEDOUT when it had to be killed.
 */
int atag_recorder_stop(struct atag_recorder *r, int timeout_ms);

/**
 * atag_recorder_free - free a recorder, killing its process group first if it runs
 * @r: the recorder, may be NULL
 */
void atag_recorder_free(struct atag_recorder *r);

#endif /* _ATAG_RECORD_H */
