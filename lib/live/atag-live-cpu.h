/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-live-cpu.h - the ring buffers of an instance read as records come, per CPU,
 * and handed on in timestamp order (library-internal; lib/live/atag-live-cpu.c).
 *
 * Each CPU's per_cpu/cpuN/trace_pipe_raw is read a sub-buffer at a time with
 * libtracefs (tracefs_cpu_read(), non-blocking: partial sub-buffers too) and parsed
 * with libtraceevent's kbuffer; one sub-buffer per CPU is held while its records
 * wait for their turn. A read hands on, across CPUs in timestamp order, the
 * records no newer than a bound; the newer ones stay for the next read.
 */
#ifndef _ATAG_LIVE_CPU_H
#define _ATAG_LIVE_CPU_H

#include <stdbool.h>
#include <stdint.h>

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct tep_handle;
struct tep_record;
struct tracefs_instance;
struct live_cpu;

struct live_cpus {
	struct live_cpu	*cpu;
	int		nr;
	int		subbuf_size;
	uint64_t	records;	/* handed on */
};

/*
 * Called for each record, in order; @missed: events were lost on its CPU just
 * before it. Non-zero stops the read and is returned.
 */
typedef int (*live_record_fn)(void *ctx, const struct tep_record *rec, bool missed);

/* Open the trace_pipe_raw of every CPU of @inst. 0 or -errno (@err says which file). */
int live_cpus_open(struct live_cpus *c, struct tracefs_instance *inst, struct tep_handle *tep,
		   char *err, size_t errlen) __hidden;
void live_cpus_close(struct live_cpus *c) __hidden;

/* Hand on the records with timestamps up to @until. 0, -errno, or what @fn returned. */
int live_cpus_read(struct live_cpus *c, uint64_t until, live_record_fn fn, void *ctx) __hidden;

/* The file descriptor of CPU @i's buffer. */
int live_cpus_fd(const struct live_cpus *c, int i) __hidden;

#endif /* _ATAG_LIVE_CPU_H */
