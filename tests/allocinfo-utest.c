// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/kernel/atag-allocinfo*.c and lib/kernel/atag-filter.c: the text parser, the
 * filters, and the ioctl ABI (CONTENT_ID retry, layouts, every error) against the
 * in-process model of the kernel that the FUSE double also serves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-allocinfo.h"
#include "atag-filter.h"
#include "atag-utest.h"

#include "doubles/fakeinfo-model.c"

/* ------------------------------------------------------------------ helpers */

static struct atag_taglist *parse(const char *text, const struct atag_filter *f, int *ret,
				  unsigned int *line)
{
	struct atag_taglist *list = NULL;

	*ret = atag_allocinfo_parse_text(text, strlen(text), f, &list, line);
	return list;
}

static const struct atag_tag *find(const struct atag_taglist *l, const char *function)
{
	size_t i;

	for (i = 0; l && i < l->nr; i++)
		if (!strcmp(l->tags[i].function, function))
			return &l->tags[i];
	return NULL;
}

static struct atag_tag make_tag(const char *mod, const char *func, const char *file,
				unsigned long long line, long long bytes)
{
	struct atag_tag t;

	memset(&t, 0, sizeof(t));
	strcpy(t.modname, mod);
	strcpy(t.function, func);
	strcpy(t.filename, file);
	t.lineno = line;
	t.bytes = bytes;
	t.accurate = true;
	t.traced = 0;
	return t;
}

/* ------------------------------------------------------------------ text parser */

static const char text_v2[] =
	"allocinfo - version: 2.0\n"
	"#     <size>  <calls> <tag info>\n"
	"        4096        1 mm/slub.c:4100 func:kmalloc_trace \n"
	"        1024        2 drivers/foo/foo.c:12 [foo] func:foo_alloc \n"
	"           0        0 arch/x86/kernel/alternative.c:127 func:__its_alloc accurate:no \n"
	"          -8        3 fs/x.c:9 [xfs] func:neg accurate:no \n";

static void test_text_v2(void)
{
	const struct atag_tag *t;
	struct atag_taglist *l;
	unsigned int line = 99;
	int ret;

	l = parse(text_v2, NULL, &ret, &line);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(line, 0);
	CU_ASSERT_EQUAL(l->nr, 4);
	CU_ASSERT_EQUAL(l->source, ATAG_SRC_TEXT);
	t = &l->tags[0];
	CU_ASSERT_STRING_EQUAL(t->function, "kmalloc_trace");
	CU_ASSERT_STRING_EQUAL(t->filename, "mm/slub.c");
	CU_ASSERT_STRING_EQUAL(t->modname, "");
	CU_ASSERT_EQUAL(t->lineno, 4100);
	CU_ASSERT_EQUAL(t->bytes, 4096);
	CU_ASSERT_EQUAL(t->calls, 1);
	CU_ASSERT_TRUE(t->accurate);
	CU_ASSERT_EQUAL(t->traced, -1);
	t = &l->tags[1];
	CU_ASSERT_STRING_EQUAL(t->modname, "foo");
	CU_ASSERT_STRING_EQUAL(t->filename, "drivers/foo/foo.c");
	CU_ASSERT_EQUAL(t->lineno, 12);
	CU_ASSERT_EQUAL(t->calls, 2);
	t = &l->tags[2];
	CU_ASSERT_FALSE(t->accurate);
	CU_ASSERT_STRING_EQUAL(t->function, "__its_alloc");
	t = &l->tags[3];
	CU_ASSERT_EQUAL(t->bytes, -8);
	CU_ASSERT_STRING_EQUAL(t->modname, "xfs");
	CU_ASSERT_FALSE(t->accurate);
	atag_taglist_free(l);
}

static void test_text_v1_and_no_trailing_blank(void)
{
	static const char v1[] =
		"allocinfo - version: 1.0\n"
		"#     <size>  <calls> <tag info>\n"
		"        8192        2 mm/page_alloc.c:4700 func:__alloc_pages\n"
		"         512        4 kernel/fork.c:300 [x] func:dup_task\r\n"
		"\n";
	struct atag_taglist *l;
	unsigned int line;
	int ret;

	l = parse(v1, NULL, &ret, &line);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL_FATAL(l->nr, 2);
	CU_ASSERT_STRING_EQUAL(l->tags[0].function, "__alloc_pages");
	CU_ASSERT_EQUAL(l->tags[0].bytes, 8192);
	CU_ASSERT_STRING_EQUAL(l->tags[1].function, "dup_task");
	CU_ASSERT_STRING_EQUAL(l->tags[1].modname, "x");
	CU_ASSERT_TRUE(l->tags[1].accurate);
	atag_taglist_free(l);
}

static void test_text_errors(void)
{
	static const struct {
		const char	*text;
		int		ret;
		unsigned int	line;
	} cases[] = {
		{ "allocinfo - version: 3.0\n", -EPROTONOSUPPORT, 1 },
		{ "allocinfo - version: x\n", -EBADMSG, 1 },
		{ "hello\n", -EBADMSG, 1 },
		{ "", -EBADMSG, 1 },
		{ "allocinfo - version: 2.0\n#\n 1 1 a.c:1 func:f \n 1 1 a.c func:g \n", -EBADMSG, 4 },
		{ "allocinfo - version: 2.0\n 1 1 a.c:1 \n", -EBADMSG, 2 },
		{ "allocinfo - version: 2.0\n 1 -1 a.c:1 func:f \n", -EBADMSG, 2 },
		{ "allocinfo - version: 2.0\n x 1 a.c:1 func:f \n", -EBADMSG, 2 },
		{ "allocinfo - version: 2.0\n 1 1 a.c:1 [] func:f \n", -EBADMSG, 2 },
		{ "allocinfo - version: 2.0\n 1 1 a.c:1 func:f junk\n", -EBADMSG, 2 },
		{ "allocinfo - version: 2.0\n 1 1 a.c:1x func:f\n", -EBADMSG, 2 },
	};
	struct atag_taglist *l;
	unsigned int i, line;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		l = parse(cases[i].text, NULL, &ret, &line);
		CU_ASSERT_PTR_NULL(l);
		CU_ASSERT_EQUAL(ret, cases[i].ret);
		CU_ASSERT_EQUAL(line, cases[i].line);
		if (ret != cases[i].ret || line != cases[i].line)
			fprintf(stderr, "case %u: ret %d line %u\n", i, ret, line);
	}
}

static void test_text_future_flags_and_long_names(void)
{
	char text[2048], longname[400];
	struct atag_taglist *l;
	unsigned int line;
	int ret;

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	longname[sizeof(longname) - 2] = 'z';
	snprintf(text, sizeof(text), "allocinfo - version: 2.1\n 1 1 a.c:1 func:%s new:flag \n",
		 longname);
	l = parse(text, NULL, &ret, &line);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(strlen(l->tags[0].function), ATAG_NAME_MAX - 1);
	/* the tail is kept, as the kernel keeps the tail of names */
	CU_ASSERT_EQUAL(l->tags[0].function[ATAG_NAME_MAX - 2], 'z');
	atag_taglist_free(l);
}

static void test_text_filters(void)
{
	struct atag_taglist *l;
	struct atag_filter f;
	unsigned int line;
	int ret;

	atag_filter_init(&f);
	f.module = "";
	l = parse(text_v2, &f, &ret, &line);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(l->nr, 2);
	CU_ASSERT_PTR_NOT_NULL(find(l, "kmalloc_trace"));
	CU_ASSERT_PTR_NOT_NULL(find(l, "__its_alloc"));
	atag_taglist_free(l);

	atag_filter_init(&f);
	f.inaccurate = 1;
	f.has_min_size = true;
	f.min_size = 1;		/* -8 is huge as an unsigned: it passes */
	l = parse(text_v2, &f, &ret, &line);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(l->nr, 1);
	CU_ASSERT_PTR_NOT_NULL(find(l, "neg"));
	atag_taglist_free(l);

	atag_filter_init(&f);
	f.function = "*alloc*";
	f.file = "*.c";
	l = parse(text_v2, &f, &ret, &line);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(l->nr, 3);
	CU_ASSERT_PTR_NULL(find(l, "neg"));
	atag_taglist_free(l);

	atag_filter_init(&f);
	f.traced = 1;
	l = parse(text_v2, &f, &ret, &line);
	CU_ASSERT_PTR_NULL(l);
	CU_ASSERT_EQUAL(ret, -EOPNOTSUPP);
}

/* ------------------------------------------------------------------ filters */

static void test_filter_to_kernel(void)
{
	struct allocinfo_filter kf;
	struct atag_filter f;
	char longname[100];

	atag_filter_init(&f);
	CU_ASSERT_TRUE(atag_filter_is_empty(&f));
	CU_ASSERT_TRUE(atag_filter_to_kernel(&f, &kf));
	CU_ASSERT_EQUAL(kf.mask, 0);

	memset(longname, 'b', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	longname[0] = 'X';
	f.module = "";
	f.function = longname;
	f.file = "mm/slub.c";
	f.has_line = true;
	f.line = 7;
	f.has_min_size = f.has_max_size = true;
	f.min_size = 10;
	f.max_size = 20;
	f.inaccurate = 1;
	f.traced = 0;
	CU_ASSERT_FALSE(atag_filter_is_empty(&f));
	CU_ASSERT_TRUE(atag_filter_to_kernel(&f, &kf));
	CU_ASSERT_EQUAL(kf.mask, 0xff);
	CU_ASSERT_STRING_EQUAL(kf.fields.modname, "");
	CU_ASSERT_EQUAL(strlen(kf.fields.function), 63);
	CU_ASSERT_EQUAL(kf.fields.function[0], 'b');	/* the head is cut, like the kernel */
	CU_ASSERT_STRING_EQUAL(kf.fields.filename, "mm/slub.c");
	CU_ASSERT_EQUAL(kf.fields.lineno, 7);
	CU_ASSERT_EQUAL(kf.min_size, 10);
	CU_ASSERT_EQUAL(kf.max_size, 20);
	CU_ASSERT_EQUAL(kf.inaccurate, 1);
	CU_ASSERT_EQUAL(kf.tracing, 0);

	f.function = "kmalloc*";
	CU_ASSERT_FALSE(atag_filter_to_kernel(&f, &kf));
	CU_ASSERT_EQUAL(kf.mask, 0xff & ~ALLOCINFO_FILTER_MASK_FUNCTION);
	CU_ASSERT_TRUE(atag_str_is_glob("a[bc]"));
	CU_ASSERT_TRUE(atag_str_is_glob("a?"));
	CU_ASSERT_FALSE(atag_str_is_glob("abc"));
	CU_ASSERT_FALSE(atag_str_is_glob(NULL));
}

static void test_filter_validate(void)
{
	struct atag_filter f;

	atag_filter_init(&f);
	f.has_min_size = f.has_max_size = true;
	f.min_size = 5;
	f.max_size = 5;
	CU_ASSERT_EQUAL(atag_filter_validate(&f), 0);
	f.min_size = 6;
	CU_ASSERT_EQUAL(atag_filter_validate(&f), -EINVAL);
	f.has_max_size = false;
	CU_ASSERT_EQUAL(atag_filter_validate(&f), 0);
	f.traced = 2;
	CU_ASSERT_EQUAL(atag_filter_validate(&f), -EINVAL);
}

static void test_filter_match(void)
{
	struct atag_tag builtin = make_tag("", "kmalloc_trace", "mm/slub.c", 4100, 4096);
	struct atag_tag mod = make_tag("foo", "foo_alloc", "drivers/foo.c", 12, -1);
	struct atag_filter f;
	char a[80], b[80];

	atag_filter_init(&f);
	CU_ASSERT_TRUE(atag_filter_match(&f, &builtin));
	CU_ASSERT_TRUE(atag_filter_match(NULL, &builtin));
	f.module = "";
	CU_ASSERT_TRUE(atag_filter_match(&f, &builtin));
	CU_ASSERT_FALSE(atag_filter_match(&f, &mod));
	f.module = "f*";
	CU_ASSERT_FALSE(atag_filter_match(&f, &builtin));
	CU_ASSERT_TRUE(atag_filter_match(&f, &mod));
	f.module = "*";		/* any module; built-in tags have none */
	CU_ASSERT_FALSE(atag_filter_match(&f, &builtin));

	atag_filter_init(&f);
	f.has_max_size = true;
	f.max_size = 1 << 20;
	CU_ASSERT_TRUE(atag_filter_match(&f, &builtin));
	CU_ASSERT_FALSE(atag_filter_match(&f, &mod));	/* -1 is 2^64-1 to the kernel */
	f.has_max_size = false;
	f.has_min_size = true;
	f.min_size = 4097;
	CU_ASSERT_FALSE(atag_filter_match(&f, &builtin));

	atag_filter_init(&f);
	f.inaccurate = 0;
	CU_ASSERT_TRUE(atag_filter_match(&f, &builtin));
	builtin.accurate = false;
	CU_ASSERT_FALSE(atag_filter_match(&f, &builtin));
	f.inaccurate = 1;
	CU_ASSERT_TRUE(atag_filter_match(&f, &builtin));

	atag_filter_init(&f);
	f.traced = 1;
	CU_ASSERT_FALSE(atag_filter_match(&f, &mod));
	mod.traced = 1;
	CU_ASSERT_TRUE(atag_filter_match(&f, &mod));
	mod.traced = -1;	/* unknown never matches a trace-state filter */
	CU_ASSERT_FALSE(atag_filter_match(&f, &mod));

	/* names of 64+ characters compare on their trailing 63, like the kernel */
	memset(a, 'q', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	a[0] = 'A';
	b[0] = 'B';
	strcpy(mod.function, a);
	atag_filter_init(&f);
	f.function = b;
	CU_ASSERT_TRUE(atag_filter_match(&f, &mod));
	b[sizeof(b) - 2] = 'r';
	CU_ASSERT_FALSE(atag_filter_match(&f, &mod));
	CU_ASSERT_PTR_EQUAL(atag_allocinfo_str(b + 20), b + 20);	/* short: itself */
	CU_ASSERT_EQUAL(strlen(atag_allocinfo_str(a)), 63);
	f.function = NULL;
	f.has_line = true;
	f.line = 13;
	CU_ASSERT_FALSE(atag_filter_match(&f, &mod));
	f.line = 12;
	CU_ASSERT_TRUE(atag_filter_match(&f, &mod));
}

/* ------------------------------------------------------------------ ioctl ABI */

struct fake_ctx {
	struct fake_kernel	k;
	struct fake_file	f;
	bool			cap;
	unsigned long		nr_content_id;
	unsigned long		nr_get_at_v73;	/* GET_AT with the 7.3 number */
	unsigned long long	last_enable;	/* of the last TOGGLE_TRACE */
};

static int ops_ioctl(void *ctx, unsigned int cmd, void *arg)
{
	struct fake_ctx *c = ctx;

	if (cmd == ALLOCINFO_IOC_CONTENT_ID)
		c->nr_content_id++;
	if (cmd == ALLOCINFO_IOC_GET_AT_V73)
		c->nr_get_at_v73++;
	if (cmd == ALLOCINFO_IOC_TOGGLE_TRACE)
		c->last_enable = ((struct allocinfo_toggle_traces *)arg)->enable;
	return fake_ioctl(&c->f, cmd, arg, c->cap);
}

static ssize_t ops_read(void *ctx, char *buf, size_t len, off_t off)
{
	struct fake_ctx *c = ctx;
	size_t tlen;
	char *text = fake_text(&c->k, &tlen);

	if ((size_t)off >= tlen)
		len = 0;
	else if (len > tlen - off)
		len = tlen - off;
	memcpy(buf, text + off, len);
	free(text);
	return len;
}

static const struct atag_allocinfo_ops fake_ops = { ops_ioctl, ops_read };

static const char model_tags[] =
	"tag 4096 1 mm/slub.c:4100 func:kmalloc_trace\n"
	"tag 1024 2 drivers/foo/foo.c:12 [foo] func:foo_alloc traced\n"
	"tag 0 0 arch/x86/kernel/alternative.c:127 func:__its_alloc accurate:no\n"
	"tag 300 3 drivers/foo/bar.c:40 [foo] func:foo_bar\n";

static struct atag_allocinfo *fake_open(struct fake_ctx *c, const char *extra)
{
	char desc[4096], err[128];

	snprintf(desc, sizeof(desc), "%s%s", extra, model_tags);
	memset(c, 0, sizeof(*c));
	if (fake_kernel_load(&c->k, desc, err, sizeof(err))) {
		fprintf(stderr, "model: %s\n", err);
		return NULL;
	}
	c->f.k = &c->k;
	c->cap = true;
	return atag_allocinfo_open_ops("fake", &fake_ops, c);
}

static void fake_close(struct fake_ctx *c, struct atag_allocinfo *ai)
{
	atag_allocinfo_close(ai);
	fake_kernel_free(&c->k);
}

static void test_ioctl_list(void)
{
	struct atag_taglist *l;
	struct atag_allocinfo *ai;
	struct fake_ctx c;
	struct atag_filter f;

	ai = fake_open(&c, "");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ai);
	CU_ASSERT_STRING_EQUAL(atag_allocinfo_name(ai), "fake");
	CU_ASSERT_EQUAL(atag_allocinfo_source(ai), ATAG_SRC_IOCTL);
	CU_ASSERT_EQUAL_FATAL(atag_allocinfo_list(ai, NULL, &l), 0);
	CU_ASSERT_EQUAL(l->source, ATAG_SRC_IOCTL);
	CU_ASSERT_EQUAL(l->nr, 4);
	CU_ASSERT_EQUAL(find(l, "foo_alloc")->traced, 1);
	CU_ASSERT_EQUAL(find(l, "kmalloc_trace")->traced, 0);
	CU_ASSERT_STRING_EQUAL(find(l, "foo_alloc")->modname, "foo");
	CU_ASSERT_FALSE(find(l, "__its_alloc")->accurate);
	CU_ASSERT_EQUAL(c.nr_content_id, 2);	/* before and after, once */
	/* a kernel with the series has one GET_AT number: the tool needs no other */
	CU_ASSERT_EQUAL(c.nr_get_at_v73, 0);
	atag_taglist_free(l);

	/* kernel part (module) + userspace part (glob) */
	atag_filter_init(&f);
	f.module = "foo";
	f.function = "*bar";
	CU_ASSERT_EQUAL_FATAL(atag_allocinfo_list(ai, &f, &l), 0);
	CU_ASSERT_EQUAL(l->nr, 1);
	CU_ASSERT_PTR_NOT_NULL(find(l, "foo_bar"));
	atag_taglist_free(l);

	atag_filter_init(&f);
	f.traced = 0;
	f.has_min_size = true;
	f.min_size = 300;
	CU_ASSERT_EQUAL_FATAL(atag_allocinfo_list(ai, &f, &l), 0);
	CU_ASSERT_EQUAL(l->nr, 2);
	CU_ASSERT_PTR_NOT_NULL(find(l, "kmalloc_trace"));
	CU_ASSERT_PTR_NOT_NULL(find(l, "foo_bar"));
	atag_taglist_free(l);

	f.function = "nothing";
	CU_ASSERT_EQUAL_FATAL(atag_allocinfo_list(ai, &f, &l), 0);
	CU_ASSERT_EQUAL(l->nr, 0);
	atag_taglist_free(l);
	fake_close(&c, ai);
}

static void test_ioctl_v73_and_text(void)
{
	unsigned long long id;
	struct atag_taglist *l;
	struct atag_allocinfo *ai;
	struct atag_filter f;
	struct fake_ctx c;

	/* the base ABI only: the series' GET_AT is ENOTTY, the 7.3 one answers */
	ai = fake_open(&c, "ioctl v73\ncontent_id 42\n");
	CU_ASSERT_EQUAL(atag_allocinfo_source(ai), ATAG_SRC_IOCTL_V73);
	CU_ASSERT_EQUAL(c.nr_get_at_v73, 1);
	CU_ASSERT_EQUAL(atag_allocinfo_content_id(ai, &id), 0);
	CU_ASSERT_EQUAL(id, 42);
	CU_ASSERT_EQUAL_FATAL(atag_allocinfo_list(ai, NULL, &l), 0);
	CU_ASSERT_EQUAL(l->source, ATAG_SRC_IOCTL_V73);
	CU_ASSERT_EQUAL(l->nr, 4);
	CU_ASSERT_EQUAL(find(l, "foo_alloc")->traced, -1);
	atag_taglist_free(l);
	atag_filter_init(&f);
	f.traced = 1;
	CU_ASSERT_EQUAL(atag_allocinfo_list(ai, &f, &l), -EOPNOTSUPP);
	CU_ASSERT_PTR_NULL(l);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle(ai, &f, true), -ENOTTY);
	fake_close(&c, ai);

	ai = fake_open(&c, "ioctl none\nversion 1.0\n");
	CU_ASSERT_EQUAL(atag_allocinfo_source(ai), ATAG_SRC_TEXT);
	CU_ASSERT_EQUAL(atag_allocinfo_content_id(ai, &id), -ENOTTY);
	atag_filter_init(&f);
	f.inaccurate = 0;
	f.module = "foo";
	CU_ASSERT_EQUAL_FATAL(atag_allocinfo_list(ai, &f, &l), 0);
	CU_ASSERT_EQUAL(l->source, ATAG_SRC_TEXT);
	CU_ASSERT_EQUAL(l->nr, 2);
	CU_ASSERT_EQUAL(l->tags[0].traced, -1);
	atag_taglist_free(l);
	f.traced = 0;
	CU_ASSERT_EQUAL(atag_allocinfo_list(ai, &f, &l), -EOPNOTSUPP);
	fake_close(&c, ai);
}

static void test_ioctl_content_id_retry(void)
{
	struct atag_taglist *l;
	struct atag_allocinfo *ai;
	struct fake_ctx c;

	/* a module loads during the first scan: its tags show up on the retry */
	ai = fake_open(&c, "modload 2\nmodule 64 1 net/m.c:5 [m] func:m_alloc\n");
	CU_ASSERT_EQUAL_FATAL(atag_allocinfo_list(ai, NULL, &l), 0);
	CU_ASSERT_EQUAL(l->nr, 5);
	CU_ASSERT_PTR_NOT_NULL(find(l, "m_alloc"));
	CU_ASSERT_EQUAL(c.nr_content_id, 4);	/* two scans */
	CU_ASSERT_EQUAL(c.k.content_id, 2);
	atag_taglist_free(l);
	fake_close(&c, ai);

	/* the generation changes during three scans, then settles */
	ai = fake_open(&c, "churn 4 3\n");	/* 4 GET_NEXT a scan: one bump each */
	CU_ASSERT_EQUAL_FATAL(atag_allocinfo_list(ai, NULL, &l), 0);
	CU_ASSERT_EQUAL(l->nr, 4);
	CU_ASSERT_EQUAL(c.nr_content_id, 8);
	atag_taglist_free(l);
	fake_close(&c, ai);

	/* never settles: bounded */
	ai = fake_open(&c, "churn 1 1000\n");
	CU_ASSERT_EQUAL(atag_allocinfo_list(ai, NULL, &l), -EAGAIN);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	CU_ASSERT_PTR_NULL(l);
	CU_ASSERT_EQUAL(c.nr_content_id, 2 * (ATAG_ALLOCINFO_RETRIES + 1));
	fake_close(&c, ai);
}

static size_t nr_traced(const struct fake_kernel *k)
{
	size_t i, n = 0;

	for (i = 0; i < k->nr; i++)
		n += k->tags[i].traced;
	return n;
}

static void test_ioctl_toggle(void)
{
	struct atag_taglist *l;
	struct atag_allocinfo *ai;
	struct atag_filter f;
	struct fake_ctx c;

	ai = fake_open(&c, "");
	atag_filter_init(&f);
	f.module = "";
	CU_ASSERT_EQUAL(atag_allocinfo_toggle(ai, &f, true), 0);
	CU_ASSERT_EQUAL(c.last_enable, 1);	/* the kernel takes any non-zero: we send 1 */
	CU_ASSERT_EQUAL(nr_traced(&c.k), 3);
	CU_ASSERT_TRUE(c.k.tags[0].traced && c.k.tags[2].traced);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle(ai, &f, false), 0);
	CU_ASSERT_EQUAL(c.last_enable, 0);
	CU_ASSERT_EQUAL(nr_traced(&c.k), 1);

	/* one listed tag, only when it is in the other state */
	CU_ASSERT_EQUAL_FATAL(atag_allocinfo_list(ai, NULL, &l), 0);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, find(l, "foo_bar"), true), 0);
	CU_ASSERT_TRUE(c.k.tags[3].traced);
	CU_ASSERT_EQUAL(nr_traced(&c.k), 2);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, find(l, "foo_bar"), true), -ENOENT);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, find(l, "foo_alloc"), false), 0);
	CU_ASSERT_FALSE(c.k.tags[1].traced);
	atag_taglist_free(l);

	/* the errors */
	f.function = "nothing";
	CU_ASSERT_EQUAL(atag_allocinfo_toggle(ai, &f, true), -ENOENT);
	CU_ASSERT_EQUAL(errno, ENOENT);
	f.function = "glob*";		/* the kernel cannot express it */
	CU_ASSERT_EQUAL(atag_allocinfo_toggle(ai, &f, true), -EINVAL);
	atag_filter_init(&f);
	f.has_min_size = f.has_max_size = true;
	f.min_size = 2;
	f.max_size = 1;
	CU_ASSERT_EQUAL(atag_allocinfo_toggle(ai, &f, true), -EINVAL);
	CU_ASSERT_EQUAL(atag_allocinfo_list(ai, &f, &l), -EINVAL);
	c.cap = false;
	atag_filter_init(&f);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle(ai, &f, true), -EPERM);
	CU_ASSERT_EQUAL(errno, EPERM);
	CU_ASSERT_EQUAL(nr_traced(&c.k), 1);
	fake_close(&c, ai);

	/* a kernel that does not know a filter bit */
	ai = fake_open(&c, "reject_mask 0x80\n");
	atag_filter_init(&f);
	f.traced = 1;
	CU_ASSERT_EQUAL(atag_allocinfo_list(ai, &f, &l), -EINVAL);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle(ai, &f, false), -EINVAL);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, &(struct atag_tag){ .traced = 1 }, false),
			-EINVAL);
	fake_close(&c, ai);
}

/* The double's controls that t-record.sh uses: "race" and "deny N". */
static void test_model_controls(void)
{
	struct atag_tag t = make_tag("", "kmalloc_trace", "mm/slub.c", 4100, 4096);
	struct atag_tag b = make_tag("foo", "foo_bar", "drivers/foo/bar.c", 40, 300);
	struct fake_ctx c;
	struct atag_allocinfo *ai = fake_open(&c, "");

	CU_ASSERT_PTR_NOT_NULL_FATAL(ai);
	/* someone else turns the tag on just before: ENOENT, and it is traced */
	CU_ASSERT_EQUAL(fake_control(&c.k, "race"), 0);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, &t, true), -ENOENT);
	CU_ASSERT_TRUE(c.k.tags[0].traced);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, &b, true), 0);	/* once only */
	/* one more toggle works, then EPERM until "allow" */
	CU_ASSERT_EQUAL(fake_control(&c.k, "deny 1"), 0);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, &t, false), 0);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, &b, false), -EPERM);
	CU_ASSERT_EQUAL(fake_control(&c.k, "allow"), 0);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, &b, false), 0);
	CU_ASSERT_EQUAL(c.k.toggles, 3);
	fake_close(&c, ai);
}

static void test_ioctl_text_error_line(void)
{
	struct atag_taglist *l;
	struct atag_allocinfo *ai;
	struct fake_ctx c;

	ai = fake_open(&c, "ioctl none\nversion 9.0\n");
	CU_ASSERT_EQUAL(atag_allocinfo_list(ai, NULL, &l), -EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(atag_allocinfo_error_line(ai), 1);
	fake_close(&c, ai);
}

static void test_open_real_files(void)
{
	char path[512];
	struct atag_taglist *l;
	struct atag_allocinfo *ai;
	FILE *f;

	/* a regular file answers ENOTTY to every ioctl: the text is parsed */
	snprintf(path, sizeof(path), "%s/allocinfo.txt", atag_utest_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text_v2, f);
	fclose(f);
	ai = atag_allocinfo_open(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ai);
	CU_ASSERT_EQUAL(atag_allocinfo_source(ai), ATAG_SRC_TEXT);
	CU_ASSERT_EQUAL_FATAL(atag_allocinfo_list(ai, NULL, &l), 0);
	CU_ASSERT_EQUAL(l->nr, 4);
	atag_taglist_free(l);
	atag_allocinfo_close(ai);

	snprintf(path, sizeof(path), "%s/no-such-file", atag_utest_tmpdir());
	CU_ASSERT_PTR_NULL(atag_allocinfo_open(path));
	CU_ASSERT_EQUAL(errno, ENOENT);

	unsetenv(ATAG_ALLOCINFO_ENV);
	CU_ASSERT_STRING_EQUAL(atag_allocinfo_default_path(NULL), "/proc/allocinfo");
	setenv(ATAG_ALLOCINFO_ENV, "/x", 1);
	CU_ASSERT_STRING_EQUAL(atag_allocinfo_default_path(NULL), "/x");
	CU_ASSERT_STRING_EQUAL(atag_allocinfo_default_path("/y"), "/y");
	unsetenv(ATAG_ALLOCINFO_ENV);
}

static void add_tests(void)
{
	CU_pSuite text = CU_add_suite("allocinfo-text", NULL, NULL);
	CU_pSuite filt = CU_add_suite("allocinfo-filter", NULL, NULL);
	CU_pSuite ioc = CU_add_suite("allocinfo-ioctl", NULL, NULL);

	CU_add_test(text, "version 2.0, modules, accurate:no, negative", test_text_v2);
	CU_add_test(text, "version 1.0, no trailing blank, CRLF",
		    test_text_v1_and_no_trailing_blank);
	CU_add_test(text, "errors name the line", test_text_errors);
	CU_add_test(text, "future flags, long names", test_text_future_flags_and_long_names);
	CU_add_test(text, "filters applied in userspace", test_text_filters);
	CU_add_test(filt, "to the kernel filter", test_filter_to_kernel);
	CU_add_test(filt, "validate", test_filter_validate);
	CU_add_test(filt, "match with the kernel's semantics", test_filter_match);
	CU_add_test(ioc, "list through GET_AT/GET_NEXT", test_ioctl_list);
	CU_add_test(ioc, "7.3 layout and text fallback", test_ioctl_v73_and_text);
	CU_add_test(ioc, "CONTENT_ID retry, bounded", test_ioctl_content_id_retry);
	CU_add_test(ioc, "toggle and its errors", test_ioctl_toggle);
	CU_add_test(ioc, "the double's race and deny N", test_model_controls);
	CU_add_test(ioc, "text error line", test_ioctl_text_error_line);
	CU_add_test(ioc, "real files", test_open_real_files);
}

ATAG_UTEST_SUITE("allocinfo", add_tests)
