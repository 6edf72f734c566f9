// SPDX-License-Identifier: GPL-2.0
/*
 * The tag filter options shared by list, enable, disable and record, and the
 * messages for what /proc/allocinfo answers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-cmd.h"
#include "atag-tagopts.h"
#include "atag-utils.h"

void atag_tagopts_init(struct atag_tagopts *o)
{
	memset(o, 0, sizeof(*o));
	atag_filter_init(&o->filter);
}

void atag_tagopts_release(struct atag_tagopts *o)
{
	int i;

	for (i = 0; i < o->nr_given; i++)
		free(o->given_buf[i]);
	o->nr_given = 0;
}

/* Remember "--opt arg" for messages. */
static void note_given(struct atag_tagopts *o, const char *opt, const char *arg)
{
	char *s;

	if (o->nr_given >= ATAG_TAGOPTS_MAX)
		return;
	if (asprintf(&s, arg ? (*arg ? "--%s %s" : "--%s ''") : "--%s", opt, arg) < 0)
		return;
	o->given_buf[o->nr_given] = s;
	o->given[o->nr_given++] = s;
}

static unsigned long long parse_size_arg(const char *opt, const char *arg, const char *usage)
{
	unsigned long long v;

	if (atag_parse_size(arg, &v))
		atag_usage_error(usage, "--%s: '%s' is not a size (e.g. 4096, 64K, 1M)", opt, arg);
	return v;
}

static void set_tristate(int *field, int val, const char *opt, const char *other,
			 const char *usage)
{
	if (*field != ATAG_ANY && *field != val)
		atag_usage_error(usage, "--%s and --%s exclude each other", opt, other);
	*field = val;
}

bool atag_tagopts_parse(struct atag_tagopts *o, int opt, const char *arg, const char *usage)
{
	struct atag_filter *f = &o->filter;
	const struct option opts[] = { ATAG_TAGOPTS_LONG };
	const char *name = NULL;
	unsigned int i;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].val == opt)
			name = opts[i].name;
	if (!name)
		return false;
	switch (opt) {
	case OPT_module:	f->module = arg; break;
	case OPT_function:	f->function = arg; break;
	case OPT_file:		f->file = arg; break;
	case OPT_line:
		if (atag_parse_u64(arg, &f->line))
			atag_usage_error(usage, "--line: '%s' is not a line number", arg);
		f->has_line = true;
		break;
	case OPT_min_size:
		f->min_size = parse_size_arg(name, arg, usage);
		f->has_min_size = true;
		break;
	case OPT_max_size:
		f->max_size = parse_size_arg(name, arg, usage);
		f->has_max_size = true;
		break;
	case OPT_accurate:	set_tristate(&f->inaccurate, 0, name, "inaccurate", usage); break;
	case OPT_inaccurate:	set_tristate(&f->inaccurate, 1, name, "accurate", usage); break;
	case OPT_traced:	set_tristate(&f->traced, 1, name, "untraced", usage); break;
	case OPT_untraced:	set_tristate(&f->traced, 0, name, "traced", usage); break;
	case OPT_allocinfo:	o->allocinfo = arg; return true;
	}
	note_given(o, name, arg);
	return true;
}

void atag_tagopts_check(const struct atag_tagopts *o, const char *usage)
{
	const struct atag_filter *f = &o->filter;

	if (f->has_min_size && f->has_max_size && f->min_size > f->max_size)
		atag_usage_error(usage, "--min-size (%llu) is larger than --max-size (%llu)",
				 f->min_size, f->max_size);
}

const char *atag_tagopts_describe(const struct atag_tagopts *o, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < o->nr_given && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " " : "", o->given[i]);
	if (!o->nr_given)
		snprintf(buf, len, "no filter");
	return buf;
}

struct atag_allocinfo *atag_tagopts_open(struct atag_tagopts *o)
{
	struct atag_allocinfo *ai;

	o->allocinfo = atag_allocinfo_default_path(o->allocinfo);
	ai = atag_allocinfo_open(o->allocinfo);
	if (!ai)
		atag_tagopts_die(o, NULL, ATAG_TAGOP_OPEN, errno);
	return ai;
}

/* EINVAL: name the option the kernel most likely rejected. */
static void einval_message(char *buf, size_t len, const char *path, const struct atag_tagopts *o)
{
	const struct atag_filter *f = &o->filter;
	char given[512];

	if (f->traced != ATAG_ANY)
		snprintf(buf, len, "%s: the kernel rejected --%s: it does not know the trace-state filter (invalid argument)",
			 path, f->traced ? "traced" : "untraced");
	else if (f->has_min_size && f->has_max_size)
		snprintf(buf, len, "%s: the kernel rejected --min-size %llu with --max-size %llu (invalid argument)",
			 path, f->min_size, f->max_size);
	else
		snprintf(buf, len, "%s: the kernel rejected the filter %s (invalid argument)",
			 path, atag_tagopts_describe(o, given, sizeof(given)));
}

static void toggle_message(char *buf, size_t len, const char *path,
			   const struct atag_tagopts *o, int err)
{
	char given[512];

	switch (err) {
	case ENOTTY:
		snprintf(buf, len, "%s: this kernel lacks per-tag tracing (no TOGGLE_TRACE ioctl); it comes with the patch series \"%s\"",
			 path, ATAG_TRACING_SERIES);
		break;
	case EPERM:
	case EACCES:
		snprintf(buf, len, "%s: operation not permitted: turning tracing on or off needs CAP_SYS_ADMIN",
			 path);
		break;
	case ENOENT:
		snprintf(buf, len, "%s: no tag matches the filter (%s)", path,
			 atag_tagopts_describe(o, given, sizeof(given)));
		break;
	default:
		snprintf(buf, len, "%s: turning tracing on or off failed: %s", path, strerror(err));
	}
}

static void list_message(char *buf, size_t len, const char *path, struct atag_allocinfo *ai,
			 int err)
{
	unsigned int line = ai ? atag_allocinfo_error_line(ai) : 0;

	switch (err) {
	case EOPNOTSUPP:
		snprintf(buf, len, "%s: --traced/--untraced need the per-tag trace state, which this kernel does not report; it comes with the patch series \"%s\"",
			 path, ATAG_TRACING_SERIES);
		break;
	case EAGAIN:
		snprintf(buf, len, "%s: the tags kept changing while being listed (modules loading or unloading, %d tries); try again",
			 path, ATAG_ALLOCINFO_RETRIES + 1);
		break;
	case EBADMSG:
		snprintf(buf, len, "%s:%u: not in the /proc/allocinfo text format", path, line);
		break;
	case EPROTONOSUPPORT:
		snprintf(buf, len, "%s:%u: unsupported allocinfo version (known: 1.x and 2.x)",
			 path, line);
		break;
	default:
		snprintf(buf, len, "%s: cannot list the tags: %s", path, atag_strerror(err));
	}
}

static void open_message(char *buf, size_t len, const char *path, int err)
{
	if (err == ENOENT && !strcmp(path, ATAG_ALLOCINFO_PATH))
		snprintf(buf, len, "%s: no such file: this kernel lacks CONFIG_MEM_ALLOC_PROFILING (memory allocation profiling)",
			 path);
	else if (err == ENOENT)
		snprintf(buf, len, "%s: no such file (a kernel without CONFIG_MEM_ALLOC_PROFILING has no /proc/allocinfo)",
			 path);
	else if (err == EACCES || err == EPERM)
		snprintf(buf, len, "%s: permission denied: run as root", path);
	else
		snprintf(buf, len, "%s: %s", path, atag_strerror(err));
}

void atag_tagopts_message(char *buf, size_t len, const struct atag_tagopts *o,
			  struct atag_allocinfo *ai, enum atag_tagop op, int err)
{
	const char *path = ai ? atag_allocinfo_name(ai) : o->allocinfo;

	if (err < 0)
		err = -err;
	if (err == EINVAL && op != ATAG_TAGOP_OPEN)
		einval_message(buf, len, path, o);
	else if (op == ATAG_TAGOP_OPEN)
		open_message(buf, len, path, err);
	else if (op == ATAG_TAGOP_TOGGLE)
		toggle_message(buf, len, path, o, err);
	else
		list_message(buf, len, path, ai, err);
}

void atag_tagopts_die(const struct atag_tagopts *o, struct atag_allocinfo *ai,
		      enum atag_tagop op, int err)
{
	char msg[1024];

	atag_tagopts_message(msg, sizeof(msg), o, ai, op, err);
	die("%s", msg);
}

void atag_tag_site(const struct atag_tag *t, char *buf, size_t len)
{
	atag_site_text(buf, len, t->function, -1, t->filename, t->lineno,
		       t->modname[0] ? t->modname : NULL);
}
