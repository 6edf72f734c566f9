/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-render-counters.h - the one writer of counters per format, internal to
 * lib/render/ (see lib/render/atag-render-counters.c).
 *
 * Each writes the fields of @fields (atag_counter_fields for a struct
 * atag_counters, atag_total_fields for a struct atag_totals; include/atag-counters.h)
 * whose bit is set in @mask, in the table's order.
 */
#ifndef _ATAG_RENDER_COUNTERS_H
#define _ATAG_RENDER_COUNTERS_H

#include <stdio.h>

#include "atag-counters.h"

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct atag_json;

/* JSON: a "name": value member for each. */
void atag_render_counters_json(struct atag_json *w, const void *obj,
			       const struct atag_counter_field *fields, unsigned int mask) __hidden;

/* CSV: ",value" for each (the cells follow others on the row). */
void atag_render_counters_csv(FILE *f, const void *obj, const struct atag_counter_field *fields,
			      unsigned int mask) __hidden;

/*
 * Text: a malloc'ed cell for each into @cells, the number, or the size in binary
 * units ("1.5 KiB") for a count of bytes. Returns how many cells it wrote.
 */
int atag_render_counters_cells(char **cells, const void *obj,
			       const struct atag_counter_field *fields, unsigned int mask) __hidden;

#endif /* _ATAG_RENDER_COUNTERS_H */
