// SPDX-License-Identifier: GPL-2.0
/*
 * The bufstat suite: parsers of the ring-buffer files, the memory computation,
 * the difference reasons, and the reader's errors on small fake trees.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atag-bufstat.h"
#include "atag-utest.h"

#define UNKNOWN		ATAG_BUFSTAT_UNKNOWN

static const char stats_text[] =
	"entries: 3\n"
	"overrun: 1\n"
	"commit overrun: 0\n"
	"bytes: 84\n"
	"oldest event ts:   723.330290\n"
	"now ts:   723.332085\n"
	"dropped events: 2\n"
	"read events: 5\n";

static const char header_page_text[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static void test_parse_size(void)
{
	struct atag_bufsize s;

	CU_ASSERT_EQUAL(atag_bufstat_parse_size("1410\n", &s), 0);
	CU_ASSERT_EQUAL(s.kb, 1410);
	CU_ASSERT_EQUAL(s.expanded_kb, UNKNOWN);
	CU_ASSERT_FALSE(s.differ);
	CU_ASSERT_EQUAL(atag_bufstat_parse_size("7 (expanded: 1408)\n", &s), 0);
	CU_ASSERT_EQUAL(s.kb, 7);
	CU_ASSERT_EQUAL(s.expanded_kb, 1408);
	CU_ASSERT_EQUAL(atag_bufstat_parse_size("X\n", &s), 0);
	CU_ASSERT_TRUE(s.differ);
	CU_ASSERT_EQUAL(s.kb, UNKNOWN);
	CU_ASSERT_EQUAL(atag_bufstat_parse_size("", &s), -EINVAL);
	CU_ASSERT_EQUAL(atag_bufstat_parse_size("abc\n", &s), -EINVAL);
	CU_ASSERT_EQUAL(atag_bufstat_parse_size("12 kB\n", &s), -EINVAL);
	CU_ASSERT_EQUAL(atag_bufstat_parse_size("-5\n", &s), -EINVAL);
	CU_ASSERT_EQUAL(atag_bufstat_parse_size("7 (expanded: 1408\n", &s), -EINVAL);
	CU_ASSERT_EQUAL(atag_bufstat_parse_size("7 (expanded: 1408) 3\n", &s), -EINVAL);
	CU_ASSERT_EQUAL(errno, EINVAL);
}

static void test_parse_stats(void)
{
	struct atag_cpu_stats st;
	int line = -1;

	CU_ASSERT_EQUAL(atag_parse_cpu_stats(stats_text, &st, &line), 0);
	CU_ASSERT_EQUAL(line, 0);
	CU_ASSERT_EQUAL(st.entries, 3);
	CU_ASSERT_EQUAL(st.overrun, 1);
	CU_ASSERT_EQUAL(st.commit_overrun, 0);
	CU_ASSERT_EQUAL(st.bytes, 84);
	CU_ASSERT_EQUAL(st.dropped_events, 2);
	CU_ASSERT_EQUAL(st.read_events, 5);
	CU_ASSERT_STRING_EQUAL(st.oldest_ts, "723.330290");
	CU_ASSERT_STRING_EQUAL(st.now_ts, "723.332085");

	/* an older kernel: no dropped/read lines; a counter clock; an unknown key */
	CU_ASSERT_EQUAL(atag_parse_cpu_stats("entries: 0\noverrun: 0\nbytes: 0\n"
						 "oldest event ts: 12345678\nnew thing: x y\n",
						 &st, &line), 0);
	CU_ASSERT_EQUAL(st.dropped_events, UNKNOWN);
	CU_ASSERT_EQUAL(st.read_events, UNKNOWN);
	CU_ASSERT_EQUAL(st.entries, 0);
	CU_ASSERT_STRING_EQUAL(st.oldest_ts, "12345678");
	CU_ASSERT_STRING_EQUAL(st.now_ts, "");

	CU_ASSERT_EQUAL(atag_parse_cpu_stats("entries: 3\noverrun: 1\nbytes: lots\n", &st,
						 &line), -EINVAL);
	CU_ASSERT_EQUAL(line, 3);
	CU_ASSERT_EQUAL(atag_parse_cpu_stats("entries: 3\n\nno colon here\n", &st, &line),
			-EINVAL);
	CU_ASSERT_EQUAL(line, 3);
	CU_ASSERT_EQUAL(atag_parse_cpu_stats("now ts: 12.\n", &st, &line), -EINVAL);
	CU_ASSERT_EQUAL(line, 1);
	CU_ASSERT_EQUAL(atag_parse_cpu_stats("entries: -1\n", &st, &line), -EINVAL);
}

static void test_parse_memusage_split(void)
{
	struct atag_memusage mu;
	int line = -1;

	/* any order, unknown keys ignored, spaces around values */
	CU_ASSERT_EQUAL(atag_bufstat_parse_memusage("instances: 6208\n"
						    "global:   48\n"
						    "snapshots: 4152\n"
						    "persistents: 2056\n"
						    "remotes: 0\n"
						    "future_row: many\n"
						    "total_system: 10408\n"
						    "total_carveout: 2056\n", &mu, &line), 0);
	CU_ASSERT_EQUAL(mu.format, ATAG_MEMUSAGE_SPLIT);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_GLOBAL], 48);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_INSTANCES], 6208);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_SNAPSHOTS], 4152);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_PERSISTENTS], 2056);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_REMOTES], 0);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_TOTAL_SYSTEM], 10408);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_TOTAL_CARVEOUT], 2056);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_BUFFERS], UNKNOWN);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_SNAPSHOT_BUFFERS], UNKNOWN);
}

static void test_parse_memusage_earlier(void)
{
	struct atag_memusage mu;
	int line = -1;

	CU_ASSERT_EQUAL(atag_bufstat_parse_memusage("buffers: 8288\nsnapshot_buffers: 24\n", &mu,
						    &line), 0);
	CU_ASSERT_EQUAL(mu.format, ATAG_MEMUSAGE_BUFFERS);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_BUFFERS], 8288);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_SNAPSHOT_BUFFERS], 24);
	CU_ASSERT_EQUAL(mu.kb[ATAG_ROW_GLOBAL], UNKNOWN);

	CU_ASSERT_EQUAL(atag_bufstat_parse_memusage("", &mu, &line), 0);
	CU_ASSERT_EQUAL(mu.format, ATAG_MEMUSAGE_EMPTY);
	CU_ASSERT_EQUAL(atag_bufstat_parse_memusage("something: else\n", &mu, &line), 0);
	CU_ASSERT_EQUAL(mu.format, ATAG_MEMUSAGE_EMPTY);
}

static void test_parse_memusage_malformed(void)
{
	struct atag_memusage mu;
	int line = -1;

	CU_ASSERT_EQUAL(atag_bufstat_parse_memusage("global: 48\ninstances: 12 kB\n", &mu, &line),
			-EINVAL);
	CU_ASSERT_EQUAL(line, 2);
	CU_ASSERT_EQUAL(atag_bufstat_parse_memusage("global: 48\n\n\nremotes:\n", &mu, &line),
			-EINVAL);
	CU_ASSERT_EQUAL(line, 4);
	CU_ASSERT_EQUAL(atag_bufstat_parse_memusage("global 48\n", &mu, &line), -EINVAL);
	CU_ASSERT_EQUAL(line, 1);
	CU_ASSERT_EQUAL(atag_bufstat_parse_memusage("buffers: -3\n", &mu, &line), -EINVAL);
	CU_ASSERT_EQUAL(line, 1);
}

static void test_parse_meta(void)
{
	struct atag_bufstat_meta m;
	int line = -1;

	CU_ASSERT_EQUAL(atag_bufstat_parse_meta("head_buffer:   0\ncommit_buffer: 3\n"
						"subbuf_size:   4096\nnr_subbufs:    257\n"
						"buffer[0]:    0\nbuffer[1]:    5 (commit: 12)\n",
						&m, &line), 0);
	CU_ASSERT_EQUAL(m.subbuf_size, 4096);
	CU_ASSERT_EQUAL(m.nr_subbufs, 257);
	CU_ASSERT_EQUAL(atag_bufstat_parse_meta("subbuf_size: 4096\n", &m, &line), -EINVAL);
	CU_ASSERT_EQUAL(line, 0);
	CU_ASSERT_EQUAL(atag_bufstat_parse_meta("subbuf_size: 4096\nnr_subbufs: x\n", &m, &line),
			-EINVAL);
	CU_ASSERT_EQUAL(line, 2);
}

static void test_parse_small(void)
{
	unsigned long long kb = 0;
	unsigned int hdr = 0;
	int loaded = 7;

	CU_ASSERT_EQUAL(atag_bufstat_parse_remote_size("7 (loaded)\n", &kb, &loaded), 0);
	CU_ASSERT_EQUAL(kb, 7);
	CU_ASSERT_EQUAL(loaded, 1);
	CU_ASSERT_EQUAL(atag_bufstat_parse_remote_size("1024 (unloaded)\n", &kb, &loaded), 0);
	CU_ASSERT_EQUAL(kb, 1024);
	CU_ASSERT_EQUAL(loaded, 0);
	CU_ASSERT_EQUAL(atag_bufstat_parse_remote_size("16\n", &kb, &loaded), 0);
	CU_ASSERT_EQUAL(loaded, -1);
	CU_ASSERT_EQUAL(atag_bufstat_parse_remote_size("7 (sleeping)\n", &kb, &loaded), -EINVAL);
	CU_ASSERT_EQUAL(atag_bufstat_parse_remote_size("seven (loaded)\n", &kb, &loaded), -EINVAL);

	CU_ASSERT_EQUAL(atag_bufstat_parse_header_page(header_page_text, &hdr), 0);
	CU_ASSERT_EQUAL(hdr, 16);
	CU_ASSERT_EQUAL(atag_bufstat_parse_header_page("field: u64 timestamp;\n", &hdr), -EINVAL);

	CU_ASSERT_EQUAL(atag_bufstat_parse_flag("1\n"), 1);
	CU_ASSERT_EQUAL(atag_bufstat_parse_flag("0\n"), 0);
	CU_ASSERT_EQUAL(atag_bufstat_parse_flag("2\n"), -1);
	CU_ASSERT_EQUAL(atag_bufstat_parse_flag("10\n"), -1);
}

static void test_parse_snapshot(void)
{
	CU_ASSERT_EQUAL(atag_bufstat_parse_snapshot("# tracer: nop\n#\n#\n# * Snapshot is freed *\n"
						    "#\n# Snapshot commands:\n"),
			ATAG_SNAPSHOT_FREED);
	CU_ASSERT_EQUAL(atag_bufstat_parse_snapshot("# tracer: nop\n#\n#\n"
						    "# * Snapshot is allocated *\n#\n"),
			ATAG_SNAPSHOT_ALLOCATED);
	CU_ASSERT_EQUAL(atag_bufstat_parse_snapshot("# tracer: nop\n#\n"
						    "# entries-in-buffer/entries-written: 3/3\n"),
			ATAG_SNAPSHOT_ALLOCATED);
	CU_ASSERT_EQUAL(atag_bufstat_parse_snapshot("garbage\n"), ATAG_SNAPSHOT_UNKNOWN);
	CU_ASSERT_EQUAL(atag_bufstat_parse_snapshot(NULL), ATAG_SNAPSHOT_UNKNOWN);
}

/*
 * trace_instance=NAME=ORIGIN makes NAME a backup of ORIGIN (the syntax of later
 * kernels' boot-time backup); NAME@MEMORY a persistent instance.
 */
static void test_parse_backup(void)
{
	static const char cmdline[] =
		"BOOT_IMAGE=/vmlinuz trace_instance=boot^traceoff@trace,sched:*\t"
		"\"trace_instance=bk=boot,irq:*\" trace_instance=bk2^traceoff=boot "
		"trace_instance=mm@0x1000:12M trace_instance=empty= trace_instance=wrong@x=boot "
		"-- trace_instance=init=boot\n";
	char origin[64];

	CU_ASSERT_TRUE(atag_bufstat_parse_backup(cmdline, "bk", origin, sizeof(origin)));
	CU_ASSERT_STRING_EQUAL(origin, "boot");
	CU_ASSERT_TRUE(atag_bufstat_parse_backup(cmdline, "bk2", origin, sizeof(origin)));
	CU_ASSERT_STRING_EQUAL(origin, "boot");
	CU_ASSERT_FALSE(atag_bufstat_parse_backup(cmdline, "boot", origin, sizeof(origin)));
	CU_ASSERT_FALSE(atag_bufstat_parse_backup(cmdline, "mm", origin, sizeof(origin)));
	CU_ASSERT_FALSE(atag_bufstat_parse_backup(cmdline, "empty", origin, sizeof(origin)));
	CU_ASSERT_FALSE(atag_bufstat_parse_backup(cmdline, "wrong", origin, sizeof(origin)));
	/* after "--" the parameters are init's */
	CU_ASSERT_FALSE(atag_bufstat_parse_backup(cmdline, "init", origin, sizeof(origin)));
	CU_ASSERT_FALSE(atag_bufstat_parse_backup("", "bk", origin, sizeof(origin)));
	CU_ASSERT_FALSE(atag_bufstat_parse_backup(NULL, "bk", origin, sizeof(origin)));
	/* a name is compared whole */
	CU_ASSERT_FALSE(atag_bufstat_parse_backup("trace_instance=bkx=boot", "bk", origin,
						  sizeof(origin)));
}

static void test_pages(void)
{
	/* echo 2048 > buffer_size_kb reads back 2051: 515 sub-buffers of 4080 data bytes */
	CU_ASSERT_EQUAL(atag_bufstat_buffer_pages(2051, 4096, 16), 515);
	CU_ASSERT_EQUAL(atag_bufstat_buffer_bytes(2051, 4096, 16), 516 * 4096ULL);
	/* an unexpanded buffer: 7 KiB are 2 sub-buffers, plus the reader */
	CU_ASSERT_EQUAL(atag_bufstat_buffer_bytes(7, 4096, 16), 3 * 4096ULL);
	/* 8 KiB sub-buffers: 1029 KiB are 129 of 8176 data bytes */
	CU_ASSERT_EQUAL(atag_bufstat_buffer_pages(1029, 8192, 16), 129);
	CU_ASSERT_EQUAL(atag_bufstat_buffer_bytes(1029, 8192, 16), 130 * 8192ULL);
	/* never fewer than 2 sub-buffers */
	CU_ASSERT_EQUAL(atag_bufstat_buffer_pages(0, 4096, 16), 2);
	CU_ASSERT_EQUAL(atag_bufstat_buffer_pages(UNKNOWN, 4096, 16), UNKNOWN);
	CU_ASSERT_EQUAL(atag_bufstat_buffer_bytes(7, UNKNOWN, 16), UNKNOWN);
	CU_ASSERT_EQUAL(atag_bufstat_buffer_bytes(7, 16, 16), UNKNOWN);
	/* remotes: max(pages, 2) data pages, a reader page and a meta page */
	CU_ASSERT_EQUAL(atag_bufstat_remote_bytes(7, 4096), 4 * 4096ULL);
	CU_ASSERT_EQUAL(atag_bufstat_remote_bytes(1024, 4096), 258 * 4096ULL);
	CU_ASSERT_EQUAL(atag_bufstat_remote_bytes(UNKNOWN, 4096), UNKNOWN);
}

static void test_fill(void)
{
	struct atag_bufstat_cpu c = { .size_kb = 2, .has_stats = true };
	double pct = -1;

	c.stats.bytes = 1024;
	CU_ASSERT_EQUAL(atag_bufstat_fill(&c, &pct), 0);
	CU_ASSERT_DOUBLE_EQUAL(pct, 50.0, 1e-9);
	c.stats.bytes = 4096;
	CU_ASSERT_EQUAL(atag_bufstat_fill(&c, &pct), 0);
	CU_ASSERT_DOUBLE_EQUAL(pct, 100.0, 1e-9);
	c.stats.bytes = UNKNOWN;
	CU_ASSERT_EQUAL(atag_bufstat_fill(&c, &pct), -ENODATA);
	c.stats.bytes = 10;
	c.size_kb = UNKNOWN;
	CU_ASSERT_EQUAL(atag_bufstat_fill(&c, &pct), -ENODATA);
	c.size_kb = 2;
	c.has_stats = false;
	CU_ASSERT_EQUAL(atag_bufstat_fill(&c, &pct), -ENODATA);
}

/*
 * A hand-built system: top buffer not expanded (7 KiB) with a freed snapshot;
 * "a" 2051 KiB with an allocated snapshot; "b" 1029 KiB of 8 KiB sub-buffers and no
 * snapshot file; "boot" persistent with buffer_meta 257 x 4096; remotes "hyp" loaded
 * (7 KiB) and "test" unloaded. Two CPUs, 4 KiB pages.
 */
struct system {
	struct atag_bufstat		bs;
	struct atag_bufstat_instance	in[4];
	struct atag_bufstat_cpu		cpus[4][2];
	struct atag_bufstat_remote	rem[2];
};

static void set_instance(struct system *s, int i, const char *name, unsigned long long kb,
			 unsigned long long subbuf_kb, enum atag_snapshot_state snap)
{
	struct atag_bufstat_instance *in = &s->in[i];
	int c;

	in->name = (char *)name;
	in->size.kb = kb;
	in->size.expanded_kb = UNKNOWN;
	in->subbuf_kb = subbuf_kb;
	in->snapshot = snap;
	in->nr_cpus = 2;
	in->cpus = s->cpus[i];
	for (c = 0; c < 2; c++) {
		in->cpus[c].cpu = c;
		in->cpus[c].size_kb = kb;
	}
}

static void build_system(struct system *s)
{
	int c;

	memset(s, 0, sizeof(*s));
	s->bs.page_size = 4096;
	s->bs.page_hdr = 16;
	s->bs.instances = s->in;
	s->bs.nr_instances = 4;
	set_instance(s, 0, NULL, 7, 4, ATAG_SNAPSHOT_FREED);
	s->in[0].size.expanded_kb = 1408;
	set_instance(s, 1, "a", 2051, 4, ATAG_SNAPSHOT_ALLOCATED);
	set_instance(s, 2, "b", 1029, 8, ATAG_SNAPSHOT_UNSUPPORTED);
	set_instance(s, 3, "boot", 1024, 4, ATAG_SNAPSHOT_PERSISTENT);
	s->in[3].persistent = true;
	for (c = 0; c < 2; c++) {
		s->cpus[3][c].has_meta = true;
		s->cpus[3][c].meta.subbuf_size = 4096;
		s->cpus[3][c].meta.nr_subbufs = 257;
	}
	s->rem[0] = (struct atag_bufstat_remote){ "hyp", 7, 1, 1, 2, 0, 0 };
	s->rem[1] = (struct atag_bufstat_remote){ "test", 7, 0, 0, 2, 0, 0 };
	s->bs.remotes = s->rem;
	s->bs.nr_remotes = 2;
	s->bs.kernel.format = ATAG_MEMUSAGE_NONE;
	atag_bufstat_compute(&s->bs);
}

static void test_compute_instances(void)
{
	struct system s;

	build_system(&s);
	CU_ASSERT_EQUAL(s.cpus[0][1].buffer_bytes, 12288);
	CU_ASSERT_EQUAL(s.cpus[0][1].snapshot_bytes, 12288);
	CU_ASSERT_EQUAL(s.in[0].buffer_bytes, 24576);
	CU_ASSERT_EQUAL(s.in[0].snapshot_bytes, 24576);
	CU_ASSERT_EQUAL(s.in[1].buffer_bytes, 2 * 516 * 4096ULL);
	CU_ASSERT_EQUAL(s.in[1].snapshot_bytes, 2 * 516 * 4096ULL);
	CU_ASSERT_EQUAL(s.in[2].buffer_bytes, 2 * 130 * 8192ULL);
	CU_ASSERT_EQUAL(s.in[2].snapshot_bytes, 0);
	CU_ASSERT_EQUAL(s.in[3].buffer_bytes, 2 * 257 * 4096ULL);
	CU_ASSERT_EQUAL(s.in[3].snapshot_bytes, 0);
	CU_ASSERT_EQUAL(s.rem[0].bytes_per_cpu, 4 * 4096ULL);
	CU_ASSERT_EQUAL(s.rem[0].bytes, 2 * 4 * 4096ULL);
	CU_ASSERT_EQUAL(s.rem[1].bytes_per_cpu, 0);
	CU_ASSERT_EQUAL(s.rem[1].bytes, 0);
	/* the temp_buffer: ring_buffer_alloc(PAGE_SIZE): 2 pages and a reader per CPU */
	CU_ASSERT_EQUAL(s.bs.temp_buffer_bytes, 2 * 3 * 4096);
}

/* A freed snapshot keeps 3 pages per CPU, also beside 8 KiB sub-buffers (6.12 free_snapshot()). */
static void test_compute_freed_snapshot_pages(void)
{
	struct system s;

	build_system(&s);
	s.in[2].snapshot = ATAG_SNAPSHOT_FREED;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(s.cpus[2][0].snapshot_bytes, 3 * 4096);
	CU_ASSERT_EQUAL(s.in[2].snapshot_bytes, 2 * 3 * 4096);
	CU_ASSERT_EQUAL(s.in[2].buffer_bytes, 2 * 130 * 8192ULL);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_SNAPSHOTS], 24576 + 4227072 + 24576);
}

/*
 * The rows as trace_stats v5 2/4 counts them (shared/seeds/000): global is the top
 * buffer and the temp_buffer, total_system = global + instances + snapshots +
 * remotes, total_carveout = persistents.
 */
static void test_compute_rows(void)
{
	struct system s;

	build_system(&s);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_GLOBAL], 24576 + 24576);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_INSTANCES], 4227072 + 2129920);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_SNAPSHOTS], 24576 + 4227072);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_PERSISTENTS], 2105344);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_REMOTES], 32768);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_TOTAL_SYSTEM],
			49152 + 6356992 + 4251648 + 32768);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_TOTAL_CARVEOUT], 2105344);
	CU_ASSERT_EQUAL(s.bs.system_without_remotes, 49152 + 6356992 + 4251648);
	/* the earlier postings' rows as they were: v1 and v2 had no temp_buffer */
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_BUFFERS], 24576 + 6356992 + 2105344);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_SNAPSHOT_BUFFERS], 4251648);

	CU_ASSERT_EQUAL(atag_bufstat_cpu_row(&s.bs, 1, ATAG_ROW_GLOBAL), 12288 + 12288);
	/* which CPUs a loaded remote has, no file says */
	CU_ASSERT_EQUAL(atag_bufstat_cpu_row(&s.bs, 0, ATAG_ROW_REMOTES), UNKNOWN);
	CU_ASSERT_EQUAL(atag_bufstat_cpu_row(&s.bs, 0, ATAG_ROW_TOTAL_SYSTEM), UNKNOWN);
	CU_ASSERT_EQUAL(atag_bufstat_cpu_row(&s.bs, 0, ATAG_ROW_TOTAL_CARVEOUT), 1052672);
	CU_ASSERT_EQUAL(atag_bufstat_cpu_row(&s.bs, 1, ATAG_ROW_BUFFERS),
			12288 + 2113536 + 1064960 + 1052672);
	CU_ASSERT_EQUAL(atag_bufstat_cpu_row(&s.bs, 5, ATAG_ROW_GLOBAL), 0);
	/* unloaded, every row is known again */
	s.rem[0].loaded = 0;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(atag_bufstat_cpu_row(&s.bs, 0, ATAG_ROW_TOTAL_SYSTEM),
			12288 + 12288 + 12288 + 2 * 2113536 + 1064960);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_REMOTES], 0);
	/* "boot" a backup instance: v5 2/4 skips it in every row, per CPU too */
	s.in[3].backup_of = (char *)"orig";
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(s.in[3].buffer_bytes, 2105344);
	CU_ASSERT_EQUAL(s.bs.backup_bytes, 2105344);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_PERSISTENTS], 0);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_TOTAL_CARVEOUT], 0);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_BUFFERS], 24576 + 6356992);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_TOTAL_SYSTEM], 49152 + 6356992 + 4251648);
	CU_ASSERT_EQUAL(atag_bufstat_cpu_row(&s.bs, 0, ATAG_ROW_TOTAL_CARVEOUT), 0);
	s.in[3].backup_of = NULL;
}

/* A remote as read: loaded, its CPUs unknown. Its rows are unknown, never a guess. */
static void test_compute_remote_cpus_unknown(void)
{
	struct system s;

	build_system(&s);
	s.rem[0].nr_cpus = -1;
	s.rem[1].nr_cpus = -1;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(s.rem[0].bytes_per_cpu, 4 * 4096ULL);
	CU_ASSERT_EQUAL(s.rem[0].bytes, UNKNOWN);
	CU_ASSERT_EQUAL(s.rem[1].bytes, 0);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_REMOTES], UNKNOWN);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_TOTAL_SYSTEM], UNKNOWN);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_TOTAL_CARVEOUT], 2105344);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_GLOBAL], 49152);
	CU_ASSERT_EQUAL(s.bs.system_without_remotes, 49152 + 6356992 + 4251648);
	s.rem[0].loaded = 0;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_REMOTES], 0);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_TOTAL_SYSTEM], 49152 + 6356992 + 4251648);
}

static void test_compute_unknown(void)
{
	struct system s;

	build_system(&s);
	/* an unreadable snapshot: snapshots and total_system unknown, never 0 */
	s.in[1].snapshot = ATAG_SNAPSHOT_UNKNOWN;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_SNAPSHOTS], UNKNOWN);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_TOTAL_SYSTEM], UNKNOWN);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_GLOBAL], 49152);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_INSTANCES], 6356992);
	/* a remote without a state */
	s.rem[0].loaded = -1;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(s.rem[0].bytes, UNKNOWN);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_REMOTES], UNKNOWN);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_PERSISTENTS], 2105344);
	/* per-CPU file missing: the instance-wide size is used */
	s.cpus[2][0].size_kb = UNKNOWN;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(s.cpus[2][0].buffer_bytes, 130 * 8192ULL);
	/* persistent without buffer_meta: estimated from buffer_size_kb (1024 -> 258 + 1) */
	s.cpus[3][0].has_meta = false;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(s.cpus[3][0].buffer_bytes, 258 * 4096ULL + 4096);
	/* only some instances read: no totals */
	s.bs.filtered = true;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(s.bs.computed[ATAG_ROW_GLOBAL], UNKNOWN);
	CU_ASSERT_EQUAL(atag_bufstat_cpu_row(&s.bs, 0, ATAG_ROW_GLOBAL), UNKNOWN);
}

static void test_diff_reasons(void)
{
	struct system s;
	int row;

	build_system(&s);
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_GLOBAL), 0);
	s.bs.kernel.format = ATAG_MEMUSAGE_SPLIT;
	for (row = 0; row < ATAG_ROW_MAX; row++)
		s.bs.kernel.kb[row] = UNKNOWN;
	s.bs.kernel.kb[ATAG_ROW_GLOBAL] = 24 + 24;	/* with the temp_buffer: the same */
	s.bs.kernel.kb[ATAG_ROW_INSTANCES] = 6208;	/* the same */
	s.bs.kernel.kb[ATAG_ROW_REMOTES] = 0;
	s.bs.kernel.kb[ATAG_ROW_TOTAL_CARVEOUT] = 2056;
	s.bs.kernel.kb[ATAG_ROW_SNAPSHOTS] = 4000;
	s.bs.kernel.kb[ATAG_ROW_TOTAL_SYSTEM] = 48 + 6208 + 4000;
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_GLOBAL), 0);
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_INSTANCES), 0);
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_TOTAL_CARVEOUT), 0);
	s.bs.kernel.kb[ATAG_ROW_GLOBAL] = 52;		/* a read page more */
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_GLOBAL),
			ATAG_BUFDIFF_RACE | ATAG_BUFDIFF_HELPER | ATAG_BUFDIFF_ROUNDING |
			ATAG_BUFDIFF_READ_PAGE | ATAG_BUFDIFF_META_PAGE | ATAG_BUFDIFF_METADATA |
			ATAG_BUFDIFF_UNEXPANDED);
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_REMOTES),
			ATAG_BUFDIFF_RACE | ATAG_BUFDIFF_REMOTES_ZERO);
	/* remotes are page-allocator memory: total_system, not the carve-out */
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_TOTAL_SYSTEM),
			ATAG_BUFDIFF_RACE | ATAG_BUFDIFF_HELPER | ATAG_BUFDIFF_ROUNDING |
			ATAG_BUFDIFF_UNEXPANDED | ATAG_BUFDIFF_REMOTES_ZERO);
	/*
	 * persistent buffers: the same ring_buffer_memory_size() as the others (v5 2/4),
	 * so the same extras; never the reserved range, never an expansion
	 */
	s.bs.kernel.kb[ATAG_ROW_TOTAL_CARVEOUT] = 2060;
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_TOTAL_CARVEOUT),
			ATAG_BUFDIFF_RACE | ATAG_BUFDIFF_HELPER | ATAG_BUFDIFF_READ_PAGE |
			ATAG_BUFDIFF_META_PAGE | ATAG_BUFDIFF_METADATA);
	/* kernel lower, one CPU without buffer_meta: estimated, so rounding too */
	s.bs.kernel.kb[ATAG_ROW_TOTAL_CARVEOUT] = 2000;
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_TOTAL_CARVEOUT),
			ATAG_BUFDIFF_RACE | ATAG_BUFDIFF_HELPER);
	s.cpus[3][1].has_meta = false;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_TOTAL_CARVEOUT),
			ATAG_BUFDIFF_RACE | ATAG_BUFDIFF_HELPER | ATAG_BUFDIFF_ROUNDING);
	s.cpus[3][1].has_meta = true;
	atag_bufstat_compute(&s.bs);
	CU_ASSERT_PTR_NULL(strstr(atag_bufstat_reason_str(ATAG_BUFDIFF_HELPER), "counts the whole"));
	CU_ASSERT_PTR_NOT_NULL(strstr(atag_bufstat_reason_str(ATAG_BUFDIFF_HELPER),
				      "ring_buffer_memory_size()"));
	/* the earlier postings' buffers: v3 and v4 count the temp_buffer there */
	s.bs.kernel.kb[ATAG_ROW_BUFFERS] = 8288 + 24;
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_BUFFERS),
			ATAG_BUFDIFF_RACE | ATAG_BUFDIFF_HELPER | ATAG_BUFDIFF_ROUNDING |
			ATAG_BUFDIFF_READ_PAGE | ATAG_BUFDIFF_META_PAGE | ATAG_BUFDIFF_METADATA |
			ATAG_BUFDIFF_TEMP_BUFFER | ATAG_BUFDIFF_UNEXPANDED |
			ATAG_BUFDIFF_PERSISTENT_OLD);
	/* kernel lower: no "kernel also counts" reasons; the top is in this row */
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_SNAPSHOTS),
			ATAG_BUFDIFF_RACE | ATAG_BUFDIFF_HELPER | ATAG_BUFDIFF_ROUNDING |
			ATAG_BUFDIFF_UNEXPANDED);
	CU_ASSERT_EQUAL(atag_bufstat_diff_reasons(&s.bs, ATAG_ROW_PERSISTENTS), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(atag_bufstat_reason_str(ATAG_BUFDIFF_REMOTES_ZERO),
				      "reports remotes as zero"));
	CU_ASSERT_STRING_EQUAL(atag_bufstat_row_key(ATAG_ROW_TOTAL_CARVEOUT), "total_carveout");
	CU_ASSERT_PTR_NULL(atag_bufstat_row_key(ATAG_ROW_MAX));
}

/* ------------------------------------------------------------------ fake trees */

static void put(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = strchr(path + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static const char *fake_root(const char *name)
{
	static char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s/%s", atag_utest_tmpdir(), name);
	mkdir(root, 0755);
	return root;
}

static void test_read_tree(void)
{
	const char *root = fake_root("tree");
	struct atag_bufstat_error err;
	struct atag_bufstat *bs;

	put(root, "buffer_size_kb", "7 (expanded: 1408)\n");
	put(root, "per_cpu/cpu0/buffer_size_kb", "7\n");
	put(root, "per_cpu/cpu0/stats", stats_text);
	put(root, "per_cpu/cpu10/buffer_size_kb", "7\n");
	put(root, "events/header_page", header_page_text);
	put(root, "instances/boot/buffer_size_kb", "1024\n");
	put(root, "instances/boot/last_boot_info", "ffffffff81000000\t[kernel]\n");
	put(root, "instances/boot/per_cpu/cpu0/buffer_meta",
	    "subbuf_size: 4096\nnr_subbufs: 257\n");
	put(root, "remotes/hyp/buffer_size_kb", "7 (loaded)\n");
	put(root, "remotes/hyp/per_cpu/cpu0/trace", "");
	put(root, "trace_stats/memory_usage_kb", "buffers: 1040\nsnapshot_buffers: 0\n");
	/* CPUs of different sizes: buffer_size_kb says X, per-CPU files tell */
	put(root, "instances/x/buffer_size_kb", "X\n");
	put(root, "instances/x/per_cpu/cpu0/buffer_size_kb", "7\n");
	put(root, "instances/x/per_cpu/cpu1/buffer_size_kb", "1408\n");
	bs = atag_bufstat_read(root, NULL, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bs);
	CU_ASSERT_FALSE(bs->page_hdr_assumed);
	CU_ASSERT_EQUAL(bs->nr_instances, 3);
	CU_ASSERT_STRING_EQUAL(bs->instances[2].name, "x");
	CU_ASSERT_TRUE(bs->instances[2].size.differ);
	CU_ASSERT_EQUAL(bs->instances[2].size.kb, UNKNOWN);
	CU_ASSERT_EQUAL(bs->instances[2].buffer_bytes, 3 * 4096ULL + 355 * 4096ULL);
	CU_ASSERT_EQUAL(bs->instances[0].nr_cpus, 2);
	CU_ASSERT_EQUAL(bs->instances[0].cpus[1].cpu, 10);
	CU_ASSERT_EQUAL(bs->instances[0].cpus[0].stats.read_events, 5);
	CU_ASSERT_FALSE(bs->instances[0].cpus[1].has_stats);
	CU_ASSERT_EQUAL(bs->instances[0].subbuf_kb, UNKNOWN);
	CU_ASSERT_EQUAL(bs->instances[0].tracing_on, -1);
	CU_ASSERT_EQUAL(bs->instances[0].snapshot, ATAG_SNAPSHOT_UNSUPPORTED);
	CU_ASSERT_TRUE(bs->instances[1].persistent);
	CU_ASSERT_STRING_EQUAL(bs->instances[1].last_boot, "ffffffff81000000\t[kernel]");
	CU_ASSERT_EQUAL(bs->instances[1].buffer_bytes, 257 * 4096ULL);
	/* per_cpu/cpuN of a remote is there for every possible CPU: not its CPUs */
	CU_ASSERT_EQUAL(bs->nr_remotes, 1);
	CU_ASSERT_EQUAL(bs->remotes[0].nr_cpus, -1);
	CU_ASSERT_EQUAL(bs->remotes[0].bytes_per_cpu, 4 * 4096ULL);
	CU_ASSERT_EQUAL(bs->remotes[0].bytes, UNKNOWN);
	CU_ASSERT_EQUAL(bs->temp_buffer_bytes, 2 * 3 * 4096ULL);
	CU_ASSERT_EQUAL(bs->kernel.format, ATAG_MEMUSAGE_BUFFERS);
	CU_ASSERT_EQUAL(bs->computed[ATAG_ROW_BUFFERS], 24576 + 257 * 4096ULL + 358 * 4096ULL);
	atag_bufstat_free(bs);
}

static void check_error(const char *root, const struct atag_bufstat_opts *opts, int err,
			const char *path_end, int line, const char *msg)
{
	struct atag_bufstat_error e;
	size_t pl = strlen(path_end), l;

	errno = 0;
	CU_ASSERT_PTR_NULL(atag_bufstat_read(root, opts, &e));
	CU_ASSERT_EQUAL(errno, err);
	CU_ASSERT_EQUAL(e.err, err);
	CU_ASSERT_EQUAL(e.line, line);
	l = strlen(e.path);
	CU_ASSERT_TRUE(l >= pl && !strcmp(e.path + l - pl, path_end));
	CU_ASSERT_STRING_EQUAL(e.msg, msg);
}

static void test_read_errors(void)
{
	const char *root = fake_root("bad");
	const char * const names[] = { "nosuch" };
	struct atag_bufstat_opts opts = { .names = names, .nr_names = 1 };

	check_error(root, NULL, ENOENT, "/bad/buffer_size_kb", 0,
		    "not a tracefs directory: no buffer_size_kb");
	put(root, "buffer_size_kb", "1410\n");
	put(root, "per_cpu/cpu0/stats", "entries: 3\noverrun: 0\ncommit overrun: 0\nbytes: lots\n");
	check_error(root, NULL, EINVAL, "/bad/per_cpu/cpu0/stats", 4,
		    "malformed line 'bytes: lots'");
	put(root, "per_cpu/cpu0/stats", stats_text);
	check_error(root, &opts, ENOENT, "/bad/instances/nosuch", 0, "no such instance");
	put(root, "trace_stats/memory_usage_kb", "global: 48\ninstances: 1O\n");
	check_error(root, NULL, EINVAL, "/bad/trace_stats/memory_usage_kb", 2,
		    "malformed line 'instances: 1O'");
	put(root, "trace_stats/memory_usage_kb", "global: 48\n");
	put(root, "remotes/r/buffer_size_kb", "7 (maybe)\n");
	check_error(root, NULL, EINVAL, "/bad/remotes/r/buffer_size_kb", 1,
		    "malformed line '7 (maybe)'");
	check_error("/nonexistent/atag", NULL, ENOENT, "/nonexistent/atag", 0,
		    "No such file or directory");
}

static void test_find_tracefs(void)
{
	const char *root = fake_root("mounts");
	char path[PATH_MAX + 8], dir[PATH_MAX];

	snprintf(path, sizeof(path), "%s/m1", root);
	put(root, "m1", "proc /proc proc rw 0 0\n"
		  "none /sys/kernel/debug debugfs rw 0 0\n"
		  "nodev /mnt/my\\040trace tracefs rw,relatime 0 0\n"
		  "nodev /sys/kernel/tracing tracefs rw 0 0\n");
	CU_ASSERT_EQUAL(atag_tracefs_find(path, dir, sizeof(dir)), 0);
	CU_ASSERT_STRING_EQUAL(dir, "/mnt/my trace");
	snprintf(path, sizeof(path), "%s/m2", root);
	put(root, "m2", "proc /proc proc rw 0 0\n");
	CU_ASSERT_EQUAL(atag_tracefs_find(path, dir, sizeof(dir)), -ENODEV);
	snprintf(path, sizeof(path), "%s/m3", root);
	CU_ASSERT_EQUAL(atag_tracefs_find(path, dir, sizeof(dir)), -ENOENT);
}

static void add_tests(void)
{
	CU_pSuite s = CU_add_suite("bufstat", NULL, NULL);

	CU_add_test(s, "parse buffer_size_kb", test_parse_size);
	CU_add_test(s, "parse per_cpu stats", test_parse_stats);
	CU_add_test(s, "parse memory_usage_kb, split format", test_parse_memusage_split);
	CU_add_test(s, "parse memory_usage_kb, earlier format", test_parse_memusage_earlier);
	CU_add_test(s, "parse memory_usage_kb, malformed", test_parse_memusage_malformed);
	CU_add_test(s, "parse buffer_meta", test_parse_meta);
	CU_add_test(s, "parse remote size, header_page, flags", test_parse_small);
	CU_add_test(s, "parse snapshot", test_parse_snapshot);
	CU_add_test(s, "parse the backup instance of a command line", test_parse_backup);
	CU_add_test(s, "sub-buffers and bytes", test_pages);
	CU_add_test(s, "fill rate", test_fill);
	CU_add_test(s, "compute per buffer", test_compute_instances);
	CU_add_test(s, "compute a freed snapshot beside large sub-buffers",
		    test_compute_freed_snapshot_pages);
	CU_add_test(s, "compute rows", test_compute_rows);
	CU_add_test(s, "a loaded remote of unknown CPUs", test_compute_remote_cpus_unknown);
	CU_add_test(s, "compute with unknowns", test_compute_unknown);
	CU_add_test(s, "difference reasons", test_diff_reasons);
	CU_add_test(s, "read a fake tree", test_read_tree);
	CU_add_test(s, "read errors", test_read_errors);
	CU_add_test(s, "find the tracefs mount", test_find_tracefs);
}

ATAG_UTEST_SUITE("bufstat", add_tests)
