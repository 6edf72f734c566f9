// SPDX-License-Identifier: LGPL-2.1
/*
 * The recording's marker lines: built and split in one place. See atag-marker.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-marker.h"
#include "atag-utils.h"

const char *const atag_marker_keywords[] = {
	ATAG_MK_RECORD, ATAG_MK_RECORDER, ATAG_MK_WORKLOAD, ATAG_MK_SELECT,
	ATAG_MK_SELECT_ALL, ATAG_MK_ALSO_TRACED, ATAG_MK_PROFILING,
	ATAG_MK_COUNTERS_READING, ATAG_MK_COUNTERS, ATAG_MK_STACK_SAMPLE,
	ATAG_MK_DESCRIBED, ATAG_MK_STACK_SAMPLE_MOVES, ATAG_MK_LINGER, ATAG_MK_END, NULL
};

void atag_marker_begin(struct atag_marker_line *l, const char *keyword)
{
	int n = snprintf(l->buf, sizeof(l->buf), "%sv%d %s", ATAG_MARKER_PREFIX,
			 ATAG_MARKER_VERSION, keyword);

	l->too_long = n < 0 || (size_t)n >= sizeof(l->buf);
	l->len = l->too_long ? 0 : (size_t)n;
}

void atag_marker_add(struct atag_marker_line *l, const char *field)
{
	int n;

	if (l->too_long)
		return;
	if (!field || strpbrk(field, "\t\n"))
		field = "?";
	n = snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "\t%s", field);
	if (n < 0 || (size_t)n >= sizeof(l->buf) - l->len)
		l->too_long = true;
	else
		l->len += n;
}

int atag_marker_end(struct atag_marker_line *l)
{
	/* room for the newline, within ATAG_MARKER_MAX */
	if (l->too_long || l->len + 1 >= sizeof(l->buf))
		return atag_err(-E2BIG);
	l->buf[l->len++] = '\n';
	l->buf[l->len] = '\0';
	return 0;
}

enum atag_marker_split atag_marker_split(const char *text, size_t len,
					 struct atag_marker_fields *out)
{
	size_t plen = strlen(ATAG_MARKER_PREFIX);
	unsigned long long v;
	char *p;

	memset(out, 0, sizeof(*out));
	if (len < plen || memcmp(text, ATAG_MARKER_PREFIX, plen))
		return ATAG_MARKER_NOT_OURS;
	while (len > plen && (text[len - 1] == '\n' || text[len - 1] == '\0'))
		len--;
	out->copy = strndup(text + plen, len - plen);
	if (!out->copy)
		return ATAG_MARKER_NOMEM;
	/* "v1 keyword": the version, then the keyword up to the first tab */
	p = strchr(out->copy, ' ');
	if (out->copy[0] != 'v' || !p)
		goto malformed;
	*p++ = '\0';
	if (atag_parse_u64(out->copy + 1, &v) || !v || v > 1000)
		goto malformed;
	out->version = v;
	if (v > ATAG_MARKER_VERSION) {
		atag_marker_fields_free(out);
		out->version = v;
		return ATAG_MARKER_LATER;
	}
	out->keyword = p;
	p = strchr(p, '\t');
	while (p) {
		if (out->nf == ATAG_MARKER_MAX_FIELDS)
			goto malformed;
		*p++ = '\0';
		out->f[out->nf++] = p;
		p = strchr(p, '\t');
	}
	return ATAG_MARKER_SPLIT;
malformed:
	atag_marker_fields_free(out);
	return ATAG_MARKER_MALFORMED;
}

void atag_marker_fields_free(struct atag_marker_fields *mf)
{
	free(mf->copy);
	memset(mf, 0, sizeof(*mf));
}
