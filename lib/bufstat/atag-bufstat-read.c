// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading the ring-buffer files of a tracefs directory into a struct atag_bufstat.
 *
 * Plain open()/read() on paths under the given root, so a fake tree in a temporary
 * directory reads exactly like the mount (libtracefs' tracefs_instance_exists() and
 * friends would look at /proc/mounts instead). Nothing is ever written, and the
 * snapshot file is read only as far as its header (its first 4 KiB).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atag-bufstat.h"
#include "atag-utils.h"

#define UNKNOWN		ATAG_BUFSTAT_UNKNOWN
#define READ_MAX	(64 * 1024)
#define SNAPSHOT_HEAD	4096

struct reader {
	struct atag_bufstat		*bs;
	struct atag_bufstat_error	*err;
};

static const char * const latency_tracers[] = {
	"irqsoff", "preemptoff", "preemptirqsoff", "wakeup", "wakeup_rt", "wakeup_dl", NULL
};

static int fail(struct reader *rd, const char *path, int err, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail(struct reader *rd, const char *path, int err, int line, const char *fmt, ...)
{
	va_list ap;

	rd->err->err = err;
	rd->err->line = line;
	snprintf(rd->err->path, sizeof(rd->err->path), "%s", path);
	va_start(ap, fmt);
	vsnprintf(rd->err->msg, sizeof(rd->err->msg), fmt, ap);
	va_end(ap);
	return atag_err(-err);
}

/* Line @n (1-based) of @text, for error messages. */
static const char *nth_line(const char *text, int n, char *buf, size_t len)
{
	const char *p = text;
	size_t l;

	while (--n > 0 && (p = strchr(p, '\n')))
		p++;
	if (!p)
		p = "";
	l = strcspn(p, "\n");
	if (l >= len)
		l = len - 1;
	memcpy(buf, p, l);
	buf[l] = '\0';
	return buf;
}

/* @path has PATH_MAX bytes; a longer path is cut, and then fails to open. */
static void join(char *path, const char *dir, const char *name)
{
	if (snprintf(path, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		path[PATH_MAX - 1] = '\0';
}

/*
 * Read @dir/@name into *@text. Return 0, 1 when the file does not exist (*@text
 * NULL), or fail() for any other error.
 */
static int read_opt(struct reader *rd, const char *dir, const char *name, size_t max,
		    char **text)
{
	char path[PATH_MAX];

	join(path, dir, name);
	*text = atag_read_file(path, max, NULL);
	if (*text)
		return 0;
	if (errno == ENOENT)
		return 1;
	if (errno == EFBIG)
		return fail(rd, path, EFBIG, 0, "larger than %zu bytes: not a tracefs file", max);
	return fail(rd, path, errno, 0, "%s", atag_strerror(errno));
}

static int malformed(struct reader *rd, const char *dir, const char *name, const char *text,
		     int line)
{
	char path[PATH_MAX], buf[80];

	join(path, dir, name);
	return fail(rd, path, EINVAL, line, "malformed line '%s'", nth_line(text, line, buf,
									 sizeof(buf)));
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char * const *)a, *(char * const *)b);
}

static bool is_dir(const char *dir, const struct dirent *d)
{
	char path[PATH_MAX];
	struct stat st;

	if (d->d_type == DT_DIR)
		return true;
	if (d->d_type != DT_UNKNOWN)
		return false;
	join(path, dir, d->d_name);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static void free_names(char **names, int nr)
{
	while (nr-- > 0)
		free(names[nr]);
	free(names);
}

/* The sub-directories of @dir, sorted; 1 when @dir does not exist. */
static int list_dirs(struct reader *rd, const char *dir, char ***names, int *nr)
{
	struct dirent *d;
	char **n;
	DIR *dp;

	*names = NULL;
	*nr = 0;
	dp = opendir(dir);
	if (!dp)
		return errno == ENOENT ? 1 : fail(rd, dir, errno, 0, "%s", strerror(errno));
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || !is_dir(dir, d))
			continue;
		n = realloc(*names, sizeof(*n) * (*nr + 1));
		if (!n || !(n[*nr] = strdup(d->d_name))) {
			*names = n ? n : *names;
			closedir(dp);
			return fail(rd, dir, ENOMEM, 0, "out of memory");
		}
		*names = n;
		(*nr)++;
	}
	closedir(dp);
	if (*nr > 1)
		qsort(*names, *nr, sizeof(**names), cmp_names);
	return 0;
}

static int cpu_number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "cpu", 3) || !name[3])
		return -1;
	n = strtol(name + 3, &end, 10);
	return *end || n < 0 || n > INT_MAX ? -1 : (int)n;
}

/* An optional "N" file: UNKNOWN when absent, fail() when malformed. */
static int read_kb(struct reader *rd, const char *dir, const char *name, unsigned long long *kb)
{
	struct atag_bufsize sz;
	char *text;
	int ret;

	*kb = UNKNOWN;
	ret = read_opt(rd, dir, name, READ_MAX, &text);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = atag_bufstat_parse_size(text, &sz);
	if (ret || sz.differ || sz.expanded_kb != UNKNOWN)
		ret = malformed(rd, dir, name, text, 1);
	else
		*kb = sz.kb;
	free(text);
	return ret;
}

static int read_flag(struct reader *rd, const char *dir, const char *name, int *flag)
{
	char *text;
	int ret;

	*flag = -1;
	ret = read_opt(rd, dir, name, READ_MAX, &text);
	if (ret)
		return ret < 0 ? ret : 0;
	*flag = atag_bufstat_parse_flag(text);
	ret = *flag < 0 ? malformed(rd, dir, name, text, 1) : 0;
	free(text);
	return ret;
}

static int read_cpu_stats(struct reader *rd, const char *cpudir, struct atag_bufstat_cpu *c)
{
	char *text;
	int ret, line;

	ret = read_opt(rd, cpudir, "stats", READ_MAX, &text);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = atag_parse_cpu_stats(text, &c->stats, &line);
	if (ret)
		ret = malformed(rd, cpudir, "stats", text, line);
	c->has_stats = !ret;
	free(text);
	return ret;
}

static int read_cpu_meta(struct reader *rd, const char *cpudir, struct atag_bufstat_cpu *c)
{
	char path[PATH_MAX], *text;
	int ret, line;

	ret = read_opt(rd, cpudir, "buffer_meta", READ_MAX, &text);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = atag_bufstat_parse_meta(text, &c->meta, &line);
	if (ret && line) {
		ret = malformed(rd, cpudir, "buffer_meta", text, line);
	} else if (ret) {
		join(path, cpudir, "buffer_meta");
		ret = fail(rd, path, EINVAL, 0, "no subbuf_size or nr_subbufs line");
	}
	c->has_meta = !ret;
	free(text);
	return ret;
}

static int read_cpus(struct reader *rd, const char *dir, struct atag_bufstat_instance *in)
{
	char pcdir[PATH_MAX], cpudir[PATH_MAX], **names;
	struct atag_bufstat_cpu *c;
	int i, nr, ret, cpu;

	join(pcdir, dir, "per_cpu");
	ret = list_dirs(rd, pcdir, &names, &nr);
	if (ret)
		return ret < 0 ? ret : 0;
	in->cpus = calloc(nr ? nr : 1, sizeof(*in->cpus));
	if (!in->cpus)
		ret = fail(rd, pcdir, ENOMEM, 0, "out of memory");
	for (i = 0; !ret && i < nr; i++) {
		cpu = cpu_number(names[i]);
		if (cpu < 0)
			continue;
		c = &in->cpus[in->nr_cpus++];
		c->cpu = cpu;
		join(cpudir, pcdir, names[i]);
		ret = read_kb(rd, cpudir, "buffer_size_kb", &c->size_kb);
		if (!ret)
			ret = read_cpu_stats(rd, cpudir, c);
		if (!ret && in->persistent)
			ret = read_cpu_meta(rd, cpudir, c);
	}
	free_names(names, nr);
	return ret;
}

static bool is_latency_tracer(const char *name)
{
	int i;

	for (i = 0; latency_tracers[i]; i++)
		if (!strcmp(name, latency_tracers[i]))
			return true;
	return false;
}

static int read_latency_tracers(struct reader *rd)
{
	char *text, *tok, *save;
	int ret;

	ret = read_opt(rd, rd->bs->tracefs, "available_tracers", READ_MAX, &text);
	if (ret)
		return ret < 0 ? ret : 0;
	for (tok = strtok_r(text, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (is_latency_tracer(tok))
			rd->bs->latency_tracers = true;
	free(text);
	return 0;
}

/* No snapshot file: a spare buffer exists only if latency tracers are built in. */
static int read_spare(struct reader *rd, const char *dir, struct atag_bufstat_instance *in)
{
	char *text;
	int ret;

	in->snapshot = ATAG_SNAPSHOT_UNSUPPORTED;
	if (!rd->bs->latency_tracers)
		return 0;
	in->snapshot = ATAG_SNAPSHOT_SPARE_MIN;
	ret = read_opt(rd, dir, "current_tracer", READ_MAX, &text);
	if (ret)
		return ret < 0 ? ret : 0;
	text[strcspn(text, "\n")] = '\0';
	if (is_latency_tracer(text))
		in->snapshot = ATAG_SNAPSHOT_SPARE_FULL;
	free(text);
	return 0;
}

static int read_snapshot(struct reader *rd, const char *dir, struct atag_bufstat_instance *in)
{
	char path[PATH_MAX], *text;

	if (in->persistent) {
		in->snapshot = ATAG_SNAPSHOT_PERSISTENT;
		return 0;
	}
	join(path, dir, "snapshot");
	text = atag_read_head(path, SNAPSHOT_HEAD, NULL);
	if (!text && errno == ENOENT)
		return read_spare(rd, dir, in);
	if (!text && errno == EBUSY) {
		in->snapshot = ATAG_SNAPSHOT_BUSY;
		return 0;
	}
	if (!text)
		return fail(rd, path, errno, 0, "%s", atag_strerror(errno));
	in->snapshot = atag_bufstat_parse_snapshot(text);
	free(text);
	return 0;
}

static int read_last_boot(struct reader *rd, const char *dir, struct atag_bufstat_instance *in)
{
	char *text;
	int ret;

	ret = read_opt(rd, dir, "last_boot_info", READ_MAX, &text);
	if (ret)
		return ret < 0 ? ret : 0;
	in->persistent = true;
	text[strcspn(text, "\n")] = '\0';
	in->last_boot = text;
	return 0;
}

static int read_sizes(struct reader *rd, const char *dir, struct atag_bufstat_instance *in)
{
	char *text;
	int ret;

	ret = read_opt(rd, dir, "buffer_size_kb", READ_MAX, &text);
	if (ret)
		return ret;
	ret = atag_bufstat_parse_size(text, &in->size);
	if (ret)
		ret = malformed(rd, dir, "buffer_size_kb", text, 1);
	free(text);
	if (ret)
		return ret;
	in->total.kb = UNKNOWN;
	in->total.expanded_kb = UNKNOWN;
	ret = read_opt(rd, dir, "buffer_total_size_kb", READ_MAX, &text);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = atag_bufstat_parse_size(text, &in->total);
	if (ret || in->total.differ)
		ret = malformed(rd, dir, "buffer_total_size_kb", text, 1);
	free(text);
	return ret;
}

/* Return 0, 1 when the buffer has no buffer_size_kb (not a buffer, or gone), or fail(). */
static int read_instance(struct reader *rd, const char *dir, struct atag_bufstat_instance *in)
{
	int ret;

	ret = read_sizes(rd, dir, in);
	if (!ret)
		ret = read_kb(rd, dir, "buffer_subbuf_size_kb", &in->subbuf_kb);
	if (!ret)
		ret = read_flag(rd, dir, "tracing_on", &in->tracing_on);
	if (!ret)
		ret = read_last_boot(rd, dir, in);
	if (!ret)
		ret = read_snapshot(rd, dir, in);
	if (!ret)
		ret = read_cpus(rd, dir, in);
	return ret;
}

static void free_instance(struct atag_bufstat_instance *in)
{
	free(in->name);
	free(in->last_boot);
	free(in->backup_of);
	free(in->cpus);
}

static struct atag_bufstat_instance *new_instance(struct reader *rd, const char *name)
{
	struct atag_bufstat *bs = rd->bs;
	struct atag_bufstat_instance *in;

	in = realloc(bs->instances, sizeof(*in) * (bs->nr_instances + 1));
	if (!in)
		return NULL;
	bs->instances = in;
	in = &in[bs->nr_instances];
	memset(in, 0, sizeof(*in));
	if (name && !(in->name = strdup(name)))
		return NULL;
	bs->nr_instances++;
	return in;
}

static int read_top(struct reader *rd)
{
	struct atag_bufstat_instance *in = new_instance(rd, NULL);
	char path[PATH_MAX];
	int ret;

	if (!in)
		return fail(rd, rd->bs->tracefs, ENOMEM, 0, "out of memory");
	ret = read_instance(rd, rd->bs->tracefs, in);
	if (ret == 1) {
		join(path, rd->bs->tracefs, "buffer_size_kb");
		return fail(rd, path, ENOENT, 0, "not a tracefs directory: no buffer_size_kb");
	}
	return ret;
}

static bool wanted(const struct atag_bufstat_opts *opts, const char *name)
{
	size_t i;

	if (!opts || !opts->names)
		return true;
	for (i = 0; i < opts->nr_names; i++)
		if (!strcmp(opts->names[i], name))
			return true;
	return false;
}

static int read_one_instance(struct reader *rd, const char *idir, const char *name, bool named)
{
	struct atag_bufstat_instance *in = new_instance(rd, name);
	char dir[PATH_MAX];
	int ret;

	if (!in)
		return fail(rd, idir, ENOMEM, 0, "out of memory");
	join(dir, idir, name);
	ret = read_instance(rd, dir, in);
	/* gone while we read it (another tool removed it): leave it out */
	if (ret == 1 || (ret == 0 && !named && access(dir, F_OK))) {
		free_instance(in);
		rd->bs->nr_instances--;
		if (named)
			return fail(rd, dir, ENOENT, 0, "no such instance");
		return 0;
	}
	return ret;
}

static int check_named(struct reader *rd, const char *idir, const struct atag_bufstat_opts *opts,
		       char **names, int nr)
{
	char dir[PATH_MAX];
	size_t i;
	int j;

	for (i = 0; opts && opts->names && i < opts->nr_names; i++) {
		for (j = 0; j < nr && strcmp(names[j], opts->names[i]); j++)
			;
		if (j == nr) {
			join(dir, idir, opts->names[i]);
			return fail(rd, dir, ENOENT, 0, "no such instance");
		}
	}
	return 0;
}

static int read_instances(struct reader *rd, const struct atag_bufstat_opts *opts)
{
	char idir[PATH_MAX], **names;
	int i, nr, ret;

	join(idir, rd->bs->tracefs, "instances");
	ret = list_dirs(rd, idir, &names, &nr);
	if (ret < 0)
		return ret;
	ret = check_named(rd, idir, opts, names, nr);
	for (i = 0; !ret && i < nr; i++)
		if (wanted(opts, names[i]))
			ret = read_one_instance(rd, idir, names[i], opts && opts->names);
	free_names(names, nr);
	return ret;
}

static int read_remote(struct reader *rd, const char *dir, struct atag_bufstat_remote *r)
{
	char *text;
	int ret;

	r->size_kb = UNKNOWN;
	r->loaded = -1;
	ret = read_opt(rd, dir, "buffer_size_kb", READ_MAX, &text);
	if (ret < 0)
		return ret;
	if (!ret) {
		ret = atag_bufstat_parse_remote_size(text, &r->size_kb, &r->loaded);
		if (ret)
			ret = malformed(rd, dir, "buffer_size_kb", text, 1);
		free(text);
	}
	if (!ret)
		ret = read_flag(rd, dir, "tracing_on", &r->tracing_on);
	/*
	 * The CPUs of its buffer are the remote's choice and no file says which:
	 * per_cpu/cpuN, where the kernel has it, is there for every possible CPU.
	 */
	r->nr_cpus = -1;
	return ret;
}

static int read_remotes(struct reader *rd)
{
	struct atag_bufstat *bs = rd->bs;
	char rdir[PATH_MAX], dir[PATH_MAX], **names;
	int i, nr, ret;

	join(rdir, bs->tracefs, "remotes");
	ret = list_dirs(rd, rdir, &names, &nr);
	if (ret)
		return ret < 0 ? ret : 0;
	bs->has_remotes_dir = true;
	bs->remotes = calloc(nr ? nr : 1, sizeof(*bs->remotes));
	if (!bs->remotes)
		ret = fail(rd, rdir, ENOMEM, 0, "out of memory");
	for (i = 0; !ret && i < nr; i++) {
		bs->remotes[i].name = names[i];
		names[i] = NULL;
		bs->nr_remotes++;
		join(dir, rdir, bs->remotes[i].name);
		ret = read_remote(rd, dir, &bs->remotes[i]);
	}
	free_names(names, nr);
	return ret;
}

static int read_memusage(struct reader *rd, const char *dir, struct atag_memusage *mu)
{
	char *text;
	int ret, line, row;

	mu->format = ATAG_MEMUSAGE_NONE;
	for (row = 0; row < ATAG_ROW_MAX; row++)
		mu->kb[row] = UNKNOWN;
	ret = read_opt(rd, dir, "memory_usage_kb", READ_MAX, &text);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = atag_bufstat_parse_memusage(text, mu, &line);
	if (ret)
		ret = malformed(rd, dir, "memory_usage_kb", text, line);
	free(text);
	return ret;
}

static int read_kernel_cpus(struct reader *rd, const char *tsdir)
{
	struct atag_bufstat *bs = rd->bs;
	char pcdir[PATH_MAX], cpudir[PATH_MAX], **names;
	int i, nr, ret, cpu;

	join(pcdir, tsdir, "per_cpu");
	ret = list_dirs(rd, pcdir, &names, &nr);
	if (ret)
		return ret < 0 ? ret : 0;
	bs->kernel_cpus = calloc(nr ? nr : 1, sizeof(*bs->kernel_cpus));
	bs->kernel_cpu_ids = calloc(nr ? nr : 1, sizeof(*bs->kernel_cpu_ids));
	if (!bs->kernel_cpus || !bs->kernel_cpu_ids)
		ret = fail(rd, pcdir, ENOMEM, 0, "out of memory");
	for (i = 0; !ret && i < nr; i++) {
		cpu = cpu_number(names[i]);
		if (cpu < 0)
			continue;
		join(cpudir, pcdir, names[i]);
		ret = read_memusage(rd, cpudir, &bs->kernel_cpus[bs->nr_kernel_cpus]);
		if (!ret && bs->kernel_cpus[bs->nr_kernel_cpus].format != ATAG_MEMUSAGE_NONE)
			bs->kernel_cpu_ids[bs->nr_kernel_cpus++] = cpu;
	}
	free_names(names, nr);
	return ret;
}

static int read_kernel(struct reader *rd)
{
	char tsdir[PATH_MAX];
	int ret;

	join(tsdir, rd->bs->tracefs, "trace_stats");
	ret = read_memusage(rd, tsdir, &rd->bs->kernel);
	if (!ret)
		ret = read_kernel_cpus(rd, tsdir);
	return ret;
}

/*
 * Which persistent instances are backups: the kernel command line says so
 * (trace_instance=NAME=ORIGIN), no tracefs file does. A file that cannot be read
 * leaves every instance what its files say it is.
 */
static int read_backups(struct reader *rd, const char *cmdline)
{
	struct atag_bufstat_instance *in;
	char origin[256], *text;
	int i;

	if (!cmdline)
		return 0;
	text = atag_read_file(cmdline, READ_MAX, NULL);
	if (!text) {
		rd->bs->cmdline_unread = cmdline;
		return 0;
	}
	for (i = 0; i < rd->bs->nr_instances; i++) {
		in = &rd->bs->instances[i];
		if (!in->persistent || !in->name ||
		    !atag_bufstat_parse_backup(text, in->name, origin, sizeof(origin)))
			continue;
		in->backup_of = strdup(origin);
		if (!in->backup_of) {
			free(text);
			return fail(rd, cmdline, ENOMEM, 0, "out of memory");
		}
	}
	free(text);
	return 0;
}

static int read_page_header(struct reader *rd)
{
	struct atag_bufstat *bs = rd->bs;
	char *text;
	int ret;

	bs->page_hdr = ATAG_BUFSTAT_PAGE_HDR_DEFAULT;
	bs->page_hdr_assumed = true;
	ret = read_opt(rd, bs->tracefs, "events/header_page", READ_MAX, &text);
	if (ret)
		return ret < 0 ? ret : 0;
	if (!atag_bufstat_parse_header_page(text, &bs->page_hdr))
		bs->page_hdr_assumed = false;
	free(text);
	return 0;
}

/* The root is a directory with a readable buffer_size_kb: the first error is about it. */
static int check_root(struct reader *rd)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (stat(rd->bs->tracefs, &st))
		return fail(rd, rd->bs->tracefs, errno, 0, "%s", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(rd, rd->bs->tracefs, ENOTDIR, 0, "%s", strerror(ENOTDIR));
	join(path, rd->bs->tracefs, "buffer_size_kb");
	fd = atag_open_input(AT_FDCWD, path, 0);
	if (fd < 0 && errno == ENOENT)
		return fail(rd, path, ENOENT, 0, "not a tracefs directory: no buffer_size_kb");
	if (fd < 0)
		return fail(rd, path, errno, 0, "%s", atag_strerror(errno));
	close(fd);
	return 0;
}

static int read_all(struct reader *rd, const struct atag_bufstat_opts *opts)
{
	bool filtered = opts && opts->names;
	int ret;

	rd->bs->filtered = filtered;
	ret = check_root(rd);
	if (!ret)
		ret = read_page_header(rd);
	if (!ret)
		ret = read_latency_tracers(rd);
	if (!ret && (!filtered || opts->top))
		ret = read_top(rd);
	if (!ret)
		ret = read_instances(rd, opts);
	if (!ret && opts)
		ret = read_backups(rd, opts->cmdline);
	if (!ret && !filtered)
		ret = read_remotes(rd);
	if (!ret && !filtered)
		ret = read_kernel(rd);
	return ret;
}

struct atag_bufstat *atag_bufstat_read(const char *tracefs, const struct atag_bufstat_opts *opts,
				       struct atag_bufstat_error *err)
{
	struct atag_bufstat_error dummy;
	struct reader rd = { .err = err ? err : &dummy };
	long page = sysconf(_SC_PAGESIZE);
	int e;

	memset(rd.err, 0, sizeof(*rd.err));
	rd.bs = calloc(1, sizeof(*rd.bs));
	if (!rd.bs || !(rd.bs->tracefs = strdup(tracefs))) {
		fail(&rd, tracefs, ENOMEM, 0, "out of memory");
		goto out_free;
	}
	rd.bs->page_size = page > 0 ? page : 4096;
	/* "dir/" and "dir" name the same tree: keep paths in messages clean */
	for (e = strlen(rd.bs->tracefs); e > 1 && rd.bs->tracefs[e - 1] == '/'; e--)
		rd.bs->tracefs[e - 1] = '\0';
	if (read_all(&rd, opts))
		goto out_free;
	atag_bufstat_compute(rd.bs);
	return rd.bs;
out_free:
	e = rd.err->err;
	atag_bufstat_free(rd.bs);
	errno = e;
	return NULL;
}

void atag_bufstat_free(struct atag_bufstat *bs)
{
	int i;

	if (!bs)
		return;
	for (i = 0; i < bs->nr_instances; i++)
		free_instance(&bs->instances[i]);
	free(bs->instances);
	for (i = 0; i < bs->nr_remotes; i++)
		free(bs->remotes[i].name);
	free(bs->remotes);
	free(bs->kernel_cpus);
	free(bs->kernel_cpu_ids);
	free(bs->tracefs);
	free(bs);
}
