// SPDX-License-Identifier: LGPL-2.1
/*
 * Tag filters: what goes into the kernel's struct allocinfo_filter and what is
 * matched in userspace, with the kernel's string semantics.
 */
#include <errno.h>
#include <string.h>

#include "atag-allocinfo.h"
#include "atag-filter.h"
#include "atag-utils.h"

void atag_filter_init(struct atag_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->inaccurate = ATAG_ANY;
	f->traced = ATAG_ANY;
}

bool atag_filter_is_empty(const struct atag_filter *f)
{
	return !f->module && !f->function && !f->file && !f->has_line &&
	       !f->has_min_size && !f->has_max_size &&
	       f->inaccurate == ATAG_ANY && f->traced == ATAG_ANY;
}

int atag_filter_validate(const struct atag_filter *f)
{
	if (f->has_min_size && f->has_max_size && f->min_size > f->max_size)
		return atag_err(-EINVAL);
	if (f->inaccurate < ATAG_ANY || f->inaccurate > 1 ||
	    f->traced < ATAG_ANY || f->traced > 1)
		return atag_err(-EINVAL);
	return 0;
}

bool atag_str_is_glob(const char *s)
{
	return s && strpbrk(s, "*?[");
}

const char *atag_allocinfo_str(const char *s)
{
	size_t len = strlen(s);

	return len < ALLOCINFO_STR_SIZE ? s : s + len - (ALLOCINFO_STR_SIZE - 1);
}

void atag_allocinfo_strcpy(char dst[ALLOCINFO_STR_SIZE], const char *s)
{
	memset(dst, 0, ALLOCINFO_STR_SIZE);
	strncpy(dst, atag_allocinfo_str(s), ALLOCINFO_STR_SIZE - 1);
}

/* One string criterion: into the kernel filter unless it is a glob. */
static bool kernel_str_field(const char *s, char dst[ALLOCINFO_STR_SIZE],
			     struct allocinfo_filter *kf, unsigned int bit)
{
	if (!s)
		return true;
	if (atag_str_is_glob(s))
		return false;
	atag_allocinfo_strcpy(dst, s);
	kf->mask |= bit;
	return true;
}

bool atag_filter_to_kernel(const struct atag_filter *f, struct allocinfo_filter *kf)
{
	bool all = true;

	memset(kf, 0, sizeof(*kf));
	all &= kernel_str_field(f->module, kf->fields.modname, kf, ALLOCINFO_FILTER_MASK_MODNAME);
	all &= kernel_str_field(f->function, kf->fields.function, kf,
				ALLOCINFO_FILTER_MASK_FUNCTION);
	all &= kernel_str_field(f->file, kf->fields.filename, kf, ALLOCINFO_FILTER_MASK_FILENAME);
	if (f->has_line) {
		kf->mask |= ALLOCINFO_FILTER_MASK_LINENO;
		kf->fields.lineno = f->line;
	}
	if (f->has_min_size) {
		kf->mask |= ALLOCINFO_FILTER_MASK_MIN_SIZE;
		kf->min_size = f->min_size;
	}
	if (f->has_max_size) {
		kf->mask |= ALLOCINFO_FILTER_MASK_MAX_SIZE;
		kf->max_size = f->max_size;
	}
	if (f->inaccurate != ATAG_ANY) {
		kf->mask |= ALLOCINFO_FILTER_MASK_INACCURATE;
		kf->inaccurate = f->inaccurate;
	}
	if (f->traced != ATAG_ANY) {
		kf->mask |= ALLOCINFO_FILTER_MASK_TRACE_ON;
		kf->tracing = f->traced;
	}
	return all;
}

/* A string criterion in userspace: a glob, or the kernel's trailing-63 comparison. */
static bool str_match(const char *pattern, const char *name)
{
	if (!pattern)
		return true;
	if (atag_str_is_glob(pattern))
		return atag_glob_match(pattern, name);
	return !strcmp(atag_allocinfo_str(pattern), atag_allocinfo_str(name));
}

/* '' selects built-in tags; any other pattern only module tags, as in the kernel */
static bool module_match(const char *pattern, const char *modname)
{
	if (!pattern)
		return true;
	if (!*pattern || !*modname)
		return !*pattern && !*modname;
	return str_match(pattern, modname);
}

static bool size_match(const struct atag_filter *f, long long bytes)
{
	/* the kernel compares its s64 against the __u64 bounds: negative is huge */
	unsigned long long b = (unsigned long long)bytes;

	if (f->has_min_size && b < f->min_size)
		return false;
	if (f->has_max_size && b > f->max_size)
		return false;
	return true;
}

bool atag_filter_match(const struct atag_filter *f, const struct atag_tag *t)
{
	if (!f)
		return true;
	if (!module_match(f->module, t->modname))
		return false;
	if (!str_match(f->function, t->function) || !str_match(f->file, t->filename))
		return false;
	if (f->has_line && t->lineno != f->line)
		return false;
	if (!size_match(f, t->bytes))
		return false;
	if (f->inaccurate != ATAG_ANY && !t->accurate != !!f->inaccurate)
		return false;
	if (f->traced != ATAG_ANY && (t->traced < 0 || !!t->traced != !!f->traced))
		return false;
	return true;
}
