// SPDX-License-Identifier: GPL-2.0
/*
 * atag-bench-loop N [FILE]: open, read and close FILE (default /etc/hostname) N
 * times: a workload of many small kernel allocations for bench/, recorded by
 * report's recorder and by perf kmem record.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *path = argc > 2 ? argv[2] : "/etc/hostname";
	long n = argc > 1 ? atol(argv[1]) : 100000, i;
	char buf[64];
	int fd;

	for (i = 0; i < n; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		if (read(fd, buf, sizeof(buf)) < 0) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	return 0;
}
