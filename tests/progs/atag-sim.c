// SPDX-License-Identifier: GPL-2.0
/*
 * atag-sim: emits real alloc_tag:alloc_tag_hit / alloc_tag_mem_alloced /
 * alloc_tag_mem_freed trace events on a kernel without the tracing series, through
 * uprobe events in group alloc_tag on this program's own functions (x86-64).
 *
 *   atag-sim install    create the three uprobe events (fails if the group exists)
 *   atag-sim remove [--force]
 *                       remove those of them that probe this program; without
 *                       --force an event still enabled somewhere is an error (EBUSY)
 *   atag-sim run [-r ROUNDS] [--loop] [--delay-ms N] [--ready FILE] [--expect FILE]
 *                [--exit STATUS] [--leak FUNCTION:N]
 *       Simulates allocations at the call sites of the allocinfo double: the state
 *       file next to $ATAG_ALLOCINFO (tests/doubles/fakeinfo-model.h) lists the tags;
 *       like the kernel, only tags traced at that moment emit events. Each round
 *       allocates one object per traced tag (hit, then alloced) and frees the objects
 *       of the round before (freed); the last round's objects stay live. --loop runs
 *       rounds until SIGINT/SIGTERM. --ready FILE is written with our pid after the
 *       first round. --leak makes N more allocations at the tag of FUNCTION (if
 *       traced) after the last round, never freed. --expect writes every event
 *       emitted, one a line:
 *         hit TAG MODULE FILE FUNCTION LINE | alloc PTR TAG BYTES | free PTR TAG BYTES
 *       (MODULE is NONE for built-in tags, as the tracepoint says). Tag pointers are
 *       0xffffffffc0de0000 + 0x100 * (index in the state file); object bytes are
 *       64 * (index + 1).
 *
 * The uprobe fetch arguments give the events the tracepoints' field names:
 *   hit:     tag modname filename function lineno
 *   alloced: ptr tag bytes        freed: ptr tag bytes
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#define GROUP		"alloc_tag"
#define TAG_BASE	0xffffffffc0de0000ULL
#define PTR_BASE	0xffff888000100000ULL
#define MAX_TAGS	64

struct sim_tag {
	int			traced;
	char			module[256], file[256], function[256];
	unsigned long long	line;
};

struct live {
	unsigned long long	ptr, tag, bytes;
};

static volatile sig_atomic_t stop;

/* The probed functions: their arguments are in the x86-64 argument registers. */
__attribute__((noipa)) void sim_alloc_tag_hit(unsigned long long tag, const char *modname,
					      const char *filename, const char *function,
					      unsigned int lineno);
__attribute__((noipa)) void sim_alloc_tag_mem_alloced(unsigned long long ptr,
						      unsigned long long tag,
						      unsigned long long bytes);
__attribute__((noipa)) void sim_alloc_tag_mem_freed(unsigned long long ptr,
						    unsigned long long tag,
						    unsigned long long bytes);

__attribute__((noipa)) void sim_alloc_tag_hit(unsigned long long tag, const char *modname,
					      const char *filename, const char *function,
					      unsigned int lineno)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noipa)) void sim_alloc_tag_mem_alloced(unsigned long long ptr,
						      unsigned long long tag,
						      unsigned long long bytes)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noipa)) void sim_alloc_tag_mem_freed(unsigned long long ptr,
						    unsigned long long tag,
						    unsigned long long bytes)
{
	__asm__ volatile("" ::: "memory");
}

static const struct {
	const char	*event;
	void		*func;
	const char	*args;
} probes[] = {
	{ "alloc_tag_hit", sim_alloc_tag_hit,
	  "tag=%di:x64 modname=+0(%si):ustring filename=+0(%dx):ustring "
	  "function=+0(%cx):ustring lineno=%r8:u32" },
	{ "alloc_tag_mem_alloced", sim_alloc_tag_mem_alloced,
	  "ptr=%di:x64 tag=%si:x64 bytes=%dx:u64" },
	{ "alloc_tag_mem_freed", sim_alloc_tag_mem_freed,
	  "ptr=%di:x64 tag=%si:x64 bytes=%dx:u64" },
};
#define NR_PROBES	(sizeof(probes) / sizeof(probes[0]))

static int die(const char *fmt, const char *arg)
{
	fprintf(stderr, "atag-sim: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

/* ------------------------------------------------------------------ uprobes */

/* The file offset of a function of this program, from its mapping. */
static unsigned long long file_offset(void *func, const char *exe)
{
	unsigned long long start, end, pgoff, addr = (unsigned long)func;
	char line[PATH_MAX + 128], path[PATH_MAX];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		die("cannot read %s", "/proc/self/maps");
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &pgoff,
			   path) < 3)
			continue;
		if (addr >= start && addr < end && !strcmp(path, exe)) {
			fclose(f);
			return addr - start + pgoff;
		}
	}
	fclose(f);
	return die("no mapping of %s holds the probed function", exe);
}

static int install(const char *exe)
{
	struct tracefs_dynevent *ev;
	unsigned int i;

	if (tracefs_event_file_exists(NULL, GROUP, probes[0].event, "format"))
		die("event group %s already exists; not touching it", GROUP);
	for (i = 0; i < NR_PROBES; i++) {
		ev = tracefs_uprobe_alloc(GROUP, probes[i].event, exe,
					  file_offset(probes[i].func, exe), probes[i].args);
		if (!ev || tracefs_dynevent_create(ev))
			die("cannot create uprobe event %s", probes[i].event);
		tracefs_dynevent_free(ev);
	}
	return 0;
}

static int remove_probes(const char *exe, bool force)
{
	struct tracefs_dynevent **evs;
	char *addr = NULL;
	int i, ret = 0;

	evs = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_UPROBE, GROUP);
	for (i = 0; evs && evs[i]; i++) {
		tracefs_dynevent_info(evs[i], NULL, NULL, NULL, &addr, NULL);
		/* only the probes on this program: someone else's are not ours */
		if (addr && !strncmp(addr, exe, strlen(exe)) && addr[strlen(exe)] == ':' &&
		    tracefs_dynevent_destroy(evs[i], force)) {
			fprintf(stderr, "atag-sim: cannot remove uprobe %s: %s\n", addr,
				strerror(errno));
			ret = 1;
		}
		free(addr);
		addr = NULL;
	}
	tracefs_dynevent_list_free(evs);
	return ret;
}

/* ------------------------------------------------------------------ the workload */

static char *state_path(void)
{
	const char *ai = getenv("ATAG_ALLOCINFO");
	static char path[PATH_MAX];
	char copy[PATH_MAX];

	if (!ai || !*ai)
		die("%s", "ATAG_ALLOCINFO must name the allocinfo double");
	snprintf(copy, sizeof(copy), "%s", ai);
	snprintf(path, sizeof(path), "%s/state", dirname(copy));
	return path;
}

static int read_tags(struct sim_tag *tags)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(state_path(), "r");

	if (!f)
		die("cannot read %s", state_path());
	while (n < MAX_TAGS && fgets(line, sizeof(line), f)) {
		struct sim_tag *t = &tags[n];

		if (sscanf(line, "tag %d %255s %255s %llu %255s", &t->traced, t->module, t->file,
			   &t->line, t->function) == 5)
			n++;
	}
	fclose(f);
	return n;
}

static void emit_free(FILE *expect, const struct live *l)
{
	sim_alloc_tag_mem_freed(l->ptr, l->tag, l->bytes);
	if (expect)
		fprintf(expect, "free %#llx %#llx %llu\n", l->ptr, l->tag, l->bytes);
}

/* One round: free the previous round's objects, allocate one per traced tag. */
static void round_once(FILE *expect, struct live *prev, int *nr_prev, unsigned long long *seq)
{
	struct sim_tag tags[MAX_TAGS];
	const char *mod;
	int i, n = read_tags(tags), nr = 0;
	struct live l;

	for (i = 0; i < *nr_prev; i++)
		emit_free(expect, &prev[i]);
	for (i = 0; i < n; i++) {
		if (!tags[i].traced)
			continue;
		mod = strcmp(tags[i].module, "-") ? tags[i].module : "NONE";
		l.tag = TAG_BASE + 0x100ULL * i;
		l.ptr = PTR_BASE + 0x40ULL * (*seq)++;
		l.bytes = 64ULL * (i + 1);
		sim_alloc_tag_hit(l.tag, mod, tags[i].file, tags[i].function, tags[i].line);
		sim_alloc_tag_mem_alloced(l.ptr, l.tag, l.bytes);
		if (expect)
			fprintf(expect, "hit %#llx %s %s %s %llu\nalloc %#llx %#llx %llu\n", l.tag,
				mod, tags[i].file, tags[i].function, tags[i].line, l.ptr, l.tag,
				l.bytes);
		prev[nr++] = l;
	}
	*nr_prev = nr;
	if (expect)
		fflush(expect);
}

/* N allocations at the traced tag of @function, never freed. */
static void leak(FILE *expect, const char *function, int n, unsigned long long *seq)
{
	struct sim_tag tags[MAX_TAGS];
	int i, k, nr = read_tags(tags);
	const char *mod;
	struct live l;

	for (i = 0; i < nr; i++) {
		if (!tags[i].traced || strcmp(tags[i].function, function))
			continue;
		mod = strcmp(tags[i].module, "-") ? tags[i].module : "NONE";
		for (k = 0; k < n; k++) {
			l.tag = TAG_BASE + 0x100ULL * i;
			l.ptr = PTR_BASE + 0x40ULL * (*seq)++;
			l.bytes = 64ULL * (i + 1);
			sim_alloc_tag_hit(l.tag, mod, tags[i].file, tags[i].function,
					  tags[i].line);
			sim_alloc_tag_mem_alloced(l.ptr, l.tag, l.bytes);
			if (expect)
				fprintf(expect, "hit %#llx %s %s %s %llu\nalloc %#llx %#llx %llu\n",
					l.tag, mod, tags[i].file, tags[i].function, tags[i].line,
					l.ptr, l.tag, l.bytes);
		}
	}
}

/* The ready file holds our pid, for tests that must stop an orphaned simulator. */
static void write_ready(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("cannot write %s", path);
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
}

static void on_signal(int sig)
{
	stop = 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int run(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "rounds", required_argument, NULL, 'r' }, { "loop", no_argument, NULL, 'l' },
		{ "delay-ms", required_argument, NULL, 'd' }, { "ready", required_argument, NULL, 'R' },
		{ "expect", required_argument, NULL, 'e' }, { "exit", required_argument, NULL, 'x' },
		{ "leak", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 }
	};
	char *leak_fn = NULL, *colon;
	int nr_leak = 0;
	int c, rounds = 3, loop = 0, status = 0, nr_prev = 0, r;
	const char *ready = NULL, *expect_path = NULL;
	unsigned long long seq = 0;
	struct live prev[MAX_TAGS];
	FILE *expect = NULL;
	long delay = 5;

	while ((c = getopt_long(argc, argv, "r:", lopts, NULL)) != -1) {
		switch (c) {
		case 'r': rounds = atoi(optarg); break;
		case 'l': loop = 1; break;
		case 'd': delay = atol(optarg); break;
		case 'R': ready = optarg; break;
		case 'e': expect_path = optarg; break;
		case 'x': status = atoi(optarg); break;
		case 'L':
			leak_fn = optarg;
			colon = strrchr(optarg, ':');
			if (!colon)
				die("--leak %s: FUNCTION:N", optarg);
			*colon = '\0';
			nr_leak = atoi(colon + 1);
			break;
		default: return 2;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (expect_path && !(expect = fopen(expect_path, "w")))
		die("cannot write %s", expect_path);
	for (r = 0; !stop && (loop || r < rounds); r++) {
		round_once(expect, prev, &nr_prev, &seq);
		if (r == 0 && ready)
			write_ready(ready);
		sleep_ms(delay);
	}
	if (leak_fn)
		leak(expect, leak_fn, nr_leak, &seq);
	if (expect)
		fclose(expect);
	return status;
}

int main(int argc, char **argv)
{
	char exe[PATH_MAX];

	if (!realpath("/proc/self/exe", exe))
		die("%s", "cannot resolve /proc/self/exe");
#ifndef __x86_64__
	die("%s", "the uprobe fetch arguments are written for x86-64 only");
#endif
	if (argc >= 2 && !strcmp(argv[1], "install"))
		return install(exe);
	if (argc >= 2 && !strcmp(argv[1], "remove"))
		return remove_probes(exe, argc >= 3 && !strcmp(argv[2], "--force"));
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run(argc - 1, argv + 1);
	fprintf(stderr, "usage: atag-sim install | remove [--force] | run [options]\n");
	return 2;
}
