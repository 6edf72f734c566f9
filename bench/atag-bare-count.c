// SPDX-License-Identifier: GPL-2.0
/*
 * atag-bare-count FILE [-B BUFFER]: the library's limit - a bare libtracecmd loop
 * that only counts the records of one buffer. The benchmark compares report with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <trace-cmd.h>

static int count(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	(*(unsigned long long *)data)++;
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *h, *top;
	unsigned long long n = 0;
	struct timespec a, b;
	int i;

	if (argc != 2 && !(argc == 4 && !strcmp(argv[2], "-B"))) {
		fprintf(stderr, "usage: %s FILE [-B BUFFER]\n", argv[0]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	top = h = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		fprintf(stderr, "%s: cannot open\n", argv[1]);
		return 1;
	}
	for (i = 0; argc == 4 && i < tracecmd_buffer_instances(top); i++)
		if (!strcmp(tracecmd_buffer_instance_name(top, i), argv[3]))
			h = tracecmd_buffer_instance_handle(top, i);
	tracecmd_iterate_events(h, NULL, 0, count, &n);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%llu records %.3f s\n", n, (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	if (h != top)
		tracecmd_close(h);
	tracecmd_close(top);
	return 0;
}
