/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-render-timeline.h - what the renderers of timelines share, internal to
 * lib/render/ (lib/render/atag-render-timeline.c).
 */
#ifndef _ATAG_RENDER_TIMELINE_H
#define _ATAG_RENDER_TIMELINE_H

#include <stddef.h>

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct atag_json;
struct atag_report;
struct atag_report_timeline;
struct atag_report_timeline_site;

/*
 * The sites of @t of the report's selected call sites, in the report's order, at
 * most @limit (0: all), into @out (room for t->nr_sites). Returns how many.
 */
size_t atag_render_timeline_sites(const struct atag_report *r,
				  const struct atag_report_timeline *t, long limit,
				  const struct atag_report_timeline_site **out) __hidden;

/* Room for the sites of the report's largest timeline (for the two above), or NULL. */
const struct atag_report_timeline_site **
atag_render_timeline_room(const struct atag_report *r) __hidden;

/* The selected sites that held bytes at the peak, most first, at most @limit. */
size_t atag_render_timeline_peak_sites(const struct atag_report_timeline *t, long limit,
				       const struct atag_report_timeline_site **out) __hidden;

/* The member "timelines": [...] of an open object; 0 or -ENOMEM. */
int atag_render_timelines_json(struct atag_json *w, const struct atag_report *r,
			       long limit) __hidden;

#endif /* _ATAG_RENDER_TIMELINE_H */
