// SPDX-License-Identifier: LGPL-2.1
/*
 * Recording through a tracefs instance of our own, with stock trace-cmd record as
 * the trace.dat writer (see include/atag-record.h for why and what it leaves).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atag-record.h"
#include "atag-utils.h"

#define POLL_MS		10
#define MAX_ARGS	64

struct atag_recorder {
	pid_t		pid;
	char		*instance;
	bool		exited;
	int		status;		/* exit status, or 128 + signal */
};

/* "<tracefs>/<a>/<b>..." into @buf; returns @buf or NULL (errno set). */
static char *tracefs_path(char *buf, size_t len, const char *fmt, const char *a,
			  const char *b, const char *c)
{
	const char *dir = atag_tracefs_dir();
	int n;

	if (!dir)
		return NULL;
	n = snprintf(buf, len, "%s/", dir);
	if (n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, fmt, a, b, c);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return buf;
}

bool atag_event_exists(const char *system, const char *event)
{
	char path[4096];

	return tracefs_path(path, sizeof(path), "events/%s/%s/format%s", system, event, "") &&
	       !access(path, R_OK);
}

bool atag_instance_exists(const char *name)
{
	char path[4096];
	struct stat st;

	return tracefs_path(path, sizeof(path), "instances/%s%s%s", name, "", "") &&
	       !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Open a file of an instance; returns the fd or -errno. */
static int open_instance_file(const char *name, const char *file, int flags)
{
	char path[4096];
	int fd;

	if (!tracefs_path(path, sizeof(path), "instances/%s/%s%s", name, file, ""))
		return -errno;
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int write_instance_file(const char *name, const char *file, const char *val)
{
	int fd = open_instance_file(name, file, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static int read_instance_number(const char *name, const char *file, long long *val)
{
	int fd = open_instance_file(name, file, O_RDONLY);
	char buf[64];
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	*val = strtoll(buf, NULL, 10);
	return 0;
}

int atag_instance_create(const char *name)
{
	char path[4096];
	int ret;

	if (!tracefs_path(path, sizeof(path), "instances/%s%s%s", name, "", ""))
		return atag_err(-errno);
	if (mkdir(path, 0755))
		return atag_err(-errno);
	ret = write_instance_file(name, "tracing_on", "0");
	if (ret) {
		rmdir(path);
		return atag_err(ret);
	}
	return 0;
}

int atag_instance_destroy(const char *name)
{
	char path[4096];

	if (!tracefs_path(path, sizeof(path), "instances/%s%s%s", name, "", ""))
		return atag_err(-errno);
	if (rmdir(path))
		return atag_err(-errno);
	return 0;
}

/* Add one per_cpu/cpuN/stats file to @lost: 0, 1 when it cannot be read, or -EBADMSG. */
static int add_cpu_stats(const char *path, struct atag_lost *lost)
{
	struct atag_cpu_stats st;
	char *text = atag_read_file(path, 64 * 1024, NULL);
	int ret, line;

	if (!text)
		return 1;
	ret = atag_parse_cpu_stats(text, &st, &line);
	free(text);
	if (ret)
		return -EBADMSG;
	lost->overrun += st.overrun != ATAG_STATS_UNKNOWN ? st.overrun : 0;
	lost->dropped += st.dropped_events != ATAG_STATS_UNKNOWN ? st.dropped_events : 0;
	lost->read += st.read_events != ATAG_STATS_UNKNOWN ? st.read_events : 0;
	lost->nr_cpus++;
	return 0;
}

int atag_instance_lost_events(const char *name, struct atag_lost *lost)
{
	char dir[4096], path[4096 + 300];
	struct dirent *d;
	int ret = 0;
	DIR *dp;

	memset(lost, 0, sizeof(*lost));
	if (!tracefs_path(dir, sizeof(dir), "instances/%s/per_cpu%s%s", name, "", ""))
		return atag_err(-errno);
	dp = opendir(dir);
	if (!dp)
		return atag_err(-errno);
	while (!ret && (d = readdir(dp))) {
		if (strncmp(d->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path), "%s/%s/stats", dir, d->d_name);
		ret = add_cpu_stats(path, lost);
		ret = ret > 0 ? 0 : ret;
	}
	closedir(dp);
	return atag_err(ret);
}

/* ------------------------------------------------------------------ the recorder */

static bool in_list(const char * const *list, const char *s)
{
	for (; list && *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
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

/* trace-cmd record -d -k -B INSTANCE [-b KB] -e EV [-R stacktrace]... -o OUTPUT */
static int build_argv(const struct atag_recorder_opts *o, const char *tc, const char *output,
		      char *kb, size_t kblen, const char **argv)
{
	const char * const *ev;
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
		if (in_list(o->stack_events, *ev)) {
			argv[n++] = "-R";
			argv[n++] = "stacktrace";
		}
	}
	if (*ev)
		return -E2BIG;
	argv[n++] = "-o";
	argv[n++] = output;
	argv[n] = NULL;
	return 0;
}

/*
 * In the child: own process group, SIGINT when the parent dies, output to the log,
 * in the output's directory.
 */
static void __attribute__((noreturn)) exec_recorder(const char **argv, const char *dir,
						    int log_fd, pid_t parent)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGINT);
	if (getppid() != parent)
		_exit(127);	/* the parent died before the line above */
	if (*dir && chdir(dir)) {
		dprintf(log_fd >= 0 ? log_fd : STDERR_FILENO, "cannot enter %s: %s\n", dir,
			strerror(errno));
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
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);	/* the caller may ignore it */
	execvp(argv[0], (char **)argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

struct atag_recorder *atag_recorder_start(const struct atag_recorder_opts *o)
{
	const char *tc = o->trace_cmd ? o->trace_cmd : getenv(ATAG_TRACE_CMD_ENV);
	struct recorder_place pl;
	const char *argv[MAX_ARGS];
	struct atag_recorder *r;
	pid_t parent = getpid();
	char kb[32];
	int err;

	if (!tc || !*tc)
		tc = "trace-cmd";
	err = place_recorder(&pl, o->output, &tc);
	if (!err)
		err = build_argv(o, tc, pl.output, kb, sizeof(kb), argv);
	r = err ? NULL : calloc(1, sizeof(*r));
	if (r)
		r->instance = strdup(o->instance);
	if (!r || !r->instance) {
		free(r);
		errno = err ? -err : ENOMEM;
		return NULL;
	}
	r->pid = fork();
	if (r->pid == 0) {
		free(r->instance);	/* the child keeps nothing of ours */
		free(r);
		exec_recorder(argv, pl.dir, o->log_fd, parent);
	}
	if (r->pid < 0) {
		err = errno;
		atag_recorder_free(r);
		errno = err;
		return NULL;
	}
	setpgid(r->pid, r->pid);	/* also here: no window without it */
	return r;
}

pid_t atag_recorder_pid(const struct atag_recorder *r)
{
	return r->pid;
}

bool atag_recorder_running(struct atag_recorder *r)
{
	int status;

	if (r->exited)
		return false;
	if (waitpid(r->pid, &status, WNOHANG) != r->pid)
		return true;
	r->exited = true;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return false;
}

int atag_recorder_wait_ready(struct atag_recorder *r, int timeout_ms,
			     volatile sig_atomic_t *stop)
{
	long long on = 0;
	int waited;

	for (waited = 0; waited <= timeout_ms; waited += POLL_MS) {
		if (stop && *stop)
			return atag_err(-EINTR);
		if (!atag_recorder_running(r))
			return atag_err(-ECHILD);
		if (!read_instance_number(r->instance, "tracing_on", &on) && on == 1)
			return 0;
		atag_sleep_ms(POLL_MS);
	}
	return atag_err(-ETIMEDOUT);
}

int atag_recorder_stop(struct atag_recorder *r, int timeout_ms)
{
	int waited;

	if (atag_recorder_running(r))
		kill(r->pid, SIGINT);
	for (waited = 0; waited <= timeout_ms; waited += POLL_MS) {
		if (!atag_recorder_running(r))
			return r->status;
		atag_sleep_ms(POLL_MS);
	}
	kill(-r->pid, SIGKILL);
	waitpid(r->pid, NULL, 0);
	r->exited = true;
	r->status = 128 + SIGKILL;
	return atag_err(-ETIMEDOUT);
}

void atag_recorder_free(struct atag_recorder *r)
{
	if (!r)
		return;
	if (r->pid > 0 && atag_recorder_running(r)) {
		kill(-r->pid, SIGKILL);
		waitpid(r->pid, NULL, 0);
	}
	free(r->instance);
	free(r);
}
