// SPDX-License-Identifier: GPL-2.0
/* A stand-in for a module's .ko in tests/t-debuginfo.sh: compiled with -g -c. */
extern int alloc_thing(int n);

static int __attribute__((noinline)) mod_helper(int x)
{
	return alloc_thing(x) + 5;
}

int __attribute__((noinline)) fake_mod_alloc(int n)
{
	int s = 0;

	while (n--)
		s += mod_helper(n);
	return s;
}
