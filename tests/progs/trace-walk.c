// SPDX-License-Identifier: GPL-2.0
/*
 * trace-walk [-d] [-a] [-w] FILE [BUFFER]: print every record of a buffer as libatag
 * hands them out: "cpu ts size missed checksum". tests/t-pages.sh runs it with
 * the direct page walk (ATAG_PAGES unset) and with libtracecmd (ATAG_PAGES=0) and
 * compares. -d says on stderr which walk was taken. -a sets a look-ahead hook
 * (atag_trace_set_ahead()) that checks what it is told: the records named
 * between two page entries of a CPU must be the records the walk then hands out
 * of that CPU, in order; it ends with "ahead: N named, N matched, N wrong".
 * -w writes the walk's warnings (damaged pages) to stderr, a line each.
 */
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "atag-trace.h"

static unsigned int checksum(const void *data, unsigned int size)
{
	const unsigned char *p = data;
	unsigned int sum = 0, i;

	for (i = 0; i < size; i++)
		sum = sum * 31 + p[i];
	return sum;
}

/* -a: per CPU, the records named since its last page entry, and those of the page at hand */
struct named {
	unsigned int	*sum;
	unsigned int	nr;
	unsigned int	cap;
};

struct cpu_ahead {
	struct named	next;
	struct named	page;
	unsigned int	pos;		/* in page: the next record to be handed out */
};

static struct cpu_ahead *ahead;
static int nr_ahead;
static unsigned long named, matched, wrong;

static struct cpu_ahead *ahead_of(int cpu)
{
	if (cpu < 0)
		return NULL;
	if (cpu >= nr_ahead) {
		ahead = realloc(ahead, (cpu + 1) * sizeof(*ahead));
		if (!ahead)
			exit(1);
		memset(ahead + nr_ahead, 0, (cpu + 1 - nr_ahead) * sizeof(*ahead));
		nr_ahead = cpu + 1;
	}
	return &ahead[cpu];
}

static bool check_ahead(void *data, int cpu, const void *rec, uint32_t size)
{
	struct cpu_ahead *a = ahead_of(cpu);
	struct named n;

	(void)data;
	if (!a) {
		wrong++;
		return false;
	}
	if (rec) {
		if (a->next.nr == a->next.cap) {
			a->next.cap = a->next.cap ? 2 * a->next.cap : 64;
			a->next.sum = realloc(a->next.sum, a->next.cap * sizeof(*a->next.sum));
			if (!a->next.sum)
				exit(1);
		}
		a->next.sum[a->next.nr++] = checksum(rec, size);
		named++;
		return true;
	}
	/* a page entered: the last one's named records were all handed out */
	wrong += a->pos != a->page.nr;
	n = a->page;
	a->page = a->next;
	a->next = n;
	a->next.nr = 0;
	a->pos = 0;
	return true;
}

static int print(const struct tep_record *rec, void *data)
{
	unsigned int sum = checksum(rec->data, rec->size);
	struct cpu_ahead *a;

	(void)data;
	if (nr_ahead && (a = ahead_of(rec->cpu)) && a->pos < a->page.nr) {
		if (a->page.sum[a->pos++] == sum)
			matched++;
		else
			wrong++;
	}
	printf("%d %llu %d %lld %08x\n", rec->cpu, rec->ts, rec->size, rec->missed_events, sum);
	return 0;
}

int main(int argc, char **argv)
{
	struct atag_trace *t;
	bool say = false, check = false, warnings = false;
	char err[256];
	int b, c;

	for (; argc > 1 && argv[1][0] == '-' && argv[1][1] && !argv[1][2]; argv++, argc--) {
		if (argv[1][1] == 'd')
			say = true;
		else if (argv[1][1] == 'a')
			check = true;
		else if (argv[1][1] == 'w')
			warnings = true;
		else
			break;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: trace-walk [-d] [-a] [-w] FILE [BUFFER]\n");
		return 2;
	}
	if (atag_trace_open(argv[1], &t, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 1;
	}
	b = atag_trace_find_buffer(t, argc > 2 ? argv[2] : "");
	if (b < 0) {
		fprintf(stderr, "no buffer\n");
		return 1;
	}
	if (say)
		fprintf(stderr, "walk: %s\n", atag_trace_direct(t, b) ? "pages" : "libtracecmd");
	if (check) {
		ahead_of(0);
		atag_trace_set_ahead(t, check_ahead, NULL);
	}
	atag_trace_iterate(t, b, print, NULL);
	fflush(stdout);
	for (c = 0; warnings && c < (int)atag_trace_nr_warnings(t); c++)
		fprintf(stderr, "warning: %s\n", atag_trace_warning(t, c));
	atag_trace_close(t);
	if (check) {
		for (c = 0; c < nr_ahead; c++) {
			wrong += ahead[c].pos != ahead[c].page.nr;
			free(ahead[c].next.sum);
			free(ahead[c].page.sum);
		}
		free(ahead);
		fflush(stdout);
		fprintf(stderr, "ahead: %lu named, %lu matched, %lu wrong\n", named, matched,
			wrong);
	}
	return 0;
}
