/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-suspects.h - which live allocations are leak suspects (lib/stitch/atag-suspects.c),
 * internal to lib/stitch/: atag_report_finish() calls it.
 */
#ifndef _ATAG_SUSPECTS_H
#define _ATAG_SUSPECTS_H

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct atag_report;

/*
 * Set suspect and suspect_why of every allocation of r->live, and the live_suspects
 * of r->totals and of each source's totals.
 */
void atag_suspects_classify(struct atag_report *r) __hidden;

#endif /* _ATAG_SUSPECTS_H */
