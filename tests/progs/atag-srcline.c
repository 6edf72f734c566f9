// SPDX-License-Identifier: GPL-2.0
/*
 * atag-srcline [--vmlinux FILE] [--release R] [--modules DIR] [--text ADDR]:
 * answers queries on standard input with lib/read/atag-debuginfo.c, one a line:
 *
 *   line MODULE FUNCTION OFFSET ADDR RET   ->  "file:line", or "-" when unknown
 *   mismatch NAME ADDR [NAME ADDR...]      ->  the number of functions out of place
 *
 * MODULE "-" is vmlinux; numbers are hex. tests/t-debuginfo.sh compares the
 * lines with addr2line's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atag-debuginfo.h"

int main(int argc, char **argv)
{
	struct atag_debuginfo_opts o = { 0 };
	const char *dirs[2] = { NULL, NULL }, *file;
	struct atag_debuginfo *di;
	char err[512], buf[4096], *tok, *save;
	unsigned long long text = 0;
	int i, line;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--vmlinux"))
			o.vmlinux = argv[i + 1];
		else if (!strcmp(argv[i], "--release"))
			o.release = argv[i + 1];
		else if (!strcmp(argv[i], "--modules"))
			o.module_dirs = (dirs[0] = argv[i + 1], dirs);
		else if (!strcmp(argv[i], "--text"))
			text = strtoull(argv[i + 1], NULL, 16);
	}
	di = atag_debuginfo_open(&o, err, sizeof(err));
	if (!di) {
		fprintf(stderr, "atag-srcline: %s\n", err);
		return 1;
	}
	if (text)
		atag_debuginfo_set_kernel_base(di, text);
	while (fgets(buf, sizeof(buf), stdin)) {
		tok = strtok_r(buf, " \n", &save);
		if (tok && !strcmp(tok, "line")) {
			char *mod = strtok_r(NULL, " \n", &save);
			char *fn = strtok_r(NULL, " \n", &save);
			char *off = strtok_r(NULL, " \n", &save);
			char *addr = strtok_r(NULL, " \n", &save);
			char *ret = strtok_r(NULL, " \n", &save);

			if (!ret)
				break;
			if (atag_debuginfo_line(di, strcmp(mod, "-") ? mod : NULL, fn,
						strtoull(off, NULL, 16), strtoull(addr, NULL, 16),
						atoi(ret), &file, &line))
				puts("-");
			else
				printf("%s:%d\n", file, line);
		} else if (tok && !strcmp(tok, "mismatch")) {
			const char *names[64];
			uint64_t addrs[64];
			unsigned int n = 0;
			char *name;

			while (n < 64 && (name = strtok_r(NULL, " \n", &save))) {
				names[n] = name;
				tok = strtok_r(NULL, " \n", &save);
				addrs[n++] = tok ? strtoull(tok, NULL, 16) : 0;
			}
			printf("%u\n", atag_debuginfo_mismatch(di, names, addrs, n));
		}
		fflush(stdout);
	}
	atag_debuginfo_close(di);
	return 0;
}
