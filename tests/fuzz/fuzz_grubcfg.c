/*
 * libFuzzer harness of the grub.cfg parser of --disk (make fuzz;
 * targets/mach/disk/grubcfg.c): each input is a grub.cfg.  It picks an
 * entry or fails saying why; a picked entry names a kernel, at most
 * MT_BOOT_MAX_MODULES modules, and every string is terminated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/disk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct mt_grub_boot *g = malloc(sizeof *g);

	if (!text || !g) {
		free(text);
		free(g);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	if (mt_grub_parse(text, g, err, sizeof err) != 0) {
		if (!err[0])
			abort();	/* a refusal must say why */
	} else if (!g->kernel[0] || g->nmodules < 0 || g->nmodules > MT_BOOT_MAX_MODULES ||
		   strnlen(g->title, sizeof g->title) == sizeof g->title ||
		   strnlen(g->kernel_args, sizeof g->kernel_args) == sizeof g->kernel_args) {
		abort();
	} else {
		for (int k = 0; k < g->nmodules; k++)
			if (strnlen(g->modules[k].path, sizeof g->modules[k].path) ==
			    sizeof g->modules[k].path ||
			    strnlen(g->modules[k].args, sizeof g->modules[k].args) ==
			    sizeof g->modules[k].args)
				abort();
	}
	free(g);
	free(text);
	return 0;
}
