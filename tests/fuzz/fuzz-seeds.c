// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-seeds DIR: write the binary seeds of the fuzz targets that take records
 * rather than files: DIR/plugin/ (records of the three events, as the fixture
 * writer makes them, both key names) and DIR/allocinfo-ioctl/ (allocinfo
 * records). tests/fuzz/run-fuzz.sh makes the other seeds from the fixtures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atag-allocinfo-uapi.h"
#include "fixture/tracedat-writer.h"

static void put(const char *dir, const char *name, const void *a, size_t la,
		const void *b, size_t lb)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(a, 1, la, f) != la || (lb && fwrite(b, 1, lb, f) != lb)) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

/* A plugin seed: event kind, header page data size, offset, header bytes, claimed size */
static void record(const char *dir, const char *name, unsigned char kind, uint16_t data_size,
		   uint16_t off, unsigned char hdr, const void *rec, size_t len)
{
	unsigned char head[8] = { kind, data_size & 0xff, data_size >> 8, off & 0xff, off >> 8,
				  hdr, len & 0xff, len >> 8 };

	put(dir, name, head, 8, rec, len);
}

static void tag(struct allocinfo_tag_data *d, const char *mod, const char *fn, const char *file,
		unsigned long long line, unsigned long long bytes, unsigned long long calls)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->tag.modname, sizeof(d->tag.modname), "%s", mod);
	snprintf(d->tag.function, sizeof(d->tag.function), "%s", fn);
	snprintf(d->tag.filename, sizeof(d->tag.filename), "%s", file);
	d->tag.lineno = line;
	d->counter.bytes = bytes;
	d->counter.calls = calls;
	d->counter.accurate = 1;
}

int main(int argc, char **argv)
{
	static const char text[] = "allocinfo - version: 2.0\n#     <size>  <calls> <tag info>\n"
				   "        4096        1 mm/slub.c:4100 func:kmalloc_trace \n";
	unsigned char buf[TDW_MAX_PAYLOAD];
	struct allocinfo_tag_data d[3];
	char dir[4096];
	unsigned char mode;
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz-seeds DIR\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/plugin", argv[1]);
	mkdir(argv[1], 0755);
	mkdir(dir, 0755);
	n = tdw_alloc_tag_hit(buf, 0, 42, 0xffffffff82000000ULL, "NONE", "mm/slub.c",
			      "kmalloc_trace", 4100);
	record(dir, "hit", 0, 4080, 16, 4, buf, n);
	record(dir, "hit-4016-byte-pages", 0, 4000, 3990, 4, buf, n);
	n = tdw_alloc_tag_hit(buf, 0, 42, 0xffffffff82000040ULL, "foo", "drivers/foo.c",
			      "foo_alloc", 12);
	record(dir, "hit-module-long-header", 0, 4080, 1000, 8, buf, n);
	record(dir, "hit-8k-pages-across-4k", 8, 8176, 4050, 8, buf, n);
	record(dir, "hit-8k-header-page-4k-pages", 0, 8176, 4050, 8, buf, n);
	n = tdw_alloc_tag_mem(buf, 0, 42, 0xffff888000001000ULL, 0xffffffff82000000ULL, 4096);
	record(dir, "alloced", 1, 4080, 200, 4, buf, n);
	record(dir, "freed-ref", 6, 4080, 4000, 4, buf, n);
	record(dir, "alloced-past-page", 1, 4080, 4090, 4, buf, n);
	n = tdw_alloc_tag_mem(buf, 0, 42, 0x10, 0xffffffff82000040ULL, 30);
	record(dir, "freed-by-hand", 2, 4080, 0, 0, buf, n);

	snprintf(dir, sizeof(dir), "%s/allocinfo-ioctl", argv[1]);
	mkdir(dir, 0755);
	tag(&d[0], "", "kmalloc_trace", "mm/slub.c", 4100, 4096, 1);
	tag(&d[1], "foo", "foo_alloc", "drivers/foo/foo.c", 12, 1024, 2);
	tag(&d[2], "xfs", "a_function_name_that_fills_all_sixty_four_bytes_of_its_field_xx",
	    "fs/x.c", 9, 8, 3);
	d[2].counter.trace_on = 1;
	for (mode = 0; mode < 8; mode++) {
		char name[32];

		snprintf(name, sizeof(name), "records-mode%u", mode);
		put(dir, name, &mode, 1, d, sizeof(d));
	}
	mode = 3;
	put(dir, "text", &mode, 1, text, strlen(text));
	return 0;
}
