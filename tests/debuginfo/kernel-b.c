// SPDX-License-Identifier: GPL-2.0
/* The second file of the stand-in vmlinux: a static helper() of its own. */
static int __attribute__((noinline)) helper(int x)
{
	return x * 7 - 2;
}

int __attribute__((noinline)) kernel_b_entry(int n)
{
	return helper(n) + helper(n + 1);
}
