/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atag-readback.h - what record checks of the trace.dat trace-cmd record wrote, before
 * it says it wrote one (utils/atag-readback.c).
 *
 * A file reads back when:
 *  - its saved comms are whole, or were mended (atag_trace_mend(): trace-cmd 3.1.6
 *    writes them cut short when the kernel's table changes while it reads it);
 *  - this library opens it and walks every record of the recorded buffer, with no
 *    damaged page, no cut, and no other damage to its metadata, and counts as many
 *    records as the instance's per-CPU stats say its reader took out of the ring
 *    buffer (when they could be read);
 *  - libtracecmd, the reader of stock trace-cmd report, opens it and finds the same
 *    first record on each CPU of that buffer (in a child process: a file libtracecmd
 *    cannot read may crash it), within ATAG_READBACK_TIMEOUT_MS. It does not walk
 *    every record: this library's walk checked every page it would read, and a full
 *    walk by libtracecmd costs about four times as long.
 */
#ifndef _ATAG_READBACK_H
#define _ATAG_READBACK_H

#include <stdbool.h>
#include <stdint.h>

#define ATAG_READBACK_TIMEOUT_MS	60000

struct atag_readback {
	uint64_t	ours;		/* records of the buffer, read by this library */
	uint64_t	cpus_agree;	/* CPUs whose first record libtracecmd reads alike */
	bool		no_buffer;	/* the buffer is not in the file at all */
	char		mended[512];	/* what was mended ("" : nothing) */
	char		why[768];	/* what is wrong with the file ("": nothing) */
};

/**
 * atag_readback - read back a trace.dat record wrote, mending its saved comms
 * @path: the file
 * @buffer: the buffer recorded (the instance's name; "" for the top buffer)
 * @written: the records the instance's stats say were read out of it, or -1 unknown
 * @rb: filled in
 *
 * Returns 0 when the file reads back (maybe after a mend: @rb->mended says), -1 when
 * it does not (@rb->why says what is wrong, one line without the file's name).
 */
int atag_readback(const char *path, const char *buffer, int64_t written,
		  struct atag_readback *rb);

#endif /* _ATAG_READBACK_H */
