// SPDX-License-Identifier: LGPL-2.1
/*
 * Walking the ring-buffer pages of a trace.dat, each checked before a byte of
 * it is trusted.
 *
 * Each CPU's data is read with pread() into a buffer of its own, reused from
 * window to window (uncompressed data), or decompressed a chunk at a time
 * ({u32 chunks, then per chunk u32 size, u32 uncompressed size, data}) with a
 * decompression context made once. Records are merged across CPUs by
 * timestamp through a heap of CPUs, into one reused struct tep_record. The
 * timestamps are the file's, converted as its options ask (TSC2NSEC, DATE,
 * OFFSET: atag_tracedat_ts()) before the merge compares them, as libtracecmd
 * orders them.
 *
 * A page is {u64 timestamp, long commit (bit 31: events were lost before it,
 * bit 30: their count is stored after the data), data}; its events are decoded
 * here, as libtraceevent's kbuffer decodes them (the same records, sizes,
 * timestamps, time extends, absolute time stamps, paddings and lost-event
 * counts: tests/t-pages.sh compares both walks), but nothing a page says is
 * trusted: its commit must fit the page, the lost-event count too, every event
 * header and every record must lie within the commit, a padding must move
 * forward. A page that breaks a rule is skipped from that point, said once
 * through the warning hook and counted (atag_pages_damaged()); the walk goes on
 * with the next page, whose timestamp is absolute. So no input can make a walk
 * read outside its page, loop, or last longer than the data is long.
 *
 * The data a file holds of a CPU may be shorter than its header claims (a
 * truncated file): the walk reads what there is, and the records of the last,
 * partial page that lie wholly before the cut. Memory: a window of at most
 * MAX_WINDOW bytes per CPU with data (and of at most the data the file holds of
 * it), or one decompressed chunk per CPU, within a budget that grows with the
 * file's size only.
 *
 * A look-ahead hook (atag_pages_set_ahead()) may be told the records of the page
 * that follows a CPU's page at hand, when the walk enters a page and the next one
 * is already read: they come to the callback a page's worth of records later,
 * time enough for the hook to prefetch what they will need. That walk is quiet:
 * a rule it finds broken ends it without a word; the real walk says it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "atag-pages.h"
#include "atag-tracedat.h"

#define MAX_WINDOW	(128U << 10)	/* bytes read at a time for one CPU */
#define WINDOW_BUDGET	(16U << 20)	/* for all CPUs' windows together */
#define MAX_CHUNK	(64U << 20)	/* uncompressed size of one chunk */
#define CHUNK_BUDGET	(64ULL << 20)	/* plus 4x the file: all CPUs' chunks together */

#define MISSING_EVENTS	(1ULL << 31)
#define MISSING_STORED	(1ULL << 30)
#define COMMIT_MASK	((1U << 27) - 1)
#define TS_SHIFT	27
#define TS_MSB		(0xf8ULL << 56)

enum {
	TYPE_DATA_MAX	= 28,
	TYPE_PADDING	= 29,
	TYPE_TIME_EXTEND = 30,
	TYPE_TIME_STAMP	= 31,
};

struct cpu_walk {
	/* the record at hand; rec NULL once the CPU is done */
	uint64_t			ts;
	const uint8_t			*rec;
	uint32_t			rec_size;
	int32_t				missed;
	/* the page at hand */
	const uint8_t			*data;		/* its events; NULL: none loaded */
	uint32_t			pos;		/* of the next event header */
	uint32_t			size;		/* of its events (commit) */
	int32_t				lost;		/* lost-event count of the page */
	uint64_t			page_off;	/* in the file, for messages ... */
	uint32_t			page_no;	/* ... or the page of the chunk there */
	bool				zipped;
	/* where pages come from */
	const struct atag_cpu_region	*reg;
	uint8_t				*buf;		/* a window of pages, or a chunk */
	size_t				cap;
	uint32_t			nr_pages;	/* in buf */
	uint32_t			next_page;	/* in buf */
	uint32_t			last_len;	/* bytes of the last page in buf */
	uint64_t			next;		/* next file offset to read */
	uint64_t			end;		/* end of what the file holds */
	uint32_t			chunks_left;	/* compressed */
	uint64_t			chunk_off;	/* of the chunk in buf */
	bool				damaged;	/* said once per CPU */
	bool				ahead;		/* a look-ahead's copy: quiet */
	int				cpu;		/* its index in the buffer's list */
};

struct atag_pages {
	struct atag_tracedat	*td;
	void			(*warn)(void *ctx, const char *fmt, va_list ap);
	void			*warn_ctx;
	uint64_t		damaged;
	/* the walk under way */
	const struct atag_buffer_layout	*b;
	unsigned int		ps;		/* page size */
	unsigned int		hdr;		/* page header: u64 timestamp and a long */
	bool			swap;		/* byte order of numbers */
	bool			big;		/* layout of event headers */
	bool			long8;
	bool			convert;	/* the timestamps need atag_tracedat_ts() */
	size_t			window;		/* bytes per read, a multiple of ps */
	uint64_t		done;		/* bytes of the file read */
	uint64_t		total;
	uint8_t			*zin;		/* compressed bytes of one chunk */
	size_t			zin_cap;
	uint64_t		zmem;		/* bytes of chunk buffers */
	atag_pages_ahead_fn	ahead;
	void			*ahead_data;
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

struct atag_pages *atag_pages_alloc(struct atag_tracedat *td,
				    void (*warn)(void *ctx, const char *fmt, va_list ap), void *ctx)
{
	struct atag_pages *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->td = td;
	p->warn = warn;
	p->warn_ctx = ctx;
	return p;
}

void atag_pages_free(struct atag_pages *p)
{
	if (!p)
		return;
	free(p->zin);
	free(p);
}

uint64_t atag_pages_damaged(const struct atag_pages *p)
{
	return p->damaged;
}

void atag_pages_set_ahead(struct atag_pages *p, atag_pages_ahead_fn ahead, void *data)
{
	p->ahead = ahead;
	p->ahead_data = data;
}

double atag_pages_progress(const struct atag_pages *p)
{
	return p->total ? (double)p->done / p->total : 0;
}

/* ------------------------------------------------------------ numbers in pages */

static inline uint32_t ld32(const struct atag_pages *p, const uint8_t *a)
{
	uint32_t v;

	memcpy(&v, a, 4);
	return p->swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t ld64(const struct atag_pages *p, const uint8_t *a)
{
	uint64_t v;

	memcpy(&v, a, 8);
	return p->swap ? __builtin_bswap64(v) : v;
}

static inline uint64_t ld_long(const struct atag_pages *p, const uint8_t *a)
{
	return p->long8 ? ld64(p, a) : ld32(p, a);
}

/* Where the page at hand is, for messages. */
static const char *where(const struct cpu_walk *w, char *buf, size_t len)
{
	if (w->zipped)
		snprintf(buf, len, "page %u of the chunk at offset %llu", w->page_no,
			 (unsigned long long)w->page_off);
	else
		snprintf(buf, len, "the page at offset %llu", (unsigned long long)w->page_off);
	return buf;
}

/* A damaged page or chunk: counted, and said once per CPU. */
static void __attribute__((format(printf, 3, 4)))
damage(struct atag_pages *p, struct cpu_walk *w, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (w->ahead)
		return;
	p->damaged++;
	if (w->damaged)
		return;
	w->damaged = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	say(p, "buffer %s, CPU %d: %s; skipped", p->b->name[0] ? p->b->name : "top",
	    w->reg->cpu, what);
}

/* ------------------------------------------------------------ one page */

/*
 * Load the page at @page (@len bytes of it are there: less than a page only
 * when the file was cut inside it). False if it has no events to read.
 */
static bool load_page(struct atag_pages *p, struct cpu_walk *w, const uint8_t *page,
		      uint32_t len)
{
	uint32_t room = p->ps - p->hdr, size;
	uint64_t commit;
	char at[80];

	w->data = NULL;
	if (len < p->hdr)
		return false;
	w->ts = ld64(p, page);
	commit = ld_long(p, page + 8);
	size = commit & COMMIT_MASK;
	if (size > room) {
		damage(p, w, "%s says it holds %u bytes (at most %u fit)",
		       where(w, at, sizeof(at)), size, room);
		return false;
	}
	w->lost = 0;
	if (commit & MISSING_EVENTS) {
		w->lost = -1;
		if (commit & MISSING_STORED) {
			if (size + (p->long8 ? 8 : 4) > room) {
				damage(p, w, "the lost-event count of %s lies outside it",
				       where(w, at, sizeof(at)));
				return false;
			}
			if (p->hdr + size + (p->long8 ? 8 : 4) <= len)
				/* kbuffer hands it out as an int */
				w->lost = (int32_t)ld_long(p, page + p->hdr + size);
		}
	}
	/* a page cut by the end of the file: the events wholly before the cut */
	if (size > len - p->hdr)
		size = len - p->hdr;
	w->data = page + p->hdr;
	w->size = size;
	w->pos = 0;
	return true;
}

/* Hand out the data record whose @hdr-byte header is at @pos: @len bytes of it. */
static inline bool take(struct cpu_walk *w, uint32_t pos, uint32_t hdr, uint32_t len,
			uint64_t ts)
{
	w->rec = w->data + pos + hdr;
	w->rec_size = len;
	w->missed = pos ? 0 : w->lost;
	w->ts = ts;
	w->pos = pos + hdr + len;
	return true;
}

/*
 * The next record of the page at hand into w->rec; false at the end of the
 * page, or where the page breaks a rule (then damaged).
 */
static bool page_next(struct atag_pages *p, struct cpu_walk *w)
{
	const uint8_t *d = w->data;
	uint32_t pos = w->pos, size = w->size, h, type_len, delta, len, left;
	uint64_t ts = w->ts;
	int32_t slen;
	char at[80];

	while (pos < size) {
		left = size - pos;
		if (left < 4)
			goto bad_header;
		h = ld32(p, d + pos);
		if (p->big) {
			type_len = h >> 27;
			delta = h & ((1U << 27) - 1);
		} else {
			type_len = h & 31;
			delta = h >> 5;
		}
		if (type_len && type_len <= TYPE_DATA_MAX) {
			len = type_len * 4;
			if (len > left - 4)
				goto bad_record;
			return take(w, pos, 4, len, ts + delta);
		}
		if (left < 8) {
			/* a padding at the very end reaches past the commit: the page ends */
			if (type_len == TYPE_PADDING)
				break;
			goto bad_header;
		}
		switch (type_len) {
		case 0:
			/* the length word counts itself; the data is 4-byte aligned */
			len = ld32(p, d + pos + 4);
			if (len < 4 || len - 4 > left - 8)
				goto bad_record;
			len = (len - 4 + 3) & ~3U;
			if (len > left - 8)
				goto bad_record;
			return take(w, pos, 8, len, ts + delta);
		case TYPE_PADDING:
			ts += delta;
			slen = (int32_t)ld32(p, d + pos + 4);
			if (slen < 0)
				goto bad_padding;
			if ((uint32_t)slen >= left - 4)
				break;		/* the rest of the page */
			pos += 4 + slen;
			continue;
		case TYPE_TIME_EXTEND:
			ts += ((uint64_t)ld32(p, d + pos + 4) << TS_SHIFT) + delta;
			pos += 8;
			continue;
		default:	/* TYPE_TIME_STAMP */
			ts = (((uint64_t)ld32(p, d + pos + 4) << TS_SHIFT) + delta) | (ts & TS_MSB);
			pos += 8;
			continue;
		}
		break;
	}
	w->data = NULL;
	return false;
bad_header:
	damage(p, w, "an event header at %u of %s runs past its end", pos,
	       where(w, at, sizeof(at)));
	w->data = NULL;
	return false;
bad_record:
	damage(p, w, "a record at %u of %s runs past its end", pos, where(w, at, sizeof(at)));
	w->data = NULL;
	return false;
bad_padding:
	damage(p, w, "a padding at %u of %s has a negative length", pos,
	       where(w, at, sizeof(at)));
	w->data = NULL;
	return false;
}

/* ------------------------------------------------------------ pages of a CPU */

/* Read the next window of an uncompressed CPU's pages; false at the end. */
static bool read_window(struct atag_pages *p, struct cpu_walk *w)
{
	uint64_t want = w->end - w->next;
	ssize_t got;

	if (!want)
		return false;
	if (want > w->cap)
		want = w->cap;
	got = pread(p->td->fd, w->buf, want, w->next);
	if (got <= 0)
		return false;
	p->done += got;
	w->chunk_off = w->next;
	w->next += got;
	w->nr_pages = (got + p->ps - 1) / p->ps;
	w->last_len = got - (uint64_t)(w->nr_pages - 1) * p->ps;
	w->next_page = 0;
	return true;
}

/* Decompress the next chunk of a compressed CPU; false at the end or on damage. */
static bool read_chunk(struct atag_pages *p, struct cpu_walk *w)
{
	uint64_t budget = CHUNK_BUDGET + 4 * p->td->file_size;
	uint32_t zsize, usize;
	uint8_t head[8], *nb;

	while (w->chunks_left) {
		w->chunks_left--;
		if (w->end - w->next < 8 ||
		    pread(p->td->fd, head, 8, w->next) != 8)
			return false;		/* cut short: the truncation is told elsewhere */
		zsize = ld32(p, head);
		usize = ld32(p, head + 4);
		if (zsize > w->end - w->next - 8)
			return false;
		w->chunk_off = w->next;
		w->next += 8 + (uint64_t)zsize;
		p->done += 8 + (uint64_t)zsize;
		w->zipped = false;
		if (!usize || usize % p->ps || usize > MAX_CHUNK) {
			damage(p, w, "a chunk at offset %llu holds %u bytes, not whole pages",
			       (unsigned long long)w->chunk_off, usize);
			continue;
		}
		if (usize > w->cap) {
			if (p->zmem - w->cap + usize > budget) {
				damage(p, w, "a chunk at offset %llu would need more memory than "
				       "the file could fill", (unsigned long long)w->chunk_off);
				return false;
			}
			nb = realloc(w->buf, usize);
			if (!nb)
				return false;
			p->zmem += usize - w->cap;
			w->buf = nb;
			w->cap = usize;
		}
		if (zsize > p->zin_cap) {
			nb = realloc(p->zin, zsize);
			if (!nb)
				return false;
			p->zin = nb;
			p->zin_cap = zsize;
		}
		if (pread(p->td->fd, p->zin, zsize, w->chunk_off + 8) != zsize)
			return false;
		if (atag_tracedat_decompress(p->td, p->zin, zsize, w->buf, usize)) {
			damage(p, w, "cannot decompress the chunk at offset %llu",
			       (unsigned long long)w->chunk_off);
			continue;
		}
		w->nr_pages = usize / p->ps;
		w->last_len = p->ps;
		w->next_page = 0;
		return true;
	}
	return false;
}

/* Tell the look-ahead hook the records of the page after the one @w entered. */
static void look_ahead(struct atag_pages *p, const struct cpu_walk *w)
{
	uint32_t i = w->next_page, len;
	struct cpu_walk a;

	if (!p->ahead(p->ahead_data, w->cpu, NULL, 0) || i >= w->nr_pages)
		return;
	a = *w;
	a.ahead = true;
	len = i == w->nr_pages - 1 ? w->last_len : p->ps;
	if (!load_page(p, &a, w->buf + (size_t)i * p->ps, len))
		return;
	while (page_next(p, &a))
		p->ahead(p->ahead_data, w->cpu, a.rec, a.rec_size);
}

/* Move to the next record of the CPU, across pages; false once it has no more. */
static bool cpu_next(struct atag_pages *p, struct cpu_walk *w, bool compressed)
{
	const uint8_t *page;
	uint32_t i;

	for (;;) {
		if (w->data && page_next(p, w))
			return true;
		if (w->next_page >= w->nr_pages &&
		    !(compressed ? read_chunk(p, w) : read_window(p, w))) {
			w->rec = NULL;
			return false;
		}
		i = w->next_page++;
		page = w->buf + (size_t)i * p->ps;
		w->zipped = compressed;
		w->page_no = i;
		w->page_off = compressed ? w->chunk_off : w->chunk_off + (uint64_t)i * p->ps;
		if (load_page(p, w, page, i == w->nr_pages - 1 ? w->last_len : p->ps) && p->ahead)
			look_ahead(p, w);
	}
}

static int cpu_init(struct atag_pages *p, struct cpu_walk *w, const struct atag_cpu_region *reg,
		    bool compressed)
{
	uint8_t head[4];

	w->reg = reg;
	w->cpu = reg - p->b->cpus;
	w->next = reg->offset;
	w->end = reg->offset + reg->avail;
	p->total += reg->avail;
	if (compressed) {
		if (reg->avail < 4 || pread(p->td->fd, head, 4, reg->offset) != 4)
			return 0;
		w->chunks_left = ld32(p, head);
		w->next += 4;
		p->done += 4;
	} else {
		/* a whole number of pages, no more than the file holds of this CPU */
		w->cap = p->window;
		if (w->cap > reg->avail)
			w->cap = (reg->avail + p->ps - 1) / p->ps * p->ps;
		w->buf = malloc(w->cap);
		if (!w->buf)
			return -ENOMEM;
	}
	cpu_next(p, w, compressed);
	return 0;
}

/* ------------------------------------------------------------ the merge */

/*
 * The heap of the CPUs with records left, earliest first: each entry carries its
 * CPU's timestamp, so a comparison reads the heap alone. Equal timestamps go by
 * CPU number, as libtracecmd takes them.
 */
struct head {
	uint64_t	ts;
	int		cpu;
};

/* The timestamp of @w's record at hand, as the file means it. */
static inline uint64_t ts_of(const struct atag_pages *p, const struct cpu_walk *w)
{
	return p->convert ? atag_tracedat_ts(p->td, w->ts) : w->ts;
}

static inline bool before(const struct head *a, const struct head *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->cpu < b->cpu);
}

static void sift_down(struct head *h, int n, int i)
{
	struct head top = h[i];
	int c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&h[c + 1], &h[c]))
			c++;
		if (!before(&h[c], &top))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = top;
}

int atag_pages_iterate(struct atag_pages *p, int buffer,
		       int (*cb)(const struct tep_record *rec, void *data), void *data)
{
	struct tep_record rec = { .ref_count = 1 };
	const struct atag_buffer_layout *b;
	struct atag_tracedat *td = p->td;
	struct cpu_walk *w;
	int c, n, active, ret = 0;
	struct head *h;

	if (buffer < 0 || buffer >= td->nr_buffers)
		return -EINVAL;
	b = &td->buf[buffer];
	p->b = b;
	p->ps = td->page_size;
	p->long8 = td->rb_long == 8;
	p->hdr = 8 + (p->long8 ? 8 : 4);
	p->swap = td->swap;
	p->big = td->big_endian;
	p->convert = td->convert_ts;
	p->done = p->total = 0;
	p->damaged = 0;
	for (c = active = 0; c < b->nr_cpus; c++)
		active += b->cpus[c].avail > 0;
	p->window = active ? WINDOW_BUDGET / active : MAX_WINDOW;
	if (p->window > MAX_WINDOW)
		p->window = MAX_WINDOW;
	p->window = p->window / p->ps * p->ps;
	if (p->window < p->ps)
		p->window = p->ps;
	w = calloc(b->nr_cpus ? b->nr_cpus : 1, sizeof(*w));
	h = calloc(b->nr_cpus ? b->nr_cpus : 1, sizeof(*h));
	if (!w || !h) {
		ret = -ENOMEM;
		goto out;
	}
	for (c = n = 0; c < b->nr_cpus && !ret; c++) {
		if (!b->cpus[c].avail)
			continue;
		ret = cpu_init(p, &w[c], &b->cpus[c], b->compressed);
		if (w[c].rec)
			h[n++] = (struct head){ .ts = ts_of(p, &w[c]), .cpu = c };
	}
	for (c = n / 2 - 1; c >= 0; c--)
		sift_down(h, n, c);
	while (!ret && n) {
		c = h[0].cpu;
		rec.ts = h[0].ts;
		rec.cpu = c;
		rec.data = (void *)w[c].rec;
		rec.size = w[c].rec_size;
		rec.missed_events = w[c].missed;
		if (cb(&rec, data))
			break;
		if (cpu_next(p, &w[c], b->compressed))
			h[0].ts = ts_of(p, &w[c]);
		else
			h[0] = h[--n];
		sift_down(h, n, 0);
	}
out:
	for (c = 0; w && c < b->nr_cpus; c++) {
		if (b->compressed)
			p->zmem -= w[c].cap;
		free(w[c].buf);
	}
	free(w);
	free(h);
	return ret;
}
