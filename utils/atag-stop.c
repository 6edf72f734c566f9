// SPDX-License-Identifier: GPL-2.0
/*
 * The stop signals and their self-pipe. See atag-stop.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-stop.h"

volatile sig_atomic_t atag_stop_sig;
volatile sig_atomic_t atag_stop_count;
volatile sig_atomic_t atag_stop_alone;

static const int stop_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
	SIGXCPU, SIGXFSZ, SIGPWR,
};
#define NR_STOP_SIGNALS		(sizeof(stop_signals) / sizeof(stop_signals[0]))

static int stop_pipe[2] = { -1, -1 };
static struct sigaction orig_actions[NR_STOP_SIGNALS + 1];	/* then SIGPIPE's */
static sigset_t orig_mask;

/*
 * The C library keeps the first real-time signals (32 and 33 with glibc) for its own use:
 * sigaction() refuses them, and starting a thread may give one a handler, which exec turns
 * into the default action. A caller that ignores one must find its COMMAND ignoring it
 * still, so these are read and set again with the system call itself.
 */
#define FIRST_LIBC_SIGNAL	32
#define NR_LIBC_SIGNALS		2

struct kernel_sigaction {	/* the generic layout (not MIPS') */
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

static bool libc_ignored[NR_LIBC_SIGNALS];

static void libc_signals_save(void)
{
#if !defined(__mips__)
	struct kernel_sigaction old;
	int i;

	for (i = 0; i < NR_LIBC_SIGNALS; i++) {
		if (FIRST_LIBC_SIGNAL + i >= SIGRTMIN)
			break;
		if (!syscall(SYS_rt_sigaction, FIRST_LIBC_SIGNAL + i, NULL, &old, sizeof(old.mask)))
			libc_ignored[i] = old.handler == SIG_IGN;
	}
#endif
}

static void libc_signals_restore(void)
{
#if !defined(__mips__)
	struct kernel_sigaction ign;
	int i;

	memset(&ign, 0, sizeof(ign));
	ign.handler = SIG_IGN;
	for (i = 0; i < NR_LIBC_SIGNALS; i++)
		if (libc_ignored[i])
			syscall(SYS_rt_sigaction, FIRST_LIBC_SIGNAL + i, &ign, NULL, sizeof(ign.mask));
#endif
}

static void on_stop_signal(int sig, siginfo_t *info, void *uctx)
{
	int err = errno;
	ssize_t n;

	(void)uctx;
	atag_stop_alone = info->si_code != SI_KERNEL ||
			  (sig != SIGINT && sig != SIGQUIT && sig != SIGHUP);
	atag_stop_sig = sig;
	atag_stop_count++;
	/* a full pipe has a wake-up pending already */
	n = write(stop_pipe[1], "", 1);
	(void)n;
	errno = err;
}

static void stop_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaddset(set, stop_signals[i]);
}

void atag_stop_install(void)
{
	struct sigaction sa, ign;
	sigset_t set;
	size_t i;

	if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK))
		die("cannot create a pipe: %s", strerror(errno));
	libc_signals_save();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	stop_set(&sa.sa_mask);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, &orig_actions[i]);
	sigaction(SIGPIPE, &ign, &orig_actions[i]);
	stop_set(&set);
	sigprocmask(SIG_UNBLOCK, &set, &orig_mask);
}

int atag_stop_fd(void)
{
	return stop_pipe[0];
}

void atag_stop_drain(void)
{
	char buf[64];

	while (read(stop_pipe[0], buf, sizeof(buf)) > 0)
		;
}

void atag_stop_block(sigset_t *old)
{
	sigset_t set;

	stop_set(&set);
	sigprocmask(SIG_BLOCK, &set, old);
}

void atag_stop_restore(void)
{
	size_t i;

	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &orig_actions[i], NULL);
	sigaction(SIGPIPE, &orig_actions[i], NULL);
	libc_signals_restore();
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
}
