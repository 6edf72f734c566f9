/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * atag-table.h - aligned text tables (library-internal): cells are added a row at
 * a time, columns are as wide as their widest cell, numbers right-aligned, text
 * left-aligned; the last column, when left-aligned, gets no trailing blanks.
 * The first row added is the header: its cells name the columns.
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
	const char * const *drop;	/* NULL, or header names, NULL-terminated: the
					 * columns atag_table_fit() may leave out, in
					 * this order */
	unsigned int	hidden;		/* bit i: column i left out (atag_table_fit()) */
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

/*
 * Once every row is added: when t->max_width is set and a row, indented by
 * @indent, would not fit with the last column cut to ATAG_MIN_SITE_WIDTH (or
 * whole, when narrower), leave out the columns of t->drop, one at a time in its
 * order, until it does or t->drop is used up. Returns the number left out.
 */
int atag_table_fit(struct atag_table *t, int indent);

/*
 * When atag_table_fit() left columns out, write the line that names them, in the
 * order they were left out: "columns left out to fit 80: P90, P99 (-f csv has all)",
 * continued on lines indented by 2 where it would pass t->max_width.
 */
void atag_table_print_hidden(const struct atag_table *t, FILE *f);

/* Write row @r, indented by @indent blanks (cut to t->max_width, see above). */
void atag_table_print_row(const struct atag_table *t, int r, int indent, FILE *f);

/* Write every row. */
void atag_table_print(const struct atag_table *t, int indent, FILE *f);

void atag_table_free(struct atag_table *t);

/* A malloc'ed printf-formatted string, or NULL. */
char *atag_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* _ATAG_TABLE_H */
