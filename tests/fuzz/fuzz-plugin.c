// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-plugin: the print handlers of plugins/plugin_alloc_tag.c over fuzzed
 * records, as stock trace-cmd report calls them: through tep_print_event() of a
 * tep that knows the kernel's formats of the three events (both key names) and a
 * header page whose data field the input sizes, with the record placed in a page
 * of its own: a buffer of exactly the page's size (4 KiB, or 8 KiB when the input
 * names that size with the plugin's 'page' option), as libtracecmd holds a page.
 * The record's offset, the bytes it claims and its ring-buffer header come from the
 * input: a read outside the page is caught. A record built by hand (no header)
 * gets a buffer of exactly its claimed size.
 *
 * Input: u8 event (0 hit, 1 alloced, 2 freed; +4: the 'ref' formats; +8: 8 KiB
 * pages, named by -O alloc_tag:page=8192), u16 size of the header page's data
 * field, u16 offset of the record in its page, u8 bytes of ring-buffer header
 * before its data (0: built by hand), u16 bytes of data it claims, then its data
 * as far as the page holds it (its first two bytes become the event's id).
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "../../plugins/plugin_alloc_tag.c"
#include "fixture/tracedat-writer.h"
#include "fuzz.h"

struct env {
	struct tep_handle	*tep;
	int			id[3];
};

static struct env envs[2];

#define HEAD	8	/* the input's header */

static int env_init(struct env *e, const char *variant)
{
	static const char *const names[] = { "alloc_tag/alloc_tag_hit",
					     "alloc_tag/alloc_tag_mem_alloced",
					     "alloc_tag/alloc_tag_mem_freed" };
	struct tep_event *event;
	const char *text;
	char path[128];
	int i;

	e->tep = tep_alloc();
	if (!e->tep)
		return -1;
	tep_set_long_size(e->tep, 8);
	tep_set_file_bigendian(e->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(e->tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", names[i], i ? variant : "");
		text = tdw_format_text(path);
		if (!text || tep_parse_format(e->tep, &event, text, strlen(text), "alloc_tag"))
			return -1;
		e->id[i] = event->id;
	}
	return tep_plugin_loader(e->tep);
}

/* The header page of the kernel's layout, its data field @size bytes at offset 16. */
static void header_page(struct tep_handle *tep, unsigned int size)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		 "\tfield: char data;\toffset:16;\tsize:%u;\tsigned:0;\n", size);
	tep_parse_header_page(tep, text, strlen(text), 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_record rec = { .cpu = 0 };
	static unsigned int runs;
	static int ready;
	uint16_t data_size, off, claim, id;
	unsigned int hdr, page;
	unsigned char *buf;
	struct trace_seq s;
	size_t have, room;
	struct env *e;

	if (!ready)
		ready = env_init(&envs[0], "") || env_init(&envs[1], ".ref") ? -1 : 1;
	if (ready < 0 || size < HEAD)
		return 0;
	e = &envs[(data[0] >> 2) & 1];
	page = data[0] & 8 ? 8192 : 4096;
	memcpy(&data_size, data + 1, 2);
	memcpy(&off, data + 3, 2);
	hdr = data[5];
	memcpy(&claim, data + 6, 2);
	data += HEAD;
	size -= HEAD;
	header_page(e->tep, data_size);
	tep_plugin_add_option("alloc_tag:page", page == 8192 ? "8192" : "4096");
	if (hdr) {
		/* the page as libtracecmd holds it: the record's header and data in it */
		off %= page;
		if (off + hdr >= page)
			off = page - hdr - 1;
		buf = calloc(1, page);
		if (!buf)
			return 0;
		rec.data = buf + off + hdr;
		room = page - off - hdr;
		rec.offset = 4ULL * 8192 + off;
		rec.record_size = claim + hdr;
	} else {
		/* built by hand: a buffer of the size it claims */
		buf = calloc(1, claim ? claim : 1);
		if (!buf)
			return 0;
		rec.data = buf;
		room = claim;
	}
	have = size < room ? size : room;
	memcpy(rec.data, data, have);
	if (room >= 2) {
		id = e->id[(data[-HEAD] & 3) % 3];
		memcpy(rec.data, &id, 2);
	}
	rec.size = claim;
	trace_seq_init(&s);
	tep_print_event(e->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_destroy(&s);
	free(buf);
	/* the call sites learned: forgotten now and then, as a trace's end does */
	if (!(++runs % 4096)) {
		sites_drop(envs[0].tep);
		sites_drop(envs[1].tep);
	}
	return 0;
}
