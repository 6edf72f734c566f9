// SPDX-License-Identifier: LGPL-2.1
/*
 * The libtracecmd back end of the trace.dat reader (ATAG_PAGES=0): the same
 * records as the page walker gives, walked by tracecmd_iterate_events(), for
 * tests that compare the two. See atag-tracecmd.h.
 *
 * Workarounds of libtracecmd 1.3.1 (libtracecmd.so.1.3.1, Debian 12's
 * libtracecmd1 3.1.6-1; checked against it only), all here:
 *  - A file cut short: libtracecmd refuses a file whose data runs past its end,
 *    so it reads a copy in a memory file padded with zeroes (empty pages) to the
 *    size the headers claim, when that is at most twice the file's size and a MiB.
 *  - libtracecmd prints to stdout while it opens such files: file descriptor 1 is
 *    pointed at a memory file meanwhile (another thread's output is lost then).
 *  - Damaged saved comms: it reads the declared size, and registers a stale comm
 *    for a line cut; such a file is refused (atag_trace_mend() rewrites them).
 *  - It says what goes wrong through tracecmd_warning() and tracecmd_critical(),
 *    which it declares weak: ours hand the messages of the walk under way to its
 *    trace, and print the others to stderr as libtracecmd would.
 *  - It maps the file's pages and keeps them mapped: the pages the walk went past
 *    are dropped now and then.
 *  - It declares tracecmd_cpus(), tracecmd_set_all_cpus_to_timestamp() and
 *    tracecmd_read_cpu_last() in a private header Debian does not ship (they are
 *    exported by 1.3.1 and later).
 *  - Stopping tracecmd_iterate_events() early mismanages the records it peeked:
 *    callers walk to the end (lib/read/atag-read.c drops what is past a window).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "atag-tracecmd.h"
#include "atag-tracedat.h"

#define RELEASE_EVERY	(1 << 19)	/* records between dropping mapped pages */

/* exported by libtracecmd.so.1 (1.3.1 and later), declared in its private header */
int tracecmd_cpus(struct tracecmd_input *handle);
void tracecmd_set_all_cpus_to_timestamp(struct tracecmd_input *handle, unsigned long long time);
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle, int cpu);
void tracecmd_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tracecmd_critical(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct atag_tracecmd {
	struct atag_tracedat	*td;
	int			fd;		/* the file, or its padded copy (owned) */
	bool			own_fd;
	struct tracecmd_input	**buf;		/* [0] is the top buffer */
	int			**index;	/* per buffer: CPU id -> index in its list */
	int			*nr_index;	/* per buffer: ids in its index */
	void			(*warn)(void *ctx, const char *fmt, va_list ap);
	void			*warn_ctx;
	unsigned long		records;	/* walked, for dropping mapped pages */
};

/* ------------------------------------------------------------ what libtracecmd says */

static __thread struct atag_tracecmd *speaking;

static void say(const char *fmt, va_list ap)
{
	if (speaking && speaking->warn) {
		speaking->warn(speaking->warn_ctx, fmt, ap);
		return;
	}
	fputs("libtracecmd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void tracecmd_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void tracecmd_critical(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ opening */

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

/* A copy of the file, padded with zeroes to the size its headers claim. */
static int pad_copy(struct atag_tracecmd *tc, int fd, char *err, size_t errlen)
{
	uint64_t size = tc->td->needed, have = tc->td->file_size;
	char buf[1 << 16];
	off_t off = 0;
	ssize_t n;
	int copy;

	if (size > 2 * have + (1 << 20)) {
		snprintf(err, errlen, "truncated: its data would need %llu bytes, and libtracecmd "
			 "(ATAG_PAGES=0) reads no file cut that short", (unsigned long long)size);
		return -EINVAL;
	}
	copy = memfd_create("atag-truncated", MFD_CLOEXEC);
	if (copy < 0)
		return -errno;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		if (write(copy, buf, n) != n) {
			close(copy);
			return -EIO;
		}
		off += n;
	}
	if (n < 0 || ftruncate(copy, size) < 0) {
		close(copy);
		return -EIO;
	}
	tc->fd = copy;
	tc->own_fd = true;
	return 0;
}

/* Open every buffer with libtracecmd: 0, or a reason in @err. */
static int open_buffers(struct atag_tracecmd *tc, char *err, size_t errlen)
{
	const struct atag_tracedat *td = tc->td;
	struct tracecmd_input *top, *h;
	struct capture cap;
	int fd, n, i;

	fd = fcntl(tc->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	lseek(fd, 0, SEEK_SET);
	capture_begin(&cap);
	top = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);
	capture_end(&cap);
	if (!top) {
		close(fd);
		snprintf(err, errlen, "libtracecmd cannot read its headers");
		return -EINVAL;
	}
	tc->buf[0] = top;
	n = tracecmd_buffer_instances(top);
	if (n != td->nr_buffers - 1) {
		snprintf(err, errlen, "libtracecmd sees %d instance buffers, not %d", n,
			 td->nr_buffers - 1);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		capture_begin(&cap);
		h = tracecmd_buffer_instance_handle(top, i);
		capture_end(&cap);
		tc->buf[i + 1] = h;
		if (!h || strcmp(tracecmd_buffer_instance_name(top, i), td->buf[i + 1].name)) {
			snprintf(err, errlen, "libtracecmd cannot read instance buffer '%s'",
				 td->buf[i + 1].name);
			return -EINVAL;
		}
	}
	return 0;
}

/* Per buffer, the index of each CPU id in its list (libtracecmd hands out ids). */
static int index_cpus(struct atag_tracecmd *tc, char *err, size_t errlen)
{
	const struct atag_buffer_layout *b;
	int i, c, n;

	for (i = 0; i < tc->td->nr_buffers; i++) {
		b = &tc->td->buf[i];
		for (c = 0, n = 1; c < b->nr_cpus; c++) {
			/* libtracecmd makes a table as long as the largest id */
			if (b->cpus[c].cpu < 0 || b->cpus[c].cpu >= ATAG_MAX_CPUS) {
				snprintf(err, errlen, "buffer '%s' names CPU %d, which libtracecmd "
					 "(ATAG_PAGES=0) cannot be given", b->name, b->cpus[c].cpu);
				return -EINVAL;
			}
			if (b->cpus[c].cpu >= n)
				n = b->cpus[c].cpu + 1;
		}
		tc->index[i] = malloc(n * sizeof(int));
		if (!tc->index[i])
			return -ENOMEM;
		memset(tc->index[i], 0xff, n * sizeof(int));
		tc->nr_index[i] = n;
		for (c = 0; c < b->nr_cpus; c++)
			tc->index[i][b->cpus[c].cpu] = c;
	}
	return 0;
}

int atag_tracecmd_open(struct atag_tracedat *td, int fd,
		       void (*warn)(void *ctx, const char *fmt, va_list ap), void *ctx,
		       struct atag_tracecmd **out, char *err, size_t errlen)
{
	struct atag_tracecmd *tc;
	int ret;

	*out = NULL;
	if (td->comms.damaged) {
		snprintf(err, errlen, "%s, and ATAG_PAGES=0 asks for it: libtracecmd, which must "
			 "read it, would misread them (atag_trace_mend() rewrites them)",
			 td->damage[0]);
		return -EINVAL;
	}
	tc = calloc(1, sizeof(*tc));
	if (!tc)
		return -ENOMEM;
	*tc = (struct atag_tracecmd){ .td = td, .fd = fd, .warn = warn, .warn_ctx = ctx };
	tc->buf = calloc(td->nr_buffers, sizeof(*tc->buf));
	tc->index = calloc(td->nr_buffers, sizeof(*tc->index));
	tc->nr_index = calloc(td->nr_buffers, sizeof(*tc->nr_index));
	ret = tc->buf && tc->index && tc->nr_index ? index_cpus(tc, err, errlen) : -ENOMEM;
	if (!ret && td->needed > td->file_size)
		ret = pad_copy(tc, fd, err, errlen);
	if (!ret) {
		speaking = tc;
		ret = open_buffers(tc, err, errlen);
		speaking = NULL;
	}
	if (!ret)
		*out = tc;
	else
		atag_tracecmd_close(tc);
	return ret;
}

void atag_tracecmd_close(struct atag_tracecmd *tc)
{
	int i;

	if (!tc)
		return;
	/* instances share the top handle's tep: close them first */
	for (i = tc->td->nr_buffers - 1; tc->buf && i >= 0; i--)
		if (tc->buf[i])
			tracecmd_close(tc->buf[i]);
	for (i = 0; tc->index && i < tc->td->nr_buffers; i++)
		free(tc->index[i]);
	free(tc->index);
	free(tc->nr_index);
	free(tc->buf);
	if (tc->own_fd)
		close(tc->fd);
	free(tc);
}

/* ------------------------------------------------------------ walking */

/*
 * Drop the file pages mapped by libtracecmd that the walk has gone past. The
 * mappings are private and read-only: dropped pages come back from the page
 * cache if touched again.
 */
static void release_pages(const struct atag_tracecmd *tc)
{
	unsigned long long start, end, ino;
	unsigned int maj, min;
	char line[512], perm[8];
	struct stat st;
	FILE *maps;

	if (fstat(tc->fd, &st))
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

struct walk {
	struct atag_tracecmd	*tc;
	const int		*index;
	int			nr_index;
	int			(*cb)(const struct tep_record *rec, void *data);
	void			*data;
};

/* A record of libtracecmd's, its CPU id made the CPU's index. */
static int walk_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *arg)
{
	struct walk *w = arg;
	struct tep_record r = *rec;

	if (!(++w->tc->records % RELEASE_EVERY))
		release_pages(w->tc);
	if (r.cpu < 0 || r.cpu >= w->nr_index || (r.cpu = w->index[r.cpu]) < 0)
		return 0;
	return w->cb(&r, w->data) ? -1 : 0;
}

int atag_tracecmd_iterate(struct atag_tracecmd *tc, int buffer,
			  int (*cb)(const struct tep_record *rec, void *data), void *data)
{
	struct walk w = { .tc = tc, .index = tc->index[buffer], .nr_index = tc->nr_index[buffer],
			  .cb = cb, .data = data };

	speaking = tc;
	tracecmd_iterate_events(tc->buf[buffer], NULL, 0, walk_cb, &w);
	speaking = NULL;
	return 0;
}

void atag_tracecmd_first_records(struct atag_tracecmd *tc, int buffer, unsigned int limit,
				 int (*cb)(const struct tep_record *rec, void *data), void *data)
{
	struct tracecmd_input *h = tc->buf[buffer];
	struct tep_record *rec, r;
	bool stop = false;
	unsigned int n;
	int cpu;

	speaking = tc;
	for (cpu = 0; cpu < tracecmd_cpus(h) && !stop; cpu++) {
		rec = tracecmd_read_cpu_first(h, cpu);
		for (n = 0; rec && n < limit && !stop; n++) {
			r = *rec;
			r.cpu = rec->cpu >= 0 && rec->cpu < tc->nr_index[buffer] ?
				tc->index[buffer][rec->cpu] : -1;
			stop = cb(&r, data);
			tracecmd_free_record(rec);
			rec = stop ? NULL : tracecmd_read_data(h, cpu);
		}
		tracecmd_free_record(rec);
	}
	/* leave every CPU at its start for the real walk */
	tracecmd_set_all_cpus_to_timestamp(h, 0);
	speaking = NULL;
}

uint64_t atag_tracecmd_first_ts(struct atag_tracecmd *tc, int buffer)
{
	return tracecmd_get_first_ts(tc->buf[buffer]);
}

uint64_t atag_tracecmd_last_ts(struct atag_tracecmd *tc, int buffer)
{
	struct tracecmd_input *h = tc->buf[buffer];
	struct tep_record *rec;
	uint64_t last = 0;
	int cpu;

	speaking = tc;
	for (cpu = 0; cpu < tracecmd_cpus(h); cpu++) {
		rec = tracecmd_read_cpu_last(h, cpu);
		if (rec && rec->ts > last)
			last = rec->ts;
		tracecmd_free_record(rec);
	}
	tracecmd_set_all_cpus_to_timestamp(h, 0);
	speaking = NULL;
	return last;
}
