// SPDX-License-Identifier: GPL-2.0
/*
 * atag-fakeinfo: a test double of /proc/allocinfo, served through the kernel's real
 * ioctl path by a FUSE file system (libfuse3, as root).
 *
 *   atag-fakeinfo DESCRIPTION MOUNTPOINT
 *
 * Runs in the foreground until SIGTERM/SIGINT (then unmounts) and serves:
 *   MOUNTPOINT/allocinfo  0400  the text on read; CONTENT_ID, GET_AT (both layouts),
 *                               GET_NEXT and TOGGLE_TRACE as ioctls, with the kernel's
 *                               semantics (tests/doubles/fakeinfo-model.h); TOGGLE_TRACE
 *                               checks CAP_SYS_ADMIN in the caller's effective set
 *   MOUNTPOINT/state      0444  content id, number of toggles, every tag's trace state
 *   MOUNTPOINT/ctl        0200  write "modload", "bump", "deny", "allow", "race", or
 *                               "alloc|free INDEX BYTES" (the counters of a tag)
 * The description language is in tests/doubles/fakeinfo-model.h.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../doubles/fakeinfo-model.c"

#define CAP_SYS_ADMIN_BIT	21

static struct fake_kernel kernel;

struct open_file {
	struct fake_file	ff;
	char			*buf;	/* snapshot served by read */
	size_t			len;
};

static const struct {
	const char	*path;
	mode_t		mode;
} files[] = {
	{ "/allocinfo", S_IFREG | 0400 },
	{ "/state", S_IFREG | 0444 },
	{ "/ctl", S_IFREG | 0200 },
};

static int file_index(const char *path)
{
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!strcmp(path, files[i].path))
			return i;
	return -1;
}

static int fi_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	int i = file_index(path);

	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (i < 0)
		return -ENOENT;
	st->st_mode = files[i].mode;
	st->st_nlink = 1;
	return 0;
}

static int fi_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	unsigned int i;

	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		fill(buf, files[i].path + 1, NULL, 0, 0);
	return 0;
}

static int fi_open(const char *path, struct fuse_file_info *fi)
{
	struct open_file *of;
	int i = file_index(path);

	if (i < 0)
		return -ENOENT;
	of = calloc(1, sizeof(*of));
	if (!of)
		return -ENOMEM;
	of->ff.k = &kernel;
	if (i == 0)
		of->buf = fake_text(&kernel, &of->len);
	else if (i == 1)
		of->buf = fake_state(&kernel, &of->len);
	fi->fh = (uintptr_t)of;
	fi->direct_io = 1;
	return 0;
}

static int fi_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct open_file *of = (struct open_file *)(uintptr_t)fi->fh;

	if (!of->buf || (size_t)off >= of->len)
		return 0;
	if (size > of->len - off)
		size = of->len - off;
	memcpy(buf, of->buf + off, size);
	return size;
}

static int fi_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	char cmd[64];

	if (file_index(path) != 2)
		return -EACCES;
	snprintf(cmd, sizeof(cmd), "%.*s", (int)size, buf);
	return fake_control(&kernel, cmd) ? -EINVAL : (int)size;
}

static int fi_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	return file_index(path) == 2 ? 0 : -EACCES;
}

static int fi_release(const char *path, struct fuse_file_info *fi)
{
	struct open_file *of = (struct open_file *)(uintptr_t)fi->fh;

	free(of->buf);
	free(of);
	return 0;
}

/* Whether the calling task has CAP_SYS_ADMIN in its effective set. */
static bool caller_has_cap_sys_admin(pid_t pid)
{
	unsigned long long eff = 0;
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &eff) == 1;
	fclose(f);
	return found && (eff >> CAP_SYS_ADMIN_BIT) & 1;
}

static int fi_ioctl(const char *path, unsigned int cmd, void *arg, struct fuse_file_info *fi,
		    unsigned int flags, void *data)
{
	struct open_file *of = (struct open_file *)(uintptr_t)fi->fh;

	if (flags & FUSE_IOCTL_COMPAT)
		return -ENOSYS;
	if (file_index(path) != 0)
		return -ENOTTY;
	return fake_ioctl(&of->ff, cmd, data,
			  caller_has_cap_sys_admin(fuse_get_context()->pid));
}

static const struct fuse_operations ops = {
	.getattr	= fi_getattr,
	.readdir	= fi_readdir,
	.open		= fi_open,
	.read		= fi_read,
	.write		= fi_write,
	.truncate	= fi_truncate,
	.release	= fi_release,
	.ioctl		= fi_ioctl,
};

static char *read_description(const char *path)
{
	size_t len = 0, cap = 4096, n;
	char *buf = malloc(cap + 1);
	FILE *f = fopen(path, "r");

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf)
				break;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

int main(int argc, char **argv)
{
	char *fargv[] = { argv[0], "-f", "-s", "-o", "default_permissions,fsname=atag-fakeinfo",
			  NULL, NULL };
	char err[256], *text;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DESCRIPTION MOUNTPOINT\n", argv[0]);
		return 2;
	}
	text = read_description(argv[1]);
	if (!text) {
		fprintf(stderr, "atag-fakeinfo: cannot read %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	ret = fake_kernel_load(&kernel, text, err, sizeof(err));
	free(text);
	if (ret) {
		fprintf(stderr, "atag-fakeinfo: %s: %s\n", argv[1], err);
		return 2;
	}
	fargv[5] = argv[2];
	ret = fuse_main(6, fargv, &ops, NULL);
	fake_kernel_free(&kernel);
	return ret;
}
