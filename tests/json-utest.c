// SPDX-License-Identifier: GPL-2.0
/*
 * The json suite: the writer of lib/util/atag-json.c. Escaping, control characters,
 * UTF-8 passed through or replaced (checked against GLib's validator too), nesting
 * and commas in both layouts, integers at the 64-bit limits, misuse, and the stat
 * JSON of names that are not UTF-8.
 */
#include <errno.h>
#include <glib.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-bufstat.h"
#include "atag-json.h"
#include "atag-utest.h"

/* The writer's output so far and its FILE. */
struct out {
	struct atag_json	w;
	FILE			*f;
	char			*buf;
	size_t			len;
};

static void out_open(struct out *o, unsigned int flags)
{
	o->buf = NULL;
	o->f = open_memstream(&o->buf, &o->len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o->f);
	atag_json_init(&o->w, o->f, flags);
}

/* Finish the document: its status; the text stays in o->buf (free it). */
static int out_close(struct out *o)
{
	int ret = atag_json_finish(&o->w), err = errno;

	fclose(o->f);
	errno = err;
	return ret;
}

/* @s written as the whole document; a malloc'ed string, without the final newline. */
static char *str_doc(const char *s, unsigned int flags)
{
	struct out o;

	out_open(&o, flags);
	atag_json_str(&o.w, NULL, s);
	CU_ASSERT_EQUAL(out_close(&o), 0);
	CU_ASSERT_FATAL(o.len > 0 && o.buf[o.len - 1] == '\n');
	o.buf[o.len - 1] = '\0';
	return o.buf;
}

#define ASSERT_STR_JSON(flags, in, want) do {					\
	char *got_ = str_doc(in, flags);					\
	CU_ASSERT_STRING_EQUAL(got_, want);					\
	free(got_);								\
} while (0)

static void test_escapes(void)
{
	ASSERT_STR_JSON(0, "", "\"\"");
	ASSERT_STR_JSON(0, "plain text", "\"plain text\"");
	ASSERT_STR_JSON(0, "a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	ASSERT_STR_JSON(0, "\"\\", "\"\\\"\\\\\"");
	ASSERT_STR_JSON(ATAG_JSON_ESCAPE_U, "a\"b\\c", "\"a\\\"b\\\\c\"");
	ASSERT_STR_JSON(ATAG_JSON_PRETTY, "x", "\n\"x\"");
}

static void test_control(void)
{
	ASSERT_STR_JSON(0, "a\nb\tc", "\"a\\nb\\tc\"");
	ASSERT_STR_JSON(0, "\x01\x1f\r\b\f\x1b", "\"\\u0001\\u001f\\u000d\\u0008\\u000c\\u001b\"");
	ASSERT_STR_JSON(ATAG_JSON_ESCAPE_U, "a\nb\tc\x01", "\"a\\u000ab\\u0009c\\u0001\"");
	/* DEL is no control character for JSON */
	ASSERT_STR_JSON(0, "\x7f", "\"\x7f\"");
	ASSERT_STR_JSON(0, " ~", "\" ~\"");
}

static void test_utf8_valid(void)
{
	static const char * const ok[] = {
		"\xc2\x80",			/* U+0080, the first of two bytes */
		"\xc3\xa9t\xc3\xa9",		/* été */
		"\xdf\xbf",			/* U+07FF */
		"\xe0\xa0\x80",			/* U+0800 */
		"\xe2\x82\xac",			/* € */
		"\xed\x9f\xbf",			/* U+D7FF, below the surrogates */
		"\xee\x80\x80",			/* U+E000, above them */
		"\xef\xbf\xbd\xef\xbf\xbf",	/* U+FFFD U+FFFF */
		"\xf0\x90\x80\x80",		/* U+10000 */
		"\xf0\x9f\x98\x80",		/* 😀 */
		"\xf4\x8f\xbf\xbf",		/* U+10FFFF, the last */
		"caf\xc3\xa9 \xe2\x82\xac\xf0\x9f\x98\x80!",
	};
	char want[64];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(want, sizeof(want), "\"%s\"", ok[i]);
		ASSERT_STR_JSON(0, ok[i], want);
		ASSERT_STR_JSON(ATAG_JSON_ESCAPE_U, ok[i], want);
	}
}

#define FFFD	"\\ufffd"

static void test_utf8_invalid(void)
{
	/* stray continuation bytes, bytes that start nothing */
	ASSERT_STR_JSON(0, "a\x80z", "\"a" FFFD "z\"");
	ASSERT_STR_JSON(0, "\xbf\x80", "\"" FFFD FFFD "\"");
	ASSERT_STR_JSON(0, "\xf5\xfe\xff", "\"" FFFD FFFD FFFD "\"");
	/* overlong forms */
	ASSERT_STR_JSON(0, "\xc0\xaf", "\"" FFFD FFFD "\"");
	ASSERT_STR_JSON(0, "\xc1\xbf", "\"" FFFD FFFD "\"");
	ASSERT_STR_JSON(0, "\xe0\x80\xaf", "\"" FFFD FFFD FFFD "\"");
	ASSERT_STR_JSON(0, "\xf0\x8f\xbf\xbf", "\"" FFFD FFFD FFFD FFFD "\"");
	/* surrogates, and above U+10FFFF */
	ASSERT_STR_JSON(0, "\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"");
	ASSERT_STR_JSON(0, "\xed\xbf\xbf", "\"" FFFD FFFD FFFD "\"");
	ASSERT_STR_JSON(0, "\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"");
	/* truncated sequences: at the end, before ASCII, before another sequence */
	ASSERT_STR_JSON(0, "fn\xc3", "\"fn" FFFD "\"");
	ASSERT_STR_JSON(0, "\xe2\x82", "\"" FFFD FFFD "\"");
	ASSERT_STR_JSON(0, "\xf0\x9f\x98", "\"" FFFD FFFD FFFD "\"");
	ASSERT_STR_JSON(0, "x\xe2\x82y", "\"x" FFFD FFFD "y\"");
	ASSERT_STR_JSON(0, "\xe2\x82\xc3\xa9", "\"" FFFD FFFD "\xc3\xa9\"");
	ASSERT_STR_JSON(0, "\xc3\n", "\"" FFFD "\\n\"");
	ASSERT_STR_JSON(0, "\xc3\"", "\"" FFFD "\\\"\"");
	/* ISO-8859-1, as a comm may be */
	ASSERT_STR_JSON(0, "c\xe9m", "\"c" FFFD "m\"");
	/* keys too */
	{
		struct out o;

		out_open(&o, 0);
		atag_json_open_object(&o.w, NULL);
		atag_json_uint(&o.w, "k\xff", 1);
		atag_json_close(&o.w);
		CU_ASSERT_EQUAL(out_close(&o), 0);
		CU_ASSERT_STRING_EQUAL(o.buf, "{\"k" FFFD "\":1}\n");
		free(o.buf);
	}
}

/*
 * Every string of up to four bytes drawn from the bytes where UTF-8's rules change:
 * the output is valid UTF-8 for GLib, valid input comes out as it went in, and
 * invalid input has a replacement.
 */
static void test_utf8_exhaustive(void)
{
	static const unsigned char bytes[] = {
		'a', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf,
		0xc1, 0xc2, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5,
	};
	const size_t nb = sizeof(bytes);
	unsigned long bad_out = 0, changed = 0, unreplaced = 0, tried = 0;
	size_t len, total, n, v, i;
	char in[5], want[8], *got;

	for (len = 1, total = nb; len <= 4; len++, total *= nb) {
		for (n = 0; n < total; n++, tried++) {
			for (i = 0, v = n; i < len; i++, v /= nb)
				in[i] = bytes[v % nb];
			in[len] = '\0';
			got = str_doc(in, 0);
			bad_out += !g_utf8_validate(got, -1, NULL);
			snprintf(want, sizeof(want), "\"%s\"", in);
			if (g_utf8_validate(in, -1, NULL))
				changed += strcmp(got, want) != 0;
			else
				unreplaced += !strstr(got, FFFD);
			free(got);
		}
	}
	CU_ASSERT_EQUAL(tried, 16 + 16 * 16 + 16 * 16 * 16 + 16 * 16 * 16 * 16);
	CU_ASSERT_EQUAL(bad_out, 0);
	CU_ASSERT_EQUAL(changed, 0);
	CU_ASSERT_EQUAL(unreplaced, 0);
}

static void test_nesting_compact(void)
{
	struct out o;

	out_open(&o, 0);
	atag_json_open_object(&o.w, NULL);
	atag_json_bool(&o.w, "t", true);
	atag_json_bool(&o.w, "f", false);
	atag_json_null(&o.w, "n");
	atag_json_open_array(&o.w, "a");
	atag_json_uint(&o.w, NULL, 1);
	atag_json_str(&o.w, NULL, NULL);
	atag_json_open_object(&o.w, NULL);
	atag_json_close(&o.w);
	atag_json_open_array(&o.w, NULL);
	atag_json_close(&o.w);
	atag_json_open_object(&o.w, NULL);
	atag_json_hex(&o.w, "p", 0xffff888000000100ULL);
	atag_json_close(&o.w);
	atag_json_close(&o.w);
	atag_json_break(&o.w);
	atag_json_open_array(&o.w, "rows");
	atag_json_break(&o.w);
	atag_json_int(&o.w, NULL, -1);
	atag_json_break(&o.w);
	atag_json_int(&o.w, NULL, 2);
	atag_json_close(&o.w);
	atag_json_close(&o.w);
	CU_ASSERT_EQUAL(out_close(&o), 0);
	CU_ASSERT_STRING_EQUAL(o.buf,
		"{\"t\":true,\"f\":false,\"n\":null,\"a\":[1,null,{},[],"
		"{\"p\":\"0xffff888000000100\"}],\n\"rows\":[\n-1,\n2]}\n");
	free(o.buf);
}

static void test_nesting_pretty(void)
{
	struct out o;

	out_open(&o, ATAG_JSON_PRETTY | ATAG_JSON_ESCAPE_U);
	atag_json_open_object(&o.w, NULL);
	atag_json_str(&o.w, "s", "a\tb");
	atag_json_open_array(&o.w, "empty");
	atag_json_close(&o.w);
	atag_json_break(&o.w);		/* nothing in this layout */
	atag_json_open_array(&o.w, "l");
	atag_json_uint(&o.w, NULL, 1);
	atag_json_open_object(&o.w, NULL);
	atag_json_fixed(&o.w, "pct", 50, 1);
	atag_json_fixed(&o.w, "nan", NAN, 1);
	atag_json_fixed(&o.w, "inf", -INFINITY, 1);
	atag_json_close(&o.w);
	atag_json_close(&o.w);
	atag_json_close(&o.w);
	CU_ASSERT_EQUAL(out_close(&o), 0);
	CU_ASSERT_STRING_EQUAL(o.buf,
		"\n{\n"
		"  \"s\": \"a\\u0009b\",\n"
		"  \"empty\": [],\n"
		"  \"l\": [\n"
		"    1,\n"
		"    {\n"
		"      \"pct\": 50.0,\n"
		"      \"nan\": null,\n"
		"      \"inf\": null\n"
		"    }\n"
		"  ]\n"
		"}\n");
	free(o.buf);
}

static void test_integers(void)
{
	struct out o;

	out_open(&o, 0);
	atag_json_open_array(&o.w, NULL);
	atag_json_uint(&o.w, NULL, 0);
	atag_json_uint(&o.w, NULL, ULLONG_MAX);
	atag_json_int(&o.w, NULL, LLONG_MIN);
	atag_json_int(&o.w, NULL, LLONG_MAX);
	atag_json_int(&o.w, NULL, 0);
	atag_json_hex(&o.w, NULL, 0);
	atag_json_hex(&o.w, NULL, ULLONG_MAX);
	atag_json_fixed(&o.w, NULL, 99.95, 2);
	atag_json_close(&o.w);
	CU_ASSERT_EQUAL(out_close(&o), 0);
	CU_ASSERT_STRING_EQUAL(o.buf,
		"[0,18446744073709551615,-9223372036854775808,9223372036854775807,0,"
		"\"0x0\",\"0xffffffffffffffff\",99.95]\n");
	free(o.buf);
}

/* Every digit count and both signs, against printf's %llu, %lld and 0x%llx. */
static void test_integers_printf(void)
{
	unsigned long long v = 1;
	char want[128], *got;
	struct out o;
	int i;

	for (i = 0; i < 64; i++, v = v * 3 + (unsigned long long)i) {
		out_open(&o, 0);
		atag_json_open_array(&o.w, NULL);
		atag_json_uint(&o.w, NULL, v);
		atag_json_int(&o.w, NULL, (long long)v);
		atag_json_int(&o.w, NULL, -(long long)(v >> 1));
		atag_json_hex(&o.w, NULL, v);
		atag_json_close(&o.w);
		CU_ASSERT_EQUAL(out_close(&o), 0);
		snprintf(want, sizeof(want), "[%llu,%lld,%lld,\"0x%llx\"]\n", v, (long long)v,
			 -(long long)(v >> 1), v);
		got = o.buf;
		CU_ASSERT_STRING_EQUAL(got, want);
		free(got);
	}
}

/* atag_json_write_strs() of @s as a string (free it). */
static char *strs_text(char * const *s, unsigned int n)
{
	char *buf = NULL;
	size_t len;
	FILE *f;

	f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	atag_json_write_strs(f, s, n);
	CU_ASSERT_EQUAL(fclose(f), 0);
	return buf;
}

/* A string array made once as text is written as atag_json_strs() writes it, in both layouts. */
static void test_strs_text(void)
{
	char *strs[] = { "f+0x1", "a \"quoted\" \\ one", NULL, "\xff\xfe", "" };
	unsigned int flags[] = { 0, ATAG_JSON_PRETTY }, k;
	struct out a, b;
	char *text;

	text = strs_text(strs, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(text, "[\"f+0x1\",\"a \\\"quoted\\\" \\\\ one\",null,"
			       "\"\\ufffd\\ufffd\",\"\"]");
	for (k = 0; k < 2; k++) {
		out_open(&a, flags[k]);
		out_open(&b, flags[k]);
		atag_json_open_object(&a.w, NULL);
		atag_json_open_object(&b.w, NULL);
		atag_json_uint(&a.w, "n", 1);
		atag_json_uint(&b.w, "n", 1);
		if (k) {	/* pretty: the text stays compact */
			atag_json_text(&a.w, "frames", text);
			atag_json_close(&a.w);
			CU_ASSERT_EQUAL(out_close(&a), 0);
			CU_ASSERT_PTR_NOT_NULL(strstr(a.buf, "\"frames\": [\"f+0x1\","));
			fclose(b.f);
			free(a.buf);
			free(b.buf);
			continue;
		}
		atag_json_text(&a.w, "frames", text);
		atag_json_strs(&b.w, "frames", strs, 5);
		atag_json_open_array(&a.w, "list");
		atag_json_open_array(&b.w, "list");
		atag_json_text(&a.w, NULL, text);
		atag_json_strs(&b.w, NULL, strs, 5);
		atag_json_text(&a.w, NULL, text);
		atag_json_strs(&b.w, NULL, strs, 5);
		atag_json_close(&a.w);
		atag_json_close(&b.w);
		atag_json_close(&a.w);
		atag_json_close(&b.w);
		CU_ASSERT_EQUAL(out_close(&a), 0);
		CU_ASSERT_EQUAL(out_close(&b), 0);
		CU_ASSERT_STRING_EQUAL(a.buf, b.buf);
		free(a.buf);
		free(b.buf);
	}
	free(text);
	text = strs_text(NULL, 0);
	CU_ASSERT_STRING_EQUAL(text, "[]");
	free(text);
}

static void test_misuse(void)
{
	struct out o;
	int i;

	out_open(&o, 0);			/* nothing written */
	CU_ASSERT_EQUAL(out_close(&o), -EINVAL);
	CU_ASSERT_EQUAL(errno, EINVAL);
	free(o.buf);

	out_open(&o, 0);			/* a member without a key */
	atag_json_open_object(&o.w, NULL);
	atag_json_uint(&o.w, NULL, 1);
	atag_json_close(&o.w);
	CU_ASSERT_EQUAL(out_close(&o), -EINVAL);
	free(o.buf);

	out_open(&o, 0);			/* an element with a key */
	atag_json_open_array(&o.w, NULL);
	atag_json_uint(&o.w, "k", 1);
	atag_json_close(&o.w);
	CU_ASSERT_EQUAL(out_close(&o), -EINVAL);
	free(o.buf);

	out_open(&o, 0);			/* left open */
	atag_json_open_array(&o.w, NULL);
	CU_ASSERT_EQUAL(out_close(&o), -EINVAL);
	free(o.buf);

	out_open(&o, 0);			/* closed once too often */
	atag_json_open_array(&o.w, NULL);
	atag_json_close(&o.w);
	atag_json_close(&o.w);
	CU_ASSERT_EQUAL(out_close(&o), -EINVAL);
	CU_ASSERT_STRING_EQUAL(o.buf, "[]\n");
	free(o.buf);

	out_open(&o, 0);			/* two documents */
	atag_json_uint(&o.w, NULL, 1);
	atag_json_uint(&o.w, NULL, 2);
	CU_ASSERT_EQUAL(out_close(&o), -EINVAL);
	free(o.buf);

	out_open(&o, 0);			/* too deep: refused, no overflow */
	for (i = 0; i < ATAG_JSON_MAX_DEPTH + 5; i++)
		atag_json_open_array(&o.w, NULL);
	CU_ASSERT_EQUAL(o.w.depth, ATAG_JSON_MAX_DEPTH);
	for (i = 0; i < ATAG_JSON_MAX_DEPTH; i++)
		atag_json_close(&o.w);
	CU_ASSERT_EQUAL(out_close(&o), -EINVAL);
	free(o.buf);
}

static void test_write_error(void)
{
	struct atag_json w;
	FILE *f = fopen("/dev/null", "r");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	atag_json_init(&w, f, 0);
	atag_json_uint(&w, NULL, 1);
	CU_ASSERT_EQUAL(atag_json_finish(&w), -EIO);
	CU_ASSERT_EQUAL(errno, EIO);
	fclose(f);
}

/* stat's JSON of a tree whose names are not UTF-8: the layout, and \ufffd for them */
static void test_bufstat_json(void)
{
	struct atag_bufstat_instance in = {
		.name = "i\xff\xc3\xa9", .size = { .kb = 7, .expanded_kb = ATAG_BUFSTAT_UNKNOWN },
		.total = { .kb = ATAG_BUFSTAT_UNKNOWN }, .subbuf_kb = 4, .tracing_on = -1,
		.snapshot = ATAG_SNAPSHOT_FREED, .buffer_bytes = 12288, .snapshot_bytes = 12288,
	};
	struct atag_bufstat bs = {
		.tracefs = "/t\xe2\x82", .page_size = 4096, .page_hdr = 16, .filtered = true,
		.nr_instances = 1, .instances = &in,
	};
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(atag_bufstat_render_json(&bs, f), 0);
	fclose(f);
	CU_ASSERT_TRUE(g_utf8_validate(buf, len, NULL));
	CU_ASSERT_STRING_EQUAL(buf,
		"\n{\n"
		"  \"tracefs\": \"/t" FFFD FFFD "\",\n"
		"  \"page_size_kb\": 4,\n"
		"  \"subbuf_header_bytes\": 16,\n"
		"  \"instances\": [\n"
		"    {\n"
		"      \"name\": \"i" FFFD "\xc3\xa9\",\n"
		"      \"top\": false,\n"
		"      \"buffer_size_kb\": 7,\n"
		"      \"expanded_kb\": null,\n"
		"      \"sizes_differ\": false,\n"
		"      \"buffer_total_size_kb\": null,\n"
		"      \"subbuf_size_kb\": 4,\n"
		"      \"tracing_on\": null,\n"
		"      \"persistent\": false,\n"
		"      \"last_boot_info\": null,\n"
		"      \"backup_of\": null,\n"
		"      \"memory_kind\": \"system\",\n"
		"      \"memory_kb\": 12,\n"
		"      \"snapshot\": {\n"
		"        \"state\": \"freed\",\n"
		"        \"size_kb\": 12\n"
		"      },\n"
		"      \"cpus\": []\n"
		"    }\n"
		"  ],\n"
		"  \"notes\": [\n"
		"    \"buffer_total_size_kb: not on this kernel; totals are summed from "
		"per_cpu/cpuN/buffer_size_kb\"\n"
		"  ]\n"
		"}\n");
	free(buf);
}

/* One string without a writer: the same rules, and NULL is null. */
static void test_write_string(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	atag_json_write_string(f, "a\"b\\c\n\xff\xe2\x82\xac");
	fputc(' ', f);
	atag_json_write_string(f, NULL);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "\"a\\\"b\\\\c\\n\\ufffd\xe2\x82\xac\" null");
	free(buf);
}

static void add_tests(void)
{
	CU_pSuite s = CU_add_suite("json", NULL, NULL);

	CU_add_test(s, "escapes", test_escapes);
	CU_add_test(s, "control characters", test_control);
	CU_add_test(s, "valid UTF-8 passes", test_utf8_valid);
	CU_add_test(s, "invalid UTF-8 becomes U+FFFD", test_utf8_invalid);
	CU_add_test(s, "UTF-8, every short string of edge bytes", test_utf8_exhaustive);
	CU_add_test(s, "nesting and commas, compact", test_nesting_compact);
	CU_add_test(s, "nesting and commas, pretty", test_nesting_pretty);
	CU_add_test(s, "integers at the 64-bit limits", test_integers);
	CU_add_test(s, "integers against printf", test_integers_printf);
	CU_add_test(s, "string arrays made once as text", test_strs_text);
	CU_add_test(s, "misuse", test_misuse);
	CU_add_test(s, "write error", test_write_error);
	CU_add_test(s, "one string without a writer", test_write_string);
	CU_add_test(s, "stat JSON of names that are not UTF-8", test_bufstat_json);
}

ATAG_UTEST_SUITE("json", add_tests)
