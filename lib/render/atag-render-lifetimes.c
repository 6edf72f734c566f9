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
 * A CSV row is put together in a buffer and written at once: the rows are most
 * of what report -f lifetimes spends beyond stitching, and stdio's formatting
 * of each field was half of that.
 */
struct line {
	FILE	*f;
	size_t	n;
	char	buf[1024];
};

static void flush(struct line *l)
{
	fwrite(l->buf, 1, l->n, l->f);
	l->n = 0;
}

static void put(struct line *l, const char *s, size_t n)
{
	if (l->n + n > sizeof(l->buf)) {
		flush(l);
		if (n > sizeof(l->buf)) {
			fwrite(s, 1, n, l->f);
			return;
		}
	}
	memcpy(l->buf + l->n, s, n);
	l->n += n;
}

static void put_c(struct line *l, char c)
{
	put(l, &c, 1);
}

static void put_u64(struct line *l, uint64_t v)
{
	char t[24];
	int i = sizeof(t);

	do
		t[--i] = '0' + v % 10;
	while (v /= 10);
	put(l, t + i, sizeof(t) - i);
}

static void put_hex(struct line *l, uint64_t v)
{
	char t[24];
	int i = sizeof(t);

	do
		t[--i] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	t[--i] = 'x';
	t[--i] = '0';
	put(l, t + i, sizeof(t) - i);
}

/* A string cell (NULL: empty) and its comma; quoted by the CSV writer when it must be. */
static void cell(struct line *l, const char *s)
{
	char *strs[1] = { (char *)s };

	if (s && strpbrk(s, ",\"\r\n")) {
		flush(l);
		atag_render_csv_cell(l->f, strs, 1, 0);
	} else if (s) {
		put(l, s, strlen(s));
	}
	put_c(l, ',');
}

static int csv_row(void *ctx, const struct atag_report_row *r)
{
	const struct atag_lifetimes_out *o = ctx;
	struct line l = { .f = o->rows };

	cell(&l, r->trace);
	cell(&l, r->host);
	cell(&l, r->source);
	put_hex(&l, r->tag);
	put_c(&l, ',');
	cell(&l, r->function);
	cell(&l, r->file);
	if (r->line >= 0)
		put_u64(&l, r->line);
	put_c(&l, ',');
	cell(&l, r->module);
	if (r->offset >= 0)
		put_hex(&l, r->offset);
	put_c(&l, ',');
	if (r->stack_id)
		put_u64(&l, r->stack_id);
	put_c(&l, ',');
	if (r->pid < 0)
		put_c(&l, '-');
	put_u64(&l, r->pid < 0 ? -(int64_t)r->pid : r->pid);
	put_c(&l, ',');
	cell(&l, r->comm);
	put_hex(&l, r->ptr);
	put_c(&l, ',');
	put_u64(&l, r->bytes);
	put_c(&l, ',');
	put_u64(&l, r->alloc_ts);
	put_c(&l, ',');
	if (r->state != ATAG_ROW_LIVE)
		put_u64(&l, r->free_ts);
	put_c(&l, ',');
	if (r->state == ATAG_ROW_FREED)
		put_u64(&l, r->lifetime_ns);
	put_c(&l, ',');
	put(&l, states[r->state], strlen(states[r->state]));
	put_c(&l, '\n');
	flush(&l);
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
		atag_render_csv_cell(o->stacks, &frames[i], 1, 0);
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
