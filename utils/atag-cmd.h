/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atag-cmd.h - the trace-cmd-alloc-tag command layer.
 *
 * Each subcommand lives in utils/atag-<cmd>.c and has trace-cmd's entry shape,
 * void trace_alloc_tag_<cmd>(int argc, char **argv), where argv[1] is the
 * subcommand name (parse with getopt_long(argc - 1, argv + 1, "+...")), so a file
 * could move into trace-cmd's tracecmd/ directory unchanged.
 */
#ifndef _ATAG_CMD_H
#define _ATAG_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define ATAG_PROG	"trace-cmd-alloc-tag"

/* Exit codes: 0 success, 1 failure, 2 usage error / not available. */
#define ATAG_EXIT_OK		0
#define ATAG_EXIT_FAIL		1
#define ATAG_EXIT_USAGE		2

void trace_alloc_tag_list(int argc, char **argv);
void trace_alloc_tag_enable(int argc, char **argv);
void trace_alloc_tag_disable(int argc, char **argv);
void trace_alloc_tag_record(int argc, char **argv);
void trace_alloc_tag_report(int argc, char **argv);
void trace_alloc_tag_stat(int argc, char **argv);
void trace_alloc_tag_reset(int argc, char **argv);
void trace_alloc_tag_diff(int argc, char **argv);
void trace_alloc_tag_top(int argc, char **argv);
void trace_alloc_tag_leaks(int argc, char **argv);

/* Whether a report's arguments ask for --diff (then trace_alloc_tag_diff() runs it). */
bool atag_diff_asked(int argc, char **argv);

/* The subcommand being run (main() sets it), for messages; NULL before. */
extern const char *atag_cmd_name;

/*
 * Print "trace-cmd-alloc-tag: <reason>" and the hint line
 * "Try 'trace-cmd-alloc-tag <cmd> --help'." to stderr, exit 2 (@usage: the
 * subcommand's help, not printed).
 */
void __attribute__((noreturn, format(printf, 2, 3)))
atag_usage_error(const char *usage, const char *fmt, ...);

/* Print the hint line of atag_usage_error() to stderr. */
void atag_usage_hint(void);

/*
 * The command is about to read the @nr files at @paths: from 64 MiB of them up,
 * more of the heap is marked for huge pages (trace-cmd-alloc-tag.c says why);
 * once a process.
 */
void atag_expect_inputs(const char *const *paths, int nr);

/*
 * The command is done with @r and exits next: it is kept, not freed, until the
 * process ends (trace-cmd-alloc-tag.c says why); NULL is fine.
 */
struct atag_report;
void atag_report_keep(struct atag_report *r);

/*
 * Report what getopt_long() returned as @c ('?' or ':', with opterr = 0 and a
 * ':' after the '+' of @optstring) as one line naming the option, then exit 2.
 * @argv is the subcommand's unshifted argv.
 */
void __attribute__((noreturn))
atag_option_error(const char *usage, const char *optstring, int c, char **argv);

/* Print @usage (the long help of a subcommand) to stdout and exit 0. */
void __attribute__((noreturn)) atag_usage_exit(const char *usage);

/* Exit 2 with a usage error unless @val is one of @choices (NULL-terminated). */
void atag_check_choice(const char *usage, const char *opt, const char *val,
		       const char *const *choices);

/*
 * -f/--format FMT and -o/--output FILE, alike on every command that writes a
 * result: put ATAG_OUTPUT_LONG in the getopt_long table and "f:o:" in the
 * optstring, hand each option to atag_output_parse() first.
 */
#define ATAG_OUTPUT_LONG					\
	{ "format",	required_argument,	NULL, 'f' },	\
	{ "output",	required_argument,	NULL, 'o' }

struct atag_output_opts {
	const char *const	*formats;	/* NULL-terminated; the first is the default */
	const char		*format;	/* the chosen one (the default until -f) */
	const char		*path;		/* -o FILE; NULL: standard output */
	mode_t			mode;		/* of a new FILE: 0 is 0600 */
};

/* Handle -f / -o (an unknown format is a usage error); false for other options. */
bool atag_output_parse(struct atag_output_opts *o, int c, const char *arg, const char *usage);

/* Whether the chosen format is @format. */
bool atag_output_is(const struct atag_output_opts *o, const char *format);

/*
 * Point standard output at -o FILE, when given; dies when FILE cannot be written. Call
 * it once the result is ready to be written, and atag_output_finish() once it is: FILE
 * only then takes its place. What FILE is decides how:
 *  - none, or a regular file: a private file is written in FILE's directory, then
 *    given @o->mode less the umask and renamed to FILE (an existing FILE is renamed
 *    FILE.old first, said on stderr); nothing of a failed or killed command remains;
 *  - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that descriptor, in place;
 *  - a device, a FIFO, a socket (/dev/null, a terminal): written in place, never
 *    truncated, never through a link at its name (O_NOFOLLOW);
 *  - a symbolic link: replaced as a regular file would be, unless it leads to a
 *    device, a FIFO or a socket and is one the kernel's fs.protected_symlinks would
 *    follow (not another user's, in a sticky directory others may write to, like
 *    /tmp): then that is written in place;
 *  - a directory: refused.
 */
void atag_output_redirect(const struct atag_output_opts *o);

/* A second output file (such as --stacks-out) opened for writing, made as above. */
FILE *atag_output_fopen(const char *path, mode_t mode);

/*
 * Flush standard output and every output file, and move each into place (their
 * streams are closed); dies saying why one cannot be. The commands call it when
 * their result was written whole; without it, no output replaces what was there.
 */
void atag_output_finish(void);

/*
 * The mode of an export of the traces @paths: the permissions all of them grant
 * (0600 for one that cannot be looked at).
 */
mode_t atag_output_mode_of(const char *const *paths, int n);

/*
 * The width text tables are cut to: $COLUMNS when set (a positive number), else
 * the terminal's when standard output is one, else 0 (no limit: a pipe, a file).
 * Call it after atag_output_redirect().
 */
int atag_columns(void);

/* What standard output is, for messages: FILE of -o, else "standard output". */
const char *atag_output_name(void);

/*
 * An option (@opt, when @given) that only the formats in @formats use (a list as
 * people write it, "text, json or csv"): with another format it is a usage error,
 * "<opt> goes with --format <formats>".
 */
void atag_output_only(const struct atag_output_opts *o, const char *usage, bool given,
		      const char *opt, const char *formats);

/*
 * The same for an option that is harmless with the other formats (they show
 * what it asks for anyway): "warning: <opt> does nothing with --format FMT"
 * on stderr, and the command goes on.
 */
void atag_output_redundant(const struct atag_output_opts *o, bool given, const char *opt,
			   const char *formats);

/*
 * A progress bar on stderr for a report's reading of @path (@done: 0 .. 1);
 * *(bool *)@ctx is set once one was drawn (a newline is then owed).
 */
void atag_progress_bar(void *ctx, const char *path, double done);

/*
 * The session of a command that changes the system (record, top), its state file
 * naming @ai; dies saying why when it cannot be made (@who: the command's name).
 */
struct atag_session;
struct atag_allocinfo;
struct atag_session *atag_cmd_session(struct atag_allocinfo *ai, const char *who);

/*
 * Undo what session @s did (tags on @ai, its instance), saying on stderr what could
 * not be undone; true then. In *@held (may be NULL) the tags left on for others.
 */
bool atag_cmd_undo(struct atag_session *s, struct atag_allocinfo *ai, size_t *held);

/*
 * Close session @s; when its state file had to be kept, say so and how to finish
 * undoing (reset), and return true.
 */
bool atag_cmd_session_close(struct atag_session *s);

/*
 * "trace-cmd-alloc-tag: WHAT: TEXT" on stderr, both escaped (atag_text_fputs()): for
 * what a trace file said (a notice, why it cannot be read) and its name.
 */
void atag_warn_text(const char *what, const char *text);

/* Print "trace-cmd-alloc-tag: <message>" to stderr and exit 1. */
void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...);

#endif /* _ATAG_CMD_H */
