/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-pages.h - walking the ring-buffer pages of a version 6 trace.dat directly
 * (library-internal). See lib/atag-pages.c.
 */
#ifndef _ATAG_PAGES_H
#define _ATAG_PAGES_H

struct atag_pages;
struct tracecmd_input;
struct tep_record;

/* The page map of the v6 file at @fd, or NULL if it must be read through libtracecmd. */
struct atag_pages *atag_pages_open(int fd);
void atag_pages_close(struct atag_pages *p);

/* Index of the buffer called @name ("" = top), or -1. */
int atag_pages_find(const struct atag_pages *p, const char *name);

/*
 * Call @cb with each record of @buffer in timestamp order across CPUs, like
 * tracecmd_iterate_events() (@h is passed through; @cb returns < 0 to stop).
 * Returns 0 or a negative errno.
 */
int atag_pages_iterate(struct atag_pages *p, int buffer, struct tracecmd_input *h,
		       int (*cb)(struct tracecmd_input *h, struct tep_record *rec, int cpu,
				 void *data), void *data);

#endif /* _ATAG_PAGES_H */
