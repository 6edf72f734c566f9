// SPDX-License-Identifier: LGPL-2.1
/*
 * What /proc/allocinfo counted against what the trace shows, inside a recording's
 * counters window: the events summed per call site, the counters lines added up
 * per call site, and the tags named after them. See atag-counted.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atag-counted.h"
#include "atag-read.h"
#include "atag-run.h"
#include "atag-source.h"

/* The index of the alloc_tag source of @rd, or -1. */
static int alloc_tag_source(const struct atag_run *run, const struct atag_reader *rd)
{
	unsigned int k;

	for (k = 0; k < run->nr_src; k++)
		if (!strcmp(atag_reader_source_at(rd, k)->name, "alloc_tag"))
			return (int)k;
	return -1;
}

GHashTable *atag_counted_traced(const struct atag_run *run, const struct atag_reader *rd,
				struct atag_traced **tr)
{
	GHashTable *by_site = g_hash_table_new(atag_marker_tag_hash, atag_marker_tag_equal);
	const struct atag_tag_stats *t;
	struct atag_traced *one;
	int k = alloc_tag_source(run, rd);
	size_t i, n;

	n = k < 0 ? 0 : atag_aggr_nr_tags(run->aggr[k]);
	*tr = calloc(n ? n : 1, sizeof(**tr));
	for (i = 0, n = 0; *tr && k >= 0 && i < atag_aggr_nr_tags(run->aggr[k]); i++) {
		t = atag_aggr_tag(run->aggr[k], i);
		if (!t->function)
			continue;
		one = &(*tr)[n];
		one->site = (struct atag_marker_tag){ .module = t->module, .file = t->file,
						      .line = t->line, .function = t->function };
		if (g_hash_table_contains(by_site, &one->site))
			one = g_hash_table_lookup(by_site, &one->site);
		else
			g_hash_table_insert(by_site, &(*tr)[n++].site, one);
		atag_window_add(&one->w, &t->window);
		one->odd += t->counts.partial_frees + t->counts.unmatched_frees;
	}
	return by_site;
}

long atag_counted_sites(const struct atag_recording *rec, struct atag_counted_site **sites)
{
	GHashTable *by_site = g_hash_table_new(atag_marker_tag_hash, atag_marker_tag_equal);
	const struct atag_marker_counters *l;
	struct atag_counted_site *s;
	gpointer i;
	unsigned int j;
	long n = 0;

	*sites = calloc(rec->nr_counters_end ? rec->nr_counters_end : 1, sizeof(**sites));
	for (j = 0; *sites && j < rec->nr_counters_end; j++) {
		l = &rec->counters_end[j];
		if (g_hash_table_lookup_extended(by_site, &l->tag, NULL, &i)) {
			s = &(*sites)[GPOINTER_TO_SIZE(i)];
		} else {
			s = &(*sites)[n];
			s->site = &l->tag;
			g_hash_table_insert(by_site, (void *)&l->tag, GSIZE_TO_POINTER(n++));
		}
		s->end_calls += l->calls;
		s->end_bytes += l->bytes;
		s->ends++;
	}
	for (j = 0; *sites && j < rec->nr_counters_start; j++) {
		l = &rec->counters_start[j];
		if (!g_hash_table_lookup_extended(by_site, &l->tag, NULL, &i))
			continue;
		s = &(*sites)[GPOINTER_TO_SIZE(i)];
		s->start_calls += l->calls;
		s->start_bytes += l->bytes;
		s->starts++;
	}
	g_hash_table_destroy(by_site);
	return *sites ? n : -ENOMEM;
}

/* ------------------------------------------------------------ naming */

/*
 * A net change in the window: of a call site's counters (less its named tags'
 * events), or of an unnamed tag's events.
 */
struct change {
	int64_t		calls;
	int64_t		bytes;
	uint64_t	who;	/* the call site's index in the sites, or the tag's */
};

static int cmp_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return 0;
}

static bool uncertain(const struct atag_window *w)
{
	return w->uncertain_allocs || w->uncertain_frees || w->uncertain_bytes_alloced ||
	       w->uncertain_bytes_freed;
}

/*
 * @a - @b - (@c - @d) in *@r (the differences of counters that wrap), false when it
 * does not fit.
 */
static bool net(uint64_t a, uint64_t b, uint64_t c, uint64_t d, int64_t *r)
{
	return !__builtin_sub_overflow((int64_t)(a - b), (int64_t)(c - d), r);
}

/*
 * The change of each call site with counters lines at both ends, less what its
 * named tags show; those with uncertain events or no change left out. Returns how
 * many, in *@out.
 */
static size_t site_changes(const struct atag_counted_site *sites, long nr, GHashTable *traced,
			   struct change *out)
{
	const struct atag_counted_site *e;
	const struct atag_traced *tr;
	static const struct atag_traced none;
	struct change c;
	size_t n = 0;
	long i;

	for (i = 0; i < nr; i++) {
		e = &sites[i];
		if (!e->starts || !e->site->function)
			continue;
		tr = g_hash_table_lookup(traced, e->site);
		if (!tr)
			tr = &none;
		if (uncertain(&tr->w) ||
		    !net(e->end_calls, e->start_calls, tr->w.allocs, tr->w.frees, &c.calls) ||
		    !net(e->end_bytes, e->start_bytes, tr->w.bytes_alloced, tr->w.bytes_freed,
			 &c.bytes) ||
		    (!c.calls && !c.bytes))
			continue;
		c.who = i;
		out[n++] = c;
	}
	return n;
}

/* The net change of each unnamed tag of @aggr with events in the window. */
static size_t tag_changes(const struct atag_aggr *aggr, struct change *out)
{
	const struct atag_tag_stats *t;
	struct change c;
	size_t i, n = 0;

	for (i = 0; i < atag_aggr_nr_tags(aggr); i++) {
		t = atag_aggr_tag(aggr, i);
		if (t->function || !t->tag || uncertain(&t->window) ||
		    !net(t->window.allocs, t->window.frees, 0, 0, &c.calls) ||
		    !net(t->window.bytes_alloced, t->window.bytes_freed, 0, 0, &c.bytes) ||
		    (!c.calls && !c.bytes))
			continue;
		c.who = i;
		out[n++] = c;
	}
	return n;
}

/* How many of @v[@i..@n) equal @v[@i]. */
static size_t run_length(const struct change *v, size_t i, size_t n)
{
	size_t j = i + 1;

	while (j < n && !cmp_change(&v[i], &v[j]))
		j++;
	return j - i;
}

int atag_counted_name(struct atag_run *run, const struct atag_reader *rd,
		      const struct atag_recording *rec, struct atag_counted_named **named,
		      unsigned int *nr)
{
	struct change *changes = NULL, *tags = NULL;
	struct atag_counted_site *sites = NULL;
	GHashTable *traced = NULL;
	struct atag_counted_named *out = NULL;
	struct atag_traced *tr = NULL;
	const struct atag_tag_stats *t;
	size_t ns, nt, i = 0, j = 0, li, lj;
	long nr_sites;
	int k = alloc_tag_source(run, rd), ret = -ENOMEM, c;

	*named = NULL;
	*nr = 0;
	if (k < 0 || !rec->nr_counters_end || !atag_aggr_nr_tags(run->aggr[k]))
		return 0;
	nr_sites = atag_counted_sites(rec, &sites);
	traced = atag_counted_traced(run, rd, &tr);
	changes = malloc(rec->nr_counters_end * sizeof(*changes));
	tags = malloc(atag_aggr_nr_tags(run->aggr[k]) * sizeof(*tags));
	if (nr_sites < 0 || !tr || !changes || !tags)
		goto out;
	ns = site_changes(sites, nr_sites, traced, changes);
	nt = tag_changes(run->aggr[k], tags);
	ret = 0;
	if (!ns || !nt)
		goto out;
	out = calloc(nt < ns ? nt : ns, sizeof(*out));
	if (!out) {
		ret = -ENOMEM;
		goto out;
	}
	qsort(changes, ns, sizeof(*changes), cmp_change);
	qsort(tags, nt, sizeof(*tags), cmp_change);
	/* the changes both sides have exactly once */
	while (i < ns && j < nt) {
		c = cmp_change(&changes[i], &tags[j]);
		li = run_length(changes, i, ns);
		lj = run_length(tags, j, nt);
		if (!c && li == 1 && lj == 1) {
			t = atag_aggr_tag(run->aggr[k], tags[j].who);
			out[*nr] = (struct atag_counted_named){
				.tag = t->tag, .site = sites[changes[i].who].site,
				.calls = tags[j].calls, .bytes = tags[j].bytes };
			if (atag_aggr_set_site(run->aggr[k], tags[j].who, out[*nr].site->function,
					       out[*nr].site->file, out[*nr].site->line,
					       out[*nr].site->module)) {
				ret = -ENOMEM;
				goto out;
			}
			(*nr)++;
		}
		if (c <= 0)
			i += li;
		if (c >= 0)
			j += lj;
	}
out:
	if (ret || !*nr) {
		free(out);
		out = NULL;
		*nr = 0;
	}
	*named = out;
	free(changes);
	free(sites);
	free(tags);
	if (traced)
		g_hash_table_destroy(traced);
	free(tr);
	return ret;
}

unsigned int atag_counted_unnamed(const struct atag_run *run, const struct atag_reader *rd,
				  struct atag_window *w)
{
	const struct atag_tag_stats *t;
	int k = alloc_tag_source(run, rd);
	unsigned int n = 0;
	size_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; k >= 0 && i < atag_aggr_nr_tags(run->aggr[k]); i++) {
		t = atag_aggr_tag(run->aggr[k], i);
		if (t->function || !t->tag || (!t->window.allocs && !t->window.frees &&
					       !t->window.uncertain_allocs &&
					       !t->window.uncertain_frees))
			continue;
		atag_window_add(w, &t->window);
		n++;
	}
	return n;
}
