/*
 * Kernel addresses as dtrace prints them: "mod`func+0x1c" in stack() and
 * %a/%k, "mod`func" for sym(), "mod" for mod(), "0x..." when unknown.
 * The symbols come from the consumer's source (struct mt_symsrc): the
 * target's sym op when it has one, else a function the program sets;
 * without either, addresses print in hex.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/consumer.h"
#include "impl.h"

void
mt_consumer_set_symbols(struct mt_consumer *c, mt_symfn fn, void *arg)
{
	c->syms.fn = fn;
	c->syms.arg = arg;
}

/* The target's "mod`func+0x10" cut down to the style asked for. */
static int
target_format(const struct mt_symsrc *src, uint64_t pc, int style,
	      char *buf, size_t len)
{
	struct mt_target *t = src->target;
	char *p;

	if (t == NULL || t->ops->sym == NULL ||
	    t->ops->sym(t, pc, buf, len) != 0)
		return -1;
	if (style == MT_SYM_MOD && (p = strchr(buf, '`')) != NULL)
		*p = '\0';
	else if (style == MT_SYM_FUNC && (p = strrchr(buf, '+')) != NULL)
		*p = '\0';
	return 0;
}

void
mt_sym_format(const struct mt_symsrc *src, uint64_t pc, int style,
	      char *buf, size_t len)
{
	const char *mod = NULL, *func = NULL;
	uint64_t off = 0;

	if (src && target_format(src, pc, style, buf, len) == 0)
		return;
	if (src == NULL || src->fn == NULL ||
	    src->fn(src->arg, pc, &mod, &func, &off) != 0) {
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

void
mt_usym_format(const struct mt_symsrc *src, int64_t pid, uint64_t pc,
	       int style, char *buf, size_t len)
{
	struct mt_target *t = src ? src->target : NULL;
	char *p;

	if (t == NULL || t->ops->usym == NULL ||
	    t->ops->usym(t, pid, pc, buf, len) != 0) {
		snprintf(buf, len, "0x%llx", (unsigned long long)pc);
		return;
	}
	if (style == MT_SYM_MOD && (p = strchr(buf, '`')) != NULL)
		*p = '\0';
	else if (style == MT_SYM_FUNC && (p = strrchr(buf, '+')) != NULL)
		*p = '\0';
}

int
mt_sym_offset(const struct mt_symsrc *src, uint64_t pc, uint64_t *off)
{
	const char *mod = NULL, *func = NULL;
	struct mt_target *t = src ? src->target : NULL;
	char buf[512], *p;

	*off = 0;
	if (t != NULL && t->ops->sym != NULL &&
	    t->ops->sym(t, pc, buf, sizeof(buf)) == 0) {
		if ((p = strrchr(buf, '+')) != NULL)
			*off = strtoull(p + 1, NULL, 16);
		return 0;
	}
	if (src == NULL || src->fn == NULL ||
	    src->fn(src->arg, pc, &mod, &func, off) != 0 || func == NULL)
		return -1;
	return 0;
}

int
mt_usym_offset(const struct mt_symsrc *src, int64_t pid, uint64_t pc,
	       uint64_t *off)
{
	struct mt_target *t = src ? src->target : NULL;
	char buf[512], *p;

	*off = 0;
	if (t == NULL || t->ops->usym == NULL ||
	    t->ops->usym(t, pid, pc, buf, sizeof(buf)) != 0)
		return -1;
	if ((p = strrchr(buf, '+')) != NULL)
		*off = strtoull(p + 1, NULL, 16);
	return 0;
}

uint32_t
mt_stack_frames(const struct mt_symsrc *src, int user, const uint8_t *p,
		uint32_t size, void (*fn)(void *arg, const char *sym), void *arg)
{
	uint64_t pc, pid = 0;
	uint32_t n = 0;
	char sym[512];

	if (user && size >= 8) {
		memcpy(&pid, p, 8);
		p += 8;
		size -= 8;
	}
	for (uint32_t i = 0; i + 8 <= size; i += 8, n++) {
		memcpy(&pc, p + i, 8);
		if (pc == 0)
			break;
		if (user)
			mt_usym_format(src, (int64_t)pid, pc, MT_SYM_PC, sym, sizeof(sym));
		else
			mt_sym_format(src, pc, MT_SYM_PC, sym, sizeof(sym));
		fn(arg, sym);
	}
	return n;
}
