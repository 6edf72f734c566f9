// SPDX-License-Identifier: LGPL-2.1
/*
 * The trace.dat reader: opening files and walking their records, through one of
 * two back ends. Its own reading of the headers (atag-tracedat.c) decides whether
 * it can read a file at all; the page walker (atag-pages.c) reads the records of
 * every file it accepts; libtracecmd (atag-tracecmd.c, with its workarounds)
 * walks the same files when ATAG_PAGES=0 asks for it, once the page walker found
 * every page sound. No child process, no signal handler. See atag-trace.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "atag-tracecmd.h"
#include "atag-pages.h"
#include "atag-symbols.h"
#include "atag-trace.h"
#include "atag-tracedat.h"
#include "atag-utils.h"

struct atag_trace {
	char			*path;
	int			fd;		/* the file */
	struct atag_tracedat	*td;		/* its headers, read here */
	struct atag_pages	*pages;		/* the walker of its pages */
	struct atag_tracecmd	*tc;		/* ATAG_PAGES=0: libtracecmd walks them */
	char			**warnings;	/* what the walks said */
	unsigned int		nr_warnings;
	unsigned int		lost_warnings;
};

#define MAX_WARNINGS	8

/* ------------------------------------------------------------ what the walks say */

/*
 * What the walks say (the page walker of what it skipped; libtracecmd of what
 * went wrong, "libtracecmd: ...") is kept with the trace; notices for the report.
 */
static void keep_warning(struct atag_trace *t, const char *prefix, const char *fmt, va_list ap)
{
	char **p, *s, *m;

	if (t->nr_warnings == MAX_WARNINGS || vasprintf(&m, fmt, ap) < 0) {
		t->lost_warnings++;
		return;
	}
	if (asprintf(&s, "%s%s", prefix, m) < 0) {
		free(m);
		t->lost_warnings++;
		return;
	}
	free(m);
	p = realloc(t->warnings, (t->nr_warnings + 1) * sizeof(*p));
	if (!p) {
		free(s);
		return;
	}
	p[t->nr_warnings++] = s;
	t->warnings = p;
}

static void pages_warning(void *ctx, const char *fmt, va_list ap)
{
	keep_warning(ctx, "", fmt, ap);
}

static void tracecmd_warning_kept(void *ctx, const char *fmt, va_list ap)
{
	keep_warning(ctx, "libtracecmd: ", fmt, ap);
}

static void __attribute__((format(printf, 2, 3)))
warning(struct atag_trace *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	keep_warning(t, "", fmt, ap);
	va_end(ap);
}

unsigned int atag_trace_nr_warnings(const struct atag_trace *t)
{
	return t->nr_warnings;
}

const char *atag_trace_warning(const struct atag_trace *t, unsigned int i)
{
	return i < t->nr_warnings ? t->warnings[i] : NULL;
}

/* ------------------------------------------------------------ opening */

static int count_cb(const struct tep_record *rec, void *data)
{
	return 0;
}

/*
 * Hand @t to libtracecmd (ATAG_PAGES=0), once everything it will read was
 * checked: the headers were, the pages are here (kbuffer trusts them, and cannot
 * skip a damaged one).
 */
static int open_tracecmd(struct atag_trace *t, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < t->td->nr_buffers; i++) {
		atag_pages_iterate(t->pages, i, count_cb, NULL);
		if (atag_pages_damaged(t->pages)) {
			snprintf(err, errlen, "corrupt ring-buffer data in buffer %s (%s), and "
				 "ATAG_PAGES=0 asks for libtracecmd, which cannot skip damaged pages",
				 t->td->buf[i].name[0] ? t->td->buf[i].name : "top",
				 t->nr_warnings ? t->warnings[t->nr_warnings - 1] : "a bad page");
			return -EINVAL;
		}
	}
	return atag_tracecmd_open(t->td, t->fd, tracecmd_warning_kept, t, &t->tc, err, errlen);
}

/* Open the file at @path into @t, read its headers, choose its back end. */
static int open_trace(struct atag_trace *t, const char *path, char *err, size_t errlen)
{
	const char *env = getenv("ATAG_PAGES");
	int ret;

	t->path = strdup(path);
	if (!t->path)
		return -ENOMEM;
	/* without blocking: a FIFO or a device is refused, not waited on */
	t->fd = atag_open_input(AT_FDCWD, path, 0);
	if (t->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s", atag_strerror(ret));
		return ret;
	}
	ret = atag_tracedat_open(t->fd, &t->td, err, errlen);
	if (ret)
		return ret;
	if (t->td->unreadable) {
		snprintf(err, errlen, "%s", t->td->unreadable);
		return -EINVAL;
	}
	t->pages = atag_pages_alloc(t->td, pages_warning, t);
	if (!t->pages)
		return -ENOMEM;
	if (t->td->nr_unknown)
		warning(t, "it has %u option%s this reader does not know (the first: id %u), "
			"read as if absent", t->td->nr_unknown, t->td->nr_unknown > 1 ? "s" : "",
			t->td->unknown_option);
	posix_fadvise(t->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	/* ATAG_PAGES=0: walk through libtracecmd (tests compare both walks) */
	return env && !strcmp(env, "0") ? open_tracecmd(t, err, errlen) : 0;
}

int atag_trace_open(const char *path, struct atag_trace **trace, char *err, size_t errlen)
{
	struct atag_trace *t = calloc(1, sizeof(*t));
	int ret = -ENOMEM;

	*trace = NULL;
	if (t) {
		t->fd = -1;
		ret = open_trace(t, path, err, errlen);
	}
	if (!ret) {
		*trace = t;
		return 0;
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	atag_trace_close(t);
	return atag_err(ret);
}

void atag_trace_close(struct atag_trace *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->nr_warnings; i++)
		free(t->warnings[i]);
	free(t->warnings);
	atag_tracecmd_close(t->tc);
	atag_pages_free(t->pages);
	atag_tracedat_close(t->td);
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	free(t);
}

const struct atag_modules *atag_trace_modules(const struct atag_trace *t)
{
	return t->td->kallsyms;
}

const char *atag_trace_path(const struct atag_trace *t)
{
	return t->path;
}

struct tep_handle *atag_trace_tep(const struct atag_trace *t)
{
	return t->td->tep;
}

const char *atag_trace_uname(const struct atag_trace *t)
{
	return t->td->uname;
}

const struct atag_flag_names *atag_trace_gfp_names(const struct atag_trace *t)
{
	return t->td->gfp_names.nr ? &t->td->gfp_names : NULL;
}

unsigned int atag_trace_nr_damages(const struct atag_trace *t)
{
	return t->td->nr_damage;
}

const char *atag_trace_damage(const struct atag_trace *t, unsigned int i)
{
	return i < t->td->nr_damage ? t->td->damage[i] : NULL;
}

const char *atag_trace_comm(const struct atag_trace *t, int pid)
{
	struct tep_handle *tep = t->td->tep;

	return tep_is_pid_registered(tep, pid) ? tep_data_comm_from_pid(tep, pid) : NULL;
}

int atag_trace_nr_buffers(const struct atag_trace *t)
{
	return t->td->nr_buffers;
}

const char *atag_trace_buffer_name(const struct atag_trace *t, int i)
{
	return i >= 0 && i < t->td->nr_buffers ? t->td->buf[i].name : NULL;
}

int atag_trace_find_buffer(const struct atag_trace *t, const char *name)
{
	return atag_tracedat_find(t->td, strcmp(name, "top") ? name : "");
}

int atag_trace_nr_cpus(const struct atag_trace *t, int i)
{
	return i >= 0 && i < t->td->nr_buffers ? t->td->buf[i].nr_cpus : 0;
}

int atag_trace_cpu_id(const struct atag_trace *t, int i, int index)
{
	if (i < 0 || i >= t->td->nr_buffers || index < 0 || index >= t->td->buf[i].nr_cpus)
		return -1;
	return t->td->buf[i].cpus[index].cpu;
}

bool atag_trace_direct(const struct atag_trace *t, int i)
{
	return !t->tc && i >= 0 && i < t->td->nr_buffers;
}

/* ------------------------------------------------------------ walking */

int atag_trace_iterate(struct atag_trace *t, int i, atag_record_fn cb, void *data)
{
	if (i < 0 || i >= t->td->nr_buffers)
		return 0;
	if (t->tc)
		return atag_tracecmd_iterate(t->tc, i, cb, data);
	return atag_pages_iterate(t->pages, i, cb, data);
}

void atag_trace_set_ahead(struct atag_trace *t, atag_ahead_fn ahead, void *data)
{
	if (t->pages)
		atag_pages_set_ahead(t->pages, ahead, data);
}

struct probe_types {
	const struct atag_trace	*t;
	const int		*ids;
	int			nr_ids;
	unsigned long		limit;
	bool			found;
};

/* The record's event id: its first two bytes, as the decoder reads it. */
static bool wanted(const struct probe_types *p, const struct tep_record *rec)
{
	uint16_t type;
	int k;

	if (rec->size < 2)
		return false;
	memcpy(&type, rec->data, 2);
	if (p->t->td->swap)
		type = __builtin_bswap16(type);
	for (k = 0; k < p->nr_ids; k++)
		if (type == p->ids[k])
			return true;
	return false;
}

static int probe_cb(const struct tep_record *rec, void *arg)
{
	struct probe_types *p = arg;

	p->found = wanted(p, rec);
	return p->found || !--p->limit ? -1 : 0;
}

static int probe_cpu_cb(const struct tep_record *rec, void *arg)
{
	struct probe_types *p = arg;

	p->found = wanted(p, rec);
	return p->found;
}

bool atag_trace_buffer_has(struct atag_trace *t, int i, const int *ids, int nr_ids,
			   unsigned int limit)
{
	struct probe_types p = { .t = t, .ids = ids, .nr_ids = nr_ids,
				 .limit = limit ? limit : 1 };

	if (i < 0 || i >= t->td->nr_buffers)
		return false;
	if (t->tc) {
		atag_tracecmd_first_records(t->tc, i, p.limit, probe_cpu_cb, &p);
		return p.found;
	}
	/* as many records as libtracecmd's look takes, in timestamp order */
	p.limit *= t->td->buf[i].nr_cpus ? t->td->buf[i].nr_cpus : 1;
	atag_pages_iterate(t->pages, i, probe_cb, &p);
	return p.found;
}

uint64_t atag_trace_first_ts(struct atag_trace *t, int i)
{
	return t->tc && i >= 0 && i < t->td->nr_buffers ? atag_tracecmd_first_ts(t->tc, i) : 0;
}

uint64_t atag_trace_last_ts(struct atag_trace *t, int i)
{
	return t->tc && i >= 0 && i < t->td->nr_buffers ? atag_tracecmd_last_ts(t->tc, i) : 0;
}

double atag_trace_progress(const struct atag_trace *t)
{
	return t->tc ? -1 : atag_pages_progress(t->pages);
}

uint64_t atag_trace_data_size(const struct atag_trace *t, int i)
{
	uint64_t n = 0;
	int c;

	for (c = 0; i >= 0 && i < t->td->nr_buffers && c < t->td->buf[i].nr_cpus; c++)
		n += t->td->buf[i].cpus[c].avail;
	return n;
}

bool atag_trace_truncated(const struct atag_trace *t, uint64_t *size, uint64_t *needed)
{
	if (size)
		*size = t->td->file_size;
	if (needed)
		*needed = t->td->needed > t->td->file_size ? t->td->needed : t->td->file_size;
	return t->td->needed > t->td->file_size;
}
