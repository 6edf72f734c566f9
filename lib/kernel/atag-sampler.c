// SPDX-License-Identifier: LGPL-2.1
/*
 * Sampled stacks: a stacktrace trigger whose filter passes the allocations whose
 * address bits ATAG_SAMPLE_SHIFT .. ATAG_SAMPLE_SHIFT + log2(every) - 1 hold one
 * pattern, the pattern changed every period by a thread of the caller's (see
 * include/atag-recorder.h).
 *
 * Why a pattern that moves: objects are reused, the hottest slot of a cache again and
 * again, so a fixed rule on addresses samples some call sites at every allocation and
 * others never (a recording of `find /usr/lib` with one fixed pattern left most of
 * its busiest call sites without a single stack). Each slot matches one pattern of the
 * @every: over a whole round of patterns every allocation is sampled 1 time in
 * @every, whatever its size, slot or call site.
 *
 * Why a period, not every allocation: a trigger is changed by removing it and adding
 * another, and a removal waits for an RCU grace period (tens of milliseconds). The
 * thread spends that time asleep; the traced tasks do not wait for it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracefs.h>

#include "atag-recorder.h"
#include "atag-tracefs.h"
#include "atag-utils.h"

#define MAX_EVENTS	8

struct atag_sampler {
	pthread_t		thread;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;
	bool			stop;
	struct tracefs_instance	*inst;
	char			*events[MAX_EVENTS];	/* "system:event" */
	unsigned int		nr_events;
	unsigned int		every;
	unsigned int		period_ms;
	unsigned int		rotations;
	int			error;			/* -errno of the first failure */
	char			failed[128];		/* the event it failed on */
};

/* The pattern of round position @i: bit-reversed, so that the first few differ most. */
static unsigned int pattern(unsigned int every, unsigned int i)
{
	unsigned int bits = __builtin_ctz(every), k = 0, b;

	for (b = 0; b < bits; b++)
		if (i & (1U << b))
			k |= 1U << (bits - 1 - b);
	return k;
}

int atag_sampler_trigger(unsigned int every, unsigned int i, char *buf, size_t len)
{
	unsigned int bits = __builtin_ctz(every), k = pattern(every, i), b;
	size_t n;

	if (every < 2 || (every & (every - 1)))
		return snprintf(buf, len, "stacktrace") < (int)len ? 0 : -E2BIG;
	n = snprintf(buf, len, "stacktrace if ");
	for (b = 0; b < bits && n < len; b++)
		n += snprintf(buf + n, len - n, "%s%s(ptr & 0x%llx)", b ? " && " : "",
			      k & (1U << b) ? "" : "!",
			      1ULL << (ATAG_SAMPLE_SHIFT + b));
	return n < len ? 0 : -E2BIG;
}

/* Replace the stacktrace trigger of "system:event" with @trigger. */
static int set_trigger(struct tracefs_instance *inst, const char *event, const char *trigger)
{
	char sys[64], *name;

	snprintf(sys, sizeof(sys), "%s", event);
	name = strchr(sys, ':');
	if (!name)
		return -EINVAL;
	*name++ = '\0';
	errno = 0;
	if (tracefs_event_file_write(inst, sys, name, "trigger", "!stacktrace") < 0 ||
	    tracefs_event_file_write(inst, sys, name, "trigger", trigger) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

static void *run(void *arg)
{
	struct atag_sampler *s = arg;
	char trigger[512];
	struct timespec at;
	unsigned int i = 0, e;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &at);
	pthread_mutex_lock(&s->lock);
	while (!s->stop && !ret) {
		at.tv_nsec += (long)s->period_ms * 1000000L;
		at.tv_sec += at.tv_nsec / 1000000000L;
		at.tv_nsec %= 1000000000L;
		while (!s->stop &&
		       pthread_cond_timedwait(&s->cond, &s->lock, &at) != ETIMEDOUT)
			;
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->lock);
		i = (i + 1) % s->every;
		ret = atag_sampler_trigger(s->every, i, trigger, sizeof(trigger));
		for (e = 0; !ret && e < s->nr_events; e++) {
			ret = set_trigger(s->inst, s->events[e], trigger);
			if (ret)
				snprintf(s->failed, sizeof(s->failed), "%s", s->events[e]);
		}
		pthread_mutex_lock(&s->lock);
		if (ret)
			s->error = ret;
		else
			s->rotations++;
		/* a round that took longer than a period: the next starts now */
		clock_gettime(CLOCK_MONOTONIC, &at);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct atag_sampler *atag_sampler_start(const char *instance, const char * const *events,
					unsigned int every, unsigned int period_ms)
{
	struct atag_sampler *s;
	pthread_condattr_t ca;
	sigset_t all, old;
	int err = 0;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->every = every;
	s->period_ms = period_ms;
	for (; events && *events && s->nr_events < MAX_EVENTS; events++) {
		s->events[s->nr_events] = strdup(*events);
		if (!s->events[s->nr_events++])
			err = ENOMEM;
	}
	s->inst = err ? NULL : atag_instance_get(instance);
	if (!s->inst)
		err = err ? err : errno ? errno : ENOENT;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (!err) {
		/* the caller's signals stay the caller's: the thread takes none */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		err = pthread_create(&s->thread, NULL, run, s);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (err) {
		s->stop = true;		/* no thread to join */
		s->error = -err;
		atag_sampler_stop(s, NULL);
		errno = err;
		return NULL;
	}
	return s;
}

int atag_sampler_stop(struct atag_sampler *s, struct atag_sampler_result *res)
{
	unsigned int i;
	bool joined;
	int ret;

	if (!s)
		return 0;
	pthread_mutex_lock(&s->lock);
	joined = s->stop;
	s->stop = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (!joined)
		pthread_join(s->thread, NULL);
	ret = s->error;
	if (res) {
		res->rotations = s->rotations;
		res->error = s->error;
		snprintf(res->failed, sizeof(res->failed), "%s", s->failed);
	}
	for (i = 0; i < s->nr_events; i++)
		free(s->events[i]);
	tracefs_instance_free(s->inst);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return ret;
}
