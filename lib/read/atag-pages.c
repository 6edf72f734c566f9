// SPDX-License-Identifier: LGPL-2.1
/*
 * Walking the ring-buffer pages of a trace.dat directly.
 *
 * libtracecmd 1.3.1 allocates and frees a record, and scans every CPU, for each
 * event it hands out; for compressed (version 7) files it also keeps every chunk
 * it decompressed and looks chunks up in a list, so time grows with the square
 * of the file and memory with its size. Here each CPU's pages are walked with
 * libtraceevent's kbuffer straight from the file (mapped a 1 MiB window at a
 * time, or decompressed one chunk at a time with zstd or zlib), records are merged across CPUs by
 * timestamp into one reused struct tep_record, and a record carries what
 * libtracecmd's would: ts, cpu, data, size and missed_events (on the first
 * record of a flagged page).
 *
 * Only files whose timestamps libtracecmd would not convert are walked here: no
 * DATE, OFFSET, TIME_SHIFT, GUEST, TSC2NSEC or CPUCOUNT option, no latency
 * buffer, and no option this code does not know. Everything else goes through
 * libtracecmd. A page whose commit size is larger than a page stops its CPU, as
 * in libtracecmd, with the same warning, said through the hook given to
 * atag_pages_open() (the walker knows nothing of libtracecmd). tests/t-pages.sh
 * compares both walks record by record.
 *
 * Layouts (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)): v6 lists each buffer's CPU
 * data in "flyrecord" tables; v7 in BUFFER options inside options sections,
 * which may be compressed ({u32 size, u32 uncompressed size, data}); compressed
 * CPU data is {u32 chunks, then per chunk u32 size, u32 uncompressed size, data}.
 */
#include <stdint.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <zlib.h>
#include <zstd.h>

#include "atag-pages.h"

enum {
	OPT_DONE, OPT_DATE, OPT_CPUSTAT, OPT_BUFFER, OPT_TRACECLOCK, OPT_UNAME, OPT_HOOK,
	OPT_OFFSET, OPT_CPUCOUNT, OPT_VERSION, OPT_PROCMAPS, OPT_TRACEID, OPT_TIME_SHIFT,
	OPT_GUEST, OPT_TSC2NSEC, OPT_STRINGS, OPT_HEADER_INFO, OPT_FTRACE_EVENTS,
	OPT_EVENT_FORMATS, OPT_KALLSYMS, OPT_PRINTK, OPT_CMDLINES,
};

#define MAX_BUFFERS	64
#define MAX_SECTIONS	64
#define SEC_COMPRESSED	1
#define MAX_CHUNK	(64U << 20)

enum algo { ALGO_NONE, ALGO_ZSTD, ALGO_ZLIB };

struct cpu_region {
	int		cpu;
	uint64_t	offset;
	uint64_t	size;
};

struct buffer_map {
	char			*name;
	int			nr;
	struct cpu_region	*r;
	bool			compressed;
};

struct atag_pages {
	int			fd;
	int			long_size;
	bool			big_endian;
	unsigned int		page_size;
	enum algo		algo;
	int			nr_buffers;
	struct buffer_map	buf[MAX_BUFFERS];
	/* progress of the walk under way, in bytes of the file */
	uint64_t		done;
	uint64_t		total;
	bool			walkable;	/* false: header read, but libtracecmd must walk */
	/* where the kallsyms text is: v6 plain, v7 a section (maybe compressed) */
	uint64_t		kallsyms_off;
	uint64_t		kallsyms_len;
	bool			kallsyms_section;
	/* where the walk says what it skipped */
	void			(*warn)(void *ctx, const char *fmt, va_list ap);
	void			*warn_ctx;
};

static void __attribute__((format(printf, 2, 3)))
say(struct atag_pages *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->warn)
		return;
	va_start(ap, fmt);
	p->warn(p->warn_ctx, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ reading numbers */

struct reader {
	int		fd;
	const char	*mem;		/* or from memory */
	uint64_t	len;
	uint64_t	pos;
	bool		swap;
	bool		bad;
};

static void rd(struct reader *r, void *buf, size_t n)
{
	if (r->bad)
		return;
	if (r->mem) {
		if (r->pos + n > r->len)
			r->bad = true;
		else
			memcpy(buf, r->mem + r->pos, n);
	} else if (pread(r->fd, buf, n, r->pos) != (ssize_t)n) {
		r->bad = true;
	}
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

/* A NUL-terminated string into @buf (truncated to @len); false if unterminated. */
static bool rd_str(struct reader *r, char *buf, size_t len)
{
	size_t i = 0;
	char c;

	do {
		rd(r, &c, 1);
		if (r->bad)
			return false;
		if (i < len - 1)
			buf[i++] = c;
	} while (c);
	buf[i] = '\0';
	return true;
}

static int decompress(enum algo algo, const void *in, size_t in_len, void *out, size_t out_len)
{
	uLongf n = out_len;
	size_t z;

	switch (algo) {
	case ALGO_ZSTD:
		z = ZSTD_decompress(out, out_len, in, in_len);
		return ZSTD_isError(z) || z != out_len ? -EIO : 0;
	case ALGO_ZLIB:
		return uncompress(out, &n, in, in_len) == Z_OK && n == out_len ? 0 : -EIO;
	default:
		return -EINVAL;
	}
}

/* ------------------------------------------------------------ version 6 */

/* Skip the header sections up to the CPU count; returns it. */
static int v6_skip_sections(struct reader *r, struct atag_pages *p)
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
		char name[256];

		rd_str(r, name, sizeof(name));
		events = rd_num(r, 4);
		for (j = 0; j < events && !r->bad; j++)
			r->pos += rd_num(r, 8);
	}
	p->kallsyms_len = rd_num(r, 4);
	p->kallsyms_off = r->pos;
	r->pos += p->kallsyms_len;
	r->pos += rd_num(r, 4);			/* printk formats */
	r->pos += rd_num(r, 8);			/* saved cmdlines */
	return rd_num(r, 4);
}

/* A "flyrecord\0" CPU table at the reader's position. */
static bool v6_table(struct reader *r, struct buffer_map *b, int cpus)
{
	char word[10];
	int c;

	rd(r, word, 10);
	if (r->bad || memcmp(word, "flyrecord", 10))
		return false;
	b->r = calloc(cpus, sizeof(*b->r));
	if (!b->r)
		return false;
	b->nr = cpus;
	for (c = 0; c < cpus; c++) {
		b->r[c].cpu = c;
		b->r[c].offset = rd_num(r, 8);
		b->r[c].size = rd_num(r, 8);
	}
	return !r->bad;
}

/*
 * Options after which this walk still reads timestamps and CPU data as libtracecmd
 * would. CPUCOUNT sets the size of the v6 flyrecord tables (see v6_options());
 * v7 BUFFER options list their CPUs themselves.
 */
static bool harmless_option(unsigned int id, int version)
{
	if (id == OPT_CPUCOUNT)
		return version == 7;
	switch (id) {
	case OPT_CPUSTAT: case OPT_TRACECLOCK: case OPT_UNAME: case OPT_HOOK:
	case OPT_VERSION: case OPT_PROCMAPS: case OPT_TRACEID: case OPT_STRINGS:
	case OPT_HEADER_INFO: case OPT_FTRACE_EVENTS: case OPT_EVENT_FORMATS:
	case OPT_KALLSYMS: case OPT_PRINTK: case OPT_CMDLINES:
		return true;
	default:
		return false;	/* DATE, OFFSET, CPUCOUNT, time sync, latency, unknown */
	}
}

static bool v6_options(struct reader *r, struct atag_pages *p, uint64_t *buf_off, int cpus)
{
	unsigned int id;
	uint32_t size;
	uint64_t next;

	for (;;) {
		id = rd_num(r, 2);
		if (r->bad)
			return false;
		if (id == OPT_DONE)
			return true;
		size = rd_num(r, 4);
		next = r->pos + size;
		if (id == OPT_BUFFER) {
			struct buffer_map *b = &p->buf[p->nr_buffers];
			char name[256];

			if (p->nr_buffers >= MAX_BUFFERS)
				return false;
			buf_off[p->nr_buffers] = rd_num(r, 8);
			if (!rd_str(r, name, sizeof(name)))
				return false;
			b->name = strdup(name);
			p->nr_buffers++;
		} else if (id == OPT_CPUCOUNT) {
			/* the tables have that many CPUs: fine when it is the header's count */
			if (size != 4 || rd_num(r, 4) != (uint64_t)cpus)
				return false;
		} else if (!harmless_option(id, 6)) {
			p->walkable = false;
		}
		r->pos = next;
	}
}

static bool v6_open(struct reader *r, struct atag_pages *p)
{
	uint64_t buf_off[MAX_BUFFERS];
	char word[10];
	int cpus, i;

	cpus = v6_skip_sections(r, p);
	if (r->bad || cpus < 1 || cpus > 4096)
		return false;
	p->buf[0].name = strdup("");
	p->nr_buffers = 1;
	rd(r, word, 10);
	if (!memcmp(word, "options  ", 10)) {
		if (!v6_options(r, p, buf_off, cpus))
			return false;
	} else {
		r->pos -= 10;
	}
	if (!v6_table(r, &p->buf[0], cpus))
		return false;
	for (i = 1; i < p->nr_buffers; i++) {
		r->pos = buf_off[i];
		if (!v6_table(r, &p->buf[i], cpus))
			return false;
	}
	return true;
}

/* ------------------------------------------------------------ version 7 */

/* A section's content, decompressed if need be (malloc'ed), and its flags. */
static char *v7_section(struct atag_pages *p, struct reader *r, uint64_t off, uint64_t *len,
			unsigned int *flags)
{
	uint32_t zsize, usize;
	uint64_t size;
	char *in, *out;

	r->pos = off;
	rd_num(r, 2);				/* id */
	*flags = rd_num(r, 2);
	rd_num(r, 4);				/* description */
	size = rd_num(r, 8);
	if (r->bad || size > MAX_CHUNK)
		return NULL;
	if (!(*flags & SEC_COMPRESSED)) {
		out = malloc(size ? size : 1);
		if (out)
			rd(r, out, size);
		*len = size;
		return out;
	}
	zsize = rd_num(r, 4);
	usize = rd_num(r, 4);
	if (r->bad || zsize > MAX_CHUNK || usize > MAX_CHUNK)
		return NULL;
	in = malloc(zsize ? zsize : 1);
	out = malloc(usize ? usize : 1);
	if (in && out) {
		rd(r, in, zsize);
		if (!r->bad && !decompress(p->algo, in, zsize, out, usize)) {
			free(in);
			*len = usize;
			return out;
		}
	}
	free(in);
	free(out);
	return NULL;
}

static bool v7_buffer_option(struct reader *o, struct atag_pages *p)
{
	struct buffer_map *b = &p->buf[p->nr_buffers];
	char name[256], clock[64];
	uint32_t cpus, c;
	uint64_t sec;

	if (p->nr_buffers >= MAX_BUFFERS)
		return false;
	sec = rd_num(o, 8);
	if (!rd_str(o, name, sizeof(name)) || !rd_str(o, clock, sizeof(clock)))
		return false;
	if (rd_num(o, 4) != p->page_size)
		return false;
	cpus = rd_num(o, 4);
	if (o->bad || cpus > 4096)
		return false;
	b->r = calloc(cpus ? cpus : 1, sizeof(*b->r));
	if (!b->r)
		return false;
	b->nr = cpus;
	b->name = strdup(name);
	p->nr_buffers++;
	for (c = 0; c < cpus; c++) {
		b->r[c].cpu = rd_num(o, 4);
		b->r[c].offset = rd_num(o, 8);
		b->r[c].size = rd_num(o, 8);
	}
	/* the flyrecord section header says whether the CPU data is compressed */
	b->compressed = false;
	if (!o->bad) {
		struct reader r = { .fd = p->fd, .pos = sec + 2, .swap = o->swap };

		b->compressed = rd_num(&r, 2) & SEC_COMPRESSED;
		if (r.bad)
			return false;
	}
	return !o->bad;
}

/* Parse the options of one section; sets *@next to the next section (0: none). */
static bool v7_options(struct atag_pages *p, const char *data, uint64_t len, bool swap,
		       uint64_t *next)
{
	struct reader o = { .mem = data, .len = len, .swap = swap };
	unsigned int id;
	uint64_t end;

	*next = 0;
	while (o.pos < len) {
		id = rd_num(&o, 2);
		end = o.pos + 4 + rd_num(&o, 4);
		if (o.bad)
			return false;
		if (id == OPT_DONE) {
			*next = rd_num(&o, 8);
			return !o.bad;
		}
		if (id == OPT_BUFFER) {
			if (!v7_buffer_option(&o, p))
				return false;
		} else if (id == OPT_KALLSYMS) {
			p->kallsyms_off = rd_num(&o, 8);
			p->kallsyms_section = true;
		} else if (!harmless_option(id, 7)) {
			p->walkable = false;
		}
		o.pos = end;
	}
	return true;
}

static bool v7_open(struct reader *r, struct atag_pages *p)
{
	char name[64], version[64];
	unsigned int flags;
	uint64_t off, len;
	bool ok = true;
	char *data;
	int n;

	if (!rd_str(r, name, sizeof(name)) || !rd_str(r, version, sizeof(version)))
		return false;
	if (!strcmp(name, "none"))
		p->algo = ALGO_NONE;
	else if (!strcmp(name, "zstd"))
		p->algo = ALGO_ZSTD;
	else if (!strcmp(name, "zlib"))
		p->algo = ALGO_ZLIB;
	else
		return false;
	off = rd_num(r, 8);
	for (n = 0; off && ok && n < MAX_SECTIONS; n++) {
		data = v7_section(p, r, off, &len, &flags);
		if (!data)
			return false;
		ok = v7_options(p, data, len, r->swap, &off);
		free(data);
	}
	return ok && !off && p->nr_buffers > 0;
}

/* ------------------------------------------------------------ opening */

struct atag_pages *atag_pages_open(int fd, void (*warn)(void *ctx, const char *fmt, va_list ap),
				   void *ctx)
{
	struct reader r = { .fd = fd };
	struct atag_pages *p;
	char head[18];
	bool ok;

	rd(&r, head, sizeof(head));
	if (r.bad || memcmp(head + 3, "tracing", 7) || head[11] || head[12] > 1)
		return NULL;
	if (head[10] != '6' && head[10] != '7')
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->fd = fd;
	p->warn = warn;
	p->warn_ctx = ctx;
	p->big_endian = head[12];
	p->long_size = head[13];
	r.swap = p->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	r.pos = 14;
	p->page_size = rd_num(&r, 4);
	if (r.bad || p->page_size < 64 || p->page_size > MAX_CHUNK ||
	    (p->long_size != 4 && p->long_size != 8)) {
		atag_pages_close(p);
		return NULL;
	}
	p->walkable = true;
	ok = head[10] == '6' ? v6_open(&r, p) : v7_open(&r, p);
	if (!ok) {
		atag_pages_close(p);
		return NULL;
	}
	return p;
}

void atag_pages_close(struct atag_pages *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nr_buffers; i++) {
		free(p->buf[i].name);
		free(p->buf[i].r);
	}
	free(p);
}

int atag_pages_find(const struct atag_pages *p, const char *name)
{
	int i;

	if (!p->walkable)
		return -1;
	for (i = 0; i < p->nr_buffers; i++)
		if (p->buf[i].name && !strcmp(p->buf[i].name, name))
			return i;
	return -1;
}

/* ------------------------------------------------------------ walking */

#define MAP_WINDOW	(1UL << 20)

struct cpu_walk {
	struct atag_pages	*p;
	const struct cpu_region	*reg;
	struct kbuffer		*kbuf;
	/*
	 * The pages at hand: one decompressed chunk, or a window of the region mapped
	 * (MAP_WINDOW bytes, so that what the kernel maps ahead of the reader, whole
	 * large folios, stays within it: the resident set does not follow the file).
	 */
	char			*pages;		/* the chunk, or page win_first in the window */
	uint64_t		nr_pages;	/* of the chunk, or of the whole region */
	uint64_t		page;		/* in pages; loaded in kbuf */
	bool			mapped;
	void			*win_base;	/* the mapping, from a system page boundary */
	size_t			win_len;
	uint64_t		win_first;	/* first page of the region in the window */
	uint64_t		win_pages;
	/* compressed: what is left of the chunk list */
	uint32_t		chunks_left;
	uint64_t		next_chunk;	/* file offset */
	size_t			chunk_cap;
	unsigned long long	ts;		/* of the record at hand */
	void			*data;		/* NULL: this CPU is done */
};

/* Decompress the next chunk of a compressed CPU; false at the end or on error. */
static bool next_chunk(struct cpu_walk *w)
{
	struct reader r = { .fd = w->p->fd, .pos = w->next_chunk,
			    .swap = w->p->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) };
	uint32_t zsize, usize;
	char *in;

	if (!w->chunks_left)
		return false;
	zsize = rd_num(&r, 4);
	usize = rd_num(&r, 4);
	if (r.bad || zsize > MAX_CHUNK || usize > MAX_CHUNK || usize % w->p->page_size) {
		say(w->p, "bad compressed chunk on CPU %d", w->reg->cpu);
		return false;
	}
	if (usize > w->chunk_cap) {
		free(w->pages);
		w->pages = malloc(usize);
		w->chunk_cap = w->pages ? usize : 0;
		if (!w->pages)
			return false;
	}
	in = malloc(zsize ? zsize : 1);
	if (!in)
		return false;
	rd(&r, in, zsize);
	if (r.bad || decompress(w->p->algo, in, zsize, w->pages, usize)) {
		say(w->p, "cannot decompress a chunk on CPU %d", w->reg->cpu);
		free(in);
		return false;
	}
	free(in);
	w->p->done += zsize + 8;
	w->nr_pages = usize / w->p->page_size;
	w->page = (uint64_t)-1;
	w->next_chunk = r.pos;
	w->chunks_left--;
	return true;
}

/* The address of page w->page of a mapped region: the window moves when it must. */
static char *mapped_page(struct cpu_walk *w)
{
	uint64_t ps = w->p->page_size, off, start, n;
	size_t sys = sysconf(_SC_PAGESIZE);
	void *base;

	if (w->win_base && w->page - w->win_first < w->win_pages)
		return w->pages + (w->page - w->win_first) * ps;
	if (w->win_base)
		munmap(w->win_base, w->win_len);
	w->win_base = NULL;
	n = MAP_WINDOW / ps ? MAP_WINDOW / ps : 1;
	if (n > w->nr_pages - w->page)
		n = w->nr_pages - w->page;
	off = w->reg->offset + w->page * ps;
	start = off - off % sys;
	w->win_len = off - start + n * ps;
	base = mmap(NULL, w->win_len, PROT_READ, MAP_PRIVATE, w->p->fd, start);
	if (base == MAP_FAILED) {
		say(w->p, "cannot map the data of CPU %d: %s", w->reg->cpu, strerror(errno));
		return NULL;
	}
	w->win_base = base;
	w->pages = (char *)base + (off - start);
	w->win_first = w->page;
	w->win_pages = n;
	return w->pages;
}

/* Load the next page with events; false at the end or on a bad page. */
static bool next_page(struct cpu_walk *w)
{
	char *page;

	for (;;) {
		if (++w->page >= w->nr_pages &&
		    (w->mapped || !next_chunk(w) || ++w->page >= w->nr_pages))
			return false;
		if (w->mapped)
			w->p->done += w->p->page_size;
		page = w->mapped ? mapped_page(w) : w->pages + w->page * w->p->page_size;
		if (!page)
			return false;
		kbuffer_load_subbuffer(w->kbuf, page);
		if ((unsigned int)kbuffer_subbuffer_size(w->kbuf) > w->p->page_size) {
			say(w->p, "bad page read, with size of %d on CPU %d",
		    kbuffer_subbuffer_size(w->kbuf), w->reg->cpu);
			return false;
		}
		w->data = kbuffer_read_event(w->kbuf, &w->ts);
		if (w->data)
			return true;
	}
}

static int walk_init(struct atag_pages *p, bool compressed, const struct cpu_region *reg,
		     struct cpu_walk *w)
{
	struct reader r = { .fd = p->fd, .pos = reg->offset,
			    .swap = p->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) };

	w->p = p;
	w->reg = reg;
	w->page = (uint64_t)-1;
	w->data = NULL;
	if (!reg->size)
		return 0;
	w->kbuf = kbuffer_alloc(p->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				p->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!w->kbuf)
		return -ENOMEM;
	if (compressed) {
		w->chunks_left = rd_num(&r, 4);
		w->next_chunk = r.pos;
		if (r.bad)
			return -EIO;
	} else {
		w->mapped = true;
		w->nr_pages = reg->size / p->page_size;
	}
	next_page(w);
	return 0;
}

static void walk_free(struct cpu_walk *w)
{
	if (w->kbuf)
		kbuffer_free(w->kbuf);
	if (w->win_base)
		munmap(w->win_base, w->win_len);
	else if (!w->mapped)
		free(w->pages);
}

int atag_pages_iterate(struct atag_pages *p, int buffer,
		       int (*cb)(const struct tep_record *rec, void *data), void *data)
{
	struct tep_record rec = { .ref_count = 1 };
	const struct buffer_map *b;
	int c, next, ret = 0;
	struct cpu_walk *w;

	if (!p->walkable || buffer < 0 || buffer >= p->nr_buffers)
		return -EINVAL;
	b = &p->buf[buffer];
	w = calloc(b->nr ? b->nr : 1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	p->done = 0;
	p->total = 0;
	for (c = 0; c < b->nr; c++)
		p->total += b->r[c].size;
	for (c = 0; c < b->nr && !ret; c++)
		ret = walk_init(p, b->compressed, &b->r[c], &w[c]);
	while (!ret) {
		next = -1;
		for (c = 0; c < b->nr; c++)
			if (w[c].data && (next < 0 || w[c].ts < w[next].ts))
				next = c;
		if (next < 0)
			break;
		rec.ts = w[next].ts;
		rec.cpu = b->r[next].cpu;
		rec.data = w[next].data;
		rec.size = kbuffer_event_size(w[next].kbuf);
		rec.missed_events = kbuffer_missed_events(w[next].kbuf);
		if (cb(&rec, data))
			break;
		w[next].data = kbuffer_next_event(w[next].kbuf, &w[next].ts);
		if (!w[next].data)
			next_page(&w[next]);
	}
	for (c = 0; c < b->nr; c++)
		walk_free(&w[c]);
	free(w);
	return ret;
}


double atag_pages_progress(const struct atag_pages *p)
{
	return p->total ? (double)p->done / p->total : 0;
}

char *atag_pages_kallsyms(struct atag_pages *p, size_t *len)
{
	struct reader r = { .fd = p->fd,
			    .swap = p->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) };
	unsigned int flags;
	uint64_t n;
	char *text;

	if (p->kallsyms_section) {
		text = v7_section(p, &r, p->kallsyms_off, &n, &flags);
		/* the section holds u32 size + text */
		if (!text || n < 4) {
			free(text);
			return NULL;
		}
		struct reader m = { .mem = text, .len = n, .swap = r.swap };
		uint64_t size = rd_num(&m, 4);

		*len = size < n - 4 ? size : n - 4;
		memmove(text, text + 4, *len);
		text[*len] = '\0';		/* there is room: the size field went */
		return text;
	}
	if (!p->kallsyms_len || p->kallsyms_len > MAX_CHUNK * 4)
		return NULL;
	text = malloc(p->kallsyms_len + 1);
	r.pos = p->kallsyms_off;
	if (text)
		rd(&r, text, p->kallsyms_len);
	if (!text || r.bad) {
		free(text);
		return NULL;
	}
	text[p->kallsyms_len] = '\0';
	*len = p->kallsyms_len;
	return text;
}

void atag_pages_set_walkable(struct atag_pages *p, bool walkable)
{
	p->walkable = p->walkable && walkable;
}
