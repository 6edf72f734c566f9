// SPDX-License-Identifier: LGPL-2.1
/*
 * Strings from traces and kernel files, made safe to show: on a terminal (no
 * control character reaches it) and in a spreadsheet (no cell is read as a
 * formula). Function, file, module and comm names come from trace records that
 * anyone may have written; an ESC in one would clear or retitle the terminal of
 * whoever prints the report.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-utils.h"

/*
 * The length of the well-formed UTF-8 sequence at @p (RFC 3629, table 3-7 of the
 * Unicode standard), or 0 when @p starts none. Stops at a NUL.
 */
size_t atag_utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	if (p[0] == 0xe0)
		lo = 0xa0;		/* overlong */
	else if (p[0] == 0xed)
		hi = 0x9f;		/* surrogates */
	else if (p[0] == 0xf0)
		lo = 0x90;		/* overlong */
	else if (p[0] == 0xf4)
		hi = 0x8f;		/* above U+10FFFF */
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (p[i] < lo || p[i] > hi)
			return 0;
	return n;
}

/*
 * How many bytes at @p a terminal may be given as they are: a printable character
 * (ASCII, or a UTF-8 sequence that is not a C1 control, U+0080 to U+009F); 0 when
 * the byte at @p is shown escaped (C0 controls, DEL, C1 controls, bytes of no
 * well-formed sequence).
 */
static size_t shown_len(const unsigned char *p)
{
	size_t n;

	if (*p >= 0x20 && *p < 0x7f)
		return 1;
	if (*p < 0x80)
		return 0;
	n = atag_utf8_len(p);
	if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
		return 0;
	return n;
}

bool atag_text_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; *p; p += n) {
		n = shown_len(p);
		if (!n)
			return false;
	}
	return true;
}

/* @s escaped into @buf of @len (> 0); the bytes it needed, as snprintf() counts. */
static size_t escape(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, i, out = 0;
	char esc[8];

	for (; *p; p += n) {
		n = shown_len(p);
		for (i = 0; i < n; i++, out++)
			if (out + 1 < len)
				buf[out] = p[i];
		if (n)
			continue;
		n = 1;
		snprintf(esc, sizeof(esc), "\\x%02x", *p);
		for (i = 0; esc[i]; i++, out++)
			if (out + 1 < len)
				buf[out] = esc[i];
	}
	buf[out < len ? out : len - 1] = '\0';
	return out;
}

char *atag_text(char *buf, size_t len, const char *s)
{
	if (len)
		escape(buf, len, s ? s : "");
	return buf;
}

char *atag_text_dup(const char *s)
{
	size_t n = escape((char[1]){ 0 }, 1, s) + 1;
	char *d = malloc(n);

	if (d)
		escape(d, n, s);
	return d;
}

void atag_text_fputs(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s, *run;
	size_t n;

	while (*p) {
		for (run = p; (n = shown_len(p)); p += n)
			;
		fwrite(run, 1, p - run, f);
		if (!*p)
			break;
		fprintf(f, "\\x%02x", *p++);
	}
}

/* @s to show: as it is, or escaped into @buf of @len. */
static const char *shown(const char *s, char *buf, size_t len)
{
	return !s || atag_text_clean(s) ? s : atag_text(buf, len, s);
}

char *atag_site_text(char *buf, size_t len, const char *function, long long offset,
		     const char *file, long line, const char *module)
{
	char fb[256], lb[256], mb[128];
	int n;

	function = shown(function, fb, sizeof(fb));
	file = shown(file, lb, sizeof(lb));
	module = shown(module, mb, sizeof(mb));
	if (offset >= 0)
		n = snprintf(buf, len, "%s+0x%llx", function, (unsigned long long)offset);
	else
		n = snprintf(buf, len, "%s", function);
	if (n >= 0 && (size_t)n < len && file)
		n += snprintf(buf + n, len - n, " %s:%ld", file, line);
	if (n >= 0 && (size_t)n < len && module)
		snprintf(buf + n, len - n, " [%s]", module);
	return buf;
}

/* ------------------------------------------------------------ CSV */

/* A cell starting so is read as a formula by spreadsheet programs. */
static bool formula(const char *s)
{
	return *s && strchr("=+-@", *s);
}

bool atag_csv_plain(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (formula(s))
		return false;
	for (; *p; p += n) {
		n = shown_len(p);
		if (!n || *p == ',' || *p == '"')
			return false;
	}
	return true;
}

/* @s escaped as text is, with its quotes doubled. */
static void csv_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; *p; p += n) {
		n = shown_len(p);
		if (!n) {
			fprintf(f, "\\x%02x", *p);
			n = 1;
			continue;
		}
		if (*p == '"')
			fputc('"', f);
		fwrite(p, 1, n, f);
	}
}

void atag_csv_write_cell(FILE *f, char *const *strs, unsigned int n, char sep)
{
	bool quote = false;
	unsigned int i;

	for (i = 0; i < n && !quote; i++)
		quote = strpbrk(strs[i], ",\"") != NULL;
	if (quote)
		fputc('"', f);
	if (n && formula(strs[0]))
		fputc('\'', f);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(sep, f);
		csv_text(f, strs[i]);
	}
	if (quote)
		fputc('"', f);
}

void atag_csv_write_string(FILE *f, const char *s)
{
	char *strs[1] = { (char *)s };

	if (s)
		atag_csv_write_cell(f, strs, 1, 0);
}
