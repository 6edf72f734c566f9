// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-allocinfo-ioctl: the binary records of the allocinfo ioctls (CONTENT_ID,
 * GET_AT in both layouts, GET_NEXT), answered from the input through
 * atag_allocinfo_open_ops(), as atag_allocinfo_list() reads them; and the text
 * fallback when the input's first byte refuses both layouts (ENOTTY).
 *
 * Input: u8 mode (bit 0: GET_AT is ENOTTY, bit 1: the 7.3 layout is ENOTTY too,
 * bit 2: filter on the trace state), then records of struct allocinfo_tag_data
 * (each GET_AT/GET_NEXT takes the next; -ENOENT after the last), or the text.
 */
#include <errno.h>
#include <string.h>

#include "atag-allocinfo-uapi.h"
#include "atag-allocinfo.h"
#include "atag-filter.h"
#include "fuzz.h"

struct input {
	const uint8_t	*data;
	size_t		size;
	size_t		pos;
	uint8_t		mode;
};

static int next_record(struct input *in, struct allocinfo_tag_data *d)
{
	size_t n = sizeof(*d);

	if (in->size - in->pos < n)
		return -ENOENT;
	memcpy(d, in->data + in->pos, n);
	in->pos += n;
	return 0;
}

static int fake_ioctl(void *ctx, unsigned int cmd, void *arg)
{
	struct input *in = ctx;

	switch (cmd) {
	case ALLOCINFO_IOC_CONTENT_ID:
		((struct allocinfo_content_id *)arg)->id = 7;
		return 0;
	case ALLOCINFO_IOC_GET_AT:
		if (in->mode & 1)
			return -ENOTTY;
		in->pos = 1;
		return next_record(in, &((struct allocinfo_get_at *)arg)->data);
	case ALLOCINFO_IOC_GET_AT_V73:
		if (in->mode & 2)
			return -ENOTTY;
		in->pos = 1;
		return next_record(in, &((struct allocinfo_get_at_v73 *)arg)->data);
	case ALLOCINFO_IOC_GET_NEXT:
		return next_record(in, arg);
	default:
		return -ENOTTY;
	}
}

static ssize_t fake_read(void *ctx, char *buf, size_t len, off_t off)
{
	struct input *in = ctx;
	size_t have = in->size - 1;

	if ((size_t)off >= have)
		return 0;
	if (len > have - off)
		len = have - off;
	memcpy(buf, in->data + 1 + off, len);
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct atag_allocinfo_ops ops = { .ioctl = fake_ioctl, .read = fake_read };
	struct input in = { .data = data, .size = size };
	struct atag_taglist *list = NULL;
	struct atag_allocinfo *ai;
	struct atag_filter f;

	if (!size)
		return 0;
	in.mode = data[0];
	ai = atag_allocinfo_open_ops("fuzz", &ops, &in);
	if (!ai)
		return 0;
	atag_filter_init(&f);
	if (in.mode & 4)
		f.traced = 1;
	if (!atag_allocinfo_list(ai, &f, &list))
		atag_taglist_free(list);
	atag_allocinfo_close(ai);
	return 0;
}
