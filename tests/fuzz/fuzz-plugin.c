// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-plugin: the print handlers of plugins/plugin_alloc_tag.c over fuzzed
 * records, as stock trace-cmd report calls them: through tep_print_event() of a
 * tep that knows the kernel's formats of the three events (both key names) and
 * the header page, with the record's offset and whole size (which say where it
 * lies in its page) taken from the input too.
 *
 * Input: u8 event (0 hit, 1 alloced, 2 freed; +4: the 'ref' formats), u16 offset
 * of the record in its page, u8 bytes of ring-buffer header before its data,
 * then the record's data (its first two bytes become the event's id).
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

static int env_init(struct env *e, const char *variant)
{
	static const char *const names[] = { "alloc_tag/alloc_tag_hit",
					     "alloc_tag/alloc_tag_mem_alloced",
					     "alloc_tag/alloc_tag_mem_freed" };
	const char *text = tdw_format_text("header_page");
	struct tep_event *event;
	char path[128];
	int i;

	e->tep = tep_alloc();
	if (!e->tep || !text)
		return -1;
	tep_set_long_size(e->tep, 8);
	tep_set_file_bigendian(e->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(e->tep, TEP_LITTLE_ENDIAN);
	tep_parse_header_page(e->tep, (char *)text, strlen(text), 8);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", names[i], i ? variant : "");
		text = tdw_format_text(path);
		if (!text || tep_parse_format(e->tep, &event, text, strlen(text), "alloc_tag"))
			return -1;
		e->id[i] = event->id;
	}
	return tep_plugin_loader(e->tep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_record rec = { .cpu = 0 };
	static unsigned int runs;
	static int ready;
	unsigned char *copy;
	struct trace_seq s;
	struct env *e;
	unsigned int hdr;
	uint16_t off;

	if (!ready) {
		ready = env_init(&envs[0], "") || env_init(&envs[1], ".ref") ? -1 : 1;
	}
	if (ready < 0 || size < 4)
		return 0;
	e = &envs[(data[0] >> 2) & 1];
	memcpy(&off, data + 1, 2);
	hdr = data[3];
	size -= 4;
	/* a copy of exactly the record: reads past it are caught */
	copy = malloc(size > 2 ? size : 2);
	if (!copy)
		return 0;
	memcpy(copy, data + 4, size);
	if (size >= 2) {
		uint16_t id = e->id[(data[0] & 3) % 3];

		memcpy(copy, &id, 2);
	}
	rec.data = copy;
	rec.size = size;
	rec.offset = 3 * 4096ULL + (off & 4095);
	rec.record_size = hdr ? size + hdr : 0;
	trace_seq_init(&s);
	tep_print_event(e->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_destroy(&s);
	free(copy);
	/* the call sites learned: forgotten now and then, as a trace's end does */
	if (!(++runs % 4096)) {
		sites_drop(envs[0].tep);
		sites_drop(envs[1].tep);
	}
	return 0;
}
