/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-utils.h - logging, errors and unit formatting shared by every part of libatag.
 *
 * Conventions of the whole library:
 *  - int functions return 0 on success or a negative errno, and also set errno;
 *    pointer functions return NULL and set errno.
 *  - The library never prints to stdout and never exits. Diagnostics go through
 *    atag_warning(), a weak function an application may override, gated by
 *    atag_set_loglevel().
 */
#ifndef _ATAG_UTILS_H
#define _ATAG_UTILS_H

#include <stddef.h>
#include <stdbool.h>

enum atag_loglevel {
	ATAG_LOG_NONE,
	ATAG_LOG_CRITICAL,
	ATAG_LOG_WARNING,
	ATAG_LOG_INFO,
	ATAG_LOG_DEBUG,
};

/* Messages at or below @level are printed (default ATAG_LOG_WARNING). */
void atag_set_loglevel(enum atag_loglevel level);

/* Print a warning to stderr, prefixed with "trace-cmd-alloc-tag: ". Weak: may be replaced. */
void atag_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void atag_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Set errno to -@err and return @err, for "return atag_err(-EINVAL);". */
int atag_err(int err);

/*
 * Human-readable sizes, in binary units: "512 B", "1.0 KiB", "12.5 MiB".
 * Returns @buf.
 */
char *atag_format_size(char *buf, size_t len, unsigned long long bytes);

/* Durations from nanoseconds: "850 ns", "12.3 us", "4.50 ms", "2.00 s", "1h02m". */
char *atag_format_duration(char *buf, size_t len, unsigned long long ns);

/*
 * Parse a size: a number with an optional suffix K, M, G, T (powers of 1024, an
 * optional "iB" or "B" may follow). Returns 0 or -EINVAL.
 */
int atag_parse_size(const char *str, unsigned long long *bytes);

/*
 * Parse a duration: a number (may be fractional) with a unit ns, us, ms, s, m or h;
 * no unit means seconds. Returns 0 or -EINVAL.
 */
int atag_parse_duration(const char *str, unsigned long long *ns);

/*
 * Parse a timestamp as printed by trace-cmd report ("1284.788182", seconds with
 * a fraction) or in nanoseconds with an "ns" suffix. Returns 0 or -EINVAL.
 */
int atag_parse_timestamp(const char *str, unsigned long long *ns);

/*
 * Parse an unsigned decimal number (counts, pids, line numbers: "010" is ten, not
 * octal eight). Returns 0, or -EINVAL (empty, a sign, trailing text, overflow)
 * leaving *@val untouched.
 */
int atag_parse_u64(const char *str, unsigned long long *val);

/* Shell-style glob match (fnmatch without flags); a NULL pattern matches everything. */
bool atag_glob_match(const char *pattern, const char *str);

/* Sleep @ms milliseconds (less when a signal handler runs: callers poll). */
void atag_sleep_ms(int ms);

#endif /* _ATAG_UTILS_H */
