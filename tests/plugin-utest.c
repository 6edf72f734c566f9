// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of plugins/plugin_alloc_tag.so: loaded from the build directory with
 * the system plugins disabled, fed the kernel's format texts and hand-built
 * records, its output compared to exact strings.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "atag-utest.h"
#include "fixture/tracedat-writer.h"

#define TAG1	0xffffffff82000000ULL
#define TAG2	0xffffffff82000040ULL
#define PTR1	0xffff888000001000ULL

struct plugin_env {
	struct tep_handle	*tep;
	struct tep_plugin_list	*plugins;
	int			hit, alloced, freed;
};

static struct plugin_env env;		/* 'ptr' formats */
static struct plugin_env env_ref;	/* 'ref' formats, a second trace */

static int parse(struct tep_handle *tep, const char *path)
{
	const char *text = tdw_format_text(path);
	struct tep_event *event = NULL;

	if (!text || tep_parse_format(tep, &event, text, strlen(text), "alloc_tag"))
		return -1;
	return event->id;
}

/* A tep with only our plugin loaded, from the build directory. */
static int env_tep(struct plugin_env *e)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/plugins", atag_utest_build_dir());
	e->tep = tep_alloc();
	if (!e->tep)
		return -1;
	tep_set_flag(e->tep, TEP_DISABLE_SYS_PLUGINS);
	tep_add_plugin_path(e->tep, dir, TEP_PLUGIN_FIRST);
	e->plugins = tep_load_plugins(e->tep);
	tep_set_long_size(e->tep, 8);
	tep_set_file_bigendian(e->tep, TEP_LITTLE_ENDIAN);
	return e->plugins ? 0 : -1;
}

static int env_init(struct plugin_env *e, const char *variant)
{
	char path[128];

	if (env_tep(e))
		return -1;
	e->hit = parse(e->tep, "alloc_tag/alloc_tag_hit");
	snprintf(path, sizeof(path), "alloc_tag/alloc_tag_mem_alloced%s", variant);
	e->alloced = parse(e->tep, path);
	snprintf(path, sizeof(path), "alloc_tag/alloc_tag_mem_freed%s", variant);
	e->freed = parse(e->tep, path);
	return e->hit > 0 && e->alloced > 0 && e->freed > 0 ? 0 : -1;
}

static void env_free(struct plugin_env *e)
{
	if (!e->tep)
		return;
	tep_unload_plugins(e->plugins, e->tep);
	tep_free(e->tep);
	e->tep = NULL;
}

static int suite_init(void)
{
	/* only our plugin: no $TRACEEVENT_PLUGIN_DIR, no ~/.local/lib/traceevent/plugins */
	unsetenv("TRACEEVENT_PLUGIN_DIR");
	setenv("HOME", "/nonexistent", 1);
	return env_init(&env, "") || env_init(&env_ref, ".ref");
}

static int suite_destroy(void)
{
	env_free(&env);
	env_free(&env_ref);
	return 0;
}

/* Print @data as a record of @e; returns a static copy of the INFO text. */
static const char *print(struct plugin_env *e, const void *data, size_t len)
{
	static char out[1024];
	struct tep_record rec = { .data = (void *)data, .size = len, .cpu = 0 };
	struct trace_seq s;

	trace_seq_init(&s);
	tep_print_event(e->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	snprintf(out, sizeof(out), "%s", s.buffer);
	trace_seq_destroy(&s);
	return out;
}

static const char *hit(struct plugin_env *e, uint64_t tag, const char *mod, const char *file,
		       const char *func, unsigned int line)
{
	unsigned char buf[TDW_MAX_PAYLOAD];

	return print(e, buf, tdw_alloc_tag_hit(buf, e->hit, 1, tag, mod, file, func, line));
}

static const char *mem(struct plugin_env *e, int id, uint64_t ptr, uint64_t tag, uint64_t bytes)
{
	unsigned char buf[TDW_MAX_PAYLOAD];

	return print(e, buf, tdw_alloc_tag_mem(buf, id, 1, ptr, tag, bytes));
}

static void test_hit_builtin(void)
{
	CU_ASSERT_STRING_EQUAL(hit(&env, TAG1, "NONE", "mm/slub.c", "kmalloc_trace", 4100),
			       "kmalloc_trace mm/slub.c:4100 tag=0xffffffff82000000");
}

static void test_hit_module(void)
{
	CU_ASSERT_STRING_EQUAL(hit(&env, TAG2, "foo", "drivers/foo.c", "foo_alloc", 12),
			       "foo_alloc drivers/foo.c:12 [foo] tag=0xffffffff82000040");
	/* an empty module name is a built-in too (what the ioctl reports) */
	CU_ASSERT_STRING_EQUAL(hit(&env, TAG2 + 0x40, "", "a.c", "f", 1),
			       "f a.c:1 tag=0xffffffff82000080");
}

static void test_alloced_resolved(void)
{
	hit(&env, TAG1, "NONE", "mm/slub.c", "kmalloc_trace", 4100);
	CU_ASSERT_STRING_EQUAL(mem(&env, env.alloced, PTR1, TAG1, 4096),
			       "ptr=0xffff888000001000 bytes=4096 (4.00 KiB) kmalloc_trace mm/slub.c:4100");
	CU_ASSERT_STRING_EQUAL(mem(&env, env.freed, PTR1, TAG1, 64),
			       "ptr=0xffff888000001000 bytes=64 kmalloc_trace mm/slub.c:4100");
	hit(&env, TAG2, "foo", "drivers/foo.c", "foo_alloc", 12);
	CU_ASSERT_STRING_EQUAL(mem(&env, env.freed, PTR1, TAG2, 8),
			       "ptr=0xffff888000001000 bytes=8 foo_alloc drivers/foo.c:12 [foo]");
}

static void test_alloced_unresolved(void)
{
	CU_ASSERT_STRING_EQUAL(mem(&env, env.alloced, PTR1, 0xffffffff8badf00dULL, 64),
			       "ptr=0xffff888000001000 bytes=64 tag=0xffffffff8badf00d");
}

static void test_latest_hit_wins(void)
{
	hit(&env, TAG1 + 0x100, "NONE", "old.c", "old_fn", 1);
	hit(&env, TAG1 + 0x100, "NONE", "new.c", "new_fn", 2);
	CU_ASSERT_STRING_EQUAL(mem(&env, env.alloced, 1, TAG1 + 0x100, 1),
			       "ptr=0x1 bytes=1 new_fn new.c:2");
}

static void test_sites_are_per_trace(void)
{
	/* a tag seen in one trace (tep) says nothing about another trace */
	hit(&env, TAG1 + 0x200, "NONE", "a.c", "a_fn", 1);
	CU_ASSERT_STRING_EQUAL(mem(&env_ref, env_ref.alloced, 1, TAG1 + 0x200, 1),
			       "ref=0x1 bytes=1 tag=0xffffffff82000200");
}

static void test_human_sizes(void)
{
	static const struct { uint64_t bytes; const char *text; } cases[] = {
		{ 0, "bytes=0" },
		{ 1023, "bytes=1023" },
		{ 1024, "bytes=1024 (1.00 KiB)" },
		{ 1536, "bytes=1536 (1.50 KiB)" },
		{ 10 << 20, "bytes=10485760 (10.0 MiB)" },
		{ 150ULL << 30, "bytes=161061273600 (150 GiB)" },
		{ 18446744073709551615ULL, "bytes=18446744073709551615 (16.0 EiB)" },
	};
	char want[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(want, sizeof(want), "ptr=0x2 %s tag=0x5", cases[i].text);
		CU_ASSERT_STRING_EQUAL(mem(&env, env.alloced, 2, 5, cases[i].bytes), want);
	}
}

static void test_options(void)
{
	hit(&env, TAG1, "NONE", "mm/slub.c", "kmalloc_trace", 4100);
	tep_plugin_add_option("alloc_tag:resolve", "0");
	CU_ASSERT_STRING_EQUAL(mem(&env, env.alloced, PTR1, TAG1, 4096),
			       "ptr=0xffff888000001000 bytes=4096 (4.00 KiB) tag=0xffffffff82000000");
	tep_plugin_add_option("alloc_tag:human", "0");
	CU_ASSERT_STRING_EQUAL(mem(&env, env.alloced, PTR1, TAG1, 4096),
			       "ptr=0xffff888000001000 bytes=4096 tag=0xffffffff82000000");
	tep_plugin_add_option("alloc_tag:resolve", "1");
	tep_plugin_add_option("alloc_tag:human", "1");
	CU_ASSERT_STRING_EQUAL(mem(&env, env.alloced, PTR1, TAG1, 4096),
			       "ptr=0xffff888000001000 bytes=4096 (4.00 KiB) kmalloc_trace mm/slub.c:4100");
}

static void test_ref_key(void)
{
	hit(&env_ref, TAG1, "NONE", "mm/slub.c", "kmalloc_trace", 4100);
	CU_ASSERT_STRING_EQUAL(mem(&env_ref, env_ref.freed, PTR1, TAG1, 32),
			       "ref=0xffff888000001000 bytes=32 kmalloc_trace mm/slub.c:4100");
}

static void test_bad_records(void)
{
	unsigned char buf[TDW_MAX_PAYLOAD];
	uint32_t loc;
	size_t len;

	/* a payload shorter than the fixed fields */
	len = tdw_alloc_tag_mem(buf, env.alloced, 1, PTR1, TAG1, 64);
	CU_ASSERT_STRING_EQUAL(print(&env, buf, len - 8), "[bad record]");
	CU_ASSERT_STRING_EQUAL(print(&env, buf, 8), "[bad record]");

	len = tdw_alloc_tag_hit(buf, env.hit, 1, TAG1, "NONE", "mm/slub.c", "kmalloc_trace", 1);
	CU_ASSERT_STRING_EQUAL(print(&env, buf, len), "kmalloc_trace mm/slub.c:1 tag=0xffffffff82000000");
	/* the strings cut off: the function's data_loc points past the end */
	CU_ASSERT_STRING_EQUAL(print(&env, buf, len - 4), "[bad record]");
	/* __data_loc offset outside the record */
	memcpy(&loc, buf + 20, 4);
	loc = (loc & 0xffff0000) | 0xfff0;
	memcpy(buf + 20, &loc, 4);
	CU_ASSERT_STRING_EQUAL(print(&env, buf, len), "[bad record]");
	/* __data_loc length running past the end */
	len = tdw_alloc_tag_hit(buf, env.hit, 1, TAG1, "NONE", "mm/slub.c", "kmalloc_trace", 1);
	memcpy(&loc, buf + 24, 4);
	loc = (loc & 0xffff) | 0x7fff0000;
	memcpy(buf + 24, &loc, 4);
	CU_ASSERT_STRING_EQUAL(print(&env, buf, len), "[bad record]");
	/* a string without its NUL */
	len = tdw_alloc_tag_hit(buf, env.hit, 1, TAG1, "NONE", "mm/slub.c", "kmalloc_trace", 1);
	buf[len - 1] = 'x';
	CU_ASSERT_STRING_EQUAL(print(&env, buf, len), "[bad record]");
	/* a zero-length string */
	len = tdw_alloc_tag_hit(buf, env.hit, 1, TAG1, "NONE", "mm/slub.c", "kmalloc_trace", 1);
	memcpy(&loc, buf + 16, 4);
	loc &= 0xffff;
	memcpy(buf + 16, &loc, 4);
	CU_ASSERT_STRING_EQUAL(print(&env, buf, len), "[bad record]");
}

/* The common fields every event format of these tests starts with. */
#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* Formats that lack a field (a different kernel) print the marker, never garbage. */
static void test_missing_field(void)
{
	static const char fmt[] =
		"name: alloc_tag_mem_alloced\nID: 2001\nformat:\n"
		COMMON_FIELDS
		"\tfield:const void * ptr;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:size_t bytes;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"ptr %p bytes %zu\", REC->ptr, REC->bytes\n";
	struct plugin_env e = { 0 };
	unsigned char buf[64] = { 0 };
	struct tep_event *event;

	CU_ASSERT_FATAL(env_tep(&e) == 0);
	CU_ASSERT_FATAL(tep_parse_format(e.tep, &event, fmt, strlen(fmt), "alloc_tag") == 0);
	tdw_common(buf, 2001, 1);
	CU_ASSERT_STRING_EQUAL(print(&e, buf, 24), "[bad record]");
	env_free(&e);
}

/* The uprobe stand-ins of the tests: u64 fields, a __probe_ip, signed __data_loc. */
static void test_uprobe_layout(void)
{
	static const char hit_fmt[] =
		"name: alloc_tag_hit\nID: 3000\nformat:\n"
		COMMON_FIELDS
		"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:u64 tag;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] modname;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] filename;\toffset:28;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] function;\toffset:32;\tsize:4;\tsigned:1;\n"
		"\tfield:u32 lineno;\toffset:36;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"(%lx) tag=0x%Lx\", REC->__probe_ip, REC->tag\n";
	static const char mem_fmt[] =
		"name: alloc_tag_mem_freed\nID: 3001\nformat:\n"
		COMMON_FIELDS
		"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:u64 ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:u64 tag;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:u64 bytes;\toffset:32;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"(%lx) ptr=0x%Lx\", REC->__probe_ip, REC->ptr\n";
	unsigned char buf[128] = { 0 };
	uint64_t tag = TAG1 + 0x300, v;
	struct plugin_env e = { 0 };
	uint32_t loc, line = 77;
	struct tep_event *event;

	CU_ASSERT_FATAL(env_tep(&e) == 0);
	CU_ASSERT_FATAL(tep_parse_format(e.tep, &event, hit_fmt, strlen(hit_fmt),
					 "alloc_tag") == 0);
	CU_ASSERT_FATAL(tep_parse_format(e.tep, &event, mem_fmt, strlen(mem_fmt),
					 "alloc_tag") == 0);
	tdw_common(buf, 3000, 1);
	memcpy(buf + 16, &tag, 8);
	memcpy(buf + 40, "NONE\0x.c\0fn", 12);
	loc = 5 << 16 | 40;
	memcpy(buf + 24, &loc, 4);
	loc = 4 << 16 | 45;
	memcpy(buf + 28, &loc, 4);
	loc = 3 << 16 | 49;
	memcpy(buf + 32, &loc, 4);
	memcpy(buf + 36, &line, 4);
	CU_ASSERT_STRING_EQUAL(print(&e, buf, 52), "fn x.c:77 tag=0xffffffff82000300");
	memset(buf, 0, sizeof(buf));
	tdw_common(buf, 3001, 1);
	v = 3;
	memcpy(buf + 16, &v, 8);
	memcpy(buf + 24, &tag, 8);
	memcpy(buf + 32, &v, 8);
	CU_ASSERT_STRING_EQUAL(print(&e, buf, 40), "ptr=0x3 bytes=3 fn x.c:77");
	env_free(&e);
}

/*
 * Print @data as a record at @offset of a trace whose header page gives
 * 4096-byte pages, @record_size bytes with its ring-buffer header.
 */
static const char *print_at(struct plugin_env *e, const void *data, int len,
			    unsigned long long offset, int record_size)
{
	static char out[1024];
	struct tep_record rec = { .data = (void *)data, .size = len, .offset = offset,
				  .record_size = record_size };
	struct trace_seq s;

	trace_seq_init(&s);
	tep_print_event(e->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	snprintf(out, sizeof(out), "%s", s.buffer);
	trace_seq_destroy(&s);
	return out;
}

/*
 * A record whose length runs past its page (libtraceevent's kbuffer hands it
 * out so): its strings are not read, whatever its __data_loc fields say.
 */
static void test_record_past_page(void)
{
	char header[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
			"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
			"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	unsigned char buf[TDW_MAX_PAYLOAD];
	struct plugin_env e = { 0 };
	size_t len;

	CU_ASSERT_FATAL(env_init(&e, "") == 0);
	CU_ASSERT_FATAL(tep_parse_header_page(e.tep, header, strlen(header), 8) == 0);
	CU_ASSERT_EQUAL(tep_get_sub_buffer_size(e.tep), 4096);
	len = tdw_alloc_tag_hit(buf, e.hit, 1, TAG1, "NONE", "a.c", "fn", 3);
	/* 8 bytes of header (a long record), at 3000 in its page: it fits */
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 4096 + 3000, len + 8),
			       "fn a.c:3 tag=0xffffffff82000000");
	/* at 4050, the same record runs past the page */
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 4096 + 4050, len + 8), "[bad record]");
	/* a length larger than the page */
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, 5000, 2 * 4096 + 16, 5008), "[bad record]");
	/* data longer than the whole record, a negative size */
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 4096 + 16, len - 4), "[bad record]");
	/* (libtraceevent itself refuses a record too short for its event id) */
	CU_ASSERT_PTR_NULL(strstr(print_at(&e, buf, -4, 2 * 4096 + 16, 4), "a.c"));
	len = tdw_alloc_tag_mem(buf, e.alloced, 1, PTR1, TAG1, 64);
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 4096 + 4090, len + 4), "[bad record]");
	env_free(&e);
}

/* The header page of a trace whose data field is @data bytes at offset 16. */
static int header_page(struct plugin_env *e, int data)
{
	char header[512];

	snprintf(header, sizeof(header),
		 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		 "\tfield: char data;\toffset:16;\tsize:%d;\tsigned:1;\n", data);
	return tep_parse_header_page(e->tep, header, strlen(header), 8);
}

/*
 * 26.1: the header page is the file's word, not the page trace-cmd holds: a record
 * is bounded by the 4 KiB block it starts in, or by less when the header page
 * claims less; -O alloc_tag:page=SIZE names larger pages.
 */
static void test_header_page_lies(void)
{
	unsigned char buf[TDW_MAX_PAYLOAD];
	struct plugin_env e = { 0 };
	const char *ok = "fn a.c:3 tag=0xffffffff82000000";
	size_t len;

	CU_ASSERT_FATAL(env_init(&e, "") == 0);
	len = tdw_alloc_tag_hit(buf, e.hit, 1, TAG1, "NONE", "a.c", "fn", 3);
	/* 8 KiB pages claimed in a file of 4 KiB ones: across 4 KiB is past the page */
	CU_ASSERT_FATAL(header_page(&e, 8176) == 0);
	CU_ASSERT_EQUAL(tep_get_sub_buffer_size(e.tep), 8192);
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 8192 + 4050, len + 8), "[bad record]");
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 8192 + 3000, len + 8), ok);
	/* a data field of 4000 bytes: 4016-byte pages, bounded by 2 KiB blocks */
	CU_ASSERT_FATAL(header_page(&e, 4000) == 0);
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 4096 + 4050, len + 8), "[bad record]");
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 4096 + 2040, len + 8), "[bad record]");
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 4096 + 1000, len + 8), ok);
	/* no page at all (a data field of size 0): 16-byte blocks, nothing fits */
	CU_ASSERT_FATAL(header_page(&e, 0) == 0);
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 4096 + 16, len + 8), "[bad record]");
	/* the user's word for 8 KiB pages, with a header page that agrees */
	CU_ASSERT_FATAL(header_page(&e, 8176) == 0);
	tep_plugin_add_option("alloc_tag:page", "8192");
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 8192 + 4050, len + 8), ok);
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 8192 + 8150, len + 8), "[bad record]");
	/* not a power of two, too large: 4 KiB */
	tep_plugin_add_option("alloc_tag:page", "12288");
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 8192 + 4050, len + 8), "[bad record]");
	tep_plugin_add_option("alloc_tag:page", "4194304");
	CU_ASSERT_STRING_EQUAL(print_at(&e, buf, len, 2 * 8192 + 4050, len + 8), "[bad record]");
	tep_plugin_add_option("alloc_tag:page", "4096");
	env_free(&e);
}

/* A format whose field offsets overflow an int: no arithmetic on them overflows. */
static void test_huge_field_offset(void)
{
	static const char fmt[] =
		"name: alloc_tag_hit\nID: 2002\nformat:\n"
		COMMON_FIELDS
		"\tfield:void * tag;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] modname;\toffset:2147483646;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc char[] filename;\toffset:20;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc char[] function;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned int lineno;\toffset:2147483647;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"tag %p\", REC->tag\n";
	struct plugin_env e = { 0 };
	unsigned char buf[64] = { 0 };
	struct tep_event *event;

	CU_ASSERT_FATAL(env_tep(&e) == 0);
	CU_ASSERT_FATAL(tep_parse_format(e.tep, &event, fmt, strlen(fmt), "alloc_tag") == 0);
	tdw_common(buf, 2002, 1);
	CU_ASSERT_STRING_EQUAL(print(&e, buf, 64), "[bad record]");
	env_free(&e);
}

static void add_tests(void)
{
	CU_pSuite suite = CU_add_suite("plugin", suite_init, suite_destroy);

	CU_add_test(suite, "hit: built-in call site", test_hit_builtin);
	CU_add_test(suite, "hit: module call site", test_hit_module);
	CU_add_test(suite, "alloced/freed: call site resolved", test_alloced_resolved);
	CU_add_test(suite, "alloced: tag pointer before any hit", test_alloced_unresolved);
	CU_add_test(suite, "the latest hit of a tag wins", test_latest_hit_wins);
	CU_add_test(suite, "call sites are per trace", test_sites_are_per_trace);
	CU_add_test(suite, "human-readable sizes", test_human_sizes);
	CU_add_test(suite, "options resolve and human", test_options);
	CU_add_test(suite, "'ref' key of the first posting", test_ref_key);
	CU_add_test(suite, "malformed records", test_bad_records);
	CU_add_test(suite, "format without a field", test_missing_field);
	CU_add_test(suite, "uprobe stand-in layout", test_uprobe_layout);
	CU_add_test(suite, "a record running past its page", test_record_past_page);
	CU_add_test(suite, "26.1: a header page that lies", test_header_page_lies);
	CU_add_test(suite, "field offsets past INT_MAX", test_huge_field_offset);
}
ATAG_UTEST_SUITE("plugin", add_tests)
