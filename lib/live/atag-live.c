// SPDX-License-Identifier: LGPL-2.1
/*
 * A live view: the instance set up for a source, its records read as they come
 * (atag-live-cpu.c), decoded by the source's decoder, filtered by task
 * (atag-live-tasks.c) and stitched online; snapshots per call site. See
 * include/atag-live.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "atag-live.h"
#include "atag-live-int.h"
#include "atag-source.h"
#include "atag-stitch.h"
#include "atag-symbols.h"
#include "atag-tracefs.h"
#include "atag-utils.h"

#define KALLSYMS	"/proc/kallsyms"

static const char * const tag_events[] = {
	"alloc_tag:alloc_tag_hit", "alloc_tag:alloc_tag_mem_alloced",
	"alloc_tag:alloc_tag_mem_freed", NULL
};
/* the _node variants exist on older kernels only */
static const char * const kmem_events[] = {
	"kmem:kmalloc", "kmem:kmem_cache_alloc", "kmem:kfree", "kmem:kmem_cache_free",
	"kmem:kmalloc_node", "kmem:kmem_cache_alloc_node", NULL
};
/* the slab allocation events, whose stacks are sampled by the object's address */
static const char * const slab_alloc_events[] = {
	"kmem:kmalloc", "kmem:kmem_cache_alloc", "kmem:kmalloc_node",
	"kmem:kmem_cache_alloc_node", NULL
};
static const char * const page_events[] = {
	"kmem:mm_page_alloc", "kmem:mm_page_free", "kmem:mm_page_free_batched", NULL
};
static const char stack_event[] = "ftrace:kernel_stack";

const char * const *atag_live_events(const char *source, int *optional)
{
	if (!source || !strcmp(source, "alloc_tag")) {
		*optional = 0;
		return tag_events;
	}
	if (!strcmp(source, "kmem")) {
		*optional = 2;
		return kmem_events;
	}
	if (!strcmp(source, "page")) {
		*optional = 1;
		return page_events;
	}
	return NULL;
}

uint64_t live_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#define mono_ns live_now_ns

/* ------------------------------------------------------------ the sink */

/*
 * In front of the stitcher: ALLOC and FREE of the tasks the filter leaves out are
 * marked so.
 */
static int filter_event(void *ctx, const struct atag_event *ev)
{
	struct atag_liveview *lv = ctx;
	struct atag_event e;

	if (ev->kind != ATAG_EV_ALLOC && ev->kind != ATAG_EV_FREE)
		return lv->into.event(lv->into.ctx, ev);
	e = *ev;
	/* without stack events an allocation waits for none */
	if (!lv->stack_every)
		e.stack_follows = false;
	if (lv->tasks.active)
		e.filtered = !live_tasks_selected(&lv->tasks, ev->pid);
	/* the watcher's own memory (its tables, its reads) is no workload's */
	if (lv->self && ev->pid == lv->self)
		e.filtered = true;
	return lv->into.event(lv->into.ctx, &e);
}

static int filter_stack(void *ctx, const struct atag_kstack *ks)
{
	struct atag_liveview *lv = ctx;

	return lv->into.stack(lv->into.ctx, ks);
}

static int filter_missed(void *ctx, int cpu)
{
	struct atag_liveview *lv = ctx;

	return lv->into.missed(lv->into.ctx, cpu);
}

static int on_record(void *ctx, const struct tep_record *rec, bool missed)
{
	struct atag_liveview *lv = ctx;
	uint16_t type;
	int ret;

	if (missed) {
		/* whatever was live then may have lost its free */
		lv->gaps++;
		if (rec->ts > lv->last_loss_ts)
			lv->last_loss_ts = rec->ts;
		ret = lv->sink.missed(lv->sink.ctx, rec->cpu);
		if (ret)
			return ret;
	}
	lv->last_ts = rec->ts;
	if ((lv->tasks.active || lv->tasks.names) && rec->size >= 2) {
		memcpy(&type, rec->data, 2);
		ret = live_tasks_note(&lv->tasks, rec, type);
		if (ret)
			return ret;
	}
	return atag_decoder_feed(lv->dec, &lv->sink, rec);
}

/* ------------------------------------------------------------ setting up */

static int load_kallsyms(struct atag_liveview *lv, char *err, size_t errlen)
{
	size_t len = 0;
	char *text = atag_read_file(KALLSYMS, ATAG_INPUT_MAX, &len);

	if (!text) {
		snprintf(err, errlen, "%s: %s", KALLSYMS, atag_strerror(errno));
		return -errno;
	}
	if (tep_parse_kallsyms(lv->tep, text))
		atag_warning("%s: not all of it could be read: call sites may stay unnamed",
			     KALLSYMS);
	lv->modules = atag_modules_parse(text, len);
	free(text);
	/* libtraceevent sorts its map of functions at the first look-up: now, not later */
	tep_find_function(lv->tep, 0);
	atag_decoder_set_modules(lv->dec, lv->modules);
	return 0;
}

/* Enable "system:event" in the instance; -ENOENT when the kernel lacks it. */
static int enable_event(struct atag_liveview *lv, const char *spec, char *err, size_t errlen)
{
	char sys[64];
	const char *colon = strchr(spec, ':');

	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
	if (!atag_event_exists(sys, colon + 1))
		return -ENOENT;
	if (tracefs_event_enable(lv->inst, sys, colon + 1)) {
		snprintf(err, errlen, "%s/events/%s/%s/enable: %s",
			 tracefs_instance_get_name(lv->inst), sys, colon + 1, strerror(errno));
		return -errno ? -errno : -EIO;
	}
	return 0;
}

/* The events of one source. */
static int enable_source(struct atag_liveview *lv, const char *source, char *err, size_t errlen)
{
	const char * const *evs;
	int i, n, optional, ret;

	evs = atag_live_events(source, &optional);
	for (n = 0; evs[n]; n++)
		;
	for (i = 0; i < n; i++) {
		ret = enable_event(lv, evs[i], err, errlen);
		if (ret == -ENOENT && i < n - optional) {
			snprintf(err, errlen, "%s/events/%s: no such event", atag_tracefs_dir(),
				 evs[i]);
			return ret;
		}
		if (ret && ret != -ENOENT)
			return ret;
	}
	return 0;
}

/* The sources' events, and the sched events the task filter and names follow. */
static int enable_events(struct atag_liveview *lv, char *err, size_t errlen)
{
	const char * const *sched;
	unsigned int k;
	int i, ret;

	for (k = 0; k < lv->nr_src; k++) {
		ret = enable_source(lv, lv->srcs[k]->name, err, errlen);
		if (ret)
			return ret;
	}
	sched = live_tasks_events(&lv->tasks);
	for (i = 0; sched[i]; i++) {
		ret = enable_event(lv, sched[i], err, errlen);
		/* without task:task_rename a renamed task keeps the comm it had */
		if (ret == -ENOENT && strcmp(sched[i], "task:task_rename")) {
			snprintf(err, errlen, "%s/events/%s: no such event: cannot follow tasks",
				 atag_tracefs_dir(), sched[i]);
			return ret;
		}
		if (ret && ret != -ENOENT)
			return ret;
	}
	return 0;
}

/* Parse tracefs's @file: an event format of @sys, or (@sys NULL) the header page. */
static int parse_file(struct tep_handle *tep, const char *file, const char *sys, char *err,
		      size_t errlen)
{
	const char *dir = atag_tracefs_dir();
	char path[4096], *text;
	size_t len = 0;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	text = atag_read_file(path, ATAG_INPUT_MAX, &len);
	if (!text) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, atag_strerror(errno));
		return ret;
	}
	if (sys ? tep_parse_event(tep, text, len, sys) :
		  tep_parse_header_page(tep, text, len, sizeof(long))) {
		snprintf(err, errlen, "%s: not a format libtraceevent can read", path);
		ret = -EINVAL;
	}
	free(text);
	return ret;
}

/*
 * The formats of the events read here and nothing else (libtracefs's
 * tracefs_local_events_system() reads every event of a system, kallsyms, printk
 * formats and cmdlines too, which takes seconds): the ring buffer's header page,
 * the source's events, the sched events of the task filter. Events the kernel
 * lacks are left out.
 */
static struct tep_handle *load_formats(struct atag_liveview *lv, char *err, size_t errlen)
{
	static const char * const stack_list[] = { stack_event, NULL };
	const char * const *lists[LIVE_MAX_SOURCES + 2], * const *e;
	unsigned int k, nr = 0;
	struct tep_handle *tep = tep_alloc();
	char file[256], sys[64];
	const char *colon;
	int i, optional;

	if (!tep) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	tep_set_file_bigendian(tep, tep_is_local_bigendian(tep) ? TEP_BIG_ENDIAN :
				    TEP_LITTLE_ENDIAN);
	tep_set_page_size(tep, getpagesize());
	/* kbuffers (tep_kbuffer()) take the long size from here: 4 unless set */
	tep_set_long_size(tep, sizeof(long));
	if (parse_file(tep, "events/header_page", NULL, err, errlen))
		goto fail;
	for (k = 0; k < lv->nr_src; k++)
		lists[nr++] = atag_live_events(lv->srcs[k]->name, &optional);
	lists[nr++] = live_tasks_events(&lv->tasks);
	if (lv->stack_every)
		lists[nr++] = stack_list;
	for (i = 0; i < (int)nr; i++) {
		for (e = lists[i]; *e; e++) {
			colon = strchr(*e, ':');
			snprintf(sys, sizeof(sys), "%.*s", (int)(colon - *e), *e);
			if (!atag_event_exists(sys, colon + 1))
				continue;
			snprintf(file, sizeof(file), "events/%s/%s/format", sys, colon + 1);
			if (parse_file(tep, file, sys, err, errlen))
				goto fail;
		}
	}
	return tep;
fail:
	tep_free(tep);
	return NULL;
}

/*
 * The stack triggers, inside the instance: slab allocations and the alloc_tag
 * source's alloced events one in stack_every by the address pattern of the first
 * position of the sampler's round (include/atag-recorder.h; every allocation with 1),
 * page allocations always (the page source takes its call site from the stack), as
 * record sets them. The alloc_tag source's stacks come with alloc_tag_mem_alloced,
 * never with the hit: a hit's stack is cached by task and tag, which would keep one
 * entry for every task that ever allocated; an alloced event's stack is the
 * allocation's own.
 */
static int set_triggers(struct atag_liveview *lv, char *err, size_t errlen)
{
	static const char * const tag_stacks[] = { "alloc_tag:alloc_tag_mem_alloced", NULL };
	static const char * const page_stacks[] = { "kmem:mm_page_alloc", NULL };
	const char * const *evs, *trigger, *colon;
	char sampled[512], sys[64];
	unsigned int k, n = 0;
	bool page;

	if (atag_sampler_trigger(lv->stack_every, 0, sampled, sizeof(sampled)))
		return -E2BIG;
	for (k = 0; k < lv->nr_src; k++) {
		page = !strcmp(lv->srcs[k]->name, "page");
		evs = page ? page_stacks : !strcmp(lv->srcs[k]->name, "kmem") ? slab_alloc_events :
		      tag_stacks;
		for (; *evs; evs++) {
			colon = strchr(*evs, ':');
			snprintf(sys, sizeof(sys), "%.*s", (int)(colon - *evs), *evs);
			if (!atag_event_exists(sys, colon + 1))
				continue;
			trigger = page ? "stacktrace" : sampled;
			if (tracefs_event_file_write(lv->inst, sys, colon + 1, "trigger",
						     trigger) < 0) {
				snprintf(err, errlen, "%s/events/%s/%s/trigger: cannot set '%s': %s",
					 tracefs_instance_get_name(lv->inst), sys, colon + 1,
					 trigger, strerror(errno));
				return -errno ? -errno : -EIO;
			}
			if (page)
				continue;
			/* its ALLOC may be followed by a stack, or not */
			atag_decoder_stacks_sampled(lv->dec, *evs);
			if (lv->stack_every > 1 && n < LIVE_MAX_TRIGGERS)
				lv->sampled[n++] = *evs;
		}
	}
	lv->sampled[n] = NULL;
	return 0;
}

static int set_up(struct atag_liveview *lv, const struct atag_live_opts *o, char *err,
		  size_t errlen)
{
	bool symbols = lv->stack_every;
	unsigned int k;
	char kb[32];
	int ret;

	lv->tep = load_formats(lv, err, errlen);
	if (!lv->tep)
		return -EIO;
	lv->dec = atag_decoder_alloc_sources(lv->srcs, lv->nr_src, lv->tep);
	if (!lv->dec) {
		snprintf(err, errlen, "%s/events: no %s events", atag_tracefs_dir(), lv->src->name);
		return -ENOENT;
	}
	for (k = 0; k < lv->nr_src; k++)
		symbols |= lv->srcs[k]->name_tag != NULL;
	if (symbols) {
		ret = load_kallsyms(lv, err, errlen);
		if (ret)
			return ret;
	}
	live_tasks_bind(&lv->tasks, lv->tep);
	lv->stacks = atag_stacks_alloc();
	for (k = 0; k < lv->nr_src; k++) {
		lv->aggrs[k] = atag_aggr_alloc();
		if (!lv->aggrs[k])
			break;
	}
	lv->aggr = lv->aggrs[0];
	lv->st = k == lv->nr_src && lv->stacks ? atag_stitcher_alloc(lv->aggr, lv->stacks) : NULL;
	for (k = 1; lv->st && k < lv->nr_src; k++)
		if (atag_stitcher_add_source(lv->st, lv->aggrs[k]) < 0) {
			atag_stitcher_free(lv->st);
			lv->st = NULL;
		}
	for (k = 0; lv->st && k < lv->nr_src; k++)
		atag_stitcher_nesting(lv->st, k, lv->srcs[k]->nests);
	/* memory follows the watched tasks' live allocations, not the system's */
	if (lv->st)
		atag_stitcher_forget_filtered(lv->st, true);
	if (!lv->st) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	atag_stitch_sink(lv->st, &lv->into);
	lv->sink = (struct atag_sink){ filter_event, filter_stack, filter_missed, lv };

	/* records in CLOCK_MONOTONIC time, which user space reads too */
	lv->mono = tracefs_instance_file_write(lv->inst, "trace_clock", "mono") > 0;
	if (o->buffer_kb) {
		snprintf(kb, sizeof(kb), "%lu", o->buffer_kb);
		if (tracefs_instance_file_write(lv->inst, "buffer_size_kb", kb) <= 0) {
			snprintf(err, errlen, "%s/buffer_size_kb: cannot set %s KiB: %s",
				 tracefs_instance_get_name(lv->inst), kb, strerror(errno));
			return -errno ? -errno : -EIO;
		}
	}
	/* a reader's poll() wakes once a CPU's buffer is a quarter full */
	tracefs_instance_file_write(lv->inst, "buffer_percent", "25");
	ret = enable_events(lv, err, errlen);
	if (!ret && lv->stack_every)
		ret = set_triggers(lv, err, errlen);
	if (ret)
		return ret;
	return live_cpus_open(&lv->cpus, lv->inst, lv->tep, err, errlen);
}

int atag_live_open(struct tracefs_instance *inst, const struct atag_live_opts *o,
		   struct atag_liveview **out, char *err, size_t errlen)
{
	struct atag_liveview *lv;
	int ret, optional;
	unsigned int i;

	*out = NULL;
	if (o->stack_every & (o->stack_every - 1)) {
		snprintf(err, errlen, "stacks of one allocation in %u: not a power of two",
			 o->stack_every);
		return -EINVAL;
	}
	lv = calloc(1, sizeof(*lv));
	if (!lv)
		return -ENOMEM;
	lv->inst = inst;
	lv->stack_every = o->stack_every;
	lv->self = o->not_self ? getpid() : 0;
	lv->src = atag_source_find(o->source ? o->source : "alloc_tag");
	if (!lv->src || !atag_live_events(lv->src->name, &optional) ||
	    !strcmp(lv->src->name, "page")) {
		snprintf(err, errlen, "source %s cannot be watched live", o->source);
		free(lv);
		return -EINVAL;
	}
	lv->srcs[lv->nr_src++] = lv->src;
	if (o->pages && !strcmp(lv->src->name, "kmem"))
		lv->srcs[lv->nr_src++] = atag_source_find("page");
	lv->pids = calloc(o->nr_pids + 1, sizeof(*lv->pids));
	lv->comms = calloc(o->nr_comms + 1, sizeof(*lv->comms));
	if (!lv->pids || !lv->comms) {
		atag_live_close(lv);
		return -ENOMEM;
	}
	if (o->nr_pids)
		memcpy(lv->pids, o->pids, o->nr_pids * sizeof(*lv->pids));
	for (i = 0; i < o->nr_comms; i++)
		lv->comms[i] = o->comms[i];
	live_tasks_init(&lv->tasks, o->nr_pids || o->nr_comms || o->children, lv->comms,
			o->nr_comms, o->children);
	if (o->names && live_tasks_keep_names(&lv->tasks)) {
		atag_live_close(lv);
		return -ENOMEM;
	}
	for (i = 0; i < o->nr_pids; i++)
		if (live_tasks_add(&lv->tasks, lv->pids[i])) {
			atag_live_close(lv);
			return -ENOMEM;
		}
	ret = set_up(lv, o, err, errlen);
	if (ret) {
		atag_live_close(lv);
		return ret;
	}
	*out = lv;
	return 0;
}

int atag_live_start(struct atag_liveview *lv)
{
	lv->start_ns = lv->last_snap_ns = mono_ns();
	if (tracefs_trace_on(lv->inst))
		return -EIO;
	/* the sampled stacks' pattern moves on from here (a failure: said at the stop) */
	if (lv->sampled[0])
		lv->sampler = atag_sampler_start(tracefs_instance_get_name(lv->inst), lv->sampled,
						 lv->stack_every, LIVE_STACK_PERIOD_MS);
	return 0;
}

static void stop_sampler(struct atag_liveview *lv)
{
	if (!lv->sampler)
		return;
	atag_sampler_stop(lv->sampler, &lv->sampler_result);
	lv->sampler = NULL;
}

int atag_live_stop(struct atag_liveview *lv)
{
	stop_sampler(lv);
	return tracefs_trace_off(lv->inst) ? -EIO : 0;
}

int atag_live_add_pid(struct atag_liveview *lv, int pid)
{
	return live_tasks_add(&lv->tasks, pid);
}

int atag_live_read(struct atag_liveview *lv, bool all)
{
	uint64_t until = UINT64_MAX;

	if (!all && lv->mono)
		until = mono_ns() - ATAG_LIVE_MARGIN_NS;
	return live_cpus_read(&lv->cpus, until, on_record, lv);
}

bool live_lost(struct atag_liveview *lv, uint64_t *lost)
{
	struct atag_lost l;

	*lost = 0;
	if (atag_instance_lost_events(tracefs_instance_get_name(lv->inst), &l))
		return false;
	*lost = l.overrun + l.dropped;
	if (*lost > lv->lost_seen) {
		/* lost since the last look, when exactly the counters do not say */
		if (lv->mono && mono_ns() > lv->last_loss_ts)
			lv->last_loss_ts = mono_ns();
		lv->lost_seen = *lost;
	}
	return true;
}

unsigned int atag_live_nr_fds(const struct atag_liveview *lv)
{
	return lv->cpus.nr;
}

int atag_live_fd(const struct atag_liveview *lv, unsigned int i)
{
	return live_cpus_fd(&lv->cpus, i);
}

void atag_live_close(struct atag_liveview *lv)
{
	unsigned int k;

	if (!lv)
		return;
	stop_sampler(lv);
	live_cpus_close(&lv->cpus);
	live_tasks_free(&lv->tasks);
	atag_stitcher_free(lv->st);
	atag_stacks_free(lv->stacks);
	for (k = 0; k < LIVE_MAX_SOURCES; k++)
		atag_aggr_free(lv->aggrs[k]);
	atag_decoder_free(lv->dec);
	atag_modules_free(lv->modules);
	if (lv->tep)
		tep_free(lv->tep);
	free(lv->prev);
	free(lv->pids);
	free(lv->comms);
	free(lv);
}

/* ------------------------------------------------------------ snapshots */

enum key_kind { K_COUNTER, K_INTERVAL, K_OLDEST, K_PCT, K_SITE };

static const struct sort_key {
	const char	*name;
	enum key_kind	kind;
	int		arg;
} sort_keys[] = {
	{ "live_bytes", K_COUNTER, ATAG_COUNTER_LIVE_BYTES },
	{ "live", K_COUNTER, ATAG_COUNTER_LIVE },
	{ "allocs", K_INTERVAL, 0 },
	{ "frees", K_INTERVAL, 1 },
	{ "total", K_COUNTER, ATAG_COUNTER_ALLOCS },
	{ "bytes", K_COUNTER, ATAG_COUNTER_BYTES_ALLOCED },
	{ "oldest", K_OLDEST, 0 },
	{ "p50", K_PCT, 50 },
	{ "p99", K_PCT, 99 },
	{ "site", K_SITE, 0 },
};

static const struct sort_key *find_key(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
		if (!strcmp(name, sort_keys[i].name))
			return &sort_keys[i];
	return NULL;
}

bool atag_live_sort_key_known(const char *name)
{
	return find_key(name) != NULL;
}

static uint64_t key_value(const struct sort_key *k, const struct atag_live_site *s)
{
	switch (k->kind) {
	case K_COUNTER:
		return atag_counter_value(&s->counts, &atag_counter_fields[k->arg]);
	case K_INTERVAL:
		return k->arg ? s->frees : s->allocs;
	case K_OLDEST:
		return s->oldest_ns;
	case K_PCT:
		return atag_lifetime_percentile(s->lifetimes, k->arg);
	default:
		return 0;
	}
}

static int cmp_name(const struct atag_live_site *a, const struct atag_live_site *b)
{
	int c;

	if (!a->function || !b->function)
		return a->function ? -1 : b->function ? 1 : (a->tag > b->tag) - (a->tag < b->tag);
	c = strcmp(a->function, b->function);
	if (!c)
		c = (a->offset > b->offset) - (a->offset < b->offset);
	if (!c)
		c = (a->line > b->line) - (a->line < b->line);
	if (!c)
		c = (a->tag > b->tag) - (a->tag < b->tag);
	return c;
}

static int cmp_sites(const void *pa, const void *pb, void *arg)
{
	const struct atag_live_site *a = pa, *b = pb;
	const struct sort_key *k = arg;
	uint64_t va, vb;

	if (k->kind != K_SITE) {
		va = key_value(k, a);
		vb = key_value(k, b);
		if (va != vb)
			return va > vb ? -1 : 1;
		if (a->counts.live_bytes != b->counts.live_bytes)
			return a->counts.live_bytes > b->counts.live_bytes ? -1 : 1;
		if (a->allocs != b->allocs)
			return a->allocs > b->allocs ? -1 : 1;
	}
	return cmp_name(a, b);
}

/* The age of each call site's oldest live allocation, by tag index. */
static int oldest_ages(struct atag_liveview *lv, uint64_t now, uint64_t **out, size_t n)
{
	const struct atag_live *l;
	uint64_t *oldest = calloc(n + 1, sizeof(*oldest));
	size_t iter = 0;

	if (!oldest)
		return -ENOMEM;
	/* the oldest allocation has the smallest timestamp: keep ts + 1 (0: none) */
	while ((l = atag_stitch_live_next(lv->st, &iter))) {
		if (!l->counted || l->pending || l->tag_idx >= n)
			continue;
		if (!oldest[l->tag_idx] || l->ts + 1 < oldest[l->tag_idx])
			oldest[l->tag_idx] = l->ts + 1;
	}
	for (iter = 0; iter < n; iter++)
		if (oldest[iter])
			oldest[iter] = now > oldest[iter] - 1 ? now - (oldest[iter] - 1) : 0;
	*out = oldest;
	return 0;
}

#define PREV	3	/* counters of a tag kept from the last snapshot */

/* Grow the per-tag memory of the last snapshot to @n tags. */
static int grow_prev(struct atag_liveview *lv, size_t n)
{
	uint64_t *p;

	if (n <= lv->nr_prev)
		return 0;
	p = realloc(lv->prev, PREV * n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + PREV * lv->nr_prev, 0, PREV * (n - lv->nr_prev) * sizeof(*p));
	lv->prev = p;
	lv->nr_prev = n;
	return 0;
}

static void name_site(struct atag_liveview *lv, const struct atag_tag_stats *t,
		      struct atag_live_site *s)
{
	uint64_t off = 0;

	s->tag = t->tag;
	s->function = t->function;
	s->file = t->file;
	s->module = t->module;
	s->line = t->line;
	s->offset = -1;
	if (!s->function && t->tag && atag_decoder_name_tag(lv->dec, t->tag, &s->function,
							     &off, &s->module))
		s->offset = off;
}

int atag_live_snapshot(struct atag_liveview *lv, const char *sort, struct atag_live_snapshot *snap)
{
	const struct sort_key *k = find_key(sort ? sort : "live_bytes");
	size_t i, n = atag_aggr_nr_tags(lv->aggr);
	const struct atag_tag_stats *t;
	struct atag_live_site *s;
	uint64_t now = mono_ns(), frees, *oldest;

	memset(snap, 0, sizeof(*snap));
	if (!k)
		return -EINVAL;
	if (grow_prev(lv, n) || oldest_ages(lv, lv->mono ? now : 0, &oldest, n))
		return -ENOMEM;
	snap->sites = calloc(n + 1, sizeof(*snap->sites));
	if (!snap->sites) {
		free(oldest);
		return -ENOMEM;
	}
	snap->source = lv->src->name;
	snap->elapsed_ns = now - lv->start_ns;
	snap->interval_ns = now - lv->last_snap_ns;
	lv->last_snap_ns = now;
	snap->records = lv->cpus.records;
	snap->lost_known = live_lost(lv, &snap->lost);
	snap->tasks = lv->tasks.active ? atag_map_count(&lv->tasks.tasks) : 0;
	for (i = 0; i < n; i++) {
		t = atag_aggr_tag(lv->aggr, i);
		frees = t->counts.frees + t->counts.unmatched_frees;
		atag_totals_add(&snap->totals, &t->counts);
		if (!t->counts.allocs && !frees)
			continue;
		s = &snap->sites[snap->nr_sites++];
		name_site(lv, t, s);
		s->counts = t->counts;
		s->lifetimes = &t->lifetimes;
		s->allocs = t->counts.allocs - lv->prev[PREV * i];
		s->frees = frees - lv->prev[PREV * i + 1];
		s->oldest_ns = oldest[i];
		snap->allocs += s->allocs;
		snap->frees += s->frees;
		snap->replaced += t->counts.replaced - lv->prev[PREV * i + 2];
		lv->prev[PREV * i] = t->counts.allocs;
		lv->prev[PREV * i + 1] = frees;
		lv->prev[PREV * i + 2] = t->counts.replaced;
	}
	free(oldest);
	if (snap->nr_sites > 1)
		qsort_r(snap->sites, snap->nr_sites, sizeof(*snap->sites), cmp_sites, (void *)k);
	return 0;
}

void atag_live_snapshot_release(struct atag_live_snapshot *snap)
{
	free(snap->sites);
	snap->sites = NULL;
	snap->nr_sites = 0;
}
