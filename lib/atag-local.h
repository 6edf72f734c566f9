/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-local.h - what the parts of libatag share and the public headers do not show.
 */
#ifndef _ATAG_LOCAL_H
#define _ATAG_LOCAL_H

#include <stdint.h>

#include "atag-stitch.h"

#define __hidden __attribute__((visibility("hidden")))

/*
 * libtracecmd calls exported by libtracecmd.so.1 (1.3.1 and later) but declared
 * only in its private header, which Debian does not ship.
 */
struct tracecmd_input;
struct tep_record;
int tracecmd_cpus(struct tracecmd_input *handle);
void tracecmd_set_all_cpus_to_timestamp(struct tracecmd_input *handle, unsigned long long time);
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle, int cpu);

/* The stitcher's updates of the aggregates (lib/atag-aggr.c). */
int atag_aggr_note_alloc(struct atag_aggr *aggr, struct atag_live *l) __hidden;
int atag_aggr_note_free(struct atag_aggr *aggr, const struct atag_live *l, uint64_t ts,
			uint64_t bytes) __hidden;
void atag_aggr_note_replaced(struct atag_aggr *aggr, const struct atag_live *l) __hidden;
void atag_aggr_note_unmatched(struct atag_aggr *aggr, uint32_t tag_idx, uint64_t bytes) __hidden;
void atag_aggr_note_free_event(struct atag_aggr *aggr, uint64_t bytes) __hidden;

#endif /* _ATAG_LOCAL_H */
