// SPDX-License-Identifier: GPL-2.0
/*
 * The CUnit runner: runs every registered suite (or those named with -r) and
 * exits non-zero when any test failed.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "atag-utest.h"

static struct atag_utest_suite *suites;
static char tmpdir[] = "/tmp/atag-utest.XXXXXX";
static int have_tmpdir;

void atag_utest_register(struct atag_utest_suite *suite)
{
	struct atag_utest_suite **p = &suites;

	/* keep them sorted by name, so runs are in a stable order */
	while (*p && strcmp((*p)->name, suite->name) < 0)
		p = &(*p)->next;
	suite->next = *p;
	*p = suite;
}

const char *atag_utest_build_dir(void)
{
	const char *b = getenv("ATAG_BUILD");

	return b && *b ? b : "build";
}

unsigned int atag_utest_scale(void)
{
	const char *q = getenv("ATAG_UTEST_QUICK");

	return q && !strcmp(q, "1") ? 10 : 1;
}

static void remove_tmpdir(void)
{
	char cmd[sizeof(tmpdir) + 16];

	if (!have_tmpdir || getenv("ATAG_KEEP_TMP"))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

const char *atag_utest_tmpdir(void)
{
	if (!have_tmpdir) {
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			exit(1);
		}
		have_tmpdir = 1;
		atexit(remove_tmpdir);
	}
	return tmpdir;
}

char *atag_utest_read_file(const char *path, size_t *len)
{
	size_t size = 0, cap = 4096, n;
	char *buf;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (n = fread(buf + size, 1, cap - size, f)) > 0) {
		size += n;
		if (size == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[size] = '\0';
	if (len)
		*len = size;
	return buf;
}

int atag_utest_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(text, f) < 0 ? -1 : 0;
	return fclose(f) ? -1 : ret;
}

void atag_utest_assert_file(const char *path, const char *expect)
{
	char *text = atag_utest_read_file(path, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(text, expect);
	free(text);
}

char *atag_utest_run(const char *cmd, int *status, int merge)
{
	size_t size = 0, cap = 4096, n;
	char *full, *buf;
	FILE *p;
	int st;

	if (asprintf(&full, "%s%s", cmd, merge ? " 2>&1" : "") < 0)
		return NULL;
	p = popen(full, "r");
	free(full);
	if (!p)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (n = fread(buf + size, 1, cap - size, p)) > 0) {
		size += n;
		if (size == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
	}
	st = pclose(p);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (buf)
		buf[size] = '\0';
	return buf;
}

static void usage(const char *prog, int code)
{
	struct atag_utest_suite *s;

	printf("usage: %s [-s] [-r suite]...\n"
	       "  -s, --silent      print only the summary\n"
	       "  -r, --run SUITE   run this suite only (may be repeated)\n"
	       "  -l, --list        list the suites\n"
	       "suites:", prog);
	for (s = suites; s; s = s->next)
		printf(" %s", s->name);
	printf("\n");
	exit(code);
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "silent", no_argument, NULL, 's' },
		{ "run", required_argument, NULL, 'r' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	CU_BasicRunMode mode = CU_BRM_VERBOSE;
	struct atag_utest_suite *s;
	const char **only = NULL;
	int nr_only = 0, i, c;
	unsigned int failed;

	while ((c = getopt_long(argc, argv, "sr:lh", long_options, NULL)) != -1) {
		switch (c) {
		case 's':
			mode = CU_BRM_SILENT;
			break;
		case 'r':
			only = realloc(only, sizeof(*only) * (nr_only + 1));
			only[nr_only++] = optarg;
			break;
		case 'l':
			for (s = suites; s; s = s->next)
				printf("%s\n", s->name);
			return 0;
		case 'h':
			usage(argv[0], 0);
			break;
		default:
			usage(argv[0], 2);
		}
	}

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
		return 1;
	}
	for (i = 0; i < nr_only; i++) {
		for (s = suites; s; s = s->next)
			if (!strcmp(s->name, only[i]))
				break;
		if (!s) {
			fprintf(stderr, "no suite '%s'\n", only[i]);
			usage(argv[0], 2);
		}
	}
	for (s = suites; s; s = s->next) {
		for (i = 0; i < nr_only; i++)
			if (!strcmp(s->name, only[i]))
				break;
		if (!nr_only || i < nr_only)
			s->add();
	}
	free(only);

	CU_basic_set_mode(mode);
	CU_basic_run_tests();
	failed = CU_get_number_of_tests_failed();
	/* a suite whose init failed counts its tests as not run: a failure too */
	failed += CU_get_number_of_suites_failed();
	printf("\n");
	CU_cleanup_registry();
	return failed != 0;
}
