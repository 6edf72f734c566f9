// SPDX-License-Identifier: LGPL-2.1
/*
 * Lifetimes a row each, for engines that query many recordings at once (DuckDB,
 * Spark, Trino): written as the report streams them (atag_report_stream_rows()),
 * so nothing is kept here.
 *
 * CSV (RFC 4180 quoting, a header line, lines ending in "\n"), rows:
 *   trace,host,source,tag,function,file,line,module,offset,stack_id,pid,comm,ptr,
 *   bytes,alloc_ns,free_ns,lifetime_ns,state
 * stacks (a row per frame, innermost first at depth 0):
 *   stack_id,depth,frame
 * Unknown values are empty cells: host, function, file, line, module, offset,
 * comm; stack_id when the allocation has no stack; free_ns for a live one;
 * lifetime_ns unless freed. tag and ptr are "0x" hex, offset "0x" hex as in a
 * frame; every other number decimal; times in nanoseconds of the trace's clock.
 * state is freed, live or replaced.
 *
 * JSON lines: one object a line, the same keys (unknown values null, offset a
 * number); stacks: {"stack_id":N,"frames":["function+0xoff",...]}.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "atag-json.h"
#include "atag-outbuf.h"
#include "atag-render.h"
#include "atag-render-counters.h"
#include "atag-report.h"
#include "atag-utils.h"

static const char rows_header[] =
	"trace,host,source,tag,function,file,line,module,offset,stack_id,pid,comm,ptr,bytes,"
	"alloc_ns,free_ns,lifetime_ns,state\n";

static const char stacks_header[] = "stack_id,depth,frame\n";

/* 0, or what failed writing to @f (stdio left it in errno). */
static int written(FILE *f)
{
	return ferror(f) ? -(errno ? errno : EIO) : 0;
}

static const char *const states[] = {
	[ATAG_ROW_FREED] = "freed", [ATAG_ROW_LIVE] = "live", [ATAG_ROW_REPLACED] = "replaced",
};

/*
 * A CSV row is put together in a buffer and written at once (atag-outbuf.h): the
 * rows are most of what report -f lifetimes spends beyond stitching, and stdio's
 * formatting of each field was half of that.
 *
 * A string cell (NULL: empty) and its comma; escaped, quoted or neutralised by the CSV
 * writer when it must be (atag_csv_write_cell()).
 */
static void cell(struct atag_outbuf *l, const char *s)
{
	if (s && !atag_csv_plain(s)) {
		atag_outbuf_flush(l);
		atag_csv_write_string(l->f, s);
	} else if (s) {
		atag_outbuf_puts(l, s);
	}
	atag_outbuf_putc(l, ',');
}

static int csv_row(void *ctx, const struct atag_report_row *r)
{
	const struct atag_lifetimes_out *o = ctx;
	struct atag_outbuf l;

	atag_outbuf_init(&l, o->rows);

	cell(&l, r->trace);
	cell(&l, r->host);
	cell(&l, r->source);
	atag_outbuf_number(&l, r->tag, true);
	atag_outbuf_putc(&l, ',');
	cell(&l, r->function);
	cell(&l, r->file);
	if (r->line >= 0)
		atag_outbuf_number(&l, r->line, false);
	atag_outbuf_putc(&l, ',');
	cell(&l, r->module);
	if (r->offset >= 0)
		atag_outbuf_number(&l, r->offset, true);
	atag_outbuf_putc(&l, ',');
	if (r->stack_id)
		atag_outbuf_number(&l, r->stack_id, false);
	atag_outbuf_putc(&l, ',');
	atag_outbuf_int(&l, r->pid);
	atag_outbuf_putc(&l, ',');
	cell(&l, r->comm);
	atag_outbuf_number(&l, r->ptr, true);
	atag_outbuf_putc(&l, ',');
	atag_outbuf_number(&l, r->bytes, false);
	atag_outbuf_putc(&l, ',');
	atag_outbuf_number(&l, r->alloc_ts, false);
	atag_outbuf_putc(&l, ',');
	if (r->state != ATAG_ROW_LIVE)
		atag_outbuf_number(&l, r->free_ts, false);
	atag_outbuf_putc(&l, ',');
	if (r->state == ATAG_ROW_FREED)
		atag_outbuf_number(&l, r->lifetime_ns, false);
	atag_outbuf_putc(&l, ',');
	atag_outbuf_puts(&l, states[r->state]);
	atag_outbuf_putc(&l, '\n');
	atag_outbuf_flush(&l);
	return written(o->rows);
}

static int csv_stack(void *ctx, uint32_t id, char *const *frames, unsigned int nr)
{
	const struct atag_lifetimes_out *o = ctx;
	unsigned int i;

	if (!o->stacks)
		return 0;
	for (i = 0; i < nr; i++) {
		fprintf(o->stacks, "%" PRIu32 ",%u,", id, i);
		atag_csv_write_string(o->stacks, frames[i]);
		fputc('\n', o->stacks);
	}
	return written(o->stacks);
}

static int json_row(void *ctx, const struct atag_report_row *r)
{
	const struct atag_lifetimes_out *o = ctx;
	struct atag_json w;

	atag_json_init(&w, o->rows, 0);
	atag_json_open_object(&w, NULL);
	atag_json_str(&w, "trace", r->trace);
	atag_json_str(&w, "host", r->host);
	atag_json_str(&w, "source", r->source);
	atag_json_hex(&w, "tag", r->tag);
	atag_json_str(&w, "function", r->function);
	atag_json_str(&w, "file", r->file);
	atag_json_known_int(&w, "line", r->line);
	atag_json_str(&w, "module", r->module);
	atag_json_known_int(&w, "offset", r->offset);
	if (r->stack_id)
		atag_json_uint(&w, "stack_id", r->stack_id);
	else
		atag_json_null(&w, "stack_id");
	atag_json_int(&w, "pid", r->pid);
	atag_json_str(&w, "comm", r->comm);
	atag_json_hex(&w, "ptr", r->ptr);
	atag_json_uint(&w, "bytes", r->bytes);
	atag_json_uint(&w, "alloc_ns", r->alloc_ts);
	if (r->state != ATAG_ROW_LIVE)
		atag_json_uint(&w, "free_ns", r->free_ts);
	else
		atag_json_null(&w, "free_ns");
	if (r->state == ATAG_ROW_FREED)
		atag_json_uint(&w, "lifetime_ns", r->lifetime_ns);
	else
		atag_json_null(&w, "lifetime_ns");
	atag_json_str(&w, "state", states[r->state]);
	atag_json_close(&w);
	/* it ends the document with a newline */
	return atag_json_finish(&w) ? -EIO : 0;
}

static int json_stack(void *ctx, uint32_t id, char *const *frames, unsigned int nr)
{
	const struct atag_lifetimes_out *o = ctx;
	struct atag_json w;

	if (!o->stacks)
		return 0;
	atag_json_init(&w, o->stacks, 0);
	atag_json_open_object(&w, NULL);
	atag_json_uint(&w, "stack_id", id);
	atag_json_strs(&w, "frames", frames, nr);
	atag_json_close(&w);
	return atag_json_finish(&w) ? -EIO : 0;
}

int atag_render_lifetimes_begin(struct atag_lifetimes_out *o, struct atag_report_rows *sink)
{
	sink->ctx = o;
	sink->row = o->json ? json_row : csv_row;
	sink->stack = o->json ? json_stack : csv_stack;
	if (!o->json) {
		fputs(rows_header, o->rows);
		if (o->stacks)
			fputs(stacks_header, o->stacks);
	}
	return atag_render_lifetimes_end(o);
}

int atag_render_lifetimes_end(const struct atag_lifetimes_out *o)
{
	if (ferror(o->rows) || (o->stacks && ferror(o->stacks)))
		return atag_err(-EIO);
	return 0;
}
