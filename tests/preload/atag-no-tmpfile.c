// SPDX-License-Identifier: GPL-2.0
/*
 * atag-no-tmpfile.so: preloaded by the tests (LD_PRELOAD) into the normal build, it
 * makes every openat() with O_TMPFILE fail with EOPNOTSUPP, as on a file system that
 * has no unnamed temporary files (NFS, FUSE, vfat): the outputs' fallback, a private
 * file of a name of ours, is then the one taken. The outputs open their private file
 * with openat() (openat64() where large-file names are redirected); other opens are
 * left alone. Each refusal creates the file $ATAG_NO_TMPFILE_SEEN, if set, so that a
 * test knows the fallback was taken, not merely that the output was written.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*openat_fn)(int, const char *, int, ...);

static int wrapped(const char *name, int dir, const char *path, int flags, va_list ap)
{
	openat_fn real = (openat_fn)dlsym(RTLD_NEXT, name);
	/* O_TMPFILE holds O_DIRECTORY: only both make an unnamed file */
	mode_t mode = flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, mode_t) : 0;
	const char *seen = getenv("ATAG_NO_TMPFILE_SEEN");
	int fd;

	if ((flags & O_TMPFILE) != O_TMPFILE)
		return real(dir, path, flags, mode);
	if (seen && *seen) {
		fd = real(AT_FDCWD, seen, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
	}
	errno = EOPNOTSUPP;
	return -1;
}

int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	int ret;

	va_start(ap, flags);
	ret = wrapped("openat", dir, path, flags, ap);
	va_end(ap);
	return ret;
}

int openat64(int dir, const char *path, int flags, ...)
{
	va_list ap;
	int ret;

	va_start(ap, flags);
	ret = wrapped("openat64", dir, path, flags, ap);
	va_end(ap);
	return ret;
}
