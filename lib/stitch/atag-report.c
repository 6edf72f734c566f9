// SPDX-License-Identifier: LGPL-2.1
/*
 * The report of trace.dat files: it owns what the renderers read, adds a file
 * (read and stitched by atag-run.c, folded in by atag-fold.c) and says what was
 * read of each file and what is missing. See atag-report.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atag-fold.h"
#include "atag-read.h"
#include "atag-report.h"
#include "atag-run.h"
#include "atag-source.h"
#include "atag-trace.h"
#include "atag-utils.h"

struct report_priv {
	struct atag_report_opts	opts;
	struct atag_fold	*fold;
};

/* ------------------------------------------------------------ notices */

static void add_line(char ***list, unsigned int *nr, const char *fmt, va_list ap)
{
	char **p, *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return;
	p = realloc(*list, (*nr + 1) * sizeof(*p));
	if (!p) {
		free(s);
		return;
	}
	p[(*nr)++] = s;
	*list = p;
}

static void __attribute__((format(printf, 2, 3)))
notice(struct atag_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(&r->notices, &r->nr_notices, fmt, ap);
	va_end(ap);
	r->complete = false;
}

static void __attribute__((format(printf, 2, 3)))
remark(struct atag_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(&r->remarks, &r->nr_remarks, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ alloc and free */

struct atag_report *atag_report_alloc(const struct atag_report_opts *opts)
{
	struct atag_report *r = calloc(1, sizeof(*r));
	struct report_priv *p = calloc(1, sizeof(*p));

	if (!r || !p) {
		free(r);
		free(p);
		return NULL;
	}
	if (opts)
		p->opts = *opts;
	p->fold = atag_fold_alloc();
	if (!p->fold) {
		free(r);
		free(p);
		return NULL;
	}
	r->priv = p;
	r->complete = true;
	return r;
}

static void stack_free(struct atag_report_stack *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_frames; i++)
		free(s->frames[i]);
	free(s->frames);
	free(s);
}

static void tag_free(struct atag_report_tag *t)
{
	size_t i;

	for (i = 0; i < t->nr_stacks; i++)
		stack_free(t->stacks[i]);
	free(t->stacks);
	free(t->function);
	free(t->file);
	free(t->module);
	atag_lifetime_free(&t->lifetimes);
	free(t);
}

static void file_free(struct atag_report_file *f)
{
	unsigned int i;

	free(f->path);
	free(f->buffer);
	for (i = 0; i < f->nr_also; i++)
		free(f->also[i]);
	free(f->also);
	for (i = 0; i < f->nr_counts; i++)
		free(f->counts[i].event);
	free(f->counts);
}

void atag_report_free(struct atag_report *r)
{
	struct report_priv *p;
	unsigned int i;
	size_t j;

	if (!r)
		return;
	p = r->priv;
	for (j = 0; j < r->nr_tags; j++)
		tag_free(r->tags[j]);
	free(r->tags);
	for (j = 0; j < r->nr_live; j++)
		free(r->live[j].comm);
	free(r->live);
	for (i = 0; i < r->nr_files; i++)
		file_free(&r->files[i]);
	free(r->files);
	for (i = 0; i < r->nr_notices; i++)
		free(r->notices[i]);
	free(r->notices);
	for (i = 0; i < r->nr_remarks; i++)
		free(r->remarks[i]);
	free(r->remarks);
	if (p)
		atag_fold_free(p->fold);
	free(p);
	free(r);
}

/* ------------------------------------------------------------ what was read */

static struct atag_report_file *new_file(struct atag_report *r, const struct atag_reader *rd)
{
	struct atag_report_file *f;
	unsigned int i;

	f = realloc(r->files, (r->nr_files + 1) * sizeof(*f));
	if (!f)
		return NULL;
	r->files = f;
	f = &r->files[r->nr_files++];
	memset(f, 0, sizeof(*f));
	f->path = strdup(atag_reader_path(rd));
	f->source = atag_reader_source(rd)->name;
	f->buffer = strdup(atag_reader_buffer(rd));
	f->also = calloc(atag_reader_nr_also(rd) + 1, sizeof(*f->also));
	if (!f->path || !f->buffer || !f->also) {
		file_free(&r->files[--r->nr_files]);
		return NULL;
	}
	for (i = 0; i < atag_reader_nr_also(rd); i++)
		f->also[f->nr_also++] = strdup(atag_reader_also(rd, i));
	return f;
}

/* How many records of each event of the source, and of kernel_stack, were read. */
static void note_counts(struct atag_report_file *f, const struct atag_reader *rd,
			const struct atag_stitcher *st)
{
	const struct atag_source *src = atag_reader_source(rd);
	const struct atag_decoder *dec = atag_reader_decoder(rd);
	const struct atag_read_stats *stats = atag_reader_stats(rd);
	int i, n;

	f->records = stats->records;
	f->first_ts = stats->first_ts;
	f->last_ts = stats->last_ts;
	for (n = 0; src->events[n].name; n++)
		;
	f->counts = calloc(n + 1, sizeof(*f->counts));
	if (!f->counts)
		return;
	for (i = 0; i < n; i++) {
		if (!atag_decoder_has_event(dec, i))
			continue;
		f->counts[f->nr_counts].event = g_strdup_printf("%s:%s", src->events[i].system,
								 src->events[i].name);
		f->counts[f->nr_counts++].count = atag_decoder_count(dec, i);
	}
	if (atag_decoder_has_stacks(dec)) {
		f->counts[f->nr_counts].event = strdup("ftrace:kernel_stack");
		f->counts[f->nr_counts++].count = atag_decoder_stack_count(dec);
	}
	f->malformed = atag_decoder_malformed(dec);
	f->orphan_stacks = atag_stitch_orphan_stacks(st);
}

/* What is missing from what was read (notices), and what else is worth knowing. */
static void note_losses(struct atag_report *r, struct atag_report_file *f,
			const struct atag_reader *rd)
{
	struct atag_trace *trace = atag_reader_trace(rd);
	const char *b = f->buffer[0] ? f->buffer : "top";
	uint64_t size, needed, missed;
	unsigned int i;
	int cpu;

	if (atag_reader_stats(rd)->fault)
		notice(r, "%s: corrupt ring-buffer data in buffer %s: reading stopped after "
		       "%llu records", f->path, b, (unsigned long long)f->records);
	for (cpu = 0; cpu < atag_reader_nr_cpus(rd); cpu++) {
		if (!atag_reader_missed(rd, cpu, &missed))
			continue;
		if (missed == ~0ULL)
			notice(r, "%s: buffer %s, CPU %d: events were lost (count unknown)",
			       f->path, b, atag_reader_cpu_id(rd, cpu));
		else
			notice(r, "%s: buffer %s, CPU %d: %llu events were lost", f->path, b,
			       atag_reader_cpu_id(rd, cpu), (unsigned long long)missed);
	}
	if (atag_trace_truncated(trace, &size, &needed)) {
		f->truncated = true;
		notice(r, "%s: truncated (%llu of %llu bytes): what follows the cut is missing",
		       f->path, (unsigned long long)size, (unsigned long long)needed);
	}
	for (i = 0; i < atag_trace_nr_warnings(trace); i++)
		notice(r, "%s: %s", f->path, atag_trace_warning(trace, i));
	if (f->malformed)
		notice(r, "%s: %llu malformed records skipped", f->path,
		       (unsigned long long)f->malformed);
	if (f->orphan_stacks)
		remark(r, "%s: %llu kernel stacks belonged to no waiting event", f->path,
		       (unsigned long long)f->orphan_stacks);
	if (!f->records)
		remark(r, "%s: buffer %s holds no records to read", f->path, b);
}

int atag_report_add_file(struct atag_report *r, const char *path, char *err, size_t errlen)
{
	struct report_priv *p = r->priv;
	struct atag_run run = { 0 };
	struct atag_report_file *f;
	struct atag_reader *rd;
	int ret;

	ret = atag_reader_open(path, &p->opts.read, &rd, err, errlen);
	if (ret)
		return ret;
	f = new_file(r, rd);
	ret = f ? atag_run_stitch(&run, rd) : -ENOMEM;
	if (!ret) {
		note_counts(f, rd, run.st);
		note_losses(r, f, rd);
		ret = atag_fold_file(p->fold, r, &run, rd, p->opts.raw_stacks);
	}
	atag_run_free(&run);
	atag_reader_close(rd);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		if (f)
			file_free(&r->files[--r->nr_files]);
		return atag_err(ret);
	}
	return 0;
}
