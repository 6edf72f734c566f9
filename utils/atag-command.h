/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atag-command.h - the COMMAND a command runs and watches (record, top).
 *
 * COMMAND is forked with the stop signals blocked (atag-stop.h): a signal the
 * terminal sends to both of us then either came before (COMMAND is not started)
 * or reaches COMMAND with the action it was started with, never our handler in
 * the child. The child waits before exec until atag_command_go(): the caller
 * first says who it is (a marker line, a task filter), and a child whose parent
 * died before that never runs COMMAND. Whether exec worked comes back through a
 * close-on-exec pipe.
 */
#ifndef _ATAG_COMMAND_H
#define _ATAG_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

struct atag_command {
	pid_t		pid;		/* 0: not running (never started, or reaped) */
	int		status;		/* wait status, once reaped */
	bool		reaped;
	unsigned long	sent;		/* the signals sent to it, a bit each */
	int		go_fd;		/* lets the child exec */
	int		err_fd;		/* the child's exec errno, or EOF once exec worked */
};

/*
 * atag_command_check - die with one line unless @name is a program execvp() runs:
 * checked before anything changes, so that a mistyped COMMAND leaves no trace.
 */
void atag_command_check(const char *name);

/*
 * atag_command_fork - fork @argv[0] (searched in PATH), held before exec
 * Returns 0, -EINTR when a stop signal came first (nothing started), or -errno.
 */
int atag_command_fork(struct atag_command *c, char **argv);

/*
 * atag_command_go - let it exec
 * Returns 0 once exec worked, or the positive errno of exec (then the child is
 * reaped: pid is 0).
 */
int atag_command_go(struct atag_command *c);

/* Whether it ended (or never ran); reaps it then, without waiting. */
bool atag_command_done(struct atag_command *c);

/* Send @sig to it (when running), and remember that it was sent. */
void atag_command_signal(struct atag_command *c, int sig);

/*
 * atag_command_end - SIGTERM, then SIGKILL @term_ms later if it still runs; reaped.
 */
void atag_command_end(struct atag_command *c, int term_ms);

#endif /* _ATAG_COMMAND_H */
