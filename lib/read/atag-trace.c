// SPDX-License-Identifier: LGPL-2.1
/*
 * The trace.dat reader: opening files and walking their records. Its own
 * reading of the headers (atag-tracedat.c) and of the pages (atag-pages.c)
 * does the work for every file whose timestamps need no conversion; the others
 * go through libtracecmd, with the 1.3.1 workarounds (the probe child, the
 * stdout capture, the fault guard, the warning hook), after their pages were
 * checked. See atag-trace.h.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "atag-tracecmd.h"
#include "atag-pages.h"
#include "atag-symbols.h"
#include "atag-trace.h"
#include "atag-tracedat.h"
#include "atag-utils.h"

#define RELEASE_EVERY	(1 << 19)	/* records between dropping mapped pages */
#define PROBE_SECONDS	60		/* the probe child's time to open a file */

struct atag_trace {
	char			*path;
	int			fd;		/* the file */
	struct atag_tracedat	*td;		/* its headers, read here */
	struct atag_pages	*pages;		/* the walker of its pages */
	bool			direct;		/* walked here, not by libtracecmd */
	/* walks through libtracecmd (td->convert, or ATAG_PAGES=0) */
	int			tc_fd;		/* the file, or its padded copy */
	struct tracecmd_input	**buf;		/* [0] is the top buffer */
	int			**index;	/* per buffer: CPU id -> index in its list */
	int			*nr_index;
	bool			abandoned;	/* handles faulted: do not touch them */
	char			**warnings;	/* what the walks said */
	unsigned int		nr_warnings;
	unsigned int		lost_warnings;
};

#define MAX_WARNINGS	8

/* ------------------------------------------------------------ what the walks say */

/*
 * libtracecmd reports trouble through the weak tracecmd_warning(); ours keeps
 * the messages of the trace being read (they become notices), and prints the
 * others as libtracecmd would. The page walker says what it skipped the same way,
 * through its own hook.
 */
static __thread struct atag_trace *warn_sink;

static void keep_warning(struct atag_trace *t, const char *prefix, const char *fmt, va_list ap)
{
	char **p, *s, *m;

	if (!t) {
		fputs(prefix, stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		return;
	}
	if (t->nr_warnings == MAX_WARNINGS || vasprintf(&m, fmt, ap) < 0) {
		t->lost_warnings++;
		return;
	}
	if (asprintf(&s, "%s%s", prefix, m) < 0) {
		free(m);
		t->lost_warnings++;
		return;
	}
	free(m);
	p = realloc(t->warnings, (t->nr_warnings + 1) * sizeof(*p));
	if (!p) {
		free(s);
		return;
	}
	p[t->nr_warnings++] = s;
	t->warnings = p;
}

void tracecmd_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	keep_warning(warn_sink, "libtracecmd: ", fmt, ap);
	va_end(ap);
}

void tracecmd_critical(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	keep_warning(warn_sink, "libtracecmd: ", fmt, ap);
	va_end(ap);
}

static void pages_warning(void *ctx, const char *fmt, va_list ap)
{
	keep_warning(ctx, "", fmt, ap);
}

unsigned int atag_trace_nr_warnings(const struct atag_trace *t)
{
	return t->nr_warnings;
}

const char *atag_trace_warning(const struct atag_trace *t, unsigned int i)
{
	return i < t->nr_warnings ? t->warnings[i] : NULL;
}

/* ------------------------------------------------------------ libtracecmd */

struct capture {
	int	saved;
	int	fd;
};

/* libtracecmd prints to stdout when a file is cut short: into a memory file meanwhile */
static void capture_begin(struct capture *c)
{
	fflush(stdout);
	c->saved = dup(STDOUT_FILENO);
	c->fd = memfd_create("atag-stdout", MFD_CLOEXEC);
	if (c->saved < 0 || c->fd < 0 || dup2(c->fd, STDOUT_FILENO) < 0) {
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
	}
}

static void capture_end(struct capture *c)
{
	fflush(stdout);
	if (c->saved >= 0) {
		dup2(c->saved, STDOUT_FILENO);
		close(c->saved);
	}
	if (c->fd >= 0)
		close(c->fd);
}

static void close_buffers(struct atag_trace *t)
{
	int i;

	/* instances share the top handle's tep: close them first */
	for (i = t->td ? t->td->nr_buffers - 1 : -1; i >= 0; i--)
		if (t->buf && t->buf[i] && !t->abandoned)
			tracecmd_close(t->buf[i]);
	free(t->buf);
	t->buf = NULL;
}

/* Open every buffer from t->tc_fd with libtracecmd: 0, or a reason in @err. */
static int open_buffers(struct atag_trace *t, bool quiet, char *err, size_t errlen)
{
	struct tracecmd_input *top, *h;
	struct capture cap;
	int fd, n, i;

	fd = fcntl(t->tc_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	lseek(fd, 0, SEEK_SET);
	if (quiet)
		capture_begin(&cap);
	top = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (quiet)
		capture_end(&cap);
	if (!top) {
		close(fd);
		snprintf(err, errlen, "libtracecmd cannot read its headers");
		return -EINVAL;
	}
	n = tracecmd_buffer_instances(top);
	t->buf = calloc(t->td->nr_buffers, sizeof(*t->buf));
	if (!t->buf) {
		tracecmd_close(top);
		return -ENOMEM;
	}
	t->buf[0] = top;
	if (n != t->td->nr_buffers - 1) {
		snprintf(err, errlen, "libtracecmd sees %d instance buffers, not %d", n,
			 t->td->nr_buffers - 1);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (quiet)
			capture_begin(&cap);
		h = tracecmd_buffer_instance_handle(top, i);
		if (quiet)
			capture_end(&cap);
		if (!h || strcmp(tracecmd_buffer_instance_name(top, i), t->td->buf[i + 1].name)) {
			if (h)
				tracecmd_close(h);
			snprintf(err, errlen, "libtracecmd cannot read instance buffer '%s'",
				 t->td->buf[i + 1].name);
			return -EINVAL;
		}
		t->buf[i + 1] = h;
	}
	return 0;
}

/* The probe child: 0 if libtracecmd opens every buffer, else 1. */
static int __attribute__((noreturn)) probe_child(struct atag_trace *t, pid_t parent)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct atag_trace probe = { .tc_fd = t->tc_fd, .td = t->td };
	char err[256];
	size_t i;
	int null;

	/* it dies with report, whatever ends report */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
	/* a fault of libtracecmd's ends it quietly: no handler of the parent's runs here */
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		signal(faults[i], SIG_DFL);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	_exit(open_buffers(&probe, false, err, sizeof(err)) ? 1 : 0);
}

/*
 * Open the file in a child first: libtracecmd 1.3.1 crashes in its own cleanup
 * on some files. The child is killed after PROBE_SECONDS, and dies with us.
 * Returns 0 if it opened every buffer.
 */
static int probe(struct atag_trace *t)
{
	pid_t pid, parent = getpid();
	struct timespec start, now;
	int status, waited = 0;

	fflush(NULL);
	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		probe_child(t, parent);
	for (;;) {
		waited = waitpid(pid, &status, WNOHANG);
		if (waited)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= PROBE_SECONDS) {
			kill(pid, SIGKILL);
			waited = waitpid(pid, &status, 0);
			return -ETIMEDOUT;
		}
		poll(NULL, 0, 2);
	}
	if (waited < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EINVAL;
}

/*
 * A copy of the file padded with zeroes (empty pages) to the size its headers
 * claim, for libtracecmd, which refuses a file whose data runs past its end.
 * Bounded by what the file holds: a claim of more than twice its size (and a
 * MiB) is refused.
 */
static int pad_copy(struct atag_trace *t, char *err, size_t errlen)
{
	uint64_t size = t->td->needed, have = t->td->file_size;
	char buf[1 << 16];
	off_t off = 0;
	ssize_t n;
	int fd;

	if (size > 2 * have + (1 << 20)) {
		snprintf(err, errlen, "truncated: its data would need %llu bytes, and %s",
			 (unsigned long long)size, t->td->convert);
		return -EINVAL;
	}
	fd = memfd_create("atag-truncated", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = pread(t->fd, buf, sizeof(buf), off)) > 0) {
		if (write(fd, buf, n) != n) {
			close(fd);
			return -EIO;
		}
		off += n;
	}
	if (n < 0 || ftruncate(fd, size) < 0) {
		close(fd);
		return -EIO;
	}
	t->tc_fd = fd;
	return 0;
}

static int count_cb(const struct tep_record *rec, void *data)
{
	return 0;
}

/* Per buffer, the index of each CPU id in its list (libtracecmd hands out ids). */
static int index_cpus(struct atag_trace *t, char *err, size_t errlen)
{
	const struct atag_buffer_layout *b;
	int i, c, max;

	t->index = calloc(t->td->nr_buffers, sizeof(*t->index));
	t->nr_index = calloc(t->td->nr_buffers, sizeof(*t->nr_index));
	if (!t->index || !t->nr_index)
		return -ENOMEM;
	for (i = 0; i < t->td->nr_buffers; i++) {
		b = &t->td->buf[i];
		for (c = 0, max = -1; c < b->nr_cpus; c++)
			if (b->cpus[c].cpu > max)
				max = b->cpus[c].cpu;
		/* libtracecmd makes a table as long as the largest id */
		if (max >= ATAG_MAX_CPUS) {
			snprintf(err, errlen, "buffer '%s' names CPU %d, and %s", b->name, max,
				 t->td->convert);
			return -EINVAL;
		}
		t->index[i] = malloc((max + 1 > 0 ? max + 1 : 1) * sizeof(int));
		if (!t->index[i])
			return -ENOMEM;
		memset(t->index[i], 0xff, (max + 1 > 0 ? max + 1 : 1) * sizeof(int));
		t->nr_index[i] = max + 1;
		for (c = 0; c < b->nr_cpus; c++)
			t->index[i][b->cpus[c].cpu] = c;
	}
	return 0;
}

/* Open @t for walks through libtracecmd, once its pages proved sound. */
static int open_libtracecmd(struct atag_trace *t, char *err, size_t errlen)
{
	const char *why = t->td->convert ? t->td->convert : "ATAG_PAGES=0 asks for it";
	int i, ret;

	/* libtracecmd 1.3.1 reads the declared size, and a stale comm for a cut line */
	if (t->td->comms.damaged) {
		snprintf(err, errlen, "%s, and %s: libtracecmd, which must read it, would misread "
			 "them (atag_trace_mend() rewrites them)", t->td->damage[0], why);
		return -EINVAL;
	}
	/* kbuffer trusts the pages: none may reach it unchecked */
	for (i = 0; i < t->td->nr_buffers; i++) {
		atag_pages_iterate(t->pages, i, count_cb, NULL);
		if (atag_pages_damaged(t->pages)) {
			snprintf(err, errlen, "corrupt ring-buffer data in buffer %s (%s), and %s: "
				 "libtracecmd, which must read it, cannot skip damaged pages",
				 t->td->buf[i].name[0] ? t->td->buf[i].name : "top",
				 t->nr_warnings ? t->warnings[t->nr_warnings - 1] : "a bad page",
				 why);
			return -EINVAL;
		}
	}
	ret = index_cpus(t, err, errlen);
	if (ret)
		return ret;
	t->tc_fd = t->fd;
	if (t->td->needed > t->td->file_size) {
		ret = pad_copy(t, err, errlen);
		if (ret)
			return ret;
	}
	ret = probe(t);
	if (ret) {
		snprintf(err, errlen, "libtracecmd cannot open it (%s), and %s",
			 ret == -ETIMEDOUT ? "it took too long" : "corrupt headers or data", why);
		return -EINVAL;
	}
	warn_sink = t;
	ret = open_buffers(t, true, err, errlen);
	warn_sink = NULL;
	return ret;
}

int atag_trace_open(const char *path, struct atag_trace **trace, char *err, size_t errlen)
{
	struct atag_trace *t;
	const char *env;
	int ret;

	*trace = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return atag_err(-ENOMEM);
	t->tc_fd = -1;
	t->path = strdup(path);
	/* without blocking: a FIFO or a device is refused, not waited on */
	t->fd = atag_open_input(AT_FDCWD, path, 0);
	if (!t->path || t->fd < 0) {
		ret = t->path ? -errno : -ENOMEM;
		snprintf(err, errlen, "%s", atag_strerror(ret));
		goto fail;
	}
	ret = atag_tracedat_open(t->fd, &t->td, err, errlen);
	if (ret)
		goto fail;
	t->pages = atag_pages_alloc(t->td, pages_warning, t);
	if (!t->pages) {
		ret = -ENOMEM;
		goto fail;
	}
	posix_fadvise(t->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	/* ATAG_PAGES=0: walk through libtracecmd (tests compare both walks) */
	env = getenv("ATAG_PAGES");
	t->direct = !t->td->convert && !(env && !strcmp(env, "0"));
	if (!t->direct) {
		ret = open_libtracecmd(t, err, errlen);
		if (ret)
			goto fail;
	}
	*trace = t;
	return 0;
fail:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	atag_trace_close(t);
	return atag_err(ret);
}

void atag_trace_close(struct atag_trace *t)
{
	unsigned int i;
	int b;

	if (!t)
		return;
	for (i = 0; i < t->nr_warnings; i++)
		free(t->warnings[i]);
	free(t->warnings);
	close_buffers(t);
	for (b = 0; t->index && b < t->td->nr_buffers; b++)
		free(t->index[b]);
	free(t->index);
	free(t->nr_index);
	atag_pages_free(t->pages);
	atag_tracedat_close(t->td);
	if (t->tc_fd >= 0 && t->tc_fd != t->fd)
		close(t->tc_fd);
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	free(t);
}

const struct atag_modules *atag_trace_modules(const struct atag_trace *t)
{
	return t->td->kallsyms;
}

const char *atag_trace_path(const struct atag_trace *t)
{
	return t->path;
}

struct tep_handle *atag_trace_tep(const struct atag_trace *t)
{
	return t->td->tep;
}

const char *atag_trace_uname(const struct atag_trace *t)
{
	return t->td->uname;
}

const struct atag_flag_names *atag_trace_gfp_names(const struct atag_trace *t)
{
	return t->td->gfp_names.nr ? &t->td->gfp_names : NULL;
}

unsigned int atag_trace_nr_damages(const struct atag_trace *t)
{
	return t->td->nr_damage;
}

const char *atag_trace_damage(const struct atag_trace *t, unsigned int i)
{
	return i < t->td->nr_damage ? t->td->damage[i] : NULL;
}

const char *atag_trace_comm(const struct atag_trace *t, int pid)
{
	struct tep_handle *tep = t->td->tep;

	return tep_is_pid_registered(tep, pid) ? tep_data_comm_from_pid(tep, pid) : NULL;
}

int atag_trace_nr_buffers(const struct atag_trace *t)
{
	return t->td->nr_buffers;
}

const char *atag_trace_buffer_name(const struct atag_trace *t, int i)
{
	return i >= 0 && i < t->td->nr_buffers ? t->td->buf[i].name : NULL;
}

int atag_trace_find_buffer(const struct atag_trace *t, const char *name)
{
	return atag_tracedat_find(t->td, strcmp(name, "top") ? name : "");
}

int atag_trace_nr_cpus(const struct atag_trace *t, int i)
{
	return i >= 0 && i < t->td->nr_buffers ? t->td->buf[i].nr_cpus : 0;
}

int atag_trace_cpu_id(const struct atag_trace *t, int i, int index)
{
	if (i < 0 || i >= t->td->nr_buffers || index < 0 || index >= t->td->buf[i].nr_cpus)
		return -1;
	return t->td->buf[i].cpus[index].cpu;
}

bool atag_trace_direct(const struct atag_trace *t, int i)
{
	return t->direct && i >= 0 && i < t->td->nr_buffers;
}

/*
 * Drop the file pages mapped by libtracecmd that the reader has gone past. The
 * mappings are private and read-only: dropped pages come back from the page
 * cache if touched again.
 */
static void release_pages(const struct atag_trace *t)
{
	unsigned long long start, end, ino;
	unsigned int maj, min;
	char line[512], perm[8];
	struct stat st;
	FILE *maps;

	if (fstat(t->tc_fd, &st))
		return;
	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%llx-%llx %7s %*x %x:%x %llu", &start, &end, perm, &maj, &min,
			   &ino) != 6)
			continue;
		/* only our file's private, read-only mappings */
		if (ino != st.st_ino || makedev(maj, min) != st.st_dev || strcmp(perm, "r--p"))
			continue;
		madvise((void *)(uintptr_t)start, end - start, MADV_DONTNEED);
	}
	fclose(maps);
}

/* ------------------------------------------------------------ reading through libtracecmd */

/*
 * libtracecmd trusts what a page says; the pages were checked before it may
 * see them, but its own bookkeeping may still fault on a file it mishandles.
 * Every read of ring-buffer data through it runs under guarded(): SIGSEGV and
 * SIGBUS are caught while libtracecmd code runs (not while our own callbacks do:
 * a fault of ours is a bug and must crash), the walk stops, and the trace is
 * abandoned. The jump buffer is per thread.
 */
static __thread sigjmp_buf *fault_jmp;

static void on_fault(int sig)
{
	if (fault_jmp)
		siglongjmp(*fault_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Run @fn(@arg) with faults caught; returns the signal that stopped it, or 0. */
static int guarded(struct atag_trace *t, void (*fn)(void *arg), void *arg)
{
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };
	struct sigaction old_segv, old_bus;
	sigjmp_buf jb;
	int sig;

	if (t->abandoned)
		return SIGSEGV;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	warn_sink = t;
	sig = sigsetjmp(jb, 1);
	if (!sig) {
		fault_jmp = &jb;
		fn(arg);
	} else {
		t->abandoned = true;
	}
	fault_jmp = NULL;
	warn_sink = NULL;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return sig;
}

struct walk {
	struct atag_trace	*t;
	int			buffer;
	atag_record_fn		cb;
	void			*data;
	unsigned long		records;
};

/* A record of libtracecmd's, its CPU id made the CPU's index; the callback runs unguarded. */
static int tracecmd_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *arg)
{
	struct walk *w = arg;
	sigjmp_buf *jb = fault_jmp;
	struct tep_record r = *rec;
	int ret;

	if (!(++w->records % RELEASE_EVERY))
		release_pages(w->t);
	if (r.cpu < 0 || r.cpu >= w->t->nr_index[w->buffer] ||
	    (r.cpu = w->t->index[w->buffer][r.cpu]) < 0)
		return 0;
	fault_jmp = NULL;
	ret = w->cb(&r, w->data);
	fault_jmp = jb;
	return ret ? -1 : 0;
}

static void walk_tracecmd(void *arg)
{
	struct walk *w = arg;

	tracecmd_iterate_events(w->t->buf[w->buffer], NULL, 0, tracecmd_cb, w);
}

int atag_trace_iterate(struct atag_trace *t, int i, atag_record_fn cb, void *data)
{
	struct walk w = { .t = t, .buffer = i, .cb = cb, .data = data };

	if (i < 0 || i >= t->td->nr_buffers)
		return 0;
	if (t->direct) {
		atag_pages_iterate(t->pages, i, cb, data);
		return 0;
	}
	return guarded(t, walk_tracecmd, &w);
}

struct probe_types {
	struct atag_trace	*t;
	int			buffer;
	const int		*ids;
	int			nr_ids;
	unsigned int		limit;
	bool			found;
	uint64_t		last_ts;
};

/* The record's event id: its first two bytes, as the decoder reads it. */
static bool wanted(const struct probe_types *p, const struct tep_record *rec)
{
	uint16_t type;
	int k;

	if (rec->size < 2)
		return false;
	memcpy(&type, rec->data, 2);
	if (p->t->td->swap)
		type = __builtin_bswap16(type);
	for (k = 0; k < p->nr_ids; k++)
		if (type == p->ids[k])
			return true;
	return false;
}

static int probe_pages_cb(const struct tep_record *rec, void *arg)
{
	struct probe_types *p = arg;

	p->found = wanted(p, rec);
	return p->found || !--p->limit ? -1 : 0;
}

/* The first records of each CPU through libtracecmd: any of the wanted types? */
static void probe_types(void *arg)
{
	struct probe_types *p = arg;
	struct tracecmd_input *h = p->t->buf[p->buffer];
	struct tep_record *rec;
	unsigned int n;
	int cpu;

	for (cpu = 0; cpu < tracecmd_cpus(h) && !p->found; cpu++) {
		rec = tracecmd_read_cpu_first(h, cpu);
		for (n = 0; rec && n < p->limit && !p->found; n++) {
			p->found = wanted(p, rec);
			tracecmd_free_record(rec);
			rec = p->found ? NULL : tracecmd_read_data(h, cpu);
		}
		tracecmd_free_record(rec);
	}
	/* leave every CPU at its start for the real iteration */
	tracecmd_set_all_cpus_to_timestamp(h, 0);
}

bool atag_trace_buffer_has(struct atag_trace *t, int i, const int *ids, int nr_ids,
			   unsigned int limit)
{
	struct probe_types p = { .t = t, .buffer = i, .ids = ids, .nr_ids = nr_ids,
				 .limit = limit ? limit : 1 };

	if (i < 0 || i >= t->td->nr_buffers)
		return false;
	if (t->direct) {
		/* as many records as libtracecmd's look takes, in timestamp order */
		p.limit *= t->td->buf[i].nr_cpus ? t->td->buf[i].nr_cpus : 1;
		atag_pages_iterate(t->pages, i, probe_pages_cb, &p);
		return p.found;
	}
	guarded(t, probe_types, &p);
	return p.found;
}

static void last_ts(void *arg)
{
	struct probe_types *p = arg;
	struct tracecmd_input *h = p->t->buf[p->buffer];
	struct tep_record *rec;
	int cpu;

	for (cpu = 0; cpu < tracecmd_cpus(h); cpu++) {
		rec = tracecmd_read_cpu_last(h, cpu);
		if (rec && rec->ts > p->last_ts)
			p->last_ts = rec->ts;
		tracecmd_free_record(rec);
	}
	tracecmd_set_all_cpus_to_timestamp(h, 0);
}

uint64_t atag_trace_last_ts(struct atag_trace *t, int i)
{
	struct probe_types p = { .t = t, .buffer = i };

	if (t->direct || i < 0 || i >= t->td->nr_buffers)
		return 0;
	guarded(t, last_ts, &p);
	return p.last_ts;
}

uint64_t atag_trace_first_ts(struct atag_trace *t, int i)
{
	if (t->direct || i < 0 || i >= t->td->nr_buffers || t->abandoned)
		return 0;
	return tracecmd_get_first_ts(t->buf[i]);
}

double atag_trace_progress(const struct atag_trace *t)
{
	return t->direct ? atag_pages_progress(t->pages) : -1;
}

uint64_t atag_trace_data_size(const struct atag_trace *t, int i)
{
	uint64_t n = 0;
	int c;

	for (c = 0; i >= 0 && i < t->td->nr_buffers && c < t->td->buf[i].nr_cpus; c++)
		n += t->td->buf[i].cpus[c].avail;
	return n;
}

bool atag_trace_truncated(const struct atag_trace *t, uint64_t *size, uint64_t *needed)
{
	if (size)
		*size = t->td->file_size;
	if (needed)
		*needed = t->td->needed > t->td->file_size ? t->td->needed : t->td->file_size;
	return t->td->needed > t->td->file_size;
}
