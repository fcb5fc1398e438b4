/*
 * The stock kernel's image, opened once per unit-test program (the image
 * reader's and the live sites' tests share it); NULL, with the reason on a
 * "#" line, when the kernel cache is missing.
 */
#ifndef MT_TEST_STOCK_KERNEL_H
#define MT_TEST_STOCK_KERNEL_H
#include <limits.h>
#include <stdio.h>

#include "machtrace/kimg.h"
#include "machtrace/mach.h"

static struct mt_kimg *kernel(void)
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
#endif
