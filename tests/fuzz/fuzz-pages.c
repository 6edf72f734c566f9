// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-pages: ring-buffer pages, walked (lib/read/atag-pages.c), decoded by a
 * source (lib/read/atag-decoder.c, atag-source-*.c) and stitched
 * (lib/stitch/atag-stitch.c), under the headers of one trace.dat made once:
 * fuzz-report runs the whole of report on whole files, but parsing the event
 * formats (libtraceevent) costs most of each of its runs; here every run goes
 * to the code that meets a hostile file's bulk, its pages.
 *
 * Input: u8 source (alloc_tag, kmem, page), u16 bytes for CPU 0, then the data
 * of CPU 0 and of CPU 1 (whole pages of 4096 bytes, or a cut last page).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "atag-pages.h"
#include "atag-source.h"
#include "atag-stitch.h"
#include "atag-symbols.h"
#include "atag-tracedat.h"
#include "fixture/tracedat-writer.h"
#include "fuzz.h"

#define PAGE	4096

static struct atag_tracedat *td;
static struct atag_pages *pages;
static int fd = -1;
static uint64_t data_off;		/* where the CPUs' data starts in the file */

struct walk {
	struct atag_decoder	*dec;
	struct atag_sink	sink;
};

static int feed(const struct tep_record *rec, void *data)
{
	struct walk *w = data;

	if (rec->missed_events && w->sink.missed(w->sink.ctx, rec->cpu))
		return -1;
	return atag_decoder_feed(w->dec, &w->sink, rec) ? -1 : 0;
}

static void warn(void *ctx, const char *fmt, va_list ap)
{
}

/* The headers: every format the sources read, kallsyms, comms; one record per CPU. */
static int make_template(void)
{
	static const char *const formats[] = {
		"alloc_tag/alloc_tag_hit", "alloc_tag/alloc_tag_mem_alloced",
		"alloc_tag/alloc_tag_mem_freed", "kmem/kmalloc", "kmem/kfree",
		"kmem/kmem_cache_alloc", "kmem/kmem_cache_free", "kmem/mm_page_alloc",
		"kmem/mm_page_free", "ftrace/kernel_stack",
	};
	unsigned char buf[TDW_MAX_PAYLOAD];
	struct tdw *w = tdw_alloc(2);
	char path[64], err[256];
	int id, alloced = -1;
	unsigned int i;
	size_t n;

	if (!w)
		return -1;
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		id = tdw_add_format_file(w, formats[i]);
		if (id < 0)
			return -1;
		if (i == 1)
			alloced = id;
	}
	tdw_add_kallsyms(w, "ffffffff81000000 T stacktrace_trigger\n"
			 "ffffffff81001000 T trace_event_raw_event_alloc_tag_hit\n"
			 "ffffffff81002000 T __kmalloc_noprof\n"
			 "ffffffff81003000 T foo_create\n"
			 "ffffffffc0001000 t bar_open\t[bar]\n"
			 "ffffffffc0010000 T _etext\n");
	tdw_add_comm(w, 100, "fuzz");
	n = tdw_alloc_tag_mem(buf, alloced, 100, 0x10, 0xa0, 8);
	if (tdw_write(w, 0, 0, 1000, buf, n) || tdw_write(w, 0, 1, 2000, buf, n))
		return -1;
	fd = memfd_create("atag-fuzz-pages", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (tdw_write_file(w, path))
		return -1;
	tdw_free(w);
	if (atag_tracedat_open(fd, &td, err, sizeof(err)) || td->nr_buffers < 1 ||
	    td->buf[0].nr_cpus != 2)
		return -1;
	data_off = td->buf[0].cpus[0].offset;
	pages = atag_pages_alloc(td, warn, NULL);
	return pages ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct atag_source *const srcs[] = {
		&atag_source_alloc_tag, &atag_source_kmem, &atag_source_page,
	};
	static int ready;
	struct atag_stitcher *st;
	struct atag_stacks *stacks;
	struct atag_aggr *aggr;
	struct walk w = { 0 };
	size_t n0, n1;
	uint16_t len0;

	if (!ready)
		ready = make_template() ? -1 : 1;
	if (ready < 0 || size < 3)
		return 0;
	memcpy(&len0, data + 1, 2);
	n0 = len0 < size - 3 ? len0 : size - 3;
	n1 = size - 3 - n0;
	/* CPU 0's data, then CPU 1's at the next page boundary */
	td->buf[0].cpus[0].offset = data_off;
	td->buf[0].cpus[0].size = td->buf[0].cpus[0].avail = n0;
	td->buf[0].cpus[1].offset = data_off + (n0 + PAGE - 1) / PAGE * PAGE;
	td->buf[0].cpus[1].size = td->buf[0].cpus[1].avail = n1;
	if (ftruncate(fd, data_off) ||
	    pwrite(fd, data + 3, n0, td->buf[0].cpus[0].offset) != (ssize_t)n0 ||
	    pwrite(fd, data + 3 + n0, n1, td->buf[0].cpus[1].offset) != (ssize_t)n1)
		return 0;
	td->file_size = td->buf[0].cpus[1].offset + n1;
	w.dec = atag_decoder_alloc(srcs[data[0] % 3], td->tep);
	aggr = atag_aggr_alloc();
	stacks = atag_stacks_alloc();
	st = aggr && stacks ? atag_stitcher_alloc(aggr, stacks) : NULL;
	if (w.dec && st) {
		atag_decoder_set_modules(w.dec, td->kallsyms);
		atag_stitch_sink(st, &w.sink);
		atag_pages_iterate(pages, 0, feed, &w);
		atag_stitch_finish(st);
	}
	atag_stitcher_free(st);
	atag_stacks_free(stacks);
	atag_aggr_free(aggr);
	atag_decoder_free(w.dec);
	return 0;
}
