/*
 * Kernel symbols for the consumer when tracing GNU Mach: the kernel image
 * is opened on the first address to resolve (most sessions never print
 * one), and addresses inside a function print as gnumach`func+0x..
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "machtrace/consumer.h"
#include "machtrace/kimg.h"
#include "machtrace/mach.h"

struct ksyms {
	char path[4096];
	struct mt_kimg *k;
	int failed;
};

static int
ksym_lookup(void *arg, uint64_t addr, const char **mod, const char **func,
	    uint64_t *off)
{
	struct ksyms *ks = arg;
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

void
cli_kernel_symbols(const struct cli *cl, struct mt_consumer *c)
{
	static struct ksyms ks;

	if (cl->mach.kernel)
		snprintf(ks.path, sizeof(ks.path), "%s", cl->mach.kernel);
	else
		mt_stock_kernel(ks.path, sizeof(ks.path));
	mt_consumer_set_symbols(c, ksym_lookup, &ks);
}
