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

/* The width of the columns shown before the last, with their separators. */
static int used_width(const struct atag_table *t, int indent)
{
	int c, used = indent;

	for (c = 0; c < t->cols - 1; c++)
		if (!(t->hidden & (1u << c)))
			used += t->width[c] + 2;
	return used;
}

/* The column whose header cell is @name, or -1. */
static int column_named(const struct atag_table *t, const char *name)
{
	int c;

	for (c = 0; t->rows && c < t->cols - 1; c++)
		if (t->cells[c] && !strcmp(t->cells[c], name))
			return c;
	return -1;
}

int atag_table_fit(struct atag_table *t, int indent)
{
	int c, i, last, n = 0;

	t->hidden = 0;
	if (!t->max_width || !t->drop || !t->rows || t->cols < 2)
		return 0;
	last = t->width[t->cols - 1];
	if (last > ATAG_MIN_SITE_WIDTH)
		last = ATAG_MIN_SITE_WIDTH;
	for (i = 0; t->drop[i] && used_width(t, indent) + last > t->max_width; i++) {
		c = column_named(t, t->drop[i]);
		if (c < 0 || (t->hidden & (1u << c)))
			continue;
		t->hidden |= 1u << c;
		n++;
	}
	return n;
}

/*
 * Write @word and @end after a blank, at column @pos, or on a new line indented by
 * 2 when that would pass t->max_width. Returns the column after them.
 */
static int put_word(const struct atag_table *t, const char *word, const char *end, int pos,
		    FILE *f)
{
	int len = (int)(strlen(word) + strlen(end));

	if (pos && pos + 1 + len > t->max_width) {
		fputs("\n  ", f);
		pos = 2;
	} else if (pos) {
		fputc(' ', f);
		pos++;
	}
	fprintf(f, "%s%s", word, end);
	return pos + len;
}

void atag_table_print_hidden(const struct atag_table *t, FILE *f)
{
	char head[64];
	int c, i, pos, left;

	if (!t->hidden)
		return;
	snprintf(head, sizeof(head), "columns left out to fit %d:", t->max_width);
	pos = put_word(t, head, "", 0, f);
	left = __builtin_popcount(t->hidden);
	for (i = 0; t->drop[i]; i++) {
		c = column_named(t, t->drop[i]);
		if (c >= 0 && (t->hidden & (1u << c)))
			pos = put_word(t, t->drop[i], --left ? "," : "", pos, f);
	}
	put_word(t, "(-f csv has all)", "", pos, f);
	fputc('\n', f);
}

/* What is left of t->max_width for the last column, or 0 for no limit. */
static size_t last_width(const struct atag_table *t, int indent)
{
	int used;

	if (!t->max_width || !(t->left & (1u << (t->cols - 1))))
		return 0;
	used = used_width(t, indent);
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
		if (t->hidden & (1u << c))
			continue;
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
