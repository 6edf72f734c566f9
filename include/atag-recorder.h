/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-recorder.h - the recorder: trace events of one tracefs instance written into a
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
 * dies (so that even a SIGKILLed caller leaves a complete trace.dat behind), has every
 * signal the caller handles at its default action (a signal sent to it right after
 * fork() ends it, never a copy of the caller's handler), SIGPIPE at its default, the
 * umask 077, and stdin on /dev/null, stdout and stderr on the log; the caller's other
 * files follow their close-on-exec flags.
 * The caller keeps its signal handling; the recorder is reaped by pid (waitpid() on
 * it, never on -1), so the caller's other children are left alone.
 *
 * Files: with an output (struct atag_output, below), trace-cmd runs inside a private
 * directory, mode 0700, made beside the final file: its trace.dat and its per-CPU
 * temporaries (NAME.INSTANCE.cpuN, and "(null).cpuN" for the top buffer it does not
 * record) have names nobody else can create or link there. Only a complete trace.dat
 * is moved into place, by renameat() from that directory (a link planted at the
 * output's name is replaced, never followed), with mode atag_output_mode(); after a
 * failure the directory goes with all that is in it.
 *
 * Waits: the recorder's end is seen through a pidfd (atag_recorder_fd(), for the
 * caller's own poll()), its start through an inotify watch on the instance's
 * tracing_on. A wait also ends when the caller's stop fd becomes readable (a self-pipe
 * its signal handler writes): see include/atag-utils.h.
 */
#ifndef _ATAG_RECORDER_H
#define _ATAG_RECORDER_H

#include <stdbool.h>
#include <sys/types.h>

#define ATAG_TRACE_CMD_ENV	"ATAG_TRACE_CMD"

/* The private directory's name starts so; trace-cmd's output in it is so named. */
#define ATAG_OUTPUT_TMP_PREFIX	".trace-cmd-alloc-tag."
#define ATAG_OUTPUT_NAME	"trace.dat"

/* How long a recorder stopped before it recorded gets to end before SIGKILL. */
#define ATAG_RECORDER_UNREADY_MS	2000

struct atag_output;

/*
 * A stack trigger: the event it is set on ("system:event") and the trigger written
 * ("stacktrace", or "stacktrace if FILTER": a stack for the events the filter passes).
 */
struct atag_stack_trigger {
	const char		*event;
	const char		*trigger;
};

struct atag_recorder_opts {
	const char		*instance;	/* the instance to record */
	const char		*output;	/* the trace.dat to write (without @out) */
	const struct atag_output *out;		/* where to write it instead (NULL: none) */
	const char		*trace_cmd;	/* NULL: atag_recorder_program(NULL) */
	const char * const	*events;	/* "system:event", NULL-terminated */
	/* triggers on events of @events, ending with a NULL event (may be NULL) */
	const struct atag_stack_trigger	*stacks;
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
 * atag_recorder_status - how the recorder ended: its exit status, 128 + the signal
 * that killed it, or -1 while it runs (or was not reaped yet)
 * @r: the recorder
 */
int atag_recorder_status(const struct atag_recorder *r);

/**
 * atag_recorder_ready - whether atag_recorder_wait_ready() saw it record
 * @r: the recorder
 */
bool atag_recorder_ready(const struct atag_recorder *r);

/**
 * atag_recorder_exe - the program the recorder runs, resolved at its start
 * @r: the recorder
 *
 * An absolute path, or "" when it could not be resolved. For a script, its own path
 * (the process then runs its interpreter, with the script as first argument).
 */
const char *atag_recorder_exe(const struct atag_recorder *r);

/**
 * atag_recorder_stop - make the recorder finish its trace.dat and wait for it
 * @r: the recorder
 * @timeout_ms: how long to wait after SIGINT before killing its process group
 *
 * SIGINT is repeated every half second meanwhile (trace-cmd can miss one). A recorder
 * that was never seen ready gets ATAG_RECORDER_UNREADY_MS at most: it has nothing to
 * complete. Returns its exit status (0 when the trace.dat is complete), 128 + signal
 * when a signal ended it, or -ETIMEDOUT when it had to be killed.
 */
int atag_recorder_stop(struct atag_recorder *r, int timeout_ms);

/**
 * atag_recorder_free - free a recorder, killing its process group first if it runs
 * @r: the recorder, may be NULL
 */
void atag_recorder_free(struct atag_recorder *r);

/* ------------------------------------------------------------------ sampled stacks
 * (lib/kernel/atag-sampler.c) */

/*
 * A stack for one allocation in @every (a power of two): the stacktrace trigger of an
 * event with an address field "ptr" passes the events whose address bits
 * ATAG_SAMPLE_SHIFT .. ATAG_SAMPLE_SHIFT + log2(@every) - 1 hold one pattern, and a
 * thread moves the trigger to the next pattern every period, so that over a round of
 * @every periods every allocation is sampled once in @every, whatever its slot
 * (objects are reused: a fixed rule on addresses would sample some call sites at
 * every allocation and others never). Bits from 6: they differ between the objects
 * of one slab page for objects of 64 bytes and more, and between pages for larger
 * ones (for pages: the struct page's address).
 */
#define ATAG_SAMPLE_SHIFT	6

/*
 * atag_sampler_trigger - the trigger text for position @i of the round
 * @every: the sampling (1: every allocation, "stacktrace")
 * @i: 0 .. @every - 1 (the first: what trace-cmd is started with)
 * @buf, @len: where to write it ("stacktrace if !(ptr & 0x40) && ...")
 *
 * Returns 0, or -E2BIG when @buf is too short.
 */
int atag_sampler_trigger(unsigned int every, unsigned int i, char *buf, size_t len);

struct atag_sampler;

/* What the sampler did, when stopped. */
struct atag_sampler_result {
	unsigned int	rotations;	/* times the triggers moved on */
	int		error;		/* -errno of the failure that stopped it, or 0 */
	char		failed[128];	/* the event it failed on */
};

/**
 * atag_sampler_start - move the stack triggers of @events on, every @period_ms
 * @instance: the tracefs instance whose triggers they are (the recorder set them,
 *            with position 0)
 * @events: "system:event", NULL-terminated (at most 8)
 * @every: as for atag_sampler_trigger()
 * @period_ms: how long a pattern stays (a change takes a grace period or two)
 *
 * Starts a thread, with every signal blocked, that replaces each trigger (remove,
 * then add: in between the event takes no stack). Returns the sampler, or NULL with
 * errno set.
 */
struct atag_sampler *atag_sampler_start(const char *instance, const char * const *events,
					unsigned int every, unsigned int period_ms);

/**
 * atag_sampler_stop - stop the thread and free the sampler
 * @s: the sampler, may be NULL
 * @res: filled with what it did (may be NULL)
 *
 * Waits for a change under way (a grace period). Returns 0, or the -errno of the
 * failure that stopped it early (the triggers then stayed at the last pattern set).
 */
int atag_sampler_stop(struct atag_sampler *s, struct atag_sampler_result *res);

/* ------------------------------------------------------------------ the output
 * (lib/kernel/atag-recorder-output.c) */

/* Called with the private directory's path before it is made (to list it), 0 or -errno. */
typedef int (*atag_output_note_fn)(const char *tmpdir, const char *final, void *ctx);

/**
 * atag_output_create - a private directory beside the trace.dat to write
 * @path: the trace.dat (its directory must exist)
 * @note: called with the directory's absolute path and the output's before it is
 *        made (a state file lists it first); NULL: none
 * @ctx: passed to @note
 *
 * The directory is ATAG_OUTPUT_TMP_PREFIX and random characters, made with mkdir
 * (never one that exists), mode 0700, and checked to be ours after it is opened.
 * Returns the output, or NULL with errno set (EISDIR: @path names a directory; EINVAL:
 * something there that is neither a file nor a link, which a rename would replace).
 */
struct atag_output *atag_output_create(const char *path, atag_output_note_fn note, void *ctx);

/**
 * atag_output_dirfd - the private directory, where the recorder writes ATAG_OUTPUT_NAME
 * @o: the output
 *
 * -1 once it was committed or discarded.
 */
int atag_output_dirfd(const struct atag_output *o);

/* The trace.dat to write, and the private directory: absolute paths. */
const char *atag_output_path(const struct atag_output *o);
const char *atag_output_tmpdir(const struct atag_output *o);

/**
 * atag_output_mode - the mode of a trace.dat: 0600, or 0640 under a umask that shuts
 * others out entirely (027, 007), less what the umask removes
 *
 * A trace.dat holds kallsyms, the address of every kernel symbol: never for others.
 */
mode_t atag_output_mode(void);

/**
 * atag_output_full - whether the file system of the private directory is full
 * @o: the output, before it is committed or discarded
 *
 * (no block left for the caller: f_bfree for root, f_bavail for others)
 */
bool atag_output_full(const struct atag_output *o);

/**
 * atag_output_commit - move the recorder's trace.dat into place, remove the rest
 * @o: the output
 *
 * The file gets atag_output_mode() and is renamed over the output's name, a regular
 * file there first kept as NAME.old (atag_keep_old()); the private directory goes,
 * with whatever else is in it. Returns 0, 1 when an older file was kept as NAME.old,
 * -ENOENT when the recorder wrote no trace.dat, -EBADMSG when that is not a regular
 * file, or -errno (the directory is gone in every case).
 */
int atag_output_commit(struct atag_output *o);

/**
 * atag_output_discard - remove the private directory and all in it
 * @o: the output, may be NULL
 *
 * Whatever a failed recorder left (a partial trace.dat, the .cpuN temporaries) goes.
 */
void atag_output_discard(struct atag_output *o);

/**
 * atag_output_free - discard what was not committed, and free
 * @o: the output, may be NULL
 */
void atag_output_free(struct atag_output *o);

/**
 * atag_output_recover - finish the output of a recorder whose caller was killed
 * @tmpdir: the private directory, as listed
 * @final: the trace.dat it was for
 * @moved: set to whether a trace.dat was moved into place
 *
 * For reset, once the recorder ended: a trace.dat that trace-cmd completed (it removes
 * its .cpuN temporaries last) is moved into place as atag_output_commit() does; the
 * directory is removed in any case. Only a directory named ATAG_OUTPUT_TMP_PREFIX...,
 * beside @final, ours alone, is touched (-EINVAL, -EPERM otherwise). Returns 0 (also
 * when the directory is gone already) or -errno.
 */
int atag_output_recover(const char *tmpdir, const char *final, bool *moved);

#endif /* _ATAG_RECORDER_H */
