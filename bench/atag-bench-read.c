// SPDX-License-Identifier: GPL-2.0
/*
 * atag-bench-read FILE: report's reading alone - open FILE, read the buffer
 * report would read and decode every record into events (lib/read), counted and
 * dropped instead of stitched. bench/ compares it with the bare libtracecmd loop:
 * what report's reader costs, apart from stitching, folding and rendering.
 */
#include <stdio.h>

#include "atag-read.h"

static unsigned long long events, stacks;

static int event(void *ctx, const struct atag_event *ev)
{
	events++;
	return 0;
}

static int stack(void *ctx, const struct atag_kstack *ks)
{
	stacks++;
	return 0;
}

static int missed(void *ctx, int cpu)
{
	return 0;
}

int main(int argc, char **argv)
{
	struct atag_sink sink = { event, stack, missed, NULL };
	struct atag_reader *rd;
	char err[256];

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	if (atag_reader_open(argv[1], NULL, &rd, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 1;
	}
	if (atag_reader_run(rd, &sink)) {
		fprintf(stderr, "%s: out of memory\n", argv[1]);
		atag_reader_close(rd);
		return 1;
	}
	printf("%llu events, %llu stacks\n", events, stacks);
	atag_reader_close(rd);
	return 0;
}
