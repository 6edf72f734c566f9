// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the parsing and formatting helpers of include/atag-utils.h: the
 * numbers every command line option and every text column goes through.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-arena.h"
#include "atag-outbuf.h"
#include "atag-utest.h"
#include "atag-table.h"
#include "atag-utils.h"

#define GOOD(fn, str, want) do {						\
	unsigned long long __v = 12345;						\
	CU_ASSERT_EQUAL(fn(str, &__v), 0);					\
	CU_ASSERT_EQUAL(__v, (unsigned long long)(want));			\
} while (0)

#define BAD(fn, str) do {							\
	unsigned long long __v = 12345;						\
	errno = 0;								\
	CU_ASSERT_EQUAL(fn(str, &__v), -EINVAL);				\
	CU_ASSERT_EQUAL(errno, EINVAL);						\
	CU_ASSERT_EQUAL(__v, 12345);						\
} while (0)

static void test_parse_u64(void)
{
	GOOD(atag_parse_u64, "0", 0);
	GOOD(atag_parse_u64, "42", 42);
	GOOD(atag_parse_u64, "010", 10);	/* decimal, not octal */
	GOOD(atag_parse_u64, "18446744073709551615", 18446744073709551615ULL);
	BAD(atag_parse_u64, "");
	BAD(atag_parse_u64, "-1");
	BAD(atag_parse_u64, "+1");
	BAD(atag_parse_u64, " 1");
	BAD(atag_parse_u64, "1 ");
	BAD(atag_parse_u64, "0x10");
	BAD(atag_parse_u64, "12k");
	BAD(atag_parse_u64, "18446744073709551616");
	BAD(atag_parse_u64, NULL);
}

static void test_parse_size(void)
{
	GOOD(atag_parse_size, "4096", 4096);
	GOOD(atag_parse_size, "64K", 65536);
	GOOD(atag_parse_size, "64k", 65536);
	GOOD(atag_parse_size, "1M", 1048576);
	GOOD(atag_parse_size, "1MiB", 1048576);
	GOOD(atag_parse_size, "1MB", 1048576);
	GOOD(atag_parse_size, "1.5K", 1536);
	GOOD(atag_parse_size, "2G", 2ULL << 30);
	GOOD(atag_parse_size, "100B", 100);
	BAD(atag_parse_size, "");
	BAD(atag_parse_size, "-1K");
	BAD(atag_parse_size, "K");
	BAD(atag_parse_size, "1Q");
	BAD(atag_parse_size, "1KX");
	BAD(atag_parse_size, "0x10");
	BAD(atag_parse_size, "inf");
	BAD(atag_parse_size, "nan");
	BAD(atag_parse_size, "16E");	/* 2^64 does not fit */
}

static void test_parse_duration(void)
{
	GOOD(atag_parse_duration, "1", 1000000000ULL);
	GOOD(atag_parse_duration, "1s", 1000000000ULL);
	GOOD(atag_parse_duration, "0.5", 500000000ULL);
	GOOD(atag_parse_duration, "250ms", 250000000ULL);
	GOOD(atag_parse_duration, "3us", 3000);
	GOOD(atag_parse_duration, "7ns", 7);
	GOOD(atag_parse_duration, "2m", 120000000000ULL);
	GOOD(atag_parse_duration, "2min", 120000000000ULL);
	GOOD(atag_parse_duration, "1h", 3600000000000ULL);
	BAD(atag_parse_duration, "");
	BAD(atag_parse_duration, "-1s");
	BAD(atag_parse_duration, "1d");
	BAD(atag_parse_duration, "s");
	BAD(atag_parse_duration, "1 s");
	BAD(atag_parse_duration, "1e30h");
}

static void test_parse_timestamp(void)
{
	GOOD(atag_parse_timestamp, "1284.788182", 1284788182000ULL);
	GOOD(atag_parse_timestamp, "1284", 1284000000000ULL);
	GOOD(atag_parse_timestamp, "0.000000001", 1);
	GOOD(atag_parse_timestamp, "1.1234567891", 1123456789ULL);	/* beyond ns: cut */
	GOOD(atag_parse_timestamp, "123ns", 123);
	BAD(atag_parse_timestamp, "1.");
	BAD(atag_parse_timestamp, ".5");
	BAD(atag_parse_timestamp, "1.5s");
	BAD(atag_parse_timestamp, "-1");
	BAD(atag_parse_timestamp, "99999999999999");	/* overflows u64 ns */
}

static void test_format_size(void)
{
	char buf[32];

	CU_ASSERT_STRING_EQUAL(atag_format_size(buf, sizeof(buf), 0), "0 B");
	CU_ASSERT_STRING_EQUAL(atag_format_size(buf, sizeof(buf), 1023), "1023 B");
	CU_ASSERT_STRING_EQUAL(atag_format_size(buf, sizeof(buf), 1024), "1.00 KiB");
	CU_ASSERT_STRING_EQUAL(atag_format_size(buf, sizeof(buf), 1536), "1.50 KiB");
	/* rounded down: a size never reads larger than it is */
	CU_ASSERT_STRING_EQUAL(atag_format_size(buf, sizeof(buf), 1048575), "1023 KiB");
	CU_ASSERT_STRING_EQUAL(atag_format_size(buf, sizeof(buf), 12 << 20 | 512 << 10),
			       "12.5 MiB");
}

static void test_format_duration(void)
{
	char buf[32];

	CU_ASSERT_STRING_EQUAL(atag_format_duration(buf, sizeof(buf), 850), "850 ns");
	CU_ASSERT_STRING_EQUAL(atag_format_duration(buf, sizeof(buf), 12300), "12.3 us");
	CU_ASSERT_STRING_EQUAL(atag_format_duration(buf, sizeof(buf), 4500000), "4.50 ms");
	CU_ASSERT_STRING_EQUAL(atag_format_duration(buf, sizeof(buf), 2000000000), "2.00 s");
	CU_ASSERT_STRING_EQUAL(atag_format_duration(buf, sizeof(buf), 62000000000ULL),
			       "1m02s");
	CU_ASSERT_STRING_EQUAL(atag_format_duration(buf, sizeof(buf), 3720000000000ULL),
			       "1h02m");
}

static void test_glob(void)
{
	CU_ASSERT_TRUE(atag_glob_match(NULL, "anything"));
	CU_ASSERT_TRUE(atag_glob_match("kmalloc*", "kmalloc_node"));
	CU_ASSERT_TRUE(atag_glob_match("mm/sl?b.c", "mm/slub.c"));
	CU_ASSERT_FALSE(atag_glob_match("kmalloc", "kmalloc_node"));
	CU_ASSERT_FALSE(atag_glob_match("x", NULL));
}

/* A table of three right-aligned numbers and a call site, written to a string. */
static char *fit_table(int max_width, const char * const *drop, int *hidden)
{
	static const char * const head[] = { "A", "BB", "CCC", "SITE" };
	static const char * const row[] = { "1", "22", "333", "a_call_site_of_24_chars_" };
	struct atag_table t;
	size_t len;
	char *out;
	FILE *f;

	atag_table_init(&t, 4, 1u << 3);
	t.max_width = max_width;
	t.drop = drop;
	atag_table_add_const(&t, head);
	atag_table_add_const(&t, row);
	*hidden = atag_table_fit(&t, 0);
	f = open_memstream(&out, &len);
	atag_table_print(&t, 0, f);
	atag_table_print_hidden(&t, f);
	fclose(f);
	atag_table_free(&t);
	return out;
}

/*
 * Widths by hand: A 1+2, BB 2+2, CCC 3+2: 12 before the call site, which cut to
 * its minimum (12) makes 24.
 */
static void test_table_fit(void)
{
	static const char * const drop[] = { "CCC", "NONE", "A", NULL };
	char *out;
	int n;

	/* no limit, or room enough: nothing left out */
	out = fit_table(0, drop, &n);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_STRING_EQUAL(out, "A  BB  CCC  SITE\n1  22  333  a_call_site_of_24_chars_\n");
	free(out);
	/* 24: the site cut to 12: 5 of its start, "...", 4 of its end */
	out = fit_table(24, drop, &n);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_STRING_EQUAL(out, "A  BB  CCC  SITE\n1  22  333  a_cal...ars_\n");
	free(out);
	/* 23: CCC goes (5 columns), the site gets 23 - 7 = 16: 7, "...", 6 */
	out = fit_table(23, drop, &n);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_STRING_EQUAL(out, "A  BB  SITE\n1  22  a_call_...chars_\n"
			       "columns left out to fit 23:\n  CCC (-f csv has all)\n");
	free(out);
	/*
	 * 16: CCC, then A (a name not in the header is passed over); the line naming
	 * them goes on lines indented by 2 where it would pass 16 (a word is not cut)
	 */
	out = fit_table(16, drop, &n);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_STRING_EQUAL(out, "BB  SITE\n22  a_cal...ars_\n"
			       "columns left out to fit 16:\n  CCC, A\n  (-f csv has all)\n");
	free(out);
	/* 15: the list used up, still too wide: the site is not cut */
	out = fit_table(15, drop, &n);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_STRING_EQUAL(out, "BB  SITE\n22  a_call_site_of_24_chars_\n"
			       "columns left out to fit 15:\n  CCC, A\n  (-f csv has all)\n");
	free(out);
	/* no drop list: cut as before, never a column left out */
	out = fit_table(15, NULL, &n);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_STRING_EQUAL(out, "A  BB  CCC  SITE\n1  22  333  a_call_site_of_24_chars_\n");
	free(out);
}

/*
 * The output buffer: pieces that fill it to the byte, one longer than it, and
 * numbers against printf; nothing reaches the FILE before a flush or a full buffer.
 */
static void test_outbuf(void)
{
	static const uint64_t u[] = { 0, 9, 10, 255, 4096, UINT32_MAX, UINT64_MAX };
	static const int64_t i[] = { 0, -1, 42, INT64_MIN, INT64_MAX };
	char want[4 * ATAG_OUTBUF_SIZE], big[ATAG_OUTBUF_SIZE + 10], *got = NULL;
	struct atag_outbuf o;
	size_t len, n = 0, k;
	FILE *f;

	f = open_memstream(&got, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	atag_outbuf_init(&o, f);
	/* the buffer filled to its last byte by pieces of 7: still nothing written */
	for (k = 0; k < ATAG_OUTBUF_SIZE / 7; k++) {
		atag_outbuf_put(&o, "abcdefg", 7);
		memcpy(want + n, "abcdefg", 7);
		n += 7;
	}
	while (n < ATAG_OUTBUF_SIZE) {
		atag_outbuf_putc(&o, 'z');
		want[n++] = 'z';
	}
	fflush(f);
	CU_ASSERT_EQUAL(len, 0);
	/* one more byte sends the full buffer */
	atag_outbuf_putc(&o, '!');
	want[n++] = '!';
	fflush(f);
	CU_ASSERT_EQUAL(len, ATAG_OUTBUF_SIZE);
	/* a piece longer than the buffer goes through, after what was gathered */
	memset(big, 'L', sizeof(big));
	atag_outbuf_put(&o, big, sizeof(big));
	memcpy(want + n, big, sizeof(big));
	n += sizeof(big);
	for (k = 0; k < sizeof(u) / sizeof(u[0]); k++) {
		n += sprintf(want + n, "%" PRIu64 " 0x%" PRIx64 " ", u[k], u[k]);
		atag_outbuf_number(&o, u[k], false);
		atag_outbuf_putc(&o, ' ');
		atag_outbuf_number(&o, u[k], true);
		atag_outbuf_puts(&o, " ");
	}
	for (k = 0; k < sizeof(i) / sizeof(i[0]); k++) {
		n += sprintf(want + n, "%" PRId64 ",", i[k]);
		atag_outbuf_int(&o, i[k]);
		atag_outbuf_putc(&o, ',');
	}
	atag_outbuf_flush(&o);
	CU_ASSERT_EQUAL(fclose(f), 0);
	CU_ASSERT_EQUAL(len, n);
	CU_ASSERT(len == n && !memcmp(got, want, n));
	free(got);
}

/* What a FILE written by @fn(@arg) holds. */
static char *written_by(void (*fn)(FILE *, const char *), const char *arg)
{
	static char buf[256];
	FILE *f;

	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf), "w");
	if (!f)
		return "(fmemopen)";
	fn(f, arg);
	fclose(f);
	return buf;
}

static void text_fputs(FILE *f, const char *s)
{
	atag_text_fputs(s, f);
}

/*
 * 26.6: names from a trace shown on a terminal or in a spreadsheet: control characters
 * (C0, DEL, C1) and bytes of no UTF-8 sequence as \xNN, UTF-8 text as it is; CSV cells
 * that start as a formula get a leading '.
 */
static void test_text_escape(void)
{
	char buf[64];

	CU_ASSERT_TRUE(atag_text_clean("kmalloc_trace mm/slub.c"));
	CU_ASSERT_TRUE(atag_text_clean("caf\xc3\xa9 \xe2\x82\xac"));
	CU_ASSERT_FALSE(atag_text_clean("a\x1b[2Jb"));
	CU_ASSERT_FALSE(atag_text_clean("a\xc2\x9b" "b"));
	CU_ASSERT_FALSE(atag_text_clean("a\x9b" "b"));
	CU_ASSERT_FALSE(atag_text_clean("tab\there"));
	CU_ASSERT_FALSE(atag_text_clean("del\x7f"));
	CU_ASSERT_STRING_EQUAL(atag_text(buf, sizeof(buf), "a\x1b]0;t\x07" "b"),
			       "a\\x1b]0;t\\x07b");
	CU_ASSERT_STRING_EQUAL(atag_text(buf, sizeof(buf), "\xc2\x9b" "2J \xc3\xa9 \xff"),
			       "\\xc2\\x9b2J \xc3\xa9 \\xff");
	CU_ASSERT_STRING_EQUAL(atag_text(buf, 6, "a\x1b" "bcdef"), "a\\x1b");
	CU_ASSERT_STRING_EQUAL(atag_text(buf, sizeof(buf), NULL), "");
	CU_ASSERT_STRING_EQUAL(written_by(text_fputs, "x\ny\x1bz"), "x\\x0ay\\x1bz");
	CU_ASSERT_STRING_EQUAL(atag_site_text(buf, sizeof(buf), "f\x1b", 16, NULL, -1, "m\x07"),
			       "f\\x1b+0x10 [m\\x07]");
	CU_ASSERT_STRING_EQUAL(atag_site_text(buf, sizeof(buf), "f", -1, "a.c", 3, NULL),
			       "f a.c:3");

	CU_ASSERT_TRUE(atag_csv_plain("kmalloc_trace"));
	CU_ASSERT_FALSE(atag_csv_plain("-bash"));
	CU_ASSERT_FALSE(atag_csv_plain("a,b"));
	CU_ASSERT_FALSE(atag_csv_plain("a\rb"));
	CU_ASSERT_STRING_EQUAL(written_by(atag_csv_write_string, "=1+2"), "'=1+2");
	CU_ASSERT_STRING_EQUAL(written_by(atag_csv_write_string, "+1"), "'+1");
	CU_ASSERT_STRING_EQUAL(written_by(atag_csv_write_string, "@SUM(A1)"), "'@SUM(A1)");
	CU_ASSERT_STRING_EQUAL(written_by(atag_csv_write_string, "-bash"), "'-bash");
	CU_ASSERT_STRING_EQUAL(written_by(atag_csv_write_string, "a-b"), "a-b");
	CU_ASSERT_STRING_EQUAL(written_by(atag_csv_write_string, "=a,\"b\""),
			       "\"'=a,\"\"b\"\"\"");
	CU_ASSERT_STRING_EQUAL(written_by(atag_csv_write_string, "two\nlines"), "two\\x0alines");
	CU_ASSERT_STRING_EQUAL(written_by(atag_csv_write_string, NULL), "");
}

/*
 * The arena: pieces come 8-byte aligned, never move, do not overlap, whatever
 * their sizes (a piece larger than the blocks, and one of no words); freed, it
 * is empty again and usable.
 */
static void test_arena(void)
{
	struct atag_arena a = { 0 };
	uint64_t *first, *p, *big, *none, *prev = NULL;
	unsigned int i, j, wrong = 0;

	none = atag_arena_alloc(&a, 0);
	CU_ASSERT_PTR_NOT_NULL(none);
	first = atag_arena_alloc(&a, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(first);
	first[0] = 0xfeed;
	first[2] = 0xbeef;
	big = atag_arena_alloc(&a, 1U << 19);		/* 4 MiB: past the largest block */
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	big[0] = 1;
	big[(1U << 19) - 1] = 2;
	for (i = 0; i < 100000; i++) {
		p = atag_arena_alloc(&a, 1 + i % 7);
		if (!p) {
			wrong++;
			break;
		}
		wrong += (uintptr_t)p % 8 != 0;
		for (j = 0; j < 1 + i % 7; j++)
			p[j] = i;
		/* the piece before is untouched by this one */
		wrong += prev && prev[0] != i - 1;
		prev = p;
	}
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT_EQUAL(first[0], 0xfeed);
	CU_ASSERT_EQUAL(first[2], 0xbeef);
	CU_ASSERT_EQUAL(big[0], 1);
	CU_ASSERT_EQUAL(big[(1U << 19) - 1], 2);
	CU_ASSERT(a.nr_blocks > 2);
	atag_arena_free(&a);
	CU_ASSERT_EQUAL(a.nr_blocks, 0);
	CU_ASSERT_PTR_NULL(a.block);
	p = atag_arena_alloc(&a, 1);
	CU_ASSERT_PTR_NOT_NULL(p);
	atag_arena_free(&a);
}

static void add_utils_suite(void)
{
	CU_pSuite s = CU_add_suite("utils", NULL, NULL);

	CU_add_test(s, "parse_u64", test_parse_u64);
	CU_add_test(s, "parse_size", test_parse_size);
	CU_add_test(s, "parse_duration", test_parse_duration);
	CU_add_test(s, "parse_timestamp", test_parse_timestamp);
	CU_add_test(s, "format_size", test_format_size);
	CU_add_test(s, "format_duration", test_format_duration);
	CU_add_test(s, "glob", test_glob);
	CU_add_test(s, "table_fit", test_table_fit);
	CU_add_test(s, "output buffer", test_outbuf);
	CU_add_test(s, "arena: pieces that never move", test_arena);
	CU_add_test(s, "26.6: text and CSV cells made safe to show", test_text_escape);
}
ATAG_UTEST_SUITE("utils", add_utils_suite);
