// SPDX-License-Identifier: LGPL-2.1
/*
 * The recorder: stock trace-cmd record writing the trace.dat of one tracefs instance
 * (see include/atag-recorder.h for why and what it leaves). Its end is watched through
 * a pidfd, its start through an inotify watch on the instance's tracing_on: no
 * sleeping loops.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

#include "atag-recorder.h"
#include "atag-tracefs.h"
#include "atag-utils.h"

#define MAX_ARGS		64
#define KILL_TIMEOUT_MS		5000
/*
 * SIGINT again this often while the recorder ends: trace-cmd 3.1 can miss one (it
 * checks its flag, then sleeps 10 s; a SIGINT in between waits for the sleep).
 */
#define REPEAT_MS		500
/* when tracing_on cannot be watched (no inotify watch left): how often to look */
#define UNWATCHED_MS		10
#define READERS_MS		2	/* how often to look for the readers once tracing is on */

struct atag_recorder {
	pid_t		pid;
	int		pidfd;		/* readable once it exited */
	char		*instance;
	char		exe[PATH_MAX];	/* the program run, resolved ("" if unknown) */
	bool		ready;		/* it switched the instance on */
	bool		exited;
	int		status;		/* exit status, or 128 + signal */
};

const char *atag_recorder_program(const char *trace_cmd)
{
	const char *tc = trace_cmd ? trace_cmd : getenv(ATAG_TRACE_CMD_ENV);

	return tc && *tc ? tc : "trace-cmd";
}

bool atag_recorder_found(const char *trace_cmd)
{
	char full[PATH_MAX];

	return !atag_find_program(atag_recorder_program(trace_cmd), full, sizeof(full));
}

/* The stack trigger of @event, or NULL. */
static const char *stack_trigger(const struct atag_stack_trigger *t, const char *event)
{
	for (; t && t->event; t++)
		if (!strcmp(t->event, event))
			return t->trigger;
	return NULL;
}

/*
 * Where trace-cmd runs.  trace-cmd 3.1 record -B writes (and removes again) empty
 * "(null).cpuN" files for the top buffer it does not record, in its working
 * directory, and fails when it cannot.  It runs in the directory of the output
 * instead (which has to be writable anyway), given the output's base name; a
 * relative path of trace-cmd itself is made absolute for that.
 */
struct recorder_place {
	char	dir[PATH_MAX];		/* "" when the output is in the working directory */
	char	tc[PATH_MAX];
	const char *output;		/* the output relative to @dir */
};

static int place_recorder(struct recorder_place *pl, const char *output, const char **tc)
{
	const char *slash = strrchr(output, '/');

	pl->dir[0] = '\0';
	pl->output = output;
	if (slash) {
		if ((size_t)(slash - output) + 2 > sizeof(pl->dir))
			return -ENAMETOOLONG;
		snprintf(pl->dir, sizeof(pl->dir), "%.*s", (int)(slash - output), output);
		if (!pl->dir[0])
			strcpy(pl->dir, "/");
		pl->output = slash + 1;
	}
	if (pl->dir[0] && **tc != '/' && strchr(*tc, '/') && realpath(*tc, pl->tc))
		*tc = pl->tc;
	return 0;
}

/* trace-cmd record -d -k -B INSTANCE [-b KB] -e EV [-R TRIGGER]... -o OUTPUT */
static int build_argv(const struct atag_recorder_opts *o, const char *tc, const char *output,
		      char *kb, size_t kblen, const char **argv)
{
	const char * const *ev;
	const char *trigger;
	int n = 0;

	argv[n++] = tc;
	argv[n++] = "record";
	argv[n++] = "-d";
	argv[n++] = "-k";
	argv[n++] = "-B";
	argv[n++] = o->instance;
	if (o->buffer_kb) {
		snprintf(kb, kblen, "%lu", o->buffer_kb);
		argv[n++] = "-b";
		argv[n++] = kb;
	}
	for (ev = o->events; *ev && n < MAX_ARGS - 6; ev++) {
		argv[n++] = "-e";
		argv[n++] = *ev;
		trigger = stack_trigger(o->stacks, *ev);
		if (trigger) {
			argv[n++] = "-R";
			argv[n++] = trigger;
		}
	}
	if (*ev)
		return -E2BIG;
	argv[n++] = "-o";
	argv[n++] = output;
	argv[n] = NULL;
	return 0;
}

/* Every signal but the two that cannot be caught. */
static void all_signals(sigset_t *set)
{
	sigfillset(set);
	sigdelset(set, SIGKILL);
	sigdelset(set, SIGSTOP);
}

/*
 * In the child, with every signal blocked since before fork(): the caller's handlers
 * are put back to their defaults (ignored signals stay ignored, as across exec), and
 * only then the signals unblocked, so that a SIGINT sent to it right after fork()
 * ends it, and is never taken by a copy of the caller's handler. Then: its own
 * process group, SIGINT when the parent dies, files created 0600, output to the log,
 * in the output's directory.
 */
static void __attribute__((noreturn)) exec_recorder(const char **argv, const char *dir,
						    int dir_fd, int log_fd, pid_t parent,
						    const sigset_t *mask)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC), sig;
	struct sigaction sa;

	for (sig = 1; sig < NSIG; sig++) {
		if (sigaction(sig, NULL, &sa) || sa.sa_handler == SIG_IGN ||
		    sa.sa_handler == SIG_DFL)
			continue;
		signal(sig, SIG_DFL);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);	/* the caller may ignore it */
	sigprocmask(SIG_SETMASK, mask, NULL);
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGINT);
	if (getppid() != parent)
		_exit(127);	/* the parent died before the line above */
	umask(077);		/* trace-cmd's files hold kallsyms: ours alone */
	if ((dir_fd >= 0 && fchdir(dir_fd)) || (dir_fd < 0 && *dir && chdir(dir))) {
		dprintf(log_fd >= 0 ? log_fd : STDERR_FILENO, "cannot enter %s: %s\n",
			dir_fd >= 0 ? "the output's private directory" : dir, strerror(errno));
		_exit(127);
	}
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (log_fd < 0)
		log_fd = null;
	if (log_fd >= 0) {
		dup2(log_fd, STDOUT_FILENO);
		dup2(log_fd, STDERR_FILENO);
	}
	/* dup2() onto itself keeps close-on-exec: the three stay open in any case */
	fcntl(STDIN_FILENO, F_SETFD, 0);
	fcntl(STDOUT_FILENO, F_SETFD, 0);
	fcntl(STDERR_FILENO, F_SETFD, 0);
	execvp(argv[0], (char **)argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

struct atag_recorder *atag_recorder_start(const struct atag_recorder_opts *o)
{
	const char *tc = atag_recorder_program(o->trace_cmd);
	struct recorder_place pl;
	const char *argv[MAX_ARGS];
	struct atag_recorder *r;
	char kb[32], found[PATH_MAX];
	sigset_t all, old;
	pid_t parent = getpid();
	int err;

	if (o->out) {
		/* inside the output's private directory: names relative to it */
		pl.dir[0] = '\0';
		pl.output = ATAG_OUTPUT_NAME;
		err = 0;
		if (*tc != '/' && strchr(tc, '/') && realpath(tc, pl.tc))
			tc = pl.tc;
	} else {
		err = place_recorder(&pl, o->output, &tc);
	}
	if (!err)
		err = build_argv(o, tc, pl.output, kb, sizeof(kb), argv);
	r = err ? NULL : calloc(1, sizeof(*r));
	if (r) {
		r->pidfd = -1;
		r->instance = strdup(o->instance);
		if (atag_find_program(tc, found, sizeof(found)) || !realpath(found, r->exe))
			r->exe[0] = '\0';
	}
	if (!r || !r->instance) {
		free(r);
		errno = err ? -err : ENOMEM;
		return NULL;
	}
	all_signals(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	r->pid = fork();
	if (r->pid == 0) {
		free(r->instance);	/* the child keeps nothing of ours */
		free(r);
		exec_recorder(argv, pl.dir, o->out ? atag_output_dirfd(o->out) : -1, o->log_fd,
			      parent, &old);
	}
	err = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r->pid < 0) {
		atag_recorder_free(r);
		errno = err;
		return NULL;
	}
	setpgid(r->pid, r->pid);	/* also here: no window without it */
	r->pidfd = atag_pidfd_open(r->pid);
	if (r->pidfd < 0 && r->pidfd != -ENOSYS) {
		err = errno;
		atag_recorder_free(r);		/* kills it */
		errno = err;
		return NULL;
	}
	return r;
}

const char *atag_recorder_exe(const struct atag_recorder *r)
{
	return r->exe;
}

pid_t atag_recorder_pid(const struct atag_recorder *r)
{
	return r->pid;
}

int atag_recorder_fd(const struct atag_recorder *r)
{
	return r->pidfd;
}

/*
 * Reap it (without blocking unless @flags is 0); false while it runs. Its process
 * group goes first: a trace-cmd killed from outside leaves its per-CPU readers
 * running, holding the instance's trace_pipe_raw files (it could not be removed).
 * While it is a zombie its pid, the group's id, cannot name another group; after a
 * normal end the group holds nobody else (trace-cmd waits for its readers).
 */
static bool reap(struct atag_recorder *r, int flags)
{
	siginfo_t info = { 0 };
	int status;

	if (r->exited)
		return true;
	if (waitid(P_PID, r->pid, &info, WEXITED | WNOWAIT | (flags & WNOHANG)) ||
	    info.si_pid != r->pid)
		return false;
	kill(-r->pid, SIGKILL);
	if (waitpid(r->pid, &status, 0) != r->pid)
		return false;
	r->exited = true;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return true;
}

bool atag_recorder_running(struct atag_recorder *r)
{
	return !reap(r, WNOHANG);
}

int atag_recorder_status(const struct atag_recorder *r)
{
	return r->exited ? r->status : -1;
}

/*
 * An inotify watch on the instance's tracing_on, which trace-cmd writes when its
 * readers run; -1 when none can be set up (the caller then looks every UNWATCHED_MS).
 */
static int watch_tracing_on(struct tracefs_instance *inst)
{
	char *path = inst ? tracefs_instance_get_file(inst, "tracing_on") : NULL;
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);

	if (fd >= 0 && (!path || inotify_add_watch(fd, path, IN_MODIFY | IN_CLOSE_WRITE) < 0)) {
		close(fd);
		fd = -1;
	}
	tracefs_put_tracing_file(path);
	return fd;
}

static bool tracing_is_on(struct tracefs_instance *inst)
{
	long long on = 0;

	return inst && !tracefs_instance_file_read_number(inst, "tracing_on", &on) && on == 1;
}

/* The process group of @pid, from /proc/PID/stat; -1 when gone. */
static pid_t pgrp_of(const char *pid)
{
	char path[300], buf[512], *p;
	int pgrp = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* pid (comm) state ppid pgrp: comm may hold anything but its last ')' */
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 1, " %*c %*d %d", &pgrp);
	fclose(f);
	return pgrp;
}

/* A CPU's trace_pipe_raw of the instance, as the kernel knows it. */
struct pipe_file {
	dev_t		dev;
	ino_t		ino;
	bool		held;	/* open in a process of the recorder's group */
	bool		absent;	/* the instance has no such CPU */
};

/*
 * Mark the files of @pipes that process @pid holds open. Files are matched by
 * device and inode: trace-cmd may reach tracefs through another mount point.
 */
static void note_readers(const char *pid, struct pipe_file *pipes, long nr_cpus)
{
	char dir[300], path[PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *fds;
	long cpu;

	snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
	fds = opendir(dir);
	if (!fds)
		return;
	while ((d = readdir(fds))) {
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (d->d_name[0] == '.' || stat(path, &st))
			continue;
		for (cpu = 0; cpu < nr_cpus; cpu++)
			if (!pipes[cpu].absent && pipes[cpu].dev == st.st_dev &&
			    pipes[cpu].ino == st.st_ino)
				pipes[cpu].held = true;
	}
	closedir(fds);
}

/*
 * Whether every CPU's trace_pipe_raw of the instance is open in a process of the
 * recorder's group. trace-cmd switches tracing_on on once it has forked its per-CPU
 * readers, not once they run: a reader stopped before it set up (a loaded machine,
 * a short COMMAND) dies of the stop signal and its CPU's events never reach the
 * file. A reader opens its trace_pipe_raw after it installed its handlers.
 */
static bool readers_run(const struct atag_recorder *r, struct tracefs_instance *inst)
{
	char *dir = inst ? tracefs_instance_get_dir(inst) : NULL;
	long nr_cpus = sysconf(_SC_NPROCESSORS_CONF), cpu;
	struct pipe_file *pipes = NULL;
	char path[PATH_MAX];
	bool ok = false;
	struct dirent *d;
	struct stat st;
	DIR *proc;

	if (!dir || nr_cpus <= 0)
		goto out;
	pipes = calloc(nr_cpus, sizeof(*pipes));
	if (!pipes)
		goto out;
	/* the CPUs trace-cmd reads: those it counts that the instance has */
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/trace_pipe_raw", dir, cpu);
		pipes[cpu].absent = stat(path, &st) != 0;
		pipes[cpu].dev = st.st_dev;
		pipes[cpu].ino = st.st_ino;
	}
	proc = opendir("/proc");
	if (!proc)
		goto out;
	while ((d = readdir(proc)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9' && pgrp_of(d->d_name) == r->pid)
			note_readers(d->d_name, pipes, nr_cpus);
	closedir(proc);
	for (ok = true, cpu = 0; cpu < nr_cpus && ok; cpu++)
		ok = pipes[cpu].held || pipes[cpu].absent;
out:
	free(pipes);
	tracefs_put_tracing_file(dir);
	return ok;
}

static void drain(int fd)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

int atag_recorder_wait_ready(struct atag_recorder *r, int timeout_ms, int stop_fd)
{
	unsigned long long deadline = atag_now_ns() + timeout_ms * 1000000ULL;
	struct tracefs_instance *inst = atag_instance_get(r->instance);
	int wfd = watch_tracing_on(inst);
	struct pollfd p[3] = {
		{ .fd = stop_fd, .events = POLLIN },
		{ .fd = r->pidfd, .events = POLLIN },
		{ .fd = wfd, .events = POLLIN },
	};
	int ret, wait_ms;
	bool on;

	for (;;) {
		/* the stop fd first: a stop asked for wins over what else happened */
		ret = atag_poll(p, 1, 0);
		if (ret)
			ret = ret > 0 ? -EINTR : ret;
		else if (!atag_recorder_running(r))
			ret = -ECHILD;
		else if ((on = tracing_is_on(inst)) && readers_run(r, inst))
			break;
		else if (!(wait_ms = atag_ms_until(deadline)))
			ret = -ETIMEDOUT;
		if (ret)
			break;
		if (wfd < 0 && wait_ms > UNWATCHED_MS)
			wait_ms = UNWATCHED_MS;
		if (on && wait_ms > READERS_MS)
			wait_ms = READERS_MS;
		if (r->pidfd < 0 && wait_ms > ATAG_NO_PIDFD_MS)
			wait_ms = ATAG_NO_PIDFD_MS;
		ret = atag_poll(p, 3, wait_ms);
		if (ret < 0)
			break;
		ret = 0;
		if (wfd >= 0)
			drain(wfd);
	}
	if (wfd >= 0)
		close(wfd);
	tracefs_instance_free(inst);
	if (!ret)
		r->ready = true;
	return atag_err(ret);
}

bool atag_recorder_ready(const struct atag_recorder *r)
{
	return r->ready;
}

int atag_recorder_stop(struct atag_recorder *r, int timeout_ms)
{
	struct atag_stop how = {
		.sig = SIGINT,
		.timeout_ms = timeout_ms,
		.repeat_ms = REPEAT_MS,
		.kill_timeout_ms = KILL_TIMEOUT_MS,
	};
	int ret;

	if (!atag_recorder_running(r))
		return r->status;
	/* before it records there is nothing to complete: it need not be waited for long */
	if (!r->ready && how.timeout_ms > ATAG_RECORDER_UNREADY_MS)
		how.timeout_ms = ATAG_RECORDER_UNREADY_MS;
	ret = atag_proc_stop(r->pid, 0, &how);
	/* our child, not reaped: its pid, and so its group, is still its own */
	if (ret)
		kill(-r->pid, SIGKILL);
	reap(r, 0);
	return ret ? atag_err(-ETIMEDOUT) : r->status;
}

void atag_recorder_free(struct atag_recorder *r)
{
	if (!r)
		return;
	if (r->pid > 0 && atag_recorder_running(r)) {
		kill(-r->pid, SIGKILL);
		reap(r, 0);
	}
	if (r->pidfd >= 0)
		close(r->pidfd);
	free(r->instance);
	free(r);
}
