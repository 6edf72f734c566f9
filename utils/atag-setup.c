// SPDX-License-Identifier: GPL-2.0
/*
 * What record and top set up alike: the session that undoes what they change.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "atag-allocinfo.h"
#include "atag-cmd.h"
#include "atag-session.h"
#include "atag-tagopts.h"
#include "atag-utils.h"

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

bool atag_cmd_undo(struct atag_session *s, struct atag_allocinfo *ai, size_t *held)
{
	struct atag_undo u;
	bool failed = false;

	atag_session_undo(s, &u);
	if (u.tags_left) {
		fprintf(stderr, "%s: %s: could not turn tracing off again on %zu %s: %s\n",
			ATAG_PROG, atag_allocinfo_name(ai), u.tags_left,
			atag_plural(u.tags_left, "tag", "tags"), strerror(-u.tags_error));
		failed = true;
	}
	if (u.instance_error) {
		fprintf(stderr, "%s: cannot remove tracefs instance %s: %s\n", ATAG_PROG,
			atag_session_instance_name(s), strerror(-u.instance_error));
		failed = true;
	}
	if (held)
		*held = u.tags_held;
	return failed;
}

bool atag_cmd_session_close(struct atag_session *s)
{
	char path[4096];
	bool kept;
	int ret;

	snprintf(path, sizeof(path), "%s", atag_session_state(s)->path);
	ret = atag_session_close(s, &kept);
	if (kept) {
		if (ret)
			fprintf(stderr, "%s: %s: cannot rewrite: %s; it still lists what was undone\n",
				ATAG_PROG, path, strerror(-ret));
		fprintf(stderr, "%s: %s kept: run '%s reset' to finish undoing\n", ATAG_PROG,
			path, ATAG_PROG);
	}
	return kept;
}
