/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-recording.h - what a recording says about itself, and who its tasks are.
 *
 * "trace-cmd-alloc-tag record" writes lines into its instance's trace_marker
 * (the contract of MARKERS, see Documentation/trace-cmd-alloc-tag-report.1.txt):
 * they land in the trace as ftrace:print records, each
 *
 *   "trace-cmd-alloc-tag: v1 " KEYWORD [TAB FIELD]...
 *
 * and say which process recorded, which processes are the recording machinery
 * (the recorder) and which the workload, which tags the recording selected, the
 * counters of /proc/allocinfo at the start and at the end, whether memory
 * allocation profiling was on then, and why it ended. With
 * the sched_process_fork/exec/exit events of the instance they tell every task
 * of the trace apart.
 *
 * struct atag_recording collects the lines (atag_recording_line()); struct
 * atag_scope classifies tasks (enum atag_task of include/atag-event.h) and
 * decides which the report counts (the task filter). Both are plain data kept by
 * the reader, on the reading thread, and read by the report after the run.
 *
 * Unknown keywords are ignored (forward compatibility); a line of a later
 * version ("v2" ...) makes the file unlabelled, as if it carried no line.
 */
#ifndef _ATAG_RECORDING_H
#define _ATAG_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atag-event.h"

/* The lines themselves (prefix, version, keywords, fields): atag-marker.h. */
/* A call site as a line names it: module NULL for built-in code; strings may be NULL ('?'). */
struct atag_marker_tag {
	char		*module;
	char		*file;
	long		line;
	char		*function;
};

/* A "counters" line: /proc/allocinfo's counters of one tag. */
struct atag_marker_counters {
	struct atag_marker_tag	tag;
	uint64_t		bytes;
	uint64_t		calls;
	uint64_t		ts;		/* of the line */
};

/* A "stack-sample" line: the stacks of one event were sampled. */
struct atag_marker_sampled {
	char		*event;		/* "system:event" */
	unsigned int	every;		/* one allocation in this many carries a stack */
	char		*how;		/* the rule, in words */
};

/* What a "profiling" line said of vm.mem_profiling (include/atag-profiling.h). */
enum atag_marker_profiling {
	ATAG_MARKER_PROFILING_NONE,	/* no line (record before it wrote them) */
	ATAG_MARKER_PROFILING_ON,
	ATAG_MARKER_PROFILING_OFF,
	ATAG_MARKER_PROFILING_UNKNOWN,	/* record could not tell */
};

/* A process named by a line. */
struct atag_marker_task {
	int		pid;
	char		*comm;		/* NULL: '?' */
};

struct atag_recording {
	bool				labelled;	/* a v1 "record" line was read */
	int				newer;		/* a later version seen, or 0 */
	int				record_pid;
	char				*source;	/* "alloc_tag", "kmem" */
	bool				stacks;
	uint64_t			first_ts;	/* of the "record" line */
	struct atag_marker_task		*recorders;
	unsigned int			nr_recorders;
	struct atag_marker_task		*workloads;
	unsigned int			nr_workloads;
	bool				select_all;
	struct atag_marker_tag		*selected;
	unsigned int			nr_selected;
	struct atag_marker_tag		*also_traced;
	unsigned int			nr_also_traced;
	struct atag_marker_counters	*counters_start;
	unsigned int			nr_counters_start;
	struct atag_marker_counters	*counters_end;
	unsigned int			nr_counters_end;
	enum atag_marker_profiling	profiling_start;	/* "profiling start" */
	enum atag_marker_profiling	profiling_end;		/* "profiling end" */
	char				*end_reason;	/* NULL: no "end" line */
	struct atag_marker_sampled	*sampled;
	unsigned int			nr_sampled;
	int				sample_moves;	/* "stack-sample-moves" N, -1: none */
	int				linger_ms;	/* "linger" MS past the workload, -1: none */
	unsigned int			unknown;	/* lines of unknown keywords (ignored) */
	unsigned int			malformed;	/* known keywords with wrong fields */
	void				*selected_keys;	/* selected, hashed (private) */
};

/* What a line was, as atag_recording_line() returns it. */
enum atag_marker {
	ATAG_MARKER_NONE,		/* not one of ours */
	ATAG_MARKER_RECORD,
	ATAG_MARKER_RECORDER,
	ATAG_MARKER_WORKLOAD,
	ATAG_MARKER_SELECT,
	ATAG_MARKER_ALSO_TRACED,
	ATAG_MARKER_COUNTERS_START,
	ATAG_MARKER_COUNTERS_END,
	ATAG_MARKER_COUNTERS_READING_START,
	ATAG_MARKER_COUNTERS_READING_END,
	ATAG_MARKER_PROFILING,
	ATAG_MARKER_DESCRIBED,		/* the description is complete: read-ahead may stop */
	ATAG_MARKER_SAMPLED,		/* "stack-sample", "stack-sample-moves" */
	ATAG_MARKER_LINGER,		/* record goes on past the workload's end */
	ATAG_MARKER_END,
	ATAG_MARKER_UNKNOWN,		/* ours, unknown keyword or malformed: ignored */
	ATAG_MARKER_NEWER,		/* ours, of a later version */
};

struct atag_recording *atag_recording_alloc(void);
void atag_recording_free(struct atag_recording *r);

/*
 * Take one ftrace:print text of @len bytes (a trailing newline is dropped),
 * written at @ts. Lines before the "record" line and lines after a later
 * version's are kept too. Returns what the line was; ATAG_MARKER_NONE for text
 * that is not ours (or out of memory: the line is then lost).
 */
enum atag_marker atag_recording_line(struct atag_recording *r, const char *text, size_t len,
				     uint64_t ts);

/* Whether the description counts: a v1 "record" line and no later version's. */
static inline bool atag_recording_labelled(const struct atag_recording *r)
{
	return r && r->labelled && !r->newer;
}

/*
 * A hash table (GHashTable) of tags as keys: a hash of module, file, line and
 * function, and whether two tags have the same ones (a NULL string is not an empty
 * one). Both take struct atag_marker_tag pointers.
 */
unsigned int atag_marker_tag_hash(const void *t);
int atag_marker_tag_equal(const void *a, const void *b);

/*
 * Whether @tag is one of the tags the recording selected ("select-all": every tag);
 * a tag without a function or a file is never one. In constant time.
 */
bool atag_recording_selects(const struct atag_recording *r, const char *function,
			    const char *file, long line, const char *module);

/* ------------------------------------------------------------ the task scope */

/*
 * Which tasks the report counts. With a labelled recording the default is the
 * workload's process tree: the pids of the "workload" lines and every task
 * forked from them after (sched_process_fork); the recorder (the "recorder"
 * pids and their children) is never counted. By hand: @pids and @comms select
 * tasks instead (a file without description: only those), @all_tasks counts
 * every task but the recorder, @exclude_pids and @exclude_comms take tasks out of
 * whatever is selected. A labelled recording without a workload (no COMMAND,
 * no -p) counts every task but the recorder.
 */
struct atag_scope_opts {
	const int		*pids;
	unsigned int		nr_pids;
	const char *const	*comms;		/* globs */
	unsigned int		nr_comms;
	const int		*exclude_pids;
	unsigned int		nr_exclude_pids;
	const char *const	*exclude_comms;
	unsigned int		nr_exclude_comms;
	bool			all_tasks;
	/* the comm a file saved for a pid, or NULL; asked once per pid */
	const char		*(*comm)(void *ctx, int pid);
	void			*comm_ctx;
};

struct atag_scope;

/* A scope with @opts (copied; the arrays must outlive it); NULL on ENOMEM. */
struct atag_scope *atag_scope_alloc(const struct atag_scope_opts *opts);
void atag_scope_free(struct atag_scope *s);

/*
 * The recording is labelled (its description counts): tasks it never names are
 * ATAG_TASK_OTHER rather than ATAG_TASK_ANY; @workload: it names a workload.
 * Calls only add: a scope once told of a workload keeps it.
 */
void atag_scope_set_labelled(struct atag_scope *s, bool workload);

/* @pid is of class @task, as a marker line names it (it keeps that until reused). */
int atag_scope_name(struct atag_scope *s, int pid, enum atag_task task, const char *comm);

/* sched_process_fork: @child is of its parent's class, unless a line named it. */
int atag_scope_fork(struct atag_scope *s, int parent, int child, const char *comm);

/* sched_process_exec: @pid is called @comm now. */
void atag_scope_rename(struct atag_scope *s, int pid, const char *comm);

/* sched_process_exit: a later fork may reuse @pid. */
void atag_scope_exit(struct atag_scope *s, int pid);

/*
 * Whether the scope saw task @pid exit (sched_process_exit): 1; 0 for a task it knows
 * (named, or forked from one named) that did not exit: it ran at the end; -1 for a
 * task it does not know.
 */
int atag_scope_exited(const struct atag_scope *s, int pid);

/* The class of task @pid, and in *@selected whether the report counts it. */
enum atag_task atag_scope_task(struct atag_scope *s, int pid, bool *selected);

/* Whether any filter is in force (a task may be left out). */
bool atag_scope_filters(const struct atag_scope *s);

/* How many tasks joined class @task (named, or forked from one of the class). */
unsigned int atag_scope_count(const struct atag_scope *s, enum atag_task task);

/* The comm the scope knows for @pid (a marker line's, a fork's child_comm), or NULL. */
const char *atag_scope_comm(const struct atag_scope *s, int pid);

#endif /* _ATAG_RECORDING_H */
