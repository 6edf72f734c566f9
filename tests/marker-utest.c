// SPDX-License-Identifier: GPL-2.0
/*
 * The recording's marker lines (include/atag-marker.h): every keyword built as
 * record builds it and read back as report reads it, field for field; the
 * version, the "?" for fields that cannot be written, the length limit.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "atag-utest.h"
#include "atag-marker.h"
#include "atag-recording.h"

/* A line of @keyword with the fields given, NULL-terminated, built; 0 or -E2BIG. */
static int build(struct atag_marker_line *l, const char *keyword, ...)
{
	const char *f;
	va_list ap;

	atag_marker_begin(l, keyword);
	va_start(ap, keyword);
	while ((f = va_arg(ap, const char *)))
		atag_marker_add(l, f);
	va_end(ap);
	return atag_marker_end(l);
}

/* Every keyword: the text by hand, and split back to its fields. */
static void test_split_every_keyword(void)
{
	struct atag_marker_fields mf;
	struct atag_marker_line l;
	char want[256];
	int i, n = 0;

	for (i = 0; atag_marker_keywords[i]; i++, n++) {
		const char *kw = atag_marker_keywords[i];

		CU_ASSERT_EQUAL_FATAL(build(&l, kw, "a", "b c", "x\ty", "p\nq", "", NULL), 0);
		snprintf(want, sizeof(want), "trace-cmd-alloc-tag: v1 %s\ta\tb c\t?\t?\t\n", kw);
		CU_ASSERT_STRING_EQUAL(l.buf, want);
		CU_ASSERT_EQUAL(l.len, strlen(want));
		CU_ASSERT_EQUAL_FATAL(atag_marker_split(l.buf, l.len, &mf), ATAG_MARKER_SPLIT);
		CU_ASSERT_EQUAL(mf.version, ATAG_MARKER_VERSION);
		CU_ASSERT_STRING_EQUAL(mf.keyword, kw);
		CU_ASSERT_EQUAL_FATAL(mf.nf, 5);
		CU_ASSERT_STRING_EQUAL(mf.f[0], "a");
		CU_ASSERT_STRING_EQUAL(mf.f[1], "b c");
		CU_ASSERT_STRING_EQUAL(mf.f[2], "?");
		CU_ASSERT_STRING_EQUAL(mf.f[3], "?");
		CU_ASSERT_STRING_EQUAL(mf.f[4], "");
		atag_marker_fields_free(&mf);
	}
	/* the fourteen keywords of MARKERS in trace-cmd-alloc-tag-report(1) */
	CU_ASSERT_EQUAL(n, 14);
}

static void test_limits(void)
{
	struct atag_marker_fields mf;
	struct atag_marker_line l;
	char big[ATAG_MARKER_MAX];
	size_t fit;

	/* the longest line that fits: ATAG_MARKER_MAX bytes with its newline, no more */
	atag_marker_begin(&l, ATAG_MK_END);
	fit = ATAG_MARKER_MAX - 1 - l.len - 1 - 1;	/* newline, NUL, tab */
	memset(big, 'x', fit);
	big[fit] = '\0';
	CU_ASSERT_EQUAL(build(&l, ATAG_MK_END, big, NULL), 0);
	CU_ASSERT_EQUAL(l.len, ATAG_MARKER_MAX - 1);
	big[fit] = 'x';
	big[fit + 1] = '\0';
	CU_ASSERT_EQUAL(build(&l, ATAG_MK_END, big, NULL), -E2BIG);
	/* not ours, malformed, later, too many fields */
	CU_ASSERT_EQUAL(atag_marker_split("hello", 5, &mf), ATAG_MARKER_NOT_OURS);
	CU_ASSERT_EQUAL(atag_marker_split("trace-cmd-alloc-tag: end\tx", 26, &mf),
			ATAG_MARKER_MALFORMED);
	CU_ASSERT_EQUAL(atag_marker_split("trace-cmd-alloc-tag: v0 end", 27, &mf),
			ATAG_MARKER_MALFORMED);
	CU_ASSERT_EQUAL(atag_marker_split("trace-cmd-alloc-tag: v2 end\tx", 29, &mf),
			ATAG_MARKER_LATER);
	CU_ASSERT_EQUAL(mf.version, 2);
	CU_ASSERT_EQUAL(build(&l, ATAG_MK_END, "1", "2", "3", "4", "5", "6", "7", "8", NULL), 0);
	CU_ASSERT_EQUAL(atag_marker_split(l.buf, l.len, &mf), ATAG_MARKER_SPLIT);
	atag_marker_fields_free(&mf);
	CU_ASSERT_EQUAL(build(&l, ATAG_MK_END, "1", "2", "3", "4", "5", "6", "7", "8", "9",
			      NULL), 0);
	CU_ASSERT_EQUAL(atag_marker_split(l.buf, l.len, &mf), ATAG_MARKER_MALFORMED);
}

/* A line as record writes it, read by the recording: what it was */
static enum atag_marker feed(struct atag_recording *r, const char *keyword, ...)
{
	struct atag_marker_line l;
	const char *f;
	va_list ap;

	atag_marker_begin(&l, keyword);
	va_start(ap, keyword);
	while ((f = va_arg(ap, const char *)))
		atag_marker_add(&l, f);
	va_end(ap);
	CU_ASSERT_EQUAL_FATAL(atag_marker_end(&l), 0);
	return atag_recording_line(r, l.buf, l.len, 1000);
}

/* Every line kind record writes, with the values report then holds */
static void test_round_trip_recording(void)
{
	struct atag_recording *r = atag_recording_alloc();

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_RECORD, "4242", "kmem", "yes", NULL), ATAG_MARKER_RECORD);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_RECORDER, "4243", "trace-cmd", NULL),
			ATAG_MARKER_RECORDER);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_WORKLOAD, "4250", "make\tx", NULL),
			ATAG_MARKER_WORKLOAD);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_SELECT, "-", "mm/slub.c", "2386", "alloc_slab_page",
			     NULL), ATAG_MARKER_SELECT);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_SELECT_ALL, NULL), ATAG_MARKER_SELECT);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_ALSO_TRACED, "ext4", "fs/ext4/super.c", "1395",
			     "ext4_alloc_inode", NULL), ATAG_MARKER_ALSO_TRACED);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_PROFILING, "start", "on", NULL), ATAG_MARKER_PROFILING);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_COUNTERS_READING, "start", NULL),
			ATAG_MARKER_COUNTERS_READING_START);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_COUNTERS, "start", "12582912", "3072", "-", "mm/slub.c",
			     "2386", "alloc_slab_page", NULL), ATAG_MARKER_COUNTERS_START);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_STACK_SAMPLE, "kmem:kmalloc", "16", "by address", NULL),
			ATAG_MARKER_SAMPLED);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_DESCRIBED, NULL), ATAG_MARKER_DESCRIBED);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_STACK_SAMPLE_MOVES, "7", NULL), ATAG_MARKER_SAMPLED);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_COUNTERS_READING, "end", NULL),
			ATAG_MARKER_COUNTERS_READING_END);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_COUNTERS, "end", "16777216", "4096", "-", "mm/slub.c",
			     "2386", "alloc_slab_page", NULL), ATAG_MARKER_COUNTERS_END);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_PROFILING, "end", "off", NULL), ATAG_MARKER_PROFILING);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_LINGER, "250", NULL), ATAG_MARKER_LINGER);
	CU_ASSERT_EQUAL(feed(r, ATAG_MK_END, "command-exited", NULL), ATAG_MARKER_END);

	CU_ASSERT(atag_recording_labelled(r));
	CU_ASSERT_EQUAL(r->record_pid, 4242);
	CU_ASSERT_STRING_EQUAL(r->source, "kmem");
	CU_ASSERT(r->stacks);
	CU_ASSERT_EQUAL_FATAL(r->nr_recorders, 1);
	CU_ASSERT_EQUAL(r->recorders[0].pid, 4243);
	CU_ASSERT_STRING_EQUAL(r->recorders[0].comm, "trace-cmd");
	CU_ASSERT_EQUAL_FATAL(r->nr_workloads, 1);
	CU_ASSERT_PTR_NULL(r->workloads[0].comm);	/* a tab in it: "?", unknown */
	CU_ASSERT_EQUAL_FATAL(r->nr_selected, 1);
	CU_ASSERT_PTR_NULL(r->selected[0].module);
	CU_ASSERT_STRING_EQUAL(r->selected[0].file, "mm/slub.c");
	CU_ASSERT_EQUAL(r->selected[0].line, 2386);
	CU_ASSERT_STRING_EQUAL(r->selected[0].function, "alloc_slab_page");
	CU_ASSERT(r->select_all);
	CU_ASSERT_EQUAL_FATAL(r->nr_also_traced, 1);
	CU_ASSERT_STRING_EQUAL(r->also_traced[0].module, "ext4");
	CU_ASSERT_EQUAL(r->profiling_start, ATAG_MARKER_PROFILING_ON);
	CU_ASSERT_EQUAL(r->profiling_end, ATAG_MARKER_PROFILING_OFF);
	CU_ASSERT_EQUAL_FATAL(r->nr_counters_start, 1);
	CU_ASSERT_EQUAL(r->counters_start[0].bytes, 12582912);
	CU_ASSERT_EQUAL(r->counters_start[0].calls, 3072);
	CU_ASSERT_EQUAL_FATAL(r->nr_counters_end, 1);
	CU_ASSERT_EQUAL(r->counters_end[0].calls, 4096);
	CU_ASSERT_EQUAL_FATAL(r->nr_sampled, 1);
	CU_ASSERT_STRING_EQUAL(r->sampled[0].event, "kmem:kmalloc");
	CU_ASSERT_EQUAL(r->sampled[0].every, 16);
	CU_ASSERT_STRING_EQUAL(r->sampled[0].how, "by address");
	CU_ASSERT_EQUAL(r->sample_moves, 7);
	CU_ASSERT_EQUAL(r->linger_ms, 250);
	CU_ASSERT_STRING_EQUAL(r->end_reason, "command-exited");
	CU_ASSERT_EQUAL(r->unknown, 0);
	CU_ASSERT_EQUAL(r->malformed, 0);
	/* a later version's line: the file is read as if it had none */
	CU_ASSERT_EQUAL(atag_recording_line(r, "trace-cmd-alloc-tag: v2 end\tx\n", 30, 2000),
			ATAG_MARKER_NEWER);
	CU_ASSERT(!atag_recording_labelled(r));
	atag_recording_free(r);
}

static void add_marker_suite(void)
{
	CU_pSuite s = CU_add_suite("marker", NULL, NULL);

	CU_add_test(s, "every keyword built and split", test_split_every_keyword);
	CU_add_test(s, "the length limit, versions, malformed lines", test_limits);
	CU_add_test(s, "every line record writes, read back by report", test_round_trip_recording);
}
ATAG_UTEST_SUITE("marker", add_marker_suite);
