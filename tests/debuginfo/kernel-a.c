// SPDX-License-Identifier: GPL-2.0
/* A stand-in for vmlinux in tests/t-debuginfo.sh: compiled with -g, never run. */
__asm__(".text\n.globl _text\n_text:\n");

int kernel_b_entry(int x);

static int __attribute__((noinline)) helper(int x)
{
	return x * 3 + 1;
}

int __attribute__((noinline)) alloc_thing(int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++)
		s += helper(i);
	return s + kernel_b_entry(n);
}

void _start(void)
{
	alloc_thing(4);
	for (;;)
		;
}
