/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-filter.h - which allocation call sites (tags) a command acts on.
 *
 * A filter is what the user typed: module, function, file, line, a size range on the
 * bytes a tag holds, accuracy and trace state. The kernel filter of /proc/allocinfo
 * (struct allocinfo_filter) compares exact strings only, so:
 *  - a criterion without glob characters goes into the kernel filter;
 *  - a glob ("kmalloc*", "mm/slub*") is applied in userspace, on the tags listed;
 *  - atag_filter_match() applies the whole filter in userspace with the kernel's
 *    semantics, for interfaces that cannot filter (the text format) and for globs.
 *
 * String semantics are the kernel's: names of 64 bytes or more are compared on their
 * trailing 63 characters, because that is all the ioctls carry (ALLOCINFO_STR_SIZE).
 * Built-in tags have the empty module name: --module '' selects them.
 */
#ifndef _ATAG_FILTER_H
#define _ATAG_FILTER_H

#include <stdbool.h>

#include "atag-allocinfo-uapi.h"

struct atag_tag;

/* Tri-state criteria: ATAG_ANY (unset), or the value a tag must have. */
#define ATAG_ANY	(-1)

struct atag_filter {
	const char		*module;	/* NULL: any; "": built-in; may be a glob */
	const char		*function;	/* NULL: any; may be a glob */
	const char		*file;		/* NULL: any; may be a glob */
	bool			has_line;
	unsigned long long	line;
	bool			has_min_size;
	unsigned long long	min_size;	/* bytes >= min_size */
	bool			has_max_size;
	unsigned long long	max_size;	/* bytes <= max_size */
	int			inaccurate;	/* ATAG_ANY, 0 (accurate only) or 1 */
	int			traced;		/* ATAG_ANY, 0 (untraced only) or 1 */
};

/**
 * atag_filter_init - a filter that matches every tag
 * @f: the filter to initialise
 */
void atag_filter_init(struct atag_filter *f);

/**
 * atag_filter_is_empty - whether the filter has no criterion at all
 * @f: the filter
 */
bool atag_filter_is_empty(const struct atag_filter *f);

/**
 * atag_filter_validate - check a filter the way the kernel checks its own
 * @f: the filter
 *
 * Returns 0, or -EINVAL when both sizes are given and min_size > max_size.
 */
int atag_filter_validate(const struct atag_filter *f);

/**
 * atag_filter_to_kernel - the part of @f the kernel filter can express
 * @f: the filter
 * @kf: filled with the kernel filter (zeroed first)
 *
 * Glob strings are left out. Returns true when @kf expresses all of @f, so that the
 * kernel's answer needs no further filtering in userspace.
 */
bool atag_filter_to_kernel(const struct atag_filter *f, struct allocinfo_filter *kf);

/**
 * atag_filter_match - whether a tag passes the whole filter, in userspace
 * @f: the filter
 * @t: the tag
 *
 * Exact strings compare on the trailing 63 characters of both sides, as the kernel
 * does; globs match the name as listed. A tag whose trace state is unknown does not
 * match a filter on the trace state.
 */
bool atag_filter_match(const struct atag_filter *f, const struct atag_tag *t);

/**
 * atag_str_is_glob - whether a filter string is a glob (has *, ? or [)
 * @s: the string, may be NULL
 */
bool atag_str_is_glob(const char *s);

/**
 * atag_allocinfo_str - the part of a name the kernel compares and reports
 * @s: a name
 *
 * Returns @s itself when it is shorter than ALLOCINFO_STR_SIZE, otherwise a pointer
 * to its trailing ALLOCINFO_STR_SIZE - 1 characters.
 */
const char *atag_allocinfo_str(const char *s);

/**
 * atag_allocinfo_strcpy - a name as a kernel filter field carries it
 * @dst: the field of struct allocinfo_filter (ALLOCINFO_STR_SIZE bytes)
 * @s: the name, taken literally (no glob meaning)
 *
 * Copies atag_allocinfo_str(@s) and pads with NULs, as the kernel's strscpy_pad().
 */
void atag_allocinfo_strcpy(char dst[ALLOCINFO_STR_SIZE], const char *s);

#endif /* _ATAG_FILTER_H */
