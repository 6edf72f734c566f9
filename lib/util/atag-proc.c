// SPDX-License-Identifier: LGPL-2.1
/*
 * Processes: naming one across pid reuse (pid and start time), and waiting for one to
 * end or for a file descriptor to become readable, on pidfds and poll(): no sleeping
 * loops. Nothing here installs a signal handler or reaps a child.
 */
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
	buf = atag_read_file(path, 4096, NULL);
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

int atag_proc_stop(pid_t pid, unsigned long long start, int sig, int timeout_ms,
		   int kill_timeout_ms)
{
	struct watch w;
	int ret;

	ret = watch_open(&w, pid, start);
	if (ret)
		return ret > 0 ? 0 : ret;
	watch_signal(&w, sig);
	ret = watch_wait(&w, timeout_ms, -1);
	if (ret == -ETIMEDOUT) {
		kill(-pid, SIGKILL);
		ret = watch_wait(&w, kill_timeout_ms, -1);
		ret = ret ? ret : 1;
	}
	if (w.fd >= 0)
		close(w.fd);
	return ret;
}
