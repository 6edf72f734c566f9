// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/kernel/atag-state.c (the state file; undoing what it lists is
 * tested with the sessions, tests/session-utest.c) and the process helpers of
 * lib/util/atag-proc.c that need no root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atag-state.h"
#include "atag-utest.h"
#include "atag-utils.h"

static char state_dir[512];

static int setup_dir(void)
{
	snprintf(state_dir, sizeof(state_dir), "%s/state", atag_utest_tmpdir());
	return 0;
}

static struct atag_tag tag(const char *mod, const char *func, unsigned long long line)
{
	struct atag_tag t;

	memset(&t, 0, sizeof(t));
	strcpy(t.modname, mod);
	strcpy(t.function, func);
	strcpy(t.filename, "mm/x.c");
	t.lineno = line;
	return t;
}

static void test_state_roundtrip(void)
{
	struct atag_tag t1 = tag("", "kmalloc_trace", 4100), t2 = tag("foo", "foo_alloc", 12);
	struct atag_state *st, *ld;
	char expect[512], *text;

	st = atag_state_create(state_dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(access(st->path, R_OK), 0);
	CU_ASSERT_EQUAL(atag_state_set_allocinfo(st, "/proc/allocinfo"), 0);
	CU_ASSERT_EQUAL(atag_state_set_instance(st, "trace-cmd-alloc-tag-1"), 0);
	CU_ASSERT_EQUAL(atag_state_add_tag(st, &t1), 0);
	CU_ASSERT_EQUAL(atag_state_add_tag(st, &t2), 0);
	CU_ASSERT_EQUAL(atag_state_set_recorder(st, getpid()), 0);
	CU_ASSERT_EQUAL(st->tags.nr, 2);

	/* the exact text reset relies on */
	snprintf(expect, sizeof(expect),
		 "owner %d %llu\nallocinfo /proc/allocinfo\ninstance trace-cmd-alloc-tag-1\n"
		 "tag\t-\tmm/x.c\t4100\tkmalloc_trace\ntag\tfoo\tmm/x.c\t12\tfoo_alloc\n"
		 "recorder %d %llu\n", (int)getpid(), atag_proc_starttime(getpid()),
		 (int)getpid(), atag_proc_starttime(getpid()));
	text = atag_utest_read_file(st->path, NULL);
	CU_ASSERT_STRING_EQUAL(text, expect);
	free(text);

	/* a second record with the same pid: a leftover, never overwritten */
	CU_ASSERT_PTR_NULL(atag_state_create(state_dir));
	CU_ASSERT_EQUAL(errno, EEXIST);

	ld = atag_state_load(st->path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ld);
	CU_ASSERT_EQUAL(ld->fd, -1);
	CU_ASSERT_EQUAL(ld->owner, getpid());
	CU_ASSERT_EQUAL(ld->owner_start, atag_proc_starttime(getpid()));
	CU_ASSERT_STRING_EQUAL(ld->allocinfo, "/proc/allocinfo");
	CU_ASSERT_STRING_EQUAL(ld->instance, "trace-cmd-alloc-tag-1");
	CU_ASSERT_EQUAL(ld->recorder, getpid());
	CU_ASSERT_EQUAL_FATAL(ld->tags.nr, 2);
	CU_ASSERT_STRING_EQUAL(ld->tags.tags[0].modname, "");
	CU_ASSERT_STRING_EQUAL(ld->tags.tags[0].function, "kmalloc_trace");
	CU_ASSERT_EQUAL(ld->tags.tags[0].lineno, 4100);
	CU_ASSERT_STRING_EQUAL(ld->tags.tags[1].modname, "foo");
	CU_ASSERT_STRING_EQUAL(ld->tags.tags[1].filename, "mm/x.c");
	atag_state_free(ld);

	snprintf(expect, sizeof(expect), "%s", st->path);
	CU_ASSERT_EQUAL(atag_state_remove(st), 0);
	CU_ASSERT_NOT_EQUAL(access(expect, F_OK), 0);
}

static void test_state_rejects_bad_names(void)
{
	struct atag_tag t = tag("", "a\tb", 1);
	struct atag_state *st = atag_state_create(state_dir);

	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(atag_state_add_tag(st, &t), -EINVAL);
	CU_ASSERT_EQUAL(atag_state_set_instance(st, "a/b"), -EINVAL);
	CU_ASSERT_EQUAL(atag_state_set_allocinfo(st, "x\ny"), -EINVAL);
	CU_ASSERT_EQUAL(st->tags.nr, 0);
	atag_state_remove(st);
}

static void test_state_load_partial_and_bad(void)
{
	char path[600];
	struct atag_state *st;

	/* the writer died in the middle of a line: that line is ignored */
	snprintf(path, sizeof(path), "%s/record-1.state", state_dir);
	atag_utest_write_file(path, "owner 1 5\ninstance trace-cmd-alloc-tag-1\n"
			      "tag\t-\tmm/x.c\t1\tf\ntag\t-\tmm/x.c\t2\tg");
	st = atag_state_load(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(st->tags.nr, 1);
	CU_ASSERT_PTR_NULL(st->allocinfo);
	CU_ASSERT_EQUAL(st->recorder, 0);
	atag_state_free(st);

	atag_utest_write_file(path, "hello\n");
	CU_ASSERT_PTR_NULL(atag_state_load(path));
	CU_ASSERT_EQUAL(errno, EBADMSG);
	atag_utest_write_file(path, "owner 1 5\ntag\t-\tmm/x.c\tten\tf\n");
	CU_ASSERT_PTR_NULL(atag_state_load(path));
	CU_ASSERT_EQUAL(errno, EBADMSG);
	atag_utest_write_file(path, "owner 1 5");
	CU_ASSERT_PTR_NULL(atag_state_load(path));
	unlink(path);
	snprintf(path, sizeof(path), "%s/none.state", state_dir);
	CU_ASSERT_PTR_NULL(atag_state_load(path));
	CU_ASSERT_EQUAL(errno, ENOENT);
}

static void test_state_list(void)
{
	char path[600], **paths, empty[600];
	int n, i;

	snprintf(path, sizeof(path), "%s/record-20.state", state_dir);
	atag_utest_write_file(path, "owner 20 1\n");
	snprintf(path, sizeof(path), "%s/record-10.state", state_dir);
	atag_utest_write_file(path, "owner 10 1\n");
	snprintf(path, sizeof(path), "%s/other.txt", state_dir);
	atag_utest_write_file(path, "x\n");
	n = atag_state_list(state_dir, &paths);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	snprintf(path, sizeof(path), "%s/record-10.state", state_dir);
	CU_ASSERT_STRING_EQUAL(paths[0], path);
	snprintf(path, sizeof(path), "%s/record-20.state", state_dir);
	CU_ASSERT_STRING_EQUAL(paths[1], path);
	CU_ASSERT_PTR_NULL(paths[2]);
	for (i = 0; i < n; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	free(paths);
	snprintf(path, sizeof(path), "%s/other.txt", state_dir);
	unlink(path);
	snprintf(empty, sizeof(empty), "%s/does-not-exist", state_dir);
	CU_ASSERT_EQUAL(atag_state_list(empty, &paths), 0);
	CU_ASSERT_PTR_NULL(paths);
}

static void test_state_untag(void)
{
	struct atag_tag t1 = tag("", "kmalloc_trace", 4100), t2 = tag("foo", "foo_alloc", 12);
	struct atag_tag bad = tag("", "a\tb", 1);
	struct atag_state *st, *ld;
	char expect[512];

	st = atag_state_create(state_dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(atag_state_add_tag(st, &t1), 0);
	CU_ASSERT_EQUAL(atag_state_add_tag(st, &t2), 0);
	/* the toggle of t1 found it traced already (someone else's) or failed */
	CU_ASSERT_EQUAL(atag_state_untag(st, &t1), 0);
	CU_ASSERT_EQUAL(atag_state_untag(st, &bad), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(st->tags.nr, 1);
	CU_ASSERT_STRING_EQUAL(st->tags.tags[0].function, "foo_alloc");
	snprintf(expect, sizeof(expect),
		 "owner %d %llu\ntag\t-\tmm/x.c\t4100\tkmalloc_trace\n"
		 "tag\tfoo\tmm/x.c\t12\tfoo_alloc\nuntag\t-\tmm/x.c\t4100\tkmalloc_trace\n",
		 (int)getpid(), atag_proc_starttime(getpid()));
	atag_utest_assert_file(st->path, expect);

	/* reset gets only t2 */
	ld = atag_state_load(st->path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ld);
	CU_ASSERT_EQUAL_FATAL(ld->tags.nr, 1);
	CU_ASSERT_STRING_EQUAL(ld->tags.tags[0].function, "foo_alloc");
	CU_ASSERT_STRING_EQUAL(ld->tags.tags[0].modname, "foo");
	atag_state_free(ld);
	atag_state_remove(st);
}

static void test_state_load_untag(void)
{
	char path[600];
	struct atag_state *st;

	snprintf(path, sizeof(path), "%s/record-3.state", state_dir);
	/* an untag takes back the last tag line of that tag, and only that one */
	atag_utest_write_file(path, "owner 3 5\ntag\t-\tmm/x.c\t1\tf\ntag\tm\tmm/x.c\t1\tf\n"
			 "tag\t-\tmm/x.c\t1\tf\nuntag\t-\tmm/x.c\t1\tf\n"
			 "untag\t-\tmm/x.c\t2\tg\n");
	st = atag_state_load(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL_FATAL(st->tags.nr, 2);
	CU_ASSERT_STRING_EQUAL(st->tags.tags[0].modname, "");
	CU_ASSERT_STRING_EQUAL(st->tags.tags[1].modname, "m");
	atag_state_free(st);

	/* an untag line cut short is ignored: the tag stays reset's */
	atag_utest_write_file(path, "owner 3 5\ntag\t-\tmm/x.c\t1\tf\nuntag\t-\tmm/x.c\t1\tf");
	st = atag_state_load(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(st->tags.nr, 1);
	atag_state_free(st);

	atag_utest_write_file(path, "owner 3 5\nuntag\t-\tmm/x.c\tone\tf\n");
	CU_ASSERT_PTR_NULL(atag_state_load(path));
	CU_ASSERT_EQUAL(errno, EBADMSG);
	unlink(path);
}

static void test_state_rewrite(void)
{
	struct atag_tag t1 = tag("", "kmalloc_trace", 4100), t2 = tag("foo", "foo_alloc", 12);
	char expect[512], more[700], tmp[600];
	struct atag_state *st, *ld;

	st = atag_state_create(state_dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(atag_state_set_allocinfo(st, "/proc/allocinfo"), 0);
	CU_ASSERT_EQUAL(atag_state_set_instance(st, "trace-cmd-alloc-tag-1"), 0);
	CU_ASSERT_EQUAL(atag_state_add_tag(st, &t1), 0);
	CU_ASSERT_EQUAL(atag_state_add_tag(st, &t2), 0);
	CU_ASSERT_EQUAL(atag_state_set_recorder(st, getpid()), 0);

	/* t1 and the instance were undone, the recorder stopped: the rest is listed */
	st->tags.tags[0] = st->tags.tags[1];
	st->tags.nr = 1;
	free(st->instance);
	st->instance = NULL;
	st->recorder = 0;
	CU_ASSERT_EQUAL(atag_state_rewrite(st), 0);
	snprintf(expect, sizeof(expect),
		 "owner %d %llu\nallocinfo /proc/allocinfo\ntag\tfoo\tmm/x.c\t12\tfoo_alloc\n",
		 (int)getpid(), atag_proc_starttime(getpid()));
	atag_utest_assert_file(st->path, expect);
	snprintf(tmp, sizeof(tmp), "%s.tmp", st->path);
	CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0);

	/* appends go on into the new file */
	CU_ASSERT_EQUAL(atag_state_add_tag(st, &t1), 0);
	snprintf(more, sizeof(more), "%stag\t-\tmm/x.c\t4100\tkmalloc_trace\n", expect);
	atag_utest_assert_file(st->path, more);

	/* a loaded state is rewritten the same way */
	ld = atag_state_load(st->path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ld);
	CU_ASSERT_EQUAL_FATAL(ld->tags.nr, 2);
	ld->tags.nr = 1;
	CU_ASSERT_EQUAL(atag_state_rewrite(ld), 0);
	CU_ASSERT_EQUAL(ld->fd, -1);
	atag_utest_assert_file(st->path, expect);

	/* a rewrite that cannot be done leaves the file alone */
	free(ld->path);
	ld->path = strdup("/nonexistent/dir/record-1.state");
	CU_ASSERT_EQUAL(atag_state_rewrite(ld), -ENOENT);
	atag_state_free(ld);
	atag_utest_assert_file(st->path, expect);
	atag_state_remove(st);
}

static void test_proc_helpers(void)
{
	unsigned long long me = atag_proc_starttime(getpid());

	CU_ASSERT_NOT_EQUAL(me, 0);
	CU_ASSERT_TRUE(atag_proc_alive(getpid(), me));
	CU_ASSERT_FALSE(atag_proc_alive(getpid(), me + 1));	/* a reused pid */
	CU_ASSERT_EQUAL(atag_proc_starttime(999999999), 0);
	CU_ASSERT_FALSE(atag_proc_alive(0, 0));
	unsetenv(ATAG_STATE_DIR_ENV);
	CU_ASSERT_STRING_EQUAL(atag_state_dir(), "/run/trace-cmd-alloc-tag");
	setenv(ATAG_STATE_DIR_ENV, "/tmp/x", 1);
	CU_ASSERT_STRING_EQUAL(atag_state_dir(), "/tmp/x");
	unsetenv(ATAG_STATE_DIR_ENV);
}

static void add_tests(void)
{
	CU_pSuite s = CU_add_suite("state", setup_dir, NULL);

	CU_add_test(s, "write, exact text, load", test_state_roundtrip);
	CU_add_test(s, "names that would break the format", test_state_rejects_bad_names);
	CU_add_test(s, "partial and malformed files", test_state_load_partial_and_bad);
	CU_add_test(s, "list state files", test_state_list);
	CU_add_test(s, "untag: a toggle that did not happen", test_state_untag);
	CU_add_test(s, "untag lines when loading", test_state_load_untag);
	CU_add_test(s, "rewrite: only what is left", test_state_rewrite);
	CU_add_test(s, "process identity", test_proc_helpers);
}

ATAG_UTEST_SUITE("state", add_tests)
