/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Our copy of the /proc/allocinfo ioctl ABI (include/uapi/linux/alloc_tag.h).
 *
 * Two layers:
 *
 *  - The base ABI merged in Linux 7.3 ("alloc_tag: introduce IOCTL-based filtering
 *    for MAP"): CONTENT_ID, GET_AT, GET_NEXT and struct allocinfo_filter with the
 *    module/function/file/line/inaccurate/min_size/max_size criteria. Verified against
 *    the merged header; kept here as the "v73" structs so a kernel with only the base
 *    series can still be listed through ioctls.
 *
 *  - The selective-tracing series ("alloc_tag: Introduce selective tracing for MAP",
 *    v2, shared/seeds/001). From its patch 2/4: struct allocinfo_toggle_traces
 *    { filter; __u64 enable; } and ALLOCINFO_IOC_TOGGLE_TRACE = _IOW(0xA6, 3, ...),
 *    which turns tracing on for every tag matching the filter when enable is non-zero
 *    (the kernel tests !!enable), off when it is 0; EPERM without CAP_SYS_ADMIN,
 *    EINVAL for a bad filter, -ENOENT when none matched (tags already in the state
 *    count as matched). This tool always sends 0 or 1.
 *    INFERRED, because patch 3/4 is not in the seeds (only the names, from 4/4's
 *    selftest):
 *      * ALLOCINFO_FILTER_TRACE_ON = 7 (mask 0x80), appended after the released bits;
 *      * struct allocinfo_filter grows a trailing __u64 tracing (the filter value,
 *        compared as !!trace_on == !!tracing, mirroring 'inaccurate');
 *      * struct allocinfo_counter carries __u8 trace_on in what was tail padding,
 *        so its size (24) and GET_NEXT stay unchanged.
 *    Growing the filter changes sizeof(struct allocinfo_get_at) and therefore the
 *    GET_AT number: 0xC1D0A601 in 7.3, 0xC1D8A601 with the series. A kernel with the
 *    series defines that one number and answers the 7.3 one with ENOTTY (the series
 *    defines no second number; the VM tier's kernel does the same).
 *
 * What the tool does with it (lib/kernel/atag-allocinfo.c): GET_AT with the series'
 * number first; on ENOTTY, the 7.3 number (a kernel with the base ABI only: listing
 * without the trace state, no toggle); on ENOTTY again, the text of /proc/allocinfo.
 * The FUSE double (tests/progs/atag-fakeinfo.c) serves each of the three kernels.
 *
 * The static asserts pin every size and number, so a change here is deliberate.
 */
#ifndef _ATAG_ALLOCINFO_UAPI_H
#define _ATAG_ALLOCINFO_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define ALLOCINFO_STR_SIZE	64

struct allocinfo_content_id {
	__u64 id;
};

struct allocinfo_tag {
	char modname[ALLOCINFO_STR_SIZE];
	char function[ALLOCINFO_STR_SIZE];
	char filename[ALLOCINFO_STR_SIZE];
	__u64 lineno;
};

struct allocinfo_counter {
	__u64 bytes;
	__u64 calls;
	__u8 accurate;
	__u8 trace_on;		/* tracing series (inferred); 0 on a 7.3 base kernel */
	__u8 __pad[6];
} __attribute__((aligned(8)));

struct allocinfo_tag_data {
	struct allocinfo_tag tag;
	struct allocinfo_counter counter;
};

enum {
	ALLOCINFO_FILTER_MODNAME,
	ALLOCINFO_FILTER_FUNCTION,
	ALLOCINFO_FILTER_FILENAME,
	ALLOCINFO_FILTER_LINENO,
	ALLOCINFO_FILTER_INACCURATE,
	ALLOCINFO_FILTER_MIN_SIZE,
	ALLOCINFO_FILTER_MAX_SIZE,
	ALLOCINFO_FILTER_TRACE_ON,	/* tracing series (inferred) */
	__ALLOCINFO_FILTER_LAST = ALLOCINFO_FILTER_TRACE_ON
};

#define ALLOCINFO_FILTER_MASK_MODNAME		(1 << ALLOCINFO_FILTER_MODNAME)
#define ALLOCINFO_FILTER_MASK_FUNCTION		(1 << ALLOCINFO_FILTER_FUNCTION)
#define ALLOCINFO_FILTER_MASK_FILENAME		(1 << ALLOCINFO_FILTER_FILENAME)
#define ALLOCINFO_FILTER_MASK_LINENO		(1 << ALLOCINFO_FILTER_LINENO)
#define ALLOCINFO_FILTER_MASK_INACCURATE	(1 << ALLOCINFO_FILTER_INACCURATE)
#define ALLOCINFO_FILTER_MASK_MIN_SIZE		(1 << ALLOCINFO_FILTER_MIN_SIZE)
#define ALLOCINFO_FILTER_MASK_MAX_SIZE		(1 << ALLOCINFO_FILTER_MAX_SIZE)
#define ALLOCINFO_FILTER_MASK_TRACE_ON		(1 << ALLOCINFO_FILTER_TRACE_ON)

#define ALLOCINFO_FILTER_MASKS			((1 << (__ALLOCINFO_FILTER_LAST + 1)) - 1)
#define ALLOCINFO_FILTER_MASKS_V73		((1 << (ALLOCINFO_FILTER_MAX_SIZE + 1)) - 1)

struct allocinfo_filter {
	__u64 mask;
	struct allocinfo_tag fields;
	__u64 min_size;
	__u64 max_size;
	__u64 inaccurate;	/* filter criteria only; see allocinfo_counter.accurate */
	/* tracing series (inferred): match tags whose trace_on == !!tracing */
	__u64 tracing;
};

struct allocinfo_get_at {
	__u64 pos;				/* input */
	struct allocinfo_filter filter;		/* input */
	struct allocinfo_tag_data data;		/* output */
};

struct allocinfo_toggle_traces {
	struct allocinfo_filter filter;
	__u64 enable;
};

/* The 7.3 base layout, without the tracing series' 'tracing' filter field. */
struct allocinfo_filter_v73 {
	__u64 mask;
	struct allocinfo_tag fields;
	__u64 min_size;
	__u64 max_size;
	__u64 inaccurate;
};

struct allocinfo_get_at_v73 {
	__u64 pos;
	struct allocinfo_filter_v73 filter;
	struct allocinfo_tag_data data;
};

#define _ALLOCINFO_IOC_CONTENT_ID	0
#define _ALLOCINFO_IOC_GET_AT		1
#define _ALLOCINFO_IOC_GET_NEXT		2
#define _ALLOCINFO_IOC_TOGGLE_TRACE	3

#define ALLOCINFO_IOC_BASE		0xA6
#define ALLOCINFO_IOC_CONTENT_ID	_IOR(ALLOCINFO_IOC_BASE, _ALLOCINFO_IOC_CONTENT_ID,	\
					     struct allocinfo_content_id)
#define ALLOCINFO_IOC_GET_AT		_IOWR(ALLOCINFO_IOC_BASE, _ALLOCINFO_IOC_GET_AT,	\
					      struct allocinfo_get_at)
#define ALLOCINFO_IOC_GET_AT_V73	_IOWR(ALLOCINFO_IOC_BASE, _ALLOCINFO_IOC_GET_AT,	\
					      struct allocinfo_get_at_v73)
#define ALLOCINFO_IOC_GET_NEXT		_IOR(ALLOCINFO_IOC_BASE, _ALLOCINFO_IOC_GET_NEXT,	\
					     struct allocinfo_tag_data)
#define ALLOCINFO_IOC_TOGGLE_TRACE	_IOW(ALLOCINFO_IOC_BASE, _ALLOCINFO_IOC_TOGGLE_TRACE,	\
					     struct allocinfo_toggle_traces)

_Static_assert(sizeof(struct allocinfo_content_id) == 8, "allocinfo_content_id");
_Static_assert(sizeof(struct allocinfo_tag) == 200, "allocinfo_tag");
_Static_assert(sizeof(struct allocinfo_counter) == 24, "allocinfo_counter");
_Static_assert(sizeof(struct allocinfo_tag_data) == 224, "allocinfo_tag_data");
_Static_assert(sizeof(struct allocinfo_filter_v73) == 232, "allocinfo_filter (7.3)");
_Static_assert(sizeof(struct allocinfo_get_at_v73) == 464, "allocinfo_get_at (7.3)");
_Static_assert(sizeof(struct allocinfo_filter) == 240, "allocinfo_filter");
_Static_assert(sizeof(struct allocinfo_get_at) == 472, "allocinfo_get_at");
_Static_assert(sizeof(struct allocinfo_toggle_traces) == 248, "allocinfo_toggle_traces");

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__riscv)
_Static_assert(ALLOCINFO_IOC_CONTENT_ID == 0x8008A600, "CONTENT_ID number");
_Static_assert(ALLOCINFO_IOC_GET_AT_V73 == 0xC1D0A601, "GET_AT number (7.3)");
_Static_assert(ALLOCINFO_IOC_GET_AT == 0xC1D8A601, "GET_AT number");
_Static_assert(ALLOCINFO_IOC_GET_NEXT == 0x80E0A602, "GET_NEXT number");
_Static_assert(ALLOCINFO_IOC_TOGGLE_TRACE == 0x40F8A603, "TOGGLE_TRACE number");
#endif

#endif /* _ATAG_ALLOCINFO_UAPI_H */
