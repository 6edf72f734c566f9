// SPDX-License-Identifier: GPL-2.0
/*
 * trace-damage FILE OP ARGS...: damage a trace.dat in place, the way the
 * regression tests of the reader need it (little-endian files, 8-byte longs,
 * 4096-byte pages: those of the fixture writer and of trace-cmd on x86-64).
 *
 *   poke OFFSET u8|u32|u64 VALUE  write a number at a file offset
 *   past-page PAGE FIELD          in the page at file offset PAGE, make the last
 *                                 record (a long one: type_len 0) claim to run 256
 *                                 bytes past the page's end, and point its
 *                                 __data_loc field at record offset FIELD 64 bytes
 *                                 past the end
 *   padding PAGE LENGTH           make the first event of the page a padding event
 *                                 of LENGTH bytes (LENGTH may be negative)
 *   cpu-id BUFFER INDEX ID        in a version 7 file whose options are not
 *                                 compressed, give the CPU at INDEX of the BUFFER
 *                                 option of instance BUFFER the id ID
 *
 * Page layout: u64 timestamp, u64 commit, then events {u32 type_len:5 delta:27,
 * [u32 length when type_len is 0], data}.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE	4096
#define HDR	16

static int fd;

static void die(const char *msg)
{
	fprintf(stderr, "trace-damage: %s\n", msg);
	exit(1);
}

static void get(void *buf, size_t n, off_t off)
{
	if (pread(fd, buf, n, off) != (ssize_t)n)
		die("cannot read");
}

static void put(const void *buf, size_t n, off_t off)
{
	if (pwrite(fd, buf, n, off) != (ssize_t)n)
		die("cannot write");
}

static void put32(uint32_t v, off_t off)
{
	put(&v, 4, off);
}

/* The offset in the page of the header of its last data record. */
static uint32_t last_record(const unsigned char *page)
{
	uint64_t commit;
	uint32_t pos = 0, last = ~0U, h, tl, len;

	memcpy(&commit, page + 8, 8);
	commit &= (1U << 27) - 1;
	while (pos < commit) {
		memcpy(&h, page + HDR + pos, 4);
		tl = h & 31;
		if (tl == 0) {
			memcpy(&len, page + HDR + pos + 4, 4);
			last = pos;
			pos += 8 + ((len - 4 + 3) & ~3U);
		} else if (tl <= 28) {
			last = pos;
			pos += 4 + tl * 4;
		} else if (tl == 29) {
			memcpy(&len, page + HDR + pos + 4, 4);
			pos += 4 + len;
		} else {
			pos += 8;
		}
	}
	return last;
}

static void past_page(off_t page_off, uint32_t field)
{
	unsigned char page[PAGE];
	uint32_t rec, data, h, end;

	get(page, PAGE, page_off);
	rec = last_record(page);
	if (rec == ~0U)
		die("the page has no record");
	memcpy(&h, page + HDR + rec, 4);
	if (h & 31)
		die("the last record is not a long one (type_len 0)");
	data = HDR + rec + 8;			/* of the record's data in the page */
	end = PAGE - data;			/* bytes of it left in the page */
	put32(end + 256 + 4, page_off + HDR + rec + 4);
	/* __data_loc: offset in the low 16 bits, length in the high */
	put32((16U << 16) | (end + 64), page_off + data + field);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		die("usage: trace-damage FILE OP ARGS...");
	fd = open(argv[1], O_RDWR);
	if (fd < 0)
		die("cannot open the file");
	if (!strcmp(argv[2], "poke") && argc == 6) {
		uint64_t v = strtoull(argv[5], NULL, 0);

		if (!strcmp(argv[4], "u8"))
			put(&(uint8_t){ v }, 1, strtoll(argv[3], NULL, 0));
		else if (!strcmp(argv[4], "u32"))
			put32(v, strtoll(argv[3], NULL, 0));
		else
			put(&v, 8, strtoll(argv[3], NULL, 0));
	} else if (!strcmp(argv[2], "past-page") && argc == 5) {
		past_page(strtoll(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	} else if (!strcmp(argv[2], "padding") && argc == 5) {
		off_t page = strtoll(argv[3], NULL, 0);

		put32(29 | 1U << 5, page + HDR);
		put32((uint32_t)strtol(argv[4], NULL, 0), page + HDR + 4);
	} else if (!strcmp(argv[2], "cpu-id") && argc == 6) {
		struct stat st;
		unsigned char *f;
		size_t n, i, name = strlen(argv[3]);
		uint32_t cpus, index = strtoul(argv[4], NULL, 0), id = strtoul(argv[5], NULL, 0);

		if (fstat(fd, &st))
			die("cannot stat");
		n = st.st_size;
		f = malloc(n);
		if (!f)
			die("out of memory");
		get(f, n, 0);
		/* u64 section, "NAME\0", "CLOCK\0", u32 page size, u32 cpus, cpus x {u32, u64, u64} */
		for (i = 9; i + name + 1 < n; i++) {
			size_t c;

			if (f[i - 1] != 0 || memcmp(f + i, argv[3], name + 1))
				continue;
			c = i + name + 1;
			c += strnlen((char *)f + c, n - c) + 1;
			if (c + 8 > n || memcmp(f + c, "\0\x10\0\0", 4))
				continue;
			memcpy(&cpus, f + c + 4, 4);
			if (index >= cpus || c + 8 + (index + 1) * 20 > n)
				die("no such CPU in the option");
			put32(id, c + 8 + index * 20);
			free(f);
			return 0;
		}
		die("no BUFFER option of that instance in an uncompressed options section");
	} else {
		die("unknown operation or wrong arguments");
	}
	close(fd);
	return 0;
}
