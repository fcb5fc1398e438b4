/*
 * The stock kernel's image, opened once per unit-test program (the image
 * reader's and the live sites' tests share it); NULL, with the reason on a
 * "#" line, when the kernel cache is missing.  And where sid's SMP image is.
 */
#ifndef MT_TEST_STOCK_KERNEL_H
#define MT_TEST_STOCK_KERNEL_H
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "machtrace/kimg.h"
#include "machtrace/mach.h"

static inline struct mt_kimg *kernel(void)
{
	static struct mt_kimg *k;
	char path[PATH_MAX], err[512];

	if (!k) {
		k = mt_kimg_open(mt_stock_kernel(path, sizeof path), err, sizeof err);
		if (!k)
			printf("# %s\n", err);
	}
	return k;
}

/* Sid's SMP image (build/kernels/sid-smp) in path; NULL, with a SKIP line
   for test `name`, when setup did not fetch it. */
static inline const char *smp_kernel(char *path, size_t len, const char *name)
{
	char build[PATH_MAX - 64];

	snprintf(path, len, "%s/kernels/sid-smp/gnumach-dbg", mt_build_dir(build, sizeof build));
	if (access(path, R_OK) == 0)
		return path;
	printf("SKIP %s: no %s (scripts/setup.sh)\n", name, path);
	return NULL;
}
#endif
