// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the file helpers of include/atag-utils.h (lib/util/atag-files.c and
 * lib/util/atag-tracefs-mount.c): whole-file reads, "key: value" lines, the tracefs
 * directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atag-utest.h"
#include "atag-utils.h"

/* A reader that hands out @text 3 bytes at a time and checks the offsets it is given. */
struct chunks {
	const char	*text;
	size_t		pos;
	int		fail_at;	/* -errno once pos reaches it (0: never) */
	int		bad_offsets;
};

static ssize_t read_chunks(void *ctx, char *buf, size_t len, off_t off)
{
	struct chunks *c = ctx;
	size_t left = strlen(c->text) - c->pos;

	if ((size_t)off != c->pos)
		c->bad_offsets++;
	if (c->fail_at && c->pos >= (size_t)c->fail_at)
		return -EIO;
	if (len > 3)
		len = 3;
	if (len > left)
		len = left;
	memcpy(buf, c->text + c->pos, len);
	c->pos += len;
	return len;
}

static void test_read_all(void)
{
	char big[10000];
	struct chunks c = { .text = big };
	size_t len = 0;
	char *s;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[5000] = 'y';
	s = atag_read_all(read_chunks, &c, SIZE_MAX, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(len, sizeof(big) - 1);
	CU_ASSERT_STRING_EQUAL(s, big);
	CU_ASSERT_EQUAL(c.bad_offsets, 0);
	free(s);

	/* at most @max bytes: a source of more is EFBIG (26.4), of exactly @max is read */
	c = (struct chunks){ .text = "0123456789" };
	errno = 0;
	CU_ASSERT_PTR_NULL(atag_read_all(read_chunks, &c, 4, &len));
	CU_ASSERT_EQUAL(errno, EFBIG);
	c = (struct chunks){ .text = "0123" };
	s = atag_read_all(read_chunks, &c, 4, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(len, 4);
	CU_ASSERT_STRING_EQUAL(s, "0123");
	free(s);

	/* an empty source is an empty string */
	c = (struct chunks){ .text = "" };
	s = atag_read_all(read_chunks, &c, SIZE_MAX, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(s, "");
	free(s);

	/* the reader's error, as errno */
	c = (struct chunks){ .text = "0123456789", .fail_at = 6 };
	errno = 0;
	CU_ASSERT_PTR_NULL(atag_read_all(read_chunks, &c, SIZE_MAX, &len));
	CU_ASSERT_EQUAL(errno, EIO);
}

static void test_read_file(void)
{
	char path[600], *s;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/read-file", atag_utest_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("line one\nline two\n", f);
	fclose(f);
	s = atag_read_file(path, SIZE_MAX, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(len, 18);
	CU_ASSERT_STRING_EQUAL(s, "line one\nline two\n");
	free(s);
	/* more than @max: EFBIG; its head, as asked */
	errno = 0;
	CU_ASSERT_PTR_NULL(atag_read_file(path, 8, &len));
	CU_ASSERT_EQUAL(errno, EFBIG);
	s = atag_read_head(path, 8, &len);
	CU_ASSERT_STRING_EQUAL(s ? s : "(null)", "line one");
	free(s);
	/* a kernel pseudo-file: its size says 0, its text is there */
	s = atag_read_file("/proc/self/stat", ATAG_INPUT_MAX, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_TRUE(len > 20 && strchr(s, ')') != NULL);
	free(s);
	errno = 0;
	CU_ASSERT_PTR_NULL(atag_read_file("/nonexistent/file", SIZE_MAX, NULL));
	CU_ASSERT_EQUAL(errno, ENOENT);
}

/*
 * 26.4: an input is opened without blocking and must be a regular file: a FIFO
 * without a writer, a device, a directory are refused at once.
 */
static void test_open_input(void)
{
	char fifo[600];
	int fd;

	snprintf(fifo, sizeof(fifo), "%s/input-fifo", atag_utest_tmpdir());
	unlink(fifo);
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	CU_ASSERT_EQUAL(atag_open_input(AT_FDCWD, fifo, 0), -ATAG_ENOTREG);
	CU_ASSERT_EQUAL(errno, ATAG_ENOTREG);
	CU_ASSERT_PTR_NULL(atag_read_file(fifo, 64, NULL));
	CU_ASSERT_EQUAL(errno, ATAG_ENOTREG);
	unlink(fifo);
	CU_ASSERT_EQUAL(atag_open_input(AT_FDCWD, "/dev/zero", 0), -ATAG_ENOTREG);
	CU_ASSERT_EQUAL(atag_open_input(AT_FDCWD, "/", 0), -EISDIR);
	fd = atag_open_input(AT_FDCWD, "/proc/self/status", 0);
	CU_ASSERT_TRUE(fd >= 0);
	if (fd >= 0) {
		CU_ASSERT_FALSE(fcntl(fd, F_GETFL) & O_NONBLOCK);
		CU_ASSERT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		close(fd);
	}
	CU_ASSERT_STRING_EQUAL(atag_strerror(ATAG_ENOTREG),
			       "not a regular file (a FIFO, a device or a socket)");
	CU_ASSERT_STRING_EQUAL(atag_strerror(-EFBIG), "larger than 256 MiB: not read");
	CU_ASSERT_STRING_EQUAL(atag_strerror(ENOENT), strerror(ENOENT));
}

struct kv_seen {
	char	text[256];
	int	refuse;		/* the value that makes the callback refuse */
};

static int note_kv(const char *key, const char *value, void *ctx)
{
	struct kv_seen *k = ctx;
	size_t n = strlen(k->text);

	snprintf(k->text + n, sizeof(k->text) - n, "[%s=%s]", key, value);
	return k->refuse && atoi(value) == k->refuse;
}

static void test_parse_kv(void)
{
	struct kv_seen k = { "", 0 };
	int line = -1;

	CU_ASSERT_EQUAL(atag_parse_kv("a: 1\n  b c :  two words \n\n\t\nempty:\nx:y:z", note_kv,
				      &k, &line), 0);
	CU_ASSERT_EQUAL(line, 0);
	CU_ASSERT_STRING_EQUAL(k.text, "[a=1][b c=two words][empty=][x=y:z]");

	k = (struct kv_seen){ "", 0 };
	CU_ASSERT_EQUAL(atag_parse_kv("a: 1\n\nno colon\nb: 2\n", note_kv, &k, &line), -EINVAL);
	CU_ASSERT_EQUAL(line, 3);
	CU_ASSERT_STRING_EQUAL(k.text, "[a=1]");

	k = (struct kv_seen){ "", 7 };
	CU_ASSERT_EQUAL(atag_parse_kv("a: 1\nb: 7\nc: 3\n", note_kv, &k, &line), -EINVAL);
	CU_ASSERT_EQUAL(line, 2);
	CU_ASSERT_STRING_EQUAL(k.text, "[a=1][b=7]");
}

/* Entries of a directory stream, "." and ".." left out. */
static int entries(DIR *dp)
{
	struct dirent *d;
	int n = 0;

	while ((d = readdir(dp)))
		n += strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
	return n;
}

/* Each stream from a descriptor starts at the top, however far one before went. */
static void test_opendir_fd(void)
{
	char dir[] = "/tmp/atag-utest-dir.XXXXXX", path[64];
	DIR *a, *b;
	int fd, i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		close(open(path, O_CREAT | O_WRONLY, 0600));
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(fd >= 0);
	a = atag_opendir_fd(fd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(entries(a), 3);		/* the shared offset is at the end now */
	b = atag_opendir_fd(fd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(entries(b), 3);
	closedir(a);
	closedir(b);
	CU_ASSERT(fcntl(fd, F_GETFD) >= 0);	/* still the caller's */
	errno = 0;
	CU_ASSERT_PTR_NULL(atag_opendir_fd(-1));
	CU_ASSERT_EQUAL(errno, EBADF);
	close(fd);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

static void put(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

static char *get(int dirfd, const char *name)
{
	static char buf[64];
	int fd = openat(dirfd, name, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n < 0 ? NULL : buf;
}

static void test_keep_old(void)
{
	char dir[] = "/tmp/atag-keep-XXXXXX", old[16], small[6];
	struct stat st;
	int d;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	d = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(d >= 0);
	/* nothing there: nothing kept, the name still said */
	CU_ASSERT_EQUAL(atag_keep_old(d, "out", old, sizeof(old)), 0);
	CU_ASSERT_STRING_EQUAL(old, "out.old");
	/* a file: renamed, its content intact; then a newer one replaces the .old */
	put(d, "out", "first");
	CU_ASSERT_EQUAL(atag_keep_old(d, "out", old, sizeof(old)), 1);
	CU_ASSERT(fstatat(d, "out", &st, 0) && errno == ENOENT);
	CU_ASSERT_STRING_EQUAL(get(d, "out.old"), "first");
	put(d, "out", "second");
	CU_ASSERT_EQUAL(atag_keep_old(d, "out", NULL, 0), 1);
	CU_ASSERT_STRING_EQUAL(get(d, "out.old"), "second");
	/* a link (say /dev/stdout) and a directory stay where they are */
	CU_ASSERT_EQUAL(symlinkat("out.old", d, "link"), 0);
	CU_ASSERT_EQUAL(atag_keep_old(d, "link", NULL, 0), 0);
	CU_ASSERT_EQUAL(fstatat(d, "link", &st, AT_SYMLINK_NOFOLLOW), 0);
	CU_ASSERT_EQUAL(fstatat(d, "link.old", &st, AT_SYMLINK_NOFOLLOW), -1);
	CU_ASSERT_EQUAL(mkdirat(d, "sub", 0700), 0);
	CU_ASSERT_EQUAL(atag_keep_old(d, "sub", NULL, 0), 0);
	/* /dev/null is no regular file */
	CU_ASSERT_EQUAL(atag_keep_old(AT_FDCWD, "/dev/null", NULL, 0), 0);
	/* a name whose .old does not fit: refused before anything is renamed */
	put(d, "long", "x");
	errno = 0;
	CU_ASSERT_EQUAL(atag_keep_old(d, "long", small, sizeof(small)), -ENAMETOOLONG);
	CU_ASSERT_EQUAL(errno, ENAMETOOLONG);
	CU_ASSERT_STRING_EQUAL(get(d, "long"), "x");
	unlinkat(d, "out.old", 0);
	unlinkat(d, "link", 0);
	unlinkat(d, "long", 0);
	unlinkat(d, "sub", AT_REMOVEDIR);
	close(d);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

/* Where execvp() would find a program: PATH order, EACCES remembered, slashes as given. */
static void test_find_program(void)
{
	char dir[] = "/tmp/atag-find-XXXXXX", path[256], full[512], *old;
	int d;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	d = open(dir, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(d >= 0);
	CU_ASSERT_EQUAL(mkdirat(d, "a", 0755), 0);
	CU_ASSERT_EQUAL(mkdirat(d, "b", 0755), 0);
	put(d, "a/prog", "#!/bin/sh\n");		/* not executable */
	put(d, "b/prog", "#!/bin/sh\n");
	CU_ASSERT_EQUAL(fchmodat(d, "b/prog", 0755, 0), 0);
	CU_ASSERT_EQUAL(mkdirat(d, "b/dir", 0755), 0);
	old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	snprintf(path, sizeof(path), "%s/nowhere:%s/a:%s/b", dir, dir, dir);
	setenv("PATH", path, 1);
	CU_ASSERT_EQUAL(atag_find_program("prog", full, sizeof(full)), 0);
	snprintf(path, sizeof(path), "%s/b/prog", dir);
	CU_ASSERT_STRING_EQUAL(full, path);
	/* only the non-executable one: EACCES, naming it */
	snprintf(path, sizeof(path), "%s/a", dir);
	setenv("PATH", path, 1);
	CU_ASSERT_EQUAL(atag_find_program("prog", full, sizeof(full)), -EACCES);
	CU_ASSERT_EQUAL(errno, EACCES);
	snprintf(path, sizeof(path), "%s/a/prog", dir);
	CU_ASSERT_STRING_EQUAL(full, path);
	CU_ASSERT_EQUAL(atag_find_program("nothing-by-this-name", full, sizeof(full)), -ENOENT);
	/* a directory found is no program */
	snprintf(path, sizeof(path), "%s/b", dir);
	setenv("PATH", path, 1);
	CU_ASSERT_EQUAL(atag_find_program("dir", full, sizeof(full)), -EACCES);
	/* with a slash: that file alone, PATH not searched */
	snprintf(path, sizeof(path), "%s/b/prog", dir);
	CU_ASSERT_EQUAL(atag_find_program(path, full, sizeof(full)), 0);
	CU_ASSERT_EQUAL(atag_find_program("b/prog", full, sizeof(full)), -ENOENT);
	CU_ASSERT_EQUAL(atag_find_program("/nonexistent/prog", full, sizeof(full)), -ENOENT);
	CU_ASSERT_EQUAL(atag_find_program("/etc/passwd/x", full, sizeof(full)), -ENOENT);
	CU_ASSERT_EQUAL(atag_find_program("", full, sizeof(full)), -ENOENT);
	/* PATH unset: /usr/bin:/bin */
	unsetenv("PATH");
	CU_ASSERT_EQUAL(atag_find_program("sh", full, sizeof(full)), 0);
	if (old) {
		setenv("PATH", old, 1);
		free(old);
	}
	unlinkat(d, "a/prog", 0);
	unlinkat(d, "b/prog", 0);
	unlinkat(d, "b/dir", AT_REMOVEDIR);
	unlinkat(d, "a", AT_REMOVEDIR);
	unlinkat(d, "b", AT_REMOVEDIR);
	close(d);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static void test_tracefs_dir(void)
{
	char mounted[4096];
	int found = atag_tracefs_find(NULL, mounted, sizeof(mounted));

	CU_ASSERT_EQUAL(atag_tracefs_set_dir("/some/fake/tree"), 0);
	CU_ASSERT_STRING_EQUAL(atag_tracefs_dir(), "/some/fake/tree");
	CU_ASSERT_EQUAL(atag_tracefs_set_dir(NULL), 0);
	/* back to the mount, the one the mount table names (none here: ENODEV) */
	if (!found) {
		CU_ASSERT_STRING_EQUAL(atag_tracefs_dir(), mounted);
	} else {
		errno = 0;
		CU_ASSERT_PTR_NULL(atag_tracefs_dir());
		CU_ASSERT_EQUAL(errno, ENODEV);
	}
}

static void add_files_suite(void)
{
	CU_pSuite s = CU_add_suite("files", NULL, NULL);

	CU_add_test(s, "read all of a reader", test_read_all);
	CU_add_test(s, "read a file", test_read_file);
	CU_add_test(s, "26.4: inputs: regular files only, never blocking", test_open_input);
	CU_add_test(s, "key: value lines", test_parse_kv);
	CU_add_test(s, "a directory walked from a descriptor, from its top",
		    test_opendir_fd);
	CU_add_test(s, "the tracefs directory", test_tracefs_dir);
	CU_add_test(s, "an existing output kept as NAME.old", test_keep_old);
	CU_add_test(s, "a program found as execvp() finds it", test_find_program);
}
ATAG_UTEST_SUITE("files", add_files_suite);
