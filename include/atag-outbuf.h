/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-outbuf.h - bytes gathered before they go to a FILE in one write (the JSON
 * writer of include/atag-json.h holds one).
 *
 * For writers of many small pieces (the JSON writer's commas, keys and values,
 * report -f lifetimes' CSV cells): a piece is copied into the buffer, and the
 * buffer goes to the FILE when it is full or when the writer flushes it; a piece
 * larger than the buffer goes straight through. Numbers are written without
 * printf. Nothing reaches the FILE before atag_outbuf_flush() or a full buffer.
 */
#ifndef _ATAG_OUTBUF_H
#define _ATAG_OUTBUF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ATAG_OUTBUF_SIZE	1024

struct atag_outbuf {
	FILE		*f;
	size_t		n;
	char		buf[ATAG_OUTBUF_SIZE];
};

static inline void atag_outbuf_init(struct atag_outbuf *o, FILE *f)
{
	o->f = f;
	o->n = 0;
}

/* Hand what is gathered to the FILE (its errors show in ferror()). */
static inline void atag_outbuf_flush(struct atag_outbuf *o)
{
	if (o->n)
		fwrite_unlocked(o->buf, 1, o->n, o->f);
	o->n = 0;
}

static inline void atag_outbuf_put(struct atag_outbuf *o, const void *p, size_t len)
{
	if (len > sizeof(o->buf)) {
		/* what was gathered first, then the piece itself */
		atag_outbuf_flush(o);
		fwrite_unlocked(p, 1, len, o->f);
		return;
	}
	if (len > sizeof(o->buf) - o->n)
		atag_outbuf_flush(o);
	memcpy(o->buf + o->n, p, len);
	o->n += len;
}

static inline void atag_outbuf_putc(struct atag_outbuf *o, char c)
{
	if (o->n == sizeof(o->buf))
		atag_outbuf_flush(o);
	o->buf[o->n++] = c;
}

static inline void atag_outbuf_puts(struct atag_outbuf *o, const char *s)
{
	atag_outbuf_put(o, s, strlen(s));
}

/* @v as printf's %llu, or with @hex as 0x%llx. */
static inline void atag_outbuf_number(struct atag_outbuf *o, uint64_t v, bool hex)
{
	static const char digits[] = "0123456789abcdef";
	char t[24], *p = t + sizeof(t);

	do {
		*--p = digits[hex ? v & 15 : v % 10];
		v = hex ? v >> 4 : v / 10;
	} while (v);
	if (hex) {
		*--p = 'x';
		*--p = '0';
	}
	atag_outbuf_put(o, p, t + sizeof(t) - p);
}

/* @v as printf's %lld. */
static inline void atag_outbuf_int(struct atag_outbuf *o, int64_t v)
{
	if (v < 0)
		atag_outbuf_putc(o, '-');
	/* the magnitude of INT64_MIN fits a uint64_t */
	atag_outbuf_number(o, v < 0 ? -(uint64_t)v : (uint64_t)v, false);
}

#endif /* _ATAG_OUTBUF_H */
