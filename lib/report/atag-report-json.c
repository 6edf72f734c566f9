// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading back a document that report -f json or leaks -o wrote: its call sites,
 * their stacks and what they counted fold into a report as a trace.dat's would,
 * so that diff compares a leaks run or a saved report with a recording
 * (include/atag-report.h, atag_report_add_document()).
 *
 * The keys read are those lib/render/atag-render-json.c writes (and leaks' saved
 * view, lib/live/atag-live-save.c); JSON is parsed with json-glib.
 */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-glib/json-glib.h>

#include "atag-fold.h"
#include "atag-report.h"
#include "atag-source.h"
#include "atag-utils.h"

bool atag_report_is_document(const char *path)
{
	struct stat st;
	FILE *f;
	int c;

	/* a FIFO or a device is no document (and its open would wait, or read it) */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	f = fopen(path, "r");
	if (!f)
		return false;
	do
		c = getc(f);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
	fclose(f);
	return c == '{';
}

/* Where a document is read: for the reason of a failure. */
struct doc {
	struct atag_report	*r;
	char			*err;
	size_t			errlen;
	char			where[64];	/* "tags[3].stacks[1]" */
};

static int __attribute__((format(printf, 2, 3))) bad(struct doc *d, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (d->where[0])
		snprintf(d->err, d->errlen, "a report document: %s: %s", d->where, what);
	else
		snprintf(d->err, d->errlen, "a report document: %s", what);
	return -EINVAL;
}

static JsonNode *member(JsonObject *o, const char *key)
{
	return json_object_has_member(o, key) ? json_object_get_member(o, key) : NULL;
}

static bool is_null(JsonNode *n)
{
	return !n || JSON_NODE_HOLDS_NULL(n);
}

/* A count: an integer from 0 up. Absent keys are 0 when @optional. */
static int count(struct doc *d, JsonObject *o, const char *key, bool optional, uint64_t *v)
{
	JsonNode *n = member(o, key);

	*v = 0;
	if (is_null(n) && optional)
		return 0;
	if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_INT64 ||
	    json_node_get_int(n) < 0)
		return bad(d, "'%s' is not a count", key);
	*v = json_node_get_int(n);
	return 0;
}

/* A string or null (*s = NULL); anything else is an error. */
static int string_or_null(struct doc *d, JsonObject *o, const char *key, const char **s)
{
	JsonNode *n = member(o, key);

	*s = NULL;
	if (is_null(n))
		return 0;
	if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
		return bad(d, "'%s' is not a string", key);
	*s = json_node_get_string(n);
	return 0;
}

/* An integer or null (*v = @none). */
static int int_or_null(struct doc *d, JsonObject *o, const char *key, long long none,
		       long long *v)
{
	JsonNode *n = member(o, key);

	*v = none;
	if (is_null(n))
		return 0;
	if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_INT64)
		return bad(d, "'%s' is not an integer", key);
	*v = json_node_get_int(n);
	return 0;
}

static JsonArray *array(struct doc *d, JsonObject *o, const char *key, bool optional, int *ret)
{
	JsonNode *n = member(o, key);

	*ret = 0;
	if (!n && optional)
		return NULL;
	if (!n || !JSON_NODE_HOLDS_ARRAY(n)) {
		*ret = bad(d, "no array '%s'", key);
		return NULL;
	}
	return json_node_get_array(n);
}

static JsonObject *object_at(struct doc *d, JsonArray *a, guint i, int *ret)
{
	JsonNode *n = json_array_get_element(a, i);

	*ret = 0;
	if (!JSON_NODE_HOLDS_OBJECT(n)) {
		*ret = bad(d, "not an object");
		return NULL;
	}
	return json_node_get_object(n);
}

static const struct atag_source *source_of(struct doc *d, JsonObject *o, int *ret)
{
	const struct atag_source *src;
	const char *name;

	*ret = string_or_null(d, o, "source", &name);
	if (*ret)
		return NULL;
	if (!name) {
		*ret = bad(d, "no 'source'");
		return NULL;
	}
	src = atag_source_find(name);
	if (!src)
		*ret = bad(d, "unknown source '%s'", name);
	return src;
}

/* The counters report writes per call site (ATAG_COUNTERS_STACK: per stack). */
static int counters(struct doc *d, JsonObject *o, bool stack, struct atag_counters *c)
{
	static const struct {
		const char	*key;
		size_t		at;
		bool		stack;
	} keys[] = {
		{ "allocs", offsetof(struct atag_counters, allocs), true },
		{ "live", offsetof(struct atag_counters, live), true },
		{ "live_bytes", offsetof(struct atag_counters, live_bytes), true },
		{ "bytes_alloced", offsetof(struct atag_counters, bytes_alloced), true },
		{ "peak_live_bytes", offsetof(struct atag_counters, peak_live_bytes), false },
		{ "frees", offsetof(struct atag_counters, frees), false },
		{ "bytes_freed", offsetof(struct atag_counters, bytes_freed), false },
		{ "unmatched_frees", offsetof(struct atag_counters, unmatched_frees), false },
		{ "partial_frees", offsetof(struct atag_counters, partial_frees), false },
		{ "replaced", offsetof(struct atag_counters, replaced), false },
	};
	unsigned int i;
	int ret;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (stack && !keys[i].stack)
			continue;
		ret = count(d, o, keys[i].key, false, (uint64_t *)((char *)c + keys[i].at));
		if (ret)
			return ret;
	}
	return 0;
}

static int add_stack(struct doc *d, struct atag_report_tag *rt, JsonObject *o)
{
	struct atag_report_stack *rs;
	struct atag_counters c;
	JsonArray *fa;
	JsonNode *n;
	char **frames;
	guint i, nr;
	int ret;

	fa = array(d, o, "frames", false, &ret);
	if (ret)
		return ret;
	ret = counters(d, o, true, &c);
	if (ret)
		return ret;
	nr = json_array_get_length(fa);
	frames = calloc(nr + 1, sizeof(*frames));
	for (i = 0; frames && i < nr; i++) {
		n = json_array_get_element(fa, i);
		if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
			ret = bad(d, "frames[%u] is not a string", i);
			free(frames);
			return ret;
		}
		/* the report's names, as the fold's are (atag_fold_stack()) */
		frames[i] = (char *)atag_fold_name(atag_report_fold(d->r),
						   json_node_get_string(n));
	}
	rs = frames ? atag_fold_stack(atag_report_fold(d->r), rt, frames, NULL, nr) : NULL;
	if (!rs)
		return -ENOMEM;
	atag_counters_add(&rs->counts, &c);
	return 0;
}

static int add_tag(struct doc *d, JsonObject *o, const char *only)
{
	const char *function, *file, *module, *ptr;
	const struct atag_source *src;
	struct atag_report_tag *rt;
	struct atag_counters c;
	long long line, offset;
	uint64_t stacked, nested, tag = 0;
	JsonArray *stacks;
	char *end = NULL;
	guint i;
	int ret;

	src = source_of(d, o, &ret);
	if (ret)
		return ret;
	if (only && strcmp(only, src->name))
		return 0;
	if ((ret = string_or_null(d, o, "function", &function)) ||
	    (ret = string_or_null(d, o, "file", &file)) ||
	    (ret = string_or_null(d, o, "module", &module)) ||
	    (ret = string_or_null(d, o, "tag", &ptr)) ||
	    (ret = int_or_null(d, o, "line", -1, &line)) ||
	    (ret = int_or_null(d, o, "offset", -1, &offset)) ||
	    (ret = count(d, o, "stacked", true, &stacked)) ||
	    (ret = count(d, o, "nested", true, &nested)) ||
	    (ret = counters(d, o, false, &c)))
		return ret;
	if (ptr) {
		errno = 0;
		tag = strncmp(ptr, "0x", 2) ? 0 : strtoull(ptr + 2, &end, 16);
		if (errno || end == ptr + 2 || *end || strncmp(ptr, "0x", 2))
			return bad(d, "'tag' is not an address: '%s'", ptr);
	}
	stacks = array(d, o, "stacks", true, &ret);
	if (ret)
		return ret;
	if (!atag_fold_source(d->r, src->name))
		return -ENOMEM;
	rt = atag_fold_tag(atag_report_fold(d->r), d->r, src->name, tag, function, file, line,
			   offset, module);
	if (!rt)
		return -ENOMEM;
	atag_counters_add(&rt->counts, &c);
	rt->stacked += stacked;
	rt->nested += nested;
	for (i = 0; stacks && i < json_array_get_length(stacks); i++) {
		snprintf(d->where + strlen(d->where), sizeof(d->where) - strlen(d->where),
			 ".stacks[%u]", i);
		o = object_at(d, stacks, i, &ret);
		if (!ret)
			ret = add_stack(d, rt, o);
		if (ret)
			return ret;
		*strrchr(d->where, '.') = '\0';
	}
	return 0;
}

/* Each source's stack sampling: one allocation in stack_every carries a stack. */
static int add_sources(struct doc *d, JsonArray *a)
{
	const struct atag_source *src;
	struct atag_report_source *rs;
	long long every;
	JsonObject *o;
	guint i;
	int ret;

	for (i = 0; a && i < json_array_get_length(a); i++) {
		snprintf(d->where, sizeof(d->where), "sources[%u]", i);
		o = object_at(d, a, i, &ret);
		if (!ret)
			src = source_of(d, o, &ret);
		if (!ret)
			ret = int_or_null(d, o, "stack_every", 0, &every);
		if (ret)
			return ret;
		if (every < 0 || every > UINT32_MAX)
			return bad(d, "'stack_every' is not a count");
		rs = atag_fold_source(d->r, src->name);
		if (!rs)
			return -ENOMEM;
		if (every)
			rs->stack_every = every;
	}
	return 0;
}

static int add_files(struct doc *d, JsonArray *a, const char *path)
{
	struct atag_report_file *f;
	const char *name, *buffer;
	uint64_t first, last, elapsed, records;
	JsonObject *o;
	guint i;
	int ret;

	for (i = 0; i < json_array_get_length(a); i++) {
		snprintf(d->where, sizeof(d->where), "files[%u]", i);
		o = object_at(d, a, i, &ret);
		if (ret)
			return ret;
		if ((ret = string_or_null(d, o, "path", &name)) ||
		    (ret = string_or_null(d, o, "buffer", &buffer)) ||
		    (ret = count(d, o, "first_ts", true, &first)) ||
		    (ret = count(d, o, "last_ts", true, &last)) ||
		    (ret = count(d, o, "elapsed_ns", true, &elapsed)) ||
		    (ret = count(d, o, "records", true, &records)))
			return ret;
		if (!first && !last)
			last = elapsed;
		f = realloc(d->r->files, (d->r->nr_files + 1) * sizeof(*f));
		if (!f)
			return -ENOMEM;
		d->r->files = f;
		f = &f[d->r->nr_files];
		memset(f, 0, sizeof(*f));
		/* the document and the trace it was made of; leaks' instance is the buffer */
		f->path = name && buffer ? g_strdup_printf("%s (%s)", path, name) : strdup(path);
		f->buffer = strdup(buffer ? buffer : name ? name : "");
		f->also = calloc(1, sizeof(*f->also));
		f->sources = calloc(1, sizeof(*f->sources));
		if (!f->path || !f->buffer || !f->also || !f->sources) {
			free(f->path);
			free(f->buffer);
			free(f->also);
			free(f->sources);
			return -ENOMEM;
		}
		f->source = "";
		f->first_ts = first;
		f->last_ts = last;
		f->records = records;
		d->r->nr_files++;
	}
	return 0;
}

/* The sources a file of the document read, once its call sites are in. */
static void file_sources(struct atag_report *r, unsigned int from)
{
	struct atag_report_file *f;
	unsigned int i, k;
	const char **s;

	for (i = from; i < r->nr_files; i++) {
		f = &r->files[i];
		s = realloc(f->sources, (r->nr_sources + 1) * sizeof(*s));
		if (!s)
			continue;
		f->sources = s;
		for (k = 0; k < r->nr_sources; k++)
			s[f->nr_sources++] = r->sources[k].name;
		f->source = r->nr_sources ? s[0] : "?";
	}
}

/* notices[] or remarks[] of the document, added to @r's. */
static int add_lines(struct doc *d, JsonArray *a, const char *key, char ***list,
		     unsigned int *nr)
{
	char **p, *line;
	JsonNode *n;
	guint i;

	for (i = 0; a && i < json_array_get_length(a); i++) {
		n = json_array_get_element(a, i);
		if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
			snprintf(d->where, sizeof(d->where), "%s[%u]", key, i);
			return bad(d, "not a string");
		}
		p = realloc(*list, (*nr + 1) * sizeof(*p));
		line = strdup(json_node_get_string(n));
		if (p)
			*list = p;
		if (!p || !line) {
			free(line);
			return -ENOMEM;
		}
		p[(*nr)++] = line;
	}
	return 0;
}

static int read_document(struct doc *d, JsonNode *root, const char *path)
{
	const struct atag_read_opts *ro = &atag_report_opts_of(d->r)->read;
	unsigned int first_file = d->r->nr_files;
	JsonArray *tags, *files, *sources = NULL, *notices = NULL, *remarks = NULL;
	JsonNode *complete;
	JsonObject *o;
	guint i;
	int ret;

	if (ro->buffer || ro->has_start || ro->has_end || ro->nr_pids || ro->nr_comms)
		return bad(d, "-B, --comm and a --start or --end window select the records of "
			   "a trace.dat: they cannot apply to the counts of a document");
	if (!JSON_NODE_HOLDS_OBJECT(root))
		return bad(d, "not a JSON object");
	o = json_node_get_object(root);
	tags = array(d, o, "tags", false, &ret);
	if (ret)
		return bad(d, "no tags[]: not what report -f json or leaks -o writes");
	files = array(d, o, "files", false, &ret);
	if (!ret)
		sources = array(d, o, "sources", true, &ret);
	if (!ret)
		notices = array(d, o, "notices", true, &ret);
	if (!ret)
		remarks = array(d, o, "remarks", true, &ret);
	if (!ret)
		ret = add_files(d, files, path);
	if (!ret)
		ret = add_sources(d, sources);
	for (i = 0; !ret && i < json_array_get_length(tags); i++) {
		snprintf(d->where, sizeof(d->where), "tags[%u]", i);
		o = object_at(d, tags, i, &ret);
		if (!ret)
			ret = add_tag(d, o, ro->source);
	}
	d->where[0] = '\0';
	if (ret)
		return ret;
	file_sources(d->r, first_file);
	ret = add_lines(d, notices, "notices", &d->r->notices, &d->r->nr_notices);
	if (!ret)
		ret = add_lines(d, remarks, "remarks", &d->r->remarks, &d->r->nr_remarks);
	complete = member(json_node_get_object(root), "complete");
	if (!is_null(complete) && JSON_NODE_HOLDS_VALUE(complete) &&
	    json_node_get_value_type(complete) == G_TYPE_BOOLEAN && !json_node_get_boolean(complete))
		d->r->complete = false;
	return ret;
}

int atag_report_add_document(struct atag_report *r, const char *path, char *err, size_t errlen)
{
	struct doc d = { .r = r, .err = err, .errlen = errlen };
	JsonParser *parser = json_parser_new();
	GError *gerr = NULL;
	int ret;

	if (!json_parser_load_from_file(parser, path, &gerr)) {
		if (gerr->domain == G_FILE_ERROR)
			snprintf(err, errlen, "%s", gerr->message);
		else
			snprintf(err, errlen, "not valid JSON: %s", gerr->message);
		ret = gerr->domain == G_FILE_ERROR ? -EIO : -EINVAL;
		g_error_free(gerr);
		g_object_unref(parser);
		return atag_err(ret);
	}
	ret = read_document(&d, json_parser_get_root(parser), path);
	g_object_unref(parser);
	/* its live allocations are counted, not listed: no suspects can be told */
	r->live_unlisted = true;
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret ? atag_err(ret) : 0;
}
