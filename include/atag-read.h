/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-read.h - the reader: one buffer of one trace.dat, read into events.
 *
 * The producing end of the engine:
 *
 *   trace.dat --atag_trace--> records --atag_decoder--> atag_event, atag_kstack --> sink
 *
 * atag_reader_open() opens the file (include/atag-trace.h), chooses the sources
 * (the one asked for, else every source of the registry whose events the file
 * has, in registry order; include/atag-source.h) and the buffer (the one asked
 * for, else the top buffer if it holds the sources' events, else the first
 * instance that does; a look at the first records of each CPU decides), reads
 * the recording's description at the head of that buffer (below), and makes the
 * decoder. atag_reader_run() walks the buffer's records in timestamp order: it
 * passes on where events were lost (struct atag_sink.missed), drops records
 * outside the time window, counts the rest and decodes them into the sink.
 *
 * The description. A recording of trace-cmd-alloc-tag record describes itself
 * in marker lines (lib/read/atag-recording.h): who recorded, the recorder's and
 * the workload's processes. Tasks must be known before their first event, and
 * the lines come after the recorder started (and the workload's just after it
 * was forked), so atag_reader_open() reads them ahead: the records of the buffer
 * up to the first "end" line, or until 1 Mi records pass without a marker line
 * (2^20; without any "record" line: the first 1 Mi records). The run then reads
 * every line again, in order (the description a report shows is the run's:
 * atag_reader_recording()), and the task events keep the scope up to date.
 *
 * Whatever the consumer needs from the trace is resolved here before a message
 * leaves, so a sink never calls back: the decoder's part (call-site strings,
 * the event a stack names, the call site it gives), and the task scope
 * (lib/read/atag-recording.h): the class of the task of each ALLOC and FREE and
 * whether it is counted: by default the workload's process tree of a labelled
 * recording (every task of a file without description), never the recorder's;
 * by hand the pids and comm globs given (comms as the file saved them),
 * all_tasks, and the exclusions.
 *
 * Threads: a reader, and the trace, tep and decoder it hands out, belong to the
 * thread that opened it (libtracecmd and libtraceevent are not thread safe).
 * Its sink may hand the messages to another thread: they are plain data.
 */
#ifndef _ATAG_READ_H
#define _ATAG_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atag-event.h"

struct atag_trace;
struct atag_source;
struct atag_decoder;
struct atag_reader;

struct atag_read_opts {
	const char	*source;	/* NULL: every source whose events the file has */
	/* NULL: the top buffer if it holds the events, else the first instance that does */
	const char	*buffer;
	bool		has_start;
	uint64_t	start;		/* ns; records before are dropped */
	bool		has_end;
	uint64_t	end;		/* ns; records after are dropped */
	const int	*pids;		/* with either filter, allocations and frees of */
	unsigned int	nr_pids;	/* other tasks are marked filtered ...  */
	const char	*const *comms;	/* ... unless their comm matches one of these globs */
	unsigned int	nr_comms;
	const int	*exclude_pids;	/* never counted */
	unsigned int	nr_exclude_pids;
	const char	*const *exclude_comms;
	unsigned int	nr_exclude_comms;
	bool		all_tasks;	/* every task of a labelled recording but its recorder */
	/* called now and then while reading, with a fraction 0..1 of the buffer */
	void		(*progress)(void *ctx, const char *path, double done);
	void		*progress_ctx;
};

/*
 * Open @path for reading with @opts (copied; the arrays it points to must
 * outlive the reader). On failure returns a negative errno and writes a
 * one-line reason (without the file name) into @err: the file cannot be read,
 * has no events of a source ("has no allocation events: ..."), or lacks the
 * buffer or source asked for.
 */
int atag_reader_open(const char *path, const struct atag_read_opts *opts,
		     struct atag_reader **reader, char *err, size_t errlen);
void atag_reader_close(struct atag_reader *rd);

/*
 * Read every record of the chosen buffer into @sink. Returns 0, or the first
 * error the sink returned (reading stops there). A walk that stopped short is
 * no error: see atag_reader_stats()->fault.
 */
int atag_reader_run(struct atag_reader *rd, const struct atag_sink *sink);

/* ------------------------------------------------------------ what was read */

struct atag_read_stats {
	uint64_t	records;	/* records in the time window */
	uint64_t	first_ts;	/* of those records */
	uint64_t	last_ts;
	int		fault;		/* the walk stopped short (a negative errno), or 0 */
	uint64_t	backwards;	/* records of a CPU earlier than the one before */
	/* the buffer's records outside the time window (--start, --end), and its span */
	uint64_t	outside;
	uint64_t	all_first_ts;
	uint64_t	all_last_ts;
};

const struct atag_read_stats *atag_reader_stats(const struct atag_reader *rd);

/*
 * Whether events were lost on the CPU of index @cpu (any record of that CPU
 * said so); then *@count is how many, ~0 when the file does not say.
 */
bool atag_reader_missed(const struct atag_reader *rd, int cpu, uint64_t *count);
/*
 * CPUs to ask atag_reader_missed() about: 0 .. this - 1, the CPUs the buffer
 * lists (the cpu of the messages is that index too); atag_reader_cpu_id() is
 * the id the file gives the CPU of index @cpu.
 */
int atag_reader_nr_cpus(const struct atag_reader *rd);
/*
 * How many records of the CPU of index @cpu came earlier than the record of that
 * CPU before them: a CPU's ring buffer never runs backwards, damaged or forged
 * pages do (0 for a sound file).
 */
uint64_t atag_reader_backwards(const struct atag_reader *rd, int cpu);

/* Bytes of ring-buffer data the buffer read holds (what reading it will cost). */
uint64_t atag_reader_data_size(const struct atag_reader *rd);
int atag_reader_cpu_id(const struct atag_reader *rd, int cpu);

const char *atag_reader_path(const struct atag_reader *rd);
/* The sources read: 0 .. nr - 1 (struct atag_event.src); atag_reader_source() is the first. */
unsigned int atag_reader_nr_sources(const struct atag_reader *rd);
const struct atag_source *atag_reader_source_at(const struct atag_reader *rd, unsigned int i);
const struct atag_source *atag_reader_source(const struct atag_reader *rd);
/* The name of the buffer read ("" is the top buffer). */
const char *atag_reader_buffer(const struct atag_reader *rd);
/* Other buffers holding the source's events, in file order. */
unsigned int atag_reader_nr_also(const struct atag_reader *rd);
const char *atag_reader_also(const struct atag_reader *rd, unsigned int i);

/* The file and the decoder, for names and counts (the reader's thread only). */
struct atag_trace *atag_reader_trace(const struct atag_reader *rd);
struct atag_decoder *atag_reader_decoder(const struct atag_reader *rd);

/*
 * The recording's description as the run read it (complete after
 * atag_reader_run(); see atag_recording_labelled()), and the task scope.
 */
const struct atag_recording *atag_reader_recording(const struct atag_reader *rd);
const struct atag_scope *atag_reader_scope(const struct atag_reader *rd);
/* Take the description over (after the run): the caller frees it; NULL after. */
struct atag_recording *atag_reader_take_recording(struct atag_reader *rd);
/*
 * Source @i's stacks were sampled by the recording ("stack-sample" lines): one
 * allocation in this many carries a stack; 0: not sampled (every one, or none).
 */
unsigned int atag_reader_stack_every(const struct atag_reader *rd, unsigned int i);

/* Records read ahead for the description (0: none; the file has no ftrace:print). */
uint64_t atag_reader_prescanned(const struct atag_reader *rd);

#endif /* _ATAG_READ_H */
