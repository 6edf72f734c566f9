// SPDX-License-Identifier: LGPL-2.1
/*
 * The recorder's output: trace-cmd writes the trace.dat and its per-CPU temporaries
 * in a private directory beside the final file, and only a complete trace.dat is
 * moved into place (rules in include/atag-recorder.h).
 *
 * Every step works on directory file descriptors: trace-cmd runs inside the private
 * directory with relative names, and the final rename is renameat() from it into the
 * output's directory, so neither a path swapped meanwhile nor a link planted at the
 * output's name is followed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "atag-recorder.h"
#include "atag-utils.h"

#define TMP_TRIES	100

struct atag_output {
	char	*final;		/* the output, absolute */
	char	*tmpdir;	/* the private directory, absolute */
	char	*base;		/* the output's name in its directory */
	char	name[64];	/* the private directory's name in it */
	int	dirfd;		/* the output's directory */
	int	tmpfd;		/* the private directory, -1 once it is gone */
	bool	committed;
};

mode_t atag_output_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	/* others never; the group only when the umask shuts others out entirely */
	if ((mask & 007) == 007)
		return 0640 & ~mask;
	return 0600 & ~mask;
}

/* "DIR" and "BASE" of @path, DIR absolute; 0 or -errno. */
static int split_path(const char *path, char **dir, char **base)
{
	const char *slash = strrchr(path, '/');
	char *d, real[PATH_MAX];

	*dir = *base = NULL;
	if (!*path || (slash && !slash[1]))
		return atag_err(-EISDIR);
	if (!slash)
		d = strdup(".");
	else if (slash == path)
		d = strdup("/");
	else
		d = strndup(path, slash - path);
	if (!d)
		return atag_err(-ENOMEM);
	if (!realpath(d, real)) {
		free(d);
		return atag_err(-errno);
	}
	free(d);
	*dir = strdup(real);
	*base = strdup(slash ? slash + 1 : path);
	if (!*dir || !*base || !strcmp(*base, ".") || !strcmp(*base, "..")) {
		int err = *dir && *base ? -EISDIR : -ENOMEM;

		free(*dir);
		free(*base);
		*dir = *base = NULL;
		return atag_err(err);
	}
	return 0;
}

/* A random name ".trace-cmd-alloc-tag.XXXXXXXX". */
static void random_name(char *buf, size_t len)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[8];
	size_t i, n;

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		unsigned long long t = atag_now_ns() ^ ((unsigned long long)getpid() << 32);

		memcpy(rnd, &t, sizeof(rnd));
	}
	n = snprintf(buf, len, "%s", ATAG_OUTPUT_TMP_PREFIX);
	for (i = 0; i < sizeof(rnd) && n + 1 < len; i++)
		buf[n++] = chars[rnd[i] % (sizeof(chars) - 1)];
	buf[n] = '\0';
}

/* Whether the directory @fd is ours alone: owned by us, mode 0700. */
static bool is_private(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 077);
}

/* Open the directory @name of @dirfd (not a link to one) if it is ours alone: fd or -errno. */
static int open_private(int dirfd, const char *name)
{
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return atag_err(-errno);
	if (!is_private(fd)) {
		close(fd);
		return atag_err(-EPERM);
	}
	return fd;
}

static struct atag_output *output_alloc(const char *dir, const char *base)
{
	struct atag_output *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->dirfd = o->tmpfd = -1;
	o->base = strdup(base);
	if (asprintf(&o->final, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", base) < 0)
		o->final = NULL;
	if (!o->base || !o->final) {
		atag_output_free(o);
		errno = ENOMEM;
		return NULL;
	}
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0) {
		int err = errno;

		atag_output_free(o);
		errno = err;
		return NULL;
	}
	return o;
}

struct atag_output *atag_output_create(const char *path, atag_output_note_fn note, void *ctx)
{
	struct atag_output *o;
	char *dir, *base;
	struct stat st;
	int ret, i;

	ret = split_path(path, &dir, &base);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	o = output_alloc(dir, base);
	if (!o)
		goto out;
	/*
	 * what is there goes by rename: a file or a link, never a directory or a device,
	 * nor a link to a device, a pipe or a socket (/dev/stdout); a dangling link may go
	 */
	if (!fstatat(o->dirfd, base, &st, AT_SYMLINK_NOFOLLOW) &&
	    (!S_ISLNK(st.st_mode) || !fstatat(o->dirfd, base, &st, 0)) && !S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		atag_output_free(o);
		o = NULL;
		errno = -ret;
		goto out;
	}
	for (i = 0, ret = -EEXIST; i < TMP_TRIES && ret == -EEXIST; i++) {
		random_name(o->name, sizeof(o->name));
		free(o->tmpdir);
		if (asprintf(&o->tmpdir, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "",
			     o->name) < 0) {
			o->tmpdir = NULL;
			ret = -ENOMEM;
			break;
		}
		/* noted before it exists, so that no directory of ours goes unlisted */
		ret = note ? note(o->tmpdir, o->final, ctx) : 0;
		if (!ret && mkdirat(o->dirfd, o->name, 0700))
			ret = -errno;
	}
	if (!ret) {
		/* a directory swapped in meanwhile is someone else's: refused */
		o->tmpfd = openat(o->dirfd, o->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				  O_CLOEXEC);
		if (o->tmpfd < 0 || fchmod(o->tmpfd, 0700))
			ret = -errno;
		else if (!is_private(o->tmpfd))
			ret = -EPERM;
		if (ret == -EPERM) {
			close(o->tmpfd);	/* not ours: nothing in it is removed */
			o->tmpfd = -1;
		}
	}
	if (ret) {
		atag_output_free(o);
		o = NULL;
		errno = -ret;
	}
out:
	free(dir);
	free(base);
	return o;
}

int atag_output_dirfd(const struct atag_output *o)
{
	return o->tmpfd;
}

const char *atag_output_path(const struct atag_output *o)
{
	return o->final;
}

const char *atag_output_tmpdir(const struct atag_output *o)
{
	return o->tmpdir;
}

bool atag_output_full(const struct atag_output *o)
{
	struct statvfs sv;

	if (o->tmpfd < 0 || fstatvfs(o->tmpfd, &sv))
		return false;
	/* root may use the blocks reserved for it, others may not */
	return (geteuid() ? sv.f_bavail : sv.f_bfree) == 0;
}

/* Remove the entries of the private directory @fd, then the directory. */
static void remove_private(int dirfd, const char *name, int fd)
{
	struct stat here, there;
	DIR *dp = atag_opendir_fd(fd);
	struct dirent *d;

	while (dp && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (unlinkat(fd, d->d_name, 0) && errno == EISDIR)
			unlinkat(fd, d->d_name, AT_REMOVEDIR);	/* only if empty */
	}
	if (dp)
		closedir(dp);
	/* the name still names this directory: not one put in its place */
	if (!fstat(fd, &here) && !fstatat(dirfd, name, &there, AT_SYMLINK_NOFOLLOW) &&
	    here.st_dev == there.st_dev && here.st_ino == there.st_ino)
		unlinkat(dirfd, name, AT_REMOVEDIR);
}

/*
 * The trace.dat of the private directory @fd, made @mode and moved to @base in @dirfd;
 * a regular file there is kept as @base.old first (then 1 is returned).
 */
static int move_into_place(int fd, int dirfd, const char *base, mode_t mode)
{
	struct stat st;
	int file, ret = 0, kept = 0;

	file = openat(fd, ATAG_OUTPUT_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (file < 0)
		return atag_err(-errno);
	if (fstat(file, &st))
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EBADMSG;
	else if (fchmod(file, mode))
		ret = -errno;
	close(file);
	if (!ret)
		kept = atag_keep_old(dirfd, base, NULL, 0);
	if (kept < 0)
		ret = kept;
	/* renameat() replaces a link at @base, never follows it */
	if (!ret && renameat(fd, ATAG_OUTPUT_NAME, dirfd, base))
		ret = -errno;
	return ret ? atag_err(ret) : kept;
}

int atag_output_commit(struct atag_output *o)
{
	int ret;

	if (o->tmpfd < 0)
		return atag_err(-ENOENT);
	ret = move_into_place(o->tmpfd, o->dirfd, o->base, atag_output_mode());
	if (ret >= 0)
		o->committed = true;
	atag_output_discard(o);
	return ret;
}

void atag_output_discard(struct atag_output *o)
{
	if (!o || o->tmpfd < 0)
		return;
	remove_private(o->dirfd, o->name, o->tmpfd);
	close(o->tmpfd);
	o->tmpfd = -1;
}

void atag_output_free(struct atag_output *o)
{
	if (!o)
		return;
	atag_output_discard(o);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->final);
	free(o->tmpdir);
	free(o->base);
	free(o);
}

/* Whether trace-cmd finished: its output is there and none of its temporaries. */
static bool looks_complete(int fd)
{
	bool output = false, temps = false;
	DIR *dp = atag_opendir_fd(fd);
	struct dirent *d;

	if (!dp)
		return false;
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ATAG_OUTPUT_NAME))
			output = true;
		else if (strstr(d->d_name, ".cpu"))
			temps = true;
	}
	closedir(dp);
	return output && !temps;
}

int atag_output_recover(const char *tmpdir, const char *final, bool *moved)
{
	char *tdir, *tname, *fdir, *fbase;
	int dirfd = -1, fd = -1, ret;

	*moved = false;
	ret = split_path(tmpdir, &tdir, &tname);
	if (ret)
		return ret == -ENOENT ? 0 : ret;	/* its directory is gone: so is it */
	ret = split_path(final, &fdir, &fbase);
	/* only a directory of ours, beside the output it was made for */
	if (!ret && (strcmp(tdir, fdir) ||
		     strncmp(tname, ATAG_OUTPUT_TMP_PREFIX, strlen(ATAG_OUTPUT_TMP_PREFIX))))
		ret = -EINVAL;
	if (!ret && (dirfd = open(tdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		ret = -errno;
	if (!ret && (fd = open_private(dirfd, tname)) < 0)
		ret = fd == -ENOENT ? 1 : fd;	/* never made, or removed already */
	if (!ret && looks_complete(fd)) {
		ret = move_into_place(fd, dirfd, fbase, atag_output_mode());
		*moved = ret >= 0;
		ret = ret < 0 ? ret : 0;
	}
	if (fd >= 0) {
		remove_private(dirfd, tname, fd);
		close(fd);
	}
	if (dirfd >= 0)
		close(dirfd);
	free(tdir);
	free(tname);
	free(fdir);
	free(fbase);
	return atag_err(ret > 0 ? 0 : ret);
}
