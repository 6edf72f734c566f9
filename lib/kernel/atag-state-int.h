/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-state-int.h - the line format the state files and the holder records share
 * (lib/kernel/atag-state.c; library-internal).
 */
#ifndef _ATAG_STATE_INT_H
#define _ATAG_STATE_INT_H

#include <stdbool.h>

struct atag_tag;

/* Append one whole line with a single write(): it is there or not at all. 0 or -errno. */
int atag_state_write(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether a name is empty or holds a tab or newline: it cannot be written. */
bool atag_state_bad_name(const char *s);
bool atag_state_bad_tag(const struct atag_tag *t);

/* "KEYWORD\tMODULE\tFILE\tLINE\tFUNCTION\n", MODULE "-" for built-in: 0 or -errno. */
int atag_state_write_tag(int fd, const char *keyword, const struct atag_tag *t);

/* Parse such a line (the keyword is skipped, @line is cut up): 0 or -EBADMSG. */
int atag_state_parse_tag(char *line, struct atag_tag *t);

#endif /* _ATAG_STATE_INT_H */
