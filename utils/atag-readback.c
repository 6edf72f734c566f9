// SPDX-License-Identifier: GPL-2.0
/*
 * Reading back the trace.dat record wrote (see atag-readback.h): mend its saved comms,
 * walk it with this library, then open it with libtracecmd in a child and compare.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "atag-readback.h"
#include "atag-trace.h"
#include "atag-utils.h"

static void __attribute__((format(printf, 2, 3)))
why(struct atag_readback *rb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rb->why, sizeof(rb->why), fmt, ap);
	va_end(ap);
}

/* The first record of each CPU of the buffer, as this library reads them. */
struct firsts {
	int		nr;
	int		*id;		/* the CPU ids the file gives */
	uint64_t	*ts;		/* 0: the CPU has no record */
	uint64_t	count;
};

static int note_record(const struct tep_record *rec, void *data)
{
	struct firsts *f = data;

	if (rec->cpu >= 0 && rec->cpu < f->nr && !f->ts[rec->cpu])
		f->ts[rec->cpu] = rec->ts ? rec->ts : 1;
	f->count++;
	return 0;
}

/* This library's walk of @buffer: 0, or -1 with rb->why. */
static int read_ours(const char *path, const char *buffer, struct firsts *f,
		     struct atag_readback *rb)
{
	struct atag_trace *t;
	uint64_t size, needed;
	char err[512];
	int i, c, ret;

	ret = atag_trace_open(path, &t, err, sizeof(err));
	if (ret) {
		why(rb, "it cannot be read: %s", err);
		return -1;
	}
	ret = -1;
	i = atag_trace_find_buffer(t, buffer);
	rb->no_buffer = i < 0;
	if (i >= 0) {
		f->nr = atag_trace_nr_cpus(t, i);
		f->id = calloc(f->nr ? f->nr : 1, sizeof(*f->id));
		f->ts = calloc(f->nr ? f->nr : 1, sizeof(*f->ts));
		for (c = 0; f->id && c < f->nr; c++)
			f->id[c] = atag_trace_cpu_id(t, i, c);
	}
	if (i < 0)
		why(rb, "it holds no buffer %s", *buffer ? buffer : "top");
	else if (!f->id || !f->ts)
		why(rb, "out of memory");
	else if (atag_trace_iterate(t, i, note_record, f))
		why(rb, "reading its data faulted");
	else if (atag_trace_truncated(t, &size, &needed))
		why(rb, "it is cut short (%llu of %llu bytes)", (unsigned long long)size,
		    (unsigned long long)needed);
	else if (atag_trace_nr_warnings(t))
		why(rb, "%s", atag_trace_warning(t, 0));
	else if (atag_trace_nr_damages(t))
		why(rb, "%s", atag_trace_damage(t, 0));
	else
		ret = 0;
	rb->ours = f->count;
	atag_trace_close(t);
	return ret;
}

/*
 * In the child: open with libtracecmd and read the first record of each CPU; into @fd
 * how many CPUs agree with this library's first records. Exit 0, or 1 when it cannot
 * open the file or find the buffer.
 */
static void __attribute__((noreturn)) tracecmd_child(const char *path, const char *buffer,
						     const struct firsts *f, int fd)
{
	struct tracecmd_input *h, *b = NULL;
	struct tep_record *rec;
	uint64_t n = 0, ts;
	int i, null;

	/* libtracecmd prints to stdout now and then */
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0)
		dup2(null, STDOUT_FILENO);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h)
		_exit(1);
	if (!*buffer) {
		b = h;
	} else {
		for (i = 0; i < tracecmd_buffer_instances(h) && !b; i++)
			if (!strcmp(tracecmd_buffer_instance_name(h, i), buffer))
				b = tracecmd_buffer_instance_handle(h, i);
	}
	if (!b)
		_exit(1);
	for (i = 0; i < f->nr; i++) {
		rec = tracecmd_read_cpu_first(b, f->id[i]);
		ts = rec ? (rec->ts ? rec->ts : 1) : 0;
		n += ts == f->ts[i];
		tracecmd_free_record(rec);
	}
	_exit(write(fd, &n, sizeof(n)) == sizeof(n) ? 0 : 1);
}

/* libtracecmd's look at @buffer, in a child: 0, or -1 with rb->why. */
static int read_tracecmd(const char *path, const char *buffer, const struct firsts *f,
			 struct atag_readback *rb)
{
	struct pollfd p = { .events = POLLIN };
	int fds[2], status = 0, ret;
	ssize_t got = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC)) {
		why(rb, "cannot check it with libtracecmd: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		tracecmd_child(path, buffer, f, fds[1]);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		why(rb, "cannot check it with libtracecmd: %s", strerror(errno));
		return -1;
	}
	p.fd = fds[0];
	ret = atag_poll(&p, 1, ATAG_READBACK_TIMEOUT_MS);
	if (ret > 0)
		got = read(fds[0], &rb->cpus_agree, sizeof(rb->cpus_agree));
	close(fds[0]);
	if (ret <= 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ret == 0) {
		why(rb, "libtracecmd did not read it within %d s", ATAG_READBACK_TIMEOUT_MS / 1000);
		return -1;
	}
	if (WIFSIGNALED(status)) {
		why(rb, "libtracecmd crashed reading it (%s)", strsignal(WTERMSIG(status)));
		return -1;
	}
	if (got != sizeof(rb->cpus_agree) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		why(rb, "libtracecmd cannot open it");
		return -1;
	}
	if (rb->cpus_agree != (uint64_t)f->nr) {
		why(rb, "libtracecmd reads other first records than this program on %llu of its "
		    "%d CPUs", (unsigned long long)(f->nr - rb->cpus_agree), f->nr);
		return -1;
	}
	return 0;
}

int atag_readback(const char *path, const char *buffer, int64_t written,
		  struct atag_readback *rb)
{
	struct firsts f = { 0 };
	char err[512];
	int ret;

	memset(rb, 0, sizeof(*rb));
	ret = atag_trace_mend(path, rb->mended, sizeof(rb->mended), err, sizeof(err));
	if (ret < 0) {
		why(rb, "%s", err);
		return -1;
	}
	ret = read_ours(path, buffer, &f, rb) || read_tracecmd(path, buffer, &f, rb) ? -1 : 0;
	if (!ret && written >= 0 && rb->ours != (uint64_t)written) {
		why(rb, "it holds %llu events where trace-cmd record took %lld out of the "
		    "ring buffer", (unsigned long long)rb->ours, (long long)written);
		ret = -1;
	}
	free(f.id);
	free(f.ts);
	return ret;
}
