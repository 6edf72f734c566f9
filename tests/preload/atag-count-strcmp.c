// SPDX-License-Identifier: GPL-2.0
/*
 * atag-count-strcmp.so: preloaded into a program by the tests (LD_PRELOAD), it counts
 * the calls of strcmp() and memcmp() made through the dynamic linker (the program's,
 * glib's g_str_equal()) and writes the count into $ATAG_COUNT_FILE when the program
 * exits.
 * A step whose comparisons grow with the square of its input shows as a count that
 * grows so, whatever the machine's speed: tests/t-complexity.sh compares the counts
 * of inputs of two sizes. (Not under AddressSanitizer, whose strcmp comes first.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long calls;

int strcmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	calls++;
	while (*x && *x == *y) {
		x++;
		y++;
	}
	return *x - *y;
}

/* memcmp() too: a stack compared with others by its frames' names' pointers */
int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	calls++;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

/* what a compiler may make of memcmp() compared with 0 */
int bcmp(const void *a, const void *b, size_t n)
{
	return memcmp(a, b, n);
}

static void __attribute__((destructor)) write_count(void)
{
	const char *path = getenv("ATAG_COUNT_FILE");
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "%llu\n", calls);
	fclose(f);
}
