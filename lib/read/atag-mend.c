// SPDX-License-Identifier: LGPL-2.1
/*
 * Mending a trace.dat whose saved comms trace-cmd record wrote cut short (struct
 * atag_comms_layout in atag-tracedat.h), in place, no other byte moved. See
 * atag_trace_mend() in include/atag-trace.h.
 *
 * Version 6 keeps the comms inline, between the printk formats and the CPU count: the
 * size it declares becomes the number of bytes that are there (the bytes of trace-cmd's
 * second, complete read of the kernel's table). Version 7 reaches its sections through
 * option values: a new comms section of the whole lines the file holds, compressed as
 * the file is, goes at the file's end, and the CMDLINES option's value (in an
 * uncompressed options section, as trace-cmd writes them) is pointed at it. The old
 * section stays in the file, unreferenced.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atag-trace.h"
#include "atag-tracedat.h"
#include "atag-utils.h"

#define OPT_CMDLINES	21
#define SEC_COMPRESSED	1

/* @v in the file's byte order, @size bytes of it into @p */
static void put_num(const struct atag_tracedat *td, void *p, uint64_t v, int size)
{
	uint16_t v16 = v;
	uint32_t v32 = v;

	if (td->swap) {
		v = __builtin_bswap64(v);
		v16 = __builtin_bswap16(v16);
		v32 = __builtin_bswap32(v32);
	}
	memcpy(p, size == 2 ? (void *)&v16 : size == 4 ? (void *)&v32 : (void *)&v, size);
}

static int write_all(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf = (const char *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

/* Version 6: the declared size becomes what is there. */
static int mend_v6(int fd, const struct atag_tracedat *td, char *err, size_t errlen)
{
	const struct atag_comms_layout *c = &td->comms;
	char size[8];

	if (c->declared == c->present) {
		snprintf(err, errlen, "%u malformed comm %s inside a version 6 file cannot be "
			 "left out in place", c->dropped, c->dropped == 1 ? "line" : "lines");
		return -EINVAL;
	}
	put_num(td, size, c->present, 8);
	return write_all(fd, size, 8, c->size_at);
}

/*
 * Version 7: the section { u16 id, u16 flags, u32 description, u64 size } and its
 * content { u64 size, text } (compressed: { u32 size, u32 uncompressed size, data })
 * at the end of the file, then the option pointed at it.
 */
static int mend_v7(int fd, struct atag_tracedat *td, char *err, size_t errlen)
{
	const struct atag_comms_layout *c = &td->comms;
	size_t raw_len = 8 + c->text_len, body_len, zlen = 0;
	char head[16], *raw, *body = NULL, where[8];
	bool compressed = td->algo != ATAG_ALGO_NONE;
	void *z = NULL;
	struct stat st;
	int ret;

	if (!c->option_at) {
		snprintf(err, errlen, "its saved comms are listed in a compressed options "
			 "section, which cannot be rewritten in place");
		return -EINVAL;
	}
	raw = malloc(raw_len);
	if (!raw)
		return -ENOMEM;
	put_num(td, raw, c->text_len, 8);
	memcpy(raw + 8, c->text, c->text_len);
	if (compressed) {
		ret = atag_tracedat_compress(td, raw, raw_len, &z, &zlen);
		if (ret || zlen > UINT32_MAX || raw_len > UINT32_MAX) {
			snprintf(err, errlen, "cannot compress its saved comms");
			ret = ret ? ret : -E2BIG;
			goto out;
		}
		body_len = 8 + zlen;
		body = malloc(body_len);
		if (!body) {
			ret = -ENOMEM;
			goto out;
		}
		put_num(td, body, zlen, 4);
		put_num(td, body + 4, raw_len, 4);
		memcpy(body + 8, z, zlen);
	}
	put_num(td, head, OPT_CMDLINES, 2);
	put_num(td, head + 2, compressed ? SEC_COMPRESSED : 0, 2);
	put_num(td, head + 4, c->desc, 4);
	put_num(td, head + 8, compressed ? body_len : raw_len, 8);
	ret = fstat(fd, &st) ? -errno : 0;
	if (!ret)
		ret = write_all(fd, head, sizeof(head), st.st_size);
	if (!ret)
		ret = write_all(fd, compressed ? body : raw, compressed ? body_len : raw_len,
				st.st_size + sizeof(head));
	/* the new section is whole before anything points at it */
	if (!ret && fdatasync(fd))
		ret = -errno;
	put_num(td, where, st.st_size, 8);
	if (!ret)
		ret = write_all(fd, where, 8, c->option_at);
	if (ret && !*err)
		snprintf(err, errlen, "cannot write its mended saved comms: %s", strerror(-ret));
out:
	free(body);
	free(z);
	free(raw);
	return ret;
}

int atag_trace_mend(const char *path, char *what, size_t whatlen, char *err, size_t errlen)
{
	struct atag_tracedat *td;
	const struct atag_comms_layout *c;
	int fd, ret;

	*what = *err = '\0';
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return atag_err(-errno);
	}
	ret = atag_tracedat_open(fd, &td, err, errlen);
	if (ret) {
		close(fd);
		return atag_err(ret);
	}
	c = &td->comms;
	if (c->damaged) {
		ret = td->version == 6 ? mend_v6(fd, td, err, errlen) :
					 mend_v7(fd, td, err, errlen);
		if (!ret && c->declared == c->present)
			snprintf(what, whatlen, "its saved comms held %u malformed %s: rewritten "
				 "with the %u whole lines", c->dropped,
				 c->dropped == 1 ? "line" : "lines", c->read);
		else if (!ret)
			snprintf(what, whatlen, "its saved comms were cut (%llu bytes declared, "
				 "%llu written: the kernel's table changed while trace-cmd read "
				 "it twice): %s, %u comms", (unsigned long long)c->declared,
				 (unsigned long long)c->present, td->version == 6 ?
				 "declared as written" : "rewritten in whole lines", c->read);
		if (!ret)
			ret = 1;
	}
	atag_tracedat_close(td);
	if (close(fd) && ret >= 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		ret = -errno;
	}
	return atag_err(ret);
}
