// SPDX-License-Identifier: GPL-2.0
/*
 * trace-mend FILE: mend the saved comms of a trace.dat in place, as record does with
 * the file trace-cmd record wrote (atag_trace_mend()), for the tests of the mend.
 * Prints what was mended; exits 0 when it mended, 3 when there was nothing to mend,
 * 1 (and the reason) when it cannot.
 */
#include <stdio.h>

#include "atag-trace.h"

int main(int argc, char **argv)
{
	char what[512], err[512];
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: trace-mend FILE\n");
		return 2;
	}
	ret = atag_trace_mend(argv[1], what, sizeof(what), err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "trace-mend: %s: %s\n", argv[1], err);
		return 1;
	}
	if (ret)
		printf("%s\n", what);
	return ret ? 0 : 3;
}
