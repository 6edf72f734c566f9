// SPDX-License-Identifier: GPL-2.0
/*
 * replay-TARGET FILE|DIR...: a fuzz target without libFuzzer. Each file named,
 * and every regular file of each directory named (in name order), is handed once
 * to the target's LLVMFuzzerTestOneInput(). make check links every target with
 * this main in its ASan+UBSan build (gcc), so that the corpus (the seeds and the
 * regression files of tests/fuzz/corpus/) is replayed at each check without the
 * clang build libFuzzer needs; make fuzz does the fuzzing.
 *
 * The path of each input goes to standard error before it runs: the last one
 * there is the input a sanitizer stopped on. Exit 0, or 2 when an input cannot
 * be read.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static unsigned long inputs;

static int replay_file(const char *path)
{
	uint8_t *data = NULL;
	size_t size = 0, cap = 0, got;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
		return -1;
	}
	for (;;) {
		if (size == cap) {
			uint8_t *n = realloc(data, cap ? 2 * cap : 65536);

			if (!n) {
				fprintf(stderr, "%s: out of memory\n", path);
				fclose(f);
				free(data);
				return -1;
			}
			data = n;
			cap = cap ? 2 * cap : 65536;
		}
		got = fread(data + size, 1, cap - size, f);
		size += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		perror(path);
		fclose(f);
		free(data);
		return -1;
	}
	fclose(f);
	fprintf(stderr, "input: %s\n", path);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	inputs++;
	return 0;
}

static int replay_dir(const char *dir)
{
	struct dirent **names;
	char path[4096];
	struct stat st;
	int n, i, ret = 0;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		perror(dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!ret && !stat(path, &st) && S_ISREG(st.st_mode))
			ret = replay_file(path);
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	struct stat st;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 2;
		}
		if (S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]))
			return 2;
	}
	printf("%lu inputs\n", inputs);
	return 0;
}
