// SPDX-License-Identifier: LGPL-2.1
/*
 * The task filter of a live view: pids given or forked from them, comms as the
 * sched events say they change. See atag-live-tasks.h and include/atag-live.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <glib.h>

#include "atag-live-tasks.h"
#include "atag-utils.h"

#define TASK_PID	0x1	/* selected by pid, or forked from one so selected */
#define TASK_COMM_KNOWN	0x2	/* its comm was judged */
#define TASK_COMM_MATCH	0x4	/* ... and matches a glob */

#define COMM_LEN	16	/* TASK_COMM_LEN */

void live_tasks_init(struct live_tasks *t, bool active, const char * const *comms,
		     unsigned int nr_comms, bool children)
{
	memset(t, 0, sizeof(*t));
	t->active = active;
	t->comms = comms;
	t->nr_comms = nr_comms;
	t->children = children;
	t->fork_id = t->exec_id = t->exit_id = t->rename_id = -1;
}

void live_tasks_free(struct live_tasks *t)
{
	atag_map_free(&t->tasks);
	if (t->names)
		g_hash_table_destroy(t->names);
	t->names = NULL;
}

int live_tasks_keep_names(struct live_tasks *t)
{
	if (!t->names)
		t->names = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free);
	return t->names ? 0 : -ENOMEM;
}

unsigned int live_tasks_nr_names(const struct live_tasks *t)
{
	return t->names ? g_hash_table_size(t->names) : 0;
}

/* The entry of @pid, made (empty) when missing; NULL without memory. */
static struct live_name *name_entry(struct live_tasks *t, int pid)
{
	struct live_name *n = g_hash_table_lookup(t->names, GINT_TO_POINTER(pid));

	if (n)
		return n;
	n = calloc(1, sizeof(*n));
	if (n)
		g_hash_table_insert(t->names, GINT_TO_POINTER(pid), n);
	return n;
}

static void name_set(struct live_name *n, const char *comm, size_t len)
{
	if (len >= sizeof(n->comm))
		len = sizeof(n->comm) - 1;
	memcpy(n->comm, comm, len);
	n->comm[len] = '\0';
}

const struct live_name *live_tasks_name(struct live_tasks *t, int pid)
{
	struct live_name *n;
	char path[64], *comm;
	size_t len = 0;

	if (!t->names)
		return NULL;
	n = g_hash_table_lookup(t->names, GINT_TO_POINTER(pid));
	if (n)
		return n;
	n = name_entry(t, pid);
	if (!n)
		return NULL;
	/* a task older than the view: its name now, or gone without our seeing it */
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	comm = atag_read_head(path, COMM_LEN, &len);
	if (comm)
		name_set(n, comm, strcspn(comm, "\n"));
	else
		n->exited = true;
	free(comm);
	return n;
}

struct forget {
	bool	(*keep)(void *ctx, int pid);
	void	*ctx;
};

static gboolean forget_one(gpointer key, gpointer value, gpointer data)
{
	const struct live_name *n = value;
	struct forget *f = data;

	return n->exited && !f->keep(f->ctx, GPOINTER_TO_INT(key));
}

void live_tasks_forget_exited(struct live_tasks *t, bool (*keep)(void *ctx, int pid), void *ctx)
{
	struct forget f = { keep, ctx };

	if (t->names)
		g_hash_table_foreach_remove(t->names, forget_one, &f);
}

const char * const *live_tasks_events(const struct live_tasks *t)
{
	static const char * const with_comms[] = {
		"sched:sched_process_fork", "sched:sched_process_exec",
		"sched:sched_process_exit", "task:task_rename", NULL
	};
	static const char * const pids[] = {
		"sched:sched_process_fork", "sched:sched_process_exit", NULL
	};

	if (!t->active && !t->names)
		return with_comms + 4;
	return t->nr_comms || t->names ? with_comms : pids;
}

static int event_id(struct tep_handle *tep, const char *sys, const char *name,
		    struct tep_event **ev)
{
	*ev = tep_find_event_by_name(tep, sys, name);
	return *ev ? (*ev)->id : -1;
}

void live_tasks_bind(struct live_tasks *t, struct tep_handle *tep)
{
	struct tep_event *ev;

	t->tep = tep;
	t->fork_id = event_id(tep, "sched", "sched_process_fork", &ev);
	if (ev) {
		t->fork_parent = tep_find_field(ev, "parent_pid");
		t->fork_child = tep_find_field(ev, "child_pid");
		t->fork_comm = tep_find_field(ev, "child_comm");
	}
	t->exec_id = event_id(tep, "sched", "sched_process_exec", &ev);
	if (ev) {
		t->exec_pid = tep_find_field(ev, "pid");
		t->exec_file = tep_find_field(ev, "filename");
	}
	t->exit_id = event_id(tep, "sched", "sched_process_exit", &ev);
	if (ev) {
		t->exit_pid = tep_find_field(ev, "pid");
		t->exit_comm = tep_find_field(ev, "comm");
	}
	t->rename_id = event_id(tep, "task", "task_rename", &ev);
	if (ev) {
		t->rename_pid = tep_find_field(ev, "pid");
		t->rename_comm = tep_find_field(ev, "newcomm");
	}
}

int live_tasks_add(struct live_tasks *t, int pid)
{
	uint64_t *v = atag_map_get(&t->tasks, (uint32_t)pid, 0, NULL);

	if (!v)
		return -ENOMEM;
	*v |= TASK_PID;
	return 0;
}

static bool comm_matches(const struct live_tasks *t, const char *comm)
{
	unsigned int i;

	for (i = 0; comm && i < t->nr_comms; i++)
		if (atag_glob_match(t->comms[i], comm))
			return true;
	return false;
}

/* Judge the comm of @pid, now known to be @comm (at most COMM_LEN - 1 bytes are it). */
static int set_comm(struct live_tasks *t, int pid, const char *comm, size_t len)
{
	struct live_name *n;
	char buf[COMM_LEN];
	uint64_t *v;

	if (t->names) {
		n = name_entry(t, pid);
		if (!n)
			return -ENOMEM;
		name_set(n, comm, len);
	}
	if (!t->nr_comms)
		return 0;
	if (len >= COMM_LEN)
		len = COMM_LEN - 1;
	memcpy(buf, comm, len);
	buf[len] = '\0';
	v = atag_map_get(&t->tasks, (uint32_t)pid, 0, NULL);
	if (!v)
		return -ENOMEM;
	*v = (*v & TASK_PID) | TASK_COMM_KNOWN | (comm_matches(t, buf) ? TASK_COMM_MATCH : 0);
	return 0;
}

static unsigned long long field_num(const struct tep_format_field *f, const struct tep_record *r)
{
	unsigned long long v = 0;

	if (f && f->offset + f->size <= r->size)
		tep_read_number_field((struct tep_format_field *)f, r->data, &v);
	return v;
}

/* A string field of @rec (fixed array or __data_loc), and its length bound. */
static const char *field_str(const struct tep_format_field *f, const struct tep_record *r,
			     size_t *len)
{
	unsigned int off, n;
	uint32_t loc;

	if (!f || f->offset + f->size > r->size)
		return NULL;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		off = f->offset;
		n = f->size;
	} else {
		if (f->size != 4)
			return NULL;
		memcpy(&loc, (const char *)r->data + f->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + 4;
		if (off + n > (unsigned int)r->size)
			return NULL;
	}
	*len = strnlen((const char *)r->data + off, n);
	return (const char *)r->data + off;
}

static int on_fork(struct live_tasks *t, const struct tep_record *rec)
{
	int parent = field_num(t->fork_parent, rec), child = field_num(t->fork_child, rec);
	uint64_t *pv = atag_map_find(&t->tasks, (uint32_t)parent), *cv;
	uint64_t inherit = pv && t->children ? *pv & TASK_PID : 0;
	const char *comm;
	size_t len;

	struct live_name *n;

	if (t->names) {
		/* a pid used again: a new task from here on */
		n = name_entry(t, child);
		if (!n)
			return -ENOMEM;
		memset(n, 0, sizeof(*n));
		n->since = rec->ts;
	}
	/*
	 * Its comm is the parent's now. A pid selected already is a command the
	 * caller forked and added before its fork event was read: it stays so (a
	 * pid's former holder was forgotten at its exit).
	 */
	cv = atag_map_get(&t->tasks, (uint32_t)child, 0, NULL);
	if (!cv)
		return -ENOMEM;
	*cv = (*cv & TASK_PID) | inherit;
	comm = field_str(t->fork_comm, rec, &len);
	return comm ? set_comm(t, child, comm, len) : 0;
}

static int on_exec(struct live_tasks *t, const struct tep_record *rec)
{
	const char *file, *base;
	size_t len;

	file = field_str(t->exec_file, rec, &len);
	if (!file)
		return 0;
	/* the comm becomes the program's name (kbasename of the filename) */
	base = memrchr(file, '/', len);
	base = base ? base + 1 : file;
	return set_comm(t, field_num(t->exec_pid, rec), base, len - (base - file));
}

/* A task exits: the filter forgets it, the names mark it so. */
static int on_task_exit(struct live_tasks *t, const struct tep_record *rec)
{
	int pid = field_num(t->exit_pid, rec);
	struct live_name *n;
	const char *comm;
	size_t len;

	atag_map_remove(&t->tasks, (uint32_t)pid, NULL);
	if (!t->names)
		return 0;
	n = name_entry(t, pid);
	if (!n)
		return -ENOMEM;
	comm = field_str(t->exit_comm, rec, &len);
	if (comm && !n->comm[0])
		name_set(n, comm, len);
	n->exited = true;
	n->exit_ts = rec->ts;
	return 0;
}

int live_tasks_note(struct live_tasks *t, const struct tep_record *rec, int type)
{
	const char *comm;
	size_t len;

	if ((!t->active && !t->names) || type < 0)
		return 0;
	if (type == t->fork_id)
		return on_fork(t, rec);
	if (type == t->exec_id)
		return on_exec(t, rec);
	if (type == t->rename_id) {
		comm = field_str(t->rename_comm, rec, &len);
		return comm ? set_comm(t, field_num(t->rename_pid, rec), comm, len) : 0;
	}
	/* a thread's exit forgets that thread (its pid) alone */
	if (type == t->exit_id)
		return on_task_exit(t, rec);
	return 0;
}

/* The comm of a task older than the view, from /proc. */
static void judge_from_proc(struct live_tasks *t, int pid)
{
	char path[64], *comm;
	size_t len = 0;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	comm = atag_read_head(path, COMM_LEN, &len);
	if (comm) {
		len = strcspn(comm, "\n");
		set_comm(t, pid, comm, len);
	} else {
		set_comm(t, pid, "", 0);	/* gone: judged as no name */
	}
	free(comm);
}

bool live_tasks_selected(struct live_tasks *t, int pid)
{
	uint64_t *v;

	if (!t->active)
		return true;
	v = atag_map_find(&t->tasks, (uint32_t)pid);
	if (v && (*v & TASK_PID))
		return true;
	if (!t->nr_comms)
		return false;
	if (!v || !(*v & TASK_COMM_KNOWN)) {
		judge_from_proc(t, pid);
		v = atag_map_find(&t->tasks, (uint32_t)pid);
	}
	return v && (*v & TASK_COMM_MATCH);
}
