// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd-alloc-tag reset: undo what a record killed with SIGKILL left behind, from
 * its state file, and nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-readback.h"
#include "atag-session.h"
#include "atag-tagopts.h"
#include "atag-utils.h"

static const char reset_usage[] =
	"usage: trace-cmd-alloc-tag reset\n"
	"\n"
	"Undo what a record that could not clean up (killed with SIGKILL, a crash) left\n"
	"behind, as listed in its state file in $ATAG_STATE_DIR (default\n"
	"/run/trace-cmd-alloc-tag): stop its trace-cmd record (only the process that is\n"
	"provably that recorder), which then completes the trace.dat, and move that into\n"
	"place, then read it back as record does (its saved comms mended when cut short);\n"
	"let go of the tags it held, turning tracing off on those a record turned on and\n"
	"no running record still holds; remove its tracefs instance; delete the state\n"
	"file. Nothing else is touched, and a record that still runs is left alone.\n"
	"\n"
	"  -h, --help          show this help\n";

static void parse_reset_options(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char optstring[] = ":h";
	int c;

	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, long_options, NULL)) != -1) {
		if (c == 'h')
			atag_usage_exit(reset_usage);
		atag_option_error(reset_usage, optstring, c, argv);
	}
	if (optind + 1 < argc)
		atag_usage_error(reset_usage, "unexpected argument '%s'", argv[optind + 1]);
}

static void print_undone(pid_t owner, pid_t recorder, const char *instance,
			 const struct atag_undo *u)
{
	printf("reset: record %d:", (int)owner);
	if (u->recorder_stopped)
		printf(" stopped trace-cmd record %d,", (int)recorder);
	if (u->recorder_unproven)
		printf(" left process %d alone (not provably its trace-cmd record),",
		       (int)recorder);
	if (u->output_moved)
		printf(" moved its trace.dat to %s,", u->output);
	printf(" turned tracing off on %zu %s", u->tags_disabled,
	       atag_plural(u->tags_disabled, "tag", "tags"));
	if (u->tags_gone)
		printf(" (%zu already off or gone)", u->tags_gone);
	if (u->tags_held)
		printf(", left %zu on for running records", u->tags_held);
	if (u->instance_removed)
		printf(", removed tracefs instance %s", instance);
	printf("\n");
}

/*
 * The trace.dat a killed record's trace-cmd completed, read back as record reads its
 * own (its saved comms mended when cut): 0, or 1 when it does not read back.
 */
static int read_back(const char *path, const char *instance)
{
	struct atag_readback rb;
	int ret = atag_readback(path, instance, -1, &rb);

	if (rb.mended[0])
		printf("reset: %s: %s\n", path, rb.mended);
	if (ret)
		fprintf(stderr, "%s: %s: moved into place, but it does not read back: %s\n",
			ATAG_PROG, path, rb.why);
	return !!ret;
}

/* Undo one state file; returns 0 or 1 when something could not be undone. */
static int reset_one(const char *path)
{
	struct atag_session *s = atag_session_load(path);
	char instance[256] = "";
	const struct atag_state *st;
	struct atag_undo u;
	pid_t owner, recorder;
	int ret, unreadable = 0;
	bool kept;

	if (!s) {
		if (errno == EBADMSG || errno == ATAG_ENOTREG || errno == EFBIG)
			fprintf(stderr, "%s: %s: %s: left alone\n", ATAG_PROG, path,
				errno == EBADMSG ? "not a record state file" :
				atag_strerror(errno));
		else
			fprintf(stderr, "%s: %s: %s\n", ATAG_PROG, path, strerror(errno));
		return 1;
	}
	/* undoing removes what it undid from the session */
	st = atag_session_state(s);
	owner = st->owner;
	recorder = st->recorder;
	if (st->instance)
		snprintf(instance, sizeof(instance), "%s", st->instance);
	ret = atag_session_undo(s, &u);
	if (u.owner_alive) {
		printf("reset: record %d still runs (%s): left alone\n", (int)owner, path);
		atag_session_free(s);
		return 0;
	}
	if (!ret)
		print_undone(owner, recorder, instance, &u);
	if (u.output_moved)
		unreadable = read_back(u.output, instance);
	ret = atag_session_close(s, &kept);
	if (kept) {
		/* some of it could not be undone: the file lists only the rest */
		fprintf(stderr, "%s: %s: undoing the %s step failed: %s; state file kept%s\n",
			ATAG_PROG, path, u.failed_step, strerror(-u.error),
			ret ? " unchanged (cannot rewrite it)" : ", listing what is left");
		return 1;
	}
	if (ret) {
		fprintf(stderr, "%s: %s: cannot remove: %s\n", ATAG_PROG, path, strerror(-ret));
		return 1;
	}
	return unreadable;
}

/* The holds of records gone without their state file (killed while ending). */
static int sweep(const char *dir)
{
	struct atag_sweep sw;
	int ret;

	ret = atag_session_sweep_holds(dir, &sw);
	if (sw.disabled)
		printf("reset: turned tracing off on %zu %s no running record holds any more\n",
		       sw.disabled, atag_plural(sw.disabled, "tag", "tags"));
	if (ret) {
		fprintf(stderr, "%s: %s/%s: %zu %s left: %s\n", ATAG_PROG, dir, ATAG_HOLDS_SUBDIR,
			sw.left, atag_plural(sw.left, "tag", "tags"), strerror(-ret));
		return 1;
	}
	return 0;
}

static int run_reset(void)
{
	const char *dir = atag_state_dir();
	char **paths;
	int i, n, failed = 0;

	n = atag_state_list(dir, &paths);
	if (n < 0)
		die("%s: %s", dir, strerror(-n));
	if (!n)
		printf("reset: nothing to undo (no record state file in %s)\n", dir);
	for (i = 0; i < n; i++) {
		failed |= reset_one(paths[i]);
		free(paths[i]);
	}
	free(paths);
	/* what state files still list is theirs: only after they were all undone */
	if (!failed && !access(dir, F_OK))
		failed |= sweep(dir);
	return failed ? ATAG_EXIT_FAIL : ATAG_EXIT_OK;
}

void trace_alloc_tag_reset(int argc, char **argv)
{
	parse_reset_options(argc, argv);
	exit(run_reset());
}
