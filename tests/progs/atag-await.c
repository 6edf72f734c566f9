// SPDX-License-Identifier: GPL-2.0
/*
 * atag-await: wait for an event, for the shell tiers, instead of sleeping and looking
 * again.
 *
 *   atag-await [-t SECONDS] [-p PID] file PATH [TEXT]
 *	until PATH exists and is not empty or, with TEXT, has a line that starts with
 *	TEXT (inotify on PATH, or on its nearest existing directory until it exists)
 *   atag-await [-t SECONDS] [-p PID] lines PATH N
 *	until PATH has N lines or more (watched likewise)
 *   atag-await [-t SECONDS] exit PID
 *	until the process PID has ended (a pidfd; it need not be our child)
 *   atag-await [-t SECONDS] [-p PID] mount DIR
 *   atag-await [-t SECONDS] unmount DIR
 *	until DIR is, or is no longer, a mount point (poll() on /proc/self/mounts)
 *
 * -t: give up after SECONDS (fractions allowed; default 10). -p: give up as soon as
 * the process PID ends (the one that was to make the event happen).
 * Exits 0 when the event happened, 1 when it gave up, 2 on a usage or system error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_EVENTS	(IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
#define DIR_EVENTS	(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr, "usage: atag-await [-t SECONDS] [-p PID] file PATH [TEXT]\n"
			"       atag-await [-t SECONDS] [-p PID] lines PATH N\n"
			"       atag-await [-t SECONDS] exit PID\n"
			"       atag-await [-t SECONDS] [-p PID] mount|unmount DIR\n");
	exit(2);
}

static void __attribute__((noreturn)) fail(const char *what)
{
	fprintf(stderr, "atag-await: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int open_pidfd(const char *arg)
{
	char *end;
	long pid = strtol(arg, &end, 10);
	int fd;

	if (*end || pid <= 0)
		usage();
	fd = pidfd_open(pid, 0);
	if (fd < 0 && errno != ESRCH)
		fail("pidfd_open");
	return fd;		/* -1: it has ended already */
}

/* ------------------------------------------------------------------ file */

static bool file_ready(const char *path, const char *text)
{
	char line[4096];
	bool ok = false;
	FILE *f = fopen(path, "re");
	int c;

	if (!f)
		return false;
	if (!text) {
		c = fgetc(f);
		ok = c != EOF;
	}
	while (text && !ok && fgets(line, sizeof(line), f))
		ok = !strncmp(line, text, strlen(text));
	fclose(f);
	return ok;
}

/* Whether @path has @n lines or more. */
static bool lines_ready(const char *path, const char *n)
{
	long want = atol(n), have = 0;
	FILE *f = fopen(path, "re");
	int c;

	if (!f)
		return false;
	while (have < want && (c = getc(f)) != EOF)
		have += c == '\n';
	fclose(f);
	return have >= want;
}

/* A fresh inotify fd watching @path, or its nearest existing directory. */
static int arm(const char *path)
{
	char dir[PATH_MAX], *slash;
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);

	if (fd < 0)
		fail("inotify_init1");
	if (inotify_add_watch(fd, path, FILE_EVENTS) >= 0)
		return fd;
	snprintf(dir, sizeof(dir), "%s", path);
	while ((slash = strrchr(dir, '/'))) {
		*slash = '\0';
		if (inotify_add_watch(fd, *dir ? dir : "/", DIR_EVENTS) >= 0)
			return fd;
	}
	if (inotify_add_watch(fd, ".", DIR_EVENTS) < 0)
		fail(path);
	return fd;
}

/* ------------------------------------------------------------------ mounts */

static bool mounted(const char *dir)
{
	char dev[256], mnt[PATH_MAX], line[PATH_MAX + 512];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		fail("/proc/self/mounts");
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%255s %4095s", dev, mnt) == 2 && !strcmp(mnt, dir);
	fclose(f);
	return found;
}

static bool ready(const char *mode, const char *arg, const char *text, bool want_mount)
{
	if (!strcmp(mode, "file"))
		return file_ready(arg, text);
	if (!strcmp(mode, "lines"))
		return text && lines_ready(arg, text);
	if (!strcmp(mode, "exit"))
		return false;
	return mounted(arg) == want_mount;
}

int main(int argc, char **argv)
{
	long long deadline, left;
	struct pollfd p[2] = { { .fd = -1 }, { .fd = -1, .events = POLLIN } };
	const char *mode, *arg, *text = NULL;
	double seconds = 10;
	bool want_mount = false;
	char buf[4096];
	int c;

	while ((c = getopt(argc, argv, "+t:p:")) != -1) {
		switch (c) {
		case 't': seconds = atof(optarg); break;
		case 'p':
			p[1].fd = open_pidfd(optarg);
			if (p[1].fd < 0)
				return 1;	/* it ended before we looked */
			break;
		default: usage();
		}
	}
	if (argc - optind < 2)
		usage();
	mode = argv[optind];
	arg = argv[optind + 1];
	text = argc - optind > 2 ? argv[optind + 2] : NULL;
	deadline = now_ms() + (long long)(seconds * 1000);

	if (!strcmp(mode, "exit")) {
		p[0].fd = open_pidfd(arg);
		if (p[0].fd < 0)
			return 0;
		p[0].events = POLLIN;
	} else if (!strcmp(mode, "mount") || !strcmp(mode, "unmount")) {
		want_mount = !strcmp(mode, "mount");
		p[0].fd = open("/proc/self/mounts", O_RDONLY | O_CLOEXEC);
		if (p[0].fd < 0)
			fail("/proc/self/mounts");
		p[0].events = POLLPRI;
	} else if (!strcmp(mode, "file") || !strcmp(mode, "lines")) {
		if (!strcmp(mode, "lines") && !text)
			usage();
		p[0].fd = arm(arg);
		p[0].events = POLLIN;
	} else {
		usage();
	}

	for (;;) {
		/* looked at after the watch is in place: no event can slip between */
		if (ready(mode, arg, text, want_mount))
			return 0;
		if (p[1].fd >= 0 && p[1].revents)
			return 1;		/* the process that was to do it ended */
		left = deadline - now_ms();
		if (left <= 0)
			return 1;
		if (poll(p, 2, left > INT_MAX ? INT_MAX : (int)left) < 0 && errno != EINTR)
			fail("poll");
		if (!strcmp(mode, "exit") && p[0].revents)
			return 0;
		if ((!strcmp(mode, "file") || !strcmp(mode, "lines")) && p[0].revents) {
			/* the file may have appeared or been replaced: watch anew */
			while (read(p[0].fd, buf, sizeof(buf)) > 0)
				;
			close(p[0].fd);
			p[0].fd = arm(arg);
		}
	}
}
