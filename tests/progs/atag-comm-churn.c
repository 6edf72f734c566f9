// SPDX-License-Identifier: GPL-2.0
/*
 * atag-comm-churn: keep the kernel's table of saved comms (tracefs saved_cmdlines)
 * changing, as a busy machine with someone else tracing does.
 *
 *   atag-comm-churn MARKER [--ready FILE]
 *
 * MARKER is the trace_marker of a tracefs instance the caller made, with an event
 * enabled in it (that registers the sched_switch probe that saves comms) and
 * tracing on. In a loop, a child is forked that names itself with a comm of a
 * random length (1 to 15 characters), writes a line into MARKER (a commit on its
 * CPU lets the next sched_switch save its comm) and exits: each saves a comm into
 * the slot of a new pid, so the table's text changes length all the time. Runs
 * until a signal; --ready FILE gets a line once the first child has written.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz";
	const char *ready = argc == 4 && !strcmp(argv[2], "--ready") ? argv[3] : NULL;
	unsigned int seed = getpid();
	char name[16];
	int fd, fd_ready, len, i, status;
	pid_t pid;

	if (argc != 2 && !ready) {
		fprintf(stderr, "usage: atag-comm-churn MARKER [--ready FILE]\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (;;) {
		len = 1 + rand_r(&seed) % 15;
		for (i = 0; i < len; i++)
			name[i] = letters[rand_r(&seed) % 26];
		name[len] = '\0';
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			prctl(PR_SET_NAME, name);
			if (write(fd, name, len) < 0)
				_exit(1);
			sched_yield();
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "atag-comm-churn: cannot write into %s\n", argv[1]);
			return 1;
		}
		if (ready) {
			fd_ready = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			if (fd_ready < 0 || write(fd_ready, "ready\n", 6) != 6) {
				perror(ready);
				return 1;
			}
			close(fd_ready);
			ready = NULL;
		}
	}
}
