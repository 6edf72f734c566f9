// SPDX-License-Identifier: LGPL-2.1
/*
 * The report as one self-contained HTML page: nothing is fetched when it opens.
 *
 * The page is a skeleton (lib/render/html/page.html), its style and script
 * (html/page.css, html/page.js) and the d3 library (Debian's node-d3), embedded
 * into the program at build time (the Makefile's html-assets), and the data:
 *
 *   <script type="application/json" id="atag-report">     the JSON report
 *   <script type="application/json" id="atag-timelines">  {"timelines": [...],
 *                                                          "lifetimes": [...]}
 *
 * "lifetimes" holds per call site of the report's JSON (same order) the counts
 * of its log2 lifetime histogram: [[e, count], ...], count lifetimes in
 * [2^e, 2^(e+1)) ns. The page's script draws everything from these with d3.
 *
 * The data is bounded like the report: call sites, their stacks, the buckets,
 * and at most @limit call sites and live allocations.
 * A '<' inside the data is written "\u003c", so no string of the trace can
 * end a script element.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "atag-json.h"
#include "atag-render.h"
#include "atag-render-timeline.h"
#include "atag-report.h"
#include "atag-utils.h"

/* Call sites and live allocations the page carries without options (@o NULL). */
#define HTML_ROWS	1000

/* The files embedded by the build (Makefile: html-assets), each NUL-terminated. */
extern const char atag_html_d3[];
extern const char atag_html_page[];
extern const char atag_html_css[];
extern const char atag_html_js[];

/* A stream onto @cookie's FILE that writes '<' as "\u003c". */
static ssize_t escape_write(void *cookie, const char *buf, size_t len)
{
	FILE *f = cookie;
	size_t i, from = 0;

	for (i = 0; i < len; i++) {
		if (buf[i] != '<')
			continue;
		if (fwrite(buf + from, 1, i - from, f) != i - from || fputs("\\u003c", f) < 0)
			return -1;
		from = i + 1;
	}
	if (fwrite(buf + from, 1, len - from, f) != len - from)
		return -1;
	return len;
}

static FILE *escaping(FILE *f)
{
	cookie_io_functions_t io = { .write = escape_write };

	return fopencookie(f, "w", io);
}

/* The log2 lifetime histograms of the call sites the JSON report carries. */
static void lifetimes(struct atag_json *w, const struct atag_report *r, long limit)
{
	const struct atag_report_tag *t;
	uint64_t n;
	size_t i;
	int e;

	atag_json_open_array(w, "lifetimes");
	for (i = 0; i < r->nr_selected && (limit <= 0 || i < (size_t)limit); i++) {
		t = r->tags[i];
		atag_json_break(w);
		atag_json_open_array(w, NULL);
		for (e = 0; t->lifetimes.count && e < 64; e++) {
			n = atag_lifetime_power_count(&t->lifetimes, e);
			if (!n)
				continue;
			atag_json_open_array(w, NULL);
			atag_json_int(w, NULL, e);
			atag_json_uint(w, NULL, n);
			atag_json_close(w);
		}
		atag_json_close(w);
	}
	atag_json_close(w);
}

static int data(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	struct atag_render_opts jo = { .limit = o ? o->limit : HTML_ROWS };
	struct atag_json w;
	FILE *esc;
	int ret;

	esc = escaping(f);
	if (!esc)
		return atag_err(-errno);
	fputs("<script type=\"application/json\" id=\"atag-report\">\n", f);
	ret = atag_render_json(r, &jo, esc);
	fflush(esc);
	fputs("</script>\n<script type=\"application/json\" id=\"atag-timelines\">\n", f);
	if (!ret) {
		atag_json_init(&w, esc, 0);
		atag_json_open_object(&w, NULL);
		ret = atag_render_timelines_json(&w, r, jo.limit);
		atag_json_break(&w);
		lifetimes(&w, r, jo.limit);
		atag_json_close(&w);
		if (!ret)
			ret = atag_json_finish(&w);
	}
	if (fclose(esc) && !ret)
		ret = atag_err(-EIO);
	fputs("</script>\n", f);
	return ret;
}

/**
 * atag_render_html - write the report as one self-contained HTML page
 * @r: the finished report (with timelines, to draw them)
 * @o: limit: call sites and live allocations the page carries (0: all; @o NULL:
 *     HTML_ROWS)
 * @f: where to write
 *
 * Returns 0, or a negative errno when writing failed.
 */
int atag_render_html(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	static const char style_mark[] = "<!-- style -->", data_mark[] = "<!-- data -->";
	const char *style = strstr(atag_html_page, style_mark);
	const char *at = strstr(atag_html_page, data_mark);
	int ret;

	if (!style || !at || at < style)
		return atag_err(-EINVAL);
	/* the skeleton, its style at the style mark, the data and scripts at the data mark */
	fwrite(atag_html_page, 1, style - atag_html_page, f);
	fputs("<style>\n", f);
	fputs(atag_html_css, f);
	fputs("</style>", f);
	style += strlen(style_mark);
	fwrite(style, 1, at - style, f);
	ret = data(r, o, f);
	fputs("<script>\n", f);
	fputs(atag_html_d3, f);
	fputs("\n</script>\n<script>\n", f);
	fputs(atag_html_js, f);
	fputs("</script>\n", f);
	fputs(at + strlen(data_mark), f);
	if (!ret && ferror(f))
		ret = atag_err(-EIO);
	return ret;
}
