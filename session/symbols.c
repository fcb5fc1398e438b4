/*
 * Kernel symbols for the consumer when tracing GNU Mach: the kernel image
 * is opened on the first address to resolve (most sessions never print
 * one), and addresses inside a function print as gnumach`func+0x..
 */
#include <stdlib.h>
#include <string.h>
#include "machtrace/consumer.h"
#include "machtrace/kimg.h"
#include "machtrace/mach.h"
#include "session/internal.h"

struct mt_kernel_syms {
	char path[4096];
	struct mt_kimg *k;
	int failed;
};

static int
ksym_lookup(void *arg, uint64_t addr, const char **mod, const char **func,
	    uint64_t *off)
{
	struct mt_kernel_syms *ks = arg;
	char err[256];

	if (ks->k == NULL && !ks->failed) {
		ks->k = mt_kimg_open(ks->path, err, sizeof(err));
		ks->failed = ks->k == NULL;
	}
	if (ks->k == NULL || (*func = mt_kimg_sym_at(ks->k, addr, off)) == NULL)
		return -1;
	*mod = "gnumach";
	return 0;
}

struct mt_kernel_syms *
mt_session_kernel_symbols(const char *kernel, struct mt_consumer *c)
{
	struct mt_kernel_syms *ks = calloc(1, sizeof(*ks));

	if (ks == NULL)
		return NULL;	/* addresses print as numbers */
	if (kernel)
		snprintf(ks->path, sizeof(ks->path), "%s", kernel);
	else
		mt_stock_kernel(ks->path, sizeof(ks->path));
	mt_consumer_set_symbols(c, ksym_lookup, ks);
	return ks;
}

void
mt_session_kernel_symbols_free(struct mt_kernel_syms *ks)
{
	if (ks && ks->k)
		mt_kimg_close(ks->k);
	free(ks);
}
