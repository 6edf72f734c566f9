// SPDX-License-Identifier: LGPL-2.1
/*
 * Comparing two finished reports: call sites and stacks matched by stable
 * identity, their counters and lifetimes side by side, sorted by the largest
 * change. See include/atag-report-diff.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atag-report-diff.h"
#include "atag-report.h"
#include "atag-sort.h"
#include "atag-utils.h"

const struct atag_diff_pct atag_diff_pcts[ATAG_DIFF_NR_PCTS] = {
	{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "max", 101 },
};

const char *atag_diff_status_name(enum atag_diff_status s)
{
	switch (s) {
	case ATAG_DIFF_CHANGED:
		return "changed";
	case ATAG_DIFF_APPEARED:
		return "appeared";
	case ATAG_DIFF_GONE:
		return "disappeared";
	default:
		return "same";
	}
}

char *atag_diff_site_name(const struct atag_diff_site *s, char *buf, size_t len)
{
	if (!s->function) {
		snprintf(buf, len, "(unknown call site)");
		return buf;
	}
	return atag_site_text(buf, len, s->function, -1, s->file, s->line, s->module);
}

bool atag_diff_lifetime(const struct atag_lifetime *lt, int i, uint64_t *ns)
{
	if (!lt->count)
		return false;
	*ns = atag_diff_pcts[i].pct > 100 ? lt->max :
	      atag_lifetime_percentile(lt, atag_diff_pcts[i].pct);
	return true;
}

double atag_diff_value(const struct atag_diff *d, enum atag_diff_side side, const void *obj,
		       const struct atag_counter_field *f)
{
	return (double)atag_counter_value(obj, f) / d->per[side];
}

double atag_diff_delta(const struct atag_diff *d, const void *before, const void *after,
		       const struct atag_counter_field *f)
{
	/* exact integers without normalisation, even past 2^53 */
	if (!atag_diff_normalised(d))
		return (double)(int64_t)(atag_counter_value(after, f) -
					 atag_counter_value(before, f));
	return atag_diff_value(d, ATAG_DIFF_AFTER, after, f) -
	       atag_diff_value(d, ATAG_DIFF_BEFORE, before, f);
}

/* ------------------------------------------------------------ freeing */

static void stack_free(struct atag_diff_stack *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_frames; i++)
		free(s->frames[i]);
	free(s->frames);
	free(s);
}

static void site_free(struct atag_diff_site *s)
{
	size_t i;

	for (i = 0; i < s->nr_stacks; i++)
		stack_free(s->stacks[i]);
	free(s->stacks);
	free(s->function);
	free(s->file);
	free(s->module);
	atag_lifetime_free(&s->lifetimes[0]);
	atag_lifetime_free(&s->lifetimes[1]);
	free(s);
}

void atag_diff_free(struct atag_diff *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nr_sites; i++)
		site_free(d->sites[i]);
	free(d->sites);
	free(d->sources);
	free(d);
}

/* ------------------------------------------------------------ matching */

struct builder {
	struct atag_diff	*d;
	GHashTable		*sites;		/* identity -> struct atag_diff_site * */
	GHashTable		*stacks;	/* site and frames -> struct atag_diff_stack * */
	size_t			cap;
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/*
 * The identity of a call site across boots and builds: its source, no address, no
 * offset.
 */
static char *site_key(const struct atag_report_tag *t)
{
	if (!t->function)
		return g_strdup_printf("%s\037\001", t->source);
	if (t->file)
		return g_strdup_printf("%s\037%s\037%s\037%ld\037%s", t->source, t->function,
				       t->file, t->line, t->module ? t->module : "");
	return g_strdup_printf("%s\037%s\037\037\037%s", t->source, t->function,
			       t->module ? t->module : "");
}

static struct atag_diff_site *site_of(struct builder *b, const struct atag_report_tag *t)
{
	struct atag_diff_site *s, **p;
	struct atag_diff *d = b->d;
	char *key = site_key(t);

	s = g_hash_table_lookup(b->sites, key);
	if (s) {
		g_free(key);
		return s;
	}
	if (d->nr_sites == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		p = realloc(d->sites, b->cap * sizeof(*p));
		if (!p)
			goto nomem;
		d->sites = p;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->line = -1;
	s->source = t->source;
	if (t->function) {
		s->function = strdup(t->function);
		s->module = dup_or_null(t->module);
		if (t->file) {
			s->file = strdup(t->file);
			s->line = t->line;
		}
	}
	d->sites[d->nr_sites++] = s;
	g_hash_table_insert(b->sites, key, s);
	return s;
nomem:
	g_free(key);
	return NULL;
}

/*
 * A frame as the report writes it, without its offset: "func+0x1a [mod]" is
 * "func [mod]"; an address kallsyms did not name is "?".
 */
static char *stable_frame(const char *frame)
{
	const char *plus = strstr(frame, "+0x"), *rest;

	if (!strncmp(frame, "0x", 2))
		return strdup("?");
	if (!plus)
		return strdup(frame);
	rest = plus + strcspn(plus, " ");
	return g_strdup_printf("%.*s%s", (int)(plus - frame), frame, rest);
}

static struct atag_diff_stack *stack_of(struct builder *b, struct atag_diff_site *site,
					const struct atag_report_stack *rs)
{
	struct atag_diff_stack *s, **p;
	GString *key = g_string_new(NULL);
	char **frames;
	unsigned int i;

	frames = calloc(rs->nr_frames + 1, sizeof(*frames));
	g_string_append_printf(key, "%p", (void *)site);
	for (i = 0; frames && i < rs->nr_frames; i++) {
		frames[i] = stable_frame(rs->frames[i]);
		g_string_append_printf(key, "\037%s", frames[i] ? frames[i] : "");
	}
	s = g_hash_table_lookup(b->stacks, key->str);
	if (s || !frames)
		goto out;
	p = realloc(site->stacks, (site->nr_stacks + 1) * sizeof(*p));
	if (!p)
		goto out;
	site->stacks = p;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out;
	s->frames = frames;
	s->nr_frames = rs->nr_frames;
	frames = NULL;
	site->stacks[site->nr_stacks++] = s;
	g_hash_table_insert(b->stacks, g_string_free(key, FALSE), s);
	return s;
out:
	for (i = 0; frames && i < rs->nr_frames; i++)
		free(frames[i]);
	free(frames);
	g_string_free(key, TRUE);
	return s;
}

/* @r's sources and their totals, as side @side. */
static int add_sources(struct atag_diff *d, const struct atag_report *r,
		       enum atag_diff_side side)
{
	struct atag_diff_source *ds, *p;
	unsigned int i, k;

	for (i = 0; i < r->nr_sources; i++) {
		for (k = 0; k < d->nr_sources; k++)
			if (!strcmp(d->sources[k].name, r->sources[i].name))
				break;
		if (k == d->nr_sources) {
			p = realloc(d->sources, (k + 1) * sizeof(*p));
			if (!p)
				return -ENOMEM;
			d->sources = p;
			memset(&p[k], 0, sizeof(p[k]));
			p[k].name = r->sources[i].name;
			d->nr_sources++;
		}
		ds = &d->sources[k];
		ds->totals[side] = r->sources[i].totals;
		ds->in[side] = true;
	}
	return 0;
}

static int add_side(struct builder *b, const struct atag_report *r, enum atag_diff_side side)
{
	const struct atag_report_tag *t;
	struct atag_diff_stack *ds;
	struct atag_counters est;
	struct atag_diff_site *s;
	size_t i, k;

	for (i = 0; i < r->nr_tags; i++) {
		t = r->tags[i];
		if (!t->selected)
			continue;
		s = site_of(b, t);
		if (!s)
			return -ENOMEM;
		s->nr_sites[side]++;
		atag_counters_add(&s->counts[side], &t->counts);
		if (atag_lifetime_merge(&s->lifetimes[side], &t->lifetimes))
			return -ENOMEM;
		for (k = 0; k < t->nr_stacks; k++) {
			ds = stack_of(b, s, t->stacks[k]);
			if (!ds)
				return -ENOMEM;
			/* sampled stacks: what they stand for, as two recordings' shares differ */
			atag_report_stack_estimate(r, t, t->stacks[k], &est);
			atag_counters_add(&ds->counts[side], &est);
		}
	}
	b->d->totals[side] = r->totals;
	return add_sources(b->d, r, side);
}

/* ------------------------------------------------------------ what changed */

static bool counters_same(const struct atag_diff *d, const struct atag_counters *c,
			  unsigned int mask)
{
	unsigned int i;

	for (i = 0; atag_counter_fields[i].name; i++)
		if ((mask & (1u << i)) && atag_diff_delta(d, &c[0], &c[1], &atag_counter_fields[i]))
			return false;
	return true;
}

static bool lifetimes_same(const struct atag_lifetime *lt)
{
	uint64_t a, b;
	int i;

	if (lt[0].count != lt[1].count || lt[0].min != lt[1].min)
		return false;
	for (i = 0; i < ATAG_DIFF_NR_PCTS; i++)
		if (atag_diff_lifetime(&lt[0], i, &a) && atag_diff_lifetime(&lt[1], i, &b) &&
		    a != b)
			return false;
	return true;
}

static enum atag_diff_status status_of(bool before, bool after, bool same)
{
	if (!before)
		return ATAG_DIFF_APPEARED;
	if (!after)
		return ATAG_DIFF_GONE;
	return same ? ATAG_DIFF_SAME : ATAG_DIFF_CHANGED;
}

/* The index in atag_diff_pcts of a lifetime key's figure (the maximum is 101). */
static int pct_index(const struct atag_sort_key *k)
{
	double pct = k->kind == ATAG_SORT_MAX ? 101 : k->arg;
	int i;

	for (i = 0; i < ATAG_DIFF_NR_PCTS - 1; i++)
		if (atag_diff_pcts[i].pct == pct)
			break;
	return i;
}

static double key_change(const struct atag_diff *d, const struct atag_sort_key *k,
			 const struct atag_diff_site *s)
{
	uint64_t a = 0, b = 0;

	switch (k->kind) {
	case ATAG_SORT_COUNTER:
		return fabs(atag_diff_delta(d, &s->counts[0], &s->counts[1],
					    &atag_counter_fields[k->arg]));
	case ATAG_SORT_PERCENTILE:
	case ATAG_SORT_MAX:
		atag_diff_lifetime(&s->lifetimes[0], pct_index(k), &a);
		atag_diff_lifetime(&s->lifetimes[1], pct_index(k), &b);
		return a > b ? a - b : b - a;
	default:
		return 0;
	}
}

static int cmp_names(const struct atag_diff_site *a, const struct atag_diff_site *b)
{
	char x[512], y[512];
	int r;

	r = strcmp(atag_diff_site_name(a, x, sizeof(x)), atag_diff_site_name(b, y, sizeof(y)));
	return r ? r : strcmp(a->source, b->source);
}

struct sort_ctx {
	const struct atag_diff	*d;
	const struct atag_sort_key	*key;
};

static int cmp_double(double a, double b)
{
	return a > b ? -1 : a < b;
}

static int cmp_sites(const void *pa, const void *pb, void *arg)
{
	const struct atag_diff_site *a = *(const struct atag_diff_site * const *)pa;
	const struct atag_diff_site *b = *(const struct atag_diff_site * const *)pb;
	const struct sort_ctx *c = arg;
	const struct atag_sort_key *bytes = atag_sort_key("bytes");
	const struct atag_sort_key *allocs = atag_sort_key("allocs");
	int r;

	if (c->key->kind != ATAG_SORT_SITE) {
		r = cmp_double(key_change(c->d, c->key, a), key_change(c->d, c->key, b));
		if (!r)
			r = cmp_double(key_change(c->d, bytes, a), key_change(c->d, bytes, b));
		if (!r)
			r = cmp_double(key_change(c->d, allocs, a), key_change(c->d, allocs, b));
		if (r)
			return r;
	}
	return cmp_names(a, b);
}

static double stack_change(const struct atag_diff *d, const struct atag_diff_stack *s, int c)
{
	return fabs(atag_diff_delta(d, &s->counts[0], &s->counts[1], &atag_counter_fields[c]));
}

static int cmp_stacks(const void *pa, const void *pb, void *arg)
{
	const struct atag_diff_stack *a = *(const struct atag_diff_stack * const *)pa;
	const struct atag_diff_stack *b = *(const struct atag_diff_stack * const *)pb;
	const struct atag_diff *d = arg;
	unsigned int i;
	int r;

	r = cmp_double(stack_change(d, a, ATAG_COUNTER_ALLOCS),
		       stack_change(d, b, ATAG_COUNTER_ALLOCS));
	if (!r)
		r = cmp_double(stack_change(d, a, ATAG_COUNTER_LIVE_BYTES),
			       stack_change(d, b, ATAG_COUNTER_LIVE_BYTES));
	for (i = 0; !r && i < a->nr_frames && i < b->nr_frames; i++)
		r = strcmp(a->frames[i], b->frames[i]);
	return r ? r : (int)a->nr_frames - (int)b->nr_frames;
}

/* Each stack's status; the unchanged ones dropped unless @keep. */
static void settle_stacks(const struct atag_diff *d, struct atag_diff_site *s, bool keep)
{
	struct atag_diff_stack *st;
	size_t i, n = 0;

	for (i = 0; i < s->nr_stacks; i++) {
		st = s->stacks[i];
		st->status = status_of(st->counts[0].allocs || st->counts[0].live,
				       st->counts[1].allocs || st->counts[1].live,
				       counters_same(d, st->counts, ATAG_COUNTERS_STACK));
		if (st->status == ATAG_DIFF_SAME && !keep)
			stack_free(st);
		else
			s->stacks[n++] = st;
	}
	s->nr_stacks = n;
	if (n > 1)
		qsort_r(s->stacks, n, sizeof(*s->stacks), cmp_stacks, (void *)d);
}

/*
 * Each call site's status; the unchanged ones dropped unless @keep. Lifetimes
 * count as a change only when they are what the diff is sorted by (@lifetimes):
 * two runs of one workload never free at the same nanosecond.
 */
static void settle_sites(struct atag_diff *d, bool keep, bool lifetimes)
{
	struct atag_diff_site *s;
	size_t i, n = 0;

	for (i = 0; i < d->nr_sites; i++) {
		s = d->sites[i];
		s->status = status_of(s->nr_sites[0], s->nr_sites[1],
				      counters_same(d, s->counts, ATAG_COUNTERS_ALL) &&
				      (!lifetimes || lifetimes_same(s->lifetimes)));
		switch (s->status) {
		case ATAG_DIFF_SAME:
			d->nr_same++;
			break;
		case ATAG_DIFF_CHANGED:
			d->nr_changed++;
			break;
		case ATAG_DIFF_APPEARED:
			d->nr_appeared++;
			break;
		case ATAG_DIFF_GONE:
			d->nr_gone++;
			break;
		}
		if (s->status == ATAG_DIFF_SAME && !keep) {
			site_free(s);
			continue;
		}
		settle_stacks(d, s, keep);
		d->sites[n++] = s;
	}
	d->nr_sites = n;
}

/* ------------------------------------------------------------ normalisation */

static uint64_t duration_of(const struct atag_report *r)
{
	uint64_t ns = 0;
	unsigned int i;

	for (i = 0; i < r->nr_files; i++)
		if (r->files[i].last_ts > r->files[i].first_ts)
			ns += r->files[i].last_ts - r->files[i].first_ts;
	return ns;
}

static int set_scale(struct atag_diff *d, const struct atag_diff_opts *o, char *err,
		     size_t errlen)
{
	static const char * const sides[] = { "before", "after" };
	int i;

	for (i = 0; i < 2; i++) {
		d->duration_ns[i] = duration_of(d->reports[i]);
		d->per[i] = 1;
		if (d->norm == ATAG_DIFF_NORM_OPERATIONS) {
			if (!(o->ops[i] > 0)) {
				snprintf(err, errlen, "the count of operations %s must be above 0",
					 sides[i]);
				return -EINVAL;
			}
			d->per[i] = o->ops[i];
		} else if (d->norm == ATAG_DIFF_NORM_DURATION) {
			if (!d->duration_ns[i]) {
				snprintf(err, errlen, "cannot normalise by duration: the %s side "
					 "spans no time (fewer than two events)", sides[i]);
				return -EINVAL;
			}
			d->per[i] = d->duration_ns[i] / 1e9;
		}
	}
	return 0;
}

int atag_diff_compute(const struct atag_report *before, const struct atag_report *after,
		      const struct atag_diff_opts *opts, struct atag_diff **out, char *err,
		      size_t errlen)
{
	static const struct atag_diff_opts defaults;
	const struct atag_sort_key *key;
	struct builder b = { 0 };
	struct sort_ctx sc;
	int ret;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	key = atag_sort_key(opts->sort ? opts->sort : ATAG_SORT_DEFAULT);
	if (!key) {
		snprintf(err, errlen, "unknown sort key '%s'", opts->sort);
		return atag_err(-EINVAL);
	}
	b.d = calloc(1, sizeof(*b.d));
	if (!b.d)
		goto nomem;
	b.d->sort = key->name;
	b.d->norm = opts->norm;
	b.d->reports[0] = before;
	b.d->reports[1] = after;
	b.d->complete = before->complete && after->complete;
	ret = set_scale(b.d, opts, err, errlen);
	if (ret) {
		atag_diff_free(b.d);
		return atag_err(ret);
	}
	b.sites = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	b.stacks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	if (add_side(&b, before, ATAG_DIFF_BEFORE) || add_side(&b, after, ATAG_DIFF_AFTER))
		goto nomem;
	settle_sites(b.d, opts->unchanged, key->kind == ATAG_SORT_PERCENTILE ||
					   key->kind == ATAG_SORT_MAX);
	sc.d = b.d;
	sc.key = key;
	if (b.d->nr_sites > 1)
		qsort_r(b.d->sites, b.d->nr_sites, sizeof(*b.d->sites), cmp_sites, &sc);
	g_hash_table_destroy(b.sites);
	g_hash_table_destroy(b.stacks);
	*out = b.d;
	return 0;
nomem:
	if (b.sites)
		g_hash_table_destroy(b.sites);
	if (b.stacks)
		g_hash_table_destroy(b.stacks);
	atag_diff_free(b.d);
	snprintf(err, errlen, "out of memory");
	return atag_err(-ENOMEM);
}
