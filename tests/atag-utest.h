/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atag-utest.h - the CUnit suites of trace-cmd-alloc-tag.
 *
 * A suite file tests/<area>-utest.c defines a function that adds its CUnit suite
 * and registers it with ATAG_UTEST_SUITE("name", fn); the runner (atag-utest.c)
 * finds every registered suite, so adding a suite touches no other file.
 */
#ifndef _ATAG_UTEST_H
#define _ATAG_UTEST_H

#include <CUnit/CUnit.h>

struct atag_utest_suite {
	const char		*name;
	void			(*add)(void);
	struct atag_utest_suite	*next;
};

void atag_utest_register(struct atag_utest_suite *suite);

#define ATAG_UTEST_SUITE(sname, fn)						\
	static struct atag_utest_suite __atag_suite_##fn = { sname, fn, NULL };	\
	static void __attribute__((constructor)) __atag_register_##fn(void)	\
	{									\
		atag_utest_register(&__atag_suite_##fn);			\
	}

/* The build directory under test ($ATAG_BUILD, default "build"). */
const char *atag_utest_build_dir(void);

/*
 * How many times fewer rounds the long loops of a suite run: 1, or 10 with
 * ATAG_UTEST_QUICK=1 (t-valgrind: under valgrind the loops find nothing more
 * from their millionth round than from their hundred-thousandth, at 50 times
 * the cost). The normal and sanitizer builds run them whole.
 */
unsigned int atag_utest_scale(void);

/* A fresh temporary directory for this run (removed at exit). */
const char *atag_utest_tmpdir(void);

/* Run a shell command, capture stdout (and stderr if @merge) into a malloc'ed string. */
char *atag_utest_run(const char *cmd, int *status, int merge);

/* Read a whole file into a malloc'ed NUL-terminated string (NULL on error). */
char *atag_utest_read_file(const char *path, size_t *len);

/* Write @text into @path, created or truncated; 0 or -1. */
int atag_utest_write_file(const char *path, const char *text);

/* Assert that @path holds exactly @expect (a fatal assertion when it cannot be read). */
void atag_utest_assert_file(const char *path, const char *expect);

#endif /* _ATAG_UTEST_H */
