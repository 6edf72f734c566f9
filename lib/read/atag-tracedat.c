// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading a trace.dat's headers once: the layout of its sections and buffers,
 * and the tep its records are decoded with. See atag-tracedat.h.
 *
 * Layouts (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)): version 6 puts its
 * metadata in a fixed order after the file header and lists each buffer's CPU
 * data in "flyrecord" tables; version 7 keeps it in sections (each maybe
 * compressed: {u32 size, u32 uncompressed size, data}) reached from chains of
 * options sections, and lists the CPU data in BUFFER options.
 *
 * The tep gets what libtracecmd 1.3.1 gives it when it opens a file with
 * TRACECMD_FL_LOAD_NO_PLUGINS: byte orders, long size, the header page, the
 * ftrace and event formats, the printk formats, the saved comms, the CPU count;
 * kallsyms go into an atag_modules table installed as its function resolver
 * (lib/read/atag-symbols.c), which answers as libtraceevent's own table would.
 *
 * Every count, size and offset is checked against the file (or the section it
 * is read from) before it is used: a loop over counted entries consumes bytes
 * of the file each turn, so none runs longer than the file is; no allocation is
 * larger than a piece of metadata may be (MAX_BLOB), or than the file could fill.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <zlib.h>
#include <zstd.h>

#include "atag-symbols.h"
#include "atag-tracedat.h"

enum {
	OPT_DONE, OPT_DATE, OPT_CPUSTAT, OPT_BUFFER, OPT_TRACECLOCK, OPT_UNAME, OPT_HOOK,
	OPT_OFFSET, OPT_CPUCOUNT, OPT_VERSION, OPT_PROCMAPS, OPT_TRACEID, OPT_TIME_SHIFT,
	OPT_GUEST, OPT_TSC2NSEC, OPT_STRINGS, OPT_HEADER_INFO, OPT_FTRACE_EVENTS,
	OPT_EVENT_FORMATS, OPT_KALLSYMS, OPT_PRINTK, OPT_CMDLINES, OPT_BUFFER_TEXT,
};

#define MAX_BLOB	(64U << 20)	/* one piece of metadata, or one section */
#define MAX_SECTIONS	64		/* options sections chained in a v7 file */
#define MAX_BUFFERS	256
#define SEC_COMPRESSED	1

/* ------------------------------------------------------------ reading, bounded */

#define CACHE_SIZE	(16U << 10)

/* What was last read of the file, for the many small reads of its headers. */
struct cache {
	char		buf[CACHE_SIZE];
	uint64_t	off;
	size_t		len;
};

/*
 * Bytes from the file (pread(), through a cache) or from memory, all reads
 * bounded; @bad once one failed.
 */
struct src {
	int		fd;
	struct cache	*cache;		/* of the file; NULL: read directly */
	const char	*mem;		/* NULL: the file */
	uint64_t	len;		/* of the memory, or of the file */
	uint64_t	pos;
	bool		swap;
	bool		bad;
};

static bool rd_file(struct src *s, void *buf, uint64_t n)
{
	struct cache *c = s->cache;
	ssize_t got;

	if (c && n <= CACHE_SIZE) {
		if (s->pos < c->off || s->pos + n > c->off + c->len) {
			got = pread(s->fd, c->buf, CACHE_SIZE, s->pos);
			c->off = s->pos;
			c->len = got > 0 ? got : 0;
			if (n > c->len)
				return false;
		}
		memcpy(buf, c->buf + (s->pos - c->off), n);
		return true;
	}
	return pread(s->fd, buf, n, s->pos) == (ssize_t)n;
}

static void rd(struct src *s, void *buf, uint64_t n)
{
	if (s->bad)
		return;
	if (n > s->len || s->pos > s->len - n) {
		s->bad = true;
		return;
	}
	if (s->mem)
		memcpy(buf, s->mem + s->pos, n);
	else if (!rd_file(s, buf, n))
		s->bad = true;
	s->pos += n;
}

static uint64_t rd_num(struct src *s, int size)
{
	uint64_t v64 = 0;
	uint32_t v32 = 0;
	uint16_t v16 = 0;

	switch (size) {
	case 2:
		rd(s, &v16, 2);
		return s->swap ? __builtin_bswap16(v16) : v16;
	case 4:
		rd(s, &v32, 4);
		return s->swap ? __builtin_bswap32(v32) : v32;
	default:
		rd(s, &v64, 8);
		return s->swap ? __builtin_bswap64(v64) : v64;
	}
}

/* Skip @n bytes, which must lie within the source. */
static void skip(struct src *s, uint64_t n)
{
	if (n > s->len || s->pos > s->len - n)
		s->bad = true;
	else
		s->pos += n;
}

/* A NUL-terminated string into @buf (cut to @len); false if it does not end. */
static bool rd_str(struct src *s, char *buf, size_t len)
{
	size_t i = 0;
	char c;

	do {
		rd(s, &c, 1);
		if (s->bad)
			return false;
		if (i < len - 1)
			buf[i++] = c;
	} while (c);
	buf[i] = '\0';
	return true;
}

/* @n bytes, malloc'ed and NUL-terminated; NULL if they are not there. */
static char *rd_blob(struct src *s, uint64_t n)
{
	char *b;

	if (n > MAX_BLOB || n > s->len || s->pos > s->len - n) {
		s->bad = true;
		return NULL;
	}
	b = malloc(n + 1);
	if (!b) {
		s->bad = true;
		return NULL;
	}
	rd(s, b, n);
	if (s->bad) {
		free(b);
		return NULL;
	}
	b[n] = '\0';
	return b;
}

int atag_tracedat_decompress(struct atag_tracedat *td, const void *in, size_t in_len, void *out,
			     size_t out_len)
{
	z_stream *z = td->zlib;
	size_t n;

	switch (td->algo) {
	case ATAG_ALGO_ZSTD:
		if (!td->zstd && !(td->zstd = ZSTD_createDCtx()))
			return -ENOMEM;
		n = ZSTD_decompressDCtx(td->zstd, out, out_len, in, in_len);
		return ZSTD_isError(n) || n != out_len ? -EIO : 0;
	case ATAG_ALGO_ZLIB:
		if (!z) {
			z = calloc(1, sizeof(*z));
			if (!z)
				return -ENOMEM;
			if (inflateInit(z) != Z_OK) {
				free(z);
				return -ENOMEM;
			}
			td->zlib = z;
		} else if (inflateReset(z) != Z_OK) {
			return -EIO;
		}
		if (in_len > UINT32_MAX || out_len > UINT32_MAX)
			return -EIO;
		z->next_in = (Bytef *)in;
		z->avail_in = in_len;
		z->next_out = out;
		z->avail_out = out_len;
		return inflate(z, Z_FINISH) == Z_STREAM_END && !z->avail_out ? 0 : -EIO;
	default:
		return -EINVAL;
	}
}

int atag_tracedat_compress(struct atag_tracedat *td, const void *in, size_t in_len, void **out,
			   size_t *out_len)
{
	uLongf zlen;
	size_t n;
	void *buf;

	switch (td->algo) {
	case ATAG_ALGO_ZSTD:
		n = ZSTD_compressBound(in_len);
		buf = malloc(n);
		if (!buf)
			return -ENOMEM;
		n = ZSTD_compress(buf, n, in, in_len, ZSTD_CLEVEL_DEFAULT);
		if (ZSTD_isError(n)) {
			free(buf);
			return -EIO;
		}
		break;
	case ATAG_ALGO_ZLIB:
		zlen = compressBound(in_len);
		buf = malloc(zlen);
		if (!buf)
			return -ENOMEM;
		if (compress2(buf, &zlen, in, in_len, Z_DEFAULT_COMPRESSION) != Z_OK) {
			free(buf);
			return -EIO;
		}
		n = zlen;
		break;
	default:
		return -EINVAL;
	}
	*out = buf;
	*out_len = n;
	return 0;
}

/* ------------------------------------------------------------ what the tep gets */

struct parse {
	struct atag_tracedat	*td;
	struct cache		*cache;
	char			*err;
	size_t			errlen;
	bool			header_done;
	/* v7: the section v7_section() read last */
	uint64_t		sec_off;
	unsigned int		sec_flags;
	unsigned int		sec_desc;
};

static int __attribute__((format(printf, 2, 3)))
fail(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A note on damaged metadata read around (atag_tracedat.damage); dropped past the last. */
static void __attribute__((format(printf, 2, 3)))
damage(struct parse *ps, const char *fmt, ...)
{
	struct atag_tracedat *td = ps->td;
	va_list ap;
	char *s;
	int n;

	if (td->nr_damage >= ATAG_MAX_DAMAGE)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n >= 0)
		td->damage[td->nr_damage++] = s;
}

/*
 * Whether the field part of a format is one libtraceevent 1.7.1 may be given:
 * printable ASCII lines (tabs too), each '[' closed on its line. Its tokenizer
 * hands NULL to strcmp() on other bytes and on an array size left open (fuzzing
 * found it); the kernel writes only such text.
 */
static bool plain_format(const char *text, size_t n)
{
	bool open = false;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = text[i];

		if (c == '\n') {
			if (open)
				return false;
		} else if (c == '[') {
			if (open)
				return false;
			open = true;
		} else if (c == ']') {
			if (!open)
				return false;
			open = false;
		} else if ((c < 0x20 && c != '\t') || c > 0x7e) {
			return false;
		}
	}
	return !open;
}

/* "header_page\0" u64 + text, "header_event\0" u64 + text */
static int read_header_info(struct parse *ps, struct src *s)
{
	struct tep_handle *tep = ps->td->tep;
	char word[13];
	char *text;
	uint64_t n;

	rd(s, word, 12);
	if (s->bad || memcmp(word, "header_page", 12))
		return fail(ps, "corrupt header: no header_page where it belongs");
	n = rd_num(s, 8);
	text = rd_blob(s, n);
	if (!text)
		return fail(ps, "cut inside its headers (the header page)");
	n = strnlen(text, n);
	if (!plain_format(text, n)) {
		free(text);
		return fail(ps, "corrupt header: the header page is not text");
	}
	tep_parse_header_page(tep, text, n, ps->td->long_size);
	free(text);
	rd(s, word, 13);
	if (s->bad || memcmp(word, "header_event", 13))
		return fail(ps, "corrupt header: no header_event where it belongs");
	skip(s, rd_num(s, 8));
	if (s->bad)
		return fail(ps, "cut inside its headers (the header event)");
	/* as libtracecmd: the page's commit field has the size of the kernel's long */
	ps->td->rb_long = tep_get_header_page_size(tep) == 8 ? 8 : 4;
	ps->header_done = true;
	return 0;
}

/*
 * An event format without its print format (an empty one instead), up to its
 * first NUL: this program reads fields, it never prints an event, and
 * libtraceevent 1.7.1's parser of print formats, by far its largest part,
 * dereferences NULL or reads out of bounds on some malformed ones (fuzzing
 * found such). Frees @text on failure; *@n is the new length.
 */
static char *without_print_fmt(char *text, uint64_t *n)
{
	static const char empty[] = "\nprint fmt: \"\"\n";
	char *p, *t;
	size_t keep;

	*n = strnlen(text, *n);
	p = strstr(text, "\nprint fmt:");
	if (!p)
		return text;
	keep = p - text;
	t = realloc(text, keep + sizeof(empty));
	if (!t) {
		free(text);
		return NULL;
	}
	memcpy(t + keep, empty, sizeof(empty));
	*n = keep + sizeof(empty) - 1;
	return t;
}

/* u32 count { u64 + format text }, parsed under @system */
static int read_formats(struct parse *ps, struct src *s, const char *system)
{
	uint64_t count, i, n;
	char *text;

	count = rd_num(s, 4);
	for (i = 0; i < count && !s->bad; i++) {
		n = rd_num(s, 8);
		text = rd_blob(s, n);
		if (!text)
			break;
		/* the one table of names this program prints by (atag-print-flags.h) */
		if (!strcmp(system, "kmem") && !ps->td->gfp_names.nr &&
		    !strncmp(text, "name: mm_page_alloc\n", 20))
			atag_print_flags_parse(text, n, "gfp_flags", &ps->td->gfp_names);
		text = without_print_fmt(text, &n);
		if (!text)
			return -ENOMEM;
		/*
		 * A format libtraceevent cannot parse leaves its event out, as in
		 * libtracecmd; one it must not be given too (its records are malformed).
		 */
		if (plain_format(text, n))
			tep_parse_event(ps->td->tep, text, n, system);
		free(text);
	}
	return s->bad ? fail(ps, "cut inside its headers (the %s formats)", system) : 0;
}

/* u32 systems { "name\0" u32 count { u64 + format text } } */
static int read_event_formats(struct parse *ps, struct src *s)
{
	char name[256];
	uint64_t systems, i;
	int ret;

	systems = rd_num(s, 4);
	for (i = 0; i < systems && !s->bad; i++) {
		if (!rd_str(s, name, sizeof(name)))
			break;
		ret = read_formats(ps, s, name);
		if (ret)
			return ret;
	}
	return s->bad ? fail(ps, "cut inside its headers (the event formats)") : 0;
}

/*
 * u32 size + text. In a version 7 file the text is a section of its own: one that
 * holds fewer bytes than it declares is read as far as it goes, and the cut noted
 * (a version 6 file's next part would start inside it: NULL). *@n is the size read.
 */
static char *rd_text(struct parse *ps, struct src *s, uint64_t *n, const char *what)
{
	uint64_t declared = rd_num(s, 4);

	*n = declared;
	if (!s->bad && s->mem && ps->td->version == 7 && declared > s->len - s->pos) {
		*n = s->len - s->pos;
		damage(ps, "its %s are cut (%llu bytes declared, %llu written): what follows the "
		       "cut is missing", what, (unsigned long long)declared,
		       (unsigned long long)*n);
	}
	return s->bad ? NULL : rd_blob(s, *n);
}

static int read_kallsyms(struct parse *ps, struct src *s)
{
	size_t bad;
	uint64_t n;
	char *text = rd_text(ps, s, &n, "kallsyms");

	if (!text)
		return fail(ps, "cut inside its headers (kallsyms)");
	atag_modules_free(ps->td->kallsyms);
	ps->td->kallsyms = atag_modules_parse(text, n);
	free(text);
	if (!ps->td->kallsyms || atag_modules_attach(ps->td->kallsyms, ps->td->tep))
		return -ENOMEM;
	bad = atag_modules_malformed(ps->td->kallsyms);
	if (bad)
		damage(ps, "its kallsyms hold %zu malformed %s (left out): addresses in the "
		       "symbols they named show as addresses", bad, bad == 1 ? "line" : "lines");
	return 0;
}

/*
 * Keep the lines "ADDR:FORMAT" of a printk formats text, in place; others are
 * dropped (and counted, empty ones aside). libtraceevent 1.7.1's
 * tep_parse_printk_formats() reads past the end of its copy of the text on a line
 * with no character after a ':' (or with no ':' at all) when it is the last one.
 */
static unsigned int printk_lines(char *text)
{
	char *in = text, *out = text, *nl, *colon;
	unsigned int bad = 0;
	size_t n;

	for (; *in; in = nl + (*nl == '\n')) {
		nl = in + strcspn(in, "\n");
		n = nl - in;
		colon = memchr(in, ':', n);
		if (!colon || colon == in || colon + 1 == nl) {
			bad += n > 0;
			continue;
		}
		memmove(out, in, n);
		out += n;
		if (*nl)
			*out++ = '\n';
	}
	*out = '\0';
	return bad;
}

static int read_printk(struct parse *ps, struct src *s)
{
	unsigned int bad;
	uint64_t n;
	char *text = rd_text(ps, s, &n, "printk formats");

	if (!text)
		return fail(ps, "cut inside its headers (printk formats)");
	bad = printk_lines(text);
	if (bad)
		damage(ps, "its printk formats hold %u malformed %s (left out): trace_printk() "
		       "events that use them print raw", bad, bad == 1 ? "line" : "lines");
	if (*text)
		tep_parse_printk_formats(ps->td->tep, text);
	free(text);
	return 0;
}

/* What may follow the saved comms of a v6 file: the CPU count, then one of these. */
static bool v6_after_comms(const char *p, bool swap)
{
	uint32_t cpus;

	memcpy(&cpus, p, 4);
	if (swap)
		cpus = __builtin_bswap32(cpus);
	return cpus && cpus <= ATAG_MAX_CPUS &&
	       (!memcmp(p + 4, "options  ", 10) || !memcmp(p + 4, "flyrecord", 10) ||
		!memcmp(p + 4, "latency  ", 10));
}

/*
 * How many bytes of saved comms a v6 file holds from the source's position, where
 * it declares @n: @n when the CPU count and the word after them follow there, else
 * the end of the first whole line after which they do (within @n and a MiB more);
 * -1 when neither.
 */
static int64_t v6_comms_present(struct src *s, uint64_t n)
{
	uint64_t want = n + 14, win, i;
	char buf[14], *w;
	int64_t found = -1;

	if (want <= s->len && s->pos <= s->len - want) {
		struct src at = *s;

		at.pos += n;
		rd(&at, buf, 14);
		if (!at.bad && v6_after_comms(buf, s->swap))
			return n;
	}
	win = s->len - s->pos;
	if (win > n + (1U << 20) + 14)
		win = n + (1U << 20) + 14;
	if (win > MAX_BLOB || win < 14)
		return -1;
	w = malloc(win);
	if (!w)
		return -1;
	if (pread(s->fd, w, win, s->pos) != (ssize_t)win) {
		free(w);
		return -1;
	}
	for (i = 0; i + 14 <= win && found < 0; i++)
		if ((!i || w[i - 1] == '\n') && v6_after_comms(w + i, s->swap))
			found = i;
	free(w);
	return found;
}

/* Whether @line (@len bytes, no newline) is "PID COMM", as the kernel writes them. */
static bool comm_line(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && line[i] >= '0' && line[i] <= '9')
		i++;
	return i && i < 10 && i + 1 < len && line[i] == ' ' && !memchr(line, '\0', len);
}

/*
 * Keep the whole "PID COMM" lines of @text (@n bytes) in place, each ended by a
 * newline: a cut last line and malformed ones go (libtraceevent 1.7.1 stops at the
 * first line it cannot read, and libtracecmd 1.3.1 registers a stale comm for it).
 * Returns the length kept; *@dropped counts the lines left out, *@lines those kept.
 */
static size_t whole_comm_lines(char *text, size_t n, unsigned int *lines, unsigned int *dropped)
{
	size_t in = 0, out = 0, len;
	char *nl;

	*lines = *dropped = 0;
	while (in < n) {
		nl = memchr(text + in, '\n', n - in);
		len = (nl ? (size_t)(nl - text) : n) - in;
		if (nl && comm_line(text + in, len)) {
			memmove(text + out, text + in, len + 1);
			out += len + 1;
			(*lines)++;
		} else if (len || !nl) {
			(*dropped)++;
		}
		in += len + 1;
	}
	text[out] = '\0';
	return out;
}

/*
 * u64 size + text of "PID COMM" lines. Read around when the size and the bytes
 * disagree (struct atag_comms_layout): what the file holds is read in whole lines,
 * and the damage noted. Only saved comms that cannot be found at all fail.
 */
static int read_cmdlines(struct parse *ps, struct src *s)
{
	struct atag_comms_layout *c = &ps->td->comms;
	int64_t present;
	char left[40];
	size_t kept;
	char *text;

	c->size_at = s->pos;
	c->declared = rd_num(s, 8);
	if (s->bad)
		return fail(ps, "cut inside its headers (saved comms)");
	if (ps->td->version == 6)
		present = v6_comms_present(s, c->declared);
	else
		present = s->len - s->pos;	/* the rest of its section */
	if (present < 0 || (uint64_t)present > MAX_BLOB)
		return fail(ps, "cut inside its headers (saved comms)");
	c->present = present;
	text = rd_blob(s, present);
	if (!text)
		return fail(ps, "cut inside its headers (saved comms)");
	kept = whole_comm_lines(text, present, &c->read, &c->dropped);
	if (*text)
		tep_parse_saved_cmdlines(ps->td->tep, text);
	c->damaged = c->declared != c->present || c->dropped;
	if (!c->damaged) {
		free(text);
		return 0;
	}
	c->text = text;
	c->text_len = kept;
	snprintf(left, sizeof(left), ", %u %s left out", c->dropped,
		 c->dropped == 1 ? "line" : "lines");
	if (c->declared != c->present)
		damage(ps, "its saved comms are cut (%llu bytes declared, %llu written: the "
		       "kernel's table changed while trace-cmd record read it); %u comms read%s: "
		       "tasks without one show as <...>", (unsigned long long)c->declared,
		       (unsigned long long)c->present, c->read, c->dropped ? left : "");
	else
		damage(ps, "its saved comms hold %u malformed %s (left out); %u comms read: "
		       "tasks without one show as <...>", c->dropped,
		       c->dropped == 1 ? "line" : "lines", c->read);
	return 0;
}

/* ------------------------------------------------------------ options */

/*
 * An option's number as libtracecmd reads it: strtoll() of its text, any base
 * ("0x1000", "100"), up to the first byte that is not part of it; modulo 2^64.
 */
static uint64_t option_number(struct src *s, uint64_t size)
{
	char text[64];

	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	rd(s, text, size);
	text[s->bad ? 0 : size] = '\0';
	s->bad = false;		/* the caller checked the option fits */
	return (uint64_t)strtoll(text, NULL, 0);
}

/* TSC2NSEC: u32 mult, u32 shift, u64 offset (which libtracecmd 1.3.1 does not apply) */
static void read_tsc2nsec(struct parse *ps, struct src *s, uint64_t size)
{
	struct atag_tracedat *td = ps->td;
	uint32_t mult, shift;

	/* libtracecmd passes a shorter one over */
	if (size < 16)
		return;
	mult = rd_num(s, 4);
	shift = rd_num(s, 4);
	/* libtracecmd keeps both in ints: the multiplier goes in sign-extended */
	td->tsc_mult = (uint64_t)(int64_t)(int32_t)mult;
	td->tsc_shift = shift;
	/* a shift past 32 is undefined in libtracecmd's arithmetic: no reading is right */
	if (mult && shift > 32 && !td->unreadable)
		td->unreadable = "its TSC2NSEC option shifts the cycles by more than 32 bits";
}

/*
 * An option of the records at @s's position (@size bytes, which the file holds):
 * the timestamps' conversion (DATE, OFFSET, TSC2NSEC), or what makes the records
 * unreadable here. Options of metadata, or that change nothing of the records,
 * are passed over; unknown ones are counted (libtracecmd passes them over too).
 */
static void records_option(struct parse *ps, struct src *s, unsigned int id, uint64_t size)
{
	struct atag_tracedat *td = ps->td;

	switch (id) {
	case OPT_DATE:
		/* the distance of the clock from the time of day, in us */
		td->ts_offset += option_number(s, size) * 1000;
		break;
	case OPT_OFFSET:
		td->ts_offset += option_number(s, size);
		break;
	case OPT_TSC2NSEC:
		read_tsc2nsec(ps, s, size);
		break;
	case OPT_TIME_SHIFT:
		if (size >= 16 && !td->unreadable)
			td->unreadable = "its timestamps are synchronised with a host's (a guest's "
					 "TIME_SHIFT option), which this reader does not do";
		break;
	case OPT_BUFFER_TEXT:
		if (!td->unreadable)
			td->unreadable = "it holds a latency trace (text, no ring-buffer records)";
		break;
	case OPT_CPUSTAT: case OPT_TRACECLOCK: case OPT_UNAME: case OPT_HOOK:
	case OPT_VERSION: case OPT_PROCMAPS: case OPT_TRACEID: case OPT_GUEST:
	case OPT_STRINGS: case OPT_HEADER_INFO: case OPT_FTRACE_EVENTS:
	case OPT_EVENT_FORMATS: case OPT_KALLSYMS: case OPT_PRINTK: case OPT_CMDLINES:
	case OPT_CPUCOUNT:
		break;
	default:
		if (!td->nr_unknown++)
			td->unknown_option = id;
		break;
	}
}

/* A buffer named @name into *@out: 0, -ENOMEM or fail() past MAX_BUFFERS. */
static int new_buffer(struct parse *ps, const char *name, struct atag_buffer_layout **out)
{
	struct atag_tracedat *td = ps->td;
	struct atag_buffer_layout *b;

	if (td->nr_buffers >= MAX_BUFFERS)
		return fail(ps, "corrupt header: more than %d buffers (instances)", MAX_BUFFERS);
	b = realloc(td->buf, (td->nr_buffers + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	td->buf = b;
	b = &td->buf[td->nr_buffers];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	if (!b->name)
		return -ENOMEM;
	td->nr_buffers++;
	*out = b;
	return 0;
}

static int set_cpus(struct parse *ps, struct atag_buffer_layout *b, uint64_t cpus)
{
	if (cpus > ATAG_MAX_CPUS)
		return fail(ps, "corrupt header: buffer '%s' lists %llu CPUs (at most %d)",
			    b->name, (unsigned long long)cpus, ATAG_MAX_CPUS);
	b->cpus = calloc(cpus ? cpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	b->nr_cpus = cpus;
	return 0;
}

/* A v6 "flyrecord\0" table of @cpus entries at the source's position. */
static int v6_table(struct parse *ps, struct src *s, struct atag_buffer_layout *b, uint64_t cpus)
{
	char word[10];
	uint64_t c;
	int ret;

	rd(s, word, 10);
	if (s->bad)
		return fail(ps, "cut inside its headers (the CPU table of buffer '%s')", b->name);
	if (!memcmp(word, "latency  ", 10)) {
		ps->td->unreadable = "it holds a latency trace (text, no ring-buffer records)";
		return set_cpus(ps, b, 0);
	}
	if (memcmp(word, "flyrecord", 10))
		return fail(ps, "corrupt header: no CPU table for buffer '%s'", b->name);
	ret = set_cpus(ps, b, cpus);
	for (c = 0; !ret && c < cpus; c++) {
		b->cpus[c].cpu = c;
		b->cpus[c].offset = rd_num(s, 8);
		b->cpus[c].size = rd_num(s, 8);
	}
	if (!ret && s->bad)
		return fail(ps, "cut inside its headers (the CPU table of buffer '%s')", b->name);
	b->compressed = false;
	return ret;
}

/* The UNAME option: a string of at most 1 KiB, up to its first NUL; the first one kept. */
static void read_uname(struct parse *ps, struct src *s, uint64_t size)
{
	char *u;

	if (ps->td->uname || !size || size > 1024)
		return;
	u = rd_blob(s, size);
	if (!u) {
		s->bad = false;		/* the caller checked the option fits */
		return;
	}
	ps->td->uname = u;
}

/* v6: options { u16 id, u32 size, data } up to id 0; BUFFER: u64 table offset, name */
static int v6_options(struct parse *ps, struct src *s, uint64_t cpus, uint64_t **tables)
{
	struct atag_buffer_layout *b;
	uint64_t size, next, *t;
	unsigned int id;
	char name[256];
	int ret;

	for (;;) {
		id = rd_num(s, 2);
		if (s->bad)
			return fail(ps, "cut inside its headers (options)");
		if (id == OPT_DONE)
			return 0;
		size = rd_num(s, 4);
		next = s->pos + size;
		if (s->bad || next > s->len)
			return fail(ps, "cut inside its headers (option %u)", id);
		if (id == OPT_BUFFER) {
			uint64_t off = rd_num(s, 8);

			if (!rd_str(s, name, sizeof(name)) || s->pos > next)
				return fail(ps, "corrupt header: a BUFFER option runs past its size");
			ret = new_buffer(ps, name, &b);
			if (ret)
				return ret;
			t = realloc(*tables, ps->td->nr_buffers * sizeof(*t));
			if (!t)
				return -ENOMEM;
			t[ps->td->nr_buffers - 1] = off;
			*tables = t;
		} else if (id == OPT_UNAME) {
			read_uname(ps, s, size);
		} else if (id == OPT_CPUCOUNT) {
			/* libtracecmd then sizes the tables its own way: leave it to it */
			if ((size != 4 || rd_num(s, 4) != cpus) && !ps->td->unreadable)
				ps->td->unreadable = "its CPU count changes (a CPUCOUNT option "
						     "other than its header's)";
		} else {
			records_option(ps, s, id, size);
		}
		s->pos = next;
	}
}

static int v6_open(struct parse *ps, struct src *s)
{
	struct atag_tracedat *td = ps->td;
	uint64_t cpus, *tables = NULL;
	struct atag_buffer_layout *b;
	char word[10];
	int ret, i;

	ret = read_header_info(ps, s);
	if (!ret)
		ret = read_formats(ps, s, "ftrace");
	if (!ret)
		ret = read_event_formats(ps, s);
	if (!ret)
		ret = read_kallsyms(ps, s);
	if (!ret)
		ret = read_printk(ps, s);
	if (!ret)
		ret = read_cmdlines(ps, s);
	if (ret)
		return ret;
	cpus = rd_num(s, 4);
	if (s->bad)
		return fail(ps, "cut inside its headers (the CPU count)");
	if (cpus > ATAG_MAX_CPUS)
		return fail(ps, "corrupt header: %llu CPUs (at most %d)", (unsigned long long)cpus,
			    ATAG_MAX_CPUS);
	tep_set_cpus(td->tep, cpus);
	ret = new_buffer(ps, "", &b);
	if (ret)
		return ret;
	tables = calloc(1, sizeof(*tables));
	if (!tables)
		return -ENOMEM;
	rd(s, word, 10);
	if (s->bad) {
		free(tables);
		return fail(ps, "cut inside its headers (after the CPU count)");
	}
	if (!memcmp(word, "options  ", 10))
		ret = v6_options(ps, s, cpus, &tables);
	else
		s->pos -= 10;
	if (!ret)
		ret = v6_table(ps, s, &td->buf[0], cpus);
	for (i = 1; !ret && i < td->nr_buffers; i++) {
		s->pos = tables[i];
		ret = v6_table(ps, s, &td->buf[i], cpus);
	}
	free(tables);
	return ret;
}

/* ------------------------------------------------------------ version 7 */

/*
 * The content of the section at @off (its id must be @id), decompressed if it
 * is (malloc'ed); a source over it in *@m.
 */
static char *v7_section(struct parse *ps, struct src *f, uint64_t off, unsigned int id,
			struct src *m)
{
	uint64_t size, zsize, usize;
	unsigned int sid, flags;
	char *in, *out;

	f->pos = off;
	sid = rd_num(f, 2);
	flags = rd_num(f, 2);
	ps->sec_desc = rd_num(f, 4);		/* description */
	size = rd_num(f, 8);
	ps->sec_off = off;
	ps->sec_flags = flags;
	if (f->bad || sid != id || size > MAX_BLOB)
		return NULL;
	if (!(flags & SEC_COMPRESSED)) {
		out = rd_blob(f, size);
		usize = size;
	} else {
		zsize = rd_num(f, 4);
		usize = rd_num(f, 4);
		if (f->bad || zsize > size || usize > MAX_BLOB)
			return NULL;
		in = rd_blob(f, zsize);
		out = in ? malloc(usize + 1) : NULL;
		if (out && atag_tracedat_decompress(ps->td, in, zsize, out, usize)) {
			free(out);
			out = NULL;
		}
		free(in);
		if (out)
			out[usize] = '\0';
	}
	if (out)
		*m = (struct src){ .mem = out, .len = usize, .swap = f->swap };
	return out;
}

/* BUFFER: u64 section, name, clock, u32 page size, u32 cpus { u32 id, u64 offset, u64 size } */
static int v7_buffer(struct parse *ps, struct src *o, uint64_t end)
{
	struct atag_tracedat *td = ps->td;
	struct atag_buffer_layout *b;
	char name[256], clock[64];
	uint64_t sec, cpus, c, page;
	struct src f;
	int ret;

	sec = rd_num(o, 8);
	if (!rd_str(o, name, sizeof(name)) || !rd_str(o, clock, sizeof(clock)))
		return fail(ps, "corrupt header: a BUFFER option ends early");
	if (!name[0] && td->nr_buffers && !td->buf[0].name[0] && td->buf[0].cpus)
		return fail(ps, "corrupt header: two top buffers");
	page = rd_num(o, 4);
	cpus = rd_num(o, 4);
	if (o->bad || o->pos > end)
		return fail(ps, "corrupt header: a BUFFER option ends early");
	if (page != td->page_size && !td->unreadable)
		td->unreadable = "its buffers have pages of different sizes";
	if (name[0]) {
		ret = new_buffer(ps, name, &b);
		if (ret)
			return ret;
	} else {
		b = &td->buf[0];
	}
	ret = set_cpus(ps, b, cpus);
	for (c = 0; !ret && c < cpus; c++) {
		b->cpus[c].cpu = rd_num(o, 4);
		b->cpus[c].offset = rd_num(o, 8);
		b->cpus[c].size = rd_num(o, 8);
	}
	if (ret)
		return ret;
	if (o->bad || o->pos > end)
		return fail(ps, "corrupt header: the CPU list of buffer '%s' ends early", name);
	/* the flyrecord section's header says whether the CPU data is compressed */
	f = (struct src){ .fd = td->fd, .cache = ps->cache, .len = td->file_size, .pos = sec,
			  .swap = o->swap };
	rd_num(&f, 2);
	b->compressed = rd_num(&f, 2) & SEC_COMPRESSED;
	if (f.bad && cpus)
		return fail(ps, "cut inside its headers (the data section of buffer '%s')", name);
	return 0;
}

/* The options of one options section; *@next is the next one's offset (0: none). */
static int v7_options(struct parse *ps, struct src *o, uint64_t *sections, uint64_t *next)
{
	unsigned int id;
	uint64_t size, end;
	int ret = 0;

	*next = 0;
	while (!ret) {
		id = rd_num(o, 2);
		size = rd_num(o, 4);
		end = o->pos + size;
		if (o->bad || end > o->len)
			return fail(ps, "corrupt header: an option runs past its section");
		switch (id) {
		case OPT_DONE:
			*next = rd_num(o, 8);
			return o->bad ? fail(ps, "corrupt header: an options section ends early") : 0;
		case OPT_BUFFER:
			ret = v7_buffer(ps, o, end);
			break;
		case OPT_HEADER_INFO: case OPT_FTRACE_EVENTS: case OPT_EVENT_FORMATS:
		case OPT_KALLSYMS: case OPT_PRINTK: case OPT_CMDLINES:
			/* where a mend points it elsewhere: the value in the file, unpacked */
			if (id == OPT_CMDLINES && size >= 8)
				ps->td->comms.option_at = ps->sec_flags & SEC_COMPRESSED ? 0 :
							  ps->sec_off + 16 + o->pos;
			if (size >= 8)
				sections[id - OPT_HEADER_INFO] = rd_num(o, 8);
			break;
		case OPT_UNAME:
			read_uname(ps, o, size);
			break;
		default:
			records_option(ps, o, id, size);
			break;
		}
		o->pos = end;
	}
	return ret;
}

static int v7_open(struct parse *ps, struct src *f)
{
	static const char *const what[] = {
		"the header page", "the ftrace formats", "the event formats", "kallsyms",
		"printk formats", "saved comms",
	};
	struct atag_tracedat *td = ps->td;
	uint64_t off, sections[6] = { 0 };
	struct atag_buffer_layout *b;
	char name[64], version[64];
	struct src m;
	char *data;
	int n, i, ret = 0;

	if (!rd_str(f, name, sizeof(name)) || !rd_str(f, version, sizeof(version)))
		return fail(ps, "cut inside its headers (the compression)");
	if (!strcmp(name, "none"))
		td->algo = ATAG_ALGO_NONE;
	else if (!strcmp(name, "zstd"))
		td->algo = ATAG_ALGO_ZSTD;
	else if (!strcmp(name, "zlib"))
		td->algo = ATAG_ALGO_ZLIB;
	else
		return fail(ps, "compressed with '%s', which this reader does not know", name);
	ret = new_buffer(ps, "", &b);
	if (ret)
		return ret;
	off = rd_num(f, 8);
	if (f->bad)
		return fail(ps, "cut inside its headers");
	for (n = 0; off && !ret; n++) {
		if (n == MAX_SECTIONS)
			return fail(ps, "corrupt header: more than %d options sections", MAX_SECTIONS);
		data = v7_section(ps, f, off, OPT_DONE, &m);
		if (!data)
			return fail(ps, "cut inside its headers (an options section)");
		ret = v7_options(ps, &m, sections, &off);
		free(data);
	}
	for (i = 0; !ret && i < 6; i++) {
		if (!sections[i]) {
			if (i == 0)
				return fail(ps, "corrupt header: no header page");
			continue;
		}
		data = v7_section(ps, f, sections[i], OPT_HEADER_INFO + i, &m);
		if (!data)
			return fail(ps, "cut inside its headers (%s)", what[i]);
		switch (i) {
		case 0:
			ret = read_header_info(ps, &m);
			break;
		case 1:
			ret = read_formats(ps, &m, "ftrace");
			break;
		case 2:
			ret = read_event_formats(ps, &m);
			break;
		case 3:
			ret = read_kallsyms(ps, &m);
			break;
		case 4:
			ret = read_printk(ps, &m);
			break;
		default:
			ps->td->comms.desc = ps->sec_desc;
			ret = read_cmdlines(ps, &m);
			break;
		}
		free(data);
	}
	return ret;
}

/* ------------------------------------------------------------ the CPU data */

static int by_offset(const void *a, const void *b)
{
	const struct atag_cpu_region *x = *(const struct atag_cpu_region *const *)a;
	const struct atag_cpu_region *y = *(const struct atag_cpu_region *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* Each CPU id once in a buffer. */
static int check_ids(struct parse *ps, const struct atag_buffer_layout *b)
{
	int *ids, c, dup = -1;

	if (b->nr_cpus < 2)
		return 0;
	ids = malloc(b->nr_cpus * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (c = 0; c < b->nr_cpus; c++)
		ids[c] = b->cpus[c].cpu;
	qsort(ids, b->nr_cpus, sizeof(*ids), int_cmp);
	for (c = 1; c < b->nr_cpus && dup < 0; c++)
		if (ids[c] == ids[c - 1])
			dup = ids[c];
	free(ids);
	if (dup >= 0)
		return fail(ps, "corrupt header: buffer '%s' lists CPU %d twice", b->name, dup);
	return 0;
}

/*
 * What the file holds of each CPU's data, where the furthest claim ends, and
 * the checks that keep a walk bounded by the file: a CPU id appears once per
 * buffer, and no two CPUs' data overlap.
 */
static int check_regions(struct parse *ps)
{
	struct atag_tracedat *td = ps->td;
	struct atag_cpu_region **sorted;
	struct atag_buffer_layout *b;
	struct atag_cpu_region *r;
	int i, c, n, ret;

	for (i = 0; i < td->nr_buffers; i++) {
		b = &td->buf[i];
		sorted = calloc(b->nr_cpus ? b->nr_cpus : 1, sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		for (c = n = 0; c < b->nr_cpus; c++) {
			r = &b->cpus[c];
			if (r->cpu < 0 || r->size > INT64_MAX || r->offset > INT64_MAX - r->size) {
				free(sorted);
				return fail(ps, "corrupt header: CPU %d of buffer '%s' has its data "
					    "beyond any file", r->cpu, b->name);
			}
			if (!r->size)
				continue;
			/* compressed data starts with a u32 count of chunks, outside its size */
			if (b->compressed)
				r->size += 4;
			if (r->offset + r->size > td->needed)
				td->needed = r->offset + r->size;
			r->avail = r->offset >= td->file_size ? 0 :
				   td->file_size - r->offset < r->size ? td->file_size - r->offset :
				   r->size;
			sorted[n++] = r;
		}
		qsort(sorted, n, sizeof(*sorted), by_offset);
		for (c = 1; c < n; c++) {
			if (sorted[c - 1]->offset + sorted[c - 1]->size > sorted[c]->offset) {
				c = sorted[c]->cpu;
				free(sorted);
				return fail(ps, "corrupt header: the data of CPU %d of buffer '%s' "
					    "overlaps another CPU's", c, b->name);
			}
		}
		free(sorted);
		ret = check_ids(ps, b);
		if (ret)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------ opening */

int atag_tracedat_open(int fd, struct atag_tracedat **tdp, char *err, size_t errlen)
{
	static const char magic[10] = "\x17\x08\x44tracing";
	struct atag_tracedat *td;
	struct parse ps = { .err = err, .errlen = errlen };
	struct src s = { .fd = fd };
	unsigned char head[18];
	struct stat st;
	int ret;

	*tdp = NULL;
	if (fstat(fd, &st))
		return -errno;
	s.len = st.st_size;
	ps.cache = malloc(sizeof(*ps.cache));
	if (!ps.cache)
		return -ENOMEM;
	ps.cache->off = ps.cache->len = 0;
	s.cache = ps.cache;
	rd(&s, head, sizeof(head));
	if (s.bad || memcmp(head, magic, 10)) {
		free(ps.cache);
		snprintf(err, errlen, "not a trace.dat file (no trace-cmd magic at its start)");
		return -EINVAL;
	}
	if ((head[10] != '6' && head[10] != '7') || head[11]) {
		free(ps.cache);
		snprintf(err, errlen, "trace.dat version '%.3s' is not supported (6 and 7 are)",
			 head + 10);
		return -EINVAL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		free(ps.cache);
		return -ENOMEM;
	}
	ps.td = td;
	td->fd = fd;
	td->file_size = st.st_size;
	td->version = head[10] - '0';
	td->big_endian = head[12];
	td->long_size = head[13];
	td->swap = !!td->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	s.swap = td->swap;
	s.pos = 14;
	td->page_size = rd_num(&s, 4);
	ret = 0;
	if (head[12] > 1)
		ret = fail(&ps, "corrupt header: byte order %u (0 or 1 expected)", head[12]);
	else if (td->long_size != 4 && td->long_size != 8)
		ret = fail(&ps, "corrupt header: a long of %d bytes (4 or 8 expected)",
			   td->long_size);
	else if (td->page_size < 64 || td->page_size > ATAG_MAX_PAGE || td->page_size % 8)
		ret = fail(&ps, "corrupt header: ring-buffer pages of %u bytes", td->page_size);
	if (ret)
		goto out;
	td->tep = tep_alloc();
	if (!td->tep) {
		ret = -ENOMEM;
		goto out;
	}
	tep_set_file_bigendian(td->tep, td->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(td->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(td->tep, td->long_size);
	td->rb_long = td->long_size;
	ret = td->version == 6 ? v6_open(&ps, &s) : v7_open(&ps, &s);
	if (!ret)
		ret = check_regions(&ps);
	if (!ret && tep_is_old_format(td->tep) && !td->unreadable)
		td->unreadable = "its ring buffer has the format of Linux 2.6.30 and older";
	td->convert_ts = td->tsc_mult || td->ts_offset;
out:
	free(ps.cache);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		atag_tracedat_close(td);
		return ret;
	}
	*tdp = td;
	return 0;
}

void atag_tracedat_close(struct atag_tracedat *td)
{
	int i;

	if (!td)
		return;
	for (i = 0; i < td->nr_buffers; i++) {
		free(td->buf[i].name);
		free(td->buf[i].cpus);
	}
	free(td->buf);
	free(td->uname);
	atag_print_flags_free(&td->gfp_names);
	free(td->comms.text);
	while (td->nr_damage)
		free(td->damage[--td->nr_damage]);
	if (td->tep)
		tep_free(td->tep);
	atag_modules_free(td->kallsyms);
	ZSTD_freeDCtx(td->zstd);
	if (td->zlib)
		inflateEnd(td->zlib);
	free(td->zlib);
	free(td);
}

int atag_tracedat_find(const struct atag_tracedat *td, const char *name)
{
	int i;

	for (i = 0; i < td->nr_buffers; i++)
		if (!strcmp(td->buf[i].name, name))
			return i;
	return -1;
}
