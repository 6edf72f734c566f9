/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-pages.h - walking the ring-buffer pages of a version 6 trace.dat directly
 * (library-internal). See lib/read/atag-pages.c.
 */
#ifndef _ATAG_PAGES_H
#define _ATAG_PAGES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct atag_pages;
struct tep_record;

/*
 * The layout of the v6 or v7 file at @fd, or NULL if it cannot be read. Files
 * whose timestamps libtracecmd would convert are described but not walkable:
 * atag_pages_find() then finds no buffer. A walk says what it had to skip (a bad
 * page, a chunk it cannot decompress) through @warn, with @ctx; @warn may be NULL.
 */
struct atag_pages *atag_pages_open(int fd, void (*warn)(void *ctx, const char *fmt, va_list ap),
				   void *ctx);
void atag_pages_close(struct atag_pages *p);

/* Keep libtracecmd as the walker of this file (@walkable false). */
void atag_pages_set_walkable(struct atag_pages *p, bool walkable);

/* Index of the buffer called @name ("" = top), or -1 (also when not walkable). */
int atag_pages_find(const struct atag_pages *p, const char *name);

/*
 * Call @cb with each record of @buffer in timestamp order across CPUs, like
 * tracecmd_iterate_events() (@cb returns non-zero to stop). Returns 0 or a
 * negative errno.
 */
int atag_pages_iterate(struct atag_pages *p, int buffer,
		       int (*cb)(const struct tep_record *rec, void *data), void *data);

/* The kallsyms text the file carries (malloc'ed, NUL-terminated; *@len bytes), or NULL. */
char *atag_pages_kallsyms(struct atag_pages *p, size_t *len);

/* How far the walk under way has got, from 0 to 1, by bytes of the file. */
double atag_pages_progress(const struct atag_pages *p);

#endif /* _ATAG_PAGES_H */
