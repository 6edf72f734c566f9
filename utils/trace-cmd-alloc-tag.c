// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag: the command table and main().
 *
 * Named like git's and perf's dashed external commands, so that a trace-cmd with
 * dashed-external dispatch would run it as "trace-cmd alloc-tag".
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atag-bigmem.h"
#include "atag-cmd.h"
#include "atag-report.h"

struct command {
	const char	*name;
	void		(*run)(int argc, char **argv);
	const char	*summary;
};

static const struct command commands[] = {
	{ "list",	trace_alloc_tag_list,
				"list allocation call sites (tags) and their trace state" },
	{ "enable",	trace_alloc_tag_enable,
				"turn tracing on for matching call sites" },
	{ "disable",	trace_alloc_tag_disable,
				"turn tracing off for matching call sites" },
	{ "record",	trace_alloc_tag_record,
				"record allocation events with stacks into a trace.dat" },
	{ "report",	trace_alloc_tag_report,
				"stitch a trace.dat into allocation lifetimes" },
	{ "diff",	trace_alloc_tag_diff,
				"compare two recordings by call site and stack" },
	{ "top",	trace_alloc_tag_top,
				"watch live allocations by call site as they happen" },
	{ "leaks",	trace_alloc_tag_leaks,
				"hunt leaks: old live allocations by call site and stack" },
	{ "stat",	trace_alloc_tag_stat,
				"show the memory tracing's own ring buffers use" },
	{ "reset",	trace_alloc_tag_reset,
				"undo what an interrupted record left behind" },
	{ NULL }
};

static void print_usage(FILE *f)
{
	const struct command *c;

	fprintf(f,
		"usage: %s [--version] [-h|--help] <command> [<args>]\n"
		"\n"
		"Who allocates kernel memory, for how long, and what tracing itself costs.\n"
		"\n"
		"commands:\n", ATAG_PROG);
	for (c = commands; c->name; c++)
		fprintf(f, "  %-9s %s\n", c->name, c->summary);
	fprintf(f,
		"\n"
		"'%s help <command>' or '%s <command> --help' shows a command's options.\n",
		ATAG_PROG, ATAG_PROG);
}

static const struct command *find_command(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void __attribute__((noreturn)) run_command(const struct command *c, int argc, char **argv)
{
	atag_cmd_name = c->name;
	c->run(argc, argv);
	exit(ATAG_EXIT_OK);
}

/* Output that did not reach its destination (a full disk, /dev/full) is a failure. */
static void check_stdout(void)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "%s: %s: %s\n", ATAG_PROG, atag_output_name(),
			errno ? strerror(errno) : "write error");
		_exit(ATAG_EXIT_FAIL);
	}
}

/*
 * Memory that was freed is used again rather than handed back to the kernel: a
 * report frees its read windows and its pipe before it folds and renders, and
 * the stitching thread's allocations are freed for the main thread's to reuse.
 * A page the process touches for the first time costs a page fault, and on
 * virtual machines a fault is expensive. With glibc's defaults (blocks over
 * 128 KiB mmapped, an arena per thread, the top of the heap trimmed) the same
 * pages are handed back and faulted in again; with these they are reused. Peak
 * memory does not grow with it: it still follows the live allocations and the
 * stacks (make bench reports peak RSS beside the times; bench/README.md).
 *
 * The heap's first HEAP_HINT bytes are then marked for transparent huge pages
 * (where the system has them "madvise"; "always" does so anyway, "never" not at
 * all): a 2 MiB page faults once where 512 small ones fault 512 times, for a few
 * MiB more of peak RSS. A command about to read a large trace marks HEAP_HINT_BIG
 * bytes from the top of the heap (atag_expect_inputs(); the first 30 MiB again:
 * with 210 MiB past them a live set of a million took 40 MiB more RSS): where a
 * trace has tens of thousands of stacks, the tables looked up at every event span
 * megabytes, which small pages make a TLB miss each (a costly one on a virtual
 * machine). The heap grows untouched, in blocks below M_MMAP_THRESHOLD; that costs
 * address space, not RSS, but each block costs a sanitizer or valgrind (which bring
 * their own malloc) its bookkeeping: none is hinted under ASan or TSan, and the
 * large hint is for large inputs only.
 */
#define HEAP_HINT	(30UL << 20)
#define HEAP_HINT_BIG	(240UL << 20)
#define HEAP_HINT_PIECE	(30UL << 20)	/* below M_MMAP_THRESHOLD: from the heap */
#define LARGE_INPUT	(64ULL << 20)	/* bytes of trace.dat that make a large input */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HINT_HEAP	0
#else
#define HINT_HEAP	1
#endif

static void tune_malloc(void)
{
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	if (HINT_HEAP)
		atag_bigmem_hint_heap(HEAP_HINT, HEAP_HINT_PIECE);
}

void atag_expect_inputs(const char *const *paths, int nr)
{
	static bool done;
	uint64_t bytes = 0;
	struct stat st;
	int i;

	for (i = 0; i < nr; i++)
		if (!stat(paths[i], &st) && S_ISREG(st.st_mode))
			bytes += st.st_size;
	if (HINT_HEAP && bytes >= LARGE_INPUT && !done) {
		done = true;
		atag_bigmem_hint_heap(HEAP_HINT_BIG, HEAP_HINT_PIECE);
	}
}

/*
 * A report written is not freed block by block before the command exits: the
 * process's end gives its memory back at once, where freeing a report of
 * 100 000 distinct stacks (a few hundred thousand blocks) took 0.043 s of a
 * 0.5 s run (20 ms of 0.33 s with 50 000 stacks, 0.1 s with a million live
 * allocations). It stays reachable, so that no leak checker calls it lost.
 */
#define KEPT_REPORTS	4

/* written, never read: volatile, or the stores would be left out */
static struct atag_report *volatile kept_reports[KEPT_REPORTS];

void atag_report_keep(struct atag_report *r)
{
	static int nr;

	if (r && nr < KEPT_REPORTS)
		kept_reports[nr++] = r;
	else
		atag_report_free(r);
}

int main(int argc, char **argv)
{
	const struct command *c;

	tune_malloc();
	atexit(check_stdout);

	if (argc < 2) {
		print_usage(stderr);
		return ATAG_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_usage(stdout);
		return ATAG_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("%s version %s\n", ATAG_PROG, ATAG_VERSION);
		return ATAG_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			print_usage(stdout);
			return ATAG_EXIT_OK;
		}
		c = find_command(argv[2]);
		if (!c) {
			fprintf(stderr, "%s: no such command '%s'\n", ATAG_PROG, argv[2]);
			atag_usage_hint();
			return ATAG_EXIT_USAGE;
		}
		run_command(c, 3, (char *[]){ argv[0], argv[2], "--help", NULL });
	}
	c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "%s: '%s' is not a command\n", ATAG_PROG, argv[1]);
		atag_usage_hint();
		return ATAG_EXIT_USAGE;
	}
	run_command(c, argc, argv);
}
