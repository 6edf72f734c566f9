// SPDX-License-Identifier: LGPL-2.1
/*
 * The text rendering of a report: what was read of each file (with the
 * recording's description and what its stack captures cost), then per source a
 * summary, the call sites as an aligned table, and on request each call site's
 * stacks, the live allocations (the leak-suspect view) and log2 lifetime
 * histograms drawn as bars. With one source its section has no heading.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-recording.h"
#include "atag-render.h"
#include "atag-render-counters.h"
#include "atag-report.h"
#include "atag-table.h"
#include "atag-utils.h"

/* What marks a call site whose objects were reused while live, and what it means. */
#define REUSED_MARK	"  [reused while live %llux: untraced frees]"
#define REUSED_LEGEND	"[reused while live: untraced frees]: the call site's objects were " \
			"allocated again at an address\n  still live here: some of its frees are " \
			"not traced (bulk or RCU frees, or lost events).\n  The objects reused " \
			"have no lifetime, and its live ones may be gone already.\n"

#define SITE_LEN	512

static char *fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *format, ...)
{
	va_list ap;
	char *s;

	va_start(ap, format);
	if (vasprintf(&s, format, ap) < 0)
		s = NULL;
	va_end(ap);
	return s ? s : strdup("?");
}

static char *dur_cell(const struct atag_lifetime *lt, double pct)
{
	char buf[32];
	uint64_t ns;

	if (!lt->count)
		return strdup("-");
	ns = pct > 100 ? lt->max : atag_lifetime_percentile(lt, pct);
	return strdup(atag_format_duration(buf, sizeof(buf), ns));
}

static size_t nr_rows(const struct atag_render_opts *o, size_t n)
{
	return o->limit > 0 && (size_t)o->limit < n ? (size_t)o->limit : n;
}

static void more(FILE *f, size_t shown, size_t all, const char *what)
{
	if (shown < all)
		fprintf(f, "... %zu more %s (-n 0 shows all)\n", all - shown, what);
}

/* ------------------------------------------------------------ summary */

static void summary_recording(const struct atag_report_file *rf, FILE *f)
{
	const struct atag_recording *rec = rf->recording;
	unsigned int i, forked;

	fprintf(f, "  recording: by pid %d (", rec->record_pid);
	atag_text_fputs(rec->source ? rec->source : "?", f);
	fprintf(f, "%s)", rec->stacks ? ", stacks" : ", no stacks");
	if (rec->nr_workloads) {
		forked = rf->tasks[ATAG_TASK_WORKLOAD] > rec->nr_workloads ?
			 rf->tasks[ATAG_TASK_WORKLOAD] - rec->nr_workloads : 0;
		fprintf(f, "; workload");
		for (i = 0; i < rec->nr_workloads && i < 4; i++) {
			fprintf(f, "%s ", i ? "," : "");
			atag_text_fputs(rec->workloads[i].comm ? rec->workloads[i].comm : "?", f);
			fprintf(f, " (pid %d)", rec->workloads[i].pid);
		}
		if (rec->nr_workloads > 4)
			fprintf(f, " and %u more", rec->nr_workloads - 4);
		fprintf(f, ", %u %s forked from it", forked, forked == 1 ? "task" : "tasks");
	} else {
		fprintf(f, "; no workload: every task");
	}
	fprintf(f, "; %u recorder %s", rf->tasks[ATAG_TASK_RECORDER],
		rf->tasks[ATAG_TASK_RECORDER] == 1 ? "process" : "processes");
	fprintf(f, "; ended: ");
	atag_text_fputs(rec->end_reason ? rec->end_reason : "(no end line)", f);
	if (rec->linger_ms >= 0)
		fprintf(f, ", recorded %d ms past the workload's end", rec->linger_ms);
	fputc('\n', f);
	if (rec->select_all)
		fprintf(f, "  selected: every call site");
	else
		fprintf(f, "  selected: %u call %s", rec->nr_selected,
			rec->nr_selected == 1 ? "site" : "sites");
	if (rec->nr_also_traced)
		fprintf(f, "; %u other %s already traced", rec->nr_also_traced,
			rec->nr_also_traced == 1 ? "call site was" : "call sites were");
	fputc('\n', f);
}

static void summary_observer(const struct atag_report_file *rf, FILE *f)
{
	uint64_t stacks = 0, ns = 0;
	unsigned int i;
	char a[32], b[32];

	for (i = 0; i < rf->nr_cpus; i++) {
		stacks += rf->cpus[i].stacks;
		ns += rf->cpus[i].ns;
	}
	fprintf(f, "  stacks: %llu captures took %s", (unsigned long long)stacks,
		atag_format_duration(a, sizeof(a), ns));
	for (i = 0; i < rf->nr_cpus; i++)
		fprintf(f, "%sCPU %d %llu, median %s", i ? "; " : " (",
			rf->cpus[i].cpu, (unsigned long long)rf->cpus[i].stacks,
			atag_format_duration(b, sizeof(b),
					     atag_lifetime_percentile(&rf->cpus[i].cost, 50)));
	fprintf(f, ")\n");
}

static void summary_file(const struct atag_report_file *rf, FILE *f)
{
	unsigned int i;
	char a[32];

	atag_text_fputs(rf->path, f);
	fprintf(f, ": ");
	for (i = 0; i < rf->nr_sources; i++)
		fprintf(f, "%s%s", i ? ", " : "", rf->sources[i]);
	fprintf(f, " events, buffer ");
	atag_text_fputs(rf->buffer[0] ? rf->buffer : "top", f);
	for (i = 0; i < rf->nr_also; i++) {
		fprintf(f, "%s", i ? ", " : " (also in buffer ");
		atag_text_fputs(rf->also[i][0] ? rf->also[i] : "top", f);
	}
	fprintf(f, "%s\n", rf->nr_also ? ")" : "");
	fprintf(f, "  read:");
	for (i = 0; i < rf->nr_counts; i++)
		fprintf(f, "%s %s %llu", i ? "," : "", rf->counts[i].event,
			(unsigned long long)rf->counts[i].count);
	fputc('\n', f);
	if (rf->records)
		fprintf(f, "  span: %llu.%06llu .. %llu.%06llu (%s)\n",
			(unsigned long long)rf->first_ts / 1000000000,
			(unsigned long long)rf->first_ts % 1000000000 / 1000,
			(unsigned long long)rf->last_ts / 1000000000,
			(unsigned long long)rf->last_ts % 1000000000 / 1000,
			atag_format_duration(a, sizeof(a), rf->last_ts - rf->first_ts));
	if (rf->recording)
		summary_recording(rf, f);
	if (rf->nr_cpus)
		summary_observer(rf, f);
}

/* ------------------------------------------------------------ split and migrated pages */

/*
 * Live allocations that unmatched and partial frees may explain: page allocations
 * split or migrated after they were made have no event of their own (see
 * atag_counters_live_maybe_freed()). Said wherever live allocations are counted
 * or listed, so that their remnants are not taken for leaks.
 */
static void doubt_summary(const struct atag_report *r, const char *source, FILE *f)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < r->nr_selected; i++)
		if (r->tags[i]->source == source)
			n += atag_report_tag_maybe_freed(r->tags[i]);
	if (n)
		fprintf(f, "              up to %llu of them may be freed already: split or "
			"migrated pages (see below)\n", (unsigned long long)n);
}

/*
 * A line for each of @tags[0 .. @n) with unmatched or partial frees: after the call
 * sites, all of them; after the live view (@live), those with live allocations.
 */
static void doubts(const struct atag_report_tag * const *tags, size_t n, bool live, FILE *f)
{
	const struct atag_counters *c;
	char site[SITE_LEN];
	bool head = false, pages;
	size_t i;

	for (i = 0; i < n; i++) {
		c = &tags[i]->counts;
		pages = atag_counters_may_be_pages(tags[i]->source, tags[i]->sub_page, c);
		if ((!c->unmatched_frees && !c->partial_frees) || (live && (!c->live || !pages)))
			continue;
		if (!head && live)
			fprintf(f, "\nmay be freed already (their call sites' unmatched and "
				"partial frees):\n");
		else if (!head)
			fprintf(f, "\nunmatched and partial frees: pages split, migrated or partly "
				"freed after allocation, or allocated before tracing began:\n");
		head = true;
		fprintf(f, "  %s: ", atag_report_site(tags[i], site, sizeof(site)));
		if (!live)
			fprintf(f, "%llu unmatched, %llu partial: ",
				(unsigned long long)c->unmatched_frees,
				(unsigned long long)c->partial_frees);
		if (!pages)
			fprintf(f, "not pages (a size not a whole number of pages): allocated "
				"before tracing began\n");
		else if (c->live)
			fprintf(f, "%sup to %llu of its %llu live allocations\n",
				live ? "" : "may account for ",
				(unsigned long long)atag_report_tag_maybe_freed(tags[i]),
				(unsigned long long)c->live);
		else
			fprintf(f, "no live allocation\n");
	}
}

/* A line of allocations left out: "N allocs (B), M live (B)". */
static void excluded_counts(const struct atag_counters *c, FILE *f)
{
	char a[32], b[32];

	fprintf(f, "%llu %s (%s), %llu live (%s)", (unsigned long long)c->allocs,
		c->allocs == 1 ? "allocation" : "allocations",
		atag_format_size(a, sizeof(a), c->bytes_alloced), (unsigned long long)c->live,
		atag_format_size(b, sizeof(b), c->live_bytes));
}

static void summary_excluded(const struct atag_report_source *src, FILE *f)
{
	static const struct {
		enum atag_task	task;
		const char	*head;
		const char	*tail;
	} lines[] = {
		{ ATAG_TASK_RECORDER, "recorder", ": the recording's own processes, never counted" },
		{ ATAG_TASK_OTHER, "other tasks", ": not counted (--all-tasks counts them)" },
		{ ATAG_TASK_WORKLOAD, "workload", " of workload tasks the task filter leaves out" },
		{ ATAG_TASK_ANY, "other tasks", ": left out by the task filter" },
	};
	const struct atag_counters *c;
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		c = &src->excluded[lines[i].task];
		if (!c->allocs)
			continue;
		fprintf(f, "%-14s", lines[i].head);
		excluded_counts(c, f);
		fprintf(f, "%s\n", lines[i].tail);
	}
}

static void summary_lifetimes(const struct atag_report *r, const struct atag_report_source *src,
			      FILE *f)
{
	const struct atag_inflation *in = &src->inflation;
	char a[32];

	if (!in->lifetimes && !in->other_task)
		return;
	fprintf(f, "lifetimes     ");
	if (in->lifetimes && r->raw_lifetimes)
		fprintf(f, "raw: %llu spanned stack captures of their task (%s summed over "
			"them; taken out without --raw-lifetimes)",
			(unsigned long long)in->lifetimes, atag_format_duration(a, sizeof(a), in->ns));
	else if (in->lifetimes)
		fprintf(f, "%llu spanned stack captures of their task: taken out (%s summed "
			"over them; --raw-lifetimes keeps it)", (unsigned long long)in->lifetimes,
			atag_format_duration(a, sizeof(a), in->ns));
	if (in->other_task)
		fprintf(f, "%s%llu ended by another task's free: raw, captures unknown",
			in->lifetimes ? "; " : "", (unsigned long long)in->other_task);
	fputc('\n', f);
}

/* Which allocations carry a stack, when the recording sampled them. */
static void summary_stacks(const struct atag_report_source *src, FILE *f)
{
	const struct atag_totals *t = &src->totals;

	if (!src->stack_every)
		return;
	fprintf(f, "stacks        sampled, 1 in %u allocations by address: %llu of %llu carry one "
		"(%.1f%%); a call site's stacks are scaled to its allocations (~)\n",
		src->stack_every, (unsigned long long)src->stacked, (unsigned long long)t->allocs,
		t->allocs ? 100.0 * src->stacked / t->allocs : 0.0);
}

static uint64_t nested_of(const struct atag_report *r, const char *source)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < r->nr_selected; i++)
		if (r->tags[i]->source == source)
			n += r->tags[i]->nested;
	return n;
}

/* The counts of one source's section. */
static void summary_source(const struct atag_report *r, const struct atag_report_source *src,
			   FILE *f)
{
	const struct atag_totals *t = &src->totals;
	char a[32], b[32];
	uint64_t nested;

	fprintf(f, "\nallocs        %llu (%s)\n", (unsigned long long)t->allocs,
		atag_format_size(a, sizeof(a), t->bytes_alloced));
	fprintf(f, "frees         %llu (%s): matched %llu, unmatched %llu, partial %llu\n",
		(unsigned long long)t->frees, atag_format_size(b, sizeof(b), t->bytes_freed),
		(unsigned long long)t->matched_frees, (unsigned long long)t->unmatched_frees,
		(unsigned long long)t->partial_frees);
	fprintf(f, "replaced      %llu (allocated again while live: free missed)\n",
		(unsigned long long)t->replaced);
	nested = nested_of(r, src->name);
	if (nested)
		fprintf(f, "nested        %llu inner allocation %s counted once, under "
			"the caller's call site\n", (unsigned long long)nested,
			nested == 1 ? "event" : "events");
	fprintf(f, "live at end   %llu (%s)\n", (unsigned long long)t->live,
		atag_format_size(a, sizeof(a), t->live_bytes));
	if (t->live && r->live_unlisted)
		fprintf(f, "              leak suspects unknown: a JSON document counts its live "
			"allocations without listing them\n");
	else if (t->live)
		fprintf(f, "              %llu leak %s, %llu explained (the kernel frees them "
			"without an event, later, or keeps them cached; --live says why)\n",
			(unsigned long long)t->live_suspects,
			t->live_suspects == 1 ? "suspect" : "suspects",
			(unsigned long long)(t->live - t->live_suspects));
	doubt_summary(r, src->name, f);
	if (src->nr_selected < src->nr_tags)
		fprintf(f, "call sites    %zu of %zu selected by the filters\n", src->nr_selected,
			src->nr_tags);
	summary_excluded(src, f);
	if (src->hidden_tags)
		fprintf(f, "other tags    %llu events of %zu call %s the recording did not select: "
			"hidden (--all-tags shows them)\n", (unsigned long long)src->hidden_events,
			src->hidden_tags, src->hidden_tags == 1 ? "site" : "sites");
	summary_stacks(src, f);
	summary_lifetimes(r, src, f);
}

/* @sum + |@v|, held at UINT64_MAX (counters lines may claim any numbers). */
static uint64_t sum_abs(uint64_t sum, int64_t v)
{
	uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	return __builtin_add_overflow(sum, a, &sum) ? UINT64_MAX : sum;
}

static void summary_completeness(const struct atag_report *r, FILE *f)
{
	unsigned int i, ok = 0, reshaped = 0;
	uint64_t calls = 0, bytes = 0, uncertain = 0;
	char a[32];

	if (!r->nr_completeness)
		return;
	for (i = 0; i < r->nr_completeness; i++) {
		uncertain += r->completeness[i].uncertain_calls;
		if (r->completeness[i].complete) {
			ok++;
			continue;
		}
		if (r->completeness[i].reshaped) {
			reshaped++;
			continue;
		}
		calls = sum_abs(calls, r->completeness[i].missing_calls);
		bytes = sum_abs(bytes, r->completeness[i].missing_bytes);
	}
	if (ok == r->nr_completeness)
		fprintf(f, "completeness  complete: %u call %s as /proc/allocinfo counted\n", ok,
			ok == 1 ? "site" : "sites");
	else if (ok + reshaped == r->nr_completeness)
		fprintf(f, "completeness  complete: %u call %s as /proc/allocinfo counted; %u "
			"with split or partly freed pages, which its counters do not follow\n", ok,
			ok == 1 ? "site" : "sites", reshaped);
	else
		fprintf(f, "completeness  %u of %u call sites as /proc/allocinfo counted; the "
			"trace misses %llu calls (%s) of the others%s\n", ok, r->nr_completeness,
			(unsigned long long)calls, atag_format_size(a, sizeof(a), bytes),
			reshaped ? " (but those with split or partly freed pages)" : "");
	if (uncertain)
		fprintf(f, "              %llu %s while record read the counters: counted or "
			"not, as the counters allow\n", (unsigned long long)uncertain,
			uncertain == 1 ? "event" : "events");
}

/* A notice or remark: what it quotes of a file is escaped. */
static void note_line(FILE *f, const char *mark, const char *text)
{
	fputs(mark, f);
	atag_text_fputs(text, f);
	fputc('\n', f);
}

static void summary_data(const struct atag_report *r, FILE *f)
{
	unsigned int i;

	summary_completeness(r, f);
	fprintf(f, "data          %s\n", r->complete ? "complete" :
		"INCOMPLETE: the numbers undercount");
	for (i = 0; i < r->nr_notices; i++)
		note_line(f, "  ! ", r->notices[i]);
	for (i = 0; i < r->nr_remarks; i++)
		note_line(f, "  - ", r->remarks[i]);
}

/* ------------------------------------------------------------ call sites */

#define SITE_COLS	12
/* the counters of the table: ALLOCS .. ALLOCATED */
#define SITE_COUNTERS	(ATAG_COUNTER(ALLOCS) | ATAG_COUNTER(FREES) | \
			 ATAG_COUNTER(UNMATCHED_FREES) | ATAG_COUNTER(LIVE) | \
			 ATAG_COUNTER(LIVE_BYTES) | ATAG_COUNTER(PEAK_LIVE_BYTES) | \
			 ATAG_COUNTER(BYTES_ALLOCED))

/*
 * Left out, in this order, when the width is limited and the table does not fit:
 * the tail percentiles first, the columns the doubts below also tell, then the
 * lifetimes; ALLOCS, LIVE BYTES, ALLOCATED and the call site stay.
 */
static const char * const site_drop[] = {
	"P90", "P99", "UNMATCHED", "FREES", "PEAK LIVE", "MAX", "P50", "LIVE", NULL,
};

static void site_row(struct atag_table *tb, const struct atag_report_tag *t)
{
	char site[SITE_LEN], *row[SITE_COLS];
	int n;

	n = atag_render_counters_cells(row, &t->counts, atag_counter_fields, SITE_COUNTERS);
	row[n++] = dur_cell(&t->lifetimes, 50);
	row[n++] = dur_cell(&t->lifetimes, 90);
	row[n++] = dur_cell(&t->lifetimes, 99);
	row[n++] = dur_cell(&t->lifetimes, 101);
	atag_report_site(t, site, sizeof(site));
	row[n] = t->counts.replaced ? fmt("%s" REUSED_MARK, site,
					  (unsigned long long)t->counts.replaced) : strdup(site);
	atag_table_add(tb, row);
}

/* The frames of a stack, with their source lines when known. */
static void print_frames(const struct atag_report_stack *s, FILE *f)
{
	unsigned int i;

	for (i = 0; i < s->nr_frames; i++) {
		fprintf(f, "          ");
		atag_text_fputs(s->frames[i], f);
		if (s->lines && s->lines[i]) {
			fprintf(f, "  ");
			atag_text_fputs(s->lines[i], f);
		}
		fputc('\n', f);
	}
}

/*
 * A call site's stacks. Sampled: each stands for its share of the call site ("~"):
 * of its allocations by the ratio of counts, of its live bytes as its estimate
 * (atag_report_stack_estimate()); those without one are counted once.
 */
static void print_stacks(const struct atag_report *r, const struct atag_report_tag *t, FILE *f)
{
	bool sampled = atag_report_stacks_sampled(r, t);
	double scale = atag_report_stack_scale(r, t);
	const struct atag_report_stack *s;
	struct atag_counters est;
	size_t k;

	for (k = 0; k < t->nr_stacks; k++) {
		s = t->stacks[k];
		if (sampled && !s->nr_frames) {
			fprintf(f, "      %llu allocs without a stack (not sampled)\n",
				(unsigned long long)s->counts.allocs);
			continue;
		}
		atag_report_stack_estimate(r, t, s, &est);
		fprintf(f, "      %s%5.1f%% of allocs, %5.1f%% of live bytes (%llu allocs, %llu live",
			sampled ? "~" : "",
			t->counts.allocs ? 100.0 * s->counts.allocs * scale / t->counts.allocs : 0.0,
			t->counts.live_bytes ? 100.0 * est.live_bytes / t->counts.live_bytes : 0.0,
			(unsigned long long)s->counts.allocs, (unsigned long long)s->counts.live);
		if (sampled)
			fprintf(f, " sampled, x%.1f", scale);
		fprintf(f, "):\n");
		if (!s->nr_frames)
			fprintf(f, "          (no stack recorded)\n");
		print_frames(s, f);
	}
}

/* What one source's section shows: its selected call sites, its live allocations. */
struct section {
	const struct atag_report	*r;
	const struct atag_report_source	*src;
	const struct atag_report_tag	**tags;
	size_t				nr_tags;
	const struct atag_report_live	**live;
	size_t				nr_live;
};

static void sites(const struct section *sec, const struct atag_render_opts *o, FILE *f)
{
	static const char * const head[SITE_COLS] = {
		"ALLOCS", "FREES", "UNMATCHED", "LIVE", "LIVE BYTES", "PEAK LIVE", "ALLOCATED",
		"P50", "P90", "P99", "MAX", "CALL SITE",
	};
	size_t i, n = nr_rows(o, sec->nr_tags);
	struct atag_table tb;
	bool reused = false;

	atag_table_init(&tb, SITE_COLS, 1u << (SITE_COLS - 1));
	tb.max_width = o->columns;
	tb.drop = site_drop;
	atag_table_add_const(&tb, head);
	for (i = 0; i < n; i++) {
		site_row(&tb, sec->tags[i]);
		reused |= sec->tags[i]->counts.replaced != 0;
	}
	atag_table_fit(&tb, 0);
	fputc('\n', f);
	for (i = 0; i < (size_t)tb.rows; i++) {
		atag_table_print_row(&tb, i, 0, f);
		if (o->stacks && i > 0)
			print_stacks(sec->r, sec->tags[i - 1], f);
	}
	atag_table_print_hidden(&tb, f);
	if (!n)
		fprintf(f, "(no call site)\n");
	more(f, n, sec->nr_tags, "call sites");
	if (reused)
		fprintf(f, "%s", REUSED_LEGEND);
	atag_table_free(&tb);
	doubts(sec->tags, n, false, f);
}

/* ------------------------------------------------------------ live allocations */

/* Left out, in this order, when the width is limited: AGE, BYTES and the call site stay. */
static const char * const live_drop[] = { "PID", "COMM", "PTR", "TASK", NULL };

/* Its task at the end of the trace: it ran, it exited, or the trace does not say. */
static const char *task_state(const struct atag_report_live *l)
{
	return l->task_exited < 0 ? "" : l->task_exited ? "exited" : "running";
}

/* The leak suspects, oldest first, each with its stack. */
static void live_suspects(const struct section *sec, const struct atag_render_opts *o,
			  const struct atag_report_live **sus, size_t nr, FILE *f)
{
	const char *head[] = { "AGE", "PTR", "BYTES", "PID", "COMM", "TASK", "CALL SITE" };
	const struct atag_report_live *l;
	size_t i, n = nr_rows(o, nr);
	char site[SITE_LEN], a[32], *row[7];
	struct atag_table tb;
	bool tasks = false;
	int c;

	(void)sec;
	/* TASK only where the trace says how some task ended (its sched events) */
	for (i = 0; i < n && !tasks; i++)
		tasks = sus[i]->task_exited >= 0;
	if (!tasks)
		head[5] = head[6];
	fprintf(f, "\nleak suspects: live at the end of the trace, nothing explaining it, "
		"oldest first%s:\n", tasks ? " (TASK: the allocating task at the end)" : "");
	atag_table_init(&tb, tasks ? 7 : 6, 1u << 4 | 1u << (tasks ? 6 : 5));
	tb.max_width = o->columns;
	tb.drop = live_drop;
	atag_table_add_const(&tb, head);
	for (i = 0; i < n; i++) {
		l = sus[i];
		row[0] = strdup(atag_format_duration(a, sizeof(a), l->age_ns));
		row[1] = fmt("0x%llx", (unsigned long long)l->ptr);
		row[2] = fmt("%llu", (unsigned long long)l->bytes);
		row[3] = fmt("%d", l->pid);
		row[4] = atag_text_dup(l->comm ? l->comm : "<...>");
		c = 5;
		if (tasks)
			row[c++] = strdup(task_state(l));
		row[c] = strdup(atag_report_site(l->tag, site, sizeof(site)));
		atag_table_add(&tb, row);
	}
	atag_table_fit(&tb, 0);
	for (i = 0; i < (size_t)tb.rows; i++) {
		atag_table_print_row(&tb, i, 0, f);
		l = i ? sus[i - 1] : NULL;
		if (l && l->stack)
			print_frames(l->stack, f);
	}
	atag_table_print_hidden(&tb, f);
	if (!n)
		fprintf(f, "(none)\n");
	more(f, n, nr, "leak suspects");
	atag_table_free(&tb);
}

/* A call site's live allocations explained by one reason. */
struct explained {
	const struct atag_report_live	*first;
	size_t				n;
};

/* by call site, then reason (their addresses: a grouping, no order) */
static int by_site(const void *a, const void *b)
{
	const struct atag_report_live *x = *(const struct atag_report_live *const *)a;
	const struct atag_report_live *y = *(const struct atag_report_live *const *)b;

	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	if (x->suspect_why != y->suspect_why)
		return x->suspect_why < y->suspect_why ? -1 : 1;
	return 0;
}

/* the most allocations first, then by the call site's name and the reason */
static int by_count(const void *a, const void *b)
{
	const struct explained *x = a, *y = b;
	char s[SITE_LEN], t[SITE_LEN];
	int r;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	r = strcmp(atag_report_site(x->first->tag, s, sizeof(s)),
		   atag_report_site(y->first->tag, t, sizeof(t)));
	return r ? r : strcmp(x->first->suspect_why, y->first->suspect_why);
}

/* The live allocations explained, counted by call site and reason, the most first. */
static void live_explained(const struct atag_report_live **ex, size_t nr, FILE *f)
{
	struct explained *g;
	char site[SITE_LEN];
	size_t i, j, ng = 0;

	if (!nr)
		return;
	g = calloc(nr, sizeof(*g));
	if (!g) {
		fprintf(f, "\n(out of memory listing the live allocations explained)\n");
		return;
	}
	qsort(ex, nr, sizeof(*ex), by_site);
	for (i = 0; i < nr; i = j) {
		for (j = i + 1; j < nr && !by_site(&ex[j], &ex[i]); j++)
			;
		g[ng].first = ex[i];
		g[ng++].n = j - i;
	}
	qsort(g, ng, sizeof(*g), by_count);
	fprintf(f, "\nexplained (live at the end, no leak suspects), by call site:\n");
	for (i = 0; i < ng; i++)
		fprintf(f, "  %zu  %s: %s\n", g[i].n,
			atag_report_site(g[i].first->tag, site, sizeof(site)), g[i].first->suspect_why);
	free(g);
}

static void live(const struct section *sec, const struct atag_render_opts *o, FILE *f)
{
	const struct atag_report_live **sus, **ex;
	size_t i, ns = 0, ne = 0;

	sus = calloc(sec->nr_live + 1, sizeof(*sus));
	ex = calloc(sec->nr_live + 1, sizeof(*ex));
	if (!sus || !ex) {
		free(sus);
		free(ex);
		fprintf(f, "\n(out of memory listing the live allocations)\n");
		return;
	}
	/* sec->live is oldest first: the suspects stay so */
	for (i = 0; i < sec->nr_live; i++) {
		if (sec->live[i]->suspect)
			sus[ns++] = sec->live[i];
		else
			ex[ne++] = sec->live[i];
	}
	live_suspects(sec, o, sus, ns, f);
	live_explained(ex, ne, f);
	free(sus);
	free(ex);
	doubts(sec->tags, sec->nr_tags, true, f);
}

/* ------------------------------------------------------------ histograms */

static void hist(const struct section *sec, const struct atag_render_opts *o, FILE *f)
{
	const struct atag_report_tag *t;
	char site[SITE_LEN], lo[32], hi[32];
	uint64_t c, max;
	size_t i, n = nr_rows(o, sec->nr_tags);
	int e, first, last, bar = o->width > 60 ? o->width - 40 : 30;

	if (bar > 128)
		bar = 128;

	for (i = 0; i < n; i++) {
		t = sec->tags[i];
		fprintf(f, "\n%s: %llu lifetimes\n", atag_report_site(t, site, sizeof(site)),
			(unsigned long long)t->lifetimes.count);
		if (!t->lifetimes.count)
			continue;
		first = 63 - __builtin_clzll(t->lifetimes.min | 1);
		last = 63 - __builtin_clzll(t->lifetimes.max | 1);
		for (max = 0, e = first; e <= last; e++) {
			c = atag_lifetime_power_count(&t->lifetimes, e);
			max = c > max ? c : max;
		}
		for (e = first; e <= last; e++) {
			c = atag_lifetime_power_count(&t->lifetimes, e);
			atag_format_duration(lo, sizeof(lo), e ? 1ULL << e : 0);
			atag_format_duration(hi, sizeof(hi), e < 63 ? 1ULL << (e + 1) : ~0ULL);
			fprintf(f, "  %9s .. %-9s |%-*.*s| %llu\n", lo, hi, bar,
				(int)(max ? (c * bar + max - 1) / max : 0),
				"################################################################"
				"################################################################",
				(unsigned long long)c);
		}
	}
	if (!n)
		fprintf(f, "\n(no call site)\n");
	more(f, n, sec->nr_tags, "call sites");
}

/* The selected call sites and live allocations of source @src ("": of all). */
static int section_of(const struct atag_report *r, const struct atag_report_source *src,
		      struct section *sec)
{
	size_t i;

	memset(sec, 0, sizeof(*sec));
	sec->r = r;
	sec->src = src;
	sec->tags = calloc(r->nr_selected + 1, sizeof(*sec->tags));
	sec->live = calloc(r->nr_live + 1, sizeof(*sec->live));
	if (!sec->tags || !sec->live)
		return -1;
	for (i = 0; i < r->nr_selected; i++)
		if (!*src->name || !strcmp(r->tags[i]->source, src->name))
			sec->tags[sec->nr_tags++] = r->tags[i];
	for (i = 0; i < r->nr_live; i++)
		if (!*src->name || !strcmp(r->live[i].tag->source, src->name))
			sec->live[sec->nr_live++] = &r->live[i];
	return 0;
}

static void section_render(const struct atag_report *r, const struct section *sec,
			   const struct atag_render_opts *o, FILE *f)
{
	if (o->summary)
		summary_source(r, sec->src, f);
	if (o->summary && r->nr_sources < 2)
		summary_data(r, f);
	if (o->sites)
		sites(sec, o, f);
	if (o->hist)
		hist(sec, o, f);
	if (o->live)
		live(sec, o, f);
}

int atag_render_text(const struct atag_report *r, const struct atag_render_opts *o, FILE *f)
{
	struct section sec;
	unsigned int i;
	int ret = 0;

	for (i = 0; o->summary && i < r->nr_files; i++)
		summary_file(&r->files[i], f);
	if (r->nr_sources < 2) {
		struct atag_report_source none = { .name = "", .totals = r->totals };

		ret = section_of(r, r->nr_sources ? &r->sources[0] : &none, &sec);
		if (!ret)
			section_render(r, &sec, o, f);
		free(sec.tags);
		free(sec.live);
		return ret || ferror(f) ? -1 : 0;
	}
	/* several sources: what holds for all, then a section each */
	if (o->summary) {
		fputc('\n', f);
		summary_data(r, f);
	}
	for (i = 0; !ret && i < r->nr_sources; i++) {
		ret = section_of(r, &r->sources[i], &sec);
		if (!ret) {
			fprintf(f, "\n== %s ==\n", r->sources[i].name);
			section_render(r, &sec, o, f);
		}
		free(sec.tags);
		free(sec.live);
	}
	return ret || ferror(f) ? -1 : 0;
}
