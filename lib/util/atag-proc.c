// SPDX-License-Identifier: LGPL-2.1
/*
 * Processes: naming one across pid reuse (pid and start time), and waiting for one to
 * end or for a file descriptor to become readable, on pidfds and poll(): no sleeping
 * loops. Nothing here installs a signal handler or reaps a child.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <time.h>
#include <unistd.h>

#include "atag-utils.h"

unsigned long long atag_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int atag_ms_until(unsigned long long deadline_ns)
{
	unsigned long long now, ms;

	if (!deadline_ns)
		return -1;
	now = atag_now_ns();
	if (now >= deadline_ns)
		return 0;
	/* rounded up: a wait never ends before its deadline */
	ms = (deadline_ns - now + 999999) / 1000000;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

int atag_poll(struct pollfd *fds, unsigned int nr, int timeout_ms)
{
	unsigned long long deadline = timeout_ms >= 0 ?
				      atag_now_ns() + timeout_ms * 1000000ULL : 0;
	int ret;

	for (;;) {
		ret = poll(fds, nr, deadline ? atag_ms_until(deadline) : -1);
		if (ret >= 0)
			return ret;
		if (errno != EINTR)
			return atag_err(-errno);
	}
}

int atag_wait_readable(int fd, int timeout_ms, int stop_fd)
{
	struct pollfd p[2] = {
		{ .fd = stop_fd, .events = POLLIN },
		{ .fd = fd, .events = POLLIN },
	};
	int ret;

	ret = atag_poll(p, 2, timeout_ms);
	if (ret < 0)
		return ret;
	if (p[0].revents)
		return atag_err(-EINTR);
	if (p[1].revents)
		return 0;
	return atag_err(-ETIMEDOUT);
}

unsigned long long atag_proc_starttime(pid_t pid)
{
	unsigned long long start = 0;
	char path[64], *buf, *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	buf = atag_read_head(path, 4096, NULL);
	if (!buf)
		return 0;
	/* the comm may hold spaces and parentheses: fields start after the last ')' */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X') {
		free(buf);
		return 0;	/* a zombie runs no more */
	}
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	free(buf);
	return start;
}

bool atag_proc_alive(pid_t pid, unsigned long long start)
{
	return pid > 0 && start && atag_proc_starttime(pid) == start;
}

int atag_pidfd_open(pid_t pid)
{
	int fd = pidfd_open(pid, 0);	/* close-on-exec */

	return fd < 0 ? atag_err(-errno) : fd;
}

/* A process to wait for: through its pidfd, or by looking every ATAG_NO_PIDFD_MS. */
struct watch {
	pid_t			pid;
	unsigned long long	start;
	int			fd;	/* -1: no pidfds here */
};

/* 0, 1 when the process is gone already, or -errno. */
static int watch_open(struct watch *w, pid_t pid, unsigned long long start)
{
	w->pid = pid;
	w->start = start ? start : atag_proc_starttime(pid);
	w->fd = -1;
	if (pid <= 0 || !w->start)
		return 1;		/* no such process, or a zombie */
	w->fd = atag_pidfd_open(pid);
	if (w->fd == -ESRCH)
		return 1;
	if (w->fd == -ENOSYS) {
		w->fd = -1;
		return atag_proc_alive(pid, w->start) ? 0 : 1;
	}
	if (w->fd < 0)
		return w->fd;
	/* checked after the open: the pidfd holds the process the start time names */
	if (atag_proc_starttime(pid) != w->start) {
		close(w->fd);
		w->fd = -1;
		return 1;
	}
	return 0;
}

static void watch_signal(struct watch *w, int sig)
{
	if (w->fd >= 0)
		pidfd_send_signal(w->fd, sig, NULL, 0);
	else
		kill(w->pid, sig);
}

/* 0 when it ended, -ETIMEDOUT, -EINTR when @stop_fd became readable, or -errno. */
static int watch_wait(struct watch *w, int timeout_ms, int stop_fd)
{
	unsigned long long deadline;
	struct pollfd p = { .fd = stop_fd, .events = POLLIN };
	int ms, ret;

	if (w->fd >= 0)
		return atag_wait_readable(w->fd, timeout_ms, stop_fd);
	deadline = timeout_ms >= 0 ? atag_now_ns() + timeout_ms * 1000000ULL : 0;
	while (atag_proc_alive(w->pid, w->start)) {
		ms = atag_ms_until(deadline);
		if (!ms)
			return atag_err(-ETIMEDOUT);
		ret = atag_poll(&p, 1, ms < 0 || ms > ATAG_NO_PIDFD_MS ? ATAG_NO_PIDFD_MS : ms);
		if (ret)
			return ret > 0 ? atag_err(-EINTR) : ret;
	}
	return 0;
}

int atag_proc_wait(pid_t pid, unsigned long long start, int timeout_ms, int stop_fd)
{
	struct watch w;
	int ret;

	ret = watch_open(&w, pid, start);
	if (ret)
		return ret > 0 ? 0 : ret;
	ret = watch_wait(&w, timeout_ms, stop_fd);
	if (w.fd >= 0)
		close(w.fd);
	return ret;
}

/* The process group of @pid, from /proc/PID/stat; 0 when it cannot be read. */
static pid_t proc_pgrp(pid_t pid)
{
	char path[64], *buf, *p;
	int pgrp = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	buf = atag_read_head(path, 4096, NULL);
	if (!buf)
		return 0;
	/* "pid (comm) state ppid pgrp ..." with a comm that may hold anything */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %d", &pgrp) != 1)
		pgrp = 0;
	free(buf);
	return pgrp;
}

#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP	(1UL << 2)	/* Linux 6.9 */
#endif

/*
 * SIGKILL for the process group @w leads, or for @w alone when it does not lead one:
 * through the pidfd (the group of the very process it holds) where the kernel can,
 * else by group id, looked up again right before.
 */
static void watch_kill_group(struct watch *w)
{
	if (proc_pgrp(w->pid) != w->pid) {
		watch_signal(w, SIGKILL);
		return;
	}
	if (w->fd >= 0 &&
	    !pidfd_send_signal(w->fd, SIGKILL, NULL, PIDFD_SIGNAL_PROCESS_GROUP))
		return;
	if (atag_proc_alive(w->pid, w->start) && proc_pgrp(w->pid) == w->pid)
		kill(-w->pid, SIGKILL);
	else
		watch_signal(w, SIGKILL);
}

/* Wait for the end of @w, sending @how->sig again every @how->repeat_ms. */
static int watch_wait_repeat(struct watch *w, const struct atag_stop *how)
{
	unsigned long long deadline = atag_now_ns() + how->timeout_ms * 1000000ULL;
	int ms, ret;

	for (;;) {
		ms = atag_ms_until(deadline);
		if (!ms)
			return atag_err(-ETIMEDOUT);
		if (how->repeat_ms > 0 && ms > how->repeat_ms)
			ms = how->repeat_ms;
		ret = watch_wait(w, ms, -1);
		if (ret != -ETIMEDOUT)
			return ret;
		if (!atag_ms_until(deadline))
			return ret;
		watch_signal(w, how->sig);
	}
}

int atag_proc_stop(pid_t pid, unsigned long long start, const struct atag_stop *how)
{
	struct watch w;
	int ret;

	/* never init, the kernel's idle task, a group by its negative id, or ourselves */
	if (pid <= 1 || pid == getpid())
		return atag_err(-EINVAL);
	ret = watch_open(&w, pid, start);
	if (ret)
		return ret > 0 ? 0 : ret;
	/* with its pidfd open, the process checked is the one signalled */
	if (how->check && !how->check(pid, how->ctx)) {
		if (w.fd >= 0)
			close(w.fd);
		return atag_err(-EPERM);
	}
	watch_signal(&w, how->sig);
	ret = watch_wait_repeat(&w, how);
	if (ret == -ETIMEDOUT) {
		if (how->group)
			watch_kill_group(&w);
		else
			watch_signal(&w, SIGKILL);
		ret = watch_wait(&w, how->kill_timeout_ms, -1);
		ret = ret ? ret : 1;
	}
	if (w.fd >= 0)
		close(w.fd);
	return ret;
}

/* ------------------------------------------------------------------ what /proc says */

char *atag_proc_cmdline(pid_t pid, size_t *len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	return atag_read_head(path, 1 << 20, len);
}

bool atag_args_have(const char *args, size_t len, const char * const *seq)
{
	const char *p = args, *end = args + len, *q;
	size_t i;

	for (; p < end; p += strnlen(p, end - p) + 1) {
		q = p;
		for (i = 0; seq[i] && q < end; i++) {
			if (strnlen(q, end - q) == (size_t)(end - q) || strcmp(q, seq[i]))
				break;
			q += strlen(q) + 1;
		}
		if (!seq[i])
			return true;
	}
	return false;
}

int atag_proc_exe(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return atag_err(-errno);
	buf[n] = '\0';
	return 0;
}

int atag_proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64], *text;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	text = atag_read_head(path, 256, NULL);
	if (!text)
		return atag_err(-errno);
	text[strcspn(text, "\n")] = '\0';
	snprintf(buf, len, "%s", text);
	free(text);
	return 0;
}

/* Append @pid to *@pids; returns 0 or -ENOMEM. */
static int pids_add(pid_t **pids, size_t *nr, pid_t pid)
{
	pid_t *p;

	if (!(*nr & (*nr + 1))) {	/* 0, 1, 3, 7...: full */
		p = realloc(*pids, (*nr + 1) * 2 * sizeof(*p));
		if (!p)
			return atag_err(-ENOMEM);
		*pids = p;
	}
	(*pids)[(*nr)++] = pid;
	return 0;
}

/* The numeric entries of a /proc directory, appended to *@pids. */
static int numeric_entries(const char *dir, pid_t **pids, size_t *nr)
{
	struct dirent *d;
	char *end;
	long v;
	DIR *dp = opendir(dir);
	int ret = 0;

	if (!dp)
		return atag_err(-errno);
	while (!ret && (d = readdir(dp))) {
		v = strtol(d->d_name, &end, 10);
		if (*end || v <= 0)
			continue;
		ret = pids_add(pids, nr, (pid_t)v);
	}
	closedir(dp);
	return ret;
}

int atag_proc_threads(pid_t pid, pid_t **tids)
{
	char dir[64];
	size_t nr = 0;
	int ret;

	*tids = NULL;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	ret = numeric_entries(dir, tids, &nr);
	if (ret) {
		free(*tids);
		*tids = NULL;
		return ret;
	}
	return (int)nr;
}

/* The parent of @pid (its PPid), 0 when it cannot be read. */
static pid_t proc_ppid(pid_t pid)
{
	char path[64], *buf, *p;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	buf = atag_read_head(path, 4096, NULL);
	if (!buf)
		return 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		ppid = 0;
	free(buf);
	return ppid;
}

int atag_proc_descendants(pid_t pid, pid_t **out)
{
	pid_t *all = NULL, *ppid = NULL, *found = NULL;
	size_t nr_all = 0, nr = 0, i, done;
	int ret;

	*out = NULL;
	ret = numeric_entries("/proc", &all, &nr_all);
	if (!ret && !(ppid = calloc(nr_all ? nr_all : 1, sizeof(*ppid))))
		ret = atag_err(-ENOMEM);
	for (i = 0; !ret && i < nr_all; i++)
		ppid[i] = proc_ppid(all[i]);
	ret = ret ?: pids_add(&found, &nr, pid);
	/* breadth first: the children of each process found, until no new one */
	for (done = 0; !ret && done < nr; done++) {
		for (i = 0; !ret && i < nr_all; i++) {
			if (all[i] != pid && ppid[i] == found[done])
				ret = pids_add(&found, &nr, all[i]);
		}
	}
	free(all);
	free(ppid);
	if (ret) {
		free(found);
		return ret;
	}
	/* without @pid itself */
	memmove(found, found + 1, (nr - 1) * sizeof(*found));
	*out = found;
	return (int)(nr - 1);
}
