/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atag-stop.h - the stop signals of a command that changes the system and must undo
 * it (top): those whose default action ends a process, but for the faults. Their
 * handler records the signal and writes to a self-pipe whose read end is the stop
 * fd of every wait, so a signal ends a wait at once. SIGPIPE is ignored: a closed
 * stdout must not end the command before it undid what it changed.
 */
#ifndef _ATAG_STOP_H
#define _ATAG_STOP_H

#include <signal.h>

/* The signal that asked to stop (0: none yet), and how many came. */
extern volatile sig_atomic_t atag_stop_sig;
extern volatile sig_atomic_t atag_stop_count;
/*
 * Whether the last one reached us alone: the terminal sends INT, QUIT and HUP to
 * the whole foreground group (COMMAND too), anything else was sent to us.
 */
extern volatile sig_atomic_t atag_stop_alone;

/* Install the handlers; dies when the self-pipe cannot be made. */
void atag_stop_install(void);

/* The read end of the self-pipe, for poll(). */
int atag_stop_fd(void);

/* Empty the self-pipe (the flags say what came). */
void atag_stop_drain(void);

/* Block the stop signals (around fork()); @old gets the mask to set back. */
void atag_stop_block(sigset_t *old);

/* In a child before exec: the signal handling the command was started with. */
void atag_stop_restore(void);

#endif /* _ATAG_STOP_H */
