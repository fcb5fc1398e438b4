/*
 * Kernel addresses as dtrace prints them: "mod`func+0x1c" in stack() and
 * %a/%k, "mod`func" for sym(), "mod" for mod(), "0x..." when unknown.
 * The symbols come from the target's sym op when it has one, else from a
 * source the program sets; without either, addresses print in hex.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/consumer.h"

static mt_symfn sym_fn;
static void *sym_arg;
static struct mt_target *sym_target;	/* its ops->sym, if any, first */

void
mt_consumer_set_symbol_target(struct mt_target *t)
{
	sym_target = t && t->ops->sym ? t : NULL;
}

/* The target's "mod`func+0x10" cut down to the style asked for. */
static int
target_format(uint64_t pc, int style, char *buf, size_t len)
{
	char *p;

	if (sym_target == NULL ||
	    sym_target->ops->sym(sym_target, pc, buf, len) != 0)
		return -1;
	if (style == MT_SYM_MOD && (p = strchr(buf, '`')) != NULL)
		*p = '\0';
	else if (style == MT_SYM_FUNC && (p = strrchr(buf, '+')) != NULL)
		*p = '\0';
	return 0;
}

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

	if (target_format(pc, style, buf, len) == 0)
		return;
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

int
mt_sym_offset(uint64_t pc, uint64_t *off)
{
	const char *mod = NULL, *func = NULL;
	char buf[512], *p;

	*off = 0;
	if (sym_target != NULL &&
	    sym_target->ops->sym(sym_target, pc, buf, sizeof(buf)) == 0) {
		if ((p = strrchr(buf, '+')) != NULL)
			*off = strtoull(p + 1, NULL, 16);
		return 0;
	}
	if (sym_fn == NULL || sym_fn(sym_arg, pc, &mod, &func, off) != 0 ||
	    func == NULL)
		return -1;
	return 0;
}
