// SPDX-License-Identifier: LGPL-2.1
/*
 * The names of a field's bits from an event's print format, by a parser of the
 * __print_flags() tables alone. See atag-print-flags.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-print-flags.h"

#define MAX_DEPTH	64	/* of nested parentheses and operators */
#define MAX_NAMES	256
#define MAX_NAME_LEN	64

struct lex {
	const char	*p;
	const char	*end;
	bool		bad;
};

static void skip_space(struct lex *l)
{
	while (l->p < l->end && isspace((unsigned char)*l->p))
		l->p++;
}

/* Whether the next characters are @s (after spaces); consumed if so. */
static bool take(struct lex *l, const char *s)
{
	size_t n = strlen(s);

	skip_space(l);
	if ((size_t)(l->end - l->p) < n || memcmp(l->p, s, n))
		return false;
	l->p += n;
	return true;
}

static bool peek(struct lex *l, char c)
{
	skip_space(l);
	return l->p < l->end && *l->p == c;
}

static unsigned long long expr(struct lex *l, int depth);

/* A literal: decimal, hex or octal, with its u/U/l/L suffixes. */
static unsigned long long number(struct lex *l)
{
	unsigned long long v;
	char buf[32], *e;
	size_t n = 0;

	skip_space(l);
	while (l->p + n < l->end && n < sizeof(buf) - 1 && isalnum((unsigned char)l->p[n]))
		n++;
	memcpy(buf, l->p, n);
	buf[n] = '\0';
	if (!n || !isdigit((unsigned char)buf[0])) {
		l->bad = true;
		return 0;
	}
	errno = 0;
	v = strtoull(buf, &e, 0);
	while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')
		e++;
	if (*e || errno)
		l->bad = true;
	l->p += n;
	return v;
}

/*
 * After '(': whether what follows up to ')' is a type ("gfp_t", "unsigned long",
 * "__force gfp_t"): identifiers and spaces only, the first not a number. Consumes it
 * and the ')' if so.
 */
static bool cast(struct lex *l)
{
	const char *q = l->p;
	bool word = false;

	while (q < l->end && (isalnum((unsigned char)*q) || *q == '_' || isspace((unsigned char)*q))) {
		if (!isspace((unsigned char)*q) && !word && isdigit((unsigned char)*q))
			return false;
		word |= !isspace((unsigned char)*q);
		q++;
	}
	if (!word || q >= l->end || *q != ')')
		return false;
	l->p = q + 1;
	return true;
}

static unsigned long long unary(struct lex *l, int depth)
{
	unsigned long long v;

	if (depth > MAX_DEPTH) {
		l->bad = true;
		return 0;
	}
	if (take(l, "~"))
		return ~unary(l, depth + 1);
	if (take(l, "(")) {
		if (cast(l))
			return unary(l, depth + 1);
		v = expr(l, depth + 1);
		if (!take(l, ")"))
			l->bad = true;
		return v;
	}
	return number(l);
}

static unsigned long long shift(struct lex *l, int depth)
{
	unsigned long long v = unary(l, depth), n;

	while (!l->bad) {
		if (take(l, "<<")) {
			n = unary(l, depth);
			v = n < 64 ? v << n : 0;
		} else if (take(l, ">>")) {
			n = unary(l, depth);
			v = n < 64 ? v >> n : 0;
		} else {
			break;
		}
	}
	return v;
}

static unsigned long long and(struct lex *l, int depth)
{
	unsigned long long v = shift(l, depth);

	while (!l->bad && peek(l, '&') && !(l->p + 1 < l->end && l->p[1] == '&')) {
		l->p++;
		v &= shift(l, depth);
	}
	return v;
}

static unsigned long long xor(struct lex *l, int depth)
{
	unsigned long long v = and(l, depth);

	while (!l->bad && take(l, "^"))
		v ^= and(l, depth);
	return v;
}

static unsigned long long expr(struct lex *l, int depth)
{
	unsigned long long v = xor(l, depth);

	while (!l->bad && peek(l, '|') && !(l->p + 1 < l->end && l->p[1] == '|')) {
		l->p++;
		v |= xor(l, depth);
	}
	return v;
}

/* A "string" without escapes, of at most @len - 1 characters, into @buf. */
static bool string(struct lex *l, char *buf, size_t len)
{
	const char *q;

	if (!take(l, "\""))
		return false;
	for (q = l->p; q < l->end && *q != '"' && *q != '\\'; q++)
		;
	if (q >= l->end || *q != '"' || (size_t)(q - l->p) >= len)
		return false;
	memcpy(buf, l->p, q - l->p);
	buf[q - l->p] = '\0';
	l->p = q + 1;
	return true;
}

/* A flag's name as the kernel's tables give them: letters, digits, '_' (no control bytes). */
static bool identifier(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int add(struct atag_flag_names *fn, unsigned long long v, const char *name)
{
	struct atag_flag_name *n;

	n = realloc(fn->v, (fn->nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	fn->v = n;
	n[fn->nr].value = v;
	n[fn->nr].name = strdup(name);
	if (!n[fn->nr].name)
		return -ENOMEM;
	fn->nr++;
	return 0;
}

/*
 * A null name, "((void *)0)" or "NULL", and the '}' after it: the end mark some
 * tables have (the kernel's GFP flags end with { 0, NULL }).
 */
static bool null_name(struct lex *l)
{
	const char *q = l->p;

	while (q < l->end && strchr("()void*0NUL \t", *q))
		q++;
	if (q >= l->end || *q != '}' || q == l->p)
		return false;
	l->p = q + 1;
	return true;
}

/* After "__print_flags(": REC->field, "delim", then the { value, "NAME" } pairs. */
static int table(struct lex *l, const char *field, struct atag_flag_names *out)
{
	char name[MAX_NAME_LEN];
	unsigned long long v;
	int ret;

	if (!take(l, "REC->") || !take(l, field) || !take(l, ",") ||
	    !string(l, out->delim, sizeof(out->delim)))
		return -EINVAL;
	while (take(l, ",")) {
		if (!take(l, "{"))
			return -EINVAL;
		v = expr(l, 0);
		if (l->bad || !take(l, ","))
			return -EINVAL;
		if (!v && !peek(l, '"') && null_name(l))
			continue;
		if (!string(l, name, sizeof(name)) || !take(l, "}") || !identifier(name))
			return -EINVAL;
		if (out->nr >= MAX_NAMES)
			return -EINVAL;
		ret = add(out, v, name);
		if (ret)
			return ret;
	}
	return take(l, ")") && out->nr ? 0 : -EINVAL;
}

int atag_print_flags_parse(const char *fmt, size_t len, const char *field,
			   struct atag_flag_names *out)
{
	static const char call[] = "__print_flags(";
	const char *end = fmt + strnlen(fmt, len), *p, *s;
	struct lex l;
	int ret;

	memset(out, 0, sizeof(*out));
	p = memmem(fmt, end - fmt, "\nprint fmt:", 11);
	if (!p)
		return -ENOENT;
	for (s = p; (s = memmem(s, end - s, call, sizeof(call) - 1)); s += sizeof(call) - 1) {
		l.p = s + sizeof(call) - 1;
		l.end = end;
		l.bad = false;
		if (!take(&l, "REC->") || !take(&l, field))
			continue;
		skip_space(&l);
		if (l.p < l.end && (isalnum((unsigned char)*l.p) || *l.p == '_'))
			continue;	/* a field whose name starts with @field */
		l.p = s + sizeof(call) - 1;
		ret = table(&l, field, out);
		if (ret)
			atag_print_flags_free(out);
		return ret;
	}
	return -ENOENT;
}

char *atag_print_flags_format(const struct atag_flag_names *fn, unsigned long long value,
			      char *buf, size_t len)
{
	unsigned long long left = value;
	const char *delim = fn && fn->delim[0] ? fn->delim : "|";
	size_t n = 0;
	unsigned int i;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; fn && i < fn->nr && n < len; i++) {
		if (!value && !fn->v[i].value) {
			snprintf(buf, len, "%s", fn->v[i].name);
			return buf;
		}
		if (!fn->v[i].value || (left & fn->v[i].value) != fn->v[i].value)
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? delim : "", fn->v[i].name);
		left &= ~fn->v[i].value;
	}
	if (n < len && (left || !value))
		snprintf(buf + n, len - n, "%s0x%llx", n ? delim : "", left);
	if (!value && !buf[0])
		snprintf(buf, len, "0x0");
	return buf;
}

void atag_print_flags_free(struct atag_flag_names *fn)
{
	unsigned int i;

	for (i = 0; i < fn->nr; i++)
		free(fn->v[i].name);
	free(fn->v);
	memset(fn, 0, sizeof(*fn));
}
