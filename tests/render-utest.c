// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the CSV, folded and pprof renderers on the hand-built report of
 * tests/render-sample.h: exact CSV and folded text, and the pprof profile
 * gunzipped and decoded with the protobuf-c code generated from lib/render/profile.proto.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "atag-utest.h"
#include "atag-render.h"
#include "atag-report.h"
#include "profile.pb-c.h"
#include "render-sample.h"

typedef int (*render_fn)(const struct atag_report *r, const struct atag_render_opts *o, FILE *f);

/* Render into a malloc'ed buffer; *@ret gets the renderer's return. */
static char *render(render_fn fn, const struct atag_report *r, const struct atag_render_opts *o,
		    int *ret, size_t *len)
{
	size_t size = 0;
	char *buf = NULL;
	FILE *f;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	*ret = fn(r, o, f);
	fclose(f);
	if (len)
		*len = size;
	return buf;
}

static void check_text(render_fn fn, const struct atag_report *r,
		       const struct atag_render_opts *o, const char *want)
{
	char *got;
	int ret = -1;

	got = render(fn, r, o, &ret, NULL);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_STRING_EQUAL(got, want);
	if (strcmp(got, want))
		fprintf(stderr, "\n--- got:\n%s--- want:\n%s", got, want);
	free(got);
}

/* ------------------------------------------------------------------ CSV */

#define SITE_HEADER "tag,function,file,line,module,offset,allocs,frees,unmatched_frees," \
	"partial_frees,replaced,live,live_bytes,peak_live_bytes,bytes_alloced,bytes_freed," \
	"lifetime_count,lifetime_min_ns,lifetime_p50_ns,lifetime_p90_ns,lifetime_p99_ns," \
	"lifetime_max_ns,source\n"
#define SITE_A "0xffffffff82000000,alloc_inode,fs/inode.c,261,,,10,7,1,0,1,2,1024,2048,5120," \
	"4096,7,10,40,70,70,70,alloc_tag\n"
#define SITE_B "0xffffffff82000040,xfs_buf_alloc,fs/xfs/xfs_buf.c,231,xfs,,4,0,0,0,0,4,16384," \
	"16384,16384,0,0,,,,,,alloc_tag\n"
#define SITE_C "0xffff888012345678,,,,,,3,3,0,1,0,0,0,200,300,280,3,50,60,70,70,70,alloc_tag\n"
#define SITE_D "0xffffffff8123456a,kmalloc_caller,,,,0x2a,2,0,0,0,0,1,64,0,128,0,0,,,,,,kmem\n"
/* a line break in a name is escaped (26.6: no control character reaches a terminal) */
#define SITE_E "0xffffffff82000080,\"odd\"\"fn\",\"a,b.c\",3,mo\\x0ad,,1,0,0,0,0,1,8,0,8,0," \
	"0,,,,,,alloc_tag\n"

#define LIVE_HEADER "ptr,tag,function,file,line,module,bytes,pid,comm,alloc_ts,age_ns,stack," \
	"source,suspect,suspect_why,task_running\n"
#define LIVE_0 "0xffff888000001000,0xffffffff82000000,alloc_inode,fs/inode.c,261,,512,42,bash," \
	"1000000,5000,alloc_inode+0x1a;new_inode+0x20;do_sys_open+0x100,alloc_tag,1,,1\n"
#define LIVE_1 "0xffff888000002000,0xffffffff82000040,xfs_buf_alloc,fs/xfs/xfs_buf.c,231,xfs," \
	"4096,7,\"kworker/0:1,x\",1000500,4500," \
	"xfs_buf_alloc+0x30;weird;frame name+0x1;0xffffffffc0de0000,alloc_tag,0," \
	"\"a reason, with a comma\",0\n"
#define LIVE_3 "0xffff888000004000,0xffffffff82000080,\"odd\"\"fn\",\"a,b.c\",3,mo\\x0ad,8,99,," \
	"1002000,3000,,alloc_tag,1,,\n"

static void test_csv_sites(void)
{
	struct atag_render_opts o = { 0 };
	struct render_sample rs;

	render_sample_init(&rs);
	check_text(atag_render_csv, &rs.r, NULL,
		   SITE_HEADER SITE_A SITE_B SITE_C SITE_D SITE_E);
	o.limit = 2;
	check_text(atag_render_csv, &rs.r, &o, SITE_HEADER SITE_A SITE_B);
	render_sample_free(&rs);
}

static void test_csv_live(void)
{
	struct atag_render_opts o = { .live = true };
	struct render_sample rs;

	render_sample_init(&rs);
	check_text(atag_render_csv, &rs.r, &o, LIVE_HEADER LIVE_0 LIVE_1 LIVE_3);
	o.limit = 3;	/* the unselected tag's record does not count */
	check_text(atag_render_csv, &rs.r, &o, LIVE_HEADER LIVE_0 LIVE_1 LIVE_3);
	o.limit = 1;
	check_text(atag_render_csv, &rs.r, &o, LIVE_HEADER LIVE_0);
	render_sample_free(&rs);
}

static void test_csv_empty(void)
{
	struct atag_render_opts o = { .live = true };
	struct atag_report r = { .complete = true };

	check_text(atag_render_csv, &r, NULL, SITE_HEADER);
	check_text(atag_render_csv, &r, &o, LIVE_HEADER);
}

/* ------------------------------------------------------------------ folded */

/*
 * Functions, the call site for its own frame (no repeat), the allocator's frames
 * inside it left out; a stack not showing the call site keeps every frame.
 */
#define STACK_A1 "do_sys_open;new_inode;"
#define STACK_A2 "iget_locked;"
#define STACK_B1 "0xffffffffc0de0000;weird_frame_name;"
#define STACK_D1 "do_thing;"
#define STACK_D2 "other_fn;__kmalloc_noprof;"
#define SITE_FA "alloc_inode@fs/inode.c:261"
#define SITE_FB "xfs_buf_alloc@fs/xfs/xfs_buf.c:231[xfs]"
#define SITE_FC "0xffff888012345678"
#define SITE_FD "kmalloc_caller+0x2a"
#define SITE_FE "odd\"fn@a,b.c:3[mo_d]"

static const char folded_alloc_space[] =
	STACK_A1 SITE_FA " 3072\n"
	STACK_A2 SITE_FA " 1536\n"
	SITE_FA " 512\n"
	STACK_B1 SITE_FB " 16384\n"
	SITE_FC " 300\n"
	STACK_D1 SITE_FD " 64\n"
	STACK_D2 SITE_FD " 64\n"
	SITE_FE " 8\n";

static void test_folded_weights(void)
{
	struct atag_render_opts o = { 0 };
	struct render_sample rs;

	render_sample_init(&rs);
	check_text(atag_render_folded, &rs.r, NULL, folded_alloc_space);
	o.weight = "alloc_space";
	check_text(atag_render_folded, &rs.r, &o, folded_alloc_space);
	o.weight = "alloc_objects";
	check_text(atag_render_folded, &rs.r, &o,
		   STACK_A1 SITE_FA " 6\n" STACK_A2 SITE_FA " 3\n" SITE_FA " 1\n"
		   STACK_B1 SITE_FB " 4\n" SITE_FC " 3\n" STACK_D1 SITE_FD " 1\n"
		   STACK_D2 SITE_FD " 1\n" SITE_FE " 1\n");
	o.weight = "inuse_space";
	check_text(atag_render_folded, &rs.r, &o,
		   STACK_A1 SITE_FA " 512\n" STACK_A2 SITE_FA " 512\n"
		   STACK_B1 SITE_FB " 16384\n" STACK_D1 SITE_FD " 64\n" SITE_FE " 8\n");
	o.weight = "inuse_objects";
	check_text(atag_render_folded, &rs.r, &o,
		   STACK_A1 SITE_FA " 1\n" STACK_A2 SITE_FA " 1\n"
		   STACK_B1 SITE_FB " 4\n" STACK_D1 SITE_FD " 1\n" SITE_FE " 1\n");
	render_sample_free(&rs);
}

static void test_folded_offsets(void)
{
	struct atag_render_opts o = { .keep_offsets = true, .limit = 4 };
	struct render_sample rs;

	render_sample_init(&rs);
	check_text(atag_render_folded, &rs.r, &o,
		   "do_sys_open+0x100;new_inode+0x20;" SITE_FA " 3072\n"
		   "iget_locked+0x44;" SITE_FA " 1536\n"
		   SITE_FA " 512\n"
		   "0xffffffffc0de0000;weird_frame_name+0x1;" SITE_FB " 16384\n"
		   SITE_FC " 300\n"
		   "do_thing+0x5;" SITE_FD " 64\n"
		   "other_fn+0x8;__kmalloc_noprof+0x10;" SITE_FD " 64\n");
	render_sample_free(&rs);
}

static const char *sampled_callers[] = { "caller_a+0x5", "caller_b+0x5", "caller_c+0x5",
					  "caller_d+0x5" };

/*
 * A finished report of a sampled call site (kmem, one allocation in 16): 7 allocations,
 * 448 bytes, 4 carrying a stack, a stack each (through caller_a .. caller_d): three of
 * 64 bytes, caller_d's of 192 (the sampled ones 384 bytes in all).
 */
static struct atag_report *sampled_report(void)
{
	struct atag_report *r = atag_report_alloc(NULL);
	struct atag_report_stack *s;
	struct atag_report_tag *t;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	r->sources = calloc(1, sizeof(*r->sources));
	r->tags = calloc(1, sizeof(*r->tags));
	t = calloc(1, sizeof(*t));
	CU_ASSERT_FATAL(r->sources && r->tags && t);
	r->sources[0].name = "kmem";
	r->sources[0].stack_every = 16;
	r->nr_sources = 1;
	r->tags[r->nr_tags++] = t;
	t->tag = 0xffffffff8123456aULL;
	t->function = strdup("kmalloc_caller");
	t->line = -1;
	t->offset = 0x2a;
	t->source = "kmem";
	t->selected = true;
	t->counts.allocs = 7;
	t->counts.bytes_alloced = 7 * 64;
	t->stacked = 4;
	t->stacks = calloc(4, sizeof(*t->stacks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->stacks);
	for (i = 0; i < 4; i++) {
		s = calloc(1, sizeof(*s));
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		s->frames = calloc(3, sizeof(*s->frames));
		CU_ASSERT_PTR_NOT_NULL_FATAL(s->frames);
		s->frames[0] = "__kmalloc_noprof+0x10";
		s->frames[1] = "kmalloc_caller+0x2a";
		s->frames[2] = (char *)sampled_callers[i];
		s->nr_frames = 3;
		s->counts.allocs = 1;
		s->counts.bytes_alloced = i == 3 ? 192 : 64;
		t->stacks[t->nr_stacks++] = s;
	}
	CU_ASSERT_EQUAL_FATAL(atag_report_finish(r, NULL), 0);
	return r;
}

/*
 * Sampled stacks stand for 7/4 allocations each. Rounded one by one they would be 2
 * each, 8 in all: more than the call site's 7. Rounded so that they add up, in the
 * stacks' order: 2, 2, 1, 2 (the running sums 1.75, 3.5, 5.25, 7 rounded: 2, 4, 5, 7).
 * Bytes are shared as the sampled bytes are: 448 * 64 / 384 = 74.67 for each of the
 * first three, 224 for caller_d (running sums 74.67, 149.33, 224, 448: 75, 74, 75,
 * 224). Scaled by the ratio of counts they would be 112, 112, 112 and 336: 672 bytes
 * of a call site's 448.
 */
static void test_sampled_estimates(void)
{
	static const uint64_t want[] = { 2, 2, 1, 2 }, want_bytes[] = { 75, 74, 75, 224 };
	struct atag_render_opts o = { .weight = "alloc_objects" };
	struct atag_report *r = sampled_report();
	const struct atag_report_tag *t = r->tags[0];
	struct atag_counters est;
	size_t i;

	for (i = 0; i < t->nr_stacks; i++) {
		CU_ASSERT_STRING_EQUAL(t->stacks[i]->frames[2], sampled_callers[i]);
		atag_report_stack_estimate(r, t, t->stacks[i], &est);
		CU_ASSERT_EQUAL(est.allocs, want[i]);
		CU_ASSERT_EQUAL(est.bytes_alloced, want_bytes[i]);
	}
	/* the flame graph's weights are the estimates: no line for the call site alone */
	check_text(atag_render_folded, r, &o,
		   "caller_a;kmalloc_caller+0x2a 2\n"
		   "caller_b;kmalloc_caller+0x2a 2\n"
		   "caller_c;kmalloc_caller+0x2a 1\n"
		   "caller_d;kmalloc_caller+0x2a 2\n");
	o.weight = "alloc_space";
	check_text(atag_render_folded, r, &o,
		   "caller_a;kmalloc_caller+0x2a 75\n"
		   "caller_b;kmalloc_caller+0x2a 74\n"
		   "caller_c;kmalloc_caller+0x2a 75\n"
		   "caller_d;kmalloc_caller+0x2a 224\n");
	atag_report_free(r);
}

/* Counters near 2^64 (a damaged file's): the estimates stop at UINT64_MAX, in sum too. */
static void test_sampled_estimates_huge(void)
{
	struct atag_report *r = sampled_report();
	struct atag_report_tag *t = r->tags[0];
	struct atag_counters a, b;

	/* caller_a's and caller_b's stacks half the bytes each, the call site all of them */
	t->counts.bytes_alloced = UINT64_MAX;
	t->stacks[0]->counts.bytes_alloced = UINT64_MAX / 2;
	t->stacks[1]->counts.bytes_alloced = UINT64_MAX / 2;
	t->stacks[2]->counts.bytes_alloced = t->stacks[3]->counts.bytes_alloced = 0;
	CU_ASSERT_EQUAL_FATAL(atag_report_finish(r, NULL), 0);
	atag_report_stack_estimate(r, t, t->stacks[0], &a);
	atag_report_stack_estimate(r, t, t->stacks[1], &b);
	CU_ASSERT(a.bytes_alloced >= UINT64_MAX / 2 && b.bytes_alloced >= UINT64_MAX / 2 - 1);
	CU_ASSERT_EQUAL(a.bytes_alloced + b.bytes_alloced, UINT64_MAX);
	atag_report_free(r);
}

static void test_folded_limit_and_errors(void)
{
	struct atag_render_opts o = { .limit = 2 };
	struct atag_report empty = { 0 };
	struct render_sample rs;
	char *got;
	int ret;

	render_sample_init(&rs);
	check_text(atag_render_folded, &rs.r, &o,
		   STACK_A1 SITE_FA " 3072\n" STACK_A2 SITE_FA " 1536\n" SITE_FA " 512\n"
		   STACK_B1 SITE_FB " 16384\n");
	o.weight = "bytes";
	errno = 0;
	got = render(atag_render_folded, &rs.r, &o, &ret, NULL);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_STRING_EQUAL(got, "");
	free(got);
	check_text(atag_render_folded, &empty, NULL, "");
	render_sample_free(&rs);
}

/* Every renderer reports a failed write. */
static void test_write_errors(void)
{
	render_fn fns[] = { atag_render_csv, atag_render_folded, atag_render_pprof };
	struct render_sample rs;
	unsigned int i;
	FILE *f;

	render_sample_init(&rs);
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		f = fopen("/dev/full", "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		setvbuf(f, NULL, _IONBF, 0);
		CU_ASSERT_EQUAL(fns[i](&rs.r, NULL, f), -EIO);
		fclose(f);
	}
	render_sample_free(&rs);
}

/* ------------------------------------------------------------------ pprof */

static Pprof__Profile *decode(const char *gz, size_t len)
{
	size_t cap = 1 << 16, size = 0;
	Pprof__Profile *p = NULL;
	z_stream z = { 0 };
	uint8_t *out;
	int zret;

	out = malloc(cap);
	if (!out || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		goto out;
	z.next_in = (Bytef *)gz;
	z.avail_in = len;
	do {
		if (size == cap)
			out = realloc(out, cap *= 2);
		z.next_out = out + size;
		z.avail_out = cap - size;
		zret = inflate(&z, Z_NO_FLUSH);
		size = cap - z.avail_out;
	} while (zret == Z_OK);
	inflateEnd(&z);
	CU_ASSERT_EQUAL(zret, Z_STREAM_END);
	CU_ASSERT_EQUAL(z.avail_in, 0);
	if (zret == Z_STREAM_END)
		p = pprof__profile__unpack(NULL, size, out);
out:
	free(out);
	return p;
}

static Pprof__Profile *render_pprof(const struct atag_report *r, const struct atag_render_opts *o)
{
	Pprof__Profile *p;
	size_t len = 0;
	int ret = -1;
	char *gz;

	gz = render(atag_render_pprof, r, o, &ret, &len);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
	CU_ASSERT(len > 18 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b);
	p = decode(gz, len);
	free(gz);
	return p;
}

static const char *str(const Pprof__Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "<bad index>";
}

static const Pprof__Location *location(const Pprof__Profile *p, uint64_t id)
{
	size_t i;

	for (i = 0; i < p->n_location; i++)
		if (p->location[i]->id == id)
			return p->location[i];
	return NULL;
}

static const Pprof__Function *function(const Pprof__Profile *p, uint64_t id)
{
	size_t i;

	for (i = 0; i < p->n_function; i++)
		if (p->function[i]->id == id)
			return p->function[i];
	return NULL;
}

/* The function of location @id (its one line), or NULL. */
static const Pprof__Function *loc_function(const Pprof__Profile *p, uint64_t id)
{
	const Pprof__Location *l = location(p, id);

	if (!l || l->n_line != 1)
		return NULL;
	return function(p, l->line[0]->function_id);
}

/* A sample as "name|name|...=v0,v1,v2,v3[,label=value]", leaf first. */
static char *sample_string(const Pprof__Profile *p, const Pprof__Sample *s)
{
	const Pprof__Function *fn;
	size_t size = 0, i;
	char *buf = NULL;
	FILE *f;

	f = open_memstream(&buf, &size);
	for (i = 0; i < s->n_location_id; i++) {
		fn = loc_function(p, s->location_id[i]);
		fprintf(f, "%s%s", i ? "|" : "", fn ? str(p, fn->name) : "<no function>");
	}
	fputc('=', f);
	for (i = 0; i < s->n_value; i++)
		fprintf(f, "%s%lld", i ? "," : "", (long long)s->value[i]);
	for (i = 0; i < s->n_label; i++)
		fprintf(f, ",%s=%s", str(p, s->label[i]->key), str(p, s->label[i]->str));
	fclose(f);
	return buf;
}

static const char *const want_samples[] = {
	SITE_FA "|new_inode|do_sys_open=6,3072,1,512,source=alloc_tag",
	SITE_FA "|iget_locked=3,1536,1,512,source=alloc_tag",
	SITE_FA "=1,512,0,0,source=alloc_tag",
	SITE_FB "|weird;frame name|0xffffffffc0de0000=4,16384,4,16384,source=alloc_tag,module=xfs",
	SITE_FC "=3,300,0,0,source=alloc_tag",
	SITE_FD "|do_thing=1,64,1,64,source=kmem",
	SITE_FD "|__kmalloc_noprof|other_fn=1,64,0,0,source=kmem",
	"odd\"fn@a,b.c:3[mo\nd]=1,8,1,8,source=alloc_tag,module=mo\nd",
};

static void check_samples(const Pprof__Profile *p, size_t nr)
{
	size_t i;
	char *s;

	CU_ASSERT_EQUAL_FATAL(p->n_sample, nr);
	for (i = 0; i < nr; i++) {
		s = sample_string(p, p->sample[i]);
		CU_ASSERT_STRING_EQUAL(s, want_samples[i]);
		if (strcmp(s, want_samples[i]))
			fprintf(stderr, "\nsample %zu: got %s\n          want %s\n", i, s,
				want_samples[i]);
		free(s);
	}
}

static void test_pprof_header(void)
{
	static const char *const types[][2] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
		{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
	};
	struct render_sample rs;
	Pprof__Profile *p;
	size_t i, j;

	render_sample_init(&rs);
	p = render_pprof(&rs.r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_STRING_EQUAL(str(p, 0), "");
	CU_ASSERT_EQUAL_FATAL(p->n_sample_type, 4);
	for (i = 0; i < 4; i++) {
		CU_ASSERT_STRING_EQUAL(str(p, p->sample_type[i]->type), types[i][0]);
		CU_ASSERT_STRING_EQUAL(str(p, p->sample_type[i]->unit), types[i][1]);
	}
	CU_ASSERT_STRING_EQUAL(str(p, p->default_sample_type), "alloc_space");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->period_type);
	CU_ASSERT_STRING_EQUAL(str(p, p->period_type->type), "space");
	CU_ASSERT_STRING_EQUAL(str(p, p->period_type->unit), "bytes");
	CU_ASSERT_EQUAL(p->period, 1);
	CU_ASSERT_EQUAL(p->time_nanos, 0);
	CU_ASSERT_EQUAL(p->duration_nanos, 1005000 - 999000);
	CU_ASSERT_EQUAL_FATAL(p->n_comment, 3);
	CU_ASSERT_STRING_EQUAL(str(p, p->comment[0]), "file: a.dat (alloc_tag)");
	CU_ASSERT_STRING_EQUAL(str(p, p->comment[1]), "file: b.dat (alloc_tag)");
	CU_ASSERT_STRING_EQUAL(str(p, p->comment[2]), "incomplete: lost 3 events on CPU 1");
	/* every string once; nothing of the unselected tag */
	for (i = 0; i < p->n_string_table; i++) {
		for (j = i + 1; j < p->n_string_table; j++)
			CU_ASSERT(strcmp(p->string_table[i], p->string_table[j]) != 0);
		CU_ASSERT_PTR_NULL(strstr(p->string_table[i], "hidden"));
	}
	pprof__profile__free_unpacked(p, NULL);
	render_sample_free(&rs);
}

static void test_pprof_samples(void)
{
	struct render_sample rs;
	Pprof__Profile *p;

	render_sample_init(&rs);
	p = render_pprof(&rs.r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	check_samples(p, sizeof(want_samples) / sizeof(want_samples[0]));
	pprof__profile__free_unpacked(p, NULL);
	render_sample_free(&rs);
}

static void test_pprof_locations(void)
{
	const Pprof__Function *site, *frame;
	const Pprof__Location *l;
	const Pprof__Sample *s0, *s1, *s3;
	struct render_sample rs;
	Pprof__Profile *p;
	size_t i;

	render_sample_init(&rs);
	p = render_pprof(&rs.r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	/* 5 call sites + 8 distinct functions of the callers; ids 1..n */
	CU_ASSERT_EQUAL(p->n_location, 13);
	CU_ASSERT_EQUAL(p->n_function, 13);
	for (i = 0; i < p->n_location; i++)
		CU_ASSERT_EQUAL(p->location[i]->id, i + 1);
	for (i = 0; i < p->n_function; i++)
		CU_ASSERT_EQUAL(p->function[i]->id, i + 1);
	CU_ASSERT_EQUAL_FATAL(p->n_sample, 8);
	s0 = p->sample[0];
	s1 = p->sample[1];
	s3 = p->sample[3];
	/* the call site: its own location, with file and line */
	l = location(p, s0->location_id[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_EQUAL(l->line[0]->line, 261);
	CU_ASSERT_EQUAL(l->address, 0);
	site = loc_function(p, s0->location_id[0]);
	CU_ASSERT_STRING_EQUAL(str(p, site->system_name), "alloc_inode");
	CU_ASSERT_STRING_EQUAL(str(p, site->filename), "fs/inode.c");
	/* the call site's location is shared; its own frame is not repeated */
	CU_ASSERT_EQUAL(s0->location_id[0], s1->location_id[0]);
	CU_ASSERT_EQUAL(s0->n_location_id, 3);
	frame = loc_function(p, s0->location_id[1]);
	CU_ASSERT_STRING_EQUAL(str(p, frame->name), "new_inode");
	CU_ASSERT_STRING_EQUAL(str(p, frame->filename), "");
	CU_ASSERT_NOT_EQUAL(frame->id, site->id);
	l = location(p, s3->location_id[2]);
	CU_ASSERT_EQUAL(l->address, 0xffffffffc0de0000ULL);
	CU_ASSERT_EQUAL(location(p, s3->location_id[1])->address, 0);
	/* the module tag's site: no line number lost, file kept */
	CU_ASSERT_EQUAL(location(p, s3->location_id[0])->line[0]->line, 231);
	/* the unknown call site: no file, no line */
	l = location(p, p->sample[4]->location_id[0]);
	CU_ASSERT_EQUAL(l->line[0]->line, 0);
	CU_ASSERT_STRING_EQUAL(str(p, function(p, l->line[0]->function_id)->filename), "");
	pprof__profile__free_unpacked(p, NULL);
	render_sample_free(&rs);
}

static void test_pprof_options(void)
{
	struct atag_render_opts o = { .limit = 1, .weight = "inuse_objects" };
	struct atag_report empty = { 0 };
	struct render_sample rs;
	Pprof__Profile *p;
	size_t len;
	char *gz;
	int ret;

	render_sample_init(&rs);
	p = render_pprof(&rs.r, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_STRING_EQUAL(str(p, p->default_sample_type), "inuse_objects");
	check_samples(p, 3);
	pprof__profile__free_unpacked(p, NULL);
	o.weight = "space";
	gz = render(atag_render_pprof, &rs.r, &o, &ret, &len);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_EQUAL(len, 0);
	free(gz);
	p = render_pprof(&empty, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p->n_sample, 0);
	CU_ASSERT_EQUAL(p->n_sample_type, 4);
	CU_ASSERT_EQUAL(p->duration_nanos, 0);
	pprof__profile__free_unpacked(p, NULL);
	render_sample_free(&rs);
}

/* Frames of one function merge; with debug lines one location per line; offsets kept. */
static void test_pprof_functions(void)
{
	static char *frames[] = { "alloc_inode+0x1a", "new_inode+0x20", "new_inode+0x48",
				  "do_sys_open+0x100" };
	static char *lines[] = { "fs/inode.c:261", "fs/inode.c:1100", "fs/inode.c:1100", NULL };
	struct atag_render_opts o = { .keep_offsets = true };
	const Pprof__Location *l1, *l2;
	struct render_sample rs;
	Pprof__Profile *p;

	render_sample_init(&rs);
	rs.a1.frames = frames;
	rs.a1.nr_frames = 4;
	p = render_pprof(&rs.r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	/* new_inode twice (two offsets, one function): one location */
	CU_ASSERT_EQUAL(p->sample[0]->n_location_id, 4);
	CU_ASSERT_EQUAL(p->sample[0]->location_id[1], p->sample[0]->location_id[2]);
	pprof__profile__free_unpacked(p, NULL);
	p = render_pprof(&rs.r, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_NOT_EQUAL(p->sample[0]->location_id[1], p->sample[0]->location_id[2]);
	pprof__profile__free_unpacked(p, NULL);
	rs.a1.lines = lines;
	p = render_pprof(&rs.r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	l1 = location(p, p->sample[0]->location_id[1]);
	l2 = location(p, p->sample[0]->location_id[3]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l2);
	CU_ASSERT_EQUAL(l1->line[0]->line, 1100);
	CU_ASSERT_STRING_EQUAL(str(p, function(p, l1->line[0]->function_id)->filename),
			       "fs/inode.c");
	CU_ASSERT_EQUAL(l2->line[0]->line, 0);
	pprof__profile__free_unpacked(p, NULL);
	render_sample_free(&rs);
}

static void add_tests(void)
{
	CU_pSuite s = CU_add_suite("render", NULL, NULL);

	CU_add_test(s, "csv: call sites, quoting, empty cells, -n", test_csv_sites);
	CU_add_test(s, "csv: live allocations", test_csv_live);
	CU_add_test(s, "csv: empty report", test_csv_empty);
	CU_add_test(s, "folded: every weight", test_folded_weights);
	CU_add_test(s, "folded: -n, unknown weight, empty report", test_folded_limit_and_errors);
	CU_add_test(s, "folded: --keep-offsets", test_folded_offsets);
	CU_add_test(s, "folded: sampled stacks' estimates add up to the call site", test_sampled_estimates);
	CU_add_test(s, "sampled stacks' estimates of counters near 2^64", test_sampled_estimates_huge);
	CU_add_test(s, "pprof: functions, source lines, --keep-offsets", test_pprof_functions);
	CU_add_test(s, "write errors are reported", test_write_errors);
	CU_add_test(s, "pprof: header, types, strings, comments", test_pprof_header);
	CU_add_test(s, "pprof: samples and their values", test_pprof_samples);
	CU_add_test(s, "pprof: locations and functions", test_pprof_locations);
	CU_add_test(s, "pprof: weight, limit, empty report", test_pprof_options);
}
ATAG_UTEST_SUITE("render", add_tests)
