// SPDX-License-Identifier: GPL-2.0
/*
 * atag-workload: kernel allocations of known kinds, for the recordings the tests
 * make on this machine's kernel (tests/t-report-kmem.sh).
 *
 *   atag-workload loop N      N x open, read and close /proc/self/stat (getname,
 *                             struct file, seq_file buffers: short lifetimes)
 *   atag-workload kvmalloc N  N x getxattr() with a 64 KiB buffer: the kernel
 *                             kvmalloc()s it (kmalloc's own event, then the caller's)
 *   atag-workload vma N       N x mmap() then munmap() of a page: maple tree nodes,
 *                             freed in bulk or after RCU (no kmem event)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/xattr.h>
#include <unistd.h>

static int loop(long n)
{
	char buf[512];
	int fd;

	while (n--) {
		fd = open("/proc/self/stat", O_RDONLY);
		if (fd < 0)
			return 1;
		if (read(fd, buf, sizeof(buf)) < 0)
			return 1;
		close(fd);
	}
	return 0;
}

static int kvm(long n)
{
	static char buf[65536];

	while (n--)
		if (getxattr("/", "user.atag-none", buf, sizeof(buf)) < 0 &&
		    errno != ENODATA && errno != ENOTSUP)
			return 1;
	return 0;
}

static int vma(long n)
{
	void *p;

	while (n--) {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		*(volatile char *)p = 1;
		munmap(p, 4096);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (argc != 3 || n <= 0) {
		fprintf(stderr, "usage: atag-workload loop|kvmalloc|vma N\n");
		return 2;
	}
	if (!strcmp(argv[1], "loop"))
		return loop(n);
	if (!strcmp(argv[1], "kvmalloc"))
		return kvm(n);
	if (!strcmp(argv[1], "vma"))
		return vma(n);
	fprintf(stderr, "atag-workload: unknown workload '%s'\n", argv[1]);
	return 2;
}
