// SPDX-License-Identifier: GPL-2.0
/*
 * trace-walk [-d] FILE [BUFFER]: print every record of a buffer as libatag hands
 * them out: "cpu ts size missed checksum". tests/t-pages.sh runs it with the
 * direct page walk (ATAG_PAGES unset) and with libtracecmd (ATAG_PAGES=0) and
 * compares. -d says on stderr which walk was taken.
 */
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "atag-trace.h"

static int print(const struct tep_record *rec, void *data)
{
	const unsigned char *p = rec->data;
	unsigned int sum = 0;
	int i;

	for (i = 0; i < rec->size; i++)
		sum = sum * 31 + p[i];
	printf("%d %llu %d %lld %08x\n", rec->cpu, rec->ts, rec->size, rec->missed_events, sum);
	return 0;
}

int main(int argc, char **argv)
{
	struct atag_trace *t;
	bool say = false;
	char err[256];
	int b;

	if (argc > 1 && !strcmp(argv[1], "-d")) {
		say = true;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: trace-walk [-d] FILE [BUFFER]\n");
		return 2;
	}
	if (atag_trace_open(argv[1], &t, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 1;
	}
	b = atag_trace_find_buffer(t, argc > 2 ? argv[2] : "");
	if (b < 0) {
		fprintf(stderr, "no buffer\n");
		return 1;
	}
	if (say)
		fprintf(stderr, "walk: %s\n", atag_trace_direct(t, b) ? "pages" : "libtracecmd");
	atag_trace_iterate(t, b, print, NULL);
	atag_trace_close(t);
	return 0;
}
