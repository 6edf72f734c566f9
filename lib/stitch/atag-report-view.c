// SPDX-License-Identifier: LGPL-2.1
/*
 * The view of a report: which call sites are selected, in which order, the
 * totals over them, and the live allocations oldest first. See atag-report.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-report.h"
#include "atag-utils.h"

typedef uint64_t (*sort_value)(const struct atag_report_tag *t);

static uint64_t v_live_bytes(const struct atag_report_tag *t) { return t->live_bytes; }
static uint64_t v_live(const struct atag_report_tag *t) { return t->live; }
static uint64_t v_peak(const struct atag_report_tag *t) { return t->peak_live_bytes; }
static uint64_t v_bytes(const struct atag_report_tag *t) { return t->bytes_alloced; }
static uint64_t v_allocs(const struct atag_report_tag *t) { return t->allocs; }
static uint64_t v_frees(const struct atag_report_tag *t) { return t->frees; }
static uint64_t v_unmatched(const struct atag_report_tag *t) { return t->unmatched_frees; }
static uint64_t v_p50(const struct atag_report_tag *t)
{
	return atag_lifetime_percentile(&t->lifetimes, 50);
}
static uint64_t v_p90(const struct atag_report_tag *t)
{
	return atag_lifetime_percentile(&t->lifetimes, 90);
}
static uint64_t v_p99(const struct atag_report_tag *t)
{
	return atag_lifetime_percentile(&t->lifetimes, 99);
}
static uint64_t v_max(const struct atag_report_tag *t) { return t->lifetimes.max; }

static const struct {
	const char	*name;
	sort_value	value;
} sort_keys[] = {
	{ "live_bytes", v_live_bytes }, { "live", v_live }, { "peak", v_peak },
	{ "bytes", v_bytes }, { "allocs", v_allocs }, { "frees", v_frees },
	{ "unmatched", v_unmatched }, { "p50", v_p50 }, { "p90", v_p90 }, { "p99", v_p99 },
	{ "max", v_max }, { "site", NULL },
};

/* Index of sort key @name in sort_keys[], or -1. */
static int find_sort_key(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
		if (!strcmp(name, sort_keys[i].name))
			return i;
	return -1;
}

bool atag_report_sort_key_known(const char *name)
{
	return name && find_sort_key(name) >= 0;
}

char *atag_report_site(const struct atag_report_tag *t, char *buf, size_t len)
{
	int n;

	if (!t->function) {
		snprintf(buf, len, "0x%llx", (unsigned long long)t->tag);
		return buf;
	}
	if (t->offset >= 0)
		n = snprintf(buf, len, "%s+0x%llx", t->function, (unsigned long long)t->offset);
	else
		n = snprintf(buf, len, "%s", t->function);
	if (n >= 0 && (size_t)n < len && t->file)
		n += snprintf(buf + n, len - n, " %s:%ld", t->file, t->line);
	if (n >= 0 && (size_t)n < len && t->module)
		snprintf(buf + n, len - n, " [%s]", t->module);
	return buf;
}

static int cmp_site(const struct atag_report_tag *a, const struct atag_report_tag *b)
{
	char x[512], y[512];

	return strcmp(atag_report_site(a, x, sizeof(x)), atag_report_site(b, y, sizeof(y)));
}

static int cmp_tags(const void *pa, const void *pb, void *arg)
{
	const struct atag_report_tag *a = *(const struct atag_report_tag * const *)pa;
	const struct atag_report_tag *b = *(const struct atag_report_tag * const *)pb;
	sort_value key_value = *(sort_value *)arg;
	uint64_t va, vb;

	if (a->selected != b->selected)
		return a->selected ? -1 : 1;
	if (key_value) {
		va = key_value(a);
		vb = key_value(b);
		if (va != vb)
			return va > vb ? -1 : 1;
		/* ties: the busier call site first, then by name for a stable order */
		if (a->bytes_alloced != b->bytes_alloced)
			return a->bytes_alloced > b->bytes_alloced ? -1 : 1;
	}
	return cmp_site(a, b);
}

static int cmp_stacks(const void *pa, const void *pb)
{
	const struct atag_report_stack *a = *(const struct atag_report_stack * const *)pa;
	const struct atag_report_stack *b = *(const struct atag_report_stack * const *)pb;
	unsigned int i;
	int c;

	if (a->allocs != b->allocs)
		return a->allocs > b->allocs ? -1 : 1;
	if (a->live_bytes != b->live_bytes)
		return a->live_bytes > b->live_bytes ? -1 : 1;
	for (i = 0; i < a->nr_frames && i < b->nr_frames; i++) {
		c = strcmp(a->frames[i], b->frames[i]);
		if (c)
			return c;
	}
	return (int)a->nr_frames - (int)b->nr_frames;
}

static int cmp_live(const void *pa, const void *pb)
{
	const struct atag_report_live *a = pa, *b = pb;

	if (a->age_ns != b->age_ns)
		return a->age_ns > b->age_ns ? -1 : 1;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->ptr < b->ptr ? -1 : a->ptr > b->ptr;
}

static bool tag_selected(const struct atag_report_tag *t, const struct atag_report_view *v)
{
	if (v->function && !atag_glob_match(v->function, t->function))
		return false;
	if (v->file && !atag_glob_match(v->file, t->file))
		return false;
	if (v->module && !atag_glob_match(v->module, t->module))
		return false;
	return true;
}

static void add_totals(struct atag_totals *tot, const struct atag_report_tag *t)
{
	tot->allocs += t->allocs;
	tot->frees += t->frees + t->unmatched_frees;
	tot->matched_frees += t->frees;
	tot->unmatched_frees += t->unmatched_frees;
	tot->partial_frees += t->partial_frees;
	tot->replaced += t->replaced;
	tot->live += t->live;
	tot->live_bytes += t->live_bytes;
	tot->bytes_alloced += t->bytes_alloced;
	tot->bytes_freed += t->bytes_freed;
}

int atag_report_finish(struct atag_report *r, const struct atag_report_view *view)
{
	static const struct atag_report_view none = { 0 };
	sort_value key_value;
	size_t i, n;
	int key;

	if (!view)
		view = &none;
	key = find_sort_key(view->sort ? view->sort : "live_bytes");
	if (key < 0)
		return atag_err(-EINVAL);
	key_value = sort_keys[key].value;

	memset(&r->totals, 0, sizeof(r->totals));
	r->nr_selected = 0;
	for (i = 0; i < r->nr_tags; i++) {
		r->tags[i]->selected = tag_selected(r->tags[i], view);
		if (!r->tags[i]->selected)
			continue;
		r->nr_selected++;
		add_totals(&r->totals, r->tags[i]);
		if (r->tags[i]->nr_stacks > 1)
			qsort(r->tags[i]->stacks, r->tags[i]->nr_stacks,
			      sizeof(*r->tags[i]->stacks), cmp_stacks);
	}
	if (r->nr_tags > 1)
		qsort_r(r->tags, r->nr_tags, sizeof(*r->tags), cmp_tags, &key_value);

	/* the live list keeps the selected call sites' allocations old enough */
	for (i = 0, n = 0; i < r->nr_live; i++) {
		if (!r->live[i].tag->selected || r->live[i].age_ns < view->min_age) {
			free(r->live[i].comm);
			continue;
		}
		r->live[n++] = r->live[i];
	}
	r->nr_live = n;
	if (r->nr_live > 1)
		qsort(r->live, r->nr_live, sizeof(*r->live), cmp_live);
	return 0;
}
