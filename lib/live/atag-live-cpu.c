// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading an instance's ring buffers as records come, merged across CPUs in
 * timestamp order. See atag-live-cpu.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "atag-live-cpu.h"

struct live_cpu {
	int			fd;
	struct tracefs_cpu	*tcpu;
	struct kbuffer		*kbuf;
	void			*page;		/* the sub-buffer being handed on */
	void			*rec;		/* its next record, NULL: read another */
	unsigned long long	ts;
	bool			missed;		/* events were lost before the sub-buffer */
	bool			drained;	/* empty since this read began */
};

/* The sub-buffer size of @inst: buffer_subbuf_size_kb where the kernel has it. */
static int subbuf_size(struct tracefs_instance *inst)
{
	char *text = tracefs_instance_file_read(inst, "buffer_subbuf_size_kb", NULL);
	long kb = text ? strtol(text, NULL, 10) : 0;

	free(text);
	return kb > 0 ? kb * 1024 : getpagesize();
}

int live_cpus_open(struct live_cpus *c, struct tracefs_instance *inst, struct tep_handle *tep,
		   char *err, size_t errlen)
{
	char *dir = tracefs_instance_get_file(inst, "per_cpu"), path[4096];
	struct live_cpu *lc;
	int i, n, ret = 0;

	memset(c, 0, sizeof(*c));
	if (!dir) {
		snprintf(err, errlen, "cannot name the instance's per_cpu directory");
		return -ENOMEM;
	}
	/* the CPUs the instance has buffers for */
	for (n = 0;; n++) {
		snprintf(path, sizeof(path), "%s/cpu%d/trace_pipe_raw", dir, n);
		if (access(path, F_OK))
			break;
	}
	c->subbuf_size = subbuf_size(inst);
	c->cpu = calloc(n ? n : 1, sizeof(*c->cpu));
	if (!c->cpu) {
		tracefs_put_tracing_file(dir);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		c->cpu[i].fd = -1;
	c->nr = n;
	for (i = 0; i < n && !ret; i++) {
		lc = &c->cpu[i];
		snprintf(path, sizeof(path), "%s/cpu%d/trace_pipe_raw", dir, i);
		lc->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (lc->fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			break;
		}
		lc->tcpu = tracefs_cpu_alloc_fd(lc->fd, c->subbuf_size, true);
		lc->kbuf = tep_kbuffer(tep);
		lc->page = malloc(c->subbuf_size);
		if (!lc->tcpu || !lc->kbuf || !lc->page) {
			ret = -ENOMEM;
			snprintf(err, errlen, "out of memory");
		}
	}
	tracefs_put_tracing_file(dir);
	if (!n && !ret) {
		snprintf(err, errlen, "the instance has no per-CPU buffers");
		ret = -ENOENT;
	}
	if (ret)
		live_cpus_close(c);
	return ret;
}

void live_cpus_close(struct live_cpus *c)
{
	struct live_cpu *lc;
	int i;

	for (i = 0; c->cpu && i < c->nr; i++) {
		lc = &c->cpu[i];
		if (lc->tcpu)
			tracefs_cpu_free_fd(lc->tcpu);
		if (lc->fd >= 0)
			close(lc->fd);
		if (lc->kbuf)
			kbuffer_free(lc->kbuf);
		free(lc->page);
	}
	free(c->cpu);
	memset(c, 0, sizeof(*c));
}

int live_cpus_fd(const struct live_cpus *c, int i)
{
	return c->cpu[i].fd;
}

/*
 * Make sure @lc has a record to offer: 1, 0 when its buffer is empty, or -errno.
 * An empty buffer is not asked again during the read: what comes meanwhile is
 * newer than the read's bound.
 */
static int cpu_next(struct live_cpu *lc)
{
	int n;

	while (!lc->rec) {
		if (lc->drained)
			return 0;
		n = tracefs_cpu_read(lc->tcpu, lc->page, true);
		if (n < 0 && errno != EAGAIN)
			return -errno;
		if (n <= 0) {
			lc->drained = true;
			return 0;
		}
		if (kbuffer_load_subbuffer(lc->kbuf, lc->page))
			return -EBADMSG;
		/* lost before this sub-buffer: said with its first record */
		lc->missed = kbuffer_missed_events(lc->kbuf) != 0;
		lc->rec = kbuffer_read_event(lc->kbuf, &lc->ts);
	}
	return 1;
}

int live_cpus_read(struct live_cpus *c, uint64_t until, live_record_fn fn, void *ctx)
{
	struct tep_record rec;
	struct live_cpu *lc, *first;
	int i, ret;

	for (i = 0; i < c->nr; i++)
		c->cpu[i].drained = false;
	for (;;) {
		first = NULL;
		for (i = 0; i < c->nr; i++) {
			lc = &c->cpu[i];
			ret = cpu_next(lc);
			if (ret < 0)
				return ret;
			if (ret && (!first || lc->ts < first->ts))
				first = lc;
		}
		if (!first || first->ts > until)
			return 0;
		memset(&rec, 0, sizeof(rec));
		rec.ts = first->ts;
		rec.cpu = first - c->cpu;
		rec.data = first->rec;
		rec.size = kbuffer_event_size(first->kbuf);
		rec.missed_events = first->missed ? -1 : 0;
		ret = fn(ctx, &rec, first->missed);
		if (ret)
			return ret;
		c->records++;
		first->missed = false;
		first->rec = kbuffer_next_event(first->kbuf, &first->ts);
	}
}
