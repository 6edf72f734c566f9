// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-allocinfo-text: the text of /proc/allocinfo (atag_allocinfo_parse_text()),
 * with no filter and with a filter on module, function and size.
 */
#include <string.h>

#include "atag-allocinfo.h"
#include "atag-filter.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct atag_taglist *list = NULL;
	struct atag_filter f;
	unsigned int line;

	if (!atag_allocinfo_parse_text((const char *)data, size, NULL, &list, &line))
		atag_taglist_free(list);
	list = NULL;
	atag_filter_init(&f);
	f.module = "f*";
	f.function = "*alloc*";
	f.has_min_size = true;
	f.min_size = 1024;
	if (!atag_allocinfo_parse_text((const char *)data, size, &f, &list, &line))
		atag_taglist_free(list);
	return 0;
}
