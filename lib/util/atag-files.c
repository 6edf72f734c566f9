// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading small files whole, and their "key: value" lines: /proc files, tracefs
 * files, state files. The one whole-file reader of the library; and walking a
 * directory open at a descriptor.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "atag-utils.h"

#define FIRST_CHUNK	4096
#define KV_LINE_MAX	256

/* At most @max bytes of the reader; with @whole, more than that is EFBIG. */
static char *read_upto(atag_read_fn read_fn, void *ctx, size_t max, size_t *len, bool whole)
{
	size_t size = 0, cap = 0, want;
	char *buf = NULL, *nbuf, more;
	ssize_t n;

	for (;;) {
		if (size == cap) {
			cap = cap ? cap * 2 : FIRST_CHUNK;
			nbuf = cap > size ? realloc(buf, cap + 1) : NULL;
			if (!nbuf) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nbuf;
		}
		want = cap - size < max - size ? cap - size : max - size;
		if (!want) {
			/* @max read: is there more? */
			n = whole ? read_fn(ctx, &more, 1, size) : 0;
			if (n > 0)
				n = -EFBIG;
			if (n < 0) {
				free(buf);
				errno = -n;
				return NULL;
			}
			break;
		}
		n = read_fn(ctx, buf + size, want, size);
		if (n < 0) {
			free(buf);
			errno = -n;
			return NULL;
		}
		if (!n)
			break;
		size += n;
	}
	buf[size] = '\0';
	if (len)
		*len = size;
	return buf;
}

char *atag_read_all(atag_read_fn read_fn, void *ctx, size_t max, size_t *len)
{
	return read_upto(read_fn, ctx, max, len, true);
}

/* read(), from where the previous call stopped: pseudo-files want it sequential */
static ssize_t read_fd(void *ctx, char *buf, size_t len, off_t off)
{
	int fd = *(int *)ctx;
	ssize_t n;

	do {
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int atag_open_input(int dirfd, const char *path, int flags)
{
	struct stat st;
	int fd, fl, err;

	fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | flags);
	if (fd < 0)
		return atag_err(-errno);
	if (fstat(fd, &st))
		err = -errno;
	else if (S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		err = -ATAG_ENOTREG;
	else if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK))
		err = -errno;
	else
		return fd;
	close(fd);
	return atag_err(err);
}

bool atag_input_too_large(int fd, size_t max)
{
	struct stat st;

	/* kernel pseudo-files say 0 or a page: only a read finds their end */
	return !fstat(fd, &st) && st.st_size > 0 && (uint64_t)st.st_size > max;
}

static char *read_path(const char *path, size_t max, size_t *len, bool whole)
{
	int fd = atag_open_input(AT_FDCWD, path, 0);
	char *text;
	int err;

	if (fd < 0)
		return NULL;
	if (whole && atag_input_too_large(fd, max)) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	text = read_upto(read_fd, &fd, max, len, whole);
	err = errno;
	close(fd);
	errno = err;
	return text;
}

char *atag_read_file(const char *path, size_t max, size_t *len)
{
	return read_path(path, max, len, true);
}

char *atag_read_head(const char *path, size_t max, size_t *len)
{
	return read_path(path, max, len, false);
}

const char *atag_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err == ATAG_ENOTREG)
		return "not a regular file (a FIFO, a device or a socket)";
	if (err == EFBIG)
		return "larger than " ATAG_INPUT_MAX_TEXT ": not read";
	return strerror(err);
}

/* 0: @path is an executable regular file; -EACCES: it is there but not that. */
static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno == ENOTDIR ? -ENOENT : -errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK))
		return -EACCES;
	return 0;
}

int atag_find_program(const char *name, char *full, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;
	int ret, err = -ENOENT;
	char cand[PATH_MAX];
	size_t n;

	if (!*name)
		return atag_err(-ENOENT);
	if (strchr(name, '/')) {
		snprintf(full, len, "%s", name);
		return atag_err(runnable(name));
	}
	if (!path)
		path = "/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		n = end - p;
		snprintf(cand, sizeof(cand), "%.*s%s%s", (int)n, p, n ? "/" : "", name);
		ret = runnable(cand);
		/* as execvp(): EACCES (the first such file) if no other is found */
		if (!ret || (ret == -EACCES && err != -EACCES))
			snprintf(full, len, "%s", cand);
		if (!ret)
			return 0;
		if (ret == -EACCES)
			err = ret;
		if (!*end)
			break;
	}
	return atag_err(err);
}

int atag_keep_old(int dirfd, const char *name, char *old, size_t len)
{
	char buf[PATH_MAX];
	struct stat st;

	if (!old) {
		old = buf;
		len = sizeof(buf);
	}
	if (snprintf(old, len, "%s.old", name) >= (int)len)
		return atag_err(-ENAMETOOLONG);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : atag_err(-errno);
	if (!S_ISREG(st.st_mode))
		return 0;
	if (renameat(dirfd, name, dirfd, old))
		return atag_err(-errno);
	return 1;
}

DIR *atag_opendir_fd(int fd)
{
	int dup_fd = dup(fd);
	DIR *dp;

	dp = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!dp) {
		int err = errno;

		if (dup_fd >= 0)
			close(dup_fd);
		errno = err;
		return NULL;
	}
	/* a dup shares the position of @fd: start from the top */
	rewinddir(dp);
	return dp;
}

const char *atag_kernel_fs(const char *dir)
{
	static const struct {
		long		magic;
		const char	*name;
	} fs[] = {
		{ PROC_SUPER_MAGIC, "proc" }, { SYSFS_MAGIC, "sysfs" },
		{ TRACEFS_MAGIC, "tracefs" }, { DEBUGFS_MAGIC, "debugfs" },
		{ CGROUP_SUPER_MAGIC, "cgroup" }, { CGROUP2_SUPER_MAGIC, "cgroup2" },
		{ SECURITYFS_MAGIC, "securityfs" }, { BPF_FS_MAGIC, "bpf" },
	};
	struct statfs sf;
	size_t i;

	if (statfs(dir, &sf))
		return NULL;
	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if ((long)sf.f_type == fs[i].magic)
			return fs[i].name;
	return NULL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int atag_parse_kv(const char *text, atag_kv_fn fn, void *ctx, int *line)
{
	char buf[KV_LINE_MAX], *colon;
	const char *p = text, *nl;
	size_t len;
	int n = 0;

	*line = 0;
	for (; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		n++;
		len = nl - p;
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (!*trim(buf))
			continue;
		colon = strchr(buf, ':');
		if (colon)
			*colon = '\0';
		if (!colon || fn(trim(buf), trim(colon + 1), ctx)) {
			*line = n;
			return atag_err(-EINVAL);
		}
	}
	return 0;
}
