// SPDX-License-Identifier: GPL-2.0
/*
 * What record and top set up alike: the session that undoes what they change.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-session.h"

struct atag_session *atag_cmd_session(struct atag_allocinfo *ai, const char *who)
{
	const char *dir = atag_state_dir();
	struct atag_session *sess;
	char path[4096];
	int err;

	sess = atag_session_create(dir);
	if (!sess && errno == EEXIST)
		die("%s/record-%d.state exists: a killed %s left things behind; run '%s reset' first",
		    dir, (int)getpid(), who, ATAG_PROG);
	if (!sess)
		die("%s: cannot create the state file: %s", dir, strerror(errno));
	if (ai && atag_session_set_allocinfo(sess, ai)) {
		err = errno;
		snprintf(path, sizeof(path), "%s", atag_session_state(sess)->path);
		atag_session_close(sess, NULL);	/* it lists nothing to undo */
		die("%s: cannot write: %s", path, strerror(err));
	}
	return sess;
}
