// SPDX-License-Identifier: GPL-2.0
/*
 * atag-vm-probe: checks of the kernel interfaces, run inside the test VM.
 *
 *   atag-vm-probe ioctl                  CONTENT_ID, GET_AT, GET_NEXT, the filters, errors
 *   atag-vm-probe toggle                 TOGGLE_TRACE on/off, read back, errors
 *   atag-vm-probe eperm                  what a non-root user gets
 *   atag-vm-probe modules KO             CONTENT_ID across unload and load of KO
 *   atag-vm-probe modload KO | modunload load or unload the test module
 *   atag-vm-probe formats                the three event format files
 *   atag-vm-probe events KIND ARG COUNT  trace the test module's KIND call site(s); what the
 *                                        events say against what the module did
 *   atag-vm-probe hooks                  the hook functions; no event while profiling is off
 *   atag-vm-probe remote                 the test module's trace remote, loaded and unloaded
 *   atag-vm-probe events-pipe            trace fs/pipe.c call sites (built-in tags)
 *   atag-vm-probe pipes N FILE           workload: N pipes, two 4 KiB writes into each;
 *                                        writes the fs/pipe.c lines of /proc/allocinfo
 *                                        into FILE while they are open, then closes them
 *   atag-vm-probe memusage CARVEOUT_KB   trace_stats/memory_usage_kb vs the buffers
 *   atag-vm-probe state [INSTANCE...]    no tag traced, no instance but these
 *   atag-vm-probe traced [-c]            the traced tags, "function file:line [module]",
 *                                        sorted (with -c: how many)
 *   atag-vm-probe untrace                turn tracing off on every tag (cleanup)
 *
 * Each check prints "ok - ..." or "not ok - ..."; the exit status is 0 when all
 * passed, 1 when one failed and 77 when the check cannot run here.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atag-allocinfo-uapi.h"

#define ALLOCINFO	"/proc/allocinfo"
#define TRACEFS		"/sys/kernel/tracing"
#define TEST_PROC	"/proc/atag_test"
#define TEST_MOD	"atag_test"

static int failures;

static void check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		failures++;
}

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	printf("not ok - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%s)\n", strerror(errno));
	exit(1);
}

/* ------------------------------------------------------------------ files */

static char *read_file(const char *path)
{
	size_t len = 0, size = 65536;
	char *buf = malloc(size);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, size - len - 1)) > 0) {
		len += n;
		if (size - len < 4096) {
			size *= 2;
			buf = realloc(buf, size);
			if (!buf)
				exit(2);
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

static void must_write(const char *path, const char *val)
{
	if (write_file(path, val)) {
		errno = -write_file(path, val);
		die("write '%s' to %s", val, path);
	}
}

static long read_long(const char *path)
{
	char *s = read_file(path);
	long v;

	if (!s)
		return -1;
	v = strtol(s, NULL, 10);
	free(s);
	return v;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* ------------------------------------------------------------------ allocinfo */

static int allocinfo_open(void)
{
	int fd = open(ALLOCINFO, O_RDONLY);

	if (fd < 0)
		die("open %s", ALLOCINFO);
	return fd;
}

/* ioctl returning 0 or -errno */
static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static uint64_t content_id(int fd)
{
	struct allocinfo_content_id id;

	if (xioctl(fd, ALLOCINFO_IOC_CONTENT_ID, &id))
		die("ALLOCINFO_IOC_CONTENT_ID");
	return id.id;
}

/* The name as the kernel returns it: the last ALLOCINFO_STR_SIZE - 1 characters. */
static void set_str(char *dst, const char *src)
{
	size_t len = strlen(src);

	if (len >= ALLOCINFO_STR_SIZE)
		src += len - (ALLOCINFO_STR_SIZE - 1);
	memset(dst, 0, ALLOCINFO_STR_SIZE);
	memcpy(dst, src, strlen(src));
}

struct taglist {
	struct allocinfo_tag_data *v;
	size_t n;
};

/* All tags matching @filter, walked with GET_AT(0) + GET_NEXT; -errno of GET_AT. */
static int walk(int fd, const struct allocinfo_filter *filter, struct taglist *out)
{
	struct allocinfo_get_at at = { .pos = 0 };
	struct allocinfo_tag_data d;
	size_t cap = 256;
	int ret;

	out->n = 0;
	out->v = malloc(cap * sizeof(*out->v));
	if (filter)
		at.filter = *filter;
	ret = xioctl(fd, ALLOCINFO_IOC_GET_AT, &at);
	if (ret)
		return ret;
	out->v[out->n++] = at.data;
	while (!(ret = xioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d))) {
		if (out->n == cap) {
			cap *= 2;
			out->v = realloc(out->v, cap * sizeof(*out->v));
		}
		out->v[out->n++] = d;
	}
	if (ret != -ENOENT)
		printf("# GET_NEXT ended with %s\n", strerror(-ret));
	return ret == -ENOENT ? 0 : ret;
}

static int count_matches(int fd, const struct allocinfo_filter *filter)
{
	struct taglist l;
	int ret = walk(fd, filter, &l);

	free(l.v);
	if (ret == -ENOENT)
		return 0;
	return ret ? ret : (int)l.n;
}

static struct allocinfo_filter filter_function(const char *function)
{
	struct allocinfo_filter f = { .mask = ALLOCINFO_FILTER_MASK_FUNCTION };

	set_str(f.fields.function, function);
	return f;
}

static struct allocinfo_filter filter_module(const char *modname)
{
	struct allocinfo_filter f = { .mask = ALLOCINFO_FILTER_MASK_MODNAME };

	set_str(f.fields.modname, modname);
	return f;
}

/* One tag by function (and module when given); -errno if not exactly one. */
static int get_one(int fd, const char *modname, const char *function,
		   struct allocinfo_tag_data *out)
{
	struct allocinfo_filter f = filter_function(function);
	struct taglist l;
	int ret;

	if (modname) {
		f.mask |= ALLOCINFO_FILTER_MASK_MODNAME;
		set_str(f.fields.modname, modname);
	}
	ret = walk(fd, &f, &l);
	if (!ret && l.n != 1)
		ret = -E2BIG;
	if (!ret)
		*out = l.v[0];
	free(l.v);
	return ret;
}

/* Text of /proc/allocinfo, one parsed line per tag. */
struct text_tag {
	long long bytes;
	unsigned long long calls;
	char file[512], module[64], function[256];
	unsigned int line;
};

static size_t parse_text(struct text_tag **out, int *version_major)
{
	char *text = read_file(ALLOCINFO), *line, *save = NULL;
	size_t n = 0, cap = 1024;
	struct text_tag *v = malloc(cap * sizeof(*v));

	if (!text)
		die("read %s", ALLOCINFO);
	*version_major = -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct text_tag t = { 0 };
		char site[512], *colon, *p;
		int off = 0;

		if (sscanf(line, "allocinfo - version: %d.", version_major) == 1 || line[0] == '#')
			continue;
		if (sscanf(line, "%lld %llu %511s%n", &t.bytes, &t.calls, site, &off) < 3)
			continue;
		colon = strrchr(site, ':');
		if (!colon)
			continue;
		*colon = '\0';
		snprintf(t.file, sizeof(t.file), "%s", site);
		t.line = strtoul(colon + 1, NULL, 10);
		p = line + off;
		while (*p == ' ')
			p++;
		if (*p == '[') {
			char *end = strchr(p, ']');

			if (end) {
				snprintf(t.module, sizeof(t.module), "%.*s", (int)(end - p - 1), p + 1);
				p = end + 1;
				while (*p == ' ')
					p++;
			}
		}
		if (sscanf(p, "func:%255s", t.function) != 1)
			continue;
		if (n == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof(*v));
		}
		v[n++] = t;
	}
	free(text);
	*out = v;
	return n;
}

static bool same_site(const struct text_tag *t, const struct allocinfo_tag_data *d)
{
	char s[ALLOCINFO_STR_SIZE];

	set_str(s, t->file);
	if (strcmp(s, d->tag.filename))
		return false;
	set_str(s, t->function);
	if (strcmp(s, d->tag.function))
		return false;
	set_str(s, t->module);
	return !strcmp(s, d->tag.modname) && t->line == d->tag.lineno;
}

/* ------------------------------------------------------------------ ioctl */

static int cmd_ioctl(void)
{
	struct allocinfo_filter f;
	struct allocinfo_get_at at;
	struct allocinfo_get_at_v73 at73;
	struct allocinfo_tag_data d, first;
	struct text_tag *text;
	struct taglist all, l;
	size_t n_text, i, n_builtin = 0, n_mod = 0, mismatch = 0;
	int fd = allocinfo_open(), fd2, version, ret;
	uint64_t id, id2;
	bool all_ok;

	id = content_id(fd);
	id2 = content_id(fd);
	check(id == id2, "CONTENT_ID is stable without module changes (%llu)",
	      (unsigned long long)id);

	ret = walk(fd, NULL, &all);
	check(!ret && all.n > 100, "GET_AT(0) + GET_NEXT walk all tags: %zu", all.n);
	if (ret)
		return 1;

	n_text = parse_text(&text, &version);
	check(version == 1, "text header still says version 1.x (%d)", version);
	check(n_text == all.n, "ioctl walk and text agree on the number of tags (%zu, %zu)",
	      all.n, n_text);
	for (i = 0; i < all.n && i < n_text; i++) {
		if (!same_site(&text[i], &all.v[i])) {
			if (mismatch++ < 3)
				printf("# tag %zu: text %s:%u [%s] %s, ioctl %s:%llu [%s] %s\n", i,
				       text[i].file, text[i].line, text[i].module, text[i].function,
				       all.v[i].tag.filename, (unsigned long long)all.v[i].tag.lineno,
				       all.v[i].tag.modname, all.v[i].tag.function);
		}
		if (text[i].module[0])
			n_mod++;
		else
			n_builtin++;
	}
	check(!mismatch, "ioctl walk returns the text's call sites in the same order (%zu differ)",
	      mismatch);
	all_ok = true;
	for (i = 0; i < all.n; i++)
		if (all.v[i].counter.accurate != 1 || all.v[i].counter.trace_on ||
		    all.v[i].counter.__pad[0] || all.v[i].tag.function[0] == '\0')
			all_ok = false;
	check(all_ok, "every tag: accurate=1, trace_on=0, padding zero, function set");

	/* end of walk, then GET_NEXT starts over from the first tag */
	ret = xioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d);
	check(!ret && !memcmp(&d.tag, &all.v[0].tag, sizeof(d.tag)),
	      "GET_NEXT after ENOENT starts again at the first tag (%s)", strerror(-ret));

	/* GET_AT(pos) = pos-th element of the walk */
	all_ok = true;
	for (i = 0; i < all.n; i += all.n / 7 + 1) {
		memset(&at, 0, sizeof(at));
		at.pos = i;
		if (xioctl(fd, ALLOCINFO_IOC_GET_AT, &at) ||
		    memcmp(&at.data.tag, &all.v[i].tag, sizeof(at.data.tag)))
			all_ok = false;
	}
	check(all_ok, "GET_AT(pos) returns the pos-th tag of the walk");
	memset(&at, 0, sizeof(at));
	at.pos = all.n + 10;
	check(xioctl(fd, ALLOCINFO_IOC_GET_AT, &at) == -ENOENT, "GET_AT beyond the end: ENOENT");
	memset(&at, 0, sizeof(at));
	at.pos = 5;
	ret = xioctl(fd, ALLOCINFO_IOC_GET_AT, &at);
	ret = ret ? ret : xioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d);
	check(!ret && !memcmp(&d.tag, &all.v[6].tag, sizeof(d.tag)),
	      "GET_NEXT after GET_AT(5) returns tag 6");

	/* per-fd iterators, and read() is independent of the ioctls */
	fd2 = allocinfo_open();
	memset(&at, 0, sizeof(at));
	at.pos = 10;
	ret = xioctl(fd2, ALLOCINFO_IOC_GET_AT, &at);
	ret = ret ? ret : xioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d);
	check(!ret && !memcmp(&d.tag, &all.v[7].tag, sizeof(d.tag)),
	      "a second open file has its own iterator");
	{
		char buf[64];
		ssize_t n = read(fd2, buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = '\0';
		check(n > 0 && !strncmp(buf, "allocinfo - version:", 20),
		      "read() after ioctls starts with the header");
		ret = xioctl(fd2, ALLOCINFO_IOC_GET_NEXT, &d);
		check(!ret && !memcmp(&d.tag, &all.v[11].tag, sizeof(d.tag)),
		      "read() does not move the ioctl iterator");
	}
	close(fd2);

	/* the series defines one GET_AT, with its filter: no 7.3 compatibility number */
	memset(&at73, 0, sizeof(at73));
	at73.pos = 3;
	check(xioctl(fd, ALLOCINFO_IOC_GET_AT_V73, &at73) == -ENOTTY,
	      "GET_AT with the 7.3 layout (0x%lx): ENOTTY", (unsigned long)ALLOCINFO_IOC_GET_AT_V73);

	/* errors */
	memset(&at, 0, sizeof(at));
	at.filter.mask = 0x100;
	check(xioctl(fd, ALLOCINFO_IOC_GET_AT, &at) == -EINVAL, "unknown mask bit 0x100: EINVAL");
	at.filter.mask = 1ULL << 40;
	check(xioctl(fd, ALLOCINFO_IOC_GET_AT, &at) == -EINVAL, "unknown mask bit 1<<40: EINVAL");
	memset(&at, 0, sizeof(at));
	at.filter.mask = ALLOCINFO_FILTER_MASK_MIN_SIZE | ALLOCINFO_FILTER_MASK_MAX_SIZE;
	at.filter.min_size = 4096;
	at.filter.max_size = 4095;
	check(xioctl(fd, ALLOCINFO_IOC_GET_AT, &at) == -EINVAL, "min_size > max_size: EINVAL");
	at.filter.max_size = 4096;
	ret = xioctl(fd, ALLOCINFO_IOC_GET_AT, &at);
	check(!ret || ret == -ENOENT, "min_size == max_size is accepted (%s)",
	      ret ? strerror(-ret) : "match");
	check(xioctl(fd, _IOR(ALLOCINFO_IOC_BASE, 9, struct allocinfo_content_id), &id) == -ENOTTY,
	      "unknown ioctl number: ENOTTY");
	check(xioctl(fd, _IOWR(ALLOCINFO_IOC_BASE, _ALLOCINFO_IOC_GET_AT, char[400]), &at) == -ENOTTY,
	      "GET_AT with a wrong size: ENOTTY");

	/* module name: "" = built-in */
	f = filter_module("");
	ret = count_matches(fd, &f);
	check(ret == (int)n_builtin, "MODNAME \"\" matches the %zu built-in tags (%d)",
	      n_builtin, ret);
	ret = walk(fd, &f, &l);
	all_ok = !ret;
	for (i = 0; !ret && i < l.n; i++)
		if (l.v[i].tag.modname[0])
			all_ok = false;
	free(l.v);
	check(all_ok, "MODNAME \"\" returns only tags with an empty modname");
	f = filter_module(TEST_MOD);
	ret = count_matches(fd, &f);
	check(n_mod > 0 && ret == (int)n_mod, "MODNAME %s matches its %zu tags (%d)", TEST_MOD,
	      n_mod, ret);
	f = filter_module("no_such_module");
	check(count_matches(fd, &f) == 0, "MODNAME of a missing module: no match");
	memset(&at, 0, sizeof(at));
	at.filter = f;
	check(xioctl(fd, ALLOCINFO_IOC_GET_AT, &at) == -ENOENT, "no match: GET_AT gives ENOENT");

	/* function, file, line */
	ret = get_one(fd, TEST_MOD, "atag_test_slab_alloc", &first);
	check(!ret, "FUNCTION atag_test_slab_alloc + MODNAME: exactly one tag (%s)",
	      strerror(-ret));
	if (!ret) {
		f = (struct allocinfo_filter){ .mask = ALLOCINFO_FILTER_MASK_FILENAME |
						       ALLOCINFO_FILTER_MASK_LINENO };
		memcpy(f.fields.filename, first.tag.filename, ALLOCINFO_STR_SIZE);
		f.fields.lineno = first.tag.lineno;
		ret = walk(fd, &f, &l);
		check(!ret && l.n == 1 && !strcmp(l.v[0].tag.function, "atag_test_slab_alloc"),
		      "FILENAME + LINENO select that tag (%s:%llu)", first.tag.filename,
		      (unsigned long long)first.tag.lineno);
		free(l.v);
		f.fields.lineno = first.tag.lineno + 100000;
		check(count_matches(fd, &f) == 0, "wrong LINENO: no match");
	}
	f = filter_function("alloc_pipe_info");
	ret = count_matches(fd, &f);
	check(ret == 2, "FUNCTION alloc_pipe_info (fs/pipe.c) has 2 tags (%d)", ret);

	/* names longer than 63 characters compare on their last 63 */
	{
		const char *longname =
			"atag_test_function_with_a_deliberately_long_name_to_check_suffix_match";
		char suffix[ALLOCINFO_STR_SIZE];

		set_str(suffix, longname);
		ret = get_one(fd, TEST_MOD, longname, &d);
		check(!ret && !strcmp(d.tag.function, suffix),
		      "long function name: filter on its last 63 chars matches, returned as '%s'",
		      ret ? "-" : d.tag.function);
		f = (struct allocinfo_filter){ .mask = ALLOCINFO_FILTER_MASK_FUNCTION };
		memcpy(f.fields.function, longname, ALLOCINFO_STR_SIZE - 1);
		check(count_matches(fd, &f) == 0, "long function name: its first 63 chars do not match");
	}

	/* accuracy: this kernel never marks counters inaccurate */
	f = (struct allocinfo_filter){ .mask = ALLOCINFO_FILTER_MASK_INACCURATE, .inaccurate = 0 };
	check(count_matches(fd, &f) == (int)all.n, "INACCURATE=0 matches every tag");
	f.inaccurate = 1;
	check(count_matches(fd, &f) == 0, "INACCURATE=1 matches none");

	/* size range */
	f = (struct allocinfo_filter){ .mask = ALLOCINFO_FILTER_MASK_MIN_SIZE |
					       ALLOCINFO_FILTER_MASK_MAX_SIZE,
				       .min_size = 4096, .max_size = 65536 };
	ret = walk(fd, &f, &l);
	all_ok = !ret && l.n > 0;
	for (i = 0; !ret && i < l.n; i++)
		if (l.v[i].counter.bytes < 4096 || l.v[i].counter.bytes > 65536)
			all_ok = false;
	check(all_ok, "MIN_SIZE 4096 + MAX_SIZE 65536: %zu tags, all within", ret ? 0 : l.n);
	if (!ret)
		free(l.v);
	f.mask = ALLOCINFO_FILTER_MASK_MIN_SIZE;
	f.min_size = 1ULL << 62;
	check(count_matches(fd, &f) == 0, "MIN_SIZE 2^62: no match");

	/* a stored filter is used by GET_NEXT; mask 0 clears it */
	f = filter_module(TEST_MOD);
	memset(&at, 0, sizeof(at));
	at.filter = f;
	ret = xioctl(fd, ALLOCINFO_IOC_GET_AT, &at);
	all_ok = !ret && !strcmp(at.data.tag.modname, TEST_MOD);
	while (!ret && !(ret = xioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d)))
		if (strcmp(d.tag.modname, TEST_MOD))
			all_ok = false;
	check(all_ok && ret == -ENOENT, "GET_NEXT keeps using the filter given to GET_AT");
	memset(&at, 0, sizeof(at));
	ret = xioctl(fd, ALLOCINFO_IOC_GET_AT, &at);
	ret = ret ? ret : xioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d);
	check(!ret && !memcmp(&d.tag, &all.v[1].tag, sizeof(d.tag)),
	      "GET_AT with mask 0 clears the stored filter");

	free(all.v);
	free(text);
	close(fd);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ toggle */

static int toggle(int fd, const struct allocinfo_filter *f, uint64_t enable)
{
	struct allocinfo_toggle_traces t = { .enable = enable };

	if (f)
		t.filter = *f;
	return xioctl(fd, ALLOCINFO_IOC_TOGGLE_TRACE, &t);
}

static int count_traced(int fd)
{
	struct allocinfo_filter f = { .mask = ALLOCINFO_FILTER_MASK_TRACE_ON, .tracing = 1 };

	return count_matches(fd, &f);
}

static int cmd_toggle(void)
{
	struct allocinfo_filter f = filter_module(TEST_MOD), tf;
	struct allocinfo_tag_data d;
	int fd = allocinfo_open(), n_mod, n_all, ret;
	struct taglist l;
	size_t i;
	bool all_ok;

	n_mod = count_matches(fd, &f);
	tf = (struct allocinfo_filter){ .mask = ALLOCINFO_FILTER_MASK_TRACE_ON, .tracing = 0 };
	n_all = count_matches(fd, &tf);
	check(n_mod > 0 && count_traced(fd) == 0, "before: %d module tags, none traced", n_mod);
	check(n_all > n_mod, "TRACE_ON with tracing=0 matches all %d tags", n_all);

	ret = toggle(fd, &f, 1);
	check(!ret, "TOGGLE_TRACE enable=1 on MODNAME %s (%s)", TEST_MOD, strerror(-ret));
	ret = walk(fd, &f, &l);
	all_ok = !ret;
	for (i = 0; !ret && i < l.n; i++)
		if (l.v[i].counter.trace_on != 1)
			all_ok = false;
	if (!ret)
		free(l.v);
	check(all_ok, "all module tags read back trace_on=1");
	ret = count_traced(fd);
	check(ret == n_mod, "TRACE_ON filter (tracing=1) finds exactly them (%d)", ret);
	ret = count_matches(fd, &tf);
	check(ret == n_all - n_mod, "TRACE_ON filter (tracing=0) finds the others (%d)", ret);
	ret = toggle(fd, &f, 1);
	check(!ret, "enabling again is fine (%s)", strerror(-ret));
	check(count_traced(fd) == n_mod, "... and changes nothing");

	/* combined with another criterion */
	tf = filter_function("atag_test_slab_alloc");
	tf.mask |= ALLOCINFO_FILTER_MASK_TRACE_ON;
	tf.tracing = 1;
	check(count_matches(fd, &tf) == 1, "FUNCTION + TRACE_ON=1: one tag");

	ret = toggle(fd, &f, 0);
	check(!ret, "TOGGLE_TRACE enable=0 (%s)", strerror(-ret));
	check(count_traced(fd) == 0, "no tag traced afterwards");
	ret = get_one(fd, TEST_MOD, "atag_test_slab_alloc", &d);
	check(!ret && d.counter.trace_on == 0, "trace_on reads back 0");

	/* one of the two built-in tags of alloc_pipe_info, by function + line */
	tf = filter_function("alloc_pipe_info");
	ret = walk(fd, &tf, &l);
	if (!ret) {
		tf.mask |= ALLOCINFO_FILTER_MASK_LINENO;
		tf.fields.lineno = l.v[0].tag.lineno;
		free(l.v);
		ret = toggle(fd, &tf, 1);
	}
	check(!ret && count_traced(fd) == 1, "enable one built-in tag by function + line");
	ret = toggle(fd, &tf, 0);
	check(!ret && count_traced(fd) == 0, "and disable it");

	/* errors */
	tf = filter_module("no_such_module");
	check(toggle(fd, &tf, 1) == -ENOENT, "no tag matched: ENOENT");
	/* any non-zero enable turns tracing on: !!enable */
	ret = toggle(fd, &f, 2);
	check(!ret && count_traced(fd) == n_mod, "enable=2 turns tracing on (%s)", strerror(-ret));
	ret = toggle(fd, &f, 0);
	check(!ret && count_traced(fd) == 0, "enable=0 turns it off");
	ret = toggle(fd, &f, 1ULL << 32);
	check(!ret && count_traced(fd) == n_mod, "enable=1<<32 turns tracing on (%s)", strerror(-ret));
	ret = toggle(fd, &f, 0);
	check(!ret && count_traced(fd) == 0, "enable=0 turns it off");
	tf = (struct allocinfo_filter){ .mask = 0x100 };
	check(toggle(fd, &tf, 1) == -EINVAL, "unknown mask bit: EINVAL");
	tf = (struct allocinfo_filter){ .mask = ALLOCINFO_FILTER_MASK_MIN_SIZE |
						ALLOCINFO_FILTER_MASK_MAX_SIZE,
					.min_size = 2, .max_size = 1 };
	check(toggle(fd, &tf, 1) == -EINVAL, "min_size > max_size: EINVAL");
	check(count_traced(fd) == 0, "failed toggles changed nothing");

	close(fd);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ eperm */

static int cmd_eperm(void)
{
	int fd = allocinfo_open();
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		struct allocinfo_filter f = filter_module(TEST_MOD);
		struct allocinfo_get_at at = { .pos = 0 };
		int fd2;

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			die("drop to uid 65534");
		check(geteuid() == 65534, "running as uid 65534");
		fd2 = open(ALLOCINFO, O_RDONLY);
		check(fd2 < 0 && errno == EACCES, "open %s as a user: EACCES", ALLOCINFO);
		check(!xioctl(fd, ALLOCINFO_IOC_GET_AT, &at), "GET_AT on an fd root opened works");
		check(toggle(fd, &f, 1) == -EPERM, "TOGGLE_TRACE enable=1 without CAP_SYS_ADMIN: EPERM");
		check(toggle(fd, &f, 0) == -EPERM, "TOGGLE_TRACE enable=0 without CAP_SYS_ADMIN: EPERM");
		exit(failures ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unprivileged child passed");
	check(count_traced(fd) == 0, "no tag traced afterwards");
	close(fd);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ modules */

static int mod_load(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int mod_unload(void)
{
	return syscall(SYS_delete_module, TEST_MOD, O_NONBLOCK) ? -errno : 0;
}

static int cmd_modules(const char *ko)
{
	struct allocinfo_filter f = filter_module(TEST_MOD);
	struct allocinfo_get_at at = { .pos = 0 };
	struct allocinfo_tag_data d;
	int fd = allocinfo_open(), n_mod, ret, steps = 0;
	uint64_t id0, id1, id2;

	n_mod = count_matches(fd, &f);
	check(n_mod > 0, "%s is loaded with %d tags", TEST_MOD, n_mod);

	/* an iterator positioned inside the module's tags while it goes away */
	at.filter = f;
	ret = xioctl(fd, ALLOCINFO_IOC_GET_AT, &at);
	check(!ret, "iterator positioned on a module tag");
	if (write_file(TEST_PROC, "slab 64 1"))
		printf("# could not allocate from %s\n", TEST_MOD);
	write_file(TEST_PROC, "free");

	/* unloading a module stops the tracing of its tags */
	ret = toggle(fd, &f, 1);
	check(!ret && count_traced(fd) == n_mod, "its tags traced before the unload");
	id0 = content_id(fd);
	ret = mod_unload();
	check(!ret, "unload %s (%s)", TEST_MOD, strerror(-ret));
	check(count_traced(fd) == 0, "no tag traced after the unload");
	id1 = content_id(fd);
	check(id1 != id0, "CONTENT_ID changed on unload (%llu -> %llu)",
	      (unsigned long long)id0, (unsigned long long)id1);
	check(count_matches(fd, &f) == 0, "its tags are gone");

	memset(&at, 0, sizeof(at));
	at.filter = f;
	check(xioctl(fd, ALLOCINFO_IOC_GET_AT, &at) == -ENOENT, "MODNAME %s: ENOENT", TEST_MOD);

	ret = mod_load(ko);
	check(!ret, "load %s (%s)", ko, strerror(-ret));
	id2 = content_id(fd);
	check(id2 != id1 && id2 != id0, "CONTENT_ID changed on load (%llu -> %llu)",
	      (unsigned long long)id1, (unsigned long long)id2);
	check(count_matches(fd, &f) == n_mod, "its %d tags are back", n_mod);

	/* GET_NEXT across a module change does not fault and ends */
	memset(&at, 0, sizeof(at));
	at.filter = f;
	ret = xioctl(fd, ALLOCINFO_IOC_GET_AT, &at);
	ret = ret ? ret : mod_unload();
	ret = ret ? ret : mod_load(ko);
	while (!ret && steps < 100000) {
		ret = xioctl(fd, ALLOCINFO_IOC_GET_NEXT, &d);
		steps++;
	}
	check(ret == -ENOENT, "GET_NEXT after an unload/load under it ends with ENOENT (%d steps)",
	      steps);
	check(count_matches(fd, &f) == n_mod, "module loaded again with %d tags", n_mod);
	check(count_traced(fd) == 0, "no tag traced afterwards");
	close(fd);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ formats */

static const char *const fmt_hit =
	"name: alloc_tag_hit\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:struct alloc_tag * tag;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] modname;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] filename;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] function;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int lineno;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"tag %p, module: %s, filename: %s, function %s, lineno %u\", REC->tag, "
	"__get_str(modname), __get_str(filename), __get_str(function), REC->lineno\n";

static const char *const fmt_mem =
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:const void * ptr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:struct alloc_tag * tag;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"ptr %p, tag %p, bytes %zu\", REC->ptr, REC->tag, REC->bytes\n";

/* The format file without its "ID: n" line. */
static char *format_without_id(const char *event)
{
	char path[256], *s, *id, *nl;

	snprintf(path, sizeof(path), TRACEFS "/events/alloc_tag/%s/format", event);
	s = read_file(path);
	if (!s)
		return NULL;
	id = strstr(s, "\nID: ");
	if (id && (nl = strchr(id + 1, '\n')))
		memmove(id + 1, nl + 1, strlen(nl + 1) + 1);
	return s;
}

static int cmd_formats(void)
{
	const char *mem[] = { "alloc_tag_mem_alloced", "alloc_tag_mem_freed" };
	char *s, expect[2048];
	size_t i;

	s = format_without_id("alloc_tag_hit");
	check(s && !strcmp(s, fmt_hit), "alloc_tag_hit format is the expected one");
	if (s && strcmp(s, fmt_hit))
		printf("# got:\n%s", s);
	free(s);
	for (i = 0; i < 2; i++) {
		snprintf(expect, sizeof(expect), "name: %s\n%s", mem[i], fmt_mem);
		s = format_without_id(mem[i]);
		check(s && !strcmp(s, expect), "%s format is the expected one", mem[i]);
		if (s && strcmp(s, expect))
			printf("# got:\n%s", s);
		free(s);
	}
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ events */

struct instance {
	char name[64];
	char dir[256];
};

static void inst_path(const struct instance *in, char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/%s", in->dir, file);
}

static void inst_write(const struct instance *in, const char *file, const char *val)
{
	char path[512];

	inst_path(in, path, sizeof(path), file);
	must_write(path, val);
}

static void inst_create(struct instance *in, bool stacks)
{
	snprintf(in->name, sizeof(in->name), "atag-vm-probe-%d", (int)getpid());
	snprintf(in->dir, sizeof(in->dir), TRACEFS "/instances/%s", in->name);
	if (mkdir(in->dir, 0755))
		die("mkdir %s", in->dir);
	inst_write(in, "buffer_size_kb", "2048");
	inst_write(in, "options/hash-ptr", "0");
	inst_write(in, "events/alloc_tag/enable", "1");
	if (stacks)
		inst_write(in, "events/alloc_tag/alloc_tag_hit/trigger", "stacktrace");
	inst_write(in, "tracing_on", "1");
}

static char *inst_stop_and_read(struct instance *in)
{
	char path[512];

	inst_write(in, "tracing_on", "0");
	inst_path(in, path, sizeof(path), "trace");
	return read_file(path);
}

static void inst_remove(struct instance *in)
{
	char path[512];

	inst_path(in, path, sizeof(path), "events/alloc_tag/alloc_tag_hit/trigger");
	write_file(path, "!stacktrace");
	inst_write(in, "events/alloc_tag/enable", "0");
	if (rmdir(in->dir))
		die("rmdir %s", in->dir);
}

enum ev_type { EV_HIT, EV_ALLOC, EV_FREE, EV_STACK, EV_MARK };

struct event {
	enum ev_type type;
	int pid;
	unsigned long long tag, ptr, bytes;
	char function[128], modname[64];
	unsigned int lineno;
	char *stack;		/* for EV_STACK: the " => " lines */
};

struct events {
	struct event *v;
	size_t n;
	char *text;		/* the trace, cut into lines by parse_trace() */
};

static int line_pid(const char *line, const char *colon)
{
	const char *bracket = strstr(line, " [");
	const char *dash;

	if (!bracket || bracket > colon)
		return -1;
	for (dash = bracket; dash > line && *dash != '-'; dash--)
		;
	return *dash == '-' ? atoi(dash + 1) : -1;
}

static void parse_trace(char *text, struct events *evs)
{
	char *line, *save = NULL;
	size_t cap = 1024;
	struct event *cur_stack = NULL;

	evs->n = 0;
	evs->v = calloc(cap, sizeof(*evs->v));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct event e = { 0 };
		char *p;

		if (line[0] == '#')
			continue;
		if (!strncmp(line, " => ", 4)) {
			if (cur_stack) {
				size_t old = cur_stack->stack ? strlen(cur_stack->stack) : 0;

				cur_stack->stack = realloc(cur_stack->stack, old + strlen(line) + 2);
				cur_stack->stack[old] = '\0';
				strcat(cur_stack->stack, line + 4);
				strcat(cur_stack->stack, "\n");
			}
			continue;
		}
		cur_stack = NULL;
		if ((p = strstr(line, ": alloc_tag_hit: "))) {
			e.type = EV_HIT;
			if (sscanf(p, ": alloc_tag_hit: tag %llx, module: %63[^,], filename: %*[^,], "
				   "function %127[^,], lineno %u", &e.tag, e.modname, e.function,
				   &e.lineno) != 4)
				continue;
		} else if ((p = strstr(line, ": alloc_tag_mem_alloced: "))) {
			e.type = EV_ALLOC;
			if (sscanf(p, ": alloc_tag_mem_alloced: ptr %llx, tag %llx, bytes %llu",
				   &e.ptr, &e.tag, &e.bytes) != 3)
				continue;
		} else if ((p = strstr(line, ": alloc_tag_mem_freed: "))) {
			e.type = EV_FREE;
			if (sscanf(p, ": alloc_tag_mem_freed: ptr %llx, tag %llx, bytes %llu",
				   &e.ptr, &e.tag, &e.bytes) != 3)
				continue;
		} else if ((p = strstr(line, ": <stack trace>"))) {
			e.type = EV_STACK;
		} else if ((p = strstr(line, ": atag-vm: "))) {
			e.type = EV_MARK;
		} else {
			continue;
		}
		e.pid = line_pid(line, p);
		if (evs->n == cap) {
			cap *= 2;
			evs->v = realloc(evs->v, cap * sizeof(*evs->v));
		}
		evs->v[evs->n++] = e;
		if (e.type == EV_STACK)
			cur_stack = &evs->v[evs->n - 1];
	}
}

/* The first @n lines of the trace after its header, as comments in the log. */
static void print_head(const char *text, int n)
{
	const char *p = text, *nl;

	while (n > 0 && *p && (nl = strchr(p, '\n'))) {
		if (*p != '#') {
			printf("# | %.*s\n", (int)(nl - p), p);
			n--;
		}
		p = nl + 1;
	}
}

/*
 * Stop the instance, read its trace, remove it; log the first @head lines of
 * the trace and parse it into @evs.
 */
static void inst_collect(struct instance *in, struct events *evs, int head)
{
	char *text = inst_stop_and_read(in);

	inst_remove(in);
	if (!text)
		die("read trace");
	print_head(text, head);
	parse_trace(text, evs);
	evs->text = text;
}

static void events_free(struct events *evs)
{
	size_t i;

	for (i = 0; i < evs->n; i++)
		free(evs->v[i].stack);
	free(evs->v);
	free(evs->text);
}

/* One line of /proc/atag_test: "KIND PTR BYTES ADDRESS"; ptr 0 for "-". */
struct held {
	char kind[24];
	unsigned long long ptr, addr;
	unsigned long bytes;
};

static size_t read_held(struct held *h, size_t max)
{
	char *s = read_file(TEST_PROC), *line, *save = NULL, ptr[32];
	size_t n = 0;

	if (!s)
		die("read %s", TEST_PROC);
	for (line = strtok_r(s, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%23s %31s %lu %llx", h[n].kind, ptr, &h[n].bytes, &h[n].addr) != 4)
			continue;
		h[n].ptr = strcmp(ptr, "-") ? strtoull(ptr, NULL, 16) : 0;
		n++;
	}
	free(s);
	return n;
}

/*
 * What the alloc_tag events of one tag report: from /proc/atag_test_counts,
 * as the test module predicts them from what it did, or tallied from a trace.
 */
struct tally {
	unsigned long long allocs, alloc_bytes, frees, free_bytes, unmatched, partial;
};

static void tally_print(const char *what, const struct tally *t)
{
	printf("# %s: %llu allocs (%llu bytes), %llu frees (%llu bytes), %llu unmatched, "
	       "%llu partial\n", what, t->allocs, t->alloc_bytes, t->frees, t->free_bytes,
	       t->unmatched, t->partial);
}

static struct tally tally_sub(struct tally a, const struct tally *b)
{
	a.allocs -= b->allocs;
	a.alloc_bytes -= b->alloc_bytes;
	a.frees -= b->frees;
	a.free_bytes -= b->free_bytes;
	a.unmatched -= b->unmatched;
	a.partial -= b->partial;
	return a;
}

static struct tally module_counts(const char *kind)
{
	char *s = read_file(TEST_PROC "_counts"), *line, *save = NULL, k[24];
	struct tally t = { 0 };

	if (!s)
		die("read %s_counts", TEST_PROC);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%23s allocs %llu alloc_bytes %llu frees %llu free_bytes %llu "
			   "unmatched %llu partial %llu", k, &t.allocs, &t.alloc_bytes, &t.frees,
			   &t.free_bytes, &t.unmatched, &t.partial) == 7 && !strcmp(k, kind))
			break;
	if (!line)
		die("no line for %s in %s_counts", kind, TEST_PROC);
	free(s);
	return t;
}

/*
 * The alloc and free events of @tag in the trace: each free matched by ptr
 * with the latest allocation of the tag not freed yet; unmatched if there is
 * none, partial if it frees fewer bytes.
 */
static struct tally tally_events(const struct events *evs, unsigned long long tag)
{
	struct { unsigned long long ptr, bytes; } *open = calloc(evs->n + 1, sizeof(*open));
	struct tally t = { 0 };
	size_t i, j, nopen = 0;

	for (i = 0; i < evs->n; i++) {
		const struct event *e = &evs->v[i];

		if (e->tag != tag)
			continue;
		if (e->type == EV_ALLOC) {
			t.allocs++;
			t.alloc_bytes += e->bytes;
			open[nopen].ptr = e->ptr;
			open[nopen++].bytes = e->bytes;
		} else if (e->type == EV_FREE) {
			t.frees++;
			t.free_bytes += e->bytes;
			for (j = nopen; j-- > 0 && open[j].ptr != e->ptr;)
				;
			if (j == (size_t)-1) {
				t.unmatched++;
				continue;
			}
			if (e->bytes < open[j].bytes)
				t.partial++;
			open[j] = open[--nopen];
		}
	}
	free(open);
	return t;
}

/*
 * The alloc/free events of one tag: each ptr alternates alloced, freed, ...;
 * returns the bytes still allocated at the end, -1 on a broken sequence.
 */
static long long pair_events(const struct events *evs, unsigned long long tag, size_t from,
			     size_t to, size_t *nalloc, size_t *nfree, bool verbose)
{
	long long outstanding = 0;
	size_t i, j;
	bool broken = false;

	*nalloc = *nfree = 0;
	for (i = from; i < to; i++) {
		const struct event *e = &evs->v[i];

		if (e->tag != tag || (e->type != EV_ALLOC && e->type != EV_FREE))
			continue;
		if (e->type == EV_ALLOC) {
			(*nalloc)++;
			outstanding += e->bytes;
			continue;
		}
		(*nfree)++;
		outstanding -= e->bytes;
		/* the latest event for this ptr before it must be an alloc of the same size */
		for (j = i; j-- > from;) {
			const struct event *p = &evs->v[j];

			if (p->tag != tag || p->ptr != e->ptr ||
			    (p->type != EV_ALLOC && p->type != EV_FREE))
				continue;
			if (p->type != EV_ALLOC || p->bytes != e->bytes) {
				if (verbose)
					printf("# ptr %llx freed (%llu) after %s of %llu\n", e->ptr,
					       e->bytes, p->type == EV_ALLOC ? "alloc" : "free",
					       p->bytes);
				broken = true;
			}
			break;
		}
		if (j == (size_t)-1 || j < from) {
			if (verbose)
				printf("# ptr %llx freed without an allocation\n", e->ptr);
			broken = true;
		}
	}
	return broken ? -1 : outstanding;
}

static const char *kind_function(const char *kind)
{
	static const char *const fns[][2] = {
		{ "slab", "atag_test_slab_alloc" },
		{ "large", "atag_test_large_alloc" },
		{ "long", "atag_test_function_with_a_deliberately_long_name_to_check_suffix_match" },
		{ "page", "atag_test_page_alloc" },
		{ "percpu", "atag_test_percpu_alloc" },
		{ "split", "atag_test_split_alloc" },
		{ "pinned", "atag_test_pinned_alloc" },
		{ "migrate", "atag_test_migrate_alloc" },
		{ "migration_target", "atag_test_migration_target_alloc" },
	};
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(kind, fns[i][0]))
			return fns[i][1];
	return NULL;
}

/* Is the stack line @frame the function @fn ("fn", "fn+0x..", "fn [module]")? */
static bool frame_is(const char *frame, const char *fn)
{
	size_t len = strlen(fn);

	return !strncmp(frame, fn, len) && strchr(" +\n", frame[len]);
}

/*
 * The first frames of a stack the stacktrace trigger on alloc_tag_hit
 * recorded: the event's own function, the out-of-line hook, then @fn.
 */
static bool hit_stack_ok(const char *stack, const char *fn)
{
	const char *want[] = { "trace_event_raw_event_alloc_tag_hit", "__alloc_tag_trace_hit", fn };
	const char *p = stack;
	size_t i;

	for (i = 0; i < 3; i++) {
		if (!p || !frame_is(p, want[i]))
			return false;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return true;
}

#define MAX_TAGS 2

/*
 * Trace the test module's call site(s) of KIND while it allocates ARG COUNT,
 * then while it frees everything.  Migration involves two tags, that of the
 * migrated page and that of the target page; both are traced.  What the
 * events say is compared with what the module did (/proc/atag_test_counts,
 * /proc/atag_test) and with /proc/allocinfo's counters.
 */
static int cmd_events(const char *kind, const char *arg, const char *count)
{
	const char *kinds[MAX_TAGS] = { kind, "migration_target" };
	const char *fns[MAX_TAGS];
	struct allocinfo_tag_data before[MAX_TAGS], during[MAX_TAGS], after[MAX_TAGS];
	struct tally mod0[MAX_TAGS], mod[MAX_TAGS], ev;
	unsigned long long tag[MAX_TAGS] = { 0 }, held_bytes;
	struct allocinfo_filter f[MAX_TAGS];
	struct instance in;
	struct events evs;
	struct held held[256];
	size_t nheld, i, j, mark = 0, nhit, nstack, unaccounted = 0;
	int fd = allocinfo_open(), ret, n = atoi(count), ntags, t;
	char cmd[64];
	bool all_ok, percpu = !strcmp(kind, "percpu");

	fns[0] = kind_function(kind);
	fns[1] = kind_function(kinds[1]);
	ntags = !strcmp(kind, "migrate") ? 2 : 1;
	if (!fns[0]) {
		printf("not ok - unknown kind %s\n", kind);
		return 1;
	}
	if (!exists(TEST_PROC)) {
		printf("not ok - %s is not loaded\n", TEST_MOD);
		return 1;
	}
	for (t = 0; t < ntags; t++) {
		ret = get_one(fd, TEST_MOD, fns[t], &before[t]);
		check(!ret, "tag of %s found (%s)", fns[t], strerror(-ret));
		if (ret)
			return 1;
		mod0[t] = module_counts(kinds[t]);
	}

	inst_create(&in, true);
	for (t = 0; t < ntags; t++) {
		f[t] = filter_function(fns[t]);
		f[t].mask |= ALLOCINFO_FILTER_MASK_MODNAME;
		set_str(f[t].fields.modname, TEST_MOD);
		ret = toggle(fd, &f[t], 1);
		check(!ret, "trace on for %s (%s)", fns[t], strerror(-ret));
	}

	snprintf(cmd, sizeof(cmd), "%s %s %s", kind, arg, count);
	ret = write_file(TEST_PROC, cmd);
	check(!ret, "'%s' > %s (%s)", cmd, TEST_PROC, strerror(-ret));
	nheld = read_held(held, 256);
	for (t = 0; t < ntags; t++)
		get_one(fd, TEST_MOD, fns[t], &during[t]);
	inst_write(&in, "trace_marker", "atag-vm: free");
	ret = write_file(TEST_PROC, "free");
	check(!ret, "'free' > %s", TEST_PROC);

	for (t = 0; t < ntags; t++)
		toggle(fd, &f[t], 0);
	check(count_traced(fd) == 0, "trace off again");
	inst_collect(&in, &evs, 24);
	for (mark = 0; mark < evs.n && evs.v[mark].type != EV_MARK; mark++)
		;
	check(mark < evs.n, "trace marker found between allocation and free");

	for (t = 0; t < ntags; t++) {
		const char *fn = fns[t];

		get_one(fd, TEST_MOD, fn, &after[t]);
		mod[t] = tally_sub(module_counts(kinds[t]), &mod0[t]);
		nhit = nstack = 0;
		for (i = 0; i < evs.n; i++) {
			const struct event *e = &evs.v[i];

			if (e->type != EV_HIT || strcmp(e->function, fn))
				continue;
			nhit++;
			if (!tag[t])
				tag[t] = e->tag;
			/* the stack recorded by the trigger follows on the same pid */
			for (j = i + 1; j < evs.n && j < i + 4; j++)
				if (evs.v[j].type == EV_STACK && evs.v[j].pid == e->pid) {
					if (evs.v[j].stack && hit_stack_ok(evs.v[j].stack, fn))
						nstack++;
					else if (nstack == 0 && evs.v[j].stack)
						printf("# stack of a hit of %s:\n%s", fn, evs.v[j].stack);
					break;
				}
		}
		check(nhit == (size_t)n, "%zu alloc_tag_hit events for %s (want %d)", nhit, fn, n);
		check(nstack == nhit, "%zu of them followed by a kernel stack "
		      "trace_event_raw_event_alloc_tag_hit, __alloc_tag_trace_hit, %s", nstack, fn);
		all_ok = nhit > 0;
		for (i = 0; i < evs.n; i++) {
			const struct event *e = &evs.v[i];

			if (e->type == EV_HIT && !strcmp(e->function, fn) &&
			    (e->tag != tag[t] || strcmp(e->modname, TEST_MOD) ||
			     e->lineno != before[t].tag.lineno))
				all_ok = false;
		}
		check(all_ok, "hit events carry tag %llx, module %s, line %llu", tag[t], TEST_MOD,
		      (unsigned long long)before[t].tag.lineno);
		/* the hit comes before the allocation it announces */
		for (i = 0; i < evs.n; i++)
			if (evs.v[i].tag == tag[t] &&
			    (evs.v[i].type == EV_HIT || evs.v[i].type == EV_ALLOC))
				break;
		check(i < evs.n && evs.v[i].type == EV_HIT, "the first event of the tag is a hit");

		/* no event where pages are split, migrated or partly freed */
		ev = tally_events(&evs, tag[t]);
		tally_print("the module did", &mod[t]);
		tally_print("the events say", &ev);
		check(!memcmp(&ev, &mod[t], sizeof(ev)),
		      "%s: the alloced and freed events are what the module did: allocations, "
		      "frees, bytes, unmatched and partial frees", kinds[t]);

		held_bytes = 0;
		for (i = 0; i < nheld; i++)
			if (!strcmp(held[i].kind, kinds[t]) && held[i].ptr)
				held_bytes += held[i].bytes;
		check(during[t].counter.bytes - before[t].counter.bytes == held_bytes,
		      "%s: counter increase while held (%llu) = the bytes the module holds (%llu)",
		      kinds[t], (unsigned long long)(during[t].counter.bytes - before[t].counter.bytes),
		      held_bytes);
		check(after[t].counter.bytes == before[t].counter.bytes &&
		      after[t].counter.calls == before[t].counter.calls,
		      "%s: counters back to where they were (%llu bytes, %llu calls)", kinds[t],
		      (unsigned long long)after[t].counter.bytes,
		      (unsigned long long)after[t].counter.calls);
	}

	/*
	 * The events name the memory as the module computes it: the address of
	 * the codetag_ref (slab, per-CPU) or the head struct page (pages), not
	 * the object's address.  Everything the module held is freed after the
	 * marker, under the tag it is charged to, with that ptr and its bytes.
	 */
	all_ok = nheld > 0;
	for (i = 0; i < nheld; i++) {
		bool seen = false;

		if (!held[i].ptr) {
			unaccounted++;
			continue;
		}
		t = strcmp(held[i].kind, kinds[0]) ? 1 : 0;
		for (j = mark; j < evs.n && !seen; j++)
			seen = evs.v[j].type == EV_FREE && evs.v[j].tag == tag[t] &&
			       evs.v[j].ptr == held[i].ptr && evs.v[j].bytes == held[i].bytes;
		if (!seen || held[i].ptr == held[i].addr) {
			printf("# %s ptr %llx (memory at %llx, %lu bytes): %s\n", held[i].kind,
			       held[i].ptr, held[i].addr, held[i].bytes,
			       seen ? "the object address" : "no freed event");
			all_ok = false;
		}
	}
	if (percpu)
		printf("# %zu of %zu per-CPU allocations were in the first chunk (not accounted)\n",
		       unaccounted, nheld);
	check(all_ok && unaccounted < nheld,
	      "the %zu accounted allocations %s held were freed with the ptr it computes "
	      "(codetag_ref or struct page, not the object's address) and their bytes",
	      nheld - unaccounted, TEST_MOD);

	events_free(&evs);
	close(fd);
	return failures ? 1 : 0;
}

/* Built-in call sites on a syscall path: pipe(2) and write(2) in fs/pipe.c. */
static int cmd_events_pipe(void)
{
	struct allocinfo_filter f = { .mask = ALLOCINFO_FILTER_MASK_FILENAME |
					      ALLOCINFO_FILTER_MASK_MODNAME };
	const char *fns[] = { "alloc_pipe_info", "pipe_write" };
	struct instance in;
	struct events evs;
	int fd = allocinfo_open(), ret, i, me = getpid();
	size_t k, j, nalloc, nfree;
	char buf[4096];

	set_str(f.fields.filename, "fs/pipe.c");
	inst_create(&in, true);
	for (i = 0; i < 2; i++) {
		struct allocinfo_filter ff = f;

		ff.mask |= ALLOCINFO_FILTER_MASK_FUNCTION;
		set_str(ff.fields.function, fns[i]);
		ret = toggle(fd, &ff, 1);
		check(!ret, "trace on for fs/pipe.c %s (%s)", fns[i], strerror(-ret));
	}
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < 5; i++) {
		int p[2];

		if (pipe(p))
			die("pipe");
		if (write(p[1], buf, sizeof(buf)) != sizeof(buf) ||
		    write(p[1], buf, sizeof(buf)) != sizeof(buf))
			die("write pipe");
		close(p[0]);
		close(p[1]);
	}
	f.mask = ALLOCINFO_FILTER_MASK_TRACE_ON;
	f.tracing = 1;
	ret = toggle(fd, &f, 0);
	check(!ret && count_traced(fd) == 0, "trace off again");
	inst_collect(&in, &evs, 16);

	for (i = 0; i < 2; i++) {
		unsigned long long tags[4] = { 0 };
		size_t ntags = 0, nhit = 0, nstack = 0;
		long long left = 0;
		bool broken = false;

		for (k = 0; k < evs.n; k++) {
			const struct event *e = &evs.v[k];

			if (e->type != EV_HIT || strcmp(e->function, fns[i]) || e->pid != me)
				continue;
			nhit++;
			for (j = 0; j < ntags && tags[j] != e->tag; j++)
				;
			if (j == ntags && ntags < 4)
				tags[ntags++] = e->tag;
			if (k + 1 < evs.n && evs.v[k + 1].type == EV_STACK && evs.v[k + 1].stack &&
			    strstr(evs.v[k + 1].stack, fns[i]))
				nstack++;
		}
		check(nhit >= 5, "%zu alloc_tag_hit events for %s from pid %d", nhit, fns[i], me);
		check(nstack == nhit, "%zu with a kernel stack through %s", nstack, fns[i]);
		for (j = 0; j < ntags; j++) {
			long long l = pair_events(&evs, tags[j], 0, evs.n, &nalloc, &nfree, true);

			if (l < 0)
				broken = true;
			else
				left += l;
			printf("# %s tag %llx: %zu alloced, %zu freed\n", fns[i], tags[j], nalloc,
			       nfree);
		}
		check(ntags > 0 && !broken, "%s: every freed ptr pairs with an alloced one", fns[i]);
		(void)left;
	}
	/* every allocation our pid made through those tags was freed with the same ptr */
	{
		size_t unpaired = 0, nours = 0;

		for (k = 0; k < evs.n; k++) {
			const struct event *e = &evs.v[k];

			if (e->type != EV_ALLOC || e->pid != me)
				continue;
			nours++;
			for (j = k + 1; j < evs.n; j++)
				if (evs.v[j].ptr == e->ptr && evs.v[j].tag == e->tag &&
				    (evs.v[j].type == EV_FREE || evs.v[j].type == EV_ALLOC))
					break;
			if (j == evs.n || evs.v[j].type != EV_FREE || evs.v[j].bytes != e->bytes)
				unpaired++;
		}
		check(nours >= 20 && !unpaired,
		      "the %zu allocations of pid %d were freed with the same ptr and bytes "
		      "(%zu not)", nours, me, unpaired);
	}
	events_free(&evs);
	close(fd);
	return failures ? 1 : 0;
}

/* A workload with known allocations on fs/pipe.c call sites, for the commands' checks. */
static int cmd_pipes(int n, const char *out)
{
	int (*p)[2] = calloc(n, sizeof(*p));
	char buf[4096], *text, *line, *save = NULL;
	FILE *f = fopen(out, "w");
	int i;

	/* not to stdout: a write into a pipe would allocate through pipe_write */
	if (!f)
		die("open %s", out);
	if (!p || n <= 0)
		return 2;
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < n; i++) {
		if (pipe(p[i]))
			die("pipe");
		if (write(p[i][1], buf, sizeof(buf)) != sizeof(buf) ||
		    write(p[i][1], buf, sizeof(buf)) != sizeof(buf))
			die("write pipe");
	}
	text = read_file(ALLOCINFO);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (strstr(line, " fs/pipe.c:"))
			fprintf(f, "%s\n", line);
	free(text);
	fclose(f);
	for (i = 0; i < n; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
	free(p);
	return 0;
}

/* ------------------------------------------------------------------ memusage */

static const char *const mem_keys[] = {
	"global", "instances", "snapshots", "persistents", "remotes",
	"total_system", "total_carveout",
};

/* Page memory of a trace array's main buffer, from its per-CPU buffer_size_kb. */
static long long buffer_kb(const char *dir, int *ncpus)
{
	char path[512];
	long subbuf_kb, cap, kb;
	long long total = 0;
	int cpu;

	snprintf(path, sizeof(path), "%s/buffer_subbuf_size_kb", dir);
	subbuf_kb = read_long(path);
	if (subbuf_kb <= 0)
		subbuf_kb = 4;
	cap = subbuf_kb * 1024 - 16;	/* the sub-buffer header */
	*ncpus = 0;
	for (cpu = 0; cpu < 4096; cpu++) {
		long nr;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/buffer_size_kb", dir, cpu);
		if (!exists(path))
			break;
		kb = read_long(path);
		nr = (kb * 1024 + cap - 1) / cap;
		if (nr < 2)
			nr = 2;
		total += (nr + 1) * subbuf_kb;
		(*ncpus)++;
	}
	return total;
}

static bool snapshot_allocated(const char *dir)
{
	char path[512], *s;
	bool ret;

	snprintf(path, sizeof(path), "%s/snapshot", dir);
	s = read_file(path);
	ret = s && strstr(s, "Snapshot is allocated");
	free(s);
	return ret;
}

static int cmd_memusage(long carveout_kb)
{
	long long want[7] = { 0 }, got[7];
	char *s, *line, *save = NULL, path[512];
	int nlines = 0, ncpus, i;
	DIR *d;
	struct dirent *de;
	bool order_ok = true;

	s = read_file(TRACEFS "/trace_stats/memory_usage_kb");
	check(s != NULL, "read trace_stats/memory_usage_kb");
	if (!s)
		return 1;
	printf("# memory_usage_kb:\n");
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[64];
		long long v;

		printf("#   %s\n", line);
		if (nlines >= 7 || sscanf(line, "%63[^:]: %lld", key, &v) != 2 ||
		    strcmp(key, mem_keys[nlines])) {
			order_ok = false;
			continue;
		}
		got[nlines++] = v;
	}
	free(s);
	check(order_ok && nlines == 7, "seven 'name: value' lines in the documented order");
	if (nlines != 7)
		return 1;

	/*
	 * top level, and temp_buffer: ring_buffer_alloc(PAGE_SIZE) keeps its
	 * minimum of 2 data pages, plus the reader page, on every CPU
	 */
	want[0] = buffer_kb(TRACEFS, &ncpus);
	want[2] += snapshot_allocated(TRACEFS) ? want[0] : ncpus * 3 * 4;
	want[0] += ncpus * 3 * 4;
	/* instances */
	d = opendir(TRACEFS "/instances");
	while (d && (de = readdir(d))) {
		long long kb;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), TRACEFS "/instances/%s", de->d_name);
		kb = buffer_kb(path, &ncpus);
		snprintf(path, sizeof(path), TRACEFS "/instances/%s/last_boot_info", de->d_name);
		if (exists(path)) {
			want[3] += kb;
			printf("# persistent instance %s: %lld KiB\n", de->d_name, kb);
			continue;
		}
		want[1] += kb;
		snprintf(path, sizeof(path), TRACEFS "/instances/%s", de->d_name);
		want[2] += snapshot_allocated(path) ? kb : ncpus * 3 * 4;
	}
	if (d)
		closedir(d);
	want[4] = 0;		/* remote buffers are not enumerated */
	want[5] = want[0] + want[1] + want[2] + want[4];
	want[6] = want[3];
	for (i = 0; i < 7; i++)
		check(got[i] == want[i], "%s: %lld KiB, computed from the buffer files %lld KiB",
		      mem_keys[i], got[i], want[i]);
	check(want[3] <= carveout_kb, "the persistent buffers (%lld KiB) fit the reserved %ld KiB",
	      want[3], carveout_kb);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ hooks */

/* Is @name a symbol of /proc/kallsyms (any type, built-in)? */
static bool has_symbol(const char *kallsyms, const char *name)
{
	const char *p = kallsyms;
	size_t len = strlen(name);

	while ((p = strstr(p, name))) {
		/* "ADDRESS TYPE NAME\n": preceded by " X ", followed by the end of line */
		if (p - kallsyms >= 3 && p[-1] == ' ' && p[-3] == ' ' && p[len] == '\n')
			return true;
		p += len;
	}
	return false;
}

/*
 * The hooks are the series' functions, and the hit fires inside the check
 * that profiling is enabled: with vm.mem_profiling = 0 a traced call site
 * emits nothing at all.
 */
static int cmd_hooks(void)
{
	const char *fn = "atag_test_slab_alloc";
	struct allocinfo_filter f = filter_function(fn);
	char *ks = read_file("/proc/kallsyms");
	size_t i, hit[2] = { 0 }, alloced[2] = { 0 }, freed[2] = { 0 };
	bool marked = false;
	struct allocinfo_tag_data d;
	struct instance in;
	struct events evs;
	int fd = allocinfo_open(), ret;

	if (!ks)
		die("read /proc/kallsyms");
	check(has_symbol(ks, "__alloc_tag_trace_hit"), "__alloc_tag_trace_hit is a kernel function");
	check(has_symbol(ks, "alloc_tag_trace_mem_alloc") && has_symbol(ks, "alloc_tag_trace_mem_free"),
	      "alloc_tag_trace_mem_alloc and alloc_tag_trace_mem_free are kernel functions");
	check(!has_symbol(ks, "alloc_tag_trace_hit"),
	      "alloc_tag_trace_hit is inline (no symbol): it only tests the key");
	free(ks);

	ret = get_one(fd, TEST_MOD, fn, &d);
	check(!ret, "tag of %s found (%s)", fn, strerror(-ret));
	if (ret)
		return 1;
	f.mask |= ALLOCINFO_FILTER_MASK_MODNAME;
	set_str(f.fields.modname, TEST_MOD);
	inst_create(&in, false);
	ret = toggle(fd, &f, 1);
	check(!ret, "trace on for %s (%s)", fn, strerror(-ret));
	ret = write_file("/proc/sys/vm/mem_profiling", "0");
	check(!ret, "vm.mem_profiling = 0 (%s)", strerror(-ret));
	ret = write_file(TEST_PROC, "slab 64 2");
	/* at once: the rest of the system needs its profiling back */
	if (write_file("/proc/sys/vm/mem_profiling", "1"))
		die("vm.mem_profiling = 1");
	check(!ret, "'slab 64 2' with profiling disabled (%s)", strerror(-ret));
	inst_write(&in, "trace_marker", "atag-vm: profiling enabled");
	ret = write_file(TEST_PROC, "slab 64 1");
	check(!ret, "'slab 64 1' with profiling enabled (%s)", strerror(-ret));
	write_file(TEST_PROC, "free");
	toggle(fd, &f, 0);
	inst_collect(&in, &evs, 12);
	for (i = 0; i < evs.n; i++) {
		const struct event *e = &evs.v[i];

		if (e->type == EV_MARK)
			marked = true;
		if (e->type == EV_HIT && !strcmp(e->function, fn))
			hit[marked]++;
		if (e->type == EV_ALLOC)
			alloced[marked]++;
		if (e->type == EV_FREE)
			freed[marked]++;
	}
	check(marked, "trace marker found");
	check(!hit[0] && !alloced[0] && !freed[0],
	      "profiling disabled: no hit, alloced or freed event (%zu, %zu, %zu)", hit[0],
	      alloced[0], freed[0]);
	check(hit[1] == 1 && alloced[1] == 1 && freed[1] == 1,
	      "profiling enabled: 1 hit, 1 alloced, 1 freed (%zu, %zu, %zu); the 2 objects "
	      "allocated before were never accounted", hit[1], alloced[1], freed[1]);
	events_free(&evs);
	close(fd);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ remote */

#define REMOTE		TRACEFS "/remotes/" TEST_MOD

/* The test module's line about its remote: loads, unloads, tracing, cpus, pages. */
struct remote_counts {
	unsigned long loads, unloads, pages;
	int tracing;
	unsigned int cpus;
};

static struct remote_counts remote_counts(void)
{
	char *s = read_file(TEST_PROC "_counts"), *line;
	struct remote_counts c = { 0 };

	line = s ? strstr(s, "\nremote ") : NULL;
	if (!line || sscanf(line, "\nremote loads %lu unloads %lu tracing %d cpus %u pages %lu",
			    &c.loads, &c.unloads, &c.tracing, &c.cpus, &c.pages) != 5)
		die("no remote line in %s_counts", TEST_PROC);
	free(s);
	return c;
}

/* Bytes /proc/allocinfo counts for the pages trace_remote_alloc_buffer() allocates. */
static unsigned long long remote_page_bytes(int fd)
{
	struct allocinfo_tag_data d;
	int ret = get_one(fd, "", "trace_remote_alloc_page", &d);

	if (ret)
		die("the tag of trace_remote_alloc_page");
	return d.counter.bytes;
}

static char *read_mem_usage(void)
{
	char *s = read_file(TRACEFS "/trace_stats/memory_usage_kb");

	if (!s)
		die("read memory_usage_kb");
	return s;
}

static bool file_is(const char *path, const char *want)
{
	char *s = read_file(path);
	bool ok = s && !strcmp(s, want);

	if (!ok)
		printf("# %s: '%s', want '%s'\n", path, s ? s : "(unreadable)", want);
	free(s);
	return ok;
}

/* Pages of a remote buffer of @kb KiB per CPU: data pages (at least 2), reader, meta. */
static unsigned long remote_pages(unsigned long kb)
{
	unsigned long data = (kb * 1024 + 4095) / 4096;

	return (data < 2 ? 2 : data) + 1 + 1;
}

/*
 * The trace remote the test module registers, with a buffer on one CPU:
 * tracing_on and buffer_size_kb, the buffer allocated when tracing starts and
 * freed when it stops, counted in no row of memory_usage_kb (remotes are not
 * enumerated: 0).
 */
static int cmd_remote(void)
{
	int fd = allocinfo_open(), ncpu_possible = 0, ret;
	unsigned long long b0 = remote_page_bytes(fd), b;
	struct remote_counts c0 = remote_counts(), c;
	char *mem0 = read_mem_usage(), *mem, *possible;
	unsigned int lo, hi;

	possible = read_file("/sys/devices/system/cpu/possible");
	if (possible && sscanf(possible, "%u-%u", &lo, &hi) == 2)
		ncpu_possible = hi - lo + 1;
	else if (possible)
		ncpu_possible = 1;
	free(possible);
	printf("# %d possible CPUs; memory_usage_kb:\n%s", ncpu_possible, mem0);

	check(exists(REMOTE), "%s exists", REMOTE);
	check(file_is(REMOTE "/tracing_on", "0\n"), "tracing_on: 0");
	check(file_is(REMOTE "/buffer_size_kb", "7 (unloaded)\n"), "buffer_size_kb: 7 (unloaded)");

	ret = write_file(REMOTE "/tracing_on", "1");
	check(!ret, "tracing_on = 1 (%s)", strerror(-ret));
	c = remote_counts();
	check(file_is(REMOTE "/tracing_on", "1\n"), "tracing_on: 1");
	check(file_is(REMOTE "/buffer_size_kb", "7 (loaded)\n"), "buffer_size_kb: 7 (loaded)");
	check(c.loads == c0.loads + 1 && c.tracing == 1, "the module loaded its buffer once and "
	      "was told to trace");
	check(c.cpus == 1 && (int)c.cpus < ncpu_possible,
	      "the buffer is on %u CPU, fewer than the %d possible", c.cpus, ncpu_possible);
	check(c.pages == remote_pages(7), "7 KiB on one CPU: %lu pages (2 data, reader, meta; "
	      "want %lu)", c.pages, remote_pages(7));
	b = remote_page_bytes(fd);
	check(b - b0 == c.pages * 4096, "/proc/allocinfo: trace_remote_alloc_page holds %llu "
	      "bytes more (%lu pages)", b - b0, c.pages);
	mem = read_mem_usage();
	check(!strcmp(mem, mem0), "memory_usage_kb unchanged while loaded: remotes 0, the "
	      "remote's pages in no other row");
	if (strcmp(mem, mem0))
		printf("# now:\n%s", mem);
	free(mem);
	ret = write_file(REMOTE "/tracing_on", "1");
	check(!ret && remote_counts().loads == c.loads, "tracing_on = 1 again: no second load");

	ret = write_file(REMOTE "/tracing_on", "0");
	check(!ret, "tracing_on = 0 (%s)", strerror(-ret));
	c = remote_counts();
	check(file_is(REMOTE "/tracing_on", "0\n"), "tracing_on: 0");
	check(file_is(REMOTE "/buffer_size_kb", "7 (unloaded)\n"), "buffer_size_kb: 7 (unloaded)");
	check(c.unloads == c0.unloads + 1 && c.tracing == 0 && c.pages == 0,
	      "the module unloaded its buffer and was told to stop");
	check(remote_page_bytes(fd) == b0, "/proc/allocinfo: the pages are freed");

	ret = write_file(REMOTE "/buffer_size_kb", "16");
	check(!ret && file_is(REMOTE "/buffer_size_kb", "16 (unloaded)\n"),
	      "buffer_size_kb = 16: 16 (unloaded)");
	ret = write_file(REMOTE "/tracing_on", "1");
	c = remote_counts();
	check(!ret && file_is(REMOTE "/buffer_size_kb", "16 (loaded)\n") &&
	      c.pages == remote_pages(16) && remote_page_bytes(fd) - b0 == c.pages * 4096,
	      "16 KiB loaded: %lu pages (want %lu), all in /proc/allocinfo", c.pages,
	      remote_pages(16));
	mem = read_mem_usage();
	check(!strcmp(mem, mem0), "memory_usage_kb still unchanged");
	free(mem);
	write_file(REMOTE "/tracing_on", "0");
	check(file_is(REMOTE "/buffer_size_kb", "16 (unloaded)\n") && remote_page_bytes(fd) == b0,
	      "unloaded again, the pages freed");

	check(write_file(REMOTE "/buffer_size_kb", "0") == -EINVAL, "buffer_size_kb = 0: EINVAL");
	check(write_file(REMOTE "/buffer_size_kb", "x") == -EINVAL, "buffer_size_kb = x: EINVAL");
	check(write_file(REMOTE "/tracing_on", "x") == -EINVAL, "tracing_on = x: EINVAL");
	ret = write_file(REMOTE "/buffer_size_kb", "7");
	check(!ret && file_is(REMOTE "/buffer_size_kb", "7 (unloaded)\n") &&
	      file_is(REMOTE "/tracing_on", "0\n"), "back to 7 KiB, unloaded, not tracing");
	free(mem0);
	close(fd);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ state */

/* No tag traced, and exactly the instances named on the command line. */
static int cmd_state(int n_inst, char **inst)
{
	int fd = allocinfo_open();
	int n = count_traced(fd), i, extra = 0;
	struct dirent *de;
	DIR *d;

	check(n == 0, "no tag traced (%d)", n);
	close(fd);
	d = opendir(TRACEFS "/instances");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < n_inst && strcmp(inst[i], de->d_name); i++)
			;
		if (i == n_inst) {
			printf("# instance left: %s\n", de->d_name);
			extra++;
		}
	}
	if (d)
		closedir(d);
	check(d && !extra, "no instance left besides the %d at boot", n_inst);
	return failures ? 1 : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* The traced tags as the kernel reports them, sorted by strcmp (or just how many). */
static int cmd_traced(bool count)
{
	struct allocinfo_filter f = { .mask = ALLOCINFO_FILTER_MASK_TRACE_ON, .tracing = 1 };
	int fd = allocinfo_open(), ret;
	struct taglist l;
	char **lines;
	size_t i;

	ret = walk(fd, &f, &l);
	if (ret)
		l.n = 0;
	lines = calloc(l.n + 1, sizeof(*lines));
	for (i = 0; lines && i < l.n; i++)
		if (asprintf(&lines[i], "%s %s:%llu%s%s%s", l.v[i].tag.function,
			     l.v[i].tag.filename, (unsigned long long)l.v[i].tag.lineno,
			     l.v[i].tag.modname[0] ? " [" : "", l.v[i].tag.modname,
			     l.v[i].tag.modname[0] ? "]" : "") < 0)
			exit(2);
	if (!lines)
		exit(2);
	qsort(lines, l.n, sizeof(*lines), cmp_str);
	if (count)
		printf("%zu\n", l.n);
	for (i = 0; i < l.n; i++) {
		if (!count)
			printf("%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	free(l.v);
	close(fd);
	return ret && ret != -ENOENT ? 1 : 0;
}

/* Tracing off on every traced tag; prints how many there were. */
static int cmd_untrace(void)
{
	struct allocinfo_filter f = { .mask = ALLOCINFO_FILTER_MASK_TRACE_ON, .tracing = 1 };
	int fd = allocinfo_open(), n = count_traced(fd), ret = 0;

	if (n > 0)
		ret = toggle(fd, &f, 0);
	printf("# %d tags were traced%s\n", n, ret ? ", turning them off failed" : "");
	close(fd);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!exists(ALLOCINFO)) {
		printf("# %s missing: kernel without CONFIG_MEM_ALLOC_PROFILING\n", ALLOCINFO);
		return 77;
	}
	if (!strcmp(cmd, "ioctl"))
		return cmd_ioctl();
	if (!strcmp(cmd, "toggle"))
		return cmd_toggle();
	if (!strcmp(cmd, "eperm"))
		return cmd_eperm();
	if (!strcmp(cmd, "modules") && argc == 3)
		return cmd_modules(argv[2]);
	if (!strcmp(cmd, "modload") && argc == 3) {
		int ret = mod_load(argv[2]);

		check(!ret || ret == -EEXIST, "load %s (%s)", argv[2], strerror(-ret));
		return failures ? 1 : 0;
	}
	if (!strcmp(cmd, "modunload")) {
		int ret = mod_unload();

		check(!ret, "unload %s (%s)", TEST_MOD, strerror(-ret));
		return failures ? 1 : 0;
	}
	if (!strcmp(cmd, "formats"))
		return cmd_formats();
	if (!strcmp(cmd, "events") && argc == 5)
		return cmd_events(argv[2], argv[3], argv[4]);
	if (!strcmp(cmd, "hooks"))
		return cmd_hooks();
	if (!strcmp(cmd, "remote"))
		return cmd_remote();
	if (!strcmp(cmd, "events-pipe"))
		return cmd_events_pipe();
	if (!strcmp(cmd, "pipes") && argc == 4)
		return cmd_pipes(atoi(argv[2]), argv[3]);
	if (!strcmp(cmd, "memusage"))
		return cmd_memusage(argc > 2 ? atol(argv[2]) : 0);
	if (!strcmp(cmd, "traced"))
		return cmd_traced(argc > 2 && !strcmp(argv[2], "-c"));
	if (!strcmp(cmd, "untrace"))
		return cmd_untrace();
	if (!strcmp(cmd, "state"))
		return cmd_state(argc - 2, argv + 2);
	fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
	return 2;
}
