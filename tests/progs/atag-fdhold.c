// SPDX-License-Identifier: GPL-2.0
/*
 * atag-fdhold: a workload with a known count of kernel allocations that stay live,
 * for the tiers that record or watch kmem events on a real kernel.
 *
 *   atag-fdhold [--ready FD --go FD] [--pid FILE] [--stay] N PATH
 *
 * Opens PATH N times (each open allocates one struct file in alloc_empty_file, and
 * whatever else the kernel keeps per open file), then hands the N descriptors to a
 * child that keeps them until it gets SIGTERM or SIGINT, and exits: the N
 * allocations outlive this process, so a recording that ends with it sees them
 * live. --stay keeps the descriptors in this process instead, until a signal;
 * --pid FILE gets the pid of the one that keeps them.
 *
 * --ready FD --go FD: before opening, write "ready" to FD (inherited, a pipe) and
 * wait for a line on the other; after opening, write "opened". Neither allocates
 * kernel memory (slab) in between: a watcher started after "ready" sees exactly
 * the opens and what follows.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void say(int fd, const char *what)
{
	if (fd >= 0 && write(fd, what, strlen(what)) < 0) {
		perror("--ready");
		exit(1);
	}
}

static void wait_go(int fd)
{
	char buf[64];

	if (read(fd, buf, sizeof(buf)) < 0) {
		perror("--go");
		exit(1);
	}
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
	int i = 1, n, stay = 0, ready = -1, go = -1;
	const char *pidfile = NULL;
	FILE *f;
	pid_t pid;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--go") && i + 1 < argc)
			go = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ready") && i + 1 < argc)
			ready = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pid") && i + 1 < argc)
			pidfile = argv[++i];
		else if (!strcmp(argv[i], "--stay"))
			stay = 1;
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: atag-fdhold [--ready FD --go FD] [--pid FILE] [--stay] "
			"N PATH\n");
		return 2;
	}
	n = atoi(argv[i]);
	if (go >= 0) {
		say(ready, "ready\n");
		wait_go(go);
	}
	for (int k = 0; k < n; k++) {
		if (open(argv[i + 1], O_RDONLY) < 0) {
			perror(argv[i + 1]);
			return 1;
		}
	}
	say(ready, "opened\n");
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
