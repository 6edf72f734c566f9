// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-state: a recording's state file, as reset reads it back
 * (atag_state_load(), lib/kernel/atag-state.c).
 */
#include "atag-state.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct atag_state *st;

	if (!path)
		return 0;
	st = atag_state_load(path);
	atag_state_free(st);
	return 0;
}
