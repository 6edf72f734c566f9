/* SPDX-License-Identifier: GPL-2.0 */
/*
 * render-sample.h - a report built by hand, the input of the renderer tests
 * (tests/render-utest.c and tests/progs/render-pprof.c).
 *
 * Tags, in report order (the last one not selected):
 *   A  alloc_inode fs/inode.c:261, built-in; 3 stacks (one empty), 7 lifetimes;
 *      its stacks cover all but 1 alloc / 512 bytes (the empty stack's)
 *   B  xfs_buf_alloc fs/xfs/xfs_buf.c:231 [xfs]; 1 stack covering everything,
 *      with a frame holding ';' and a space and an unsymbolised one; no lifetime
 *   C  unknown call site (tag pointer only); no stack; 3 lifetimes
 *   D  kmem-style call site kmalloc_caller+0x2a (no file), source kmem; 2 stacks: one
 *      through the call site (inside it the allocator's frame), one not showing it
 *   E  odd"fn a,b.c:3 [mo\nd]: every character CSV must quote
 *   F  not selected: must appear nowhere
 * Live allocations: of A (stack A1), of B (comm with a comma), of F, of E (no
 * comm, no stack).
 */
#ifndef _RENDER_SAMPLE_H
#define _RENDER_SAMPLE_H

#include <string.h>

#include "atag-render.h"
#include "atag-report.h"

enum { RS_A, RS_B, RS_C, RS_D, RS_E, RS_F, RS_NR_TAGS };

struct render_sample {
	struct atag_report		r;
	struct atag_report_tag		tags[RS_NR_TAGS];
	struct atag_report_tag		*tag_ptrs[RS_NR_TAGS];
	struct atag_report_stack	a1, a2, a_empty, b1, d1, d2;
	struct atag_report_stack	*a_stacks[3], *b_stacks[1], *d_stacks[2];
	struct atag_report_live		live[4];
	struct atag_report_file		files[2];
	char				*notices[1];
};

static char *rs_a1_frames[] = { "alloc_inode+0x1a", "new_inode+0x20", "do_sys_open+0x100" };
static char *rs_a2_frames[] = { "alloc_inode+0x1a", "iget_locked+0x44" };
static char *rs_b1_frames[] = { "xfs_buf_alloc+0x30", "weird;frame name+0x1",
				"0xffffffffc0de0000" };
static char *rs_d1_frames[] = { "__kmalloc_noprof+0x10", "kmalloc_caller+0x2a", "do_thing+0x5" };
static char *rs_d2_frames[] = { "__kmalloc_noprof+0x10", "other_fn+0x8" };

static inline void rs_tag(struct atag_report_tag *t, uint64_t tag, const char *function,
			  const char *file, long line, const char *module, long long offset)
{
	t->tag = tag;
	t->function = (char *)function;
	t->file = (char *)file;
	t->line = line;
	t->module = (char *)module;
	t->offset = offset;
	t->source = "alloc_tag";
	t->selected = true;
}

/* allocs, live, live_bytes, bytes_alloced */
static inline void rs_counts(struct atag_report_tag *t, uint64_t allocs, uint64_t live,
			     uint64_t live_bytes, uint64_t bytes_alloced)
{
	t->counts.allocs = allocs;
	t->counts.live = live;
	t->counts.live_bytes = live_bytes;
	t->counts.bytes_alloced = bytes_alloced;
}

static inline void rs_stack(struct atag_report_stack *s, char **frames, unsigned int nr,
			    uint64_t allocs, uint64_t live, uint64_t live_bytes,
			    uint64_t bytes_alloced)
{
	s->frames = frames;
	s->nr_frames = nr;
	s->counts.allocs = allocs;
	s->counts.live = live;
	s->counts.live_bytes = live_bytes;
	s->counts.bytes_alloced = bytes_alloced;
}

static inline void rs_live(struct atag_report_live *l, uint64_t ptr, struct atag_report_tag *t,
			   struct atag_report_stack *s, uint64_t bytes, int pid, const char *comm,
			   uint64_t alloc_ts, uint64_t age_ns)
{
	l->ptr = ptr;
	l->tag = t;
	l->stack = s;
	l->bytes = bytes;
	l->pid = pid;
	l->comm = (char *)comm;
	l->alloc_ts = alloc_ts;
	l->age_ns = age_ns;
}

static inline void rs_tags(struct render_sample *rs)
{
	struct atag_report_tag *t = rs->tags;
	int i;

	rs_tag(&t[RS_A], 0xffffffff82000000ULL, "alloc_inode", "fs/inode.c", 261, NULL, -1);
	rs_counts(&t[RS_A], 10, 2, 1024, 5120);
	t[RS_A].counts.frees = 7;
	t[RS_A].counts.unmatched_frees = 1;
	t[RS_A].counts.replaced = 1;
	t[RS_A].counts.peak_live_bytes = 2048;
	t[RS_A].counts.bytes_freed = 4096;
	for (i = 1; i <= 7; i++)
		atag_lifetime_add(&t[RS_A].lifetimes, i * 10);
	rs_tag(&t[RS_B], 0xffffffff82000040ULL, "xfs_buf_alloc", "fs/xfs/xfs_buf.c", 231, "xfs",
	       -1);
	rs_counts(&t[RS_B], 4, 4, 16384, 16384);
	t[RS_B].counts.peak_live_bytes = 16384;
	rs_tag(&t[RS_C], 0xffff888012345678ULL, NULL, NULL, -1, NULL, -1);
	rs_counts(&t[RS_C], 3, 0, 0, 300);
	t[RS_C].counts.frees = 3;
	t[RS_C].counts.partial_frees = 1;
	t[RS_C].counts.peak_live_bytes = 200;
	t[RS_C].counts.bytes_freed = 280;
	for (i = 5; i <= 7; i++)
		atag_lifetime_add(&t[RS_C].lifetimes, i * 10);
	rs_tag(&t[RS_D], 0xffffffff8123456aULL, "kmalloc_caller", NULL, -1, NULL, 0x2a);
	rs_counts(&t[RS_D], 2, 1, 64, 128);
	t[RS_D].source = "kmem";
	rs_tag(&t[RS_E], 0xffffffff82000080ULL, "odd\"fn", "a,b.c", 3, "mo\nd", -1);
	rs_counts(&t[RS_E], 1, 1, 8, 8);
	rs_tag(&t[RS_F], 0xffffffff820000c0ULL, "hidden", "mm/hidden.c", 1, NULL, -1);
	rs_counts(&t[RS_F], 100, 100, 100000, 100000);
	t[RS_F].selected = false;
}

static inline void rs_stacks(struct render_sample *rs)
{
	rs_stack(&rs->a1, rs_a1_frames, 3, 6, 1, 512, 3072);
	rs_stack(&rs->a2, rs_a2_frames, 2, 3, 1, 512, 1536);
	rs_stack(&rs->a_empty, NULL, 0, 1, 0, 0, 512);
	rs_stack(&rs->b1, rs_b1_frames, 3, 4, 4, 16384, 16384);
	rs->a_stacks[0] = &rs->a1;
	rs->a_stacks[1] = &rs->a2;
	rs->a_stacks[2] = &rs->a_empty;
	rs->tags[RS_A].stacks = rs->a_stacks;
	rs->tags[RS_A].nr_stacks = 3;
	rs->b_stacks[0] = &rs->b1;
	rs->tags[RS_B].stacks = rs->b_stacks;
	rs->tags[RS_B].nr_stacks = 1;
	rs_stack(&rs->d1, rs_d1_frames, 3, 1, 1, 64, 64);
	rs_stack(&rs->d2, rs_d2_frames, 2, 1, 0, 0, 64);
	rs->d_stacks[0] = &rs->d1;
	rs->d_stacks[1] = &rs->d2;
	rs->tags[RS_D].stacks = rs->d_stacks;
	rs->tags[RS_D].nr_stacks = 2;
}

static inline void render_sample_init(struct render_sample *rs)
{
	int i;

	memset(rs, 0, sizeof(*rs));
	rs_tags(rs);
	rs_stacks(rs);
	for (i = 0; i < RS_NR_TAGS; i++)
		rs->tag_ptrs[i] = &rs->tags[i];
	rs_live(&rs->live[0], 0xffff888000001000ULL, &rs->tags[RS_A], &rs->a1, 512, 42, "bash",
		1000000, 5000);
	rs_live(&rs->live[1], 0xffff888000002000ULL, &rs->tags[RS_B], &rs->b1, 4096, 7,
		"kworker/0:1,x", 1000500, 4500);
	rs_live(&rs->live[2], 0xffff888000003000ULL, &rs->tags[RS_F], NULL, 1000, 1, "init",
		1000600, 4400);
	rs_live(&rs->live[3], 0xffff888000004000ULL, &rs->tags[RS_E], NULL, 8, 99, NULL,
		1002000, 3000);
	/* a suspect whose task ran at the end, one explained, a suspect of no known task */
	rs->live[0].suspect = true;
	rs->live[1].suspect_why = "a reason, with a comma";
	rs->live[1].task_exited = 1;
	rs->live[2].suspect = true;
	rs->live[3].suspect = true;
	rs->live[3].task_exited = -1;
	rs->files[0] = (struct atag_report_file){ .path = "a.dat", .source = "alloc_tag",
						  .first_ts = 1000000, .last_ts = 1005000 };
	rs->files[1] = (struct atag_report_file){ .path = "b.dat", .source = "alloc_tag",
						  .first_ts = 999000, .last_ts = 1004000 };
	rs->notices[0] = "lost 3 events on CPU 1";
	rs->r = (struct atag_report){
		.files = rs->files, .nr_files = 2,
		.tags = rs->tag_ptrs, .nr_tags = RS_NR_TAGS, .nr_selected = RS_NR_TAGS - 1,
		.live = rs->live, .nr_live = 4,
		.notices = rs->notices, .nr_notices = 1,
	};
}

static inline void render_sample_free(struct render_sample *rs)
{
	int i;

	for (i = 0; i < RS_NR_TAGS; i++)
		atag_lifetime_free(&rs->tags[i].lifetimes);
}

#endif /* _RENDER_SAMPLE_H */
