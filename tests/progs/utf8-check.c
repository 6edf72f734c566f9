// SPDX-License-Identifier: GPL-2.0
/*
 * utf8-check FILE: exit 0 when FILE is strictly valid UTF-8 (GLib's validator: no
 * overlong forms, surrogates, code points above U+10FFFF or NUL bytes), else print
 * the offset of the first bad byte and exit 1. JSON must be UTF-8 (RFC 8259), and jq
 * silently repairs what is not, so the tests use this where python3 may be missing.
 */
#include <glib.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	GError *err = NULL;
	const gchar *end;
	gchar *text;
	gsize len;

	if (argc != 2) {
		fprintf(stderr, "usage: utf8-check FILE\n");
		return 2;
	}
	if (!g_file_get_contents(argv[1], &text, &len, &err)) {
		fprintf(stderr, "utf8-check: %s\n", err->message);
		g_error_free(err);
		return 2;
	}
	if (!g_utf8_validate(text, len, &end)) {
		printf("%s: not UTF-8 at byte %zu\n", argv[1], (size_t)(end - text));
		g_free(text);
		return 1;
	}
	g_free(text);
	return 0;
}
