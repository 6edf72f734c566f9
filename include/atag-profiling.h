/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-profiling.h - whether memory allocation profiling is switched on
 * (lib/kernel/atag-profiling.c).
 *
 * The series "alloc_tag: Introduce selective tracing for MAP" fires alloc_tag_hit
 * inside alloc_hooks_tag()'s "if (mem_alloc_profiling_enabled())", and
 * alloc_tag_mem_alloced and _freed from alloc_tag_add() and alloc_tag_sub(), which the
 * allocators call only while profiling is enabled: "Events are only emitted for tags
 * that have tracing turned on and while profiling is enabled" (its 2/4). With
 * profiling switched off the events exist, tags can be traced, the counters of
 * /proc/allocinfo stand still and every recording is empty. list, enable, record and
 * top say so; record notes it in its description, so that report can say why a
 * recording holds no alloc_tag event.
 *
 * The switch is the sysctl vm.mem_profiling, /proc/sys/vm/mem_profiling: "0" or "1",
 * read-only when the kernel was booted with sysctl.vm.mem_profiling=never (profiling
 * cannot be turned on until the next boot) or built with
 * CONFIG_MEM_ALLOC_PROFILING_DEBUG (the kernel's
 * Documentation/mm/allocation-profiling.rst and lib/alloc_tag.c). It speaks for
 * /proc/allocinfo only: a copy of an allocinfo file, or another file, has no switch.
 * $ATAG_MEM_PROFILING names the file to read instead (the tests' doubles).
 */
#ifndef _ATAG_PROFILING_H
#define _ATAG_PROFILING_H

#include <stdbool.h>
#include <stddef.h>

#define ATAG_MEM_PROFILING_PATH	"/proc/sys/vm/mem_profiling"
#define ATAG_MEM_PROFILING_ENV	"ATAG_MEM_PROFILING"

enum atag_profiling {
	ATAG_PROFILING_UNKNOWN = -1,	/* no switch for this allocinfo, or unreadable */
	ATAG_PROFILING_OFF,
	ATAG_PROFILING_ON,
};

struct atag_profiling_state {
	enum atag_profiling	state;
	bool			read_only;	/* the sysctl cannot be written by anyone */
	char			path[256];	/* the file read, "" when none */
};

struct atag_session;

/**
 * atag_profiling_read - whether memory allocation profiling is on
 * @allocinfo: the allocinfo file in use (atag_allocinfo_name())
 * @st: filled with the state, whether the switch is read-only, the file read
 *
 * Reads $ATAG_MEM_PROFILING when set and not empty, else /proc/sys/vm/mem_profiling
 * when @allocinfo is /proc/allocinfo; any other allocinfo has no switch.
 * Return: @st->state (ATAG_PROFILING_UNKNOWN when there is no switch, the file cannot
 * be read or holds neither "0" nor "1").
 */
enum atag_profiling atag_profiling_read(const char *allocinfo, struct atag_profiling_state *st);

/**
 * atag_profiling_word - "on", "off" or "unknown"
 * @p: a state
 */
const char *atag_profiling_word(enum atag_profiling p);

/**
 * atag_profiling_off - the start of the one-line message for profiling switched off
 * @st: a state read by atag_profiling_read(), ATAG_PROFILING_OFF
 * @buf: where to write
 * @len: its size
 *
 * "memory allocation profiling is off (vm.mem_profiling = 0)", with ", and the
 * sysctl is read-only: it stays off until the next boot" when it cannot be switched
 * on; each command adds what that means for it.
 * Return: @buf.
 */
const char *atag_profiling_off(const struct atag_profiling_state *st, char *buf, size_t len);

/**
 * atag_profiling_mark - read the state and note it in a recording's description
 * @s: the recording's session (its instance recording)
 * @allocinfo: the allocinfo file in use
 * @when: "start" or "end"
 * @st: filled as by atag_profiling_read()
 *
 * Writes the line "profiling WHEN on|off" with atag_session_mark(); nothing when the
 * state is unknown (report reads "unknown" too, and no line as "the recording does
 * not say").
 * Return: what atag_session_mark() returned (0 or -errno), 0 when nothing was
 * written; @st is filled either way.
 */
int atag_profiling_mark(struct atag_session *s, const char *allocinfo, const char *when,
			struct atag_profiling_state *st);

#endif /* _ATAG_PROFILING_H */
