// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/read/atag-symbols.c: which module a symbol belongs to, read from a
 * kallsyms text that need not end in a NUL (as a trace.dat section gives it), and
 * the frame strings built from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "atag-utest.h"
#include "atag-stack-ids.h"
#include "atag-symbols.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T core_fn\n"
	"ffffffff81002000 T other_fn\n"
	"ffffffffc0001000 t foo_alloc\t[foo]\n"
	"ffffffffc0002000 t foo_ioctl\t[foo]\n"
	"ffffffffc0010000 t bar_open\t[bar]\n"
	"ffffffffc0020000 t broken\t[]\n"
	"ffffffffc0030000 t last_fn\t[last]";	/* no newline at the end */

/* what the module map must skip, before the text above */
static const char junk[] = "garbage line [x]\nffffffffc0040000 t unclosed\t[nope\n";

struct sym_fixture {
	struct tep_handle	*tep;
	struct atag_modules	*mods;
};

static void setup(struct sym_fixture *f)
{
	size_t lj = strlen(junk), len = lj + strlen(kallsyms);
	char tep_text[sizeof(kallsyms) + 64];
	char *copy = malloc(len);	/* exactly the text: no NUL after it */

	f->tep = tep_alloc();
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->tep);
	/* libtraceevent places no address after its last symbol: end with one more */
	snprintf(tep_text, sizeof(tep_text), "%s\nffffffffc0031000 t end_fn\t[last]\n", kallsyms);
	CU_ASSERT_EQUAL(tep_parse_kallsyms(f->tep, tep_text), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	memcpy(copy, junk, lj);
	memcpy(copy + lj, kallsyms, len - lj);
	f->mods = atag_modules_parse(copy, len);
	free(copy);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->mods);
}

static void teardown(struct sym_fixture *f)
{
	atag_modules_free(f->mods);
	tep_free(f->tep);
}

static void test_function_of(void)
{
	struct sym_fixture f;
	const char *fn, *mod = "unset";
	uint64_t off = 0;

	setup(&f);
	fn = atag_function_of(f.tep, f.mods, 0xffffffffc0001010ULL, &off, &mod);
	CU_ASSERT_STRING_EQUAL(fn ? fn : "", "foo_alloc");
	CU_ASSERT_EQUAL(off, 0x10);
	CU_ASSERT_STRING_EQUAL(mod ? mod : "(null)", "foo");

	fn = atag_function_of(f.tep, f.mods, 0xffffffff81001044ULL, &off, &mod);
	CU_ASSERT_STRING_EQUAL(fn ? fn : "", "core_fn");
	CU_ASSERT_EQUAL(off, 0x44);
	CU_ASSERT_PTR_NULL(mod);

	/* the last line has no newline, and the text no NUL: still read */
	fn = atag_function_of(f.tep, f.mods, 0xffffffffc0030008ULL, &off, &mod);
	CU_ASSERT_STRING_EQUAL(fn ? fn : "", "last_fn");
	CU_ASSERT_STRING_EQUAL(mod ? mod : "(null)", "last");

	/* an empty [] names no module */
	atag_function_of(f.tep, f.mods, 0xffffffffc0020000ULL, &off, &mod);
	CU_ASSERT_PTR_NULL(mod);

	/* without the module map: no module, the function still */
	fn = atag_function_of(f.tep, NULL, 0xffffffffc0001010ULL, &off, &mod);
	CU_ASSERT_STRING_EQUAL(fn ? fn : "", "foo_alloc");
	CU_ASSERT_PTR_NULL(mod);
	teardown(&f);
}

static void test_symbolize(void)
{
	struct sym_fixture f;
	char buf[128];

	setup(&f);
	CU_ASSERT_STRING_EQUAL(atag_symbolize(f.tep, f.mods, 0xffffffffc0002030ULL, buf,
					      sizeof(buf)), "foo_ioctl+0x30 [foo]");
	CU_ASSERT_STRING_EQUAL(atag_symbolize(f.tep, f.mods, 0xffffffff81002000ULL, buf,
					      sizeof(buf)), "other_fn+0x0");
	CU_ASSERT_STRING_EQUAL(atag_symbolize(f.tep, f.mods, 0x1234, buf, sizeof(buf)),
			       "0x1234");
	teardown(&f);
}

static void test_empty_text(void)
{
	struct atag_modules *m = atag_modules_parse("", 0);

	CU_ASSERT_PTR_NOT_NULL(m);
	atag_modules_free(m);
}

/*
 * Lines of another shape than "ADDR TYPE NAME" are counted (report names the damage);
 * empty lines, absolute symbols and '$' names are not damage.
 */
static void test_malformed_lines(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"\n"
		"   \n"
		"ffffffff81001000\n"			/* no type */
		"ffffffff81002000 T\n"			/* no name */
		"T cut_before_its_address\n"		/* no address */
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81003000 t $x\n"
		"ffffffff81004000 T last_fn\n";
	struct atag_modules *m = atag_modules_parse(text, sizeof(text) - 1);

	CU_ASSERT_EQUAL(atag_modules_count(m), 2);
	CU_ASSERT_EQUAL(atag_modules_malformed(m), 3);
	atag_modules_free(m);
	m = atag_modules_parse(kallsyms, sizeof(kallsyms) - 1);
	CU_ASSERT_EQUAL(atag_modules_malformed(m), 0);
	atag_modules_free(m);
}

/*
 * The table answers as libtraceevent's own does (tep_parse_kallsyms()): the
 * same name and start for every address, symbols sharing an address, absolute
 * and '$' symbols left out, nothing past the last symbol.
 */
static void test_same_as_libtraceevent(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81001000 T first_dup\n"
		"ffffffff81001000 t second_dup\n"
		"ffffffff81001000 W third_dup\n"
		"ffffffff81002000 A abs_sym\n"
		"ffffffff81002000 T after_abs\n"
		"ffffffff81003000 t $x.1\n"
		"ffffffff81003800 t plain\n"
		"ffffffff81004000 t mod_fn\t[mymod]\n"
		"ffffffff81004000 t mod_dup\t[other]\n"
		"ffffffff81005000 T _etext\n";
	static const uint64_t probes[] = {
		0, 0xffffffff80ffffffULL, 0xffffffff81000000ULL, 0xffffffff81000010ULL,
		0xffffffff81001000ULL, 0xffffffff81001001ULL, 0xffffffff81002000ULL,
		0xffffffff81002fffULL, 0xffffffff81003000ULL, 0xffffffff81003004ULL,
		0xffffffff81003800ULL, 0xffffffff81004000ULL, 0xffffffff81004100ULL,
		0xffffffff81005000ULL, 0xffffffff81005001ULL, ~0ULL,
	};
	struct tep_handle *ref = tep_alloc(), *ours = tep_alloc();
	struct atag_modules *m = atag_modules_parse(text, sizeof(text) - 1);
	const char *a, *b;
	size_t i;

	CU_ASSERT_FATAL(ref && ours && m);
	CU_ASSERT_EQUAL_FATAL(tep_parse_kallsyms(ref, text), 0);
	CU_ASSERT_EQUAL_FATAL(atag_modules_attach(m, ours), 0);
	CU_ASSERT_EQUAL(atag_modules_count(m), 9);
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		a = tep_find_function(ref, probes[i]);
		b = tep_find_function(ours, probes[i]);
		CU_ASSERT_STRING_EQUAL(b ? b : "(none)", a ? a : "(none)");
		CU_ASSERT_EQUAL(tep_find_function_address(ours, probes[i]),
				tep_find_function_address(ref, probes[i]));
	}
	tep_free(ref);
	tep_free(ours);
	atag_modules_free(m);
}

/*
 * A NUL inside the text ends it, as libtraceevent reads it: nothing read past
 * it, no module made of the bytes around it.
 */
static void test_nul_in_module_name(void)
{
	static const char text[] =
		"ffffffffc0001000 t foo_alloc\t[fo\0o]\n"
		"ffffffffc0002000 t foo_free\t[fo\0o]\n"
		"ffffffffc0003000 t foo_end\t[fo\0o]\n";
	struct atag_modules *m = atag_modules_parse(text, sizeof(text) - 1);
	struct tep_handle *tep = tep_alloc();
	const char *fn, *mod = "unset";
	uint64_t off;

	CU_ASSERT_FATAL(m && tep);
	CU_ASSERT_EQUAL(atag_modules_count(m), 1);
	CU_ASSERT_EQUAL_FATAL(atag_modules_attach(m, tep), 0);
	fn = atag_function_of(tep, m, 0xffffffffc0001000ULL, &off, &mod);
	CU_ASSERT_STRING_EQUAL(fn ? fn : "", "foo_alloc");
	CU_ASSERT_PTR_NULL(mod);
	CU_ASSERT_PTR_NULL(atag_function_of(tep, m, 0xffffffffc0002000ULL, &off, &mod));
	tep_free(tep);
	atag_modules_free(m);
}

/*
 * The stacks a stacktrace trigger on alloc_tag_hit records on a kernel with the
 * series (shared/seeds/001: the hit fires from the out-of-line
 * __alloc_tag_trace_hit()), and with trace-cmd record -T: both start at the
 * allocating function once the machinery is dropped.
 */
static void test_seed_hook_frames(void)
{
	static const char text[] =
		"ffffffff81000000 T __ftrace_trace_stack\n"
		"ffffffff81000100 T trace_buffer_unlock_commit_regs\n"
		"ffffffff81000200 T trace_event_buffer_commit\n"
		"ffffffff81000300 T trace_event_raw_event_alloc_tag_hit\n"
		"ffffffff81000400 T __alloc_tag_trace_hit\n"
		"ffffffff81000500 T alloc_tag_trace_mem_alloc\n"
		"ffffffff81000600 T alloc_tag_trace_mem_free\n"
		"ffffffff81001000 T dup_task_struct\n"
		"ffffffff81002000 T copy_process\n"
		"ffffffff81010000 T _etext\n";
	const uint64_t trigger[] = {
		0xffffffff81000310, 0xffffffff81000420, 0xffffffff81001030, 0xffffffff81002040,
	};
	const uint64_t dash_t[] = {
		0xffffffff81000010, 0xffffffff81000110, 0xffffffff81000210, 0xffffffff81000310,
		0xffffffff81000420, 0xffffffff81001030, 0xffffffff81002040,
	};
	struct atag_frame_cache *fc;
	struct tep_handle *tep;
	char *copy = strdup(text);

	CU_ASSERT(atag_frame_is_tracing("__alloc_tag_trace_hit"));
	CU_ASSERT(atag_frame_is_tracing("alloc_tag_trace_mem_alloc"));
	CU_ASSERT(atag_frame_is_tracing("alloc_tag_trace_mem_free"));
	CU_ASSERT(!atag_frame_is_tracing("dup_task_struct"));
	tep = tep_alloc();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tep);
	CU_ASSERT_EQUAL(tep_parse_kallsyms(tep, copy), 0);
	fc = atag_frame_cache_alloc(tep);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fc);
	CU_ASSERT_EQUAL(atag_stack_skip(fc, trigger, 4), 2);
	CU_ASSERT_EQUAL(atag_stack_skip(fc, dash_t, 7), 5);
	atag_frame_cache_free(fc);
	tep_free(tep);
	free(copy);
}

/* The id atag_stack_ids_find() gives the @nr frames at @raw, or 0. */
static uint32_t id_of(struct atag_stack_ids *t, const void *raw, unsigned int nr, bool *created)
{
	struct atag_stack_entry *e = atag_stack_ids_find(t, raw, nr, created);

	return e ? e->id : 0;
}

/*
 * Stack ids: numbered 1, 2, 3, ... on first sight, equal frames only share one
 * (whatever their alignment in the record), their entry keeps aligned copies of
 * them and what the decoder learned, and stays where it is while the table grows
 * (the stitcher points to its frames: struct atag_kstack.kept).
 */
static void test_stack_ids(void)
{
	uint64_t a[4] = { 0xffffffff81000010, 0xffffffff81000020, 0xffffffff81000030, 7 };
	uint64_t b[4] = { 0xffffffff81000010, 0xffffffff81000020, 0xffffffff81000031, 7 };
	struct atag_stack_ids *t = atag_stack_ids_alloc();
	uint8_t unaligned[8 * 4 + 4];
	struct atag_stack_entry *e, *first, *big;
	unsigned int i, j, wrong = 0;
	uint64_t many[6], *huge;
	bool created;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	/* an empty stack first: its frames are a pointer of the table's (found by fuzzing) */
	e = atag_stack_ids_find(t, a, 0, &created);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->id, 1);
	CU_ASSERT_PTR_NOT_NULL(e->frames);
	CU_ASSERT_EQUAL(e->nr, 0);
	atag_stack_ids_free(t);
	t = atag_stack_ids_alloc();
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(id_of(t, a, 4, &created), 1);
	CU_ASSERT(created);
	CU_ASSERT_EQUAL(id_of(t, b, 4, &created), 2);	/* one frame differs */
	CU_ASSERT(created);
	CU_ASSERT_EQUAL(id_of(t, a, 3, &created), 3);	/* a prefix */
	CU_ASSERT_EQUAL(id_of(t, a, 0, &created), 4);	/* the empty stack */
	CU_ASSERT_EQUAL(id_of(t, a, 0, &created), 4);
	CU_ASSERT(!created);
	memcpy(unaligned + 4, a, sizeof(a));
	e = atag_stack_ids_find(t, unaligned + 4, 4, &created);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->id, 1);
	CU_ASSERT(!created);
	CU_ASSERT_EQUAL(e->info.type, -1);
	CU_ASSERT(!e->info.site_known);
	e->info.type = 12;
	e->info.site = 0xffffffff81000020;
	e->info.site_known = true;
	first = e;
	/* a stack larger than the blocks the table starts with */
	huge = calloc(3000, sizeof(*huge));
	CU_ASSERT_PTR_NOT_NULL_FATAL(huge);
	for (i = 0; i < 3000; i++)
		huge[i] = 0xffffffff82000000 + i;
	big = atag_stack_ids_find(t, huge, 3000, &created);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	CU_ASSERT_EQUAL(big->id, 5);
	e = atag_stack_ids_find(t, b, 4, &created);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->nr, 4);
	CU_ASSERT_EQUAL(memcmp(e->frames, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(e->info.type, -1);
	/* many stacks that differ in one frame of six: each its own id, found again */
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < 6; j++)
			many[j] = 0xffffffff81000000 + j * 16 + (j == i % 6 ? (uint64_t)i << 8 : 0);
		wrong += id_of(t, many, 6, &created) != 6 + i || !created;
	}
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < 6; j++)
			many[j] = 0xffffffff81000000 + j * 16 + (j == i % 6 ? (uint64_t)i << 8 : 0);
		wrong += id_of(t, many, 6, &created) != 6 + i || created;
	}
	CU_ASSERT_EQUAL(wrong, 0);
	/* what the decoder learned of the first stays, where it was, through the growth */
	e = atag_stack_ids_find(t, a, 4, &created);
	CU_ASSERT_PTR_EQUAL_FATAL(e, first);
	CU_ASSERT_PTR_EQUAL(atag_stack_ids_find(t, huge, 3000, &created), big);
	CU_ASSERT_EQUAL(big->nr, 3000);
	CU_ASSERT_EQUAL(memcmp(big->frames, huge, 3000 * sizeof(*huge)), 0);
	free(huge);
	CU_ASSERT_EQUAL(e->info.type, 12);
	CU_ASSERT_EQUAL(e->info.site, 0xffffffff81000020);
	CU_ASSERT(e->info.site_known);
	CU_ASSERT_EQUAL(memcmp(e->frames, a, sizeof(a)), 0);
	atag_stack_ids_free(t);
}

/*
 * The look-ahead: nothing to name while the table is small (its 1 MiB); past it,
 * any CPU index a file may give is taken or refused without harm, stacks named
 * and entered whether the table knows them or not, and the ids stay as they were.
 */
static void test_stack_ids_ahead(void)
{
	struct atag_stack_ids *t = atag_stack_ids_alloc();
	unsigned int i, wrong = 0;
	uint64_t f[14];
	bool created;
	int k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT(!atag_stack_ids_ahead_page(t, 0));
	atag_stack_ids_ahead(t, 0, f, 0);		/* before any page: ignored */
	for (i = 0; i < 1000; i++) {
		for (k = 0; k < 14; k++)
			f[k] = 0xffffffff81000000 + k * 64 + i;
		id_of(t, f, 14, &created);
	}
	CU_ASSERT(!atag_stack_ids_ahead_page(t, 0));	/* 136 KiB of entries */
	for (; i < 10000; i++) {
		for (k = 0; k < 14; k++)
			f[k] = 0xffffffff81000000 + k * 64 + i;
		id_of(t, f, 14, &created);
	}
	CU_ASSERT(atag_stack_ids_ahead_page(t, 0));
	CU_ASSERT(atag_stack_ids_ahead_page(t, 4095));
	CU_ASSERT(!atag_stack_ids_ahead_page(t, 4096));
	CU_ASSERT(!atag_stack_ids_ahead_page(t, -1));
	atag_stack_ids_ahead(t, -1, f, 14);
	atag_stack_ids_ahead(t, 4096, f, 14);
	/* more stacks on a page than it keeps, known ones and unknown ones */
	for (i = 0; i < 200; i++) {
		for (k = 0; k < 14; k++)
			f[k] = 0xffffffff81000000 + k * 64 + i * 7;
		atag_stack_ids_ahead(t, 7, f, i % 2 ? 14 : 3);
	}
	CU_ASSERT(atag_stack_ids_ahead_page(t, 7));
	CU_ASSERT(atag_stack_ids_ahead_page(t, 7));	/* nothing named since */
	for (i = 0; i < 10000; i++) {
		for (k = 0; k < 14; k++)
			f[k] = 0xffffffff81000000 + k * 64 + i;
		wrong += id_of(t, f, 14, &created) != i + 1 || created;
	}
	CU_ASSERT_EQUAL(wrong, 0);
	atag_stack_ids_free(t);
}

/* The frames of generated stack @i (14 of them). */
static void frames_of(uint64_t *f, unsigned int i)
{
	int k;

	for (k = 0; k < 14; k++)
		f[k] = 0xffffffff81000000 + k * 64 + i;
}

/* The id atag_stack_ids_find_on() gives stack @i on @cpu, or 0. */
static uint32_t id_on(struct atag_stack_ids *t, int cpu, unsigned int i, bool *created)
{
	struct atag_stack_entry *e;
	uint64_t f[14];

	frames_of(f, i);
	e = atag_stack_ids_find_on(t, cpu, f, 14, created);
	return e ? e->id : 0;
}

/*
 * A stack record met on the page the look-ahead entered gets the entry found
 * then, in the order its records were named; frames that are not that entry's
 * (an order changed, a stack not known then, more records than were named, a CPU
 * the look-ahead does not keep) are looked up: the same ids either way.
 */
static void test_stack_ids_on_page(void)
{
	static const unsigned int named[] = { 5, 6, 20000, 5, 9 };
	struct atag_stack_ids *t = atag_stack_ids_alloc();
	unsigned int i, wrong = 0;
	uint64_t f[14];
	bool created;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (i = 0; i < 10000; i++) {		/* ids i + 1, past the look-ahead's 1 MiB */
		frames_of(f, i);
		id_of(t, f, 14, &created);
	}
	for (i = 0; i < 5; i++) {
		frames_of(f, named[i]);
		atag_stack_ids_ahead(t, 3, f, 14);
	}
	CU_ASSERT_FATAL(atag_stack_ids_ahead_page(t, 3));
	CU_ASSERT_EQUAL(id_on(t, 3, 5, &created), 6);
	CU_ASSERT(!created);
	CU_ASSERT_EQUAL(id_on(t, 3, 6, &created), 7);
	CU_ASSERT_EQUAL(id_on(t, 3, 20000, &created), 10001);	/* not known then: made now */
	CU_ASSERT(created);
	CU_ASSERT_EQUAL(id_on(t, 3, 5, &created), 6);
	CU_ASSERT(!created);
	CU_ASSERT_EQUAL(id_on(t, 3, 9, &created), 10);
	CU_ASSERT_EQUAL(id_on(t, 3, 9, &created), 10);		/* past those named */
	/* the records met in another order than named: each still its own id */
	for (i = 0; i < 5; i++) {
		frames_of(f, named[i]);
		atag_stack_ids_ahead(t, 3, f, 14);
	}
	CU_ASSERT(atag_stack_ids_ahead_page(t, 3));
	for (i = 5; i-- > 0;)
		wrong += id_on(t, 3, named[i], &created) != (named[i] == 20000 ? 10001 : named[i] + 1);
	CU_ASSERT_EQUAL(wrong, 0);
	/* a CPU without a page entered, or out of the look-ahead's range */
	CU_ASSERT_EQUAL(id_on(t, 2, 6, &created), 7);
	CU_ASSERT_EQUAL(id_on(t, -1, 6, &created), 7);
	CU_ASSERT_EQUAL(id_on(t, 5000, 7, &created), 8);
	CU_ASSERT_EQUAL(id_on(t, 5000, 30000, &created), 10002);
	CU_ASSERT(created);
	atag_stack_ids_free(t);
}

static void add_symbols_suite(void)
{
	CU_pSuite s = CU_add_suite("symbols", NULL, NULL);

	CU_add_test(s, "function, offset and module of an address", test_function_of);
	CU_add_test(s, "frame strings", test_symbolize);
	CU_add_test(s, "empty kallsyms", test_empty_text);
	CU_add_test(s, "malformed kallsyms lines counted", test_malformed_lines);
	CU_add_test(s, "look-ups as libtraceevent's", test_same_as_libtraceevent);
	CU_add_test(s, "a NUL inside a module name", test_nul_in_module_name);
	CU_add_test(s, "the series' hooks are tracing frames", test_seed_hook_frames);
	CU_add_test(s, "stack ids: one per distinct set of frames", test_stack_ids);
	CU_add_test(s, "stack ids: the look-ahead", test_stack_ids_ahead);
	CU_add_test(s, "stack ids: the entries of the page entered", test_stack_ids_on_page);
}
ATAG_UTEST_SUITE("symbols", add_symbols_suite);
