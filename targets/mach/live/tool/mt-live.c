/*
 * mt-live: test helper of the live GNU Mach target.
 *
 *   mt-live textcheck RAMFILE [KERNEL]
 *       compares the kernel text in a guest RAM file with the image
 *       (default: the stock kernel); prints the verdict; exit 0 when
 *       identical, 1 when not, 2 on error
 *   mt-live sizes STRUCT...
 *       prints "STRUCT SIZE" per struct, from the kernel's DWARF
 *   mt-live decls TYPE...
 *       prints D declarations of kernel types ("struct ipc_port") and what
 *       they need, from the DWARF of $MACHTRACE_KERNEL or the stock kernel
 *   mt-live frame FUNC OFFSET...
 *       prints "OFFSET cfa=REG+N rbp=saved@CFA+M|live" per instruction
 *       offset, the .eh_frame rule kinst sites use ("none" without one)
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machtrace/kimg.h"
#include "machtrace/live.h"
#include "machtrace/mach.h"

int main(int argc, char **argv)
{
	char path[PATH_MAX], err[512];
	uint64_t where, len = 0;
	int rc;

	if (argc >= 3 && strcmp(argv[1], "sizes") == 0) {
		const char *kernel = getenv("MACHTRACE_KERNEL");
		struct mt_kimg *k = mt_kimg_open(kernel ? kernel : mt_stock_kernel(path, sizeof path),
						 err, sizeof err);
		if (!k) {
			fprintf(stderr, "mt-live: %s\n", err);
			return 2;
		}
		for (int i = 2; i < argc; i++) {
			uint64_t size = 0;
			if (mt_kimg_struct_size(k, argv[i], &size) == 0)
				printf("%s %llu\n", argv[i], (unsigned long long)size);
		}
		mt_kimg_close(k);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "decls") == 0) {
		const char *kernel = getenv("MACHTRACE_KERNEL");
		char *d = mt_live_decls_file(kernel ? kernel : mt_stock_kernel(path, sizeof path),
					     (const char *const *)argv + 2, argc - 2, err, sizeof err);
		if (!d) {
			fprintf(stderr, "mt-live: %s\n", err);
			return 2;
		}
		fputs(d, stdout);
		free(d);
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "frame") == 0) {
		const char *kernel = getenv("MACHTRACE_KERNEL");
		struct mt_kimg *k = mt_kimg_open(kernel ? kernel : mt_stock_kernel(path, sizeof path),
						 err, sizeof err);
		const struct mt_kfunc *f = k ? mt_kimg_lookup(k, argv[2]) : NULL;
		if (!f) {
			fprintf(stderr, "mt-live: %s\n", k ? "no such function" : err);
			mt_kimg_close(k);
			return 2;
		}
		for (int i = 3; i < argc; i++) {
			struct mt_kframe fr;
			uint64_t off = strtoull(argv[i], NULL, 0);
			if (mt_kimg_frame(k, f->addr + off, &fr) < 0)
				printf("%llu none\n", (unsigned long long)off);
			else
				printf("%llu cfa=%s%+lld rbp=%s%+lld\n", (unsigned long long)off,
				       fr.cfa_reg == MT_KREG_RBP ? "rbp" : "rsp", (long long)fr.cfa_off,
				       fr.rbp_saved ? "saved@cfa" : "live",
				       (long long)(fr.rbp_saved ? fr.rbp_off : 0));
		}
		mt_kimg_close(k);
		return 0;
	}
	if (argc < 3 || strcmp(argv[1], "textcheck") != 0) {
		fprintf(stderr, "usage: mt-live textcheck RAMFILE [KERNEL] | sizes STRUCT... | decls TYPE...\n");
		return 2;
	}
	rc = mt_live_text_check(argv[2], argc > 3 ? argv[3] : mt_stock_kernel(path, sizeof path),
				&where, &len, err, sizeof err);
	if (rc < 0) {
		fprintf(stderr, "mt-live: %s\n", err);
		return 2;
	}
	if (rc == 0)
		printf("kernel text identical to the image (%llu bytes)\n", (unsigned long long)len);
	else
		printf("kernel text differs from the image at 0x%llx\n", (unsigned long long)where);
	return rc;
}
