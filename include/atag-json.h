/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-json.h - the JSON writer of the machine-readable outputs (report --format json,
 * stat --format json).
 *
 * A writer streams one document to a FILE. It keeps a stack of the objects and arrays
 * open and writes the commas. Each value call takes the member's key: a string inside an
 * object, NULL inside an array and for the document itself.
 *
 * Strings are always valid UTF-8 JSON, whatever the bytes given (call-site names and
 * comms come from trace records, instance names from directory entries):
 *  - '"' and '\' are escaped; control characters (below 0x20) become \n, \t or \u00XX;
 *  - well-formed UTF-8 sequences pass through unchanged (DEL, 0x7f, too);
 *  - every other byte becomes \ufffd, one for each byte: a continuation byte out of place,
 *    the bytes of a truncated sequence, overlong forms (0xc0, 0xc1, 0xe0 0x80..0x9f,
 *    0xf0 0x80..0x8f), surrogates (0xed 0xa0..0xbf), code points above U+10FFFF and
 *    0xf5..0xff.
 * Integers are written exactly (the full 64-bit ranges); NULL strings are written as null.
 *
 * Layout, chosen by the flags of atag_json_init():
 *  - compact (0): no white space, except a newline wherever the caller asks for one
 *    with atag_json_break() (report: a call site a line);
 *  - ATAG_JSON_PRETTY: each value, the document's own included, starts on a new line
 *    indented by two spaces a level, a key is followed by ": ", and a closing bracket
 *    is on a line of its own unless the container is empty (stat);
 *  - ATAG_JSON_ESCAPE_U: every control character is written as \u00XX, \n and \t too.
 *
 * Misuse (a member without a key, an element or the document with one, a second
 * document, a close with nothing open, nesting deeper than ATAG_JSON_MAX_DEPTH) is
 * remembered, and atag_json_finish() reports it.
 */
#ifndef _ATAG_JSON_H
#define _ATAG_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include "atag-outbuf.h"

#define ATAG_JSON_MAX_DEPTH	32

enum atag_json_flags {
	ATAG_JSON_PRETTY	= 1 << 0,	/* a value a line, indented */
	ATAG_JSON_ESCAPE_U	= 1 << 1,	/* \u000a and \u0009, not \n and \t */
};

/* One level of nesting; level 0 is the document. */
struct atag_json_level {
	bool		object;		/* members need keys */
	bool		items;		/* something written: the next one needs a comma */
};

struct atag_json {
	/* the FILE, and what is not handed to it yet: members go out in whole writes */
	struct atag_outbuf	out;
	unsigned int		flags;		/* enum atag_json_flags */
	int			depth;		/* containers open */
	bool			brk;		/* atag_json_break() pending */
	bool			misuse;
	struct atag_json_level	level[ATAG_JSON_MAX_DEPTH + 1];
};

/**
 * atag_json_init - start a document
 * @w: the writer
 * @f: where to write
 * @flags: enum atag_json_flags, or 0 for the compact layout
 */
void atag_json_init(struct atag_json *w, FILE *f, unsigned int flags);

/**
 * atag_json_open_object - write a '{' and enter the object
 * @w: the writer
 * @key: the member's key, or NULL for an array element or the document
 */
void atag_json_open_object(struct atag_json *w, const char *key);

/**
 * atag_json_open_array - write a '[' and enter the array
 * @w: the writer
 * @key: the member's key, or NULL for an array element or the document
 */
void atag_json_open_array(struct atag_json *w, const char *key);

/**
 * atag_json_close - close the innermost object or array
 * @w: the writer
 */
void atag_json_close(struct atag_json *w);

/**
 * atag_json_break - in the compact layout, start the next member or element on a new line
 * @w: the writer
 *
 * The newline follows the comma, if any. Nothing changes in the pretty layout.
 */
void atag_json_break(struct atag_json *w);

/**
 * atag_json_str - write a string
 * @w: the writer
 * @key: the member's key, or NULL
 * @s: a NUL-terminated string of any bytes (escaped and made valid UTF-8), or NULL for null
 */
void atag_json_str(struct atag_json *w, const char *key, const char *s);

/**
 * atag_json_null - write null
 * @w: the writer
 * @key: the member's key, or NULL
 */
void atag_json_null(struct atag_json *w, const char *key);

/**
 * atag_json_bool - write true or false
 * @w: the writer
 * @key: the member's key, or NULL
 * @v: the value
 */
void atag_json_bool(struct atag_json *w, const char *key, bool v);

/**
 * atag_json_uint - write an unsigned integer, exactly
 * @w: the writer
 * @key: the member's key, or NULL
 * @v: the value, 0 .. 18446744073709551615
 */
void atag_json_uint(struct atag_json *w, const char *key, unsigned long long v);

/**
 * atag_json_int - write a signed integer, exactly
 * @w: the writer
 * @key: the member's key, or NULL
 * @v: the value, -9223372036854775808 .. 9223372036854775807
 */
void atag_json_int(struct atag_json *w, const char *key, long long v);

/**
 * atag_json_known_int - write a signed integer that may be unknown
 * @w: the writer
 * @key: the member's key, or NULL
 * @v: the value; a negative one (a line or an offset nobody knows) writes null
 */
void atag_json_known_int(struct atag_json *w, const char *key, long long v);

/**
 * atag_json_strs - write an array of strings
 * @w: the writer
 * @key: the member's key, or NULL
 * @s: @n strings (NULL ones are written null)
 * @n: how many
 */
void atag_json_strs(struct atag_json *w, const char *key, char * const *s, unsigned int n);

/**
 * atag_json_text - write a value already in JSON text
 * @w: the writer
 * @key: the member's key, or NULL
 * @text: the value, written as it is: one complete JSON value (made by
 *	  atag_json_write_strs(), say), which stays in the compact layout
 *
 * For a value a document repeats (the frames of a stack that many live
 * allocations share): made once, then copied.
 */
void atag_json_text(struct atag_json *w, const char *key, const char *text);

/**
 * atag_json_hex - write an address or a pointer as a string "0x..." (lower case)
 * @w: the writer
 * @key: the member's key, or NULL
 * @v: the value
 */
void atag_json_hex(struct atag_json *w, const char *key, unsigned long long v);

/**
 * atag_json_fixed - write a number with a fixed count of decimals
 * @w: the writer
 * @key: the member's key, or NULL
 * @v: the value; NaN and infinities, which JSON lacks, are written as null
 * @decimals: digits after the point (0 .. 17)
 */
void atag_json_fixed(struct atag_json *w, const char *key, double v, int decimals);

/**
 * atag_json_write_string - write one JSON string, quoted, escaped and valid UTF-8
 * @f: where to write
 * @s: a NUL-terminated string of any bytes, or NULL for null
 *
 * For outputs with a layout of their own (list --format json): the string rules
 * of the writer, without the writer.
 */
void atag_json_write_string(FILE *f, const char *s);

/**
 * atag_json_write_strs - write one array of strings, compact
 * @f: where to write
 * @s: @n strings (NULL ones are written null)
 * @n: how many
 *
 * What atag_json_strs() writes for the value, without a writer: the text to
 * give atag_json_text() later.
 */
void atag_json_write_strs(FILE *f, char * const *s, unsigned int n);

/**
 * atag_json_finish - end the document with a newline
 * @w: the writer
 *
 * The writer keeps a few hundred bytes before it hands them to its FILE: the
 * document is whole in the FILE once this returns, not before.
 *
 * Return: 0; -EINVAL when the calls did not make one complete document (misuse, or a
 * container left open); -EIO when the FILE has an error. errno is set too.
 */
int atag_json_finish(struct atag_json *w);

#endif /* _ATAG_JSON_H */
