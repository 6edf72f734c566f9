// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/kernel/atag-tracefs.c and lib/kernel/atag-recorder.c on a fake
 * tracefs tree (atag_tracefs_set_dir()): lost-event counters, instances, events, and
 * the recorder with stand-in writers. Recording itself needs root and is tested in
 * tests/t-record.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atag-recorder.h"
#include "atag-tracefs.h"
#include "atag-utest.h"
#include "atag-utils.h"

static char fake[512];

static void put(const char *rel, const char *text)
{
	char path[1024], cmd[1100];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fake, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		return;
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int setup_fake(void)
{
	snprintf(fake, sizeof(fake), "%s/faketfs", atag_utest_tmpdir());
	mkdir(fake, 0755);
	put("instances/trace-cmd-alloc-tag-1/per_cpu/cpu0/stats",
	    "entries: 3\noverrun: 10\ncommit overrun: 0\nbytes: 96\n"
	    "dropped events: 1\nread events: 100\n");
	put("instances/trace-cmd-alloc-tag-1/per_cpu/cpu1/stats",
	    "entries: 0\noverrun: 5\ncommit overrun: 0\nbytes: 0\n"
	    "dropped events: 0\nread events: 20\n");
	put("instances/trace-cmd-alloc-tag-1/tracing_on", "1\n");
	put("events/alloc_tag/alloc_tag_hit/format", "name: alloc_tag_hit\n");
	return atag_tracefs_set_dir(fake);
}

static int teardown_fake(void)
{
	return atag_tracefs_set_dir(NULL);
}

static void test_lost_events(void)
{
	struct atag_lost lost;

	CU_ASSERT_EQUAL_FATAL(atag_instance_lost_events("trace-cmd-alloc-tag-1", &lost), 0);
	CU_ASSERT_EQUAL(lost.overrun, 15);
	CU_ASSERT_EQUAL(lost.dropped, 1);
	CU_ASSERT_EQUAL(lost.read, 120);
	CU_ASSERT_EQUAL(lost.nr_cpus, 2);
	CU_ASSERT_EQUAL(atag_instance_lost_events("nope", &lost), -ENOENT);
}

static void test_instances_and_events(void)
{
	char path[1024];

	CU_ASSERT_STRING_EQUAL(atag_tracefs_dir(), fake);
	CU_ASSERT_TRUE(atag_event_exists("alloc_tag", "alloc_tag_hit"));
	CU_ASSERT_FALSE(atag_event_exists("alloc_tag", "alloc_tag_mem_freed"));
	CU_ASSERT_TRUE(atag_instance_exists("trace-cmd-alloc-tag-1"));
	CU_ASSERT_FALSE(atag_instance_exists("trace-cmd-alloc-tag-2"));
	/* never adopts an existing instance */
	CU_ASSERT_EQUAL(atag_instance_create("trace-cmd-alloc-tag-1"), -EEXIST);
	/* a plain directory has no tracing_on: the half-made instance is removed */
	CU_ASSERT_EQUAL(atag_instance_create("trace-cmd-alloc-tag-2"), -ENOENT);
	CU_ASSERT_FALSE(atag_instance_exists("trace-cmd-alloc-tag-2"));
	CU_ASSERT_EQUAL(atag_instance_destroy("trace-cmd-alloc-tag-3"), -ENOENT);
	snprintf(path, sizeof(path), "%s/instances/trace-cmd-alloc-tag-4", fake);
	mkdir(path, 0755);
	CU_ASSERT_EQUAL(atag_instance_destroy("trace-cmd-alloc-tag-4"), 0);
	CU_ASSERT_FALSE(atag_instance_exists("trace-cmd-alloc-tag-4"));
}

static void test_recorder_exits_early(void)
{
	static const char * const events[] = { "alloc_tag:alloc_tag_hit", NULL };
	struct atag_recorder_opts o = {
		.instance = "trace-cmd-alloc-tag-9",
		.output = "/dev/null",
		.trace_cmd = "false",		/* a writer that fails at once */
		.events = events,
		.log_fd = -1,
	};
	struct atag_recorder *r = atag_recorder_start(&o);

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_TRUE(atag_recorder_pid(r) > 0);
	CU_ASSERT_EQUAL(atag_recorder_wait_ready(r, 5000, -1), -ECHILD);
	CU_ASSERT_FALSE(atag_recorder_running(r));
	CU_ASSERT_EQUAL(atag_recorder_stop(r, 1000), 1);
	atag_recorder_free(r);

	o.trace_cmd = "/nonexistent/trace-cmd";
	r = atag_recorder_start(&o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(atag_recorder_wait_ready(r, 5000, -1), -ECHILD);
	CU_ASSERT_EQUAL(atag_recorder_stop(r, 5000), 127);
	atag_recorder_free(r);
}

static void test_recorder_stop_and_ready(void)
{
	static const char * const events[] = { "alloc_tag:alloc_tag_hit", NULL };
	struct atag_recorder_opts o = {
		.instance = "trace-cmd-alloc-tag-1",
		.output = "/dev/null",
		.events = events,
		.log_fd = -1,
	};
	char script[1024], on[1024];
	struct atag_recorder *r;
	int stop[2];		/* a stop fd that is readable: a stop asked for */
	FILE *f;

	snprintf(script, sizeof(script), "%s/fake-writer.sh", atag_utest_tmpdir());
	f = fopen(script, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	/* like trace-cmd: handles SIGINT, a reader a CPU, then switches the instance on */
	fputs("#!/bin/sh\nsleep 1000 &\nidle=$!\ntrap 'kill $idle; wait; exit 0' INT\n"
	      "for c in \"${FAKE_ON%/*}\"/per_cpu/cpu*; do\n"
	      "\t[ -d \"$c\" ] || continue\n\ttouch \"$c/trace_pipe_raw\"\n"
	      "\tsleep 1000 < \"$c/trace_pipe_raw\" &\n"
	      "\tidle=\"$idle $!\"\ndone\n"
	      "echo 1 > \"$FAKE_ON\"\nwait\n", f);
	fclose(f);
	chmod(script, 0755);
	snprintf(on, sizeof(on), "%s/instances/trace-cmd-alloc-tag-1/tracing_on", fake);
	setenv("FAKE_ON", on, 1);
	put("instances/trace-cmd-alloc-tag-1/tracing_on", "0\n");
	o.trace_cmd = script;
	r = atag_recorder_start(&o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL_FATAL(pipe(stop), 0);
	CU_ASSERT_EQUAL(write(stop[1], "", 1), 1);
	CU_ASSERT_EQUAL(atag_recorder_wait_ready(r, 5000, stop[0]), -EINTR);
	close(stop[0]);
	close(stop[1]);
	CU_ASSERT_EQUAL(atag_recorder_wait_ready(r, 5000, -1), 0);
	CU_ASSERT_TRUE(atag_recorder_running(r));
	/* SIGINT lets the writer finish: exit 0 */
	CU_ASSERT_EQUAL(atag_recorder_stop(r, 5000), 0);
	atag_recorder_free(r);

	unsetenv("FAKE_ON");
	o.instance = "trace-cmd-alloc-tag-none";	/* never ready */
	r = atag_recorder_start(&o);
	CU_ASSERT_EQUAL(atag_recorder_wait_ready(r, 100, -1), -ETIMEDOUT);
	atag_recorder_free(r);		/* kills it */
}

/*
 * The writer runs in the output's directory, given its base name: trace-cmd 3.1
 * writes files into its working directory, which may not be writable.
 */
static void test_recorder_output_dir(void)
{
	static const char * const events[] = { "alloc_tag:alloc_tag_hit", NULL };
	struct atag_recorder_opts o = {
		.instance = "trace-cmd-alloc-tag-5",
		.events = events,
		.log_fd = -1,
	};
	char script[1024], dir[1024], out[1200], seen[1024], want[PATH_MAX + 16], real[PATH_MAX];
	const char *tmp = atag_utest_tmpdir();
	struct atag_recorder *r;
	char *text;
	FILE *f;

	snprintf(script, sizeof(script), "%s/pwd-writer.sh", tmp);
	snprintf(seen, sizeof(seen), "%s/pwd-seen", tmp);
	snprintf(dir, sizeof(dir), "%s/out-dir", tmp);
	snprintf(out, sizeof(out), "%s/x.dat", dir);
	mkdir(dir, 0755);
	f = fopen(script, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "#!/bin/sh\nfor a; do last=$a; done\necho \"$(pwd -P) $last\" > '%s'\n", seen);
	fclose(f);
	chmod(script, 0755);
	o.output = out;
	o.trace_cmd = script;
	r = atag_recorder_start(&o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	atag_proc_wait(atag_recorder_pid(r), 0, 5000, -1);	/* it exits by itself */
	CU_ASSERT_EQUAL(atag_recorder_stop(r, 5000), 0);
	atag_recorder_free(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(dir, real));
	snprintf(want, sizeof(want), "%s x.dat\n", real);
	text = atag_utest_read_file(seen, NULL);
	CU_ASSERT_STRING_EQUAL(text ? text : "", want);
	free(text);
}

static int noted;
static char noted_tmp[1024];

/* The state file's note: made before the directory exists. */
static int note(const char *tmpdir, const char *final, void *ctx)
{
	noted++;
	snprintf(noted_tmp, sizeof(noted_tmp), "%s", tmpdir);
	return access(tmpdir, F_OK) ? 0 : -EEXIST;
}

static void write_in(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* The private directory, the commit (mode, a planted link) and the discard. */
static void test_output(void)
{
	char dir[1024], out[1100], victim[1200], buf[2048], *text;
	struct atag_output *o;
	struct stat st;
	mode_t old;

	snprintf(dir, sizeof(dir), "%s/outputs", atag_utest_tmpdir());
	mkdir(dir, 01777);
	snprintf(out, sizeof(out), "%s/x.dat", dir);
	snprintf(victim, sizeof(victim), "%s/victim", atag_utest_tmpdir());
	atag_utest_write_file(victim, "secret\n");
	CU_ASSERT_EQUAL(symlink(victim, out), 0);

	old = umask(022);
	noted = 0;
	o = atag_output_create(out, note, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(noted, 1);
	CU_ASSERT_STRING_EQUAL(atag_output_tmpdir(o), noted_tmp);
	CU_ASSERT_STRING_EQUAL(atag_output_path(o), out);
	CU_ASSERT_EQUAL(strncmp(noted_tmp + strlen(dir) + 1, ATAG_OUTPUT_TMP_PREFIX,
				strlen(ATAG_OUTPUT_TMP_PREFIX)), 0);
	CU_ASSERT_EQUAL(stat(noted_tmp, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0700);
	CU_ASSERT_FALSE(atag_output_full(o));
	write_in(atag_output_dirfd(o), ATAG_OUTPUT_NAME, "trace\n");
	write_in(atag_output_dirfd(o), "(null).cpu0", "");
	CU_ASSERT_EQUAL(atag_output_commit(o), 0);
	CU_ASSERT_EQUAL(atag_output_dirfd(o), -1);
	atag_output_free(o);
	/* the link was replaced: the victim is untouched, the file is ours, 0600 */
	atag_utest_assert_file(victim, "secret\n");
	atag_utest_assert_file(out, "trace\n");
	CU_ASSERT_EQUAL(lstat(out, &st), 0);
	CU_ASSERT_TRUE(S_ISREG(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
	CU_ASSERT_NOT_EQUAL(access(noted_tmp, F_OK), 0);

	/* a umask that shuts others out: the group may read */
	umask(027);
	CU_ASSERT_EQUAL(atag_output_mode(), 0640);
	umask(077);
	CU_ASSERT_EQUAL(atag_output_mode(), 0600);
	umask(022);
	o = atag_output_create(out, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	umask(027);
	write_in(atag_output_dirfd(o), ATAG_OUTPUT_NAME, "again\n");
	/* the trace.dat there is kept as x.dat.old (the link before was not) */
	CU_ASSERT_EQUAL(atag_output_commit(o), 1);
	atag_output_free(o);
	snprintf(victim, sizeof(victim), "%s.old", out);
	atag_utest_assert_file(victim, "trace\n");
	unlink(victim);
	CU_ASSERT_EQUAL(stat(out, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0640);
	umask(old);

	/* a failure: the partial file and the temporaries go, the old output stays */
	o = atag_output_create(out, note, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	write_in(atag_output_dirfd(o), ATAG_OUTPUT_NAME, "partial");
	write_in(atag_output_dirfd(o), "trace.dat.inst.cpu1", "x");
	atag_output_discard(o);
	atag_output_free(o);
	CU_ASSERT_NOT_EQUAL(access(noted_tmp, F_OK), 0);
	atag_utest_assert_file(out, "again\n");
	/* the recorder wrote nothing */
	o = atag_output_create(out, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(atag_output_commit(o), -ENOENT);
	atag_output_free(o);
	snprintf(buf, sizeof(buf), "ls -A '%s'", dir);
	text = atag_utest_run(buf, NULL, 1);
	CU_ASSERT_STRING_EQUAL(text ? text : "", "x.dat\n");
	free(text);

	/* never a directory or a device */
	CU_ASSERT_PTR_NULL(atag_output_create(dir, NULL, NULL));
	CU_ASSERT_EQUAL(errno, EISDIR);
	CU_ASSERT_PTR_NULL(atag_output_create("/dev/null", NULL, NULL));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(atag_output_create("/nonexistent/x.dat", NULL, NULL));
	CU_ASSERT_EQUAL(errno, ENOENT);
	/* nor a link to a device or a directory (as /dev/stdout is); a dangling link may go */
	snprintf(out, sizeof(out), "%s/null.dat", dir);
	CU_ASSERT_EQUAL_FATAL(symlink("/dev/null", out), 0);
	CU_ASSERT_PTR_NULL(atag_output_create(out, NULL, NULL));
	CU_ASSERT_EQUAL(errno, EINVAL);
	snprintf(out, sizeof(out), "%s/dir.dat", dir);
	CU_ASSERT_EQUAL_FATAL(symlink("/", out), 0);
	CU_ASSERT_PTR_NULL(atag_output_create(out, NULL, NULL));
	CU_ASSERT_EQUAL(errno, EISDIR);
	snprintf(out, sizeof(out), "%s/dangling.dat", dir);
	CU_ASSERT_EQUAL_FATAL(symlink("/nonexistent/x.dat", out), 0);
	o = atag_output_create(out, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL(o);
	atag_output_free(o);
}

/* reset's part: a complete trace.dat moved into place, a partial one removed. */
static void test_output_recover(void)
{
	char dir[1024], out[1100], tmp[1200], other[1200];
	struct atag_output *o;
	bool moved;

	snprintf(dir, sizeof(dir), "%s/recover", atag_utest_tmpdir());
	mkdir(dir, 0755);
	snprintf(out, sizeof(out), "%s/k.dat", dir);
	o = atag_output_create(out, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	snprintf(tmp, sizeof(tmp), "%s", atag_output_tmpdir(o));
	write_in(atag_output_dirfd(o), ATAG_OUTPUT_NAME, "partial");
	write_in(atag_output_dirfd(o), "trace.dat.x.cpu0", "");
	/* the caller died: the directory stays as it is (not freed) */
	CU_ASSERT_EQUAL(atag_output_recover(tmp, out, &moved), 0);
	CU_ASSERT_FALSE(moved);
	CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0);
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	atag_output_free(o);	/* its directory is gone: nothing left to do */

	o = atag_output_create(out, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	snprintf(tmp, sizeof(tmp), "%s", atag_output_tmpdir(o));
	write_in(atag_output_dirfd(o), ATAG_OUTPUT_NAME, "complete\n");
	CU_ASSERT_EQUAL(atag_output_recover(tmp, out, &moved), 0);
	CU_ASSERT_TRUE(moved);
	atag_utest_assert_file(out, "complete\n");
	CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0);
	atag_output_free(o);
	/* gone already */
	CU_ASSERT_EQUAL(atag_output_recover(tmp, out, &moved), 0);

	/* only a directory of ours beside its output: never another */
	snprintf(other, sizeof(other), "%s/not-ours", dir);
	mkdir(other, 0700);
	CU_ASSERT_EQUAL(atag_output_recover(other, out, &moved), -EINVAL);
	snprintf(other, sizeof(other), "%s/%sopen", dir, ATAG_OUTPUT_TMP_PREFIX);
	mkdir(other, 0755);
	CU_ASSERT_EQUAL(atag_output_recover(other, out, &moved), -EPERM);
	CU_ASSERT_EQUAL(access(other, F_OK), 0);
	snprintf(other, sizeof(other), "%s/%sx", atag_utest_tmpdir(), ATAG_OUTPUT_TMP_PREFIX);
	mkdir(other, 0700);
	CU_ASSERT_EQUAL(atag_output_recover(other, out, &moved), -EINVAL);
	CU_ASSERT_EQUAL(access(other, F_OK), 0);
}

/* With an output, the writer runs in its private directory, umask 077. */
static void test_recorder_in_private_dir(void)
{
	static const char * const events[] = { "alloc_tag:alloc_tag_hit", NULL };
	struct atag_recorder_opts o = {
		.instance = "trace-cmd-alloc-tag-5",
		.events = events,
		.log_fd = -1,
	};
	char script[1024], out[1100], real[PATH_MAX], want[PATH_MAX + 64];
	struct atag_recorder *r;
	struct atag_output *ou;
	char *text;
	FILE *f;

	snprintf(script, sizeof(script), "%s/private-writer.sh", atag_utest_tmpdir());
	snprintf(out, sizeof(out), "%s/private.dat", atag_utest_tmpdir());
	f = fopen(script, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "#!/bin/sh\nfor a; do last=$a; done\necho \"$(pwd -P) $last $(umask)\" > \"$last\"\n");
	fclose(f);
	chmod(script, 0755);
	ou = atag_output_create(out, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ou);
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(atag_output_tmpdir(ou), real));
	o.out = ou;
	o.trace_cmd = script;
	r = atag_recorder_start(&o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_STRING_EQUAL(atag_recorder_exe(r), script);
	atag_proc_wait(atag_recorder_pid(r), 0, 5000, -1);
	CU_ASSERT_EQUAL(atag_recorder_stop(r, 5000), 0);
	atag_recorder_free(r);
	CU_ASSERT_EQUAL(atag_output_commit(ou), 0);
	atag_output_free(ou);
	snprintf(want, sizeof(want), "%s trace.dat 0077\n", real);
	text = atag_utest_read_file(out, NULL);
	CU_ASSERT_STRING_EQUAL(text ? text : "", want);
	free(text);
}

static void add_tests(void)
{
	CU_pSuite s = CU_add_suite("record", setup_fake, teardown_fake);

	CU_add_test(s, "lost-event counters", test_lost_events);
	CU_add_test(s, "instances and events", test_instances_and_events);
	CU_add_test(s, "a writer that exits early", test_recorder_exits_early);
	CU_add_test(s, "ready, stop, timeout", test_recorder_stop_and_ready);
	CU_add_test(s, "the writer runs in the output's directory", test_recorder_output_dir);
	CU_add_test(s, "the output's private directory", test_output);
	CU_add_test(s, "reset's part of the output", test_output_recover);
	CU_add_test(s, "the writer runs in the private directory", test_recorder_in_private_dir);
}

ATAG_UTEST_SUITE("record", add_tests)
