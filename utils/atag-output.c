// SPDX-License-Identifier: GPL-2.0
/*
 * -f/--format and -o/--output, shared by the commands that write a result.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atag-cmd.h"
#include "atag-utils.h"

static const char *output_name;

/* The process's umask, left as it was. */
static mode_t current_umask(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

bool atag_output_parse(struct atag_output_opts *o, int c, const char *arg, const char *usage)
{
	switch (c) {
	case 'f':
		atag_check_choice(usage, "--format", arg, o->formats);
		o->format = arg;
		return true;
	case 'o':
		if (!*arg)
			atag_usage_error(usage, "--output: an empty file name");
		o->path = arg;
		return true;
	}
	return false;
}

bool atag_output_is(const struct atag_output_opts *o, const char *format)
{
	return !strcmp(o->format ? o->format : o->formats[0], format);
}

/*
 * An output being written. A new file, or one replacing a regular file, is written
 * as record writes its trace.dat: into a private file in the same directory (an
 * unnamed O_TMPFILE where the file system has them, else a name of ours, created
 * exclusively), which atag_output_finish() gives its mode and renames into place,
 * an older regular file kept as NAME.old. Nothing is ever opened with O_TRUNC, and
 * no link at the output's name is followed, but to a device, a FIFO or a socket
 * the kernel's fs.protected_symlinks would follow it to (see may_follow()).
 */
struct output {
	const char	*path;		/* as given */
	int		fd;		/* what is written; -1: free slot */
	int		dirfd;		/* the output's directory; -1: written in place */
	char		*base;		/* the output's name in it */
	char		tmp[64];	/* the private file's name; "": unnamed (O_TMPFILE) */
	mode_t		mode;
	FILE		*file;		/* atag_output_fopen()'s stream; NULL: stdout */
};

#define MAX_OUTPUTS	4
#define TMP_PREFIX	".trace-cmd-alloc-tag-output."

static struct output outputs[MAX_OUTPUTS];
static int nr_outputs;

/* ------------------------------------------------------------ cleaning up */

/* The named private files not yet committed: removed at exit and on a fatal signal. */
static void remove_private(void)
{
	int i;

	for (i = 0; i < nr_outputs; i++)
		if (outputs[i].fd >= 0 && outputs[i].dirfd >= 0 && outputs[i].tmp[0])
			unlinkat(outputs[i].dirfd, outputs[i].tmp, 0);
}

static void on_fatal(int sig)
{
	remove_private();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Once: the atexit() cleanup, and the handlers of the signals that end a command by default. */
static void watch_private(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	static bool done;
	struct sigaction old;
	size_t i;

	if (done)
		return;
	done = true;
	atexit(remove_private);
	/* a command that handles a signal itself ends normally on it, and cleans up then */
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
			signal(sigs[i], on_fatal);
}

/* ------------------------------------------------------------ opening */

/*
 * -o /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that descriptor of ours,
 * written in place (dies when it is not open); else -1.
 */
static int own_descriptor(const char *path)
{
	unsigned long long n = ULLONG_MAX;
	const char *p = NULL;

	if (!strcmp(path, "/dev/stdout"))
		n = STDOUT_FILENO;
	else if (!strcmp(path, "/dev/stderr"))
		n = STDERR_FILENO;
	else if (!strncmp(path, "/dev/fd/", 8))
		p = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		p = path + 14;
	if (p && (atag_parse_u64(p, &n) || n > INT_MAX))
		return -1;
	if (n == ULLONG_MAX)
		return -1;
	if (fcntl((int)n, F_GETFD) < 0)
		die("%s: %s", path, strerror(errno));
	return (int)n;
}

/*
 * Whether the kernel's fs.protected_symlinks (1) would follow the link @lst in the
 * directory @dirfd: a link in a sticky directory others may write to (/tmp) only
 * when it is ours or its directory owner's. This machine may have the protection
 * off; the outputs keep it on.
 */
static bool may_follow(int dirfd, const struct stat *lst)
{
	struct stat dir;

	if (fstat(dirfd, &dir))
		return false;
	if (!(dir.st_mode & S_ISVTX) || !(dir.st_mode & S_IWOTH))
		return true;
	return lst->st_uid == dir.st_uid || lst->st_uid == geteuid();
}

/* What cannot be made in @dir, said as such; dies. */
static void __attribute__((noreturn)) cannot_make(const char *path, const char *dir, int err)
{
	if (atag_kernel_fs(dir))
		die("%s: %s is in the kernel's %s file system: no file can be made there", path,
		    dir, atag_kernel_fs(dir));
	die("%s: cannot make a file in %s: %s", path, dir, strerror(err));
}

/* A name of ours for @o's private file, unlikely to be taken. */
static void private_name(struct output *o, int salt)
{
	unsigned char rnd[8];
	int i;

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		memset(rnd, salt + getpid(), sizeof(rnd));
	snprintf(o->tmp, sizeof(o->tmp), "%s", TMP_PREFIX);
	for (i = 0; i < 8; i++)
		snprintf(o->tmp + strlen(o->tmp), 3, "%02x", rnd[i]);
}

/* A private file in @o's directory, to be renamed into place: its descriptor. */
static int open_private(struct output *o, const char *dir)
{
	int fd, tries;

	fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* no O_TMPFILE here: a name of ours, made exclusively (no link followed) */
	for (tries = 0; tries < 100; tries++) {
		private_name(o, tries);
		fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		o->tmp[0] = '\0';
		cannot_make(o->path, dir, errno);
	}
	return fd;
}

/* @path opened in place (a device, a FIFO, a socket): never created, never truncated. */
static int open_in_place(const char *path, int follow, const struct stat *want)
{
	struct stat st;
	int fd;

	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	/* what was opened is what was looked at: no regular file swapped in meanwhile */
	if (fstat(fd, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
	    (want && (st.st_dev != want->st_dev || st.st_ino != want->st_ino)))
		die("%s: changed while it was opened: not written", path);
	return fd;
}

/* Open output @path of @mode (at the commit) into a free slot; dies on failure. */
static struct output *open_output(const char *path, mode_t mode)
{
	struct output *o = &outputs[nr_outputs];
	char *copy, *slash, *dir;
	struct stat lst, st;
	int fd;

	if (nr_outputs == MAX_OUTPUTS)
		die("%s: too many outputs", path);
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = o->dirfd = -1;
	o->mode = mode & 0666;
	fd = own_descriptor(path);
	if (fd >= 0) {
		o->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (o->fd < 0)
			die("%s: %s", path, strerror(errno));
		nr_outputs++;
		return o;
	}
	copy = strdup(path);
	if (!copy)
		die("out of memory");
	slash = strrchr(copy, '/');
	dir = !slash ? "." : slash == copy ? "/" : copy;
	o->base = strdup(slash ? slash + 1 : copy);
	if (slash)
		*slash = '\0';
	if (!o->base)
		die("out of memory");
	if (!*o->base || !strcmp(o->base, ".") || !strcmp(o->base, ".."))
		die("%s: %s", path, strerror(EISDIR));
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0)
		die("%s: %s", path, strerror(errno));
	if (!fstatat(o->dirfd, o->base, &lst, AT_SYMLINK_NOFOLLOW)) {
		if (S_ISDIR(lst.st_mode))
			die("%s: %s", path, strerror(EISDIR));
		if (S_ISLNK(lst.st_mode) && may_follow(o->dirfd, &lst) && !stat(path, &st) &&
		    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			o->fd = open_in_place(path, 1, &st);
		else if (!S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode))
			o->fd = open_in_place(path, 0, &lst);
	} else if (errno != ENOENT) {
		die("%s: %s", path, strerror(errno));
	}
	if (o->fd >= 0) {
		close(o->dirfd);
		o->dirfd = -1;
	} else {
		/* new, a regular file, or a link not followed: a private file replaces it */
		watch_private();
		o->fd = open_private(o, dir);
	}
	free(copy);
	nr_outputs++;
	return o;
}

FILE *atag_output_fopen(const char *path, mode_t mode)
{
	struct output *o = open_output(path, mode);

	o->file = fdopen(dup(o->fd), "w");
	if (!o->file)
		die("%s: %s", path, strerror(errno));
	return o->file;
}

void atag_output_redirect(const struct atag_output_opts *o)
{
	struct output *out;

	if (!o->path)
		return;
	out = open_output(o->path, o->mode ? o->mode : 0600);
	fflush(stdout);
	if (dup2(out->fd, STDOUT_FILENO) < 0)
		die("%s: %s", o->path, strerror(errno));
	output_name = o->path;
}

/* ------------------------------------------------------------ committing */

/* A private file linked at its own name (an unnamed one gets one now): 0 or -errno. */
static int name_private(struct output *o)
{
	char proc[64];
	int tries, ret = -EEXIST;

	if (o->tmp[0])
		return 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	for (tries = 0; tries < 100 && ret == -EEXIST; tries++) {
		private_name(o, tries);
		ret = 0;
		if (linkat(AT_FDCWD, proc, o->dirfd, o->tmp, AT_SYMLINK_FOLLOW) &&
		    /* without /proc: by the descriptor itself (needs CAP_DAC_READ_SEARCH) */
		    (errno == EEXIST || linkat(o->fd, "", o->dirfd, o->tmp, AT_EMPTY_PATH)))
			ret = -errno;
	}
	if (ret)
		o->tmp[0] = '\0';
	return ret;
}

/* Flush @o and move it into place; dies saying why it cannot. */
static void commit_one(struct output *o)
{
	int kept, ret;

	if (o->file && (fflush(o->file) || ferror(o->file)))
		die("%s: %s", o->path, errno ? strerror(errno) : "write error");
	if (o->dirfd >= 0) {
		if (fchmod(o->fd, o->mode & ~current_umask()))
			die("%s: %s", o->path, strerror(errno));
		ret = name_private(o);
		if (ret)
			die("%s: cannot name the file written: %s", o->path, strerror(-ret));
		kept = atag_keep_old(o->dirfd, o->base, NULL, 0);
		if (kept < 0)
			die("%s: cannot keep it as %s.old: %s", o->path, o->path, strerror(-kept));
		/* renameat() replaces a link at the name, never follows it */
		if (renameat(o->dirfd, o->tmp, o->dirfd, o->base))
			die("%s: %s", o->path, strerror(errno));
		o->tmp[0] = '\0';
		if (kept)
			fprintf(stderr, "%s: %s existed: kept as %s.old\n", ATAG_PROG, o->path,
				o->path);
		close(o->dirfd);
		o->dirfd = -1;
	}
	if (o->file)
		fclose(o->file);
	close(o->fd);
	o->fd = -1;
	o->file = NULL;
}

void atag_output_finish(void)
{
	int i, err;

	if (!nr_outputs)
		return;
	if (fflush(stdout) || ferror(stdout)) {
		/* said here, once: what could not be written is dropped */
		err = errno;
		__fpurge(stdout);
		clearerr(stdout);
		die("%s: %s", atag_output_name(), err ? strerror(err) : "write error");
	}
	for (i = 0; i < nr_outputs; i++)
		if (outputs[i].fd >= 0)
			commit_one(&outputs[i]);
}

mode_t atag_output_mode_of(const char *const *paths, int n)
{
	mode_t mode = 0666;
	struct stat st;
	int i;

	for (i = 0; i < n; i++)
		mode &= !stat(paths[i], &st) ? st.st_mode : 0600;
	return mode & 0666;
}

int atag_columns(void)
{
	const char *env = getenv("COLUMNS");
	unsigned long long v;
	struct winsize ws;

	if (env && *env && !atag_parse_u64(env, &v) && v > 0 && v < 100000)
		return v;
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 0;
}

const char *atag_output_name(void)
{
	return output_name ? output_name : "standard output";
}

/* Whether the chosen format is one of @formats ("text, json or csv"). */
static bool format_in(const struct atag_output_opts *o, const char *formats)
{
	const char *fmt = o->format ? o->format : o->formats[0], *p = formats;
	size_t len = strlen(fmt), n;

	while (*p) {
		p += strspn(p, ", ");
		n = strcspn(p, ", ");
		if (n == len && !strncmp(p, fmt, n))
			return true;
		p += n;
	}
	return false;
}

void atag_output_only(const struct atag_output_opts *o, const char *usage, bool given,
		      const char *opt, const char *formats)
{
	if (given && !format_in(o, formats))
		atag_usage_error(usage, "%s goes with --format %s", opt, formats);
}

void atag_output_redundant(const struct atag_output_opts *o, bool given, const char *opt,
			   const char *formats)
{
	if (!given || format_in(o, formats))
		return;
	fprintf(stderr, "%s: warning: %s does nothing with --format %s\n", ATAG_PROG, opt,
		o->format ? o->format : o->formats[0]);
}
