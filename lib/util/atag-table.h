/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-table.h - aligned text tables (library-internal): cells are added a row at
 * a time, columns are as wide as their widest cell, numbers right-aligned, text
 * left-aligned; the last column, when left-aligned, gets no trailing blanks.
 * Not thread safe.
 */
#ifndef _ATAG_TABLE_H
#define _ATAG_TABLE_H

#include <stdio.h>

#define ATAG_TABLE_MAX_COLS	16

struct atag_table {
	int		cols;
	int		rows;
	char		**cells;	/* rows x cols, malloc'ed strings */
	int		width[ATAG_TABLE_MAX_COLS];
	unsigned int	left;		/* bit i: column i is left-aligned */
	int		failed;		/* out of memory: rows were dropped */
	int		max_width;	/* 0, or lines cut to it by eliding the last column
					 * (left-aligned: the call site) in its middle;
					 * not when that leaves it under
					 * ATAG_MIN_SITE_WIDTH (too wide anyway) */
};

/* An empty table of @cols columns (at most ATAG_TABLE_MAX_COLS). */
void atag_table_init(struct atag_table *t, int cols, unsigned int left);

/*
 * Add a row of t->cols cells, taking them (malloc'ed strings; a NULL cell is
 * written as "?"). On ENOMEM the row is freed and dropped, and t->failed set.
 */
void atag_table_add(struct atag_table *t, char **row);

/* Add a row of constant strings (a header), copied. */
void atag_table_add_const(struct atag_table *t, const char * const *row);

/* Write row @r, indented by @indent blanks (cut to t->max_width, see above). */
void atag_table_print_row(const struct atag_table *t, int r, int indent, FILE *f);

/* Write every row. */
void atag_table_print(const struct atag_table *t, int indent, FILE *f);

void atag_table_free(struct atag_table *t);

/* A malloc'ed printf-formatted string, or NULL. */
char *atag_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* _ATAG_TABLE_H */
