/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-live-int.h - the live view's parts, shared by the files of lib/live/
 * (library-internal): the view that reads and stitches (atag-live.c), top's
 * snapshots (atag-live.c) and leaks' (atag-live-leaks.c).
 */
#ifndef _ATAG_LIVE_INT_H
#define _ATAG_LIVE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "atag-live.h"
#include "atag-live-cpu.h"
#include "atag-live-tasks.h"
#include "atag-map.h"
#include "atag-recorder.h"
#include "atag-source.h"
#include "atag-stitch.h"

/* Sources one view reads at most: slab and page events. */
#define LIVE_MAX_SOURCES	ATAG_LIVE_SOURCES_MAX
/* Events whose stack triggers one view sets at most. */
#define LIVE_MAX_TRIGGERS	6
/* How long one address pattern of sampled stacks stays (as record's). */
#define LIVE_STACK_PERIOD_MS	200

struct atag_liveview {
	struct tracefs_instance		*inst;
	const struct atag_source	*src;	/* the first source */
	const struct atag_source	*srcs[LIVE_MAX_SOURCES];
	unsigned int			nr_src;
	struct tep_handle		*tep;
	struct atag_modules		*modules;
	struct atag_decoder		*dec;
	struct atag_aggr		*aggr;	/* the first source's */
	struct atag_aggr		*aggrs[LIVE_MAX_SOURCES];
	struct atag_stacks		*stacks;
	struct atag_stitcher		*st;
	struct atag_sink		into;	/* the stitcher */
	struct atag_sink		sink;	/* the task filter in front of it */
	struct live_cpus		cpus;
	struct live_tasks		tasks;
	bool				mono;	/* timestamps are CLOCK_MONOTONIC */
	uint64_t			start_ns;
	uint64_t			last_snap_ns;
	uint64_t			*prev;	/* per tag (PREV each): allocs, frees, replaced at the last snapshot */
	size_t				nr_prev;
	int				*pids;
	const char			**comms;
	int				self;	/* our pid, left out; 0: counted */
	/* stacks: 0 none, 1 every allocation, N one in N (a sampler moves the pattern) */
	unsigned int			stack_every;
	const char			*sampled[LIVE_MAX_TRIGGERS + 1];
	struct atag_sampler		*sampler;
	struct atag_sampler_result	sampler_result;
	/* losses: gaps the buffers said, the time of the latest (0: none yet) */
	uint64_t			gaps;
	uint64_t			last_loss_ts;
	uint64_t			lost_seen;	/* the counters' sum at the last look */
	uint64_t			last_ts;	/* of the last record handed on */
	/* leaks' snapshots */
	uint64_t			intervals;
	uint64_t			lossy_intervals;
	uint64_t			lost_at_snap;	/* the counters' sum then */
	uint64_t			gaps_at_snap;
};

/* The frames of one stack, as report names them (a NULL name: no memory for it). */
struct live_frames {
	char		**names;
	unsigned int	nr;
};

/* Stacks symbolized once while the store lives (atag-live-frames.c). */
struct live_frame_store {
	struct atag_map		index;		/* stack id -> index into v */
	struct live_frames	*v;
	size_t			nr, cap;
};

/* The frames of stack @id of @lv (0: none); NULL without memory. */
const struct live_frames *live_frames_get(struct live_frame_store *fs, struct atag_liveview *lv,
					  uint32_t id) __hidden;
void live_frame_store_free(struct live_frame_store *fs) __hidden;

/* CLOCK_MONOTONIC now, in ns. */
uint64_t live_now_ns(void) __hidden;

/*
 * The events the view lost by the instance's counters; a rise since the last look
 * makes now the latest loss (when the buffers said none later). Returns whether the
 * counters could be read; *@lost is their sum.
 */
bool live_lost(struct atag_liveview *lv, uint64_t *lost) __hidden;

#endif /* _ATAG_LIVE_INT_H */
