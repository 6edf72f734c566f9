// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/kernel/atag-session.c: undoing what a state file lists (any user,
 * on a fake tracefs), and a whole session on this machine's tracefs (root): its own
 * instance, tags of the in-process allocinfo double (tests/doubles/), a stand-in
 * recorder, and the undoing of all of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atag-session.h"
#include "atag-utest.h"
#include "atag-utils.h"
#include "doubles/fakeinfo-model.h"

static char state_dir[512];

static int setup_dir(void)
{
	snprintf(state_dir, sizeof(state_dir), "%s/session-state", atag_utest_tmpdir());
	return 0;
}

/* ------------------------------------------------------------------ loaded sessions */

static void test_undo_guards(void)
{
	char path[600], text[256];
	struct atag_session *s;
	struct atag_undo u;
	bool kept;

	mkdir(state_dir, 0700);
	/* the owner still runs: nothing is touched */
	snprintf(path, sizeof(path), "%s/record-2.state", state_dir);
	snprintf(text, sizeof(text), "owner %d %llu\ninstance trace-cmd-alloc-tag-2\n",
		 (int)getppid(), atag_proc_starttime(getppid()));
	atag_utest_write_file(path, text);
	s = atag_session_load(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(atag_session_undo(s, &u), 0);
	CU_ASSERT_TRUE(u.owner_alive);
	CU_ASSERT_FALSE(u.instance_removed);
	atag_session_free(s);
	atag_utest_assert_file(path, text);

	/* an instance name that is not ours is never removed */
	atag_utest_write_file(path, "owner 999999999 1\ninstance someone-elses\n");
	s = atag_session_load(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(atag_session_undo(s, &u), -EINVAL);
	CU_ASSERT_FALSE(u.owner_alive);
	CU_ASSERT_STRING_EQUAL(u.failed_step, "instance");
	CU_ASSERT_EQUAL(atag_session_failed(s), ATAG_PART_INSTANCE);
	CU_ASSERT_FALSE(u.instance_removed);
	atag_session_free(s);

	/* nothing listed: nothing to do, and closing removes the file */
	atag_utest_write_file(path, "owner 999999999 1\n");
	s = atag_session_load(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(atag_session_undo(s, &u), 0);
	CU_ASSERT_EQUAL(u.tags_disabled + u.tags_gone, 0);
	CU_ASSERT_FALSE(u.recorder_stopped);
	CU_ASSERT_EQUAL(atag_session_close(s, &kept), 0);
	CU_ASSERT_FALSE(kept);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
}

static void test_undo_leaves_the_rest(void)
{
	char path[600], text[1024], expect[1024], tfs[600];
	const struct atag_state *st;
	struct atag_session *s;
	struct atag_undo u;
	bool kept;

	/* a fake tracefs without the instance: removing it finds it gone */
	mkdir(state_dir, 0700);
	snprintf(tfs, sizeof(tfs), "%s/undo-tracefs", atag_utest_tmpdir());
	mkdir(tfs, 0755);
	CU_ASSERT_EQUAL_FATAL(atag_tracefs_set_dir(tfs), 0);
	snprintf(path, sizeof(path), "%s/record-4.state", state_dir);
	snprintf(text, sizeof(text),
		 "owner 999999999 1\nallocinfo %s/none/allocinfo\ninstance trace-cmd-alloc-tag-4\n"
		 "tag\t-\tmm/x.c\t1\tf\nrecorder 999999998 7\ntag\tm\tmm/x.c\t2\tg\n",
		 state_dir);
	atag_utest_write_file(path, text);
	s = atag_session_load(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	st = atag_session_state(s);
	/* the allocinfo file is missing: the tags stay, the rest was done */
	CU_ASSERT_EQUAL(atag_session_undo(s, &u), -ENOENT);
	CU_ASSERT_STRING_EQUAL(u.failed_step, "allocinfo");
	CU_ASSERT_FALSE(u.recorder_stopped);
	CU_ASSERT_FALSE(u.instance_removed);
	CU_ASSERT_EQUAL(u.tags_left, 2);
	CU_ASSERT_EQUAL(u.tags_error, -ENOENT);
	CU_ASSERT_PTR_NULL(st->instance);
	CU_ASSERT_EQUAL(st->recorder, 0);
	CU_ASSERT_EQUAL(st->tags.nr, 2);
	/* closing keeps the file, listing only what is left */
	CU_ASSERT_EQUAL(atag_session_close(s, &kept), 0);
	CU_ASSERT_TRUE(kept);
	snprintf(expect, sizeof(expect),
		 "owner 999999999 1\nallocinfo %s/none/allocinfo\n"
		 "tag\t-\tmm/x.c\t1\tf\ntag\tm\tmm/x.c\t2\tg\n", state_dir);
	atag_utest_assert_file(path, expect);
	unlink(path);
	atag_tracefs_set_dir(NULL);
}

/* ------------------------------------------------------------------ a live session */

struct fake_ctx {
	struct fake_kernel	k;
	struct fake_file	f;
};

static int ops_ioctl(void *ctx, unsigned int cmd, void *arg)
{
	struct fake_ctx *c = ctx;

	return fake_ioctl(&c->f, cmd, arg, true);
}

static ssize_t ops_read(void *ctx, char *buf, size_t len, off_t off)
{
	return 0;
}

static const struct atag_allocinfo_ops fake_ops = { ops_ioctl, ops_read };

/* "FUNCTION=0|1 ..." of the double, in its order */
static void traced_of(const struct fake_kernel *k, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < k->nr && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s=%d", i ? " " : "", k->tags[i].function,
			      k->tags[i].traced);
}

/* A stand-in for trace-cmd record: switches the instance on, ends on SIGINT. */
static const char *write_writer(void)
{
	static char script[600];
	FILE *f;

	snprintf(script, sizeof(script), "%s/session-writer.sh", atag_utest_tmpdir());
	f = fopen(script, "w");
	if (!f)
		return NULL;
	/* like trace-cmd: a reader a CPU holding its trace_pipe_raw, then tracing_on */
	fputs("#!/bin/sh\nidle=\ntrap 'kill $idle; wait; exit 0' INT\n"
	      "for a; do [ \"$prev\" = -B ] && inst=$a; prev=$a; done\n"
	      "for c in \"$SESSION_TFS/instances/$inst\"/per_cpu/cpu*; do\n"
	      "\tsleep 1000 < \"$c/trace_pipe_raw\" &\n\tidle=\"$idle $!\"\ndone\n"
	      "echo 1 > \"$SESSION_TFS/instances/$inst/tracing_on\"\nwait\n", f);
	fclose(f);
	chmod(script, 0755);
	return script;
}

/*
 * The first part of the live test: a session with an instance, tags and a recorder,
 * undone. No fatal assertion once the instance exists: the undo must run whatever
 * failed, so that the test leaves nothing behind.
 */
static void live_session(struct atag_allocinfo *ai, struct fake_ctx *c,
			 const struct atag_taglist *tags, const char *tfs)
{
	static const char * const events[] = { "sched:sched_switch", NULL };
	struct atag_recorder_opts o = { .output = "/dev/null", .events = events, .log_fd = -1 };
	char expect[1024], traced[256], name[64], path[600];
	const struct atag_state *st;
	struct atag_recorder *rec;
	struct atag_enabled n;
	struct atag_session *s;
	struct atag_lost lost;
	struct atag_undo u;
	int stop[2];
	bool kept;

	s = atag_session_create(state_dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	st = atag_session_state(s);
	snprintf(path, sizeof(path), "%s", st->path);
	snprintf(name, sizeof(name), "trace-cmd-alloc-tag-%d", (int)getpid());
	CU_ASSERT_STRING_EQUAL(atag_session_instance_name(s), name);
	CU_ASSERT_EQUAL(atag_session_set_allocinfo(s, ai), 0);
	CU_ASSERT_EQUAL(atag_session_create_instance(s), 0);
	CU_ASSERT_TRUE(atag_instance_exists(name));
	CU_ASSERT_PTR_NOT_NULL(atag_session_instance(s));

	/* a stop asked for before the first tag: nothing is turned on */
	if (!pipe(stop)) {
		CU_ASSERT_EQUAL(write(stop[1], "", 1), 1);
		CU_ASSERT_EQUAL(atag_session_enable_tags(s, tags, stop[0], &n), -EINTR);
		CU_ASSERT_EQUAL(n.turned_on + n.already_on, 0);
		close(stop[0]);
		close(stop[1]);
	}
	CU_ASSERT_EQUAL(atag_session_enable_tags(s, tags, -1, &n), 0);
	CU_ASSERT_EQUAL(n.turned_on, 2);
	CU_ASSERT_EQUAL(n.already_on, 1);
	traced_of(&c->k, traced, sizeof(traced));
	CU_ASSERT_STRING_EQUAL(traced, "kmalloc_trace=1 foo_alloc=1 foo_bar=1");

	setenv("SESSION_TFS", tfs, 1);
	o.trace_cmd = write_writer();
	rec = atag_session_start_recorder(s, &o);
	CU_ASSERT_PTR_NOT_NULL(rec);
	if (rec) {
		CU_ASSERT_EQUAL(atag_recorder_wait_ready(rec, 5000, -1), 0);
		snprintf(expect, sizeof(expect),
			 "owner %d %llu\nallocinfo fake-allocinfo\ninstance %s\n"
			 "tag\t-\tmm/slub.c\t4100\tkmalloc_trace\n"
			 "tag\tfoo\tdrivers/foo/bar.c\t40\tfoo_bar\n"
			 "recorder %d %llu\n", (int)getpid(), atag_proc_starttime(getpid()), name,
			 (int)atag_recorder_pid(rec), atag_proc_starttime(atag_recorder_pid(rec)));
		atag_utest_assert_file(path, expect);
	}
	CU_ASSERT_EQUAL(atag_session_lost_events(s, &lost), 0);
	CU_ASSERT_TRUE(lost.nr_cpus > 0);

	/* the undo stops the recorder (SIGINT: it exits 0), turns both off, removes ours */
	CU_ASSERT_EQUAL(atag_session_undo(s, &u), 0);
	CU_ASSERT_TRUE(u.recorder_stopped);
	CU_ASSERT_EQUAL(u.tags_disabled, 2);
	CU_ASSERT_EQUAL(u.tags_left, 0);
	CU_ASSERT_TRUE(u.instance_removed);
	CU_ASSERT_FALSE(atag_instance_exists(name));
	CU_ASSERT_PTR_NULL(atag_session_instance(s));
	traced_of(&c->k, traced, sizeof(traced));
	CU_ASSERT_STRING_EQUAL(traced, "kmalloc_trace=0 foo_alloc=1 foo_bar=0");
	CU_ASSERT_EQUAL(atag_session_close(s, &kept), 0);
	CU_ASSERT_FALSE(kept);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	unsetenv("SESSION_TFS");
}

/* Turning off fails (a capability lost): the tags stay listed for reset. */
static void failed_undo(struct atag_allocinfo *ai, struct fake_ctx *c,
			const struct atag_taglist *tags)
{
	struct atag_session *s;
	struct atag_enabled n;
	struct atag_undo u;
	char path[600], *text;
	bool kept;

	s = atag_session_create(state_dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	snprintf(path, sizeof(path), "%s", atag_session_state(s)->path);
	CU_ASSERT_EQUAL(atag_session_set_allocinfo(s, ai), 0);
	CU_ASSERT_EQUAL(atag_session_enable_tags(s, tags, -1, &n), 0);
	CU_ASSERT_EQUAL(fake_control(&c->k, "deny"), 0);
	CU_ASSERT_EQUAL(atag_session_undo(s, &u), -EPERM);
	CU_ASSERT_STRING_EQUAL(u.failed_step, "allocinfo");
	CU_ASSERT_EQUAL(atag_session_failed(s), ATAG_PART_ALLOCINFO);
	CU_ASSERT_EQUAL(u.tags_left, 2);
	CU_ASSERT_EQUAL(atag_session_close(s, &kept), 0);
	CU_ASSERT_TRUE(kept);
	text = atag_utest_read_file(path, NULL);
	CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "tag\tfoo\tdrivers/foo/bar.c\t40\tfoo_bar\n"));
	free(text);
	unlink(path);
	CU_ASSERT_EQUAL(fake_control(&c->k, "allow"), 0);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, &tags->tags[0], false), 0);
	CU_ASSERT_EQUAL(atag_allocinfo_toggle_tag(ai, &tags->tags[2], false), 0);

	/* someone else turns a tag on between the listing and the toggle: not ours */
	s = atag_session_create(state_dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(atag_session_set_allocinfo(s, ai), 0);
	CU_ASSERT_EQUAL(fake_control(&c->k, "race"), 0);
	CU_ASSERT_EQUAL(atag_session_enable_tag(s, &tags->tags[0]), 1);
	CU_ASSERT_EQUAL(atag_session_state(s)->tags.nr, 0);
	CU_ASSERT_EQUAL(atag_session_undo(s, &u), 0);
	CU_ASSERT_EQUAL(atag_session_close(s, &kept), 0);
}

static void test_live_session(void)
{
	struct atag_taglist *tags = NULL;
	struct atag_allocinfo *ai;
	struct fake_ctx c;
	const char *tfs;
	char err[128];

	atag_tracefs_set_dir(NULL);
	tfs = atag_tracefs_dir();
	if (getuid() || !tfs || access(tfs, W_OK)) {
		fprintf(stderr, "session: live session skipped: %s\n",
			getuid() ? "not root" : "no writable tracefs");
		return;
	}
	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL_FATAL(fake_kernel_load(&c.k,
		"tag 4096 1 mm/slub.c:4100 func:kmalloc_trace\n"
		"tag 1024 2 drivers/foo/foo.c:12 [foo] func:foo_alloc traced\n"
		"tag 300 3 drivers/foo/bar.c:40 [foo] func:foo_bar\n", err, sizeof(err)), 0);
	c.f.k = &c.k;
	ai = atag_allocinfo_open_ops("fake-allocinfo", &fake_ops, &c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ai);
	CU_ASSERT_EQUAL(atag_allocinfo_list(ai, NULL, &tags), 0);
	mkdir(state_dir, 0700);
	if (tags && tags->nr == 3) {
		live_session(ai, &c, tags, tfs);
		failed_undo(ai, &c, tags);
	}
	atag_taglist_free(tags);
	atag_allocinfo_close(ai);
	fake_kernel_free(&c.k);
}

static void add_tests(void)
{
	CU_pSuite s = CU_add_suite("session", setup_dir, NULL);

	CU_add_test(s, "undo: live owner, foreign instance, nothing", test_undo_guards);
	CU_add_test(s, "undo leaves what it could not undo", test_undo_leaves_the_rest);
	CU_add_test(s, "a session on this machine's tracefs", test_live_session);
}

ATAG_UTEST_SUITE("session", add_tests)
