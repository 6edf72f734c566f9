// SPDX-License-Identifier: GPL-2.0
/*
 * An in-memory /proc/allocinfo with the kernel's semantics (see fakeinfo-model.h).
 * Written from the documented behaviour, independently of lib/, so that it can
 * catch lib/'s mistakes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeinfo-model.h"

#define FAKE_MASKS	0xffULL
#define FAKE_MASKS_V73	0x7fULL

/* ------------------------------------------------------------------ description */

static int fake_err(char *err, size_t errlen, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, "line %d: ", line);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int fake_set(char *dst, const char *src, size_t len)
{
	if (len >= FAKE_NAME_MAX)
		return -1;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return 0;
}

/* "FILE:LINE" */
static int fake_parse_site(struct fake_tag *t, const char *tok)
{
	const char *colon = strrchr(tok, ':');
	char *end;

	if (!colon || colon == tok)
		return -1;
	t->lineno = strtoull(colon + 1, &end, 10);
	if (end == colon + 1 || *end)
		return -1;
	return fake_set(t->filename, tok, colon - tok);
}

/* BYTES CALLS FILE:LINE [[MODULE]] func:FUNCTION [accurate:no] [traced] */
static int fake_parse_tag(struct fake_tag *t, char *args)
{
	char *tok, *end;
	int i = 0;

	memset(t, 0, sizeof(*t));
	while ((tok = strsep(&args, " \t"))) {
		if (!*tok)
			continue;
		if (i == 0) {
			t->bytes = strtoll(tok, &end, 10);
			if (*end)
				return -1;
		} else if (i == 1) {
			t->calls = strtoull(tok, &end, 10);
			if (*end)
				return -1;
		} else if (i == 2) {
			if (fake_parse_site(t, tok))
				return -1;
		} else if (tok[0] == '[' && tok[strlen(tok) - 1] == ']' && strlen(tok) > 2) {
			if (fake_set(t->modname, tok + 1, strlen(tok) - 2))
				return -1;
		} else if (!strncmp(tok, "func:", 5) && tok[5]) {
			if (fake_set(t->function, tok + 5, strlen(tok + 5)))
				return -1;
		} else if (!strcmp(tok, "accurate:no")) {
			t->inaccurate = true;
		} else if (!strcmp(tok, "traced")) {
			t->traced = true;
		} else {
			return -1;
		}
		i++;
	}
	return i >= 4 && t->function[0] ? 0 : -1;
}

static int fake_add(struct fake_kernel *k, const struct fake_tag *t)
{
	struct fake_tag *tags = realloc(k->tags, (k->nr + 1) * sizeof(*tags));

	if (!tags)
		return -1;
	k->tags = tags;
	k->tags[k->nr++] = *t;
	return 0;
}

static int fake_statement(struct fake_kernel *k, char *key, char *args, int line,
			  char *err, size_t errlen)
{
	struct fake_tag t;
	char mode[16];

	if (!strcmp(key, "tag") || !strcmp(key, "module")) {
		if (fake_parse_tag(&t, args))
			return fake_err(err, errlen, line, "bad tag");
		t.present = !strcmp(key, "tag");
		return fake_add(k, &t);
	}
	if (!strcmp(key, "version"))
		return sscanf(args, "%15s", k->version) == 1 ? 0 :
			fake_err(err, errlen, line, "version X.Y");
	if (!strcmp(key, "ioctl") && sscanf(args, "%15s", mode) == 1) {
		k->mode = !strcmp(mode, "v73") ? FAKE_V73 : !strcmp(mode, "none") ? FAKE_NONE :
			  FAKE_SERIES;
		return strcmp(mode, "series") && k->mode == FAKE_SERIES ?
			fake_err(err, errlen, line, "ioctl series|v73|none") : 0;
	}
	if (!strcmp(key, "content_id") && sscanf(args, "%llu", &k->content_id) == 1)
		return 0;
	if (!strcmp(key, "cap_check") && sscanf(args, "%15s", mode) == 1) {
		k->cap_check = strcmp(mode, "off") != 0;
		return 0;
	}
	if (!strcmp(key, "reject_mask") && sscanf(args, "%lli", (long long *)&k->reject_mask) == 1)
		return 0;
	if (!strcmp(key, "churn") &&
	    sscanf(args, "%lu %lu", &k->churn_every, &k->churn_left) == 2)
		return 0;
	if (!strcmp(key, "modload") && sscanf(args, "%lu", &k->modload_at) == 1)
		return 0;
	return fake_err(err, errlen, line, "unknown or malformed statement '%s'", key);
}

int fake_kernel_load(struct fake_kernel *k, const char *text, char *err, size_t errlen)
{
	char *copy = strdup(text), *p = copy, *s, *key, *hash;
	int line = 0, ret = 0;

	memset(k, 0, sizeof(*k));
	strcpy(k->version, "2.0");
	k->content_id = 1;
	k->cap_check = true;
	if (!copy)
		return fake_err(err, errlen, 0, "out of memory");
	while (!ret && (s = strsep(&p, "\n"))) {
		line++;
		hash = strchr(s, '#');
		if (hash)
			*hash = '\0';
		key = strsep(&s, " \t");
		if (!key || !*key)
			continue;
		ret = fake_statement(k, key, s ? s : (char *)"", line, err, errlen);
	}
	free(copy);
	if (ret)
		fake_kernel_free(k);
	return ret;
}

void fake_kernel_free(struct fake_kernel *k)
{
	free(k->tags);
	k->tags = NULL;
	k->nr = 0;
}

/* ------------------------------------------------------------------ semantics */

/* The kernel's allocinfo_str(): the trailing 63 characters. */
static const char *fake_str(const char *s)
{
	size_t len = strlen(s);

	return len < ALLOCINFO_STR_SIZE ? s : s + len - (ALLOCINFO_STR_SIZE - 1);
}

static bool fake_str_eq(const char *name, const char tmpl[ALLOCINFO_STR_SIZE])
{
	return !strncmp(fake_str(name), tmpl, ALLOCINFO_STR_SIZE);
}

static bool fake_match(const struct fake_tag *t, const struct allocinfo_filter *f)
{
	unsigned long long bytes = (unsigned long long)t->bytes;

	if (!t->present)
		return false;
	if (f->mask & ALLOCINFO_FILTER_MASK_MODNAME) {
		if (!f->fields.modname[0] ? t->modname[0] != '\0' :
		    !t->modname[0] || !fake_str_eq(t->modname, f->fields.modname))
			return false;
	}
	if ((f->mask & ALLOCINFO_FILTER_MASK_FUNCTION) &&
	    !fake_str_eq(t->function, f->fields.function))
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_FILENAME) &&
	    !fake_str_eq(t->filename, f->fields.filename))
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_LINENO) && t->lineno != f->fields.lineno)
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_INACCURATE) && t->inaccurate != !!f->inaccurate)
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_MIN_SIZE) && bytes < f->min_size)
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_MAX_SIZE) && bytes > f->max_size)
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_TRACE_ON) && t->traced != !!f->tracing)
		return false;
	return true;
}

static int fake_check_filter(const struct fake_kernel *k, struct allocinfo_filter *f,
			     unsigned long long masks)
{
	if ((f->mask & ~masks) || (f->mask & k->reject_mask))
		return -EINVAL;
	if ((f->mask & ALLOCINFO_FILTER_MASK_MIN_SIZE) &&
	    (f->mask & ALLOCINFO_FILTER_MASK_MAX_SIZE) && f->min_size > f->max_size)
		return -EINVAL;
	/* the kernel compares at most 64 bytes: make the templates strings */
	f->fields.modname[ALLOCINFO_STR_SIZE - 1] = '\0';
	f->fields.function[ALLOCINFO_STR_SIZE - 1] = '\0';
	f->fields.filename[ALLOCINFO_STR_SIZE - 1] = '\0';
	return 0;
}

static size_t fake_nr_present(const struct fake_kernel *k)
{
	size_t i, n = 0;

	for (i = 0; i < k->nr; i++)
		n += k->tags[i].present;
	return n;
}

/* strscpy_pad of the trailing 63 characters */
static void fake_copy_str(char dst[ALLOCINFO_STR_SIZE], const char *name)
{
	const char *s = fake_str(name);

	memset(dst, 0, ALLOCINFO_STR_SIZE);
	memcpy(dst, s, strlen(s));
}

static void fake_fill(const struct fake_kernel *k, const struct fake_tag *t,
		      struct allocinfo_tag_data *d)
{
	memset(d, 0, sizeof(*d));
	fake_copy_str(d->tag.modname, t->modname);
	fake_copy_str(d->tag.function, t->function);
	fake_copy_str(d->tag.filename, t->filename);
	d->tag.lineno = t->lineno;
	d->counter.bytes = (unsigned long long)t->bytes;
	d->counter.calls = t->calls;
	d->counter.accurate = !t->inaccurate;
	d->counter.trace_on = k->mode == FAKE_SERIES && t->traced;
}

static int fake_get_at(struct fake_file *f, unsigned long long pos,
		       struct allocinfo_filter *filter, unsigned long long masks,
		       struct allocinfo_tag_data *out)
{
	struct fake_kernel *k = f->k;
	size_t i;
	int ret;

	ret = fake_check_filter(k, filter, masks);
	if (ret)
		return ret;
	f->positioned = false;
	if (pos >= fake_nr_present(k))
		return -ENOENT;
	f->filter = *filter;
	for (i = 0; i < k->nr; i++) {
		if (!fake_match(&k->tags[i], filter) || pos--)
			continue;
		fake_fill(k, &k->tags[i], out);
		f->pos = i;
		f->positioned = true;
		return 0;
	}
	return -ENOENT;
}

static void fake_module_load(struct fake_kernel *k)
{
	size_t i;

	for (i = 0; i < k->nr; i++)
		k->tags[i].present = true;
	k->modload_at = 0;
	k->content_id++;
}

/* What happens in the rest of the system while a scan goes on. */
static void fake_tick(struct fake_kernel *k)
{
	k->nr_get_next++;
	if (k->modload_at && k->nr_get_next >= k->modload_at)
		fake_module_load(k);
	if (k->churn_every && k->churn_left && k->nr_get_next % k->churn_every == 0) {
		k->churn_left--;
		k->content_id++;
	}
}

static int fake_get_next(struct fake_file *f, struct allocinfo_tag_data *out)
{
	struct fake_kernel *k = f->k;
	size_t i = f->positioned ? f->pos + 1 : 0;

	fake_tick(k);
	for (; i < k->nr; i++) {
		if (!fake_match(&k->tags[i], &f->filter))
			continue;
		fake_fill(k, &k->tags[i], out);
		f->pos = i;
		f->positioned = true;
		return 0;
	}
	f->positioned = false;
	return -ENOENT;
}

/* "race": another tool turns on the tags @filter names, whatever their trace state. */
static void fake_race(struct fake_kernel *k, const struct allocinfo_filter *filter)
{
	struct allocinfo_filter any = *filter;
	size_t i;

	any.mask &= ~ALLOCINFO_FILTER_MASK_TRACE_ON;
	for (i = 0; i < k->nr; i++)
		if (fake_match(&k->tags[i], &any))
			k->tags[i].traced = true;
	k->race = false;
}

static int fake_toggle(struct fake_file *f, struct allocinfo_toggle_traces *tt, bool cap)
{
	struct fake_kernel *k = f->k;
	size_t i, n = 0;
	int ret;

	if ((k->cap_check && !cap) || (k->deny_toggle && !k->deny_after))
		return -EPERM;
	ret = fake_check_filter(k, &tt->filter, FAKE_MASKS);
	if (ret)
		return ret;
	if (k->deny_toggle)
		k->deny_after--;
	if (k->race && tt->enable)
		fake_race(k, &tt->filter);
	for (i = 0; i < k->nr; i++) {
		if (fake_match(&k->tags[i], &tt->filter)) {
			k->tags[i].traced = !!tt->enable;	/* any non-zero enables */
			n++;
		}
	}
	if (!n)
		return -ENOENT;
	k->toggles++;
	return 0;
}

static int fake_get_at_v73(struct fake_file *f, struct allocinfo_get_at_v73 *g)
{
	struct allocinfo_filter filter;

	memset(&filter, 0, sizeof(filter));
	filter.mask = g->filter.mask;
	filter.fields = g->filter.fields;
	filter.min_size = g->filter.min_size;
	filter.max_size = g->filter.max_size;
	filter.inaccurate = g->filter.inaccurate;
	return fake_get_at(f, g->pos, &filter, FAKE_MASKS_V73, &g->data);
}

int fake_ioctl(struct fake_file *f, unsigned int cmd, void *arg, bool cap_sys_admin)
{
	struct allocinfo_get_at *g = arg;
	enum fake_mode mode = f->k->mode;

	if (mode == FAKE_NONE)
		return -ENOTTY;
	switch (cmd) {
	case ALLOCINFO_IOC_CONTENT_ID:
		((struct allocinfo_content_id *)arg)->id = f->k->content_id;
		return 0;
	case ALLOCINFO_IOC_GET_AT_V73:
		/* the series defines one GET_AT, that of its grown filter */
		if (mode == FAKE_SERIES)
			return -ENOTTY;
		return fake_get_at_v73(f, arg);
	case ALLOCINFO_IOC_GET_NEXT:
		return fake_get_next(f, arg);
	case ALLOCINFO_IOC_GET_AT:
		if (mode != FAKE_SERIES)
			return -ENOTTY;
		return fake_get_at(f, g->pos, &g->filter, FAKE_MASKS, &g->data);
	case ALLOCINFO_IOC_TOGGLE_TRACE:
		if (mode != FAKE_SERIES)
			return -ENOTTY;
		return fake_toggle(f, arg, cap_sys_admin);
	}
	return -ENOTTY;
}

/* ------------------------------------------------------------------ text and state */

struct fake_buf {
	char	*s;
	size_t	len, cap;
};

static void __attribute__((format(printf, 2, 3))) fake_printf(struct fake_buf *b,
							       const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (b->s && b->len + n < b->cap) {
			b->len += n;
			return;
		}
		b->cap = (b->cap + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
}

char *fake_text(const struct fake_kernel *k, size_t *len)
{
	struct fake_buf b = { NULL, 0, 0 };
	const struct fake_tag *t;
	size_t i;

	fake_printf(&b, "allocinfo - version: %s\n#     <size>  <calls> <tag info>\n", k->version);
	for (i = 0; i < k->nr; i++) {
		t = &k->tags[i];
		if (!t->present)
			continue;
		fake_printf(&b, "%12lli %8llu %s:%llu", t->bytes, t->calls, t->filename, t->lineno);
		if (t->modname[0])
			fake_printf(&b, " [%s]", t->modname);
		fake_printf(&b, " func:%s", t->function);
		if (t->inaccurate && k->version[0] != '1')
			fake_printf(&b, " accurate:no");
		fake_printf(&b, " \n");
	}
	*len = b.len;
	return b.s;
}

char *fake_state(const struct fake_kernel *k, size_t *len)
{
	struct fake_buf b = { NULL, 0, 0 };
	const struct fake_tag *t;
	size_t i;

	fake_printf(&b, "content_id %llu\ntoggles %lu\n", k->content_id, k->toggles);
	for (i = 0; i < k->nr; i++) {
		t = &k->tags[i];
		if (t->present)
			fake_printf(&b, "tag %d %s %s %llu %s %lld\n", t->traced,
				    t->modname[0] ? t->modname : "-", t->filename, t->lineno,
				    t->function, t->bytes);
	}
	*len = b.len;
	return b.s;
}

int fake_control(struct fake_kernel *k, const char *cmd)
{
	if (!strncmp(cmd, "modload", 7)) {
		fake_module_load(k);
		return 0;
	}
	if (!strncmp(cmd, "bump", 4)) {
		k->content_id++;
		return 0;
	}
	if (!strncmp(cmd, "deny", 4) || !strncmp(cmd, "allow", 5)) {
		k->deny_toggle = cmd[0] == 'd';
		k->deny_after = cmd[0] == 'd' ? strtoul(cmd + 4, NULL, 10) : 0;
		return 0;
	}
	if (!strncmp(cmd, "race", 4)) {
		k->race = true;
		return 0;
	}
	return -EINVAL;
}
