// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the task filter of a live view (lib/live/atag-live-tasks.c) on
 * sched event records built from the kernel's own formats (tests/fixture/formats/):
 * pids and their children, a command added before its fork event is read, exits
 * forgetting a pid that is used again, comms set by fork, exec and rename, and
 * /proc for a task older than the view.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "atag-utest.h"
#include "atag-lifetime.h"
#include "atag-live.h"
#include "atag-live-tasks.h"
#include "fixture/tracedat-writer.h"

static struct tep_handle *tep;
static int fork_id, exec_id, exit_id, rename_id;

/* The id of the embedded format @path parsed into tep, or -1 (no CUnit test runs yet). */
static int parse(const char *path, const char *sys)
{
	const char *text = tdw_format_text(path);
	struct tep_event *ev;

	if (!text || tep_parse_event(tep, text, strlen(text), sys))
		return -1;
	ev = tep_find_event_by_name(tep, sys, strchr(path, '/') + 1);
	return ev ? ev->id : -1;
}

static int suite_init(void)
{
	tep = tep_alloc();
	if (!tep)
		return 1;
	tep_set_long_size(tep, sizeof(long));
	fork_id = parse("sched/sched_process_fork", "sched");
	exec_id = parse("sched/sched_process_exec", "sched");
	exit_id = parse("sched/sched_process_exit", "sched");
	rename_id = parse("task/task_rename", "task");
	return fork_id < 0 || exec_id < 0 || exit_id < 0 || rename_id < 0;
}

static int suite_clean(void)
{
	tep_free(tep);
	return 0;
}

/* A record of event @id: its fields set by name, strings as the format has them. */
struct rec {
	struct tep_record	r;
	unsigned char		data[256];
	unsigned int		end;		/* where the next __data_loc string goes */
};

static void rec_init(struct rec *r, int id)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->data, &(unsigned short){ id }, 2);
	r->end = 64;
	r->r.data = r->data;
	r->r.size = sizeof(r->data);
}

static struct tep_format_field *field(int id, const char *name)
{
	struct tep_format_field *f = tep_find_field(tep_find_event(tep, id), name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	return f;
}

static void set_int(struct rec *r, int id, const char *name, int v)
{
	memcpy(r->data + field(id, name)->offset, &v, 4);
}

static void set_str(struct rec *r, int id, const char *name, const char *s)
{
	struct tep_format_field *f = field(id, name);
	unsigned int len = strlen(s) + 1, loc;

	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		strncpy((char *)r->data + f->offset, s, f->size);
		return;
	}
	loc = len << 16 | r->end;
	memcpy(r->data + f->offset, &loc, 4);
	memcpy(r->data + r->end, s, len);
	r->end += len;
}

static void fork_ev(struct live_tasks *t, int parent, int child, const char *comm)
{
	struct rec r;

	rec_init(&r, fork_id);
	set_int(&r, fork_id, "parent_pid", parent);
	set_int(&r, fork_id, "child_pid", child);
	set_str(&r, fork_id, "parent_comm", comm);
	set_str(&r, fork_id, "child_comm", comm);
	CU_ASSERT_EQUAL(live_tasks_note(t, &r.r, fork_id), 0);
}

static void exec_ev(struct live_tasks *t, int pid, const char *file)
{
	struct rec r;

	rec_init(&r, exec_id);
	set_int(&r, exec_id, "pid", pid);
	set_int(&r, exec_id, "old_pid", pid);
	set_str(&r, exec_id, "filename", file);
	CU_ASSERT_EQUAL(live_tasks_note(t, &r.r, exec_id), 0);
}

static void exit_ev(struct live_tasks *t, int pid)
{
	struct rec r;

	rec_init(&r, exit_id);
	set_int(&r, exit_id, "pid", pid);
	set_str(&r, exit_id, "comm", "x");
	CU_ASSERT_EQUAL(live_tasks_note(t, &r.r, exit_id), 0);
}

static void rename_ev(struct live_tasks *t, int pid, const char *comm)
{
	struct rec r;

	rec_init(&r, rename_id);
	set_int(&r, rename_id, "pid", pid);
	set_str(&r, rename_id, "oldcomm", "old");
	set_str(&r, rename_id, "newcomm", comm);
	CU_ASSERT_EQUAL(live_tasks_note(t, &r.r, rename_id), 0);
}

static void test_no_filter(void)
{
	struct live_tasks t;

	live_tasks_init(&t, false, NULL, 0, false);
	live_tasks_bind(&t, tep);
	CU_ASSERT(live_tasks_selected(&t, 1));
	CU_ASSERT_PTR_NULL(live_tasks_events(&t)[0]);
	live_tasks_free(&t);
}

static void test_pids_and_children(void)
{
	struct live_tasks t;

	live_tasks_init(&t, true, NULL, 0, true);
	live_tasks_bind(&t, tep);
	CU_ASSERT_STRING_EQUAL(live_tasks_events(&t)[0], "sched:sched_process_fork");
	CU_ASSERT_EQUAL(live_tasks_add(&t, 100), 0);
	CU_ASSERT(live_tasks_selected(&t, 100));
	CU_ASSERT(!live_tasks_selected(&t, 200));
	/* children of a selected task, and theirs */
	fork_ev(&t, 100, 101, "make");
	fork_ev(&t, 101, 102, "make");
	fork_ev(&t, 200, 201, "bash");
	CU_ASSERT(live_tasks_selected(&t, 101));
	CU_ASSERT(live_tasks_selected(&t, 102));
	CU_ASSERT(!live_tasks_selected(&t, 201));
	/* an exited task is forgotten: its pid used again by another is not selected */
	exit_ev(&t, 101);
	CU_ASSERT(!live_tasks_selected(&t, 101));
	fork_ev(&t, 200, 101, "bash");
	CU_ASSERT(!live_tasks_selected(&t, 101));
	/* a command added before its own fork event is read stays selected */
	CU_ASSERT_EQUAL(live_tasks_add(&t, 300), 0);
	fork_ev(&t, 1, 300, "top");
	CU_ASSERT(live_tasks_selected(&t, 300));
	live_tasks_free(&t);

	/* without following children, a child is not selected */
	live_tasks_init(&t, true, NULL, 0, false);
	live_tasks_bind(&t, tep);
	live_tasks_add(&t, 100);
	fork_ev(&t, 100, 101, "make");
	CU_ASSERT(!live_tasks_selected(&t, 101));
	live_tasks_free(&t);
}

static void test_comms(void)
{
	static const char * const globs[] = { "foo*" };
	const char *self[1];
	struct live_tasks t;
	char comm[32] = "";
	FILE *f;

	live_tasks_init(&t, true, globs, 1, false);
	live_tasks_bind(&t, tep);
	CU_ASSERT_STRING_EQUAL(live_tasks_events(&t)[3], "task:task_rename");
	/* forked as "sh": not yet; its exec names it after the program */
	fork_ev(&t, 1, 500, "sh");
	CU_ASSERT(!live_tasks_selected(&t, 500));
	exec_ev(&t, 500, "/usr/local/bin/foobar");
	CU_ASSERT(live_tasks_selected(&t, 500));
	/* a thread of it has its comm */
	fork_ev(&t, 500, 501, "foobar");
	CU_ASSERT(live_tasks_selected(&t, 501));
	/* renamed: judged again */
	rename_ev(&t, 500, "bar");
	CU_ASSERT(!live_tasks_selected(&t, 500));
	CU_ASSERT(live_tasks_selected(&t, 501));
	/* the comm is the program name cut to 15 characters, as the kernel cuts it */
	live_tasks_free(&t);

	/*
	 * a task older than the view: /proc says. This program's comm as the kernel
	 * has it (atag-utest, or valgrind's under valgrind)
	 */
	f = fopen("/proc/self/comm", "r");
	CU_ASSERT_FATAL(f && fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	self[0] = comm;
	live_tasks_init(&t, true, self, 1, false);
	live_tasks_bind(&t, tep);
	CU_ASSERT(live_tasks_selected(&t, getpid()));
	exec_ev(&t, getpid(), "/bin/other");
	CU_ASSERT(!live_tasks_selected(&t, getpid()));
	live_tasks_free(&t);
}

/* A screen of two call sites, one with objects allocated again while live. */
static void test_render_reused(void)
{
	struct atag_lifetime none = { 0 };
	struct atag_live_site sites[2] = {
		{ .tag = 1, .function = "mas_alloc_nodes", .offset = 0x42, .line = -1,
		  .counts = { .allocs = 5, .live = 4, .live_bytes = 1024, .replaced = 3 },
		  .lifetimes = &none },
		{ .tag = 2, .function = "getname_flags", .offset = 0x24, .line = -1,
		  .counts = { .allocs = 2, .frees = 2 }, .lifetimes = &none },
	};
	struct atag_live_snapshot snap = { .source = "kmem", .sites = sites, .nr_sites = 2 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(atag_live_render_text(&snap, NULL, f), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "mas_alloc_nodes+0x42 [reused while live 3x]\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "getname_flags+0x24\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n[reused while live]: allocated again at an address"));
	free(text);

	/* no site reused: no legend */
	snap.sites = &sites[1];
	snap.nr_sites = 1;
	text = NULL;
	f = open_memstream(&text, &len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(atag_live_render_text(&snap, NULL, f), 0);
	fclose(f);
	CU_ASSERT_PTR_NULL(strstr(text, "reused"));
	free(text);
}

/* A screen cut to 75 columns: the call site elided in its middle, the numbers whole. */
static void test_render_columns(void)
{
	struct atag_lifetime none = { 0 };
	struct atag_live_site site = {
		.tag = 1, .function = "a_rather_long_function_name_for_a_call_site",
		.offset = 0x42, .line = -1,
		.counts = { .allocs = 5, .live = 4, .live_bytes = 1024 },
		.lifetimes = &none,
	};
	struct atag_live_snapshot snap = { .source = "kmem", .sites = &site, .nr_sites = 1 };
	struct atag_live_render_opts o = { .columns = 75 };
	char *text[2] = { NULL, NULL }, *line[2], *nl;
	size_t len, n;
	FILE *f;
	int i;

	for (i = 0; i < 2; i++) {
		f = open_memstream(&text[i], &len);
		CU_ASSERT_FATAL(f != NULL);
		CU_ASSERT_EQUAL(atag_live_render_text(&snap, i ? &o : NULL, f), 0);
		fclose(f);
		line[i] = strstr(text[i], "\n    ");	/* the row: ALLOCS right-aligned */
		CU_ASSERT_FATAL(line[i] != NULL);
		line[i]++;
	}
	nl = strchr(line[1], '\n');
	n = nl - line[1];
	CU_ASSERT_EQUAL(n, 75);
	/*
	 * the same up to the call site (58 columns), then its 17: 7 of its start,
	 * "...", 7 of its end
	 */
	n = strstr(line[0], "a_rather") - line[0];
	CU_ASSERT_EQUAL(n, 58);
	CU_ASSERT_EQUAL(strncmp(line[0], line[1], n), 0);
	CU_ASSERT_EQUAL(strncmp(line[1] + n, "a_rathe...te+0x42\n", 18), 0);
	free(text[0]);
	free(text[1]);
}

static void test_long_names(void)
{
	static const char * const globs[] = { "abcdefghijklmno" };
	struct live_tasks t;

	live_tasks_init(&t, true, globs, 1, false);
	live_tasks_bind(&t, tep);
	exec_ev(&t, 600, "/opt/abcdefghijklmnopqrstuvwxyz");
	CU_ASSERT(live_tasks_selected(&t, 600));
	live_tasks_free(&t);
}

static void add_suite(void)
{
	CU_pSuite s = CU_add_suite("live", suite_init, suite_clean);

	CU_add_test(s, "no filter: every task", test_no_filter);
	CU_add_test(s, "pids, their children, exits, a command's fork", test_pids_and_children);
	CU_add_test(s, "comms from fork, exec, rename and /proc", test_comms);
	CU_add_test(s, "comms cut to 15 characters", test_long_names);
	CU_add_test(s, "text: sites reused while live marked, the mark explained",
		    test_render_reused);
	CU_add_test(s, "text: cut to the width by eliding the call site", test_render_columns);
}

ATAG_UTEST_SUITE("live", add_suite)
