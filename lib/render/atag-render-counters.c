// SPDX-License-Identifier: LGPL-2.1
/*
 * Writing counters, one writer per format: every call site, stack and total of
 * every report goes through these, in the order of the tables of
 * lib/stitch/atag-counters.c. See atag-render-counters.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-json.h"
#include "atag-render-counters.h"
#include "atag-utils.h"

void atag_render_counters_json(struct atag_json *w, const void *obj,
			       const struct atag_counter_field *fields, unsigned int mask)
{
	unsigned int i;

	for (i = 0; fields[i].name; i++)
		if (mask & (1u << i))
			atag_json_uint(w, fields[i].name, atag_counter_value(obj, &fields[i]));
}

void atag_render_counters_csv(FILE *f, const void *obj, const struct atag_counter_field *fields,
			      unsigned int mask)
{
	unsigned int i;

	for (i = 0; fields[i].name; i++)
		if (mask & (1u << i))
			fprintf(f, ",%" PRIu64, atag_counter_value(obj, &fields[i]));
}

int atag_render_counters_cells(char **cells, const void *obj,
			       const struct atag_counter_field *fields, unsigned int mask)
{
	unsigned int i;
	char buf[32];
	uint64_t v;
	int n = 0;

	for (i = 0; fields[i].name; i++) {
		if (!(mask & (1u << i)))
			continue;
		v = atag_counter_value(obj, &fields[i]);
		if (fields[i].bytes)
			atag_format_size(buf, sizeof(buf), v);
		else
			snprintf(buf, sizeof(buf), "%" PRIu64, v);
		cells[n++] = strdup(buf);
	}
	return n;
}
