/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-tracecmd.h - libtracecmd calls that libtracecmd.so.1 (1.3.1 and later) exports
 * but declares only in its private header, which Debian does not ship. Used by the
 * trace.dat reader alone (lib/read/atag-trace.c).
 */
#ifndef _ATAG_TRACECMD_H
#define _ATAG_TRACECMD_H

struct tracecmd_input;
struct tep_record;

int tracecmd_cpus(struct tracecmd_input *handle);
void tracecmd_set_all_cpus_to_timestamp(struct tracecmd_input *handle, unsigned long long time);
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle, int cpu);
/* the UNAME option: the traced machine's "uname -a"-like text, or NULL */
const char *tracecmd_get_uname(struct tracecmd_input *handle);
/* weak in libtracecmd; lib/read/atag-trace.c provides its own to collect the messages */
void tracecmd_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tracecmd_critical(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* _ATAG_TRACECMD_H */
