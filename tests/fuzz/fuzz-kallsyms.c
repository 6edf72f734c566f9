// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-kallsyms: a kallsyms text (lib/read/atag-symbols.c), installed as a tep's
 * function resolver and looked up at addresses near its symbols.
 */
#include <string.h>

#include <event-parse.h>

#include "atag-symbols.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct atag_modules *m = atag_modules_parse((const char *)data, size);
	struct tep_handle *tep = tep_alloc();
	const char *mod;
	uint64_t addr, off;
	char buf[256];
	size_t i;

	if (m && tep && !atag_modules_attach(m, tep)) {
		/* addresses from the input itself, and their neighbours */
		for (i = 0; i + 8 <= size && i < 64 * 8; i += 8) {
			memcpy(&addr, data + i, 8);
			atag_function_of(tep, m, addr, &off, &mod);
			atag_function_of(tep, m, addr - 1, &off, &mod);
			atag_symbolize(tep, m, addr + 1, buf, sizeof(buf));
		}
		atag_symbolize(tep, m, 0, buf, sizeof(buf));
		atag_symbolize(tep, m, ~0ULL, buf, sizeof(buf));
	}
	if (tep)
		tep_free(tep);
	atag_modules_free(m);
	return 0;
}
