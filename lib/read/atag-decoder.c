// SPDX-License-Identifier: LGPL-2.1
/*
 * The decoder every source shares: it resolves fields once per trace, dispatches
 * records by event id to the source that reads them (one decoder reads several
 * sources of one trace), reads fields with bounds checks, and decodes kernel
 * stacks itself, numbering the distinct ones (atag-stack-ids.h: a stack met
 * again is not classified again, and its key spares the pipe and the stitcher
 * comparing its frames). Whatever a message needs from the trace is resolved here, before
 * it goes to the sink: a hit's call-site strings (once per tag), the event a
 * stack names and the call site it gives, the task's class and the filter's
 * decision. It also reads what no source does but the report needs: the
 * recording's marker lines (ftrace:print) and the task events (sched_process_fork,
 * exec, exit). See atag-source.h.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-map.h"
#include "atag-recording.h"
#include "atag-source.h"
#include "atag-stack-ids.h"
#include "atag-symbols.h"

#define MAX_FRAMES	512

enum { TASK_COUNTED = 1, TASK_FILTERED };

/* events of all sources and the special ones: slot numbers below SLOT_OTHER */
#define MAX_DISPATCH	128
#define SLOT_OTHER	0xff

/* Records no source reads that the decoder reads itself. */
enum special {
	S_NONE,
	S_PRINT,	/* ftrace:print: a marker line? */
	S_FORK,		/* sched:sched_process_fork */
	S_EXEC,		/* sched:sched_process_exec */
	S_EXIT,		/* sched:sched_process_exit */
};

/* What to do with a record of a given event id. */
struct dispatch {
	const struct atag_source_event	*ev;		/* NULL: not a source's */
	uint8_t				src;		/* the source's index */
	uint8_t				special;	/* enum special */
	int				index;		/* in the source's events */
	bool				untagged;	/* made an ALLOC of tag 0 */
	bool				sampled;	/* its stacks were sampled */
	struct atag_field		f[ATAG_SOURCE_MAX_FIELDS];
};

struct atag_decoder {
	const struct atag_source	*src[ATAG_DECODER_MAX_SOURCES];
	unsigned int			nr_src;
	struct tep_handle		*tep;
	/*
	 * Event id -> 1 + index into disp, SLOT_OTHER for another event of the
	 * trace, 0 for an id the trace defines no event for; as many entries as the
	 * largest id the trace has (at most 65536: records carry 16 bits): one byte
	 * per id, the few dispatch entries stay in the first-level cache.
	 */
	uint8_t				*slot;
	int				nr_ids;
	struct dispatch			disp[MAX_DISPATCH];
	int				nr_disp;
	int				stack_id;	/* ftrace:kernel_stack, or -1 */
	struct atag_field		stack_size;
	struct atag_field		stack_caller;
	int				long_size;
	bool				swap;		/* file endianness differs */
	uint64_t			*counts[ATAG_DECODER_MAX_SOURCES];	/* per event */
	uint64_t			stacks;
	uint64_t			malformed;
	uint64_t			implausible;	/* sizes no machine has */
	uint64_t			bytes;		/* allocated and freed, saturating */
	struct atag_map			described;	/* tags whose call site went out */
	/* the task filter: pid -> TASK_*, from task_selected() on first sight */
	bool				(*task_selected)(void *ctx, int pid);
	void				*task_ctx;
	struct atag_map			tasks;
	/* or the scope and the recording's description */
	struct atag_scope		*scope;
	struct atag_recording		*rec;
	uint64_t			markers;	/* marker lines read */
	struct atag_frame_cache		*frames_seen;	/* frame address -> class */
	struct atag_stack_ids		*stack_ids;	/* distinct stacks: their key */
	const struct atag_modules	*modules;
	const struct atag_flag_names	*gfp_names;	/* may be NULL */
	uint64_t			frames[MAX_FRAMES];
	char				name[ATAG_DECODER_NAME_LEN];
};

static void field_of(const struct atag_decoder *d, struct tep_event *event, const char *names,
		     struct atag_field *f)
{
	struct tep_format_field *tf = NULL;
	char name[64];
	const char *p;
	size_t n;

	memset(f, 0, sizeof(*f));
	for (p = names; *p && !tf; p += n + (p[n] == '|')) {
		n = strcspn(p, "|");
		if (n >= sizeof(name))
			return;
		memcpy(name, p, n);
		name[n] = '\0';
		tf = tep_find_field(event, name);
	}
	/* a record is shorter than a page: a field beyond 64 KiB is no field */
	if (!tf || tf->offset < 0 || tf->size <= 0 || tf->offset > 0xffff || tf->size > 0xffff)
		return;
	f->offset = tf->offset;
	f->size = tf->size;
	f->dynamic = tf->flags & TEP_FIELD_IS_DYNAMIC;
	f->relative = tf->flags & TEP_FIELD_IS_RELATIVE;
	f->native64 = f->size == 8 && !f->dynamic && !d->swap;
}

/* The dispatch entry of event @id, or NULL (another event, or none). */
static inline struct dispatch *dispatch_of(const struct atag_decoder *d, int id)
{
	unsigned int s = d->slot[id];

	return s && s != SLOT_OTHER ? (struct dispatch *)&d->disp[s - 1] : NULL;
}

static struct dispatch *new_dispatch(struct atag_decoder *d, int id)
{
	if (d->nr_disp >= MAX_DISPATCH)
		return NULL;
	d->slot[id] = d->nr_disp + 1;
	return &d->disp[d->nr_disp++];
}

static int add_event(struct atag_decoder *d, unsigned int src, const struct atag_source_event *se,
		     int index)
{
	struct tep_event *event = tep_find_event_by_name(d->tep, se->system, se->name);
	struct dispatch *dp;
	int i;

	/* records name their event in 16 bits: an event of another id has none */
	if (!event || event->id < 0 || event->id >= d->nr_ids)
		return 0;
	dp = dispatch_of(d, event->id);
	if (dp)
		return 0;		/* an event two sources name: the first one's */
	dp = new_dispatch(d, event->id);
	if (!dp)
		return -EINVAL;
	dp->ev = se;
	dp->src = src;
	dp->index = index;
	for (i = 0; se->fields[i]; i++)
		field_of(d, event, se->fields[i], &dp->f[i]);
	return 1;
}

/* The fields the decoder reads of a special event, in the order of enum special. */
static const struct {
	const char	*system;
	const char	*name;
	const char	*fields[4];
} specials[] = {
	[S_PRINT] = { "ftrace", "print", { "buf" } },
	[S_FORK] = { "sched", "sched_process_fork",
		     { "parent_pid", "child_pid", "child_comm" } },
	[S_EXEC] = { "sched", "sched_process_exec", { "pid", "old_pid", "filename" } },
	[S_EXIT] = { "sched", "sched_process_exit", { "pid" } },
};

static void add_special(struct atag_decoder *d, enum special k)
{
	struct tep_event *event = tep_find_event_by_name(d->tep, specials[k].system,
							 specials[k].name);
	struct tep_format_field *tf;
	struct dispatch *dp;
	int i;

	if (!event || event->id < 0 || event->id >= d->nr_ids || dispatch_of(d, event->id))
		return;
	dp = new_dispatch(d, event->id);
	if (!dp)
		return;
	dp->special = k;
	for (i = 0; specials[k].fields[i]; i++) {
		field_of(d, event, specials[k].fields[i], &dp->f[i]);
		/* strings may be char[N] (older kernels) or buf[]: offset, size as they are */
		tf = tep_find_field(event, specials[k].fields[i]);
		if (tf && !dp->f[i].size && tf->offset >= 0) {
			dp->f[i].offset = tf->offset;
			dp->f[i].size = -1;	/* up to the end of the record */
		}
	}
}

static int max_event_id(struct tep_handle *tep)
{
	struct tep_event **events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	int i, max = 0;

	for (i = 0; events && events[i]; i++)
		if (events[i]->id > max && events[i]->id <= 0xffff)
			max = events[i]->id;
	return max;
}

/* Every event id the trace defines (a format libtraceevent could not parse whole too). */
static void mark_events(struct atag_decoder *d)
{
	struct tep_event **events = tep_list_events(d->tep, TEP_EVENT_SORT_ID);
	int i;

	for (i = 0; events && events[i]; i++)
		if (events[i]->id >= 0 && events[i]->id < d->nr_ids)
			d->slot[events[i]->id] = SLOT_OTHER;
}

struct atag_decoder *atag_decoder_alloc_sources(const struct atag_source *const *srcs,
						unsigned int nr, struct tep_handle *tep)
{
	struct atag_decoder *d = calloc(1, sizeof(*d));
	struct tep_event *stack;
	unsigned int k;
	int i, n = 0, ret;

	if (!d)
		return NULL;
	if (!nr || nr > ATAG_DECODER_MAX_SOURCES) {
		errno = nr ? E2BIG : ENOENT;
		goto fail;
	}
	d->tep = tep;
	d->nr_ids = max_event_id(tep) + 1;
	d->long_size = tep_get_long_size(tep);
	d->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	d->slot = calloc(d->nr_ids, sizeof(*d->slot));
	d->frames_seen = atag_frame_cache_alloc(tep);
	d->stack_ids = atag_stack_ids_alloc();
	if (!d->slot || !d->frames_seen || !d->stack_ids)
		goto fail;
	mark_events(d);
	for (k = 0; k < nr; k++) {
		d->src[k] = srcs[k];
		for (i = 0; srcs[k]->events[i].name; i++)
			;
		d->counts[k] = calloc(i + 1, sizeof(*d->counts[k]));
		if (!d->counts[k])
			goto fail;
		d->nr_src++;
		for (i = 0; srcs[k]->events[i].name; i++) {
			ret = add_event(d, k, &srcs[k]->events[i], i);
			if (ret < 0)
				goto fail;
			n += ret;
		}
	}
	if (!n) {
		errno = ENOENT;
		goto fail;
	}
	for (k = S_PRINT; k <= S_EXIT; k++)
		add_special(d, k);
	d->stack_id = -1;
	stack = tep_find_event_by_name(tep, "ftrace", "kernel_stack");
	if (stack) {
		d->stack_id = stack->id;
		field_of(d, stack, "size", &d->stack_size);
		field_of(d, stack, "caller", &d->stack_caller);
	}
	return d;
fail:
	atag_decoder_free(d);
	return NULL;
}

struct atag_decoder *atag_decoder_alloc(const struct atag_source *src, struct tep_handle *tep)
{
	return atag_decoder_alloc_sources(&src, 1, tep);
}

void atag_decoder_free(struct atag_decoder *d)
{
	int err = errno;
	unsigned int k;

	if (!d)
		return;
	free(d->slot);
	for (k = 0; k < d->nr_src; k++)
		free(d->counts[k]);
	atag_map_free(&d->described);
	atag_map_free(&d->tasks);
	atag_frame_cache_free(d->frames_seen);
	atag_stack_ids_free(d->stack_ids);
	free(d);
	errno = err;
}

struct tep_handle *atag_decoder_tep(const struct atag_decoder *d)
{
	return d->tep;
}

unsigned int atag_decoder_nr_sources(const struct atag_decoder *d)
{
	return d->nr_src;
}

const struct atag_source *atag_decoder_source(const struct atag_decoder *d, unsigned int src)
{
	return src < d->nr_src ? d->src[src] : NULL;
}

uint64_t atag_decoder_source_count(const struct atag_decoder *d, unsigned int src,
				   int event_index)
{
	return src < d->nr_src ? d->counts[src][event_index] : 0;
}

uint64_t atag_decoder_count(const struct atag_decoder *d, int event_index)
{
	return atag_decoder_source_count(d, 0, event_index);
}

uint64_t atag_decoder_markers(const struct atag_decoder *d)
{
	return d->markers;
}

uint64_t atag_decoder_stack_count(const struct atag_decoder *d)
{
	return d->stacks;
}

uint64_t atag_decoder_malformed(const struct atag_decoder *d)
{
	return d->malformed;
}

uint64_t atag_decoder_implausible(const struct atag_decoder *d)
{
	return d->implausible;
}

uint64_t atag_decoder_bytes(const struct atag_decoder *d)
{
	return d->bytes;
}

bool atag_decoder_source_has_event(const struct atag_decoder *d, unsigned int src,
				   int event_index)
{
	const struct atag_source_event *se;

	if (src >= d->nr_src)
		return false;
	se = &d->src[src]->events[event_index];
	return tep_find_event_by_name(d->tep, se->system, se->name) != NULL;
}

bool atag_decoder_has_event(const struct atag_decoder *d, int event_index)
{
	return atag_decoder_source_has_event(d, 0, event_index);
}

bool atag_decoder_has_stacks(const struct atag_decoder *d)
{
	return d->stack_id >= 0;
}

struct atag_frame_cache *atag_decoder_frames(const struct atag_decoder *d)
{
	return d->frames_seen;
}

void atag_decoder_set_modules(struct atag_decoder *d, const struct atag_modules *mods)
{
	d->modules = mods;
}

void atag_decoder_set_gfp_names(struct atag_decoder *d, const struct atag_flag_names *names)
{
	d->gfp_names = names;
}

const struct atag_flag_names *atag_decoder_gfp_names(const struct atag_decoder *d)
{
	return d->gfp_names;
}

void atag_decoder_set_task_filter(struct atag_decoder *d, bool (*selected)(void *ctx, int pid),
				  void *ctx)
{
	d->task_selected = selected;
	d->task_ctx = ctx;
}

int atag_decoder_stacks_sampled(struct atag_decoder *d, const char *event)
{
	const struct atag_source_event *se;
	char sys[64], *name;
	struct dispatch *dp;
	int i;

	snprintf(sys, sizeof(sys), "%s", event);
	name = strchr(sys, ':');
	if (!name)
		return -1;
	*name++ = '\0';
	for (i = 0; i < d->nr_disp; i++) {
		dp = &d->disp[i];
		se = dp->ev;
		if (se && !strcmp(se->system, sys) && !strcmp(se->name, name)) {
			dp->sampled = true;
			return dp->src;
		}
	}
	return -1;
}

void atag_decoder_set_scope(struct atag_decoder *d, struct atag_scope *scope,
			    struct atag_recording *rec)
{
	d->scope = scope;
	d->rec = rec;
}

/* Whether the filter leaves out task @pid, asked once per pid. */
static bool filtered(struct atag_decoder *d, int pid)
{
	uint64_t *task = atag_map_find(&d->tasks, (uint32_t)pid), v;

	if (task)
		return *task == TASK_FILTERED;
	v = d->task_selected(d->task_ctx, pid) ? TASK_COUNTED : TASK_FILTERED;
	/* without memory to keep it, it is asked again next time */
	atag_map_get(&d->tasks, (uint32_t)pid, v, NULL);
	return v == TASK_FILTERED;
}

void atag_source_name_code(struct atag_decoder *d, uint64_t tag, const char **function,
			   uint64_t *offset, const char **module)
{
	*function = atag_function_of(d->tep, d->modules, tag, offset, module);
}

char *atag_decoder_name_buf(struct atag_decoder *d)
{
	return d->name;
}

unsigned int atag_decoder_page_size(const struct atag_decoder *d)
{
	int ps = tep_get_page_size(d->tep);

	return ps > 0 ? ps : 4096;
}

bool atag_decoder_name_source_tag(struct atag_decoder *d, unsigned int src, uint64_t tag,
				  const char **function, uint64_t *offset, const char **module)
{
	*function = NULL;
	*module = NULL;
	*offset = 0;
	if (src >= d->nr_src || !d->src[src]->name_tag)
		return false;
	d->src[src]->name_tag(d, tag, function, offset, module);
	return *function != NULL;
}

bool atag_decoder_name_tag(struct atag_decoder *d, uint64_t tag, const char **function,
			   uint64_t *offset, const char **module)
{
	return atag_decoder_name_source_tag(d, 0, tag, function, offset, module);
}

uint64_t atag_source_stack_call_site(struct atag_decoder *d, const uint64_t *frames,
				     unsigned int nr)
{
	return atag_stack_call_site(d->frames_seen, frames, nr);
}

/* ------------------------------------------------------------ field reads */

static inline uint64_t load(const struct atag_decoder *d, const void *p, int size)
{
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;

	switch (size) {
	case 8:
		memcpy(&v64, p, 8);
		return d->swap ? __builtin_bswap64(v64) : v64;
	case 4:
		memcpy(&v32, p, 4);
		return d->swap ? __builtin_bswap32(v32) : v32;
	case 2:
		memcpy(&v16, p, 2);
		return d->swap ? __builtin_bswap16(v16) : v16;
	default:
		return *(const uint8_t *)p;
	}
}

int atag_field_read_slow(const struct atag_decoder *d, const struct atag_field *f,
			 const struct tep_record *rec, uint64_t *val)
{
	if (f->offset + f->size > rec->size)
		return -1;
	if (!f->size || f->size > 8 || (f->size & (f->size - 1)))
		return -1;
	*val = load(d, (const char *)rec->data + f->offset, f->size);
	return 0;
}

const char *atag_field_string(const struct atag_field *f, const struct tep_record *rec)
{
	unsigned int off, len;
	const char *s;
	uint32_t loc;

	if (!f->dynamic || f->size != 4 || f->offset + 4 > rec->size)
		return NULL;
	memcpy(&loc, (const char *)rec->data + f->offset, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	if (f->relative)
		off += f->offset + 4;
	if (!len || off + len > (unsigned int)rec->size)
		return NULL;
	s = (const char *)rec->data + off;
	return memchr(s, '\0', len) ? s : NULL;
}

/* ------------------------------------------------------------ feeding the stitcher */

/*
 * Whether the stitcher may want the call site of a stack naming event @type: an
 * allocation of tag 0 of that type may wait for it. A stack that names no event
 * may belong to any.
 */
static bool site_wanted(const struct atag_decoder *d, int type)
{
	const struct dispatch *dp = type >= 0 && type < d->nr_ids ? dispatch_of(d, type) : NULL;

	return type < 0 || type >= d->nr_ids || (dp && dp->untagged);
}

/* The source whose stack_site names the call site of a stack for event @type, or NULL. */
static const struct atag_source *site_source(const struct atag_decoder *d, int type)
{
	const struct dispatch *dp = type >= 0 && type < d->nr_ids ? dispatch_of(d, type) : NULL;
	unsigned int k;

	if (dp && dp->ev)
		return d->src[dp->src]->stack_site ? d->src[dp->src] : NULL;
	for (k = 0; k < d->nr_src; k++)
		if (d->src[k]->stack_site)
			return d->src[k];
	return NULL;
}

/* The call site of the @nr @frames for a stack naming @type, if wanted; else 0. */
static uint64_t stack_site(struct atag_decoder *d, int type, const uint64_t *frames,
			   unsigned int nr)
{
	const struct atag_source *src;

	if (site_wanted(d, type) && (src = site_source(d, type)))
		return src->stack_site(d, frames, nr);
	return 0;
}

/* The entries of a kernel_stack record: the frames it holds, at most MAX_FRAMES. */
static unsigned int stack_entries(const struct atag_decoder *d, const struct tep_record *rec)
{
	uint64_t size = MAX_FRAMES;
	unsigned int nr;
	int avail;

	/* the record holds 'size' entries, however many the format's caller[8] says */
	atag_field_read(d, &d->stack_size, rec, &size);
	avail = d->stack_caller.size ? (rec->size - d->stack_caller.offset) / d->long_size : 0;
	nr = avail < 0 ? 0 : (unsigned int)avail;
	if (size < nr)
		nr = size;
	return nr > MAX_FRAMES ? MAX_FRAMES : nr;
}

/* Whether the frames of a kernel_stack record can be taken from it as they are. */
static bool stack_in_place(const struct atag_decoder *d)
{
	return d->long_size == 8 && !d->swap && d->stack_size.size;
}

static int feed_stack(struct atag_decoder *d, const struct atag_sink *sink,
		      const struct tep_record *rec, int pid)
{
	const char *p = (const char *)rec->data + d->stack_caller.offset;
	unsigned int nr = stack_entries(d, rec), i;
	struct atag_stack_entry *e;
	const void *raw = d->frames;
	struct atag_kstack ks;
	bool created;
	uint64_t v;

	d->stacks++;
	if (stack_in_place(d)) {
		/* the size field says how many entries are valid: no terminator to look for */
		raw = p;
		i = nr;
	} else {
		/* older kernels end the array with -1 */
		for (i = 0; i < nr; i++) {
			v = load(d, p + i * d->long_size, d->long_size);
			if (v == (d->long_size == 8 ? ~0ULL : 0xffffffffULL))
				break;
			d->frames[i] = v;
		}
	}
	ks.cpu = rec->cpu;
	ks.pid = pid;
	ks.ts = rec->ts;
	e = atag_stack_ids_find_on(d->stack_ids, rec->cpu, raw, i, &created);
	if (e) {
		/* a set of frames met before: what it names and gives is known */
		ks.key = e->id;
		ks.frames = e->frames;
		ks.nr = e->nr;
		ks.kept = true;
		if (created)
			e->info.type = atag_stack_event(d->frames_seen, ks.frames, ks.nr);
		ks.type = e->info.type;
		/* whether the site is wanted changes as allocations of tag 0 appear */
		if (!e->info.site_known && site_wanted(d, ks.type)) {
			e->info.site = stack_site(d, ks.type, ks.frames, ks.nr);
			e->info.site_known = true;
		}
		ks.site = e->info.site_known ? e->info.site : 0;
		return sink->stack(sink->ctx, &ks);
	}
	ks.key = 0;
	if (raw != d->frames)
		memcpy(d->frames, raw, i * 8UL);
	ks.frames = d->frames;
	ks.nr = i;
	ks.kept = false;
	ks.type = atag_stack_event(d->frames_seen, d->frames, i);
	ks.site = stack_site(d, ks.type, d->frames, i);
	return sink->stack(sink->ctx, &ks);
}

/* A hit's call site goes out the first time its tag is met (until the record has it). */
static void describe(struct atag_decoder *d, const struct dispatch *dp,
		     const struct tep_record *rec, struct atag_event *ev)
{
	if (atag_map_find(&d->described, ev->tag) ||
	    d->src[dp->src]->hit_site(dp->f, rec, &ev->function, &ev->file, &ev->module)) {
		ev->function = ev->file = ev->module = NULL;
		return;
	}
	/* without memory to remember it, the site just goes out again */
	atag_map_get(&d->described, ev->tag, 1, NULL);
}

/* A string field: __data_loc, char[N] or a buf[] running to the end of the record. */
static const char *string_field(const struct atag_field *f, const struct tep_record *rec,
				size_t *len)
{
	const char *s;

	if (f->dynamic) {
		s = atag_field_string(f, rec);
		*len = s ? strlen(s) : 0;
		return s;
	}
	if (!f->size || f->offset >= rec->size)
		return NULL;
	s = (const char *)rec->data + f->offset;
	*len = f->size > 0 && f->offset + f->size <= rec->size ? (size_t)f->size :
	       (size_t)(rec->size - f->offset);
	*len = strnlen(s, *len);
	return s;
}

/* A marker line: into the description; the scope learns the tasks it names. */
static void on_print(struct atag_decoder *d, const struct dispatch *dp,
		     const struct tep_record *rec, struct atag_event *ev)
{
	const struct atag_recording *r = d->rec;
	enum atag_marker m;
	const char *text;
	size_t len;

	text = string_field(&dp->f[0], rec, &len);
	if (!text || !d->rec)
		return;
	m = atag_recording_line(d->rec, text, len, rec->ts);
	if (m == ATAG_MARKER_NONE)
		return;
	d->markers++;
	if (!d->scope || !atag_recording_labelled(r))
		return;
	switch (m) {
	case ATAG_MARKER_RECORD:
		atag_scope_set_labelled(d->scope, false);
		atag_scope_name(d->scope, r->record_pid, ATAG_TASK_RECORDER, NULL);
		break;
	case ATAG_MARKER_RECORDER:
		atag_scope_name(d->scope, r->recorders[r->nr_recorders - 1].pid,
				ATAG_TASK_RECORDER, r->recorders[r->nr_recorders - 1].comm);
		break;
	case ATAG_MARKER_WORKLOAD:
		atag_scope_set_labelled(d->scope, true);
		atag_scope_name(d->scope, r->workloads[r->nr_workloads - 1].pid,
				ATAG_TASK_WORKLOAD, r->workloads[r->nr_workloads - 1].comm);
		break;
	case ATAG_MARKER_COUNTERS_START:
	case ATAG_MARKER_COUNTERS_END:
		ev->kind = ATAG_EV_WINDOW;
		ev->ptr = m == ATAG_MARKER_COUNTERS_START ? ATAG_WINDOW_OPEN : ATAG_WINDOW_CLOSE;
		break;
	case ATAG_MARKER_COUNTERS_READING_START:
	case ATAG_MARKER_COUNTERS_READING_END:
		ev->kind = ATAG_EV_WINDOW;
		ev->ptr = m == ATAG_MARKER_COUNTERS_READING_START ? ATAG_WINDOW_READING_START :
								    ATAG_WINDOW_READING_END;
		break;
	default:
		break;
	}
}

/* The task events: who forked whom, who exec'd, who exited. */
static void on_task_event(struct atag_decoder *d, const struct dispatch *dp,
			  const struct tep_record *rec)
{
	uint64_t a = 0, b = 0;
	const char *s, *base;
	char comm[16];
	size_t len;

	if (!d->scope || atag_field_read(d, &dp->f[0], rec, &a))
		return;
	switch (dp->special) {
	case S_FORK:
		if (atag_field_read(d, &dp->f[1], rec, &b))
			return;
		s = string_field(&dp->f[2], rec, &len);
		snprintf(comm, sizeof(comm), "%.*s", s ? (int)len : 0, s ? s : "");
		atag_scope_fork(d->scope, (int32_t)a, (int32_t)b, s ? comm : NULL);
		break;
	case S_EXEC:
		/* the comm becomes the file's base name (TASK_COMM_LEN - 1 bytes) */
		s = string_field(&dp->f[2], rec, &len);
		if (!s)
			return;
		snprintf(comm, sizeof(comm), "%.*s", (int)len, s);
		base = strrchr(comm, '/');
		atag_scope_rename(d->scope, (int32_t)a, base ? base + 1 : comm);
		break;
	case S_EXIT:
		atag_scope_exit(d->scope, (int32_t)a);
		break;
	default:
		break;
	}
}

bool atag_decoder_ahead(struct atag_decoder *d, int cpu, const void *data, uint32_t size)
{
	struct tep_record rec = { .data = (void *)data, .size = size, .cpu = cpu };
	uint16_t type;

	if (!data)
		return d->stack_id >= 0 && stack_in_place(d) &&
		       atag_stack_ids_ahead_page(d->stack_ids, cpu);
	if (size < 8)
		return true;
	memcpy(&type, data, 2);
	if (type == d->stack_id)
		atag_stack_ids_ahead(d->stack_ids, cpu,
				     (const char *)data + d->stack_caller.offset,
				     stack_entries(d, &rec));
	return true;
}

int atag_decoder_feed(struct atag_decoder *d, const struct atag_sink *sink,
		      const struct tep_record *rec)
{
	struct atag_event ev;
	struct dispatch *dp;
	bool selected;
	uint16_t type;
	int32_t pid;
	int ret;

	if (rec->size < 8) {
		d->malformed++;
		return 0;
	}
	if (d->swap) {
		type = load(d, rec->data, 2);
		pid = (int32_t)load(d, (const char *)rec->data + 4, 4);
	} else {
		memcpy(&type, rec->data, 2);
		memcpy(&pid, (const char *)rec->data + 4, 4);
	}
	if (type == d->stack_id)
		return feed_stack(d, sink, rec, pid);
	/* a record of an event the trace does not define is damaged data */
	if (type >= d->nr_ids || !d->slot[type]) {
		d->malformed++;
		return 0;
	}
	/* every field set: an event of another type still crosses the pipe whole */
	ev.kind = ATAG_EV_OTHER;
	ev.type = type;
	ev.cpu = rec->cpu;
	ev.pid = pid;
	ev.ts = rec->ts;
	ev.tag = ev.ptr = ev.bytes = 0;
	ev.stack_follows = ev.stack_maybe = ev.tag_provisional = false;
	ev.filtered = false;
	ev.src = 0;
	ev.task = ATAG_TASK_ANY;
	ev.function = ev.file = ev.module = NULL;
	ev.line = -1;
	dp = dispatch_of(d, type);
	if (dp && dp->ev) {
		d->counts[dp->src][dp->index]++;
		ev.src = dp->src;
		ret = dp->ev->decode(d, dp->f, rec, &ev);
		if (ret < 0) {
			d->malformed++;
			ev.kind = ATAG_EV_OTHER;
		} else if (ret > 0) {
			ev.kind = ATAG_EV_OTHER;
		} else if (ev.kind == ATAG_EV_HIT && d->src[dp->src]->hit_site) {
			describe(d, dp, rec, &ev);
		} else if (ev.kind == ATAG_EV_ALLOC && (!ev.tag || ev.tag_provisional)) {
			dp->untagged = true;
		}
		if ((ev.kind == ATAG_EV_ALLOC || ev.kind == ATAG_EV_FREE) &&
		    ev.bytes > ATAG_EVENT_BYTES_MAX) {
			d->implausible++;
			ev.kind = ATAG_EV_OTHER;
		}
		if (dp->sampled && (ev.kind == ATAG_EV_ALLOC || ev.kind == ATAG_EV_HIT))
			ev.stack_follows = ev.stack_maybe = true;
		if (ev.kind == ATAG_EV_ALLOC || ev.kind == ATAG_EV_FREE) {
			if (__builtin_add_overflow(d->bytes, ev.bytes, &d->bytes))
				d->bytes = UINT64_MAX;
			if (d->scope && atag_scope_filters(d->scope)) {
				ev.task = atag_scope_task(d->scope, pid, &selected);
				ev.filtered = !selected;
			} else if (d->task_selected) {
				ev.filtered = filtered(d, pid);
			}
		}
	} else if (dp && dp->special == S_PRINT) {
		on_print(d, dp, rec, &ev);
	} else if (dp && dp->special) {
		on_task_event(d, dp, rec);
	}
	return sink->event(sink->ctx, &ev);
}
