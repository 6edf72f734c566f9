// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/kernel/atag-state.c (the state file; undoing what it lists is
 * tested with the sessions, tests/session-utest.c) and the process helpers of
 * lib/util/atag-proc.c that need no root.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
	CU_ASSERT_EQUAL(atag_state_set_recorder(st, getpid(), NULL), 0);
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
	CU_ASSERT_EQUAL(atag_state_set_recorder(st, getpid(), NULL), 0);

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

/* The output and the recorder's program: written, rewritten, loaded. */
static void test_state_output_and_exe(void)
{
	struct atag_state *st, *ld;
	char expect[1024];

	st = atag_state_create(state_dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(atag_state_set_output(st, "/d/.trace-cmd-alloc-tag.ab12", "/d/x.dat"), 0);
	CU_ASSERT_EQUAL(atag_state_set_output(st, "/d/a\tb", "/d/x.dat"), -EINVAL);
	CU_ASSERT_EQUAL(atag_state_set_recorder(st, getpid(), "/usr/bin/trace-cmd"), 0);
	snprintf(expect, sizeof(expect),
		 "owner %d %llu\noutput /d/.trace-cmd-alloc-tag.ab12\t/d/x.dat\n"
		 "recorder %d %llu\t/usr/bin/trace-cmd\n", (int)getpid(),
		 atag_proc_starttime(getpid()), (int)getpid(), atag_proc_starttime(getpid()));
	atag_utest_assert_file(st->path, expect);
	ld = atag_state_load(st->path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ld);
	CU_ASSERT_STRING_EQUAL(ld->output_tmp, "/d/.trace-cmd-alloc-tag.ab12");
	CU_ASSERT_STRING_EQUAL(ld->output_final, "/d/x.dat");
	CU_ASSERT_STRING_EQUAL(ld->recorder_exe, "/usr/bin/trace-cmd");
	CU_ASSERT_EQUAL(ld->recorder, getpid());
	/* rewritten whole: the same text */
	CU_ASSERT_EQUAL(atag_state_rewrite(ld), 0);
	atag_utest_assert_file(st->path, expect);
	atag_state_free(ld);
	/* malformed output and recorder lines */
	atag_utest_write_file(st->path, "owner 5 6\noutput /no/tab\n");
	CU_ASSERT_PTR_NULL(atag_state_load(st->path));
	CU_ASSERT_EQUAL(errno, EBADMSG);
	atag_utest_write_file(st->path, "owner 5 6\nrecorder 7 8 junk\n");
	CU_ASSERT_PTR_NULL(atag_state_load(st->path));
	/* a recorder line without a program (older files) */
	atag_utest_write_file(st->path, "owner 5 6\nrecorder 7 8\n");
	ld = atag_state_load(st->path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ld);
	CU_ASSERT_PTR_NULL(ld->recorder_exe);
	atag_state_free(ld);
	atag_state_remove(st);
}

static unsigned long long fnv1a(const char *s)
{
	unsigned long long h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Holder records: the exact text, read back, collisions of names, all of them. */
static void test_holds(void)
{
	struct atag_tag t1 = tag("", "kmalloc_trace", 4100), t2 = tag("foo", "foo_alloc", 12);
	unsigned long long me = atag_proc_starttime(getpid());
	struct atag_hold hold, got, *all;
	char path[700], expect[512], *text;
	struct atag_holds *h;
	int n;

	h = atag_holds_lock(state_dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	/* no record yet: an empty one for the tag */
	CU_ASSERT_EQUAL(atag_holds_read(h, &t1, &hold), 0);
	CU_ASSERT_TRUE(atag_tag_same_site(&hold.tag, &t1));
	CU_ASSERT_EQUAL(hold.nr, 0);
	CU_ASSERT_FALSE(hold.owned);
	hold.owned = true;
	hold.allocinfo = strdup("/proc/allocinfo");
	CU_ASSERT_EQUAL(atag_hold_add(&hold, getpid(), me), 0);
	CU_ASSERT_EQUAL(atag_hold_add(&hold, getpid(), me), 0);	/* once */
	CU_ASSERT_EQUAL(atag_hold_add(&hold, 999999999, 5), 0);
	CU_ASSERT_EQUAL(hold.nr, 2);
	CU_ASSERT_EQUAL(atag_holds_write(h, &hold), 0);
	/* its name: the 64-bit FNV-1a hash of "\tmm/x.c\t4100\tkmalloc_trace" */
	snprintf(path, sizeof(path), "%s/tags/%016llx", state_dir, fnv1a("\tmm/x.c\t4100\tkmalloc_trace"));
	snprintf(expect, sizeof(expect),
		 "tag\t-\tmm/x.c\t4100\tkmalloc_trace\nallocinfo /proc/allocinfo\nowned\n"
		 "holder %d %llu\nholder 999999999 5\n", (int)getpid(), me);
	atag_utest_assert_file(path, expect);
	CU_ASSERT_EQUAL(atag_holds_read(h, &t1, &got), 1);
	CU_ASSERT_TRUE(got.owned);
	CU_ASSERT_EQUAL(got.nr, 2);
	/* the holder that does not run goes */
	CU_ASSERT_EQUAL(atag_hold_prune(&got), 1);
	CU_ASSERT_EQUAL(got.nr, 1);
	CU_ASSERT_EQUAL(got.holders[0].pid, getpid());
	CU_ASSERT_TRUE(atag_hold_drop(&got, getpid(), me));
	CU_ASSERT_FALSE(atag_hold_drop(&got, getpid(), me));
	atag_hold_release(&got);

	/* another site whose name is taken (a collision): the next name */
	text = atag_utest_read_file(path, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	atag_utest_write_file(path, "tag\tzz\tother.c\t1\tother\nholder 1 1\n");
	CU_ASSERT_EQUAL(atag_holds_read(h, &t1, &got), 0);	/* not t1's */
	atag_hold_release(&got);
	CU_ASSERT_EQUAL(atag_holds_write(h, &hold), 0);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), ".1");
	atag_utest_assert_file(path, text);
	free(text);
	CU_ASSERT_EQUAL(atag_holds_read(h, &t1, &got), 1);
	CU_ASSERT_EQUAL(got.nr, 2);
	atag_hold_release(&got);

	/* all records, a malformed one left out */
	hold.tag = t2;
	hold.owned = false;
	CU_ASSERT_EQUAL(atag_holds_write(h, &hold), 0);
	snprintf(path, sizeof(path), "%s/tags/junk", state_dir);
	atag_utest_write_file(path, "not a record\n");
	n = atag_holds_all(h, &all);
	CU_ASSERT_EQUAL(n, 3);
	while (n-- > 0)
		atag_hold_release(&all[n]);
	free(all);
	unlink(path);
	/* no holder and not owned: deleting */
	hold.nr = 0;
	CU_ASSERT_EQUAL(atag_holds_write(h, &hold), 0);
	CU_ASSERT_EQUAL(atag_holds_read(h, &t2, &got), 0);
	atag_hold_release(&got);
	CU_ASSERT_EQUAL(atag_holds_delete(h, &t1), 0);
	CU_ASSERT_EQUAL(atag_holds_delete(h, &t1), 0);
	atag_hold_release(&hold);
	/* the other site's record, by hand: then no record is left */
	snprintf(path, sizeof(path), "%s/tags/%016llx", state_dir,
		 fnv1a("\tmm/x.c\t4100\tkmalloc_trace"));
	CU_ASSERT_EQUAL(unlink(path), 0);
	atag_holds_unlock(h);
	/* nothing held, nothing left behind: the directory goes, and comes back */
	snprintf(path, sizeof(path), "%s/tags", state_dir);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	h = atag_holds_lock(state_dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(access(path, F_OK), 0);
	atag_holds_unlock(h);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
}

/* A child of ours: forked, with @sigint ignored or not, as a group leader or not. */
static pid_t spawn(bool ignore_int, bool leader)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (leader)
			setpgid(0, 0);
		signal(SIGINT, ignore_int ? SIG_IGN : SIG_DFL);
		close(p[0]);
		if (write(p[1], "", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

static int checks;

static bool refuse(pid_t pid, void *ctx)
{
	checks++;
	return false;
}

static bool accept_it(pid_t pid, void *ctx)
{
	checks++;
	return true;
}

/* atag_proc_stop(): what it never signals, what it proves first, how it escalates. */
static void test_proc_stop(void)
{
	struct atag_stop how = { .sig = SIGINT, .timeout_ms = 5000, .kill_timeout_ms = 2000 };
	int status;
	pid_t pid;

	/* never pid 1 (the check is not even asked), nor 0, nor ourselves */
	how.check = refuse;
	checks = 0;
	CU_ASSERT_EQUAL(atag_proc_stop(1, atag_proc_starttime(1), &how), -EINVAL);
	CU_ASSERT_EQUAL(atag_proc_stop(0, 0, &how), -EINVAL);
	CU_ASSERT_EQUAL(atag_proc_stop(-1, 0, &how), -EINVAL);
	CU_ASSERT_EQUAL(atag_proc_stop(getpid(), 0, &how), -EINVAL);
	CU_ASSERT_EQUAL(checks, 0);

	/* not proven: no signal at all */
	pid = spawn(false, false);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(atag_proc_stop(pid, 0, &how), -EPERM);
	CU_ASSERT_EQUAL(checks, 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, WNOHANG), 0);	/* still runs */
	/* proven: SIGINT ends it */
	how.check = accept_it;
	CU_ASSERT_EQUAL(atag_proc_stop(pid, 0, &how), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);

	/* it ignores SIGINT: SIGKILL for its whole group, which it leads */
	pid = spawn(true, true);
	CU_ASSERT_FATAL(pid > 0);
	how.timeout_ms = 200;
	how.repeat_ms = 50;
	how.group = true;
	CU_ASSERT_EQUAL(atag_proc_stop(pid, 0, &how), 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* in our group, not its own: SIGKILL for it alone (we are still here) */
	pid = spawn(true, false);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(atag_proc_stop(pid, 0, &how), 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* a process that is gone: nothing to do */
	CU_ASSERT_EQUAL(atag_proc_stop(pid, 0, &how), 0);
}

/* What /proc says: arguments, program, names, threads, descendants. */
static void test_proc_names(void)
{
	static const char args[] = "trace-cmd\0record\0-d\0-k\0-B\0inst\0-o\0x";
	const char *seq1[] = { "record", "-d", "-k", "-B", "inst", NULL };
	const char *seq2[] = { "-B", "ins", NULL }, *seq3[] = { "x", "y", NULL };
	const char *seq4[] = { "-o", "x", NULL };
	char buf[4096], *cmd = NULL, c;
	pid_t *pids, child;
	int n, ready[2];
	size_t len;

	CU_ASSERT_TRUE(atag_args_have(args, sizeof(args) - 1, seq1));
	CU_ASSERT_FALSE(atag_args_have(args, sizeof(args) - 1, seq2));
	CU_ASSERT_FALSE(atag_args_have(args, sizeof(args) - 1, seq3));
	/* the last argument, without its NUL */
	CU_ASSERT_FALSE(atag_args_have(args, sizeof(args) - 1, seq4));
	CU_ASSERT_TRUE(atag_args_have(args, sizeof(args), seq4));
	/* a child that runs sleep: its arguments, program and name */
	child = fork();
	if (child == 0) {
		execlp("sleep", "sleep", "1000", (char *)NULL);
		_exit(127);
	}
	CU_ASSERT_FATAL(child > 0);
	for (n = 0; n < 500; n++) {	/* until it runs sleep (a few ms) */
		cmd = atag_proc_cmdline(child, &len);
		if (cmd && !strcmp(cmd, "sleep"))
			break;
		free(cmd);
		cmd = NULL;
		usleep(10000);
	}
	CU_ASSERT_PTR_NOT_NULL(cmd);
	CU_ASSERT_TRUE(cmd && len == sizeof("sleep\0" "1000"));
	free(cmd);
	CU_ASSERT_EQUAL(atag_proc_exe(child, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf + strlen(buf) - strlen("/sleep"), "/sleep");
	CU_ASSERT_EQUAL(atag_proc_comm(child, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "sleep");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CU_ASSERT_EQUAL(atag_proc_comm(999999999, buf, sizeof(buf)), -ENOENT);
	n = atag_proc_threads(getpid(), &pids);
	CU_ASSERT_TRUE(n >= 1);
	CU_ASSERT_TRUE(n >= 1 && pids[0] == getpid());
	free(pids);
	CU_ASSERT_EQUAL(atag_proc_threads(999999999, &pids), -ENOENT);
	/* a child and its grandchild (which dies with it), both there before we look */
	CU_ASSERT_EQUAL_FATAL(pipe(ready), 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1);	/* the grandchild is ours to reap at the end */
	child = fork();
	if (child == 0) {
		close(ready[0]);
		if (fork() == 0) {
			/* ready once it dies with its parent (never an orphan left behind) */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1 || write(ready[1], "", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		close(ready[1]);
		for (;;)
			pause();
	}
	CU_ASSERT_FATAL(child > 0);
	close(ready[1]);
	CU_ASSERT_EQUAL(read(ready[0], &c, 1), 1);
	close(ready[0]);
	n = atag_proc_descendants(getpid(), &pids);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_TRUE(n >= 1 && pids[0] == child);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (n == 2)
		waitpid(pids[1], NULL, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	free(pids);
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
	CU_add_test(s, "output and recorder lines", test_state_output_and_exe);
	CU_add_test(s, "holder records", test_holds);
	CU_add_test(s, "process identity", test_proc_helpers);
	CU_add_test(s, "stopping a process: never unproven, escalated", test_proc_stop);
	CU_add_test(s, "processes: arguments, names, threads, children", test_proc_names);
}

ATAG_UTEST_SUITE("state", add_tests)
