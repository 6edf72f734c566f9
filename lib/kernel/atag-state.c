// SPDX-License-Identifier: LGPL-2.1
/*
 * The state file of a session: appended line by line while the session changes
 * things, rewritten whole, loaded by reset. Format and rules in include/atag-state.h;
 * the undoing is the session's (atag-session.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atag-state.h"
#include "atag-state-int.h"
#include "atag-utils.h"

const char *atag_state_dir(void)
{
	const char *env = getenv(ATAG_STATE_DIR_ENV);

	return env && *env ? env : ATAG_STATE_DIR;
}

static struct atag_state *state_alloc(const char *path)
{
	struct atag_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->fd = -1;
	st->tags.source = ATAG_SRC_IOCTL;
	st->path = strdup(path);
	if (!st->path) {
		free(st);
		return NULL;
	}
	return st;
}

void atag_state_free(struct atag_state *st)
{
	if (!st)
		return;
	if (st->fd >= 0)
		close(st->fd);
	free(st->path);
	free(st->allocinfo);
	free(st->instance);
	free(st->recorder_exe);
	free(st->output_tmp);
	free(st->output_final);
	free(st->tags.tags);
	free(st);
}

int atag_state_remove(struct atag_state *st)
{
	int ret = 0;

	if (!st)
		return 0;
	if (unlink(st->path) && errno != ENOENT)
		ret = -errno;
	atag_state_free(st);
	return atag_err(ret);
}

/* Append one whole line with a single write, so a line is there or not at all. */
int atag_state_write(int fd, const char *fmt, ...)
{
	char *line;
	va_list ap;
	ssize_t n;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (len < 0)
		return atag_err(-ENOMEM);
	n = write(fd, line, len);
	free(line);
	if (n != len)
		return atag_err(n < 0 ? -errno : -EIO);
	return 0;
}

bool atag_state_bad_name(const char *s)
{
	return !*s || strpbrk(s, "\t\n");
}

bool atag_state_bad_tag(const struct atag_tag *t)
{
	return (t->modname[0] && atag_state_bad_name(t->modname)) ||
	       atag_state_bad_name(t->filename) || atag_state_bad_name(t->function);
}

/* "KEYWORD\tMODULE\tFILE\tLINE\tFUNCTION\n", MODULE "-" for built-in */
int atag_state_write_tag(int fd, const char *keyword, const struct atag_tag *t)
{
	return atag_state_write(fd, "%s\t%s\t%s\t%llu\t%s\n", keyword,
			t->modname[0] ? t->modname : "-", t->filename, t->lineno, t->function);
}

struct atag_state *atag_state_create(const char *dir)
{
	struct atag_state *st;
	char *path;
	int err;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return NULL;
	if (asprintf(&path, "%s/record-%d.state", dir, (int)getpid()) < 0)
		return NULL;
	st = state_alloc(path);
	free(path);
	if (!st)
		return NULL;
	st->owner = getpid();
	st->owner_start = atag_proc_starttime(st->owner);
	st->fd = open(st->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (st->fd < 0 ||
	    atag_state_write(st->fd, "owner %d %llu\n", (int)st->owner, st->owner_start)) {
		err = errno;
		if (st->fd >= 0)
			unlink(st->path);
		atag_state_free(st);
		errno = err;
		return NULL;
	}
	return st;
}

static int set_string(char **field, const char *val)
{
	char *copy = strdup(val);

	if (!copy)
		return atag_err(-ENOMEM);
	free(*field);
	*field = copy;
	return 0;
}

int atag_state_set_allocinfo(struct atag_state *st, const char *path)
{
	if (atag_state_bad_name(path))
		return atag_err(-EINVAL);
	return atag_state_write(st->fd, "allocinfo %s\n", path) ?: set_string(&st->allocinfo, path);
}

int atag_state_set_instance(struct atag_state *st, const char *name)
{
	if (atag_state_bad_name(name) || strchr(name, '/'))
		return atag_err(-EINVAL);
	return atag_state_write(st->fd, "instance %s\n", name) ?: set_string(&st->instance, name);
}

/* "recorder PID START" and, when known, "\tEXE" */
static int write_recorder(int fd, const struct atag_state *st)
{
	if (st->recorder_exe)
		return atag_state_write(fd, "recorder %d %llu\t%s\n", (int)st->recorder,
				st->recorder_start, st->recorder_exe);
	return atag_state_write(fd, "recorder %d %llu\n", (int)st->recorder, st->recorder_start);
}

int atag_state_set_recorder(struct atag_state *st, pid_t pid, const char *exe)
{
	free(st->recorder_exe);
	st->recorder_exe = exe && *exe && !atag_state_bad_name(exe) ? strdup(exe) : NULL;
	st->recorder = pid;
	st->recorder_start = atag_proc_starttime(pid);
	return write_recorder(st->fd, st);
}

int atag_state_set_output(struct atag_state *st, const char *tmpdir, const char *final)
{
	int ret;

	if (atag_state_bad_name(tmpdir) || atag_state_bad_name(final))
		return atag_err(-EINVAL);
	ret = atag_state_write(st->fd, "output %s\t%s\n", tmpdir, final);
	return ret ?: set_string(&st->output_tmp, tmpdir) ?: set_string(&st->output_final, final);
}

int atag_state_add_tag(struct atag_state *st, const struct atag_tag *t)
{
	if (atag_state_bad_tag(t))
		return atag_err(-EINVAL);
	return atag_state_write_tag(st->fd, "tag", t) ?: atag_taglist_add(&st->tags, t);
}

int atag_state_untag(struct atag_state *st, const struct atag_tag *t)
{
	int ret;

	if (atag_state_bad_tag(t))
		return atag_err(-EINVAL);
	ret = atag_state_write_tag(st->fd, "untag", t);
	atag_taglist_drop(&st->tags, t);		/* also for a later atag_state_rewrite() */
	return ret;
}

/* The whole state, as atag_state_load() reads it back. */
static int write_state(int fd, const struct atag_state *st)
{
	size_t i;
	int ret;

	ret = atag_state_write(fd, "owner %d %llu\n", (int)st->owner, st->owner_start);
	if (!ret && st->allocinfo)
		ret = atag_state_write(fd, "allocinfo %s\n", st->allocinfo);
	if (!ret && st->instance)
		ret = atag_state_write(fd, "instance %s\n", st->instance);
	if (!ret && st->output_tmp)
		ret = atag_state_write(fd, "output %s\t%s\n", st->output_tmp, st->output_final);
	if (!ret && st->recorder > 0)
		ret = write_recorder(fd, st);
	for (i = 0; !ret && i < st->tags.nr; i++)
		ret = atag_state_write_tag(fd, "tag", &st->tags.tags[i]);
	return ret;
}

int atag_state_rewrite(struct atag_state *st)
{
	char *tmp;
	int fd, ret;

	if (asprintf(&tmp, "%s.tmp", st->path) < 0)
		return atag_err(-ENOMEM);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	ret = fd < 0 ? -errno : write_state(fd, st);
	if (!ret && (fsync(fd) || rename(tmp, st->path)))
		ret = -errno;
	if (ret) {
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return atag_err(ret);
	}
	free(tmp);
	if (st->fd >= 0) {
		close(st->fd);
		st->fd = fd;		/* appends go to the new file */
	} else {
		close(fd);
	}
	return 0;
}

/* ------------------------------------------------------------------ loading */

/* "tag\tMODULE\tFILE\tLINE\tFUNCTION" (or "untag\t...") */
int atag_state_parse_tag(char *line, struct atag_tag *t)
{
	char *f[5], *end;
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < 5; i++) {
		f[i] = strsep(&line, "\t");
		if (!f[i] || !*f[i])
			return -EBADMSG;
	}
	if (line)
		return -EBADMSG;
	t->lineno = strtoull(f[3], &end, 10);
	if (*end)
		return -EBADMSG;
	atag_tag_set_name(t->modname, f[1], strcmp(f[1], "-") ? strlen(f[1]) : 0);
	atag_tag_set_name(t->filename, f[2], strlen(f[2]));
	atag_tag_set_name(t->function, f[4], strlen(f[4]));
	t->traced = 1;
	return 0;
}

static int parse_line(struct atag_state *st, char *line, bool first)
{
	struct atag_tag t;
	int pid, ret, n = 0;
	char *tab;

	if (first)
		return sscanf(line, "owner %d %llu", &pid, &st->owner_start) == 2 &&
		       (st->owner = pid) > 0 ? 0 : -EBADMSG;
	if (!strncmp(line, "allocinfo ", 10))
		return set_string(&st->allocinfo, line + 10);
	if (!strncmp(line, "instance ", 9))
		return set_string(&st->instance, line + 9);
	if (sscanf(line, "recorder %d %llu%n", &pid, &st->recorder_start, &n) == 2) {
		st->recorder = pid;
		free(st->recorder_exe);
		st->recorder_exe = NULL;
		if (line[n] == '\t' && line[n + 1])
			return set_string(&st->recorder_exe, line + n + 1);
		return line[n] ? -EBADMSG : 0;
	}
	if (!strncmp(line, "output ", 7)) {
		tab = strchr(line + 7, '\t');
		if (!tab || tab == line + 7 || !tab[1] || strchr(tab + 1, '\t'))
			return -EBADMSG;
		*tab = '\0';
		return set_string(&st->output_tmp, line + 7) ?:
		       set_string(&st->output_final, tab + 1);
	}
	if (!strncmp(line, "tag\t", 4))
		return atag_state_parse_tag(line, &t) ?: atag_taglist_add(&st->tags, &t);
	if (!strncmp(line, "untag\t", 6)) {
		ret = atag_state_parse_tag(line, &t);
		if (!ret)
			atag_taglist_drop(&st->tags, &t);
		return ret;
	}
	return -EBADMSG;
}

static int parse_state(struct atag_state *st, char *buf)
{
	char *line = buf, *nl;
	bool first = true;
	int ret;

	/* a line without its newline was cut short by the writer's death: ignored */
	while ((nl = strchr(line, '\n'))) {
		*nl = '\0';
		ret = parse_line(st, line, first);
		if (ret)
			return ret;
		first = false;
		line = nl + 1;
	}
	return first ? -EBADMSG : 0;
}

struct atag_state *atag_state_load(const char *path)
{
	struct atag_state *st;
	char *buf = atag_read_file(path, ATAG_INPUT_MAX, NULL);
	int ret;

	if (!buf)
		return NULL;
	st = state_alloc(path);
	if (!st) {
		free(buf);
		return NULL;
	}
	ret = parse_state(st, buf);
	free(buf);
	if (ret) {
		atag_state_free(st);
		errno = -ret;
		return NULL;
	}
	return st;
}

static int is_state_file(const struct dirent *d)
{
	return !fnmatch("record-*.state", d->d_name, 0);
}

int atag_state_list(const char *dir, char ***paths)
{
	struct dirent **names;
	int n, i, ret = 0;

	*paths = NULL;
	n = scandir(dir, &names, is_state_file, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : atag_err(-errno);
	*paths = calloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++) {
		if (*paths && asprintf(&(*paths)[i], "%s/%s", dir, names[i]->d_name) < 0)
			ret = -ENOMEM;
		free(names[i]);
	}
	free(names);
	if (!*paths || ret) {
		for (i = 0; *paths && i < n; i++)
			free((*paths)[i]);
		free(*paths);
		*paths = NULL;
		return atag_err(-ENOMEM);
	}
	return n;
}
