// SPDX-License-Identifier: LGPL-2.1
/*
 * The JSON writer of the machine-readable outputs: nesting, commas, the two layouts,
 * and strings made valid UTF-8 (include/atag-json.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atag-json.h"
#include "atag-utils.h"

void atag_json_init(struct atag_json *w, FILE *f, unsigned int flags)
{
	atag_outbuf_init(&w->out, f);
	w->flags = flags;
	w->depth = 0;
	w->brk = false;
	w->misuse = false;
	w->level[0] = (struct atag_json_level){ 0 };
}

/* ------------------------------------------------------------ output */

static inline void put_bytes(struct atag_json *w, const void *p, size_t len)
{
	atag_outbuf_put(&w->out, p, len);
}

static inline void put_char(struct atag_json *w, char c)
{
	atag_outbuf_putc(&w->out, c);
}

static inline void put_text(struct atag_json *w, const char *s)
{
	atag_outbuf_puts(&w->out, s);
}

/* A newline and the indent of the current depth (the pretty layout). */
static void put_indent(struct atag_json *w)
{
	int i;

	put_char(w, '\n');
	for (i = 0; i < 2 * w->depth; i++)
		put_char(w, ' ');
}

/* How many bytes at @p go out as they are: 0 when the byte needs an escape. */
static size_t plain_len(const unsigned char *p)
{
	if (*p < 0x20 || *p == '"' || *p == '\\')
		return 0;
	return atag_utf8_len(p);
}

static void put_escape(struct atag_json *w, unsigned char c)
{
	bool short_ok = !(w->flags & ATAG_JSON_ESCAPE_U);

	char u[8];

	if (c == '"' || c == '\\') {
		put_char(w, '\\');
		put_char(w, c);
	} else if (c == '\n' && short_ok) {
		put_text(w, "\\n");
	} else if (c == '\t' && short_ok) {
		put_text(w, "\\t");
	} else if (c < 0x20) {
		snprintf(u, sizeof(u), "\\u%04x", c);
		put_text(w, u);
	} else {
		put_text(w, "\\ufffd");
	}
}

/* The bytes that go out as they are on their own: printable ASCII but '"' and '\\'. */
static const bool ascii_plain[256] = {
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7e] = true,	/* " 0x22, \\ 0x5c */
};

static void put_string(struct atag_json *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run;
	size_t n;

	put_char(w, '"');
	while (*p) {
		/* write runs that need no escaping in one go; printable ASCII first, fast */
		for (run = p;;) {
			while (ascii_plain[*p])
				p++;
			n = plain_len(p);
			if (!n)
				break;
			p += n;
		}
		put_bytes(w, run, p - run);
		if (!*p)
			break;
		put_escape(w, *p++);
	}
	put_char(w, '"');
}

void atag_json_write_string(FILE *f, const char *s)
{
	struct atag_json w;

	atag_json_init(&w, f, 0);
	if (s)
		put_string(&w, s);
	else
		put_text(&w, "null");
	atag_outbuf_flush(&w.out);
}

/* A member's key and its colon; in one write when it needs no escape (the usual case). */
static void put_key(struct atag_json *w, const char *key, bool pretty)
{
	char buf[64];
	size_t n = 1;

	buf[0] = '"';
	for (; ascii_plain[(unsigned char)*key] && n < sizeof(buf) - 4; key++)
		buf[n++] = *key;
	if (*key) {
		/* long, or to be escaped: the string rules */
		put_string(w, key - (n - 1));
		put_text(w, pretty ? ": " : ":");
		return;
	}
	buf[n++] = '"';
	buf[n++] = ':';
	if (pretty)
		buf[n++] = ' ';
	put_bytes(w, buf, n);
}

/* What goes before a value: the comma, the line break and indent, the key. */
static void begin(struct atag_json *w, const char *key)
{
	struct atag_json_level *l = &w->level[w->depth];
	bool pretty = w->flags & ATAG_JSON_PRETTY;

	if (l->object != (key != NULL) || (!w->depth && l->items))
		w->misuse = true;
	if (l->items && w->depth)
		put_char(w, ',');
	if (pretty)
		put_indent(w);
	else if (w->brk)
		put_char(w, '\n');
	w->brk = false;
	l->items = true;
	if (key)
		put_key(w, key, pretty);
}

static void open_container(struct atag_json *w, const char *key, bool object)
{
	if (w->depth == ATAG_JSON_MAX_DEPTH) {
		w->misuse = true;
		return;
	}
	begin(w, key);
	put_char(w, object ? '{' : '[');
	w->level[++w->depth] = (struct atag_json_level){ .object = object };
}

void atag_json_open_object(struct atag_json *w, const char *key)
{
	open_container(w, key, true);
}

void atag_json_open_array(struct atag_json *w, const char *key)
{
	open_container(w, key, false);
}

void atag_json_close(struct atag_json *w)
{
	const struct atag_json_level *l = &w->level[w->depth];

	if (!w->depth) {
		w->misuse = true;
		return;
	}
	w->depth--;
	if ((w->flags & ATAG_JSON_PRETTY) && l->items)
		put_indent(w);
	put_char(w, l->object ? '}' : ']');
}

void atag_json_break(struct atag_json *w)
{
	w->brk = true;
}

void atag_json_str(struct atag_json *w, const char *key, const char *s)
{
	begin(w, key);
	if (s)
		put_string(w, s);
	else
		put_text(w, "null");
}

void atag_json_null(struct atag_json *w, const char *key)
{
	begin(w, key);
	put_text(w, "null");
}

void atag_json_bool(struct atag_json *w, const char *key, bool v)
{
	begin(w, key);
	put_text(w, v ? "true" : "false");
}

void atag_json_uint(struct atag_json *w, const char *key, unsigned long long v)
{
	begin(w, key);
	atag_outbuf_number(&w->out, v, false);
}

void atag_json_int(struct atag_json *w, const char *key, long long v)
{
	begin(w, key);
	atag_outbuf_int(&w->out, v);
}

void atag_json_known_int(struct atag_json *w, const char *key, long long v)
{
	if (v < 0)
		atag_json_null(w, key);
	else
		atag_json_int(w, key, v);
}

void atag_json_strs(struct atag_json *w, const char *key, char * const *s, unsigned int n)
{
	unsigned int i;

	atag_json_open_array(w, key);
	for (i = 0; i < n; i++)
		atag_json_str(w, NULL, s[i]);
	atag_json_close(w);
}

void atag_json_write_strs(FILE *f, char * const *s, unsigned int n)
{
	struct atag_json w;

	atag_json_init(&w, f, 0);
	atag_json_strs(&w, NULL, s, n);
	atag_outbuf_flush(&w.out);
}

void atag_json_text(struct atag_json *w, const char *key, const char *text)
{
	begin(w, key);
	put_text(w, text);
}

void atag_json_hex(struct atag_json *w, const char *key, unsigned long long v)
{
	begin(w, key);
	put_char(w, '"');
	atag_outbuf_number(&w->out, v, true);
	put_char(w, '"');
}

static void put_fixed(struct atag_json *w, double v, int decimals)
{
	char buf[512];	/* 1e308 with 17 decimals fits */
	int n = snprintf(buf, sizeof(buf), "%.*f", decimals, v);

	if (n > 0)
		put_bytes(w, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void atag_json_fixed(struct atag_json *w, const char *key, double v, int decimals)
{
	begin(w, key);
	if (!isfinite(v))
		put_text(w, "null");
	else
		put_fixed(w, v, decimals < 0 ? 0 : decimals > 17 ? 17 : decimals);
}

int atag_json_finish(struct atag_json *w)
{
	int ret = 0;

	put_char(w, '\n');
	atag_outbuf_flush(&w->out);
	if (w->misuse || w->depth || !w->level[0].items)
		ret = -EINVAL;
	else if (ferror(w->out.f))
		ret = -EIO;
	if (ret)
		errno = -ret;
	return ret;
}
