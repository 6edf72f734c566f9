/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-allocinfo.h - /proc/allocinfo: list allocation call sites (tags) and switch
 * their tracing on and off.
 *
 *   lib/kernel/atag-allocinfo.c       the ioctls, the probe of the interface, toggles
 *   lib/kernel/atag-allocinfo-text.c  the text format, for kernels without the ioctls
 *   lib/kernel/atag-taglist.c         tags and tag lists
 *   lib/kernel/atag-filter.c          filters (include/atag-filter.h)
 *
 * A kernel built with CONFIG_MEM_ALLOC_PROFILING has /proc/allocinfo, a text file of
 * bytes and calls per call site. Linux 7.3 adds ioctls on it (CONTENT_ID, GET_AT,
 * GET_NEXT) that list the tags through a filter; the selective-tracing series
 * ("alloc_tag: Introduce selective tracing for MAP") adds each tag's trace state and
 * TOGGLE_TRACE (include/atag-allocinfo-uapi.h). atag_allocinfo_list() uses the best
 * interface the file offers, in this order:
 *
 *   ATAG_SRC_IOCTL      the tracing series' GET_AT: trace state known
 *   ATAG_SRC_IOCTL_V73  the 7.3 GET_AT (the series' one answers ENOTTY): no trace state
 *   ATAG_SRC_TEXT       every ioctl answers ENOTTY: the text is parsed (versions 1.x, 2.x)
 *
 * An ioctl scan reads CONTENT_ID before and after; when it changed (a module came or
 * went) the scan is repeated, ATAG_ALLOCINFO_RETRIES times at most, then -EAGAIN.
 * Whatever part of the filter the interface cannot express is applied in userspace.
 *
 * Errors (negative errno, errno set too): -ENOENT from open: no /proc/allocinfo, the
 * kernel lacks CONFIG_MEM_ALLOC_PROFILING; -ENOTTY from a toggle: the kernel lacks
 * per-tag tracing; -EPERM: the toggle needs CAP_SYS_ADMIN; -ENOENT from a toggle: no
 * tag matched; -EINVAL: the kernel rejected the filter; -EOPNOTSUPP from a list: the
 * filter needs the trace state and the kernel does not report it; -EBADMSG or
 * -EPROTONOSUPPORT: the text is not in a known allocinfo format
 * (atag_allocinfo_error_line() names the line).
 */
#ifndef _ATAG_ALLOCINFO_H
#define _ATAG_ALLOCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "atag-allocinfo-uapi.h"
#include "atag-filter.h"

#define ATAG_ALLOCINFO_PATH	"/proc/allocinfo"
#define ATAG_ALLOCINFO_ENV	"ATAG_ALLOCINFO"
#define ATAG_ALLOCINFO_RETRIES	10

/* Names from the text format may be longer than the ioctls' 63 characters. */
#define ATAG_NAME_MAX		256

/* The patch series that adds per-tag tracing, for messages. */
#define ATAG_TRACING_SERIES	"alloc_tag: Introduce selective tracing for MAP"

/* One allocation call site. */
struct atag_tag {
	char			modname[ATAG_NAME_MAX];	/* "" for built-in */
	char			function[ATAG_NAME_MAX];
	char			filename[ATAG_NAME_MAX];
	unsigned long long	lineno;
	long long		bytes;		/* the kernel's s64: may be negative */
	unsigned long long	calls;
	bool			accurate;
	int			traced;		/* 1, 0, or -1 when unknown */
};

enum atag_allocinfo_source {
	ATAG_SRC_IOCTL,
	ATAG_SRC_IOCTL_V73,
	ATAG_SRC_TEXT,
};

struct atag_taglist {
	struct atag_tag			*tags;
	size_t				nr;
	size_t				cap;	/* allocated entries */
	enum atag_allocinfo_source	source;
};

struct atag_allocinfo;

/*
 * Another transport for the same ABI (the unit tests' in-process kernel): @ioctl
 * returns 0 or -errno; @read returns bytes read at @off, 0 at the end, or -errno.
 */
struct atag_allocinfo_ops {
	int	(*ioctl)(void *ctx, unsigned int cmd, void *arg);
	ssize_t	(*read)(void *ctx, char *buf, size_t len, off_t off);
};

/**
 * atag_allocinfo_default_path - the allocinfo file to use
 * @path: the path the user gave, or NULL
 *
 * Returns @path, else $ATAG_ALLOCINFO when set and not empty, else /proc/allocinfo.
 */
const char *atag_allocinfo_default_path(const char *path);

/**
 * atag_allocinfo_open - open an allocinfo file
 * @path: its path (see atag_allocinfo_default_path())
 *
 * Returns the handle, or NULL with errno set (ENOENT: no such file).
 */
struct atag_allocinfo *atag_allocinfo_open(const char *path);

/**
 * atag_allocinfo_open_ops - an allocinfo handle over callbacks
 * @name: the name used in messages
 * @ops: the callbacks (kept by reference)
 * @ctx: passed to them
 *
 * Returns the handle, or NULL with errno set.
 */
struct atag_allocinfo *atag_allocinfo_open_ops(const char *name,
					       const struct atag_allocinfo_ops *ops, void *ctx);

/**
 * atag_allocinfo_close - close and free a handle
 * @ai: the handle, may be NULL
 */
void atag_allocinfo_close(struct atag_allocinfo *ai);

/**
 * atag_allocinfo_name - the path or name the handle was opened with
 * @ai: the handle
 */
const char *atag_allocinfo_name(const struct atag_allocinfo *ai);

/**
 * atag_allocinfo_source - the interface the file offers
 * @ai: the handle
 *
 * Probes once (a GET_AT of each layout) and caches the answer. Returns an
 * enum atag_allocinfo_source, or -errno when the probe itself failed.
 */
int atag_allocinfo_source(struct atag_allocinfo *ai);

/**
 * atag_allocinfo_content_id - the kernel's tag-set generation (ALLOCINFO_IOC_CONTENT_ID)
 * @ai: the handle
 * @id: where to store it
 *
 * Returns 0 or -errno (-ENOTTY without the ioctls).
 */
int atag_allocinfo_content_id(struct atag_allocinfo *ai, unsigned long long *id);

/**
 * atag_allocinfo_list - the tags matching a filter
 * @ai: the handle
 * @f: the filter (NULL: all tags)
 * @out: where to store the list, to be freed with atag_taglist_free()
 *
 * Returns 0 (an empty list is not an error) or -errno: -EAGAIN when the tag set kept
 * changing, -EOPNOTSUPP when @f filters on the trace state and the interface has none,
 * -EINVAL when the filter is invalid or the kernel rejected it, -EBADMSG or
 * -EPROTONOSUPPORT for text it cannot parse.
 */
int atag_allocinfo_list(struct atag_allocinfo *ai, const struct atag_filter *f,
			struct atag_taglist **out);

/**
 * atag_allocinfo_error_line - the line of the text that the last list could not parse
 * @ai: the handle
 *
 * Returns a 1-based line number, or 0.
 */
unsigned int atag_allocinfo_error_line(const struct atag_allocinfo *ai);

/**
 * atag_allocinfo_toggle - set the trace state of every tag matching a filter
 * @ai: the handle
 * @f: the filter; it must be expressible by the kernel (no globs)
 * @enable: the trace state to set
 *
 * One ALLOCINFO_IOC_TOGGLE_TRACE. Returns 0 or -errno (-ENOENT: no tag matched;
 * -ENOTTY: no per-tag tracing; -EPERM: needs CAP_SYS_ADMIN; -EINVAL).
 */
int atag_allocinfo_toggle(struct atag_allocinfo *ai, const struct atag_filter *f, bool enable);

/**
 * atag_allocinfo_toggle_tag - set the trace state of one listed tag
 * @ai: the handle
 * @t: the tag, as listed by atag_allocinfo_list()
 * @enable: the trace state to set
 *
 * The filter is the tag's module, function, file and line plus its current state
 * (the opposite of @enable), so a tag already in state @enable is left alone.
 * Returns 0 when the kernel changed it, -ENOENT when no tag was in the other state,
 * or another -errno as atag_allocinfo_toggle().
 */
int atag_allocinfo_toggle_tag(struct atag_allocinfo *ai, const struct atag_tag *t, bool enable);

/**
 * atag_allocinfo_parse_text - parse the text of /proc/allocinfo
 * @buf: the text (need not be NUL-terminated)
 * @len: its length
 * @f: a filter to apply (NULL: keep every tag)
 * @out: where to store the list, to be freed with atag_taglist_free()
 * @err_line: set to the 1-based line of an error, 0 otherwise (may be NULL)
 *
 * Versions 1.x and 2.x: a header line "allocinfo - version: X.Y", '#' comments, then
 * "<bytes> <calls> <file>:<line> [[<module>]] func:<function>[ accurate:no]", usually
 * with a trailing blank. Returns 0, -EPROTONOSUPPORT for another version, -EBADMSG for
 * a malformed line, -EOPNOTSUPP when @f filters on the trace state, -ENOMEM.
 */
int atag_allocinfo_parse_text(const char *buf, size_t len, const struct atag_filter *f,
			      struct atag_taglist **out, unsigned int *err_line);

/* ------------------------------------------------------------------ tags and tag lists
 * (lib/kernel/atag-taglist.c) */

/**
 * atag_tag_set_name - copy a name into a tag field, keeping its tail if too long
 * @dst: the field (ATAG_NAME_MAX bytes)
 * @src: the name
 * @len: its length
 */
void atag_tag_set_name(char *dst, const char *src, size_t len);

/**
 * atag_tag_same_site - whether two tags name the same call site
 * @a: a tag
 * @b: another
 *
 * Module, file, line and function compared; the counters and trace state are not.
 */
bool atag_tag_same_site(const struct atag_tag *a, const struct atag_tag *b);

/**
 * atag_taglist_add - append a tag to a list
 * @list: the list
 * @t: the tag, copied
 *
 * Returns 0 or -ENOMEM.
 */
int atag_taglist_add(struct atag_taglist *list, const struct atag_tag *t);

/**
 * atag_taglist_drop - remove the last entry of a list that is the call site of @t
 * @list: the list
 * @t: the tag
 *
 * Returns whether there was one.
 */
bool atag_taglist_drop(struct atag_taglist *list, const struct atag_tag *t);

/**
 * atag_taglist_sort - sort a list by call site, for atag_taglist_find()
 * @list: the list
 *
 * The order is by function, file, line and module (not the listing's order).
 */
void atag_taglist_sort(struct atag_taglist *list);

/**
 * atag_taglist_find - the entry of a sorted list that is the call site of @t
 * @list: the list, sorted with atag_taglist_sort()
 * @t: the tag
 *
 * Returns the entry or NULL.
 */
const struct atag_tag *atag_taglist_find(const struct atag_taglist *list,
					 const struct atag_tag *t);

/**
 * atag_taglist_whole - the names of a tag listed through the ioctls, whole
 * @full: tags parsed from the text of the same allocinfo file
 * @t: a tag listed through the ioctls
 *
 * The ioctls' name fields hold ALLOCINFO_STR_SIZE - 1 characters: a longer module,
 * function or file name comes cut, its start gone; the text has it whole (as the
 * alloc_tag_hit event does). Returns the one entry of @full at @t's line whose names
 * end with @t's and are longer, when a name of @t has the fields' full length; NULL
 * when none of @t's names can have been cut, or no single entry matches.
 */
const struct atag_tag *atag_taglist_whole(const struct atag_taglist *full,
					  const struct atag_tag *t);

/**
 * atag_taglist_free - free a tag list returned by a list or parse function
 * @list: the list, may be NULL
 */
void atag_taglist_free(struct atag_taglist *list);

#endif /* _ATAG_ALLOCINFO_H */
