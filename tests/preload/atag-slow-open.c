// SPDX-License-Identifier: GPL-2.0
/*
 * atag-slow-open.so: preloaded into stock trace-cmd by the tests (LD_PRELOAD), it makes
 * each open of a file whose name is $ATAG_SLOW_OPEN (default "saved_cmdlines") wait
 * $ATAG_SLOW_OPEN_MS milliseconds (default 200) first. trace-cmd record reads the
 * kernel's saved_cmdlines twice when it writes its file, once for the size and once for
 * the bytes: beside a task that keeps the table changing (tests/progs/atag-comm-churn),
 * the wait makes the table change in between every time, where on a busy machine it
 * does now and then. Nothing else of trace-cmd changes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void maybe_wait(const char *path)
{
	const char *name = getenv("ATAG_SLOW_OPEN"), *ms = getenv("ATAG_SLOW_OPEN_MS");
	const char *base = path ? strrchr(path, '/') : NULL;
	struct timespec ts;
	long wait;

	base = base ? base + 1 : path;
	if (!base || strcmp(base, name && *name ? name : "saved_cmdlines"))
		return;
	wait = ms ? atol(ms) : 200;
	ts.tv_sec = wait / 1000;
	ts.tv_nsec = wait % 1000 * 1000000L;
	while (nanosleep(&ts, &ts))
		;
}

static mode_t mode_of(int flags, va_list ap)
{
	return flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, mode_t) : 0;
}

#define WRAP(name, ...)								\
	int (*real)(__VA_ARGS__) = (int (*)(__VA_ARGS__))dlsym(RTLD_NEXT, name)

int open(const char *path, int flags, ...)
{
	WRAP("open", const char *, int, mode_t);
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_of(flags, ap);
	va_end(ap);
	maybe_wait(path);
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
	maybe_wait(path);
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
	maybe_wait(path);
	return real(dir, path, flags, m);
}
