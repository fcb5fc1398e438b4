/*
 * Kernel addresses as dtrace prints them: "mod`func+0x1c" in stack() and
 * %a/%k, "mod`func" for sym(), "mod" for mod(), "0x..." when unknown.
 * The symbol source is set by the program (the CLI opens the kernel image
 * for the GNU Mach target); without one every address prints in hex.
 */
#include <stdio.h>
#include "machtrace/consumer.h"

static mt_symfn sym_fn;
static void *sym_arg;

void
mt_consumer_set_symbols(mt_symfn fn, void *arg)
{
	sym_fn = fn;
	sym_arg = arg;
}

void
mt_sym_format(uint64_t pc, int style, char *buf, size_t len)
{
	const char *mod = NULL, *func = NULL;
	uint64_t off = 0;

	if (sym_fn == NULL || sym_fn(sym_arg, pc, &mod, &func, &off) != 0) {
		snprintf(buf, len, "0x%llx", (unsigned long long)pc);
		return;
	}
	if (style == MT_SYM_MOD) {
		snprintf(buf, len, "%s", mod ? mod : "");
	} else if (func == NULL) {
		snprintf(buf, len, "%s`0x%llx", mod ? mod : "",
			 (unsigned long long)pc);
	} else if (style == MT_SYM_PC && off > 0) {
		snprintf(buf, len, "%s`%s+0x%llx", mod ? mod : "", func,
			 (unsigned long long)off);
	} else {
		snprintf(buf, len, "%s`%s", mod ? mod : "", func);
	}
}
