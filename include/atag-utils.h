/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-utils.h - what every part of libatag shares: logging, errors, units, and the
 * reading of small kernel files (lib/util/).
 *
 *   atag-utils.c          logging, errors, sizes, durations, numbers, globs
 *   atag-files.c          a file or a reader's output read whole; "key: value"
 *                         lines; a directory walked from a descriptor
 *   atag-tracefs-mount.c  where tracefs is mounted; a ring buffer's
 *                         per_cpu/cpuN/stats file
 *   atag-proc.c           processes named across pid reuse; waiting on pidfds and
 *                         poll()
 * and, with headers of their own, the JSON writer (include/atag-json.h) and the hash
 * map (lib/util/atag-map.h).
 *
 * Conventions of the whole library:
 *  - int functions return 0 on success or a negative errno, and also set errno;
 *    pointer functions return NULL and set errno.
 *  - The library never prints to stdout and never exits. Diagnostics go through
 *    atag_warning(), a weak function an application may override, gated by
 *    atag_set_loglevel().
 */
#ifndef _ATAG_UTILS_H
#define _ATAG_UTILS_H

#include <dirent.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct pollfd;

enum atag_loglevel {
	ATAG_LOG_NONE,
	ATAG_LOG_CRITICAL,
	ATAG_LOG_WARNING,
	ATAG_LOG_INFO,
	ATAG_LOG_DEBUG,
};

/* Messages at or below @level are printed (default ATAG_LOG_WARNING). */
void atag_set_loglevel(enum atag_loglevel level);

/* Print a warning to stderr, prefixed with "trace-cmd-alloc-tag: ". Weak: may be replaced. */
void atag_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void atag_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Set errno to -@err and return @err, for "return atag_err(-EINVAL);". */
int atag_err(int err);

/*
 * Human-readable sizes, in binary units: "512 B", "1.0 KiB", "12.5 MiB".
 * Returns @buf.
 */
char *atag_format_size(char *buf, size_t len, unsigned long long bytes);

/* Durations from nanoseconds: "850 ns", "12.3 us", "4.50 ms", "2.00 s", "1h02m". */
char *atag_format_duration(char *buf, size_t len, unsigned long long ns);

/*
 * Parse a size: a number with an optional suffix K, M, G, T (powers of 1024, an
 * optional "iB" or "B" may follow). Returns 0 or -EINVAL.
 */
int atag_parse_size(const char *str, unsigned long long *bytes);

/*
 * Parse a duration: a number (may be fractional) with a unit ns, us, ms, s, m or h;
 * no unit means seconds. Returns 0 or -EINVAL.
 */
int atag_parse_duration(const char *str, unsigned long long *ns);

/*
 * Parse a timestamp as printed by trace-cmd report ("1284.788182", seconds with
 * a fraction) or in nanoseconds with an "ns" suffix. Returns 0 or -EINVAL.
 */
int atag_parse_timestamp(const char *str, unsigned long long *ns);

/*
 * Parse an unsigned decimal number (counts, pids, line numbers: "010" is ten, not
 * octal eight). Returns 0, or -EINVAL (empty, a sign, trailing text, overflow)
 * leaving *@val untouched.
 */
int atag_parse_u64(const char *str, unsigned long long *val);

/* Shell-style glob match (fnmatch without flags); a NULL pattern matches everything. */
bool atag_glob_match(const char *pattern, const char *str);


/* ------------------------------------------------------------------ files */

/*
 * A reader for atag_read_all(): up to @len bytes at offset @off into @buf; returns how
 * many, 0 at the end, or -errno.
 */
typedef ssize_t (*atag_read_fn)(void *ctx, char *buf, size_t len, off_t off);

/**
 * atag_read_all - all a reader gives, as one NUL-terminated buffer
 * @read_fn: the reader, called with growing offsets until it returns 0
 * @ctx: passed to it
 * @max: the most it may give (SIZE_MAX: no limit)
 * @len: set to the number of bytes read (may be NULL)
 *
 * Returns the buffer (free() it), or NULL with errno set: EFBIG when the reader has
 * more than @max bytes to give (what was read is dropped), ENOMEM, or the reader's
 * error.
 */
char *atag_read_all(atag_read_fn read_fn, void *ctx, size_t max, size_t *len);

/* The most an input read whole may hold: /proc/allocinfo, kallsyms, a state file. */
#define ATAG_INPUT_MAX		(256UL << 20)
#define ATAG_INPUT_MAX_TEXT	"256 MiB"

/* errno of a file that is not a regular one: a FIFO, a device, a socket. */
#define ATAG_ENOTREG		EMEDIUMTYPE

/**
 * atag_open_input - open a file to read, which must be a regular file
 * @dirfd: the directory @path is relative to (AT_FDCWD: the working directory)
 * @path: the file
 * @flags: more open() flags (O_NOFOLLOW)
 *
 * Opens without blocking (a FIFO without a writer, a device, cannot hold the open),
 * then looks at what it opened (fstat(): no race between a check and the open): a
 * regular file, else it is closed again. Kernel pseudo-files (/proc, tracefs) are
 * regular files. Returns the descriptor (close-on-exec, blocking reads), or -errno:
 * -EISDIR for a directory, -ATAG_ENOTREG for another file that is not regular.
 */
int atag_open_input(int dirfd, const char *path, int flags);

/**
 * atag_read_file - a regular file's whole content, as one NUL-terminated buffer
 * @path: the file, opened with atag_open_input()
 * @max: the most it may hold (ATAG_INPUT_MAX for an input of unknown size)
 * @len: set to the number of bytes read (may be NULL)
 *
 * Reads from the start with read() (kernel pseudo-files want no pread()), retrying on
 * EINTR. Returns the buffer (free() it), or NULL with errno set: EFBIG when the file
 * holds more than @max bytes, EISDIR, ATAG_ENOTREG, or what open() or read() set.
 */
char *atag_read_file(const char *path, size_t max, size_t *len);

/*
 * Whether the regular file open at @fd says it holds more than @max bytes: refused
 * then without a read (a kernel pseudo-file's size says nothing: its read stops).
 */
bool atag_input_too_large(int fd, size_t max);

/* As atag_read_file(), the first @max bytes of a longer file (/proc/PID/stat, a head). */
char *atag_read_head(const char *path, size_t max, size_t *len);

/*
 * strerror(), with this library's meanings: "not a regular file (a FIFO, a device or a
 * socket)" for ATAG_ENOTREG, "larger than ATAG_INPUT_MAX_TEXT: not read" for EFBIG.
 */
const char *atag_strerror(int err);

/**
 * atag_opendir_fd - walk the directory open at a descriptor, from its start
 * @fd: an open directory; it stays open and the caller's
 *
 * Returns a stream of its own (closedir() it), rewound, or NULL with errno set.
 */
DIR *atag_opendir_fd(int fd);

/**
 * atag_kernel_fs - the kernel file system a directory is on, if it is one
 * @dir: the directory
 *
 * Returns "proc", "sysfs", "tracefs", "debugfs", "cgroup", "cgroup2", "securityfs" or
 * "bpf" for a directory of those file systems of the kernel's, where no output file
 * can be made, or NULL (another file system, or @dir cannot be looked at).
 */
const char *atag_kernel_fs(const char *dir);

/*
 * atag_elide_middle - @s cut to @width bytes by a "..." in its middle, into @buf of
 * @len; @s whole when it fits (or @width is 0). The start and the end stay: for a
 * call site, its function and its line or module. Returns @buf.
 */
char *atag_elide_middle(char *buf, size_t len, const char *s, size_t width);

/*
 * The narrowest a call-site column is cut to; when the other columns leave less,
 * it is not cut (the line is wider than the terminal anyway).
 */
#define ATAG_MIN_SITE_WIDTH	12

/* ------------------------------------------------------------------ text to show */

/*
 * Strings from traces and kernel files (function, file, module and comm names) go to
 * text and CSV outputs escaped: control characters (C0, DEL, the C1 controls U+0080
 * to U+009F) and bytes of no well-formed UTF-8 sequence become \xNN, so none reaches
 * a terminal; other UTF-8 text goes as it is. JSON has its own escapes (atag-json.h).
 */

/* The length of the well-formed UTF-8 sequence at @p, or 0 when @p starts none. */
size_t atag_utf8_len(const unsigned char *p);

/* Whether @s goes out as it is (nothing in it to escape). */
bool atag_text_clean(const char *s);

/* @s escaped into @buf of @len bytes (cut to fit; NULL is empty). Returns @buf. */
char *atag_text(char *buf, size_t len, const char *s);

/* @s escaped, malloc()ed; NULL when out of memory. */
char *atag_text_dup(const char *s);

/* Write @s escaped to @f. */
void atag_text_fputs(const char *s, FILE *f);

/*
 * A call site to show, into @buf of @len: "function file:line [module]", or
 * "function+0xoff" (@offset >= 0), without what is NULL; the names escaped. Returns @buf.
 */
char *atag_site_text(char *buf, size_t len, const char *function, long long offset,
		     const char *file, long line, const char *module);

/*
 * atag_csv_write_cell - the @n strings joined by @sep as one CSV cell (RFC 4180):
 * each escaped as text is, quoted with its quotes doubled when it holds a comma or a
 * quote; a cell that starts with '=', '+', '-' or '@' (a formula to spreadsheet
 * programs) gets a leading "'", as they expect of text. n = 0 is an empty cell.
 */
void atag_csv_write_cell(FILE *f, char *const *strs, unsigned int n, char sep);

/* One string as a CSV cell, as above; NULL is an empty cell. */
void atag_csv_write_string(FILE *f, const char *s);

/* Whether @s is a CSV cell as it is: nothing to escape, quote or neutralise. */
bool atag_csv_plain(const char *s);

/**
 * atag_find_program - where execvp() would find a program
 * @name: as given with a slash, else searched in $PATH (unset: /usr/bin:/bin; an
 *        empty entry is the working directory)
 * @full: set to its path
 * @len: the size of @full
 *
 * Returns 0 when it is an executable regular file, -ENOENT when there is none,
 * -EACCES when what there is cannot be run (not executable, a directory).
 */
int atag_find_program(const char *name, char *full, size_t len);

/**
 * atag_keep_old - keep an existing output file as NAME.old before it is replaced
 * @dirfd: the directory @name is relative to (AT_FDCWD: the working directory)
 * @name: the output file
 * @old: set to "@name.old" (may be NULL)
 * @len: the size of @old
 *
 * Only a regular file is kept, by rename (an older NAME.old is replaced); a link,
 * a device or a pipe stays (the outputs replace a link and write a device in place).
 * Returns 1 when @name was renamed, 0 when there was no regular file at @name, or
 * -errno (ENAMETOOLONG: NAME.old does not fit @len or PATH_MAX).
 */
int atag_keep_old(int dirfd, const char *name, char *old, size_t len);

/* Called for each "key: value" line; non-zero stops the walk. */
typedef int (*atag_kv_fn)(const char *key, const char *value, void *ctx);

/**
 * atag_parse_kv - walk the "key: value" lines of a text
 * @text: the text, NUL-terminated
 * @fn: called with the key and the value of each line, both trimmed
 * @ctx: passed to @fn
 * @line: set to the 1-based number of the line that stopped the walk, else 0
 *
 * Blank lines are skipped; lines are cut at 255 characters. Returns 0, or -EINVAL for
 * a line without ':' or one @fn refused.
 */
int atag_parse_kv(const char *text, atag_kv_fn fn, void *ctx, int *line);

/* ------------------------------------------------------------------ tracefs */

/**
 * atag_tracefs_find - where tracefs is mounted, from a mount table
 * @mounts: the table (NULL: /proc/mounts)
 * @buf: receives the first tracefs mount point
 * @len: size of @buf
 *
 * Reads the table only: never mounts anything, never touches the debugfs automount.
 * Returns 0, -ENODEV when no tracefs is mounted, or -errno reading @mounts.
 */
int atag_tracefs_find(const char *mounts, char *buf, size_t len);

/**
 * atag_tracefs_dir - the tracefs directory the library works in
 *
 * The directory set with atag_tracefs_set_dir(), else the first tracefs mount
 * (atag_tracefs_find(), looked up once). Returns it, or NULL with errno ENODEV.
 * Process-wide; not thread-safe.
 */
const char *atag_tracefs_dir(void);

/**
 * atag_tracefs_set_dir - make the library work in another tracefs directory
 * @dir: a tracefs tree (a test's fake one), copied; NULL: back to the mount
 *
 * Returns 0 or -ENOMEM.
 */
int atag_tracefs_set_dir(const char *dir);

#define ATAG_STATS_UNKNOWN	(~0ULL)

/*
 * One per_cpu/cpuN/stats file of a ring buffer; a field whose line is absent is
 * ATAG_STATS_UNKNOWN ("" for the timestamps).
 */
struct atag_cpu_stats {
	unsigned long long	entries;
	unsigned long long	overrun;	/* overwritten before they were read */
	unsigned long long	commit_overrun;
	unsigned long long	bytes;
	unsigned long long	dropped_events;	/* dropped because the buffer was full */
	unsigned long long	read_events;	/* read out of the buffer */
	/* as printed: "sec.usec", or a raw counter */
	char			oldest_ts[32];
	char			now_ts[32];
};

/**
 * atag_parse_cpu_stats - parse a per_cpu/cpuN/stats file
 * @text: the file's content
 * @stats: filled; fields whose line is absent are ATAG_STATS_UNKNOWN
 * @line: set to the 1-based number of a malformed line
 *
 * Unknown keys are ignored. Returns 0, or -EINVAL for a malformed line or value.
 */
int atag_parse_cpu_stats(const char *text, struct atag_cpu_stats *stats, int *line);

/* ------------------------------------------------------------------ processes and waits
 *
 * Waits end on an event (a process's end through its pidfd, a file descriptor that
 * becomes readable), never by sleeping and looking again. A caller's signal handler
 * ends a wait by making its @stop_fd readable (a self-pipe it writes to); the waits
 * retry poll() when a handler interrupts it. Nothing here installs a handler, sends a
 * signal the caller did not ask for, or reaps a child.
 */

/* CLOCK_MONOTONIC in nanoseconds. */
unsigned long long atag_now_ns(void);

/*
 * Milliseconds until @deadline_ns (atag_now_ns() time), rounded up, for poll(): 0 when
 * it is past, -1 when @deadline_ns is 0 (none).
 */
int atag_ms_until(unsigned long long deadline_ns);

/**
 * atag_poll - poll() until an event or @timeout_ms (-1: none), retried on EINTR
 * @fds: as for poll(); negative fds are ignored
 * @nr: how many
 * @timeout_ms: the whole wait, not each try
 *
 * Returns the number of fds with events (0: the time ran out) or -errno.
 */
int atag_poll(struct pollfd *fds, unsigned int nr, int timeout_ms);

/**
 * atag_wait_readable - wait until @fd is readable (a pidfd: its process ended)
 * @fd: the file descriptor
 * @timeout_ms: how long at most (-1: no limit)
 * @stop_fd: the caller's stop fd, -1 for none
 *
 * Returns 0, -ETIMEDOUT, -EINTR when @stop_fd became readable first, or -errno.
 */
int atag_wait_readable(int fd, int timeout_ms, int stop_fd);

/**
 * atag_proc_starttime - when a process started, in clock ticks since boot
 * @pid: the process
 *
 * With the pid, this names a process across pid reuse. Returns 0 when there is no
 * such process or it is a zombie.
 */
unsigned long long atag_proc_starttime(pid_t pid);

/**
 * atag_proc_alive - whether the process @pid that started at @start still runs
 * @pid: the process
 * @start: its start time (atag_proc_starttime())
 */
bool atag_proc_alive(pid_t pid, unsigned long long start);

/*
 * Without pidfds (Linux before 5.3, or under valgrind, which lacks pidfd_open()) a wait
 * for a process looks at it every ATAG_NO_PIDFD_MS instead.
 */
#define ATAG_NO_PIDFD_MS	10

/**
 * atag_pidfd_open - a pidfd for @pid (pidfd_open(), close-on-exec)
 * @pid: the process; a child that exited and is not reaped yet can still be opened
 *
 * Returns the fd, or -errno: -ESRCH when there is no such process, -ENOSYS without
 * pidfds (see ATAG_NO_PIDFD_MS).
 */
int atag_pidfd_open(pid_t pid);

/**
 * atag_proc_wait - wait until a process ends
 * @pid: the process
 * @start: its start time (atag_proc_starttime()), 0 for a child of ours (looked up)
 * @timeout_ms: how long at most (-1: no limit)
 * @stop_fd: the caller's stop fd, -1 for none
 *
 * The wait is for the process @start names: the start time is checked after its pidfd
 * is open, so a process that reused the pid is not waited for. A child is not reaped
 * (a zombie has ended). Returns 0 when it ended (or was gone), -ETIMEDOUT, -EINTR when
 * @stop_fd became readable first, or -errno.
 */
int atag_proc_wait(pid_t pid, unsigned long long start, int timeout_ms, int stop_fd);

/* Proves that @pid is the process meant, with its pidfd open (see atag_proc_stop()). */
typedef bool (*atag_proc_check_fn)(pid_t pid, void *ctx);

/* How atag_proc_stop() stops a process. */
struct atag_stop {
	int			sig;		/* asks it to finish (SIGINT: trace-cmd) */
	int			timeout_ms;	/* how long it may take to end after @sig */
	int			repeat_ms;	/* @sig again this often (0: once) */
	int			kill_timeout_ms; /* how long to wait after SIGKILL */
	bool			group;		/* SIGKILL its group, if it leads one */
	atag_proc_check_fn	check;		/* NULL, or what proves it is the one */
	void			*ctx;		/* for @check */
};

/**
 * atag_proc_stop - stop a process: a signal, then SIGKILL
 * @pid: the process
 * @start: as for atag_proc_wait()
 * @how: the signal, the timeouts, and what proves the process is the one meant
 *
 * Never signals pid 0 or 1, a process group by a negative id, or the caller itself
 * (-EINVAL). The process is named by its pidfd, opened first; the start time and then
 * @how->check are checked after that, so that what they prove holds for the process
 * signalled. @how->sig is repeated every @how->repeat_ms (a process may miss one that
 * comes while it sets up its handler). After @how->timeout_ms it gets SIGKILL: with
 * @how->group, its whole process group, but only when it leads it (through the pidfd
 * where the kernel can, Linux 6.9; else by id, checked right before).
 * Returns 0 when it ended after @how->sig (or was gone), 1 when it had to be killed,
 * -ETIMEDOUT when it still runs after SIGKILL, -EPERM when @how->check refused it (no
 * signal was sent), or -errno. A child is not reaped: waitpid() it after.
 */
int atag_proc_stop(pid_t pid, unsigned long long start, const struct atag_stop *how);

/**
 * atag_proc_cmdline - the arguments of a process, as /proc/PID/cmdline holds them
 * @pid: the process
 * @len: set to their length (NUL-separated, usually NUL-terminated)
 *
 * Returns the buffer (free() it) or NULL with errno set.
 */
char *atag_proc_cmdline(pid_t pid, size_t *len);

/**
 * atag_args_have - whether NUL-separated arguments hold a sequence of arguments
 * @args: the arguments (atag_proc_cmdline())
 * @len: their length
 * @seq: the arguments to find one after the other, NULL-terminated
 */
bool atag_args_have(const char *args, size_t len, const char * const *seq);

/**
 * atag_proc_exe - the program a process runs (/proc/PID/exe)
 * @pid: the process
 * @buf: receives the path
 * @len: size of @buf
 *
 * Returns 0 or -errno.
 */
int atag_proc_exe(pid_t pid, char *buf, size_t len);

/**
 * atag_proc_comm - the command name of a process or thread (/proc/PID/comm)
 * @pid: the process or thread id
 * @buf: receives the name, without its newline
 * @len: size of @buf
 *
 * Returns 0 or -errno.
 */
int atag_proc_comm(pid_t pid, char *buf, size_t len);

/**
 * atag_proc_threads - the threads of a process (/proc/PID/task)
 * @pid: the process
 * @tids: set to the thread ids (free() it)
 *
 * Returns how many, or -errno (-ENOENT: no such process).
 */
int atag_proc_threads(pid_t pid, pid_t **tids);

/**
 * atag_proc_descendants - the processes forked from a process, and theirs
 * @pid: the process
 * @pids: set to their ids, children first (free() it; NULL when there are none)
 *
 * A snapshot of /proc: processes forked meanwhile may be missing. Returns how many,
 * or -errno.
 */
int atag_proc_descendants(pid_t pid, pid_t **pids);

#endif /* _ATAG_UTILS_H */
