// SPDX-License-Identifier: GPL-2.0
/*
 * The COMMAND of record and top. See atag-command.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-command.h"
#include "atag-stop.h"
#include "atag-utils.h"

void atag_command_check(const char *name)
{
	char full[4096];
	int ret = atag_find_program(name, full, sizeof(full));

	if (ret == -ENOENT && strchr(name, '/'))
		die("%s: no such file: COMMAND cannot run", name);
	if (ret == -ENOENT)
		die("%s: command not found (PATH searched)", name);
	if (ret)
		die("%s: not an executable file: COMMAND cannot run",
		    strchr(name, '/') ? name : full);
}

int atag_command_fork(struct atag_command *c, char **argv)
{
	int err_pipe[2], go[2], err;
	sigset_t old;
	char x;

	memset(c, 0, sizeof(*c));
	c->go_fd = c->err_fd = -1;
	if (pipe2(err_pipe, O_CLOEXEC))
		return -errno;
	if (pipe2(go, O_CLOEXEC)) {
		err = -errno;
		close(err_pipe[0]);
		close(err_pipe[1]);
		return err;
	}
	atag_stop_block(&old);
	c->pid = atag_stop_sig ? -1 : fork();
	if (c->pid == 0) {
		atag_stop_restore();
		close(err_pipe[0]);
		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(126);
		execvp(argv[0], argv);
		err = errno;
		/* the pipe tells the parent why (it closes unread when exec works) */
		_exit(write(err_pipe[1], &err, sizeof(err)) == sizeof(err) ? 127 : 126);
	}
	err = c->pid < 0 ? (atag_stop_sig ? -EINTR : -errno) : 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(err_pipe[1]);
	close(go[0]);
	if (err) {
		c->pid = 0;
		close(err_pipe[0]);
		close(go[1]);
		return err;
	}
	c->go_fd = go[1];
	c->err_fd = err_pipe[0];
	return 0;
}

int atag_command_go(struct atag_command *c)
{
	int err = 0, werr = 0;

	if (c->go_fd < 0)
		return ECHILD;
	if (write(c->go_fd, "", 1) != 1)
		werr = errno;
	close(c->go_fd);
	c->go_fd = -1;
	/* EOF: exec worked (or the child died before it: then the write failed) */
	if (read(c->err_fd, &err, sizeof(err)) != sizeof(err))
		err = werr;
	close(c->err_fd);
	c->err_fd = -1;
	if (err) {
		waitpid(c->pid, &c->status, 0);
		c->reaped = true;
		c->pid = 0;
	}
	return err;
}

bool atag_command_done(struct atag_command *c)
{
	int status;

	if (c->pid <= 0)
		return true;
	if (waitpid(c->pid, &status, WNOHANG) != c->pid)
		return false;
	c->status = status;
	c->reaped = true;
	c->pid = 0;
	return true;
}

void atag_command_signal(struct atag_command *c, int sig)
{
	if (c->pid <= 0)
		return;
	kill(c->pid, sig);
	c->sent |= 1UL << sig;
}

void atag_command_end(struct atag_command *c, int term_ms)
{
	if (c->pid <= 0)
		return;
	atag_command_signal(c, SIGTERM);
	atag_proc_wait(c->pid, 0, term_ms, -1);
	if (!atag_command_done(c)) {
		atag_command_signal(c, SIGKILL);
		waitpid(c->pid, &c->status, 0);
		c->reaped = true;
		c->pid = 0;
	}
}
