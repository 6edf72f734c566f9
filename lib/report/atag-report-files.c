// SPDX-License-Identifier: LGPL-2.1
/*
 * The report of trace.dat files: it owns what the renderers read, adds a file
 * (read and stitched by atag-run.c, folded in by atag-fold.c) and says what was
 * read of each file and what is missing: lost events, the recording's
 * description, what the observer cost, and the counters' view of completeness.
 * See atag-report.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atag-counted.h"
#include "atag-debuginfo.h"
#include "atag-fold.h"
#include "atag-marker.h"
#include "atag-read.h"
#include "atag-recording.h"
#include "atag-report.h"
#include "atag-rows.h"
#include "atag-run.h"
#include "atag-source.h"
#include "atag-symbols.h"
#include "atag-trace.h"
#include "atag-utils.h"

/* An opened vmlinux, kept for the files that use it. */
struct debuginfo {
	char			*key;		/* the path given, or "release:" RELEASE */
	struct atag_debuginfo	*di;		/* NULL: none there */
};

struct report_priv {
	struct atag_report_opts	opts;
	struct atag_fold	*fold;
	struct debuginfo	*di;
	unsigned int		nr_di;
	struct atag_rows	*rows;		/* rows streamed, or NULL */
	uint64_t		bytes;		/* the files' atag_decoder_bytes() */
};

/* ------------------------------------------------------------ notices */

static void add_line(char ***list, unsigned int *nr, const char *fmt, va_list ap)
{
	char **p, *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return;
	/* doubled when *@nr reaches a power of two: a file may make a million of them */
	p = *nr & (*nr - 1) ? *list : realloc(*list, (*nr ? 2 * (size_t)*nr : 1) * sizeof(*p));
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
	r->raw_lifetimes = p->opts.raw_lifetimes;
	return r;
}

struct atag_fold *atag_report_fold(struct atag_report *r)
{
	return ((struct report_priv *)r->priv)->fold;
}

const struct atag_report_opts *atag_report_opts_of(const struct atag_report *r)
{
	return &((const struct report_priv *)r->priv)->opts;
}

static void stack_free(struct atag_report_stack *s)
{
	unsigned int i;

	/* the frames' names are the fold's (atag-fold.c), the lines the stack's */
	for (i = 0; s->lines && i < s->nr_frames; i++)
		free(s->lines[i]);
	free(s->frames);
	free(s->lines);
	free(s->estimate);
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
	free(f->sources);
	atag_recording_free(f->recording);
	for (i = 0; i < f->nr_cpus; i++)
		atag_lifetime_free(&f->cpus[i].cost);
	free(f->cpus);
}

static void completeness_free(struct atag_report_completeness *c)
{
	free(c->function);
	free(c->source_file);
	free(c->module);
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
	free(r->sources);
	for (i = 0; i < r->nr_completeness; i++)
		completeness_free(&r->completeness[i]);
	free(r->completeness);
	atag_report_timelines_free(r);
	if (p) {
		atag_fold_free(p->fold);
		for (i = 0; i < p->nr_di; i++) {
			free(p->di[i].key);
			atag_debuginfo_close(p->di[i].di);
		}
		free(p->di);
		atag_rows_free(p->rows);
	}
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
	f->sources = calloc(atag_reader_nr_sources(rd), sizeof(*f->sources));
	for (i = 0; f->sources && i < atag_reader_nr_sources(rd); i++)
		f->sources[f->nr_sources++] = atag_reader_source_at(rd, i)->name;
	f->buffer = strdup(atag_reader_buffer(rd));
	f->also = calloc(atag_reader_nr_also(rd) + 1, sizeof(*f->also));
	if (!f->path || !f->buffer || !f->also || !f->sources) {
		file_free(&r->files[--r->nr_files]);
		return NULL;
	}
	for (i = 0; i < atag_reader_nr_also(rd); i++)
		f->also[f->nr_also++] = strdup(atag_reader_also(rd, i));
	return f;
}

/* How many records of each event of the sources, and of kernel_stack, were read. */
static void note_counts(struct atag_report_file *f, const struct atag_reader *rd,
			const struct atag_stitcher *st)
{
	const struct atag_decoder *dec = atag_reader_decoder(rd);
	const struct atag_read_stats *stats = atag_reader_stats(rd);
	const struct atag_source *src;
	unsigned int k;
	int i, n = 0;

	f->records = stats->records;
	f->first_ts = stats->first_ts;
	f->last_ts = stats->last_ts;
	for (k = 0; k < atag_reader_nr_sources(rd); k++)
		for (src = atag_reader_source_at(rd, k), i = 0; src->events[i].name; i++)
			n++;
	f->counts = calloc(n + 1, sizeof(*f->counts));
	if (!f->counts)
		return;
	for (k = 0; k < atag_reader_nr_sources(rd); k++) {
		src = atag_reader_source_at(rd, k);
		for (i = 0; src->events[i].name; i++) {
			if (!atag_decoder_source_has_event(dec, k, i))
				continue;
			f->counts[f->nr_counts].event = g_strdup_printf("%s:%s", src->events[i].system,
									 src->events[i].name);
			f->counts[f->nr_counts++].count = atag_decoder_source_count(dec, k, i);
		}
	}
	if (atag_decoder_has_stacks(dec)) {
		f->counts[f->nr_counts].event = strdup("ftrace:kernel_stack");
		f->counts[f->nr_counts++].count = atag_decoder_stack_count(dec);
	}
	f->malformed = atag_decoder_malformed(dec);
	f->orphan_stacks = atag_stitch_orphan_stacks(st);
}

/*
 * What no sound trace holds: a CPU's records running backwards, sizes no machine has,
 * byte counts too large to add up exactly (for the file, then for the report).
 */
static void note_implausible(struct atag_report *r, struct atag_report_file *f,
			     const struct atag_reader *rd)
{
	const struct atag_decoder *dec = atag_reader_decoder(rd);
	const char *b = f->buffer[0] ? f->buffer : "top";
	struct report_priv *p = r->priv;
	uint64_t n, bytes;
	bool over;
	int cpu;

	for (cpu = 0; cpu < atag_reader_nr_cpus(rd); cpu++) {
		n = atag_reader_backwards(rd, cpu);
		if (n)
			notice(r, "%s: buffer %s, CPU %d: its timestamps run backwards %llu %s "
			       "(damaged or forged pages): the order of events and the lifetimes "
			       "are not to be trusted", f->path, b, atag_reader_cpu_id(rd, cpu),
			       (unsigned long long)n, n == 1 ? "time" : "times");
	}
	n = atag_decoder_implausible(dec);
	if (n)
		notice(r, "%s: %llu allocation and free records claim more than 4 PiB each "
		       "(more memory than a machine can address): skipped", f->path,
		       (unsigned long long)n);
	bytes = atag_decoder_bytes(dec);
	if (bytes > ATAG_BYTES_SUM_MAX)
		notice(r, "%s: its allocations and frees add up to more than 2^62 bytes "
		       "(implausible): its byte counts may be wrong", f->path);
	over = p->bytes > ATAG_BYTES_SUM_MAX;
	if (__builtin_add_overflow(p->bytes, bytes, &p->bytes))
		p->bytes = UINT64_MAX;
	if (!over && bytes <= ATAG_BYTES_SUM_MAX && p->bytes > ATAG_BYTES_SUM_MAX)
		notice(r, "the allocations and frees of the files add up to more than 2^62 bytes "
		       "(implausible): the report's byte counts may be wrong");
}

/* A timestamp as trace-cmd report prints it: seconds with six decimals. */
static char *ts_text(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000 / 1000));
	return buf;
}

/* The time window holds none of the buffer's records: say which window, and their span. */
static void empty_window(struct atag_report *r, const struct atag_report_file *f,
			 const struct atag_reader *rd, const char *b)
{
	const struct atag_read_opts *o = &((struct report_priv *)r->priv)->opts.read;
	const struct atag_read_stats *st = atag_reader_stats(rd);
	char s[32], e[32], first[32], last[32];

	notice(r, "%s: the time window %s%s%s%s holds none of the %llu records of buffer %s, "
	       "which run from %s to %s", f->path, o->has_start ? "--start " : "",
	       o->has_start ? ts_text(s, sizeof(s), o->start) : "",
	       o->has_start && o->has_end ? " --end " : o->has_end ? "--end " : "",
	       o->has_end ? ts_text(e, sizeof(e), o->end) : "",
	       (unsigned long long)st->outside, b, ts_text(first, sizeof(first), st->all_first_ts),
	       ts_text(last, sizeof(last), st->all_last_ts));
}

/*
 * What is missing from what was read (notices), and what else is worth knowing.
 * True when events were lost, the file is cut or its data corrupt.
 */
static bool note_losses(struct atag_report *r, struct atag_report_file *f,
			const struct atag_reader *rd)
{
	struct atag_trace *trace = atag_reader_trace(rd);
	const struct report_priv *p = r->priv;
	const char *b = f->buffer[0] ? f->buffer : "top";
	uint64_t size, needed, missed;
	unsigned int i;
	bool lost = false;
	int cpu;

	note_implausible(r, f, rd);
	if (atag_reader_stats(rd)->fault) {
		lost = true;
		notice(r, "%s: corrupt ring-buffer data in buffer %s: reading stopped after "
		       "%llu records", f->path, b, (unsigned long long)f->records);
	}
	for (cpu = 0; cpu < atag_reader_nr_cpus(rd); cpu++) {
		if (!atag_reader_missed(rd, cpu, &missed))
			continue;
		lost = true;
		if (missed == ~0ULL)
			notice(r, "%s: buffer %s, CPU %d: events were lost (count unknown)",
			       f->path, b, atag_reader_cpu_id(rd, cpu));
		else
			notice(r, "%s: buffer %s, CPU %d: %llu events were lost", f->path, b,
			       atag_reader_cpu_id(rd, cpu), (unsigned long long)missed);
	}
	if (atag_trace_truncated(trace, &size, &needed)) {
		f->truncated = lost = true;
		notice(r, "%s: truncated (%llu of %llu bytes): what follows the cut is missing",
		       f->path, (unsigned long long)size, (unsigned long long)needed);
	}
	for (i = 0; i < atag_trace_nr_warnings(trace); i++)
		notice(r, "%s: %s", f->path, atag_trace_warning(trace, i));
	/* names only: counts depend on them only where comms choose the tasks */
	for (i = 0; i < atag_trace_nr_damages(trace); i++) {
		if (p->opts.read.nr_comms || p->opts.read.nr_exclude_comms)
			notice(r, "%s: %s; tasks are chosen by comm here", f->path,
			       atag_trace_damage(trace, i));
		else
			remark(r, "%s: %s", f->path, atag_trace_damage(trace, i));
	}
	if (f->malformed)
		notice(r, "%s: %llu malformed records skipped", f->path,
		       (unsigned long long)f->malformed);
	if (f->orphan_stacks)
		remark(r, "%s: %llu kernel stacks belonged to no waiting event", f->path,
		       (unsigned long long)f->orphan_stacks);
	if (!f->records && atag_reader_stats(rd)->outside)
		empty_window(r, f, rd, b);
	else if (!f->records)
		remark(r, "%s: buffer %s holds no records to read", f->path, b);
	return lost;
}

/* ------------------------------------------------------------ the recording */

static const char *task_name(enum atag_task t)
{
	static const char *const names[ATAG_TASK_NR] = {
		[ATAG_TASK_ANY] = "any", [ATAG_TASK_WORKLOAD] = "workload",
		[ATAG_TASK_RECORDER] = "recorder", [ATAG_TASK_OTHER] = "other",
	};

	return names[t];
}

static bool same_str(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static bool same_tag(const struct atag_marker_tag *a, const struct atag_marker_tag *b)
{
	return a->line == b->line && same_str(a->function, b->function) &&
	       same_str(a->file, b->file) && same_str(a->module, b->module);
}

/* The alloc_tag events a file holds (hits, allocations, frees). */
static uint64_t alloc_tag_events(const struct atag_report_file *f)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < f->nr_counts; i++)
		if (f->counts[i].event && !strncmp(f->counts[i].event, "alloc_tag:", 10))
			n += f->counts[i].count;
	return n;
}

/* Whether the counters lines show some selected tag's counters changing. */
static bool counters_moved(const struct atag_recording *rec)
{
	const struct atag_marker_counters *b, *e;
	unsigned int i, j;

	for (i = 0; i < rec->nr_counters_end; i++) {
		e = &rec->counters_end[i];
		for (j = 0; j < rec->nr_counters_start; j++) {
			b = &rec->counters_start[j];
			if (same_tag(&b->tag, &e->tag) && (b->bytes != e->bytes || b->calls != e->calls))
				return true;
		}
	}
	return false;
}

/*
 * A recording of tags that holds no alloc_tag event, or was made while memory
 * allocation profiling was off: the kernel emits the events only while profiling
 * is on (the series' 2/4, include/atag-profiling.h), and says so in the description's
 * "profiling" lines; the counters lines tell the rest.
 */
static void note_profiling(struct atag_report *r, const struct atag_report_file *f,
			   const struct atag_recording *rec)
{
	bool off_start = rec->profiling_start == ATAG_MARKER_PROFILING_OFF;
	bool off_end = rec->profiling_end == ATAG_MARKER_PROFILING_OFF;
	bool on = rec->profiling_start == ATAG_MARKER_PROFILING_ON &&
		  rec->profiling_end == ATAG_MARKER_PROFILING_ON;
	uint64_t n = alloc_tag_events(f);
	const char *when;

	if (!rec->source || strcmp(rec->source, "alloc_tag") ||
	    (!rec->select_all && !rec->nr_selected))
		return;
	when = off_start && off_end ? "when recording started and when it ended" :
	       off_start ? "when recording started" : "when recording ended";
	if ((off_start || off_end) && !n)
		remark(r, "%s: no alloc_tag event, although tags were selected: memory allocation "
		       "profiling was off (vm.mem_profiling = 0) %s, and the kernel emits the "
		       "events only while it is on", f->path, when);
	else if (off_start || off_end)
		remark(r, "%s: memory allocation profiling was off (vm.mem_profiling = 0) %s: "
		       "what was allocated while it was off has no event", f->path, when);
	else if (!n && rec->nr_counters_end && !counters_moved(rec))
		remark(r, "%s: no alloc_tag event, although tags were selected, and the counters "
		       "of the selected tags did not move: nothing was allocated or freed at them "
		       "while recording%s", f->path, on ? "" :
		       ", or memory allocation profiling was off (the recording does not say)");
}

/* The recording's description, the tasks it told apart, the counters window. */
static void note_recording(struct atag_report *r, struct atag_report_file *f,
			   struct atag_reader *rd, const struct atag_stitcher *st)
{
	const struct atag_scope *scope = atag_reader_scope(rd);
	struct atag_recording *rec = atag_reader_take_recording(rd);
	int k;

	for (k = 0; k < ATAG_TASK_NR; k++)
		f->tasks[k] = atag_scope_count(scope, k);
	f->window = atag_stitch_window(st, &f->window_open, &f->window_close);
	if (rec && rec->newer)
		remark(r, "%s: its description is of version %d, newer than this report reads "
		       "(v%d): reported as a file without one", f->path, rec->newer,
		       ATAG_MARKER_VERSION);
	if (!atag_recording_labelled(rec)) {
		atag_recording_free(rec);
		if (!f->records)
			return;
		remark(r, "%s: no recording description (the marker lines of "
		       "trace-cmd-alloc-tag record): every task and every tag counted", f->path);
		return;
	}
	f->recording = rec;
	if (rec->malformed)
		remark(r, "%s: %u marker lines malformed (ignored)", f->path, rec->malformed);
	if (!rec->end_reason)
		remark(r, "%s: the recording has no end line: it was cut short (killed?)",
		       f->path);
	note_profiling(r, f, rec);
	(void)task_name;
}

/* What the stack captures of each CPU cost. */
static int note_observer(struct atag_report_file *f, const struct atag_stitcher *st)
{
	const struct atag_captures *c;
	struct atag_report_cpu *cpu;
	int i;

	for (i = 0; i < atag_stitch_nr_cpus(st); i++) {
		c = atag_stitch_captures(st, i);
		if (!c)
			continue;
		cpu = realloc(f->cpus, (f->nr_cpus + 1) * sizeof(*cpu));
		if (!cpu)
			return -ENOMEM;
		f->cpus = cpu;
		cpu = &f->cpus[f->nr_cpus++];
		memset(cpu, 0, sizeof(*cpu));
		cpu->cpu = i;
		cpu->stacks = c->stacks;
		cpu->ns = c->ns;
		if (atag_lifetime_merge(&cpu->cost, &c->cost))
			return -ENOMEM;
	}
	return 0;
}

#define NAMED_SHOWN	8

/*
 * Tags whose events in the window are all frees (what they allocated before the
 * recording) have no hit to name them: name them after the counters where only one
 * call site can be meant (atag_counted_name()), and say so. Not for a file that
 * lost events: there a difference may be a loss.
 */
static int name_unnamed(struct atag_report *r, const struct atag_report_file *f,
			const struct atag_reader *rd, struct atag_run *run, bool lost)
{
	struct atag_counted_named *named;
	const struct atag_marker_tag *s;
	unsigned int i, nr;
	int ret;

	if (lost || !f->recording || !f->window)
		return 0;
	ret = atag_counted_name(run, rd, f->recording, &named, &nr);
	for (i = 0; !ret && i < nr && i < NAMED_SHOWN; i++) {
		s = named[i].site;
		remark(r, "%s: tag 0x%llx had no hit event (its %lld calls, %lld bytes in the "
		       "counters window free what was allocated before the recording): named "
		       "%s %s:%ld%s%s%s, whose counters changed by as much and no other's did",
		       f->path, (unsigned long long)named[i].tag, (long long)named[i].calls,
		       (long long)named[i].bytes, s->function, s->file ? s->file : "?",
		       s->line, s->module ? " [" : "", s->module ? s->module : "",
		       s->module ? "]" : "");
	}
	if (!ret && nr > NAMED_SHOWN)
		remark(r, "%s: %u more tags without a hit event named after their counters "
		       "likewise", f->path, nr - NAMED_SHOWN);
	free(named);
	return ret;
}

/*
 * What of the difference @d (counted - traced) the uncertain events cannot
 * explain: up to @up of them may belong in the traced sum, raising it, and up
 * to @down lowering it.
 */
static int64_t beyond(int64_t d, uint64_t up, uint64_t down)
{
	if (d > 0)
		return (uint64_t)d > up ? (int64_t)((uint64_t)d - up) : 0;
	if (d < 0)
		return 0 - (uint64_t)d > down ? -(int64_t)(0 - (uint64_t)d - down) : 0;
	return 0;
}

/*
 * @a - @b, held within +-INT64_MAX: counters lines of a file may claim any numbers,
 * and what comes of them is printed negated too.
 */
static int64_t difference(int64_t a, int64_t b)
{
	int64_t d;

	if (__builtin_sub_overflow(a, b, &d))
		return a < 0 ? -INT64_MAX : INT64_MAX;
	return d == INT64_MIN ? -INT64_MAX : d;
}

/*
 * Per tag with "counters start" and "end" lines: the counters' deltas against the
 * events inside the window; a difference is a notice (events were missed).
 */
static int note_completeness(struct atag_report *r, struct atag_report_file *f,
			     const struct atag_reader *rd, const struct atag_run *run, bool lost)
{
	struct atag_window pool = { 0 };
	unsigned int pool_tags = 0, pooled = 0;
	int64_t calls, bytes;
	const struct atag_recording *rec = f->recording;
	struct atag_counted_site *sites = NULL;
	const struct atag_counted_site *e;
	struct atag_report_completeness *c;
	static const struct atag_traced none;
	struct atag_traced *traced_sites = NULL;
	const struct atag_marker_tag *site;
	const struct atag_traced *tr;
	GHashTable *traced;
	long i, n, nr;
	char what[512];
	int ret = 0;

	if (!rec || !rec->nr_counters_end)
		return 0;
	if (!f->window) {
		remark(r, "%s: the counters lines do not frame a window: no completeness check",
		       f->path);
		return 0;
	}
	/* the tags still unnamed: their events may be any call site's (not after losses) */
	if (!lost)
		pool_tags = atag_counted_unnamed(run, rd, &pool);
	/* by call site, once: a file may hold a million of these lines */
	nr = atag_counted_sites(rec, &sites);
	traced = atag_counted_traced(run, rd, &traced_sites);
	for (i = n = 0; i < nr; i++)
		n += !!sites[i].starts;
	c = n ? realloc(r->completeness, (r->nr_completeness + n) * sizeof(*c)) : r->completeness;
	if (nr < 0 || !c || !traced_sites) {
		ret = -ENOMEM;
		goto out;
	}
	r->completeness = c;
	for (i = 0; i < nr; i++) {
		e = &sites[i];
		site = e->site;
		tr = g_hash_table_lookup(traced, site);
		if (!e->starts)
			continue;
		if (!tr)
			tr = &none;
		c = &r->completeness[r->nr_completeness++];
		memset(c, 0, sizeof(*c));
		c->file = r->nr_files - 1;
		c->function = site->function ? strdup(site->function) : NULL;
		c->source_file = site->file ? strdup(site->file) : NULL;
		c->module = site->module ? strdup(site->module) : NULL;
		c->line = site->line;
		c->tags = e->ends;
		c->counted_calls = (int64_t)(e->end_calls - e->start_calls);
		c->counted_bytes = (int64_t)(e->end_bytes - e->start_bytes);
		c->traced_calls = (int64_t)(tr->w.allocs - tr->w.frees);
		c->traced_bytes = (int64_t)(tr->w.bytes_alloced - tr->w.bytes_freed);
		c->uncertain_calls = tr->w.uncertain_allocs + tr->w.uncertain_frees;
		c->uncertain_bytes = tr->w.uncertain_bytes_alloced + tr->w.uncertain_bytes_freed;
		c->missing_calls = beyond(difference(c->counted_calls, c->traced_calls),
					  tr->w.uncertain_allocs, tr->w.uncertain_frees);
		c->missing_bytes = beyond(difference(c->counted_bytes, c->traced_bytes),
					  tr->w.uncertain_bytes_alloced,
					  tr->w.uncertain_bytes_freed);
		if ((c->missing_calls || c->missing_bytes) && pool_tags) {
			calls = beyond(difference(c->counted_calls, c->traced_calls),
				       tr->w.uncertain_allocs + pool.allocs + pool.uncertain_allocs,
				       tr->w.uncertain_frees + pool.frees + pool.uncertain_frees);
			bytes = beyond(difference(c->counted_bytes, c->traced_bytes),
				       tr->w.uncertain_bytes_alloced + pool.bytes_alloced +
				       pool.uncertain_bytes_alloced,
				       tr->w.uncertain_bytes_freed + pool.bytes_freed +
				       pool.uncertain_bytes_freed);
			c->unnamed_calls = c->missing_calls - calls;
			c->unnamed_bytes = c->missing_bytes - bytes;
			c->missing_calls = calls;
			c->missing_bytes = bytes;
			pooled += c->unnamed_calls || c->unnamed_bytes;
		}
		c->complete = !c->missing_calls && !c->missing_bytes;
		c->reshaped = !c->complete && tr->odd && (!c->missing_calls || !c->missing_bytes);
		if (c->complete)
			continue;
		snprintf(what, sizeof(what), "%s %s:%ld%s%s%s", c->function ? c->function : "?",
			 c->source_file ? c->source_file : "?", c->line, c->module ? " [" : "",
			 c->module ? c->module : "", c->module ? "]" : "");
		if (c->reshaped) {
			remark(r, "%s: %s: /proc/allocinfo counted %lld calls and %lld bytes that no "
			       "event shows: split or partly freed pages change its counters without "
			       "an event, not a loss", f->path, what, (long long)c->missing_calls,
			       (long long)c->missing_bytes);
			continue;
		}
		if (c->missing_calls >= 0 && c->missing_bytes >= 0)
			notice(r, "%s: %s: the trace misses %lld allocations (%lld bytes) that "
			       "/proc/allocinfo counted", f->path, what,
			       (long long)c->missing_calls, (long long)c->missing_bytes);
		else if (c->missing_calls <= 0 && c->missing_bytes <= 0)
			notice(r, "%s: %s: the trace misses %lld frees (%lld bytes) that "
			       "/proc/allocinfo counted", f->path, what,
			       -(long long)c->missing_calls, -(long long)c->missing_bytes);
		else
			notice(r, "%s: %s: the trace and /proc/allocinfo differ by %lld calls and "
			       "%lld bytes", f->path, what, (long long)c->missing_calls,
			       (long long)c->missing_bytes);
	}
	if (pooled)
		remark(r, "%s: %llu frees and %llu allocations (%llu and %llu bytes) in the "
		       "counters window are of %u %s that neither a hit event nor the counters "
		       "could name (several call sites could be meant, or the counters were read "
		       "while they changed): what they can account for of %u call %s differences "
		       "is not called missing (unnamed_calls, unnamed_bytes)", f->path,
		       (unsigned long long)(pool.frees + pool.uncertain_frees),
		       (unsigned long long)(pool.allocs + pool.uncertain_allocs),
		       (unsigned long long)(pool.bytes_freed + pool.uncertain_bytes_freed),
		       (unsigned long long)(pool.bytes_alloced + pool.uncertain_bytes_alloced),
		       pool_tags, pool_tags == 1 ? "tag" : "tags", pooled,
		       pooled == 1 ? "site's" : "sites'");
out:
	g_hash_table_destroy(traced);
	free(traced_sites);
	free(sites);
	return ret;
}

/* ------------------------------------------------------------ debug information */

#define MISMATCH_SAMPLE	64

struct sample {
	struct tep_handle		*tep;
	const struct atag_modules	*mods;
	const char			**names;
	uint64_t			*addrs;
	unsigned int			n;
};

/* The built-in function at @addr joins the sample (once), with its start. */
static void sample_add(struct sample *sm, uint64_t addr)
{
	const char *fn, *mod;
	unsigned int k;
	uint64_t off;

	fn = atag_function_of(sm->tep, sm->mods, addr, &off, &mod);
	if (!fn || mod)
		return;
	for (k = 0; k < sm->n; k++)
		if (!strcmp(sm->names[k], fn))
			return;
	sm->names[sm->n] = fn;
	sm->addrs[sm->n++] = addr - off;
}

/* Up to MISMATCH_SAMPLE distinct built-in functions of the run's call sites and frames. */
static unsigned int sample_functions(const struct atag_run *run, struct atag_reader *rd,
				     const char **names, uint64_t *addrs)
{
	struct atag_trace *trace = atag_reader_trace(rd);
	struct sample sm = { .tep = atag_trace_tep(trace), .mods = atag_trace_modules(trace),
			     .names = names, .addrs = addrs };
	const struct atag_tag_stats *t;
	const uint64_t *frames;
	unsigned int k, j, nr;
	size_t i, id;

	for (k = 0; k < run->nr_src; k++) {
		for (i = 0; sm.n < MISMATCH_SAMPLE && i < atag_aggr_nr_tags(run->aggr[k]); i++) {
			t = atag_aggr_tag(run->aggr[k], i);
			if (!t->function && t->tag)
				sample_add(&sm, t->tag);
		}
	}
	for (id = 1; sm.n < MISMATCH_SAMPLE && id < atag_stacks_count(run->stacks); id++) {
		frames = atag_stacks_get(run->stacks, id, &nr);
		for (j = 0; sm.n < MISMATCH_SAMPLE && j < nr; j++)
			sample_add(&sm, frames[j]);
	}
	return sm.n;
}

/* Whether a source of the run names its call sites by code address (kmem, page). */
static bool needs_lines(const struct atag_run *run, struct atag_reader *rd)
{
	unsigned int k;

	for (k = 0; k < run->nr_src; k++)
		if (atag_reader_source_at(rd, k)->name_tag && atag_aggr_nr_tags(run->aggr[k]))
			return true;
	return false;
}

/* The kernel release of the trace: the third word of its uname, or NULL. */
static char *trace_release(struct atag_reader *rd)
{
	const char *u = atag_trace_uname(atag_reader_trace(rd));
	char sys[64], host[256], rel[256];

	if (!u || sscanf(u, "%63s %255s %255s", sys, host, rel) != 3)
		return NULL;
	return strdup(rel);
}

/*
 * The debug information for the file of @rd: the vmlinux given, else the
 * distribution's for its kernel release, when there (*@di NULL: none). Fails
 * (with @err) when the vmlinux given cannot be read, or is not the traced kernel.
 */
static int debuginfo_for(struct atag_report *r, struct atag_reader *rd, const struct atag_run *run,
			 struct atag_debuginfo **di, char *err, size_t errlen)
{
	struct report_priv *p = r->priv;
	struct atag_debuginfo_opts o = { .vmlinux = p->opts.vmlinux,
					 .module_dirs = p->opts.module_dirs };
	const char *names[MISMATCH_SAMPLE];
	uint64_t addrs[MISMATCH_SAMPLE], link, text;
	struct debuginfo *d;
	char *release, *key;
	unsigned int i, n, bad, known = 0, first = 0;

	*di = NULL;
	if (p->opts.no_debuginfo)
		return 0;
	release = trace_release(rd);
	o.release = release;
	key = NULL;
	if (o.vmlinux)
		key = strdup(o.vmlinux);
	else if (release && asprintf(&key, "release:%s", release) < 0)
		key = NULL;
	if (!key) {
		free(release);
		return 0;
	}
	for (i = 0; i < p->nr_di && strcmp(p->di[i].key, key); i++)
		;
	if (i == p->nr_di) {
		d = realloc(p->di, (p->nr_di + 1) * sizeof(*d));
		if (!d) {
			free(key);
			free(release);
			return -ENOMEM;
		}
		p->di = d;
		d = &p->di[p->nr_di++];
		d->key = key;
		d->di = atag_debuginfo_open(&o, err, errlen);
		if (!d->di && o.vmlinux) {
			free(release);
			p->nr_di--;
			free(key);
			return -EINVAL;
		}
		if (!d->di && needs_lines(run, rd))
			remark(r, "%s: no debug information for kernel %s: call sites and frames "
			       "as function+offset (--vmlinux gives file:line)",
			       atag_reader_path(rd), release);
	} else {
		free(key);
	}
	free(release);
	d = &p->di[i];
	if (!d->di)
		return 0;
	/* the traced kernel's, or refused: its functions at the same distances */
	n = sample_functions(run, rd, names, addrs);
	bad = atag_debuginfo_mismatch(d->di, names, addrs, n);
	for (i = 0; i < n; i++)
		if (!atag_debuginfo_symbol(d->di, NULL, names[i], &link) && !known++)
			first = i;
	if (bad) {
		snprintf(err, errlen, "%s is not the kernel this trace was recorded on: %u of "
			 "the %u functions it and the trace share sit elsewhere",
			 atag_debuginfo_path(d->di), bad, known);
		return -EINVAL;
	}
	/* an ELF without one of the trace's functions (a program, another kernel) */
	if (n && !known) {
		if (!p->opts.vmlinux) {
			remark(r, "%s: %s holds none of the trace's functions: not its kernel's "
			       "debug information, not used", atag_reader_path(rd),
			       atag_debuginfo_path(d->di));
			return 0;
		}
		snprintf(err, errlen, "%s is not the kernel this trace was recorded on: none of "
			 "the %u functions of the trace checked (%s, ...) is in it",
			 atag_debuginfo_path(d->di), n, names[0]);
		return -EINVAL;
	}
	if (known && !atag_debuginfo_symbol(d->di, NULL, names[first], &link) &&
	    (!atag_debuginfo_symbol(d->di, NULL, "_text", &text) ||
	     !atag_debuginfo_symbol(d->di, NULL, "_stext", &text)))
		atag_debuginfo_set_kernel_base(d->di, addrs[first] - (link - text));
	*di = d->di;
	return 0;
}

int atag_report_stream_rows(struct atag_report *r, const struct atag_report_rows *rows,
			    const struct atag_report_view *view)
{
	struct report_priv *p = r->priv;

	atag_rows_free(p->rows);
	p->rows = atag_rows_alloc(rows, view, &p->opts);
	return p->rows ? 0 : -ENOMEM;
}

int atag_report_add_file(struct atag_report *r, const char *path, char *err, size_t errlen)
{
	struct report_priv *p = r->priv;
	struct atag_run run = { 0 };
	struct atag_report_file *f;
	struct atag_debuginfo *di;
	struct atag_reader *rd;
	unsigned int nr_notices = r->nr_notices, nr_remarks = r->nr_remarks;
	unsigned int nr_completeness = r->nr_completeness, nr_timelines = r->nr_timelines;
	bool complete = r->complete, lost = false;
	int ret;

	ret = atag_reader_open(path, &p->opts.read, &rd, err, errlen);
	if (ret)
		return ret;
	f = new_file(r, rd);
	run.timeline = p->opts.timeline;
	ret = f ? 0 : -ENOMEM;
	if (!ret && p->rows)
		ret = atag_rows_begin(p->rows, rd);
	if (!ret)
		ret = atag_run_stitch(&run, rd, p->opts.raw_lifetimes, p->rows);
	if (!ret && p->rows)
		ret = atag_rows_end(p->rows, &run);
	if (p->rows)
		atag_rows_done(p->rows);
	if (!ret) {
		note_counts(f, rd, run.st);
		lost = note_losses(r, f, rd);
		note_recording(r, f, rd, run.st);
		ret = note_observer(f, run.st);
	}
	if (!ret)
		ret = name_unnamed(r, f, rd, &run, lost);
	if (!ret)
		ret = debuginfo_for(r, rd, &run, &di, err, errlen);
	if (!ret)
		ret = atag_fold_file(p->fold, r, &run, rd, &p->opts, di);
	if (!ret)
		ret = note_completeness(r, f, rd, &run, lost);
	atag_run_free(&run);
	atag_reader_close(rd);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		else if (p->rows && ret != -EINVAL)
			snprintf(err, errlen, "writing its lifetimes out: %s", strerror(-ret));
		/* what this file added to the lists goes: its reason is the error */
		while (r->nr_notices > nr_notices)
			free(r->notices[--r->nr_notices]);
		while (r->nr_remarks > nr_remarks)
			free(r->remarks[--r->nr_remarks]);
		while (r->nr_completeness > nr_completeness)
			completeness_free(&r->completeness[--r->nr_completeness]);
		atag_report_timelines_trim(r, nr_timelines);
		r->complete = complete;
		if (f)
			file_free(&r->files[--r->nr_files]);
		return atag_err(ret);
	}
	return 0;
}
