/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-tracedat.h - the layout and metadata of a trace.dat, read and checked by
 * this library alone (library-internal). See lib/read/atag-tracedat.c.
 *
 * atag_tracedat_open() reads a version 6 or 7 file's headers once, checking
 * every size, count and offset against the file, builds the tep libtraceevent
 * decodes with (header page, event formats, kallsyms, printk formats, comms:
 * the calls libtracecmd makes, with the same effect), and lists each buffer's
 * CPUs and where their ring-buffer data lies. Nothing here trusts the file: a
 * count or size the file cannot hold stops the read with a reason.
 */
#ifndef _ATAG_TRACEDAT_H
#define _ATAG_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atag-print-flags.h"

struct tep_handle;
struct atag_modules;

/* Most CPUs a buffer may list (NR_CPUS is at most 8192 in Linux). */
#define ATAG_MAX_CPUS		16384
/* Largest ring-buffer page (sub-buffer) accepted. */
#define ATAG_MAX_PAGE		(1U << 20)

enum atag_algo { ATAG_ALGO_NONE, ATAG_ALGO_ZSTD, ATAG_ALGO_ZLIB };

/* One CPU's ring-buffer data in the file. */
struct atag_cpu_region {
	int		cpu;		/* the CPU id the file gives */
	uint64_t	offset;		/* in the file */
	uint64_t	size;		/* what the file claims (compressed: with the chunk count) */
	uint64_t	avail;		/* what the file holds of it (less when cut short) */
};

struct atag_buffer_layout {
	char			*name;		/* "" for the top buffer */
	int			nr_cpus;
	struct atag_cpu_region	*cpus;		/* in the file's order */
	bool			compressed;
};

/*
 * The saved comms as the file holds them. trace-cmd record writes the size of one
 * read of the kernel's saved_cmdlines, then the bytes of a second read: when the
 * table changed in between (new tasks traced meanwhile), the two differ, and up to
 * trace-cmd 3.4 at least the file is written anyway. The text read is then the bytes
 * the file holds, in whole lines; what that leaves out is counted.
 */
struct atag_comms_layout {
	uint64_t	declared;	/* the size the file gives */
	uint64_t	present;	/* the bytes it holds (v6: up to the CPU count after) */
	uint64_t	size_at;	/* v6: the file offset of the size */
	uint64_t	option_at;	/* v7: the file offset of the CMDLINES option's value,
					 * 0 when it lies in a compressed options section */
	unsigned int	desc;		/* v7: the section's description (a string id) */
	unsigned int	read;		/* comms registered */
	unsigned int	dropped;	/* lines left out: a cut one, malformed ones */
	bool		damaged;	/* declared != present, or lines dropped */
	char		*text;		/* when damaged: the whole lines kept, else NULL */
	size_t		text_len;
};

/* At most this many notes on damaged metadata read around are kept. */
#define ATAG_MAX_DAMAGE		4

struct atag_tracedat {
	int			fd;
	uint64_t		file_size;
	uint64_t		needed;		/* the end of the furthest data it claims */
	int			version;	/* 6 or 7 */
	bool			big_endian;
	bool			swap;		/* the file's byte order is not the host's */
	int			long_size;	/* of the traced kernel (file header) */
	int			rb_long;	/* of a page's commit field (header page) */
	unsigned int		page_size;	/* of the ring-buffer pages */
	enum atag_algo		algo;
	int			nr_buffers;	/* [0] is the top buffer, then instances */
	struct atag_buffer_layout *buf;
	struct tep_handle	*tep;
	struct atag_modules	*kallsyms;	/* the tep's function resolver; may be NULL */
	/*
	 * The timestamps' conversion the file's options ask for, as libtracecmd
	 * applies it (atag_tracedat_ts()): TSC cycles to ns (TSC2NSEC), then an offset
	 * added (DATE, in us; OFFSET, in ns; summed). Without them it is the identity.
	 */
	bool			convert_ts;
	uint64_t		ts_offset;	/* ns, added modulo 2^64 */
	uint64_t		tsc_mult;	/* 0: no TSC2NSEC; else its int, sign-extended */
	unsigned int		tsc_shift;	/* at most 32 */
	/* the first option this reader does not know (its id), and how many there are */
	unsigned int		unknown_option;
	unsigned int		nr_unknown;
	/*
	 * Why this library cannot read the file's records (a latency trace, guest
	 * timestamps synchronised with a host, ...), or NULL: atag_trace_open() refuses it.
	 */
	const char		*unreadable;
	char			*uname;		/* the UNAME option's text, or NULL */
	/* kmem:mm_page_alloc's names of the GFP flags (its print format); may be empty */
	struct atag_flag_names	gfp_names;
	struct atag_comms_layout comms;
	/*
	 * Damage to metadata no figure depends on, read around ("its saved comms are
	 * cut: ..."): names may be missing, counts are not.
	 */
	char			*damage[ATAG_MAX_DAMAGE];
	unsigned int		nr_damage;
	/* decompression contexts, made once and reused for every section and chunk */
	void			*zstd;
	void			*zlib;
};

/*
 * Read the file at @fd (which it keeps, not owns). On failure returns a negative
 * errno and a one-line reason in @err ("cut inside its headers ...").
 */
int atag_tracedat_open(int fd, struct atag_tracedat **td, char *err, size_t errlen);
void atag_tracedat_close(struct atag_tracedat *td);

/*
 * Compress @in with the file's algorithm into a malloc'ed block in *@out (*@out_len
 * bytes): 0, -ENOMEM, -EIO, or -EINVAL when the file is not compressed.
 */
int atag_tracedat_compress(struct atag_tracedat *td, const void *in, size_t in_len, void **out,
			   size_t *out_len);

/*
 * The timestamp @ts of a page or record of @td as the file means it: what
 * libtracecmd 1.3.1's timestamp_calc() gives (TSC2NSEC: the cycles times mult,
 * shifted right by shift, in two 32-bit halves as the kernel's mul_u64_u32_shr();
 * then the offset added, modulo 2^64).
 */
static inline uint64_t atag_tracedat_ts(const struct atag_tracedat *td, uint64_t ts)
{
	uint64_t lo = (uint32_t)ts, hi = ts >> 32, ns;

	if (td->tsc_mult) {
		ns = (lo * td->tsc_mult) >> td->tsc_shift;
		if (hi)
			ns += (hi * td->tsc_mult) << (32 - td->tsc_shift);
		ts = ns;
	}
	return ts + td->ts_offset;
}

/* Index of the buffer called @name ("" = top), or -1. */
int atag_tracedat_find(const struct atag_tracedat *td, const char *name);

/* Decompress @in into exactly @out_len bytes of @out with the file's algorithm; 0 or -EIO. */
int atag_tracedat_decompress(struct atag_tracedat *td, const void *in, size_t in_len, void *out,
			     size_t out_len);

#endif /* _ATAG_TRACEDAT_H */
