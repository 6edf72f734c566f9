// SPDX-License-Identifier: GPL-2.0
/*
 * The __print_flags() tables read from event formats (lib/read/atag-print-flags.c):
 * values computed by hand from include/linux/gfp_types.h's bit numbers, names in
 * the order libtraceevent prints them (checked against stock trace-cmd on a real
 * recording by tests/t-record-kmem.sh), and malformed tables refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-utest.h"
#include "atag-print-flags.h"

/*
 * The shape of kmem:mm_page_alloc's format on 6.18: casts, shifts of 1UL, | and &~,
 * a ternary around the table, a { 0, NULL } end mark. Bits: __GFP_IO 6, __GFP_FS 7,
 * __GFP_DIRECT_RECLAIM 10, __GFP_KSWAPD_RECLAIM 11, __GFP_ZERO 8 (this table's own
 * choice), __GFP_COMP 18.
 */
static const char gfp_fmt[] =
	"name: mm_page_alloc\n"
	"ID: 321\n"
	"format:\n"
	"\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags_shadow;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"gfp_flags=%s\", (REC->gfp_flags) ? __print_flags(REC->gfp_flags, \"|\", "
	"{( unsigned long)(((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | "
	"(( gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))))), \"GFP_KERNEL\"}, "
	"{( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) & "
	"~(( gfp_t)((((1UL))) << (10)))), \"GFP_NOWAIT\"}, "
	"{( unsigned long)(( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))), \"__GFP_RECLAIM\"}, "
	"{( unsigned long)(( gfp_t)((((1UL))) << (8))), \"__GFP_ZERO\"}, "
	"{( unsigned long)(( gfp_t)((((1UL))) << (18))), \"__GFP_COMP\"}, "
	"{ 0, ((void *)0) } ) : \"none\"\n";

static void test_gfp_table(void)
{
	struct atag_flag_names fn;
	char buf[128];

	CU_ASSERT_EQUAL_FATAL(atag_print_flags_parse(gfp_fmt, sizeof(gfp_fmt), "gfp_flags", &fn), 0);
	CU_ASSERT_EQUAL(fn.nr, 5);
	CU_ASSERT_STRING_EQUAL(fn.delim, "|");
	CU_ASSERT_EQUAL(fn.v[0].value, 0xcc0);		/* 0x400|0x800|0x40|0x80 */
	CU_ASSERT_STRING_EQUAL(fn.v[0].name, "GFP_KERNEL");
	CU_ASSERT_EQUAL(fn.v[1].value, 0x800);
	CU_ASSERT_EQUAL(fn.v[2].value, 0xc00);
	CU_ASSERT_EQUAL(fn.v[3].value, 0x100);
	CU_ASSERT_EQUAL(fn.v[4].value, 0x40000);
	/* each name whose bits are all left, in order; then the rest as a number */
	CU_ASSERT_STRING_EQUAL(atag_print_flags_format(&fn, 0xcc0 | 0x100 | 0x40000, buf,
						       sizeof(buf)),
			       "GFP_KERNEL|__GFP_ZERO|__GFP_COMP");
	CU_ASSERT_STRING_EQUAL(atag_print_flags_format(&fn, 0x800 | 0x1, buf, sizeof(buf)),
			       "GFP_NOWAIT|0x1");
	CU_ASSERT_STRING_EQUAL(atag_print_flags_format(&fn, 0x2, buf, sizeof(buf)), "0x2");
	CU_ASSERT_STRING_EQUAL(atag_print_flags_format(&fn, 0, buf, sizeof(buf)), "0x0");
	/* cut to the buffer, never past it */
	memset(buf, 'x', sizeof(buf));
	atag_print_flags_format(&fn, 0xcc0 | 0x100 | 0x40000, buf, 8);
	CU_ASSERT_EQUAL(strlen(buf), 7);
	atag_print_flags_free(&fn);
	CU_ASSERT_EQUAL(fn.nr, 0);
	/* no table: a number */
	CU_ASSERT_STRING_EQUAL(atag_print_flags_format(NULL, 0x40, buf, sizeof(buf)), "0x40");
}

/* A field whose name starts with the one asked for is another field. */
static void test_other_fields(void)
{
	static const char fmt[] =
		"name: x\nprint fmt: \"%s\", __print_flags(REC->gfp_flags_shadow, \"|\", "
		"{ 1, \"A\" })\n";
	struct atag_flag_names fn;

	CU_ASSERT_EQUAL(atag_print_flags_parse(fmt, sizeof(fmt), "gfp_flags", &fn), -ENOENT);
	CU_ASSERT_EQUAL(atag_print_flags_parse(fmt, sizeof(fmt), "gfp_flags_shadow", &fn), 0);
	CU_ASSERT_EQUAL(fn.nr, 1);
	atag_print_flags_free(&fn);
	CU_ASSERT_EQUAL(atag_print_flags_parse("name: x\n", 8, "gfp_flags", &fn), -ENOENT);
}

/* What this parser does not read is refused, the table left empty. */
static void test_malformed(void)
{
	static const char *const bad[] = {
		"{ (1 << 2, \"A\" })",			/* unbalanced */
		"{ 1 + 2, \"A\" })",			/* an operator it does not know */
		"{ SOME_ENUM, \"A\" })",		/* a name */
		"{ 1, \"A\" }",				/* no ')' */
		"{ 1, A })",				/* a name not quoted */
		"{ 1, \"A\\\"B\" })",			/* an escape */
		"{ 0x1zz, \"A\" })",			/* a bad literal */
		"{ 1, \"A\x1b[31m\" })",		/* a name that is no identifier */
		"{ 1, \"\" })",				/* an empty name */
		"{ 1, \"A\" } { 2, \"B\" })",		/* no ',' */
		")",					/* no entry */
	};
	char fmt[4096], deep[2048];
	struct atag_flag_names fn;
	size_t i;
	int n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = snprintf(fmt, sizeof(fmt),
			     "name: x\nprint fmt: \"%%s\", __print_flags(REC->f, \"|\", %s\n",
			     bad[i]);
		CU_ASSERT_EQUAL(atag_print_flags_parse(fmt, n, "f", &fn), -EINVAL);
		CU_ASSERT_EQUAL(fn.nr, 0);
		CU_ASSERT_PTR_NULL(fn.v);
	}
	/* nesting past the parser's depth: refused, not a stack overflow */
	memset(deep, '(', 1000);
	deep[1000] = '1';
	memset(deep + 1001, ')', 1000);
	deep[2001] = '\0';
	n = snprintf(fmt, sizeof(fmt),
		     "name: x\nprint fmt: \"%%s\", __print_flags(REC->f, \"|\", { %s, \"A\" })\n",
		     deep);
	CU_ASSERT_EQUAL(atag_print_flags_parse(fmt, n, "f", &fn), -EINVAL);
	/* cut short anywhere: never read past the length given */
	n = strlen(gfp_fmt);
	for (i = 0; i < (size_t)n; i += 7) {
		char *copy = malloc(i ? i : 1);

		memcpy(copy, gfp_fmt, i);
		if (!atag_print_flags_parse(copy, i, "gfp_flags", &fn))
			atag_print_flags_free(&fn);
		free(copy);
	}
}

static void add_print_flags_suite(void)
{
	CU_pSuite s = CU_add_suite("print-flags", NULL, NULL);

	CU_add_test(s, "a GFP table: values by hand, names as printed", test_gfp_table);
	CU_add_test(s, "the field asked for, not one it prefixes", test_other_fields);
	CU_add_test(s, "malformed tables refused", test_malformed);
}
ATAG_UTEST_SUITE("print-flags", add_print_flags_suite);
