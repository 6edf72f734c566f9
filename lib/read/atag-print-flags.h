/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-print-flags.h - the names an event's print format gives the bits of one of
 * its fields (__print_flags()), internal to lib/read/.
 *
 * The trace.dat reader drops print formats before libtraceevent sees them (its
 * parser of print formats faults on some malformed ones), so the one table this
 * program prints from, the GFP flags of kmem:mm_page_alloc, is read here: a small
 * parser of __print_flags(REC->field, "delim", { value, "NAME" }, ...) whose values
 * are integer expressions of literals, casts, parentheses, ~, <<, >>, &, ^ and |,
 * as the kernel's TRACE_DEFINE_ENUM-free flag tables are. Anything else and the
 * table is not read (the value is then printed as a number).
 */
#ifndef _ATAG_PRINT_FLAGS_H
#define _ATAG_PRINT_FLAGS_H

#include <stddef.h>

#ifndef __hidden
#define __hidden __attribute__((visibility("hidden")))
#endif

struct atag_flag_name {
	unsigned long long	value;
	char			*name;
};

struct atag_flag_names {
	struct atag_flag_name	*v;		/* in the format's order */
	unsigned int		nr;
	char			delim[8];
};

/*
 * Read the __print_flags() table of @field from the event format text @fmt (the
 * whole format, "print fmt:" line included, @len bytes). Returns 0, -ENOENT when the
 * format has none for @field, -EINVAL when it is not one this parser reads, or
 * -ENOMEM. @out is left empty on failure.
 */
int atag_print_flags_parse(const char *fmt, size_t len, const char *field,
			   struct atag_flag_names *out) __hidden;

/*
 * @value by its names, as libtraceevent prints __print_flags(): each name whose bits
 * are all set in what is left, in the table's order, its bits then taken out;
 * what no name covers as a hex number; "0x0" for 0 unless a name is 0. Into @buf
 * (truncated to @len). Returns @buf.
 */
char *atag_print_flags_format(const struct atag_flag_names *fn, unsigned long long value,
			      char *buf, size_t len) __hidden;

void atag_print_flags_free(struct atag_flag_names *fn) __hidden;

#endif /* _ATAG_PRINT_FLAGS_H */
