/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-marker.h - the lines a recording describes itself with.
 *
 * "trace-cmd-alloc-tag record" writes them into its instance's trace_marker
 * (lib/kernel/atag-session.c), report reads them back from the ftrace:print
 * records (lib/read/atag-recording.c); this module is the one place that defines
 * them. A line is
 *
 *   ATAG_MARKER_PREFIX "v" VERSION " " KEYWORD [TAB FIELD]... NEWLINE
 *
 * at most ATAG_MARKER_MAX bytes with its newline, never written in part. A field
 * holding a tab or a newline is written as "?" (which reads back as unknown).
 * VERSION is ATAG_MARKER_VERSION; a reader skips lines of a later version. What
 * each keyword's fields mean is the contract of MARKERS in
 * trace-cmd-alloc-tag-report(1).
 */
#ifndef _ATAG_MARKER_H
#define _ATAG_MARKER_H

#include <stdbool.h>
#include <stddef.h>

#define ATAG_MARKER_PREFIX	"trace-cmd-alloc-tag: "
#define ATAG_MARKER_VERSION	1
#define ATAG_MARKER_MAX		1024
#define ATAG_MARKER_MAX_FIELDS	8

/* The keywords, in the order record writes them. */
#define ATAG_MK_RECORD			"record"
#define ATAG_MK_RECORDER		"recorder"
#define ATAG_MK_WORKLOAD		"workload"
#define ATAG_MK_SELECT			"select"
#define ATAG_MK_SELECT_ALL		"select-all"
#define ATAG_MK_ALSO_TRACED		"also-traced"
#define ATAG_MK_PROFILING		"profiling"
#define ATAG_MK_COUNTERS_READING	"counters-reading"
#define ATAG_MK_COUNTERS		"counters"
#define ATAG_MK_STACK_SAMPLE		"stack-sample"
#define ATAG_MK_DESCRIBED		"described"
#define ATAG_MK_STACK_SAMPLE_MOVES	"stack-sample-moves"
#define ATAG_MK_LINGER			"linger"
#define ATAG_MK_END			"end"

/* Every keyword above, NULL-terminated (for tests and tools). */
extern const char *const atag_marker_keywords[];

/* A line being built. */
struct atag_marker_line {
	char	buf[ATAG_MARKER_MAX];
	size_t	len;
	bool	too_long;
};

/* Start a line of @keyword. */
void atag_marker_begin(struct atag_marker_line *l, const char *keyword);

/* Add @field (NULL or one with a tab or newline is written "?"). */
void atag_marker_add(struct atag_marker_line *l, const char *field);

/*
 * End the line with its newline: 0, the line in l->buf of l->len bytes, or
 * -E2BIG when it would be longer than ATAG_MARKER_MAX (nothing to write).
 */
int atag_marker_end(struct atag_marker_line *l);

/* A line read back, split. */
struct atag_marker_fields {
	char		*copy;		/* what keyword and fields point into */
	unsigned int	version;
	const char	*keyword;
	char		*f[ATAG_MARKER_MAX_FIELDS];
	int		nf;
};

enum atag_marker_split {
	ATAG_MARKER_NOT_OURS,		/* no ATAG_MARKER_PREFIX */
	ATAG_MARKER_SPLIT,		/* @out holds it: free with atag_marker_fields_free() */
	ATAG_MARKER_MALFORMED,		/* ours, but no version, or too many fields */
	ATAG_MARKER_LATER,		/* ours, of a later version (in out->version) */
	ATAG_MARKER_NOMEM,
};

/*
 * Split the @len bytes of @text (an ftrace:print's text; trailing newlines and
 * NULs dropped) into keyword and fields.
 */
enum atag_marker_split atag_marker_split(const char *text, size_t len,
					 struct atag_marker_fields *out);
void atag_marker_fields_free(struct atag_marker_fields *mf);

#endif /* _ATAG_MARKER_H */
