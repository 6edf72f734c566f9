// SPDX-License-Identifier: LGPL-2.1
/*
 * Logging, errors and unit formatting for libatag.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-utils.h"

static enum atag_loglevel log_level = ATAG_LOG_WARNING;

void atag_set_loglevel(enum atag_loglevel level)
{
	log_level = level;
}

static void vlog(enum atag_loglevel level, const char *fmt, va_list ap)
{
	if (level > log_level)
		return;
	fputs("trace-cmd-alloc-tag: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void __attribute__((weak)) atag_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ATAG_LOG_WARNING, fmt, ap);
	va_end(ap);
}

void __attribute__((weak)) atag_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ATAG_LOG_INFO, fmt, ap);
	va_end(ap);
}

int atag_err(int err)
{
	if (err < 0)
		errno = -err;
	return err;
}

char *atag_format_size(char *buf, size_t len, unsigned long long bytes)
{
	static const char * const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", bytes);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	/* keep three significant digits: 1.00 KiB, 12.5 MiB, 512 GiB */
	if (v < 10)
		snprintf(buf, len, "%.2f %s", floor(v * 100) / 100, units[u]);
	else if (v < 100)
		snprintf(buf, len, "%.1f %s", floor(v * 10) / 10, units[u]);
	else
		snprintf(buf, len, "%.0f %s", floor(v), units[u]);
	return buf;
}

char *atag_format_duration(char *buf, size_t len, unsigned long long ns)
{
	if (ns < 1000ULL)
		snprintf(buf, len, "%llu ns", ns);
	else if (ns < 1000000ULL)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1000000000ULL)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else if (ns < 60000000000ULL)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns < 3600000000000ULL)
		snprintf(buf, len, "%llum%02llus", ns / 60000000000ULL,
			 ns / 1000000000ULL % 60);
	else
		snprintf(buf, len, "%lluh%02llum", ns / 3600000000000ULL,
			 ns / 60000000000ULL % 60);
	return buf;
}

static int parse_double(const char *str, double *val, char **end)
{
	/* plain decimal only: no sign, no blanks, no hex floats, no inf/nan */
	if (!str || (!isdigit((unsigned char)*str) && *str != '.'))
		return -EINVAL;
	if (str[0] == '0' && (str[1] == 'x' || str[1] == 'X'))
		return -EINVAL;
	errno = 0;
	*val = strtod(str, end);
	if (errno || *end == str || !isfinite(*val) || *val < 0)
		return -EINVAL;
	return 0;
}

int atag_parse_size(const char *str, unsigned long long *bytes)
{
	static const char suffixes[] = "KMGTPE";
	unsigned long long mult = 1;
	const char *p;
	char *end;
	double v;

	if (parse_double(str, &v, &end))
		return atag_err(-EINVAL);
	if (*end) {
		p = strchr(suffixes, toupper((unsigned char)*end));
		if (!p)
			goto bare_b;
		mult = 1ULL << (10 * (p - suffixes + 1));
		end++;
		if (!strcasecmp(end, "iB") || !strcasecmp(end, "B"))
			end += strlen(end);
	}
bare_b:
	if (*end && strcasecmp(end, "B"))
		return atag_err(-EINVAL);
	if (v * mult >= 18446744073709551615.0)
		return atag_err(-EINVAL);
	*bytes = (unsigned long long)(v * mult + 0.5);
	return 0;
}

int atag_parse_duration(const char *str, unsigned long long *ns)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 },
		{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;
	size_t i;

	if (parse_double(str, &v, &end))
		return atag_err(-EINVAL);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (v * units[i].mult >= 18446744073709551615.0)
			return atag_err(-EINVAL);
		*ns = (unsigned long long)(v * units[i].mult + 0.5);
		return 0;
	}
	return atag_err(-EINVAL);
}

int atag_parse_timestamp(const char *str, unsigned long long *ns)
{
	unsigned long long sec, frac = 0;
	const char *p = str;
	int digits = 0;
	char *end;

	if (!str || !isdigit((unsigned char)*str))
		return atag_err(-EINVAL);
	errno = 0;
	sec = strtoull(p, &end, 10);
	if (errno)
		return atag_err(-EINVAL);
	if (!strcmp(end, "ns")) {
		*ns = sec;
		return 0;
	}
	if (*end == '.') {
		for (p = end + 1; isdigit((unsigned char)*p); p++) {
			if (digits < 9) {
				frac = frac * 10 + (*p - '0');
				digits++;
			}
		}
		if (p == end + 1)
			return atag_err(-EINVAL);
		end = (char *)p;
	}
	if (*end)
		return atag_err(-EINVAL);
	while (digits++ < 9)
		frac *= 10;
	if (sec > 18446744072ULL)
		return atag_err(-EINVAL);
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

int atag_parse_u64(const char *str, unsigned long long *val)
{
	unsigned long long v;
	char *end;

	if (!str || !isdigit((unsigned char)*str))
		return atag_err(-EINVAL);
	errno = 0;
	v = strtoull(str, &end, 10);
	if (errno || *end)
		return atag_err(-EINVAL);
	*val = v;
	return 0;
}

bool atag_glob_match(const char *pattern, const char *str)
{
	if (!pattern)
		return true;
	if (!str)
		return false;
	return fnmatch(pattern, str, 0) == 0;
}

char *atag_elide_middle(char *buf, size_t len, const char *s, size_t width)
{
	size_t n = strlen(s), head, tail;

	if (!width || n <= width || width < 3) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	tail = (width - 3) / 2;
	head = width - 3 - tail;
	snprintf(buf, len, "%.*s...%s", (int)head, s, s + n - tail);
	return buf;
}
