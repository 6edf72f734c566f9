// SPDX-License-Identifier: GPL-2.0
/*
 * atag-bare-count FILE: the library's limit - the barest libtracecmd loop. It opens
 * FILE as a plain libtracecmd user does, tracecmd_open(FILE, 0) (the plugins
 * loaded), and counts the records of every buffer, the top one and each instance,
 * with tracecmd_iterate_events(), a callback that only counts. The benchmark times
 * it as a whole process against report.
 */
#include <stdio.h>

#include <trace-cmd.h>

static int count(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	(*(unsigned long long *)data)++;
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *top, *h;
	unsigned long long n = 0;
	int i, nr;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	top = tracecmd_open(argv[1], 0);
	if (!top) {
		fprintf(stderr, "%s: cannot open\n", argv[1]);
		return 1;
	}
	tracecmd_iterate_events(top, NULL, 0, count, &n);
	nr = tracecmd_buffer_instances(top);
	for (i = 0; i < nr; i++) {
		h = tracecmd_buffer_instance_handle(top, i);
		if (!h) {
			fprintf(stderr, "%s: cannot open buffer %s\n", argv[1],
				tracecmd_buffer_instance_name(top, i));
			tracecmd_close(top);
			return 1;
		}
		tracecmd_iterate_events(h, NULL, 0, count, &n);
		tracecmd_close(h);
	}
	printf("%llu records\n", n);
	tracecmd_close(top);
	return 0;
}
