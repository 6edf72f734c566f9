// SPDX-License-Identifier: GPL-2.0
/*
 * atag-no-tmpfile.so: preloaded by the tests (LD_PRELOAD) into the normal build, it
 * makes every open with O_TMPFILE fail with EOPNOTSUPP, as on a file system that has
 * no unnamed temporary files (NFS, FUSE, vfat): the outputs' fallback, a private file
 * of a name of ours, is then the one taken. Other opens are left alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

static mode_t mode_of(int flags, va_list ap)
{
	return flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, mode_t) : 0;
}

#define WRAP(name, ...)								\
	int (*real)(__VA_ARGS__) = (int (*)(__VA_ARGS__))dlsym(RTLD_NEXT, name)

/* O_TMPFILE holds O_DIRECTORY: only both make an unnamed file */
#define IS_TMPFILE(flags)	(((flags) & O_TMPFILE) == O_TMPFILE)

int open(const char *path, int flags, ...)
{
	WRAP("open", const char *, int, mode_t);
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_of(flags, ap);
	va_end(ap);
	if (IS_TMPFILE(flags)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return real(path, flags, m);
}

int open64(const char *path, int flags, ...)
{
	WRAP("open64", const char *, int, mode_t);
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_of(flags, ap);
	va_end(ap);
	if (IS_TMPFILE(flags)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return real(path, flags, m);
}

int openat(int dir, const char *path, int flags, ...)
{
	WRAP("openat", int, const char *, int, mode_t);
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_of(flags, ap);
	va_end(ap);
	if (IS_TMPFILE(flags)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return real(dir, path, flags, m);
}
