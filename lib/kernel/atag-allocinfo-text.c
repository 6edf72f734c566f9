// SPDX-License-Identifier: LGPL-2.1
/*
 * The text format of /proc/allocinfo, for kernels without its ioctls:
 *
 *   allocinfo - version: 2.0
 *   #     <size>  <calls> <tag info>
 *          4096        1 mm/slub.c:4100 func:kmalloc_trace
 *             0        0 arch/x86/kernel/alternative.c:127 func:__its_alloc accurate:no
 *          1024        2 drivers/foo/foo.c:12 [foo] func:foo_alloc
 *
 * Each record is "%12lli %8llu ", the call site, an optional " accurate:no" (2.0),
 * then a blank before the newline. Version 1.0 has the same records without the
 * accuracy marker.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-allocinfo.h"
#include "atag-utils.h"

#define LINE_MAX_LEN	4096
#define HEADER		"allocinfo - version:"

static char *skip_blanks(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static void strip_trailing_blanks(char *s)
{
	size_t len = strlen(s);

	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
}

/* "<bytes> <calls> " at the start of a record; returns the rest or NULL. */
static char *parse_counters(char *p, struct atag_tag *t)
{
	char *end;

	errno = 0;
	t->bytes = strtoll(p, &end, 10);
	if (errno || end == p || (*end != ' ' && *end != '\t'))
		return NULL;
	p = skip_blanks(end);
	if (!isdigit((unsigned char)*p))
		return NULL;
	t->calls = strtoull(p, &end, 10);
	if (errno || (*end != ' ' && *end != '\t'))
		return NULL;
	return skip_blanks(end);
}

/* The words after the function name: "accurate:no", or a future key:value flag. */
static int parse_flags(char *p, struct atag_tag *t)
{
	char *word;

	t->accurate = true;
	while ((word = strsep(&p, " \t"))) {
		if (!*word)
			continue;
		if (!strcmp(word, "accurate:no"))
			t->accurate = false;
		else if (!strchr(word, ':'))
			return -EBADMSG;
	}
	return 0;
}

/* "<file>:<line>" or "<file>:<line> [<module>]" */
static int parse_site(char *site, struct atag_tag *t)
{
	char *colon, *end, *mod;
	size_t len = strlen(site);

	t->modname[0] = '\0';
	if (len && site[len - 1] == ']') {
		mod = strstr(site, " [");
		if (!mod || mod + 2 == site + len - 1)
			return -EBADMSG;
		atag_tag_set_name(t->modname, mod + 2, site + len - 1 - (mod + 2));
		*mod = '\0';
	}
	colon = strrchr(site, ':');
	if (!colon || colon == site || !isdigit((unsigned char)colon[1]))
		return -EBADMSG;
	errno = 0;
	t->lineno = strtoull(colon + 1, &end, 10);
	if (errno || *end)
		return -EBADMSG;
	atag_tag_set_name(t->filename, site, colon - site);
	return 0;
}

static int parse_record(char *line, struct atag_tag *t)
{
	char *rest, *func, *name_end;
	size_t name_len;

	memset(t, 0, sizeof(*t));
	t->traced = -1;
	strip_trailing_blanks(line);
	rest = parse_counters(line, t);
	if (!rest)
		return -EBADMSG;
	func = strstr(rest, " func:");
	if (!func)
		return -EBADMSG;
	*func = '\0';
	func += strlen(" func:");
	name_len = strcspn(func, " \t");
	if (!name_len)
		return -EBADMSG;
	name_end = func + name_len;
	atag_tag_set_name(t->function, func, name_len);
	if (parse_flags(name_end, t))
		return -EBADMSG;
	return parse_site(rest, t);
}

/* "allocinfo - version: X.Y" with a major version of 1 or 2 */
static int parse_header(char *line)
{
	char *p, *end;
	long major;

	strip_trailing_blanks(line);
	if (strncmp(line, HEADER, strlen(HEADER)))
		return -EBADMSG;
	p = skip_blanks(line + strlen(HEADER));
	major = strtol(p, &end, 10);
	if (end == p || (*end && *end != '.'))
		return -EBADMSG;
	if (major != 1 && major != 2)
		return -EPROTONOSUPPORT;
	return 0;
}

/* Copy the next line of @buf into @line; returns its length in @buf or -1 at the end. */
static ssize_t next_line(const char *buf, size_t len, size_t off, char *line)
{
	const char *nl;
	size_t n;

	if (off >= len)
		return -1;
	nl = memchr(buf + off, '\n', len - off);
	n = (nl ? (size_t)(nl - buf) : len) - off;
	if (n >= LINE_MAX_LEN)
		n = LINE_MAX_LEN - 1;	/* too long for a record: fails to parse */
	memcpy(line, buf + off, n);
	line[n] = '\0';
	return (nl ? (size_t)(nl - buf) + 1 : len) - off;
}

static int parse_lines(const char *buf, size_t len, const struct atag_filter *f,
		       struct atag_taglist *list, unsigned int *lineno)
{
	char *line = malloc(LINE_MAX_LEN);
	struct atag_tag t;
	size_t off = 0;
	ssize_t n;
	int ret = 0;

	if (!line)
		return -ENOMEM;
	*lineno = 0;
	while (!ret && (n = next_line(buf, len, off, line)) >= 0) {
		off += n;
		(*lineno)++;
		if (*lineno == 1)
			ret = parse_header(line);
		else if (line[0] == '#' || !*skip_blanks(line))
			continue;
		else if (parse_record(line, &t))
			ret = -EBADMSG;
		else if (atag_filter_match(f, &t))
			ret = atag_taglist_add(list, &t);
	}
	if (!ret && *lineno == 0)
		ret = -EBADMSG;		/* empty: not even a header */
	free(line);
	return ret;
}

int atag_allocinfo_parse_text(const char *buf, size_t len, const struct atag_filter *f,
			      struct atag_taglist **out, unsigned int *err_line)
{
	struct atag_taglist *list;
	unsigned int lineno;
	int ret;

	if (err_line)
		*err_line = 0;
	*out = NULL;
	if (f && f->traced != ATAG_ANY)
		return atag_err(-EOPNOTSUPP);
	list = calloc(1, sizeof(*list));
	if (!list)
		return atag_err(-ENOMEM);
	list->source = ATAG_SRC_TEXT;
	ret = parse_lines(buf, len, f, list, &lineno);
	if (ret) {
		if (err_line && ret != -ENOMEM)
			*err_line = lineno ? lineno : 1;
		atag_taglist_free(list);
		return atag_err(ret);
	}
	*out = list;
	return 0;
}
