/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fakeinfo-model.h - an in-memory /proc/allocinfo with the kernel's semantics, for the
 * FUSE double (tests/progs/atag-fakeinfo.c) and the unit tests (tests/allocinfo-utest.c).
 *
 * The build makes one program of each C file in tests/progs and one runner of the suites,
 * so each consumer compiles the model in: #include "doubles/fakeinfo-model.c".
 *
 * Semantics follow mm/alloc_tag.c of 7.3 plus the tracing series as our uapi header
 * states it (include/atag-allocinfo-uapi.h):
 *  - CONTENT_ID: the generation, bumped by a module load ("modload") or "churn".
 *  - GET_AT: EINVAL for mask bits outside 0xff (0x7f through the 7.3 layout) or
 *    min_size > max_size; ENOENT when pos >= number of tags or nothing matches; else
 *    the pos-th matching tag, and the filter is kept for GET_NEXT (mask 0 clears it).
 *  - GET_NEXT: the next tag matching the kept filter; ENOENT at the end (which
 *    unpositions the file).
 *  - TOGGLE_TRACE: EPERM unless the caller has CAP_SYS_ADMIN, EINVAL as GET_AT,
 *    ENOENT when no tag matched, else sets trace_on of every match to !!enable (any
 *    non-zero enable turns tracing on, as the series' kernel does).
 *  - Strings compare on the trailing 63 characters; module "" selects built-in tags.
 *  - Modes: "series" (the series' GET_AT and TOGGLE; the 7.3 GET_AT number answers
 *    ENOTTY, as the series defines one number: shared/seeds/001, 2/4), "v73" (the 7.3
 *    GET_AT only: the series' number and TOGGLE answer ENOTTY), "none" (every ioctl
 *    ENOTTY).
 *
 * The description, one statement a line, '#' comments:
 *   version X.Y                 the text header (default 2.0; 1.x omits accurate:no)
 *   ioctl series|v73|none       the interface (default series)
 *   content_id N                the initial generation (default 1)
 *   cap_check on|off            TOGGLE_TRACE needs CAP_SYS_ADMIN (default on)
 *   reject_mask MASK            GET_AT/TOGGLE answer EINVAL for these filter bits
 *                               (a kernel that does not know them)
 *   churn EVERY TIMES           every EVERY-th GET_NEXT bumps the generation, TIMES
 *                               times in all (modules coming and going during a scan)
 *   modload AFTER               after the AFTER-th GET_NEXT the "module" tags appear
 *                               and the generation is bumped
 *   tag BYTES CALLS FILE:LINE [[MODULE]] func:FUNCTION [accurate:no] [traced]
 *   module ...                  a tag as above that appears with the module load
 *
 * The state (the double's "state" file): "content_id N", "toggles N", then one line a
 * visible tag: "tag TRACED MODULE|- FILE LINE FUNCTION BYTES".
 */
#ifndef _FAKEINFO_MODEL_H
#define _FAKEINFO_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "atag-allocinfo-uapi.h"

#define FAKE_NAME_MAX	256

enum fake_mode { FAKE_SERIES, FAKE_V73, FAKE_NONE };

struct fake_tag {
	char			modname[FAKE_NAME_MAX];
	char			function[FAKE_NAME_MAX];
	char			filename[FAKE_NAME_MAX];
	unsigned long long	lineno;
	long long		bytes;
	unsigned long long	calls;
	bool			inaccurate;
	bool			traced;
	bool			present;	/* false until the module load */
};

struct fake_kernel {
	struct fake_tag		*tags;
	size_t			nr;
	enum fake_mode		mode;
	char			version[16];
	unsigned long long	content_id;
	bool			cap_check;
	unsigned long long	reject_mask;
	unsigned long		churn_every, churn_left;
	unsigned long		modload_at;	/* 0: no pending load */
	unsigned long		nr_get_next;
	unsigned long		toggles;
	bool			deny_toggle;	/* "deny": every TOGGLE_TRACE gets EPERM */
	unsigned long		deny_after;	/* "deny N": but the next N succeed */
	bool			race;		/* "race": see fake_control() */
};

struct fake_file {
	struct fake_kernel		*k;
	size_t				pos;	/* index of the tag last returned */
	bool				positioned;
	struct allocinfo_filter		filter;
};

/* Parse a description; returns 0 or -1 with a message "line N: ..." in @err. */
int fake_kernel_load(struct fake_kernel *k, const char *text, char *err, size_t errlen);
void fake_kernel_free(struct fake_kernel *k);

/* One ioctl on an open file: 0 or -errno. */
int fake_ioctl(struct fake_file *f, unsigned int cmd, void *arg, bool cap_sys_admin);

/* The text of /proc/allocinfo and the state, malloc'ed and NUL-terminated. */
char *fake_text(const struct fake_kernel *k, size_t *len);
char *fake_state(const struct fake_kernel *k, size_t *len);

/*
 * A control command: "modload" (the module tags appear now), "bump" (the generation
 * changes), "deny" / "allow" (every TOGGLE_TRACE gets EPERM, or not: a capability
 * lost halfway; "deny N": after the next N), "race" (someone else turns the tags of
 * the next enabling TOGGLE_TRACE on just before it, which then finds none untraced:
 * ENOENT). Returns 0 or -EINVAL.
 */
int fake_control(struct fake_kernel *k, const char *cmd);

#endif /* _FAKEINFO_MODEL_H */
