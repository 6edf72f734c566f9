// SPDX-License-Identifier: LGPL-2.1
/*
 * Tags and tag lists: what listing /proc/allocinfo produces (atag-allocinfo.c for the
 * ioctls, atag-allocinfo-text.c for the text) and what a session turns on and off.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-allocinfo.h"
#include "atag-allocinfo-uapi.h"
#include "atag-utils.h"

void atag_tag_set_name(char *dst, const char *src, size_t len)
{
	if (len >= ATAG_NAME_MAX) {
		src += len - (ATAG_NAME_MAX - 1);
		len = ATAG_NAME_MAX - 1;
	}
	memcpy(dst, src, len);
	dst[len] = '\0';
}

bool atag_tag_same_site(const struct atag_tag *a, const struct atag_tag *b)
{
	return a->lineno == b->lineno && !strcmp(a->modname, b->modname) &&
	       !strcmp(a->filename, b->filename) && !strcmp(a->function, b->function);
}

int atag_taglist_add(struct atag_taglist *list, const struct atag_tag *t)
{
	size_t cap = list->cap ? list->cap * 2 : 64;
	struct atag_tag *tags;

	if (list->nr == list->cap) {
		tags = realloc(list->tags, cap * sizeof(*tags));
		if (!tags)
			return atag_err(-ENOMEM);
		list->tags = tags;
		list->cap = cap;
	}
	list->tags[list->nr++] = *t;
	return 0;
}

bool atag_taglist_drop(struct atag_taglist *list, const struct atag_tag *t)
{
	size_t i;

	for (i = list->nr; i-- > 0;) {
		if (!atag_tag_same_site(&list->tags[i], t))
			continue;
		memmove(&list->tags[i], &list->tags[i + 1],
			(list->nr - i - 1) * sizeof(*list->tags));
		list->nr--;
		return true;
	}
	return false;
}

void atag_taglist_free(struct atag_taglist *list)
{
	if (!list)
		return;
	free(list->tags);
	free(list);
}

static int site_cmp(const void *pa, const void *pb)
{
	const struct atag_tag *a = pa, *b = pb;
	int ret;

	ret = strcmp(a->function, b->function);
	if (!ret)
		ret = strcmp(a->filename, b->filename);
	if (!ret)
		ret = a->lineno < b->lineno ? -1 : a->lineno > b->lineno;
	if (!ret)
		ret = strcmp(a->modname, b->modname);
	return ret;
}

void atag_taglist_sort(struct atag_taglist *list)
{
	if (list->nr > 1)
		qsort(list->tags, list->nr, sizeof(*list->tags), site_cmp);
}

const struct atag_tag *atag_taglist_find(const struct atag_taglist *list,
					 const struct atag_tag *t)
{
	return list->nr ? bsearch(t, list->tags, list->nr, sizeof(*list->tags), site_cmp) : NULL;
}

/* Whether @name is @cut, or ends with it and is longer while @cut fills a field. */
static bool ends_with(const char *name, const char *cut, bool *longer)
{
	size_t n = strlen(name), c = strlen(cut);

	if (n == c)
		return !strcmp(name, cut);
	if (n < c || c != ALLOCINFO_STR_SIZE - 1 || strcmp(name + n - c, cut))
		return false;
	*longer = true;
	return true;
}

static bool may_be_cut(const char *name)
{
	return strlen(name) == ALLOCINFO_STR_SIZE - 1;
}

const struct atag_tag *atag_taglist_whole(const struct atag_taglist *full,
					  const struct atag_tag *t)
{
	const struct atag_tag *u, *found = NULL;
	bool longer;
	size_t i;

	if (!full || (!may_be_cut(t->modname) && !may_be_cut(t->function) &&
		      !may_be_cut(t->filename)))
		return NULL;
	for (i = 0; i < full->nr; i++) {
		u = &full->tags[i];
		longer = false;
		if (u->lineno != t->lineno || !ends_with(u->modname, t->modname, &longer) ||
		    !ends_with(u->function, t->function, &longer) ||
		    !ends_with(u->filename, t->filename, &longer) || !longer)
			continue;
		if (found)
			return NULL;	/* two candidates: neither is provably it */
		found = u;
	}
	return found;
}
