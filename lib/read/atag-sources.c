// SPDX-License-Identifier: LGPL-2.1
/*
 * The registry of sources: the one list of them, in the order detection tries
 * them, and the look-ups over it. See atag-source.h.
 */
#include <stdio.h>
#include <string.h>

#include "atag-source.h"

const struct atag_source *const atag_sources[] = {
	&atag_source_alloc_tag,
	&atag_source_kmem,
	&atag_source_page,
	NULL
};

const struct atag_source *atag_source_find(const char *name)
{
	int i;

	for (i = 0; atag_sources[i]; i++)
		if (!strcmp(atag_sources[i]->name, name))
			return atag_sources[i];
	return NULL;
}

char *atag_source_names(char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; atag_sources[i] && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "", atag_sources[i]->name);
	return buf;
}

int atag_source_nr_present(const struct atag_source *src, struct tep_handle *tep)
{
	const struct atag_source_event *e;
	int n = 0;

	for (e = src->events; e->name; e++)
		n += tep_find_event_by_name(tep, e->system, e->name) != NULL;
	return n;
}

const struct atag_source *atag_source_detect(struct tep_handle *tep)
{
	int i;

	for (i = 0; atag_sources[i]; i++)
		if (atag_source_nr_present(atag_sources[i], tep))
			return atag_sources[i];
	return NULL;
}
