// SPDX-License-Identifier: GPL-2.0
/*
 * render-pprof OUT [WEIGHT]: write the hand-built report of tests/render-sample.h
 * as a pprof profile to OUT, with WEIGHT as the default sample type
 * (tests/t-pprof.sh reads it with `go tool pprof`).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../render-sample.h"

int main(int argc, char **argv)
{
	struct atag_render_opts o = { 0 };
	struct render_sample rs;
	int ret;
	FILE *f;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s OUT [WEIGHT]\n", argv[0]);
		return 2;
	}
	o.weight = argc > 2 ? argv[2] : NULL;
	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	render_sample_init(&rs);
	ret = atag_render_pprof(&rs.r, &o, f);
	render_sample_free(&rs);
	if (fclose(f) || ret) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(ret ? -ret : EIO));
		return 1;
	}
	return 0;
}
