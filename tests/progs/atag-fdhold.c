// SPDX-License-Identifier: GPL-2.0
/*
 * atag-fdhold: a workload with a known count of kernel allocations that stay live,
 * for the tiers that record or watch kmem events on a real kernel.
 *
 *   atag-fdhold [--go FIFO] [--pid FILE] [--stay] N PATH
 *
 * Opens PATH N times (each open allocates one struct file in alloc_empty_file, and
 * whatever else the kernel keeps per open file), then hands the N descriptors to a
 * child that keeps them until it gets SIGTERM or SIGINT, and exits: the N
 * allocations outlive this process, so a recording that ends with it sees them
 * live. --go FIFO waits, before opening, until a line can be read from FIFO (the
 * watcher is ready); --pid FILE gets the child's pid, for the test to end it;
 * --stay keeps the descriptors in this process instead, until a signal.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void wait_go(const char *fifo)
{
	char buf[64];
	int fd = open(fifo, O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf)) < 0) {
		perror(fifo);
		exit(1);
	}
	close(fd);
}

static void hold(void)
{
	sigset_t set;
	int sig;

	/* until a signal that ends us: the descriptors close with the process */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigwait(&set, &sig);
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *go = NULL, *pidfile = NULL;
	int i = 1, n, stay = 0;
	FILE *f;
	pid_t pid;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--go") && i + 1 < argc)
			go = argv[++i];
		else if (!strcmp(argv[i], "--pid") && i + 1 < argc)
			pidfile = argv[++i];
		else if (!strcmp(argv[i], "--stay"))
			stay = 1;
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: atag-fdhold [--go FIFO] [--pid FILE] [--stay] N PATH\n");
		return 2;
	}
	n = atoi(argv[i]);
	if (go)
		wait_go(go);
	for (int k = 0; k < n; k++) {
		if (open(argv[i + 1], O_RDONLY) < 0) {
			perror(argv[i + 1]);
			return 1;
		}
	}
	pid = stay ? getpid() : fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0 || stay) {
		if (stay && pidfile && (f = fopen(pidfile, "w"))) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
		hold();
	}
	if (pidfile && (f = fopen(pidfile, "w"))) {
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
	return 0;
}
