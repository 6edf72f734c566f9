// SPDX-License-Identifier: LGPL-2.1
/*
 * The /proc/allocinfo ioctl ABI: listing tags through GET_AT/GET_NEXT, consistent
 * across module loads thanks to CONTENT_ID, and switching their tracing with
 * TOGGLE_TRACE. Falls back to the 7.3 layout, then to the text (atag-allocinfo-text.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "atag-allocinfo.h"
#include "atag-utils.h"

#define SOURCE_UNKNOWN	(-1)

struct atag_allocinfo {
	char				*name;
	int				fd;
	const struct atag_allocinfo_ops	*ops;
	void				*ctx;
	int				source;		/* enum atag_allocinfo_source or -1 */
	unsigned int			err_line;
};

const char *atag_allocinfo_default_path(const char *path)
{
	const char *env;

	if (path)
		return path;
	env = getenv(ATAG_ALLOCINFO_ENV);
	return env && *env ? env : ATAG_ALLOCINFO_PATH;
}

static struct atag_allocinfo *allocinfo_alloc(const char *name)
{
	struct atag_allocinfo *ai = calloc(1, sizeof(*ai));

	if (!ai)
		return NULL;
	ai->fd = -1;
	ai->source = SOURCE_UNKNOWN;
	ai->name = strdup(name);
	if (!ai->name) {
		free(ai);
		return NULL;
	}
	return ai;
}

struct atag_allocinfo *atag_allocinfo_open(const char *path)
{
	struct atag_allocinfo *ai = allocinfo_alloc(path);
	int err;

	if (!ai)
		return NULL;
	/* a FIFO or a device named by --allocinfo would block the open or never end */
	ai->fd = atag_open_input(AT_FDCWD, path, 0);
	if (ai->fd < 0) {
		err = errno;
		atag_allocinfo_close(ai);
		errno = err;
		return NULL;
	}
	return ai;
}

struct atag_allocinfo *atag_allocinfo_open_ops(const char *name,
					       const struct atag_allocinfo_ops *ops, void *ctx)
{
	struct atag_allocinfo *ai = allocinfo_alloc(name);

	if (!ai)
		return NULL;
	ai->ops = ops;
	ai->ctx = ctx;
	return ai;
}

void atag_allocinfo_close(struct atag_allocinfo *ai)
{
	if (!ai)
		return;
	if (ai->fd >= 0)
		close(ai->fd);
	free(ai->name);
	free(ai);
}

const char *atag_allocinfo_name(const struct atag_allocinfo *ai)
{
	return ai->name;
}

unsigned int atag_allocinfo_error_line(const struct atag_allocinfo *ai)
{
	return ai->err_line;
}

static int ai_ioctl(struct atag_allocinfo *ai, unsigned int cmd, void *arg)
{
	if (ai->ops)
		return atag_err(ai->ops->ioctl(ai->ctx, cmd, arg));
	if (ioctl(ai->fd, cmd, arg) < 0)
		return atag_err(-errno);
	return 0;
}

/* The text at @off, from the file or the callbacks (an atag_read_fn) */
static ssize_t ai_read(void *ctx, char *buf, size_t len, off_t off)
{
	struct atag_allocinfo *ai = ctx;
	ssize_t n;

	if (ai->ops)
		return ai->ops->read(ai->ctx, buf, len, off);
	do {
		n = pread(ai->fd, buf, len, off);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int atag_allocinfo_content_id(struct atag_allocinfo *ai, unsigned long long *id)
{
	struct allocinfo_content_id cid = { 0 };
	int ret;

	ret = ai_ioctl(ai, ALLOCINFO_IOC_CONTENT_ID, &cid);
	if (!ret)
		*id = cid.id;
	return ret;
}

/* ------------------------------------------------------------------ ioctl scans */

static void tag_from_kernel(struct atag_tag *t, const struct allocinfo_tag_data *d, bool state)
{
	memset(t, 0, sizeof(*t));
	atag_tag_set_name(t->modname, d->tag.modname, strnlen(d->tag.modname, ALLOCINFO_STR_SIZE));
	atag_tag_set_name(t->function, d->tag.function,
			  strnlen(d->tag.function, ALLOCINFO_STR_SIZE));
	atag_tag_set_name(t->filename, d->tag.filename,
			  strnlen(d->tag.filename, ALLOCINFO_STR_SIZE));
	t->lineno = d->tag.lineno;
	t->bytes = (long long)d->counter.bytes;
	t->calls = d->counter.calls;
	t->accurate = d->counter.accurate;
	t->traced = state ? !!d->counter.trace_on : -1;
}

/* GET_AT(pos 0) in either layout; the answer's data lands in @data. */
static int get_first(struct atag_allocinfo *ai, int source, const struct allocinfo_filter *kf,
		     struct allocinfo_tag_data *data)
{
	struct allocinfo_get_at_v73 g73;
	struct allocinfo_get_at g;
	int ret;

	if (source == ATAG_SRC_IOCTL) {
		memset(&g, 0, sizeof(g));
		g.filter = *kf;
		ret = ai_ioctl(ai, ALLOCINFO_IOC_GET_AT, &g);
		*data = g.data;
		return ret;
	}
	memset(&g73, 0, sizeof(g73));
	g73.filter.mask = kf->mask;
	g73.filter.fields = kf->fields;
	g73.filter.min_size = kf->min_size;
	g73.filter.max_size = kf->max_size;
	g73.filter.inaccurate = kf->inaccurate;
	ret = ai_ioctl(ai, ALLOCINFO_IOC_GET_AT_V73, &g73);
	*data = g73.data;
	return ret;
}

/* One pass over the matching tags; -ENOENT ends it. */
static int scan_once(struct atag_allocinfo *ai, int source, const struct allocinfo_filter *kf,
		     const struct atag_filter *f, struct atag_taglist *list)
{
	struct allocinfo_tag_data data;
	struct atag_tag t;
	int ret;

	ret = get_first(ai, source, kf, &data);
	while (!ret) {
		tag_from_kernel(&t, &data, source == ATAG_SRC_IOCTL);
		if (atag_filter_match(f, &t) && atag_taglist_add(list, &t))
			return -ENOMEM;
		memset(&data, 0, sizeof(data));
		ret = ai_ioctl(ai, ALLOCINFO_IOC_GET_NEXT, &data);
	}
	return ret == -ENOENT ? 0 : ret;
}

/* Scan until CONTENT_ID is the same before and after, a bounded number of times. */
static int scan_consistent(struct atag_allocinfo *ai, int source, const struct atag_filter *f,
			   struct atag_taglist *list)
{
	unsigned long long before, after;
	struct allocinfo_filter kf;
	int attempt, ret;

	atag_filter_to_kernel(f, &kf);
	if (source == ATAG_SRC_IOCTL_V73)
		kf.mask &= ~ALLOCINFO_FILTER_MASK_TRACE_ON;
	for (attempt = 0; attempt <= ATAG_ALLOCINFO_RETRIES; attempt++) {
		list->nr = 0;
		ret = atag_allocinfo_content_id(ai, &before);
		if (!ret)
			ret = scan_once(ai, source, &kf, f, list);
		if (!ret)
			ret = atag_allocinfo_content_id(ai, &after);
		if (ret)
			return ret;
		if (before == after)
			return 0;
		atag_info("allocinfo: %s changed while listing (content id %llu -> %llu), again",
			  ai->name, before, after);
	}
	return -EAGAIN;
}

/* Which GET_AT the file answers: ENOTTY means "not this layout". */
static int probe_source(struct atag_allocinfo *ai)
{
	static const int order[] = { ATAG_SRC_IOCTL, ATAG_SRC_IOCTL_V73 };
	struct allocinfo_filter kf = { 0 };
	struct allocinfo_tag_data data;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		ret = get_first(ai, order[i], &kf, &data);
		if (!ret || ret == -ENOENT)
			return order[i];
		if (ret != -ENOTTY)
			return ret;
	}
	return ATAG_SRC_TEXT;
}

int atag_allocinfo_source(struct atag_allocinfo *ai)
{
	int ret;

	if (ai->source != SOURCE_UNKNOWN)
		return ai->source;
	ret = probe_source(ai);
	if (ret < 0)
		return atag_err(ret);
	ai->source = ret;
	return ret;
}

/* ------------------------------------------------------------------ text fallback */

static int list_text(struct atag_allocinfo *ai, const struct atag_filter *f,
		     struct atag_taglist **out)
{
	size_t len = 0;
	char *buf = NULL;
	int ret;

	if (f && f->traced != ATAG_ANY)
		return -EOPNOTSUPP;
	if (ai->fd >= 0 && atag_input_too_large(ai->fd, ATAG_INPUT_MAX))
		return -EFBIG;
	buf = atag_read_all(ai_read, ai, ATAG_INPUT_MAX, &len);
	if (!buf)
		return -errno;
	ret = atag_allocinfo_parse_text(buf, len, f, out, &ai->err_line);
	free(buf);
	return ret;
}

int atag_allocinfo_list(struct atag_allocinfo *ai, const struct atag_filter *f,
			struct atag_taglist **out)
{
	struct atag_filter any;
	struct atag_taglist *list;
	int source, ret;

	*out = NULL;
	ai->err_line = 0;
	if (!f) {
		atag_filter_init(&any);
		f = &any;
	}
	if (atag_filter_validate(f))
		return atag_err(-EINVAL);
	source = atag_allocinfo_source(ai);
	if (source < 0)
		return source;
	if (source == ATAG_SRC_TEXT)
		return atag_err(list_text(ai, f, out));
	if (source == ATAG_SRC_IOCTL_V73 && f->traced != ATAG_ANY)
		return atag_err(-EOPNOTSUPP);
	list = calloc(1, sizeof(*list));
	if (!list)
		return atag_err(-ENOMEM);
	list->source = source;
	ret = scan_consistent(ai, source, f, list);
	if (ret) {
		atag_taglist_free(list);
		return atag_err(ret);
	}
	*out = list;
	return 0;
}

/* ------------------------------------------------------------------ toggles */

int atag_allocinfo_toggle(struct atag_allocinfo *ai, const struct atag_filter *f, bool enable)
{
	struct allocinfo_toggle_traces tt;

	if (atag_filter_validate(f) || !atag_filter_to_kernel(f, &tt.filter))
		return atag_err(-EINVAL);
	tt.enable = enable;
	return ai_ioctl(ai, ALLOCINFO_IOC_TOGGLE_TRACE, &tt);
}

int atag_allocinfo_toggle_tag(struct atag_allocinfo *ai, const struct atag_tag *t, bool enable)
{
	struct allocinfo_toggle_traces tt;

	memset(&tt, 0, sizeof(tt));
	tt.filter.mask = ALLOCINFO_FILTER_MASK_MODNAME | ALLOCINFO_FILTER_MASK_FUNCTION |
			 ALLOCINFO_FILTER_MASK_FILENAME | ALLOCINFO_FILTER_MASK_LINENO |
			 ALLOCINFO_FILTER_MASK_TRACE_ON;
	atag_allocinfo_strcpy(tt.filter.fields.modname, t->modname);
	atag_allocinfo_strcpy(tt.filter.fields.function, t->function);
	atag_allocinfo_strcpy(tt.filter.fields.filename, t->filename);
	tt.filter.fields.lineno = t->lineno;
	tt.filter.tracing = !enable;
	tt.enable = enable;
	return ai_ioctl(ai, ALLOCINFO_IOC_TOGGLE_TRACE, &tt);
}
