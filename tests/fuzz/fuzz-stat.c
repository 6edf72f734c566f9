// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-stat: the tracefs files stat reads (lib/bufstat/atag-bufstat-parse.c):
 * buffer_size_kb, trace_stats/memory_usage_kb, per_cpu/cpuN/buffer_meta, a
 * remote's buffer_size_kb, events/header_page, snapshot, 0/1 flags. The first
 * byte chooses the parser, the rest is the file's text.
 */
#include <stdlib.h>
#include <string.h>

#include "atag-bufstat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct atag_bufstat_meta meta;
	struct atag_memusage mu;
	struct atag_bufsize bs;
	unsigned long long kb;
	unsigned int hdr;
	int line, loaded;
	char *text;

	if (!size)
		return 0;
	/* the files are read whole and NUL-terminated (atag_read_file()) */
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 7) {
	case 0:
		atag_bufstat_parse_size(text, &bs);
		break;
	case 1:
		atag_bufstat_parse_memusage(text, &mu, &line);
		break;
	case 2:
		atag_bufstat_parse_meta(text, &meta, &line);
		break;
	case 3:
		atag_bufstat_parse_remote_size(text, &kb, &loaded);
		break;
	case 4:
		atag_bufstat_parse_header_page(text, &hdr);
		break;
	case 5:
		atag_bufstat_parse_snapshot(text);
		break;
	default:
		atag_bufstat_parse_flag(text);
		break;
	}
	free(text);
	return 0;
}
