// SPDX-License-Identifier: LGPL-2.1
/*
 * Walking the ring-buffer pages of an uncompressed (version 6) trace.dat directly.
 *
 * libtracecmd 1.3.1 allocates and frees a record, and scans every CPU, for each
 * event it hands out; for a reader that looks at every event of a large file that
 * costs more than the looking. Here each CPU's pages are mapped once and walked
 * with libtraceevent's kbuffer, records are merged across CPUs by timestamp into
 * one reused struct tep_record, and a record carries what libtracecmd's would:
 * ts, cpu, data, size and missed_events (on the first record of a flagged page).
 *
 * Only files whose timestamps libtracecmd would not convert are walked here: no
 * DATE, OFFSET, TIME_SHIFT, GUEST, TSC2NSEC or CPUCOUNT option and no option this
 * code does not know. Everything else goes through libtracecmd. A page whose
 * commit size is larger than a page stops its CPU, as in libtracecmd, with the
 * same warning. tests/t-pages.sh compares both walks record by record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "atag-local.h"
#include "atag-pages.h"

enum {
	OPT_DONE, OPT_DATE, OPT_CPUSTAT, OPT_BUFFER, OPT_TRACECLOCK, OPT_UNAME, OPT_HOOK,
	OPT_OFFSET, OPT_CPUCOUNT, OPT_VERSION, OPT_PROCMAPS, OPT_TRACEID,
};

#define MAX_BUFFERS	64

struct cpu_region {
	uint64_t	offset;
	uint64_t	size;
};

struct atag_pages {
	int			fd;
	int			long_size;
	bool			big_endian;
	unsigned int		page_size;
	int			cpus;
	int			nr_buffers;
	char			*names[MAX_BUFFERS];
	struct cpu_region	*regions[MAX_BUFFERS];	/* cpus each */
};

/* ------------------------------------------------------------ the v6 header */

struct reader {
	int		fd;
	uint64_t	pos;
	bool		swap;
	bool		bad;
};

static void rd(struct reader *r, void *buf, size_t n)
{
	if (r->bad || pread(r->fd, buf, n, r->pos) != (ssize_t)n)
		r->bad = true;
	r->pos += n;
}

static uint64_t rd_num(struct reader *r, int size)
{
	uint64_t v = 0;
	uint32_t v32 = 0;
	uint16_t v16 = 0;

	switch (size) {
	case 2:
		rd(r, &v16, 2);
		return r->swap ? __builtin_bswap16(v16) : v16;
	case 4:
		rd(r, &v32, 4);
		return r->swap ? __builtin_bswap32(v32) : v32;
	default:
		rd(r, &v, 8);
		return r->swap ? __builtin_bswap64(v) : v;
	}
}

static void skip_str(struct reader *r)
{
	char c;

	do {
		rd(r, &c, 1);
	} while (!r->bad && c);
}

/* Skip the header sections up to the CPU count; returns it. */
static int skip_sections(struct reader *r)
{
	uint64_t n, i, j, events;

	r->pos += 12;				/* "header_page\0" */
	r->pos += rd_num(r, 8);
	r->pos += 13;				/* "header_event\0" */
	r->pos += rd_num(r, 8);
	n = rd_num(r, 4);			/* ftrace formats */
	for (i = 0; i < n && !r->bad; i++)
		r->pos += rd_num(r, 8);
	n = rd_num(r, 4);			/* systems */
	for (i = 0; i < n && !r->bad; i++) {
		skip_str(r);
		events = rd_num(r, 4);
		for (j = 0; j < events && !r->bad; j++)
			r->pos += rd_num(r, 8);
	}
	r->pos += rd_num(r, 4);			/* kallsyms */
	r->pos += rd_num(r, 4);			/* printk formats */
	r->pos += rd_num(r, 8);			/* saved cmdlines */
	return rd_num(r, 4);
}

/* Read a "flyrecord\0" CPU table at the reader's position. */
static struct cpu_region *read_table(struct reader *r, int cpus)
{
	struct cpu_region *t;
	char word[10];
	int c;

	rd(r, word, 10);
	if (r->bad || memcmp(word, "flyrecord", 10))
		return NULL;
	t = calloc(cpus, sizeof(*t));
	for (c = 0; t && c < cpus; c++) {
		t[c].offset = rd_num(r, 8);
		t[c].size = rd_num(r, 8);
	}
	if (t && r->bad) {
		free(t);
		t = NULL;
	}
	return t;
}

/* The options: BUFFER offsets into @p, false for any that changes timestamps. */
static bool read_options(struct reader *r, struct atag_pages *p, uint64_t *buf_off)
{
	uint64_t next;
	unsigned int id;
	uint32_t size;
	char name[256];

	for (;;) {
		id = rd_num(r, 2);
		if (r->bad)
			return false;
		if (id == OPT_DONE)
			return true;
		size = rd_num(r, 4);
		next = r->pos + size;
		switch (id) {
		case OPT_BUFFER:
			if (p->nr_buffers >= MAX_BUFFERS || size < 9 || size - 8 > sizeof(name))
				return false;
			buf_off[p->nr_buffers] = rd_num(r, 8);
			rd(r, name, size - 8);
			name[size - 9] = '\0';
			p->names[p->nr_buffers++] = strdup(name);
			break;
		case OPT_CPUSTAT: case OPT_TRACECLOCK: case OPT_UNAME: case OPT_HOOK:
		case OPT_VERSION: case OPT_PROCMAPS: case OPT_TRACEID:
			break;
		default:
			return false;	/* DATE, OFFSET, CPUCOUNT, time sync, or unknown */
		}
		r->pos = next;
	}
}

struct atag_pages *atag_pages_open(int fd)
{
	uint64_t buf_off[MAX_BUFFERS];
	struct reader r = { .fd = fd };
	struct atag_pages *p;
	char head[16], word[10];
	int i;

	rd(&r, head, 16);
	if (r.bad || memcmp(head + 3, "tracing6", 9) || head[12] > 1)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->fd = fd;
	p->big_endian = head[12];
	p->long_size = head[13];
	r.swap = p->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	r.pos = 14;
	p->page_size = rd_num(&r, 4);
	p->cpus = skip_sections(&r);
	if (r.bad || p->cpus < 1 || p->cpus > 4096 || p->page_size < 64 ||
	    (p->long_size != 4 && p->long_size != 8))
		goto fail;
	p->names[0] = strdup("");
	p->nr_buffers = 1;
	rd(&r, word, 10);
	if (!memcmp(word, "options  ", 10)) {
		if (!read_options(&r, p, buf_off))
			goto fail;
	} else {
		r.pos -= 10;
	}
	p->regions[0] = read_table(&r, p->cpus);
	for (i = 1; i < p->nr_buffers && p->regions[0]; i++) {
		r.pos = buf_off[i];
		p->regions[i] = read_table(&r, p->cpus);
		if (!p->regions[i])
			goto fail;
	}
	if (!p->regions[0])
		goto fail;
	return p;
fail:
	atag_pages_close(p);
	return NULL;
}

void atag_pages_close(struct atag_pages *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nr_buffers; i++) {
		free(p->names[i]);
		free(p->regions[i]);
	}
	free(p);
}

int atag_pages_find(const struct atag_pages *p, const char *name)
{
	int i;

	for (i = 0; i < p->nr_buffers; i++)
		if (!strcmp(p->names[i], name))
			return i;
	return -1;
}

/* ------------------------------------------------------------ walking */

struct cpu_walk {
	struct kbuffer		*kbuf;
	char			*map;		/* the CPU's pages */
	size_t			map_len;
	uint64_t		nr_pages;
	uint64_t		page;		/* the page loaded in kbuf */
	unsigned long long	ts;		/* of the record at hand */
	void			*data;		/* NULL: this CPU is done */
};

/* Load the next page with events; false at the end or on a bad page. */
static bool next_page(struct atag_pages *p, struct cpu_walk *w, int cpu)
{
	while (++w->page < w->nr_pages) {
		kbuffer_load_subbuffer(w->kbuf, w->map + w->page * p->page_size);
		if ((unsigned int)kbuffer_subbuffer_size(w->kbuf) > p->page_size) {
			tracecmd_warning("bad page read, with size of %d on CPU %d",
					 kbuffer_subbuffer_size(w->kbuf), cpu);
			return false;
		}
		w->data = kbuffer_read_event(w->kbuf, &w->ts);
		if (w->data)
			return true;
	}
	return false;
}

static int walk_init(struct atag_pages *p, const struct cpu_region *reg, struct cpu_walk *w,
		     int cpu)
{
	w->page = (uint64_t)-1;
	w->data = NULL;
	w->nr_pages = reg->size / p->page_size;
	if (!w->nr_pages)
		return 0;
	w->kbuf = kbuffer_alloc(p->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				p->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!w->kbuf)
		return -ENOMEM;
	w->map_len = w->nr_pages * p->page_size;
	w->map = mmap(NULL, w->map_len, PROT_READ, MAP_PRIVATE, p->fd, reg->offset);
	if (w->map == MAP_FAILED) {
		w->map = NULL;
		return -errno;
	}
	madvise(w->map, w->map_len, MADV_SEQUENTIAL);
	next_page(p, w, cpu);
	return 0;
}

static void walk_free(struct cpu_walk *w)
{
	if (w->kbuf)
		kbuffer_free(w->kbuf);
	if (w->map)
		munmap(w->map, w->map_len);
}

int atag_pages_iterate(struct atag_pages *p, int buffer, struct tracecmd_input *h,
		       int (*cb)(struct tracecmd_input *h, struct tep_record *rec, int cpu,
				 void *data), void *data)
{
	struct tep_record rec = { .ref_count = 1 };
	struct cpu_walk *w;
	unsigned long count = 0;
	int cpu, next, ret = 0;

	if (buffer < 0 || buffer >= p->nr_buffers)
		return -EINVAL;
	w = calloc(p->cpus, sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (cpu = 0; cpu < p->cpus && !ret; cpu++)
		ret = walk_init(p, &p->regions[buffer][cpu], &w[cpu], cpu);
	while (!ret) {
		next = -1;
		for (cpu = 0; cpu < p->cpus; cpu++)
			if (w[cpu].data && (next < 0 || w[cpu].ts < w[next].ts))
				next = cpu;
		if (next < 0)
			break;
		rec.ts = w[next].ts;
		rec.cpu = next;
		rec.data = w[next].data;
		rec.size = kbuffer_event_size(w[next].kbuf);
		rec.record_size = kbuffer_curr_size(w[next].kbuf);
		rec.missed_events = kbuffer_missed_events(w[next].kbuf);
		rec.offset = p->regions[buffer][next].offset + w[next].page * p->page_size +
			     kbuffer_curr_offset(w[next].kbuf);
		if (cb(h, &rec, next, data) < 0)
			break;
		w[next].data = kbuffer_next_event(w[next].kbuf, &w[next].ts);
		if (!w[next].data)
			next_page(p, &w[next], next);
		/* let the kernel drop pages read long ago: the resident set stays small */
		if (!(++count & 0x3ffff))
			for (cpu = 0; cpu < p->cpus; cpu++)
				if (w[cpu].map && w[cpu].page)
					madvise(w[cpu].map, w[cpu].page * p->page_size,
						MADV_DONTNEED);
	}
	for (cpu = 0; cpu < p->cpus; cpu++)
		walk_free(&w[cpu]);
	free(w);
	return ret;
}
