// SPDX-License-Identifier: LGPL-2.1
/*
 * The recording's description (its trace_marker lines) and the task scope it
 * defines. See atag-recording.h.
 *
 * The scope keeps an entry per task it knows something of: the tasks the lines
 * name and those forked from them; any other task is ATAG_TASK_OTHER (or, for a
 * file without description, ATAG_TASK_ANY). An entry packs the class, whether a
 * line named the task (a fork then does not change it, unless the task exited
 * first and its pid is being reused) and the filter's decision, made once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atag-map.h"
#include "atag-marker.h"
#include "atag-recording.h"
#include "atag-utils.h"


/* ------------------------------------------------------------ lines */

struct atag_recording *atag_recording_alloc(void)
{
	struct atag_recording *r = calloc(1, sizeof(*r));

	if (r) {
		r->sample_moves = -1;
		r->linger_ms = -1;
	}
	return r;
}

static void tag_free(struct atag_marker_tag *t)
{
	free(t->module);
	free(t->file);
	free(t->function);
}

static void tasks_free(struct atag_marker_task *t, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(t[i].comm);
	free(t);
}

static void tags_free(struct atag_marker_tag *t, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		tag_free(&t[i]);
	free(t);
}

static void counters_free(struct atag_marker_counters *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		tag_free(&c[i].tag);
	free(c);
}

void atag_recording_free(struct atag_recording *r)
{
	if (!r)
		return;
	free(r->source);
	tasks_free(r->recorders, r->nr_recorders);
	tasks_free(r->workloads, r->nr_workloads);
	tags_free(r->selected, r->nr_selected);
	tags_free(r->also_traced, r->nr_also_traced);
	counters_free(r->counters_start, r->nr_counters_start);
	counters_free(r->counters_end, r->nr_counters_end);
	free(r->end_reason);
	while (r->nr_sampled--) {
		free(r->sampled[r->nr_sampled].event);
		free(r->sampled[r->nr_sampled].how);
	}
	free(r->sampled);
	if (r->selected_keys)
		g_hash_table_destroy(r->selected_keys);
	free(r);
}

/* A field as a string: '?' is a name that could not be written (NULL). */
static char *field_dup(const char *f)
{
	return strcmp(f, "?") ? strdup(f) : NULL;
}

static bool parse_int(const char *f, long long min, long long max, long long *v)
{
	unsigned long long u;

	if (f[0] == '-' && min < 0) {
		if (atag_parse_u64(f + 1, &u) || u > (unsigned long long)-min)
			return false;
		*v = -(long long)u;
		return true;
	}
	if (atag_parse_u64(f, &u) || u > (unsigned long long)max)
		return false;
	*v = u;
	return true;
}

/* module, file, line, function */
static bool parse_tag(char **f, struct atag_marker_tag *t)
{
	long long line;

	memset(t, 0, sizeof(*t));
	if (!parse_int(f[2], -1, 0x7fffffff, &line))
		return false;
	t->line = line;
	t->module = strcmp(f[0], "-") ? field_dup(f[0]) : NULL;
	t->file = field_dup(f[1]);
	t->function = field_dup(f[3]);
	return true;
}

/*
 * Room for one more element of @size bytes in *@arr of @n: the array doubles when
 * @n reaches a power of two (a file may hold a million lines).
 */
static bool grow(void *arr, unsigned int n, size_t size)
{
	void **p = arr, *m;

	if (n & (n - 1))
		return true;
	m = realloc(*p, (n ? 2 * (size_t)n : 1) * size);
	if (!m)
		return false;
	*p = m;
	return true;
}

static unsigned int str_hash(unsigned int h, const char *s)
{
	return s ? h * 31 + g_str_hash(s) : h * 31 + 0x9e3779b9;
}

unsigned int atag_marker_tag_hash(const void *p)
{
	const struct atag_marker_tag *t = p;

	return str_hash(str_hash(str_hash((unsigned int)t->line, t->function), t->file),
			t->module);
}

static bool same_str(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

int atag_marker_tag_equal(const void *pa, const void *pb)
{
	const struct atag_marker_tag *a = pa, *b = pb;

	return a->line == b->line && same_str(a->function, b->function) &&
	       same_str(a->file, b->file) && same_str(a->module, b->module);
}

/*
 * A "select" line's tag joins the tags looked up (one that can match: with function
 * and file). The key is a copy of its pointers: the list moves as it grows, its
 * strings do not.
 */
static void index_selected(struct atag_recording *r, const struct atag_marker_tag *t)
{
	if (!t->function || !t->file)
		return;
	if (!r->selected_keys)
		r->selected_keys = g_hash_table_new_full(atag_marker_tag_hash,
							 atag_marker_tag_equal, g_free, NULL);
	g_hash_table_add(r->selected_keys, g_memdup2(t, sizeof(*t)));
}

static enum atag_marker add_task(struct atag_marker_task **list, unsigned int *n, char **f,
				 int nf, enum atag_marker kind)
{
	long long pid;

	if (nf != 2 || !parse_int(f[0], 1, 0x7fffffff, &pid))
		return ATAG_MARKER_UNKNOWN;
	if (!grow(list, *n, sizeof(**list)))
		return ATAG_MARKER_NONE;
	(*list)[*n].pid = pid;
	(*list)[(*n)++].comm = field_dup(f[1]);
	return kind;
}

static enum atag_marker add_tag(struct atag_recording *r, struct atag_marker_tag **list,
				unsigned int *n, char **f, int nf, enum atag_marker kind)
{
	struct atag_marker_tag t;

	if (nf != 4 || !parse_tag(f, &t))
		return ATAG_MARKER_UNKNOWN;
	if (!grow(list, *n, sizeof(**list))) {
		tag_free(&t);
		return ATAG_MARKER_NONE;
	}
	(*list)[(*n)++] = t;
	if (kind == ATAG_MARKER_SELECT)
		index_selected(r, &t);
	return kind;
}

static enum atag_marker add_counters(struct atag_recording *r, char **f, int nf, uint64_t ts)
{
	struct atag_marker_counters c = { .ts = ts }, **list;
	unsigned int *n;
	bool start;

	if (nf != 7 || (strcmp(f[0], "start") && strcmp(f[0], "end")) ||
	    atag_parse_u64(f[1], (unsigned long long *)&c.bytes) ||
	    atag_parse_u64(f[2], (unsigned long long *)&c.calls) || !parse_tag(f + 3, &c.tag))
		return ATAG_MARKER_UNKNOWN;
	start = !strcmp(f[0], "start");
	list = start ? &r->counters_start : &r->counters_end;
	n = start ? &r->nr_counters_start : &r->nr_counters_end;
	if (!grow(list, *n, sizeof(**list))) {
		tag_free(&c.tag);
		return ATAG_MARKER_NONE;
	}
	(*list)[(*n)++] = c;
	return start ? ATAG_MARKER_COUNTERS_START : ATAG_MARKER_COUNTERS_END;
}

/* "stack-sample EVENT N HOW" */
static enum atag_marker add_sampled(struct atag_recording *r, char **f, int nf)
{
	struct atag_marker_sampled *s;
	long long every;

	if (nf != 3 || !strchr(f[0], ':') || !parse_int(f[1], 1, 1 << 20, &every))
		return ATAG_MARKER_UNKNOWN;
	s = realloc(r->sampled, (r->nr_sampled + 1) * sizeof(*s));
	if (!s)
		return ATAG_MARKER_NONE;
	r->sampled = s;
	s = &s[r->nr_sampled];
	s->event = strdup(f[0]);
	s->how = strdup(f[2]);
	s->every = every;
	if (!s->event || !s->how) {
		free(s->event);
		free(s->how);
		return ATAG_MARKER_NONE;
	}
	r->nr_sampled++;
	return ATAG_MARKER_SAMPLED;
}

/* "profiling start|end on|off|unknown" */
static enum atag_marker add_profiling(struct atag_recording *r, char **f, int nf)
{
	static const char * const words[] = {
		[ATAG_MARKER_PROFILING_ON] = "on", [ATAG_MARKER_PROFILING_OFF] = "off",
		[ATAG_MARKER_PROFILING_UNKNOWN] = "unknown",
	};
	enum atag_marker_profiling p;

	if (nf != 2 || (strcmp(f[0], "start") && strcmp(f[0], "end")))
		return ATAG_MARKER_UNKNOWN;
	for (p = ATAG_MARKER_PROFILING_ON; p <= ATAG_MARKER_PROFILING_UNKNOWN; p++)
		if (!strcmp(f[1], words[p]))
			break;
	if (p > ATAG_MARKER_PROFILING_UNKNOWN)
		return ATAG_MARKER_UNKNOWN;
	if (!strcmp(f[0], "start"))
		r->profiling_start = p;
	else
		r->profiling_end = p;
	return ATAG_MARKER_PROFILING;
}

static enum atag_marker keyword(struct atag_recording *r, const char *kw, char **f, int nf,
				uint64_t ts)
{
	long long pid;

	if (!strcmp(kw, ATAG_MK_RECORD)) {
		if (nf != 3 || !parse_int(f[0], 1, 0x7fffffff, &pid) ||
		    (strcmp(f[2], "yes") && strcmp(f[2], "no")))
			return ATAG_MARKER_UNKNOWN;
		free(r->source);
		r->source = field_dup(f[1]);
		r->record_pid = pid;
		r->stacks = !strcmp(f[2], "yes");
		r->first_ts = ts;
		r->labelled = true;
		return ATAG_MARKER_RECORD;
	}
	if (!strcmp(kw, ATAG_MK_RECORDER))
		return add_task(&r->recorders, &r->nr_recorders, f, nf, ATAG_MARKER_RECORDER);
	if (!strcmp(kw, ATAG_MK_WORKLOAD))
		return add_task(&r->workloads, &r->nr_workloads, f, nf, ATAG_MARKER_WORKLOAD);
	if (!strcmp(kw, ATAG_MK_SELECT))
		return add_tag(r, &r->selected, &r->nr_selected, f, nf, ATAG_MARKER_SELECT);
	if (!strcmp(kw, ATAG_MK_SELECT_ALL)) {
		if (nf)
			return ATAG_MARKER_UNKNOWN;
		r->select_all = true;
		return ATAG_MARKER_SELECT;
	}
	if (!strcmp(kw, ATAG_MK_ALSO_TRACED))
		return add_tag(r, &r->also_traced, &r->nr_also_traced, f, nf,
			       ATAG_MARKER_ALSO_TRACED);
	if (!strcmp(kw, ATAG_MK_COUNTERS))
		return add_counters(r, f, nf, ts);
	if (!strcmp(kw, ATAG_MK_COUNTERS_READING)) {
		if (nf != 1 || (strcmp(f[0], "start") && strcmp(f[0], "end")))
			return ATAG_MARKER_UNKNOWN;
		return strcmp(f[0], "start") ? ATAG_MARKER_COUNTERS_READING_END :
					       ATAG_MARKER_COUNTERS_READING_START;
	}
	if (!strcmp(kw, ATAG_MK_PROFILING))
		return add_profiling(r, f, nf);
	if (!strcmp(kw, ATAG_MK_DESCRIBED)) {
		if (nf)
			return ATAG_MARKER_UNKNOWN;
		return ATAG_MARKER_DESCRIBED;
	}
	if (!strcmp(kw, ATAG_MK_STACK_SAMPLE))
		return add_sampled(r, f, nf);
	if (!strcmp(kw, ATAG_MK_STACK_SAMPLE_MOVES)) {
		if (nf != 1 || !parse_int(f[0], 0, 0x7fffffff, &pid))
			return ATAG_MARKER_UNKNOWN;
		r->sample_moves = pid;
		return ATAG_MARKER_SAMPLED;
	}
	if (!strcmp(kw, ATAG_MK_LINGER)) {
		if (nf != 1 || !parse_int(f[0], 0, 0x7fffffff, &pid))
			return ATAG_MARKER_UNKNOWN;
		r->linger_ms = pid;
		return ATAG_MARKER_LINGER;
	}
	if (!strcmp(kw, ATAG_MK_END)) {
		if (nf != 1)
			return ATAG_MARKER_UNKNOWN;
		free(r->end_reason);
		r->end_reason = strdup(f[0]);
		return ATAG_MARKER_END;
	}
	r->unknown++;
	return ATAG_MARKER_UNKNOWN;
}

enum atag_marker atag_recording_line(struct atag_recording *r, const char *text, size_t len,
				     uint64_t ts)
{
	struct atag_marker_fields mf;
	enum atag_marker ret;
	unsigned int unknown;

	switch (atag_marker_split(text, len, &mf)) {
	case ATAG_MARKER_NOT_OURS:
	case ATAG_MARKER_NOMEM:
		return ATAG_MARKER_NONE;
	case ATAG_MARKER_MALFORMED:
		r->malformed++;
		return ATAG_MARKER_UNKNOWN;
	case ATAG_MARKER_LATER:
		if (!r->newer || (int)mf.version < r->newer)
			r->newer = mf.version;
		return ATAG_MARKER_NEWER;
	case ATAG_MARKER_SPLIT:
		break;
	}
	unknown = r->unknown;
	ret = keyword(r, mf.keyword, mf.f, mf.nf, ts);
	/* a known keyword whose fields are wrong */
	if (ret == ATAG_MARKER_UNKNOWN && r->unknown == unknown)
		r->malformed++;
	atag_marker_fields_free(&mf);
	return ret;
}

bool atag_recording_selects(const struct atag_recording *r, const char *function,
			    const char *file, long line, const char *module)
{
	const struct atag_marker_tag t = { .module = (char *)module, .file = (char *)file,
					   .line = line, .function = (char *)function };

	if (r->select_all)
		return true;
	if (!function || !file || !r->selected_keys)
		return false;
	return g_hash_table_contains(r->selected_keys, &t);
}

/* ------------------------------------------------------------ the task scope */

/* An entry: the class, and flags */
#define E_CLASS		0x3
#define E_KNOWN		0x4	/* named by a line or forked from a task so named */
#define E_NAMED		0x8	/* a line named it */
#define E_EXITED	0x10	/* it exited: a fork may reuse the pid */
#define E_DECIDED	0x20	/* the filter's decision is made: */
#define E_SELECTED	0x40	/* it counts */

struct atag_scope {
	struct atag_scope_opts	opts;
	bool			labelled;
	bool			workload;
	struct atag_map		tasks;		/* pid -> entry */
	GHashTable		*comms;		/* pid -> comm */
	unsigned int		count[ATAG_TASK_NR];	/* tasks that joined each class */
};

struct atag_scope *atag_scope_alloc(const struct atag_scope_opts *opts)
{
	struct atag_scope *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (opts)
		s->opts = *opts;
	s->comms = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	return s;
}

void atag_scope_free(struct atag_scope *s)
{
	if (!s)
		return;
	atag_map_free(&s->tasks);
	g_hash_table_destroy(s->comms);
	free(s);
}

void atag_scope_set_labelled(struct atag_scope *s, bool workload)
{
	uint64_t pid, v, *e;
	size_t i = 0;

	if (s->labelled && (s->workload || !workload))
		return;
	s->labelled = true;
	s->workload = workload;
	/* decisions made before are void */
	while (atag_map_next(&s->tasks, &i, &pid, &v)) {
		e = atag_map_find(&s->tasks, pid);
		*e &= ~(uint64_t)(E_DECIDED | E_SELECTED);
	}
}

bool atag_scope_filters(const struct atag_scope *s)
{
	return s->labelled || s->opts.nr_pids || s->opts.nr_comms || s->opts.nr_exclude_pids ||
	       s->opts.nr_exclude_comms;
}

unsigned int atag_scope_count(const struct atag_scope *s, enum atag_task task)
{
	return task < ATAG_TASK_NR ? s->count[task] : 0;
}

const char *atag_scope_comm(const struct atag_scope *s, int pid)
{
	return g_hash_table_lookup(s->comms, GINT_TO_POINTER(pid));
}

static void set_comm(struct atag_scope *s, int pid, const char *comm)
{
	if (comm)
		g_hash_table_replace(s->comms, GINT_TO_POINTER(pid), g_strdup(comm));
}

static enum atag_task default_class(const struct atag_scope *s)
{
	return s->labelled ? ATAG_TASK_OTHER : ATAG_TASK_ANY;
}

/*
 * Make @pid a known task of entry value @v (class and flags), or forget it (@v 0).
 * A task joins a class once: named again, or named after its fork, it counts once.
 */
static int set_known(struct atag_scope *s, int pid, uint64_t v)
{
	uint64_t *e = atag_map_find(&s->tasks, (uint32_t)pid);
	bool joins = v && !(e && (*e & E_KNOWN) && !(*e & E_EXITED) &&
			    (*e & E_CLASS) == (v & E_CLASS));

	if (!v) {
		atag_map_remove(&s->tasks, (uint32_t)pid, NULL);
		return 0;
	}
	v |= E_KNOWN;
	if (e)
		*e = v;
	else if (!atag_map_get(&s->tasks, (uint32_t)pid, v, NULL))
		return -ENOMEM;
	if (joins)
		s->count[v & E_CLASS]++;
	return 0;
}

int atag_scope_name(struct atag_scope *s, int pid, enum atag_task task, const char *comm)
{
	set_comm(s, pid, comm);
	return set_known(s, pid, task | E_NAMED);
}

int atag_scope_fork(struct atag_scope *s, int parent, int child, const char *comm)
{
	uint64_t *p = atag_map_find(&s->tasks, (uint32_t)parent), *c;
	enum atag_task task = p && (*p & E_KNOWN) ? *p & E_CLASS : default_class(s);

	c = atag_map_find(&s->tasks, (uint32_t)child);
	if (c && (*c & E_NAMED) && !(*c & E_EXITED))
		return 0;		/* the line that named it knew it first */
	set_comm(s, child, comm);
	if (task == ATAG_TASK_OTHER || task == ATAG_TASK_ANY)
		return set_known(s, child, 0);
	return set_known(s, child, task);
}

void atag_scope_rename(struct atag_scope *s, int pid, const char *comm)
{
	set_comm(s, pid, comm);
}

int atag_scope_exited(const struct atag_scope *s, int pid)
{
	const uint64_t *e = atag_map_find((struct atag_map *)&s->tasks, (uint32_t)pid);

	if (!e || !(*e & E_KNOWN))
		return -1;
	return (*e & E_EXITED) ? 1 : 0;
}

void atag_scope_exit(struct atag_scope *s, int pid)
{
	uint64_t *e = atag_map_find(&s->tasks, (uint32_t)pid);

	if (e)
		*e |= E_EXITED;
}

static bool in_pids(const int *pids, unsigned int n, int pid)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

static bool in_globs(const char *const *globs, unsigned int n, const char *comm)
{
	unsigned int i;

	for (i = 0; comm && i < n; i++)
		if (atag_glob_match(globs[i], comm))
			return true;
	return false;
}

/* Whether the report counts task @pid of class @task. */
static bool decide(struct atag_scope *s, int pid, enum atag_task task)
{
	const struct atag_scope_opts *o = &s->opts;
	const char *comm = NULL;

	if (task == ATAG_TASK_RECORDER)
		return false;
	if (o->nr_comms || o->nr_exclude_comms) {
		comm = o->comm ? o->comm(o->comm_ctx, pid) : NULL;
		if (!comm)
			comm = atag_scope_comm(s, pid);
	}
	if (in_pids(o->exclude_pids, o->nr_exclude_pids, pid) ||
	    in_globs(o->exclude_comms, o->nr_exclude_comms, comm))
		return false;
	if (o->nr_pids || o->nr_comms)
		return in_pids(o->pids, o->nr_pids, pid) || in_globs(o->comms, o->nr_comms, comm);
	if (o->all_tasks || task == ATAG_TASK_ANY || !s->workload)
		return true;
	return task == ATAG_TASK_WORKLOAD;
}

enum atag_task atag_scope_task(struct atag_scope *s, int pid, bool *selected)
{
	uint64_t *e = atag_map_find(&s->tasks, (uint32_t)pid);
	enum atag_task task;

	if (e && (*e & E_DECIDED)) {
		*selected = *e & E_SELECTED;
		return *e & E_CLASS;
	}
	task = e && (*e & E_KNOWN) ? *e & E_CLASS : default_class(s);
	*selected = decide(s, pid, task);
	/* decided once per pid: an unknown task gets an entry of its default class */
	if (!e)
		e = atag_map_get(&s->tasks, (uint32_t)pid, task, NULL);
	if (e)
		*e = (*e & ~(uint64_t)E_CLASS) | task | E_DECIDED | (*selected ? E_SELECTED : 0);
	return task;
}
