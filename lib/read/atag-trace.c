// SPDX-License-Identifier: LGPL-2.1
/*
 * The trace.dat reader: opening files (with the libtracecmd 1.3.1 workarounds:
 * the probe child, the stdout capture, the fault guard, the warning hook) and
 * walking their records. See atag-trace.h.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "atag-tracecmd.h"
#include "atag-pages.h"
#include "atag-symbols.h"
#include "atag-trace.h"
#include "atag-utils.h"

#define MAX_REPAIRS	8
#define RELEASE_EVERY	(1 << 19)	/* records between dropping mapped pages */

struct atag_trace {
	char			*path;
	int			nr_buffers;
	struct tracecmd_input	**buf;		/* [0] is the top buffer */
	char			**name;
	uint64_t		file_size;
	uint64_t		needed;		/* > file_size when truncated */
	int			fd;		/* the file, or its padded copy */
	bool			abandoned;	/* handles faulted: do not touch them */
	struct atag_pages	*pages;		/* its layout, see atag-pages.c */
	struct atag_modules	*modules;	/* of its kallsyms */
	char			**warnings;	/* what libtracecmd said */
	unsigned int		nr_warnings;
	unsigned int		lost_warnings;
};

#define MAX_WARNINGS	8

/* ------------------------------------------------------------ libtracecmd's voice */

/*
 * libtracecmd reports trouble through the weak tracecmd_warning(); ours keeps
 * the messages of the trace being read (they become notices), and prints the
 * others as libtracecmd would. The page walker says what it skipped the same way,
 * through its own hook.
 */
static __thread struct atag_trace *warn_sink;

static void keep_warning(struct atag_trace *t, const char *fmt, va_list ap)
{
	char **p, *s;

	if (!t) {
		fputs("libtracecmd: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		return;
	}
	if (t->nr_warnings == MAX_WARNINGS || vasprintf(&s, fmt, ap) < 0) {
		t->lost_warnings++;
		return;
	}
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
	keep_warning(warn_sink, fmt, ap);
	va_end(ap);
}

void tracecmd_critical(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	keep_warning(warn_sink, fmt, ap);
	va_end(ap);
}

static void pages_warning(void *ctx, const char *fmt, va_list ap)
{
	keep_warning(ctx, fmt, ap);
}

unsigned int atag_trace_nr_warnings(const struct atag_trace *t)
{
	return t->nr_warnings;
}

const char *atag_trace_warning(const struct atag_trace *t, unsigned int i)
{
	return i < t->nr_warnings ? t->warnings[i] : NULL;
}

/* ------------------------------------------------------------ keeping stdout clean */

struct capture {
	int	saved;
	int	fd;
};

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

/* Restore stdout; returns what was printed meanwhile (malloc'ed, maybe empty). */
static char *capture_end(struct capture *c)
{
	char *text = calloc(1, 4096);
	ssize_t n;

	fflush(stdout);
	if (c->saved >= 0) {
		dup2(c->saved, STDOUT_FILENO);
		close(c->saved);
	}
	if (c->fd < 0)
		return text;
	if (text && lseek(c->fd, 0, SEEK_SET) == 0) {
		n = read(c->fd, text, 4095);
		text[n > 0 ? n : 0] = '\0';
	}
	close(c->fd);
	return text;
}

/* libtracecmd says "Need at least N, but file size is M." for a truncated file. */
static uint64_t needed_size(const char *text)
{
	const char *p = text ? strstr(text, "Need at least ") : NULL;

	return p ? strtoull(p + 14, NULL, 10) : 0;
}

/* ------------------------------------------------------------ opening */

static int check_magic(int fd, char *err, size_t errlen)
{
	static const char magic[] = "\x17\x08\x44tracing";
	char head[16] = { 0 };

	if (pread(fd, head, sizeof(head), 0) < 12 || memcmp(head, magic, 10)) {
		snprintf(err, errlen, "not a trace.dat file (no trace-cmd magic at its start)");
		return -EINVAL;
	}
	if (head[10] < '6' || head[10] > '7' || head[11]) {
		snprintf(err, errlen, "trace.dat version '%.3s' is not supported (6 and 7 are)",
			 head + 10);
		return -EINVAL;
	}
	return 0;
}

static void close_buffers(struct atag_trace *t)
{
	int i;

	/* instances share the top handle's tep: close them first */
	for (i = t->nr_buffers - 1; i >= 0; i--) {
		if (t->buf && t->buf[i])
			tracecmd_close(t->buf[i]);
		if (t->name)
			free(t->name[i]);
	}
	free(t->buf);
	free(t->name);
	t->buf = NULL;
	t->name = NULL;
	t->nr_buffers = 0;
}

/*
 * Open every buffer from t->fd; NULL handles and a message in @err on failure.
 * Only called once a probe (below) opened the same file without trouble.
 */
static int open_buffers(struct atag_trace *t, bool quiet, char *err, size_t errlen)
{
	struct tracecmd_input *top, *h;
	struct capture cap;
	int fd, n, i;

	fd = fcntl(t->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	lseek(fd, 0, SEEK_SET);
	if (quiet)
		capture_begin(&cap);
	top = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (quiet)
		free(capture_end(&cap));
	if (!top) {
		close(fd);
		snprintf(err, errlen, "cannot read its headers (corrupt trace.dat)");
		return -EINVAL;
	}
	n = tracecmd_buffer_instances(top);
	t->buf = calloc(n + 1, sizeof(*t->buf));
	t->name = calloc(n + 1, sizeof(*t->name));
	if (!t->buf || !t->name) {
		tracecmd_close(top);
		return -ENOMEM;
	}
	t->buf[0] = top;
	t->name[0] = strdup("");
	t->nr_buffers = 1;
	for (i = 0; i < n; i++) {
		if (quiet)
			capture_begin(&cap);
		h = tracecmd_buffer_instance_handle(top, i);
		if (quiet)
			free(capture_end(&cap));
		if (!h) {
			snprintf(err, errlen, "cannot read instance buffer '%s'",
				 tracecmd_buffer_instance_name(top, i));
			return -EINVAL;
		}
		t->buf[t->nr_buffers] = h;
		t->name[t->nr_buffers++] = strdup(tracecmd_buffer_instance_name(top, i));
	}
	return 0;
}

/* The probe child: 0 if every buffer opens, 3 if the headers do not, 4 if the data does not. */
static int __attribute__((noreturn)) probe_child(struct atag_trace *t, int out)
{
	struct atag_trace probe = { .fd = t->fd, .file_size = t->file_size };
	char err[256], path[64];

	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	/* what libtracecmd prints must get out before it may crash */
	setvbuf(stdout, NULL, _IONBF, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", t->fd);
	if (!tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS))
		_exit(3);
	_exit(open_buffers(&probe, false, err, sizeof(err)) ? 4 : 0);
}

/*
 * Open the file in a child first: libtracecmd 1.3.1 crashes in its own cleanup on
 * some truncated or corrupt files, and prints to stdout when a file is cut short.
 * Returns 0 if the child opened every buffer, -EAGAIN with *@need set when the
 * file must first be padded to *@need bytes, -EBADMSG if its headers cannot be
 * read, else -EINVAL (its data cannot).
 */
static int probe(struct atag_trace *t, uint64_t *need)
{
	char said[4096] = "";
	int pipefd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (!pid)
		probe_child(t, pipefd[1]);
	close(pipefd[1]);
	while (got < sizeof(said) - 1 &&
	       (n = read(pipefd[0], said + got, sizeof(said) - 1 - got)) > 0)
		got += n;
	said[got] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	*need = needed_size(said);
	if (*need > t->needed)
		return -EAGAIN;
	return WIFEXITED(status) && WEXITSTATUS(status) == 3 ? -EBADMSG : -EINVAL;
}

/* Replace t->fd by a copy of the file padded with zeroes to @size bytes. */
static int pad_copy(struct atag_trace *t, uint64_t size)
{
	char buf[1 << 16];
	off_t off = 0;
	ssize_t n;
	int fd;

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
	close(t->fd);
	t->fd = fd;
	return 0;
}

static void load_modules(struct atag_trace *t)
{
	size_t len = 0;
	char *text;

	text = t->pages ? atag_pages_kallsyms(t->pages, &len) : NULL;
	if (text)
		t->modules = atag_modules_parse(text, len);
	free(text);
}

int atag_trace_open(const char *path, struct atag_trace **trace, char *err, size_t errlen)
{
	struct atag_trace *t;
	uint64_t need = 0;
	const char *env;
	struct stat st;
	int ret, tries, long_size;

	*trace = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->path = strdup(path);
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0 || fstat(t->fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		snprintf(err, errlen, "not a regular file");
		goto fail;
	}
	t->file_size = t->needed = st.st_size;
	ret = check_magic(t->fd, err, errlen);
	if (ret)
		goto fail;
	for (tries = 0; tries < MAX_REPAIRS; tries++) {
		ret = probe(t, &need);
		if (ret != -EAGAIN)
			break;
		if (need > t->file_size * 64 + (1ULL << 30)) {
			snprintf(err, errlen, "truncated or corrupt: its data would need %llu bytes",
				 (unsigned long long)need);
			ret = -EINVAL;
			goto fail;
		}
		t->needed = need;
		ret = pad_copy(t, need);
		if (ret) {
			snprintf(err, errlen, "truncated, and cannot make a padded copy: %s",
				 strerror(-ret));
			goto fail;
		}
	}
	if (ret == -EBADMSG) {
		snprintf(err, errlen, "cannot read its headers (corrupt or truncated trace.dat)");
		goto fail;
	}
	if (ret) {
		snprintf(err, errlen, "corrupt CPU data: libtracecmd cannot read where it starts");
		goto fail;
	}
	warn_sink = t;
	ret = open_buffers(t, true, err, errlen);
	warn_sink = NULL;
	if (ret)
		goto fail;
	long_size = tep_get_long_size(atag_trace_tep(t));
	if (long_size != 4 && long_size != 8) {
		snprintf(err, errlen, "corrupt header: a long of %d bytes (4 or 8 expected)",
			 long_size);
		ret = -EINVAL;
		goto fail;
	}
	t->pages = atag_pages_open(t->fd, pages_warning, t);
	load_modules(t);
	/* ATAG_PAGES=0: walk through libtracecmd only (tests compare both walks) */
	env = getenv("ATAG_PAGES");
	if (t->pages && ((env && !strcmp(env, "0")) || tep_is_old_format(atag_trace_tep(t))))
		atag_pages_set_walkable(t->pages, false);
	*trace = t;
	return 0;
fail:
	atag_trace_close(t);
	return atag_err(ret);
}

void atag_trace_close(struct atag_trace *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->nr_warnings; i++)
		free(t->warnings[i]);
	free(t->warnings);
	atag_pages_close(t->pages);
	atag_modules_free(t->modules);
	if (t->abandoned) {
		free(t->buf);
		t->buf = NULL;
	}
	close_buffers(t);
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	free(t);
}

const struct atag_modules *atag_trace_modules(const struct atag_trace *t)
{
	return t->modules;
}

const char *atag_trace_path(const struct atag_trace *t)
{
	return t->path;
}

struct tep_handle *atag_trace_tep(const struct atag_trace *t)
{
	return tracecmd_get_tep(t->buf[0]);
}

const char *atag_trace_uname(const struct atag_trace *t)
{
	return tracecmd_get_uname(t->buf[0]);
}

const char *atag_trace_comm(const struct atag_trace *t, int pid)
{
	struct tep_handle *tep = atag_trace_tep(t);

	return tep_is_pid_registered(tep, pid) ? tep_data_comm_from_pid(tep, pid) : NULL;
}

int atag_trace_nr_buffers(const struct atag_trace *t)
{
	return t->nr_buffers;
}

const char *atag_trace_buffer_name(const struct atag_trace *t, int i)
{
	return i >= 0 && i < t->nr_buffers ? t->name[i] : NULL;
}

static struct tracecmd_input *buffer(const struct atag_trace *t, int i)
{
	return i >= 0 && i < t->nr_buffers ? t->buf[i] : NULL;
}

int atag_trace_find_buffer(const struct atag_trace *t, const char *name)
{
	int i;

	if (!strcmp(name, "top"))
		name = "";
	for (i = 0; i < t->nr_buffers; i++)
		if (t->name[i] && !strcmp(t->name[i], name))
			return i;
	return -1;
}

/*
 * Drop the file pages mapped by libtracecmd (or the page walker) that the reader
 * has gone past. The mappings are private and read-only: dropped pages come back
 * from the page cache if touched again.
 */
static void release_pages(const struct atag_trace *t)
{
	unsigned long long start, end, ino;
	unsigned int maj, min;
	char line[512], perm[8];
	struct stat st;
	FILE *maps;

	if (fstat(t->fd, &st))
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

/* ------------------------------------------------------------ reading, guarded */

/*
 * libtracecmd and kbuffer trust what a page says (record lengths, time extends),
 * so a damaged file can make them fault. Every read of ring-buffer data runs
 * under guarded(): SIGSEGV and SIGBUS are caught while libtracecmd code runs (not
 * while our own callbacks do: a fault of ours is a bug and must crash), the walk
 * stops, and the trace is abandoned. The jump buffer is per thread.
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

bool atag_trace_direct(const struct atag_trace *t, int i)
{
	return t->pages && i >= 0 && i < t->nr_buffers &&
	       atag_pages_find(t->pages, t->name[i]) >= 0;
}

struct walk {
	struct atag_trace	*t;
	int			buffer;
	atag_record_fn		cb;
	void			*data;
	unsigned long		records;
};

/* The caller's callback runs outside the guard. */
static int unguarded_cb(const struct tep_record *rec, void *arg)
{
	struct walk *w = arg;
	sigjmp_buf *jb = fault_jmp;
	int ret;

	if (!(++w->records % RELEASE_EVERY))
		release_pages(w->t);
	fault_jmp = NULL;
	ret = w->cb(rec, w->data);
	fault_jmp = jb;
	return ret;
}

static int tracecmd_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *arg)
{
	return unguarded_cb(rec, arg) ? -1 : 0;
}

/* The pages of the file when it allows, libtracecmd's iterator otherwise. */
static void walk(void *arg)
{
	struct walk *w = arg;
	struct tracecmd_input *h = w->t->buf[w->buffer];
	int k = w->t->pages ? atag_pages_find(w->t->pages, w->t->name[w->buffer]) : -1;

	if (k < 0 || atag_pages_iterate(w->t->pages, k, unguarded_cb, w))
		tracecmd_iterate_events(h, NULL, 0, tracecmd_cb, w);
}

int atag_trace_iterate(struct atag_trace *t, int i, atag_record_fn cb, void *data)
{
	struct walk w = { .t = t, .buffer = i, .cb = cb, .data = data };

	if (!buffer(t, i))
		return 0;
	return guarded(t, walk, &w);
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

static bool wanted(const struct probe_types *p, const struct tep_record *rec)
{
	int type = tep_data_type(atag_trace_tep(p->t), (struct tep_record *)rec), k;

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

/* The first records of each CPU: any of the wanted types? Rewinds the buffer. */
static void probe_types(void *arg)
{
	struct probe_types *p = arg;
	struct tracecmd_input *h = p->t->buf[p->buffer];
	struct tep_record *rec;
	int k, cpu;
	unsigned int n;

	k = p->t->pages ? atag_pages_find(p->t->pages, p->t->name[p->buffer]) : -1;
	if (k >= 0) {
		p->limit *= tracecmd_cpus(h);
		if (!atag_pages_iterate(p->t->pages, k, probe_pages_cb, p))
			return;
	}
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

	if (!buffer(t, i))
		return false;
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

	if (!buffer(t, i))
		return 0;
	guarded(t, last_ts, &p);
	return p.last_ts;
}

uint64_t atag_trace_first_ts(struct atag_trace *t, int i)
{
	return buffer(t, i) ? tracecmd_get_first_ts(t->buf[i]) : 0;
}

double atag_trace_progress(const struct atag_trace *t)
{
	return t->pages ? atag_pages_progress(t->pages) : -1;
}

bool atag_trace_truncated(const struct atag_trace *t, uint64_t *size, uint64_t *needed)
{
	if (size)
		*size = t->file_size;
	if (needed)
		*needed = t->needed;
	return t->needed > t->file_size;
}
