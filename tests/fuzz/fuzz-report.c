// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-report: a trace.dat, read by report in-process (lib/read: headers, pages,
 * decoder; lib/stitch; the JSON and text renderers). Files that would need
 * libtracecmd are refused (atag_trace_allow_libtracecmd()): nothing forks.
 */
#include <stdlib.h>

#include "atag-render.h"
#include "atag-report.h"
#include "atag-trace.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct atag_render_opts ro = { .summary = true, .sites = true, .stacks = true,
				       .live = true, .hist = true, .width = 80 };
	const char *path = fuzz_file(data, size);
	static int once;
	struct atag_report *r;
	char err[256];

	if (!once) {
		once = 1;
		atag_trace_allow_libtracecmd(false);
		setenv("ATAG_THREADS", "1", 1);
	}
	if (!path)
		return 0;
	r = atag_report_alloc(NULL);
	if (!r)
		return 0;
	if (!atag_report_add_file(r, path, err, sizeof(err)) && !atag_report_finish(r, NULL)) {
		atag_render_json(r, NULL, fuzz_null());
		atag_render_text(r, &ro, fuzz_null());
	}
	atag_report_free(r);
	return 0;
}
