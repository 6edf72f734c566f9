// SPDX-License-Identifier: LGPL-2.1
/*
 * Aligned text tables. See atag-table.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-table.h"
#include "atag-utils.h"

void atag_table_init(struct atag_table *t, int cols, unsigned int left)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols > ATAG_TABLE_MAX_COLS ? ATAG_TABLE_MAX_COLS : cols;
	t->left = left;
}

void atag_table_add(struct atag_table *t, char **row)
{
	char **cells;
	int c, w;

	cells = realloc(t->cells, (size_t)(t->rows + 1) * t->cols * sizeof(*cells));
	if (!cells) {
		for (c = 0; c < t->cols; c++)
			free(row[c]);
		t->failed = 1;
		return;
	}
	t->cells = cells;
	for (c = 0; c < t->cols; c++) {
		cells[t->rows * t->cols + c] = row[c];
		w = row[c] ? (int)strlen(row[c]) : 1;
		if (w > t->width[c])
			t->width[c] = w;
	}
	t->rows++;
}

void atag_table_add_const(struct atag_table *t, const char * const *row)
{
	char *copy[ATAG_TABLE_MAX_COLS];
	int c;

	for (c = 0; c < t->cols; c++)
		copy[c] = strdup(row[c]);
	atag_table_add(t, copy);
}

/* What is left of t->max_width for the last column, or 0 for no limit. */
static size_t last_width(const struct atag_table *t, int indent)
{
	int c, used = indent;

	if (!t->max_width || !(t->left & (1u << (t->cols - 1))))
		return 0;
	for (c = 0; c < t->cols - 1; c++)
		used += t->width[c] + 2;
	/* the other columns leave too little: the line is too wide anyway */
	return t->max_width - used >= ATAG_MIN_SITE_WIDTH ? t->max_width - used : 0;
}

void atag_table_print_row(const struct atag_table *t, int r, int indent, FILE *f)
{
	size_t last = last_width(t, indent);
	const char *cell;
	char *cut;
	int c;

	fprintf(f, "%*s", indent, "");
	for (c = 0; c < t->cols; c++) {
		cell = t->cells[r * t->cols + c];
		if (!cell)
			cell = "?";
		if (c == t->cols - 1 && (t->left & (1u << c)) && last && strlen(cell) > last &&
		    (cut = malloc(last + 1))) {
			fputs(atag_elide_middle(cut, last + 1, cell, last), f);
			free(cut);
		} else if (c == t->cols - 1 && (t->left & (1u << c)))
			fputs(cell, f);
		else if (t->left & (1u << c))
			fprintf(f, "%-*s  ", t->width[c], cell);
		else
			fprintf(f, "%*s%s", t->width[c], cell, c == t->cols - 1 ? "" : "  ");
	}
	fputc('\n', f);
}

void atag_table_print(const struct atag_table *t, int indent, FILE *f)
{
	int r;

	for (r = 0; r < t->rows; r++)
		atag_table_print_row(t, r, indent, f);
}

void atag_table_free(struct atag_table *t)
{
	int i;

	for (i = 0; i < t->rows * t->cols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->rows = 0;
}

char *atag_strf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}
