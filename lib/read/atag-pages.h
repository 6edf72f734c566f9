/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-pages.h - walking the ring-buffer pages of a trace.dat (library-internal).
 * See lib/read/atag-pages.c.
 */
#ifndef _ATAG_PAGES_H
#define _ATAG_PAGES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct atag_pages;
struct atag_tracedat;
struct tep_record;

/*
 * A walker of @td's buffers (@td must outlive it). What a walk skips (a bad
 * page, a chunk it cannot decompress) it says through @warn, with @ctx; @warn
 * may be NULL.
 */
struct atag_pages *atag_pages_alloc(struct atag_tracedat *td,
				    void (*warn)(void *ctx, const char *fmt, va_list ap), void *ctx);
void atag_pages_free(struct atag_pages *p);

/*
 * Call @cb with each record of buffer @buffer in timestamp order across CPUs,
 * the order tracecmd_iterate_events() gives (of equal timestamps, the CPU listed
 * first), until @cb returns non-zero. A record carries ts, cpu (the CPU's index
 * in the buffer's list, see atag_tracedat.buf[].cpus), data, size and
 * missed_events (on the first record of a page flagged with lost events); its
 * data lies within its page and is valid during the call only. Returns 0 or a
 * negative errno.
 */
int atag_pages_iterate(struct atag_pages *p, int buffer,
		       int (*cb)(const struct tep_record *rec, void *data), void *data);

/*
 * A look-ahead hook: called with @rec NULL when the walk enters a page of CPU
 * @cpu (an index, as in the records), and if it returns true, then with each
 * record (@rec its data, @size bytes) of that CPU's next page, if that page is
 * already read: records the callback of atag_pages_iterate() gets after those of
 * the page entered. So the records named between two calls with @rec NULL for a
 * CPU are the page that CPU enters at the second. For prefetching only: a
 * damaged page ends the naming of its records without a word.
 */
typedef bool (*atag_pages_ahead_fn)(void *data, int cpu, const void *rec, uint32_t size);

/* Set (or with @ahead NULL, clear) the look-ahead hook of the walks to come. */
void atag_pages_set_ahead(struct atag_pages *p, atag_pages_ahead_fn ahead, void *data);

/* Pages and chunks the last walk skipped as damaged. */
uint64_t atag_pages_damaged(const struct atag_pages *p);

/* How far the walk under way has got, from 0 to 1, by bytes of the file. */
double atag_pages_progress(const struct atag_pages *p);

#endif /* _ATAG_PAGES_H */
