// SPDX-License-Identifier: LGPL-2.1
/*
 * Holder records: which sessions hold which tag, and whether a session turned its
 * tracing on, one file a tag in the state directory's tags/, locked with flock()
 * (format and rules in include/atag-state.h).
 *
 * A record's file name is a 64-bit FNV-1a hash of the call site; the record names
 * its site on its first line, and a name taken by another site (a collision) moves
 * on to NAME.1, NAME.2... Everything is done relative to the directory's fd.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atag-state.h"
#include "atag-state-int.h"
#include "atag-utils.h"

#define MAX_PROBES	16
#define RECORD_MAX	(64 * 1024)

struct atag_holds {
	int	fd;		/* DIR/tags, flock()ed */
	char	*path;		/* DIR/tags */
};

struct atag_holds *atag_holds_lock(const char *dir)
{
	struct atag_holds *h;
	struct stat st;
	int err;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	if (asprintf(&h->path, "%s/%s", dir, ATAG_HOLDS_SUBDIR) < 0) {
		h->path = NULL;
		goto fail;
	}
	for (;;) {
		if (mkdir(h->path, 0700) && errno != EEXIST)
			goto fail;
		h->fd = open(h->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (h->fd < 0)
			goto fail;
		while (flock(h->fd, LOCK_EX)) {
			if (errno != EINTR) {
				close(h->fd);
				goto fail;
			}
		}
		/* the last holder before us removed it, empty, while we waited: anew */
		if (fstat(h->fd, &st) || st.st_nlink)
			break;
		close(h->fd);
	}
	return h;
fail:
	err = errno ? errno : ENOMEM;
	free(h->path);
	free(h);
	errno = err;
	return NULL;
}

/* Whether the directory @fd holds no entry. */
static bool dir_empty(int fd)
{
	DIR *dp = atag_opendir_fd(fd);
	struct dirent *d;
	bool empty = true;

	if (!dp)
		return false;
	while (empty && (d = readdir(dp)))
		empty = !strcmp(d->d_name, ".") || !strcmp(d->d_name, "..");
	closedir(dp);
	return empty;
}

void atag_holds_unlock(struct atag_holds *h)
{
	if (!h)
		return;
	/* no tag held any more: nothing is left behind (a waiter makes it anew) */
	if (dir_empty(h->fd))
		rmdir(h->path);
	close(h->fd);		/* releases the lock */
	free(h->path);
	free(h);
}

void atag_hold_release(struct atag_hold *hold)
{
	free(hold->allocinfo);
	free(hold->holders);
	hold->allocinfo = NULL;
	hold->holders = NULL;
	hold->nr = 0;
}

int atag_hold_add(struct atag_hold *hold, pid_t pid, unsigned long long start)
{
	struct atag_holder *n;
	size_t i;

	for (i = 0; i < hold->nr; i++)
		if (hold->holders[i].pid == pid && hold->holders[i].start == start)
			return 0;
	n = realloc(hold->holders, (hold->nr + 1) * sizeof(*n));
	if (!n)
		return atag_err(-ENOMEM);
	hold->holders = n;
	n[hold->nr].pid = pid;
	n[hold->nr].start = start;
	hold->nr++;
	return 0;
}

/* Keep the holders @keep says yes to; returns how many went. */
static size_t hold_filter(struct atag_hold *hold, bool (*keep)(const struct atag_holder *, void *),
			  void *ctx)
{
	size_t i, left = 0;

	for (i = 0; i < hold->nr; i++)
		if (keep(&hold->holders[i], ctx))
			hold->holders[left++] = hold->holders[i];
	i = hold->nr - left;
	hold->nr = left;
	return i;
}

static bool not_it(const struct atag_holder *h, void *ctx)
{
	const struct atag_holder *it = ctx;

	return h->pid != it->pid || h->start != it->start;
}

bool atag_hold_drop(struct atag_hold *hold, pid_t pid, unsigned long long start)
{
	struct atag_holder it = { pid, start };

	return hold_filter(hold, not_it, &it) > 0;
}

static bool runs(const struct atag_holder *h, void *ctx)
{
	return atag_proc_alive(h->pid, h->start);
}

size_t atag_hold_prune(struct atag_hold *hold)
{
	return hold_filter(hold, runs, NULL);
}

/* ------------------------------------------------------------------ files */

static uint64_t site_hash(const struct atag_tag *t)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char line[32];
	const char *parts[] = { t->modname, "\t", t->filename, "\t", line, "\t", t->function };
	const char *p;
	size_t i;

	snprintf(line, sizeof(line), "%llu", t->lineno);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		for (p = parts[i]; *p; p++) {
			h ^= (unsigned char)*p;
			h *= 0x100000001b3ULL;
		}
	}
	return h;
}

static void record_name(const struct atag_tag *t, int probe, char *buf, size_t len)
{
	if (probe)
		snprintf(buf, len, "%016llx.%d", (unsigned long long)site_hash(t), probe);
	else
		snprintf(buf, len, "%016llx", (unsigned long long)site_hash(t));
}

/* Parse a record; 0 or -EBADMSG. */
static int parse_record(char *text, struct atag_hold *hold)
{
	char *line = text, *nl;
	bool have_tag = false;
	int pid, n = 0;
	unsigned long long start;

	while ((nl = strchr(line, '\n'))) {
		*nl = '\0';
		if (!strncmp(line, "tag\t", 4)) {
			if (have_tag || atag_state_parse_tag(line, &hold->tag))
				return -EBADMSG;
			have_tag = true;
		} else if (!strncmp(line, "allocinfo ", 10) && line[10]) {
			free(hold->allocinfo);
			hold->allocinfo = strdup(line + 10);
			if (!hold->allocinfo)
				return -ENOMEM;
		} else if (!strcmp(line, "owned")) {
			hold->owned = true;
		} else if (sscanf(line, "holder %d %llu%n", &pid, &start, &n) == 2 && !line[n] &&
			   pid > 0) {
			if (atag_hold_add(hold, pid, start))
				return -ENOMEM;
		} else {
			return -EBADMSG;
		}
		line = nl + 1;
	}
	return have_tag && !*line ? 0 : -EBADMSG;
}

/* Read the record file @name; 0, -ENOENT, or -errno. */
static int read_record(struct atag_holds *h, const char *name, struct atag_hold *hold)
{
	char buf[RECORD_MAX + 1];
	ssize_t n;
	int fd, ret;

	memset(hold, 0, sizeof(*hold));
	fd = atag_open_input(h->fd, name, O_NOFOLLOW);
	if (fd < 0)
		return fd;
	n = read(fd, buf, RECORD_MAX);	/* written whole by rename: one read sees it all */
	close(fd);
	if (n < 0)
		return atag_err(-errno);
	buf[n] = '\0';
	ret = n == RECORD_MAX ? -EBADMSG : parse_record(buf, hold);
	if (ret)
		atag_hold_release(hold);
	return atag_err(ret);
}

/*
 * The file name of @t's record: the one that holds it (*@exists), else the first free
 * one. Returns 0 or -errno.
 */
static int find_record(struct atag_holds *h, const struct atag_tag *t, char *name, size_t len,
		       struct atag_hold *hold, bool *exists)
{
	struct atag_hold other;
	int probe, ret;

	*exists = false;
	for (probe = 0; probe < MAX_PROBES; probe++) {
		record_name(t, probe, name, len);
		ret = read_record(h, name, &other);
		if (ret == -ENOENT)
			return 0;
		if (ret)
			return ret;
		if (atag_tag_same_site(&other.tag, t)) {
			*exists = true;
			if (hold)
				*hold = other;
			else
				atag_hold_release(&other);
			return 0;
		}
		atag_hold_release(&other);
	}
	return atag_err(-ENOSPC);
}

int atag_holds_read(struct atag_holds *h, const struct atag_tag *t, struct atag_hold *hold)
{
	char name[64];
	bool exists;
	int ret;

	memset(hold, 0, sizeof(*hold));
	ret = find_record(h, t, name, sizeof(name), hold, &exists);
	if (ret)
		return ret;
	if (!exists) {
		memset(hold, 0, sizeof(*hold));
		hold->tag = *t;
	}
	hold->tag.traced = t->traced;
	return exists;
}

int atag_holds_delete(struct atag_holds *h, const struct atag_tag *t)
{
	char name[64];
	bool exists;
	int ret;

	ret = find_record(h, t, name, sizeof(name), NULL, &exists);
	if (ret || !exists)
		return ret;
	return unlinkat(h->fd, name, 0) && errno != ENOENT ? atag_err(-errno) : 0;
}

static int write_record(int fd, const struct atag_hold *hold)
{
	size_t i;
	int ret;

	ret = atag_state_write_tag(fd, "tag", &hold->tag);
	if (!ret && hold->allocinfo)
		ret = atag_state_write(fd, "allocinfo %s\n", hold->allocinfo);
	if (!ret && hold->owned)
		ret = atag_state_write(fd, "owned\n");
	for (i = 0; !ret && i < hold->nr; i++)
		ret = atag_state_write(fd, "holder %d %llu\n", (int)hold->holders[i].pid,
				       hold->holders[i].start);
	return ret;
}

int atag_holds_write(struct atag_holds *h, const struct atag_hold *hold)
{
	char name[64], tmp[80];
	bool exists;
	int fd, ret;

	if (!hold->nr && !hold->owned)
		return atag_holds_delete(h, &hold->tag);
	if (atag_state_bad_tag(&hold->tag) ||
	    (hold->allocinfo && atag_state_bad_name(hold->allocinfo)))
		return atag_err(-EINVAL);
	ret = find_record(h, &hold->tag, name, sizeof(name), NULL, &exists);
	if (ret)
		return ret;
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	fd = openat(h->fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return atag_err(-errno);
	ret = write_record(fd, hold);
	close(fd);
	if (!ret && renameat(h->fd, tmp, h->fd, name))
		ret = -errno;
	if (ret)
		unlinkat(h->fd, tmp, 0);
	return atag_err(ret);
}

int atag_holds_all(struct atag_holds *h, struct atag_hold **holds)
{
	struct atag_hold *all = NULL, *n, one;
	struct dirent *d;
	size_t nr = 0;
	int ret = 0;
	DIR *dp;

	*holds = NULL;
	dp = atag_opendir_fd(h->fd);
	if (!dp)
		return atag_err(-errno);
	while (!ret && (d = readdir(dp))) {
		if (d->d_name[0] == '.' || read_record(h, d->d_name, &one))
			continue;
		n = realloc(all, (nr + 1) * sizeof(*n));
		if (!n) {
			atag_hold_release(&one);
			ret = -ENOMEM;
			break;
		}
		all = n;
		all[nr++] = one;
	}
	closedir(dp);
	if (ret) {
		while (nr--)
			atag_hold_release(&all[nr]);
		free(all);
		return atag_err(ret);
	}
	*holds = all;
	return (int)nr;
}
