/*
 * Kernel addresses as dtrace prints them: "mod`func+0x1c" in stack() and
 * %a/%k, "mod`func" for sym(), "mod" for mod(), "0x..." when unknown.
 * The symbols come from the consumer's source (struct mt_symsrc): the
 * target's sym op when it has one, else a function the program sets;
 * without either, addresses print in hex.  Both give (module, function,
 * offset); sym_style() alone turns them into text.
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

/* A symbol as dtrace prints it in style (func NULL: "mod`0x<pc>"). */
static void
sym_style(const char *mod, const char *func, uint64_t off, uint64_t pc,
	 int style, char *buf, size_t len)
{
	if (mod == NULL)
		mod = "";
	if (style == MT_SYM_MOD)
		snprintf(buf, len, "%s", mod);
	else if (func == NULL)
		snprintf(buf, len, "%s`0x%llx", mod, (unsigned long long)pc);
	else if (style == MT_SYM_PC && off > 0)
		snprintf(buf, len, "%s`%s+0x%llx", mod, func,
			 (unsigned long long)off);
	else
		snprintf(buf, len, "%s`%s", mod, func);
}

/* pc's module, function and offset: 0 the target's, 1 src->fn's, -1
   when neither knows pc. */
static int
sym_lookup(const struct mt_symsrc *src, uint64_t pc, const char **mod,
	   const char **func, uint64_t *off)
{
	struct mt_target *t = src ? src->target : NULL;

	*mod = *func = NULL;
	*off = 0;
	if (t != NULL && t->ops->sym != NULL &&
	    t->ops->sym(t, pc, mod, func, off) == 0)
		return 0;
	*mod = *func = NULL;
	*off = 0;
	if (src == NULL || src->fn == NULL ||
	    src->fn(src->arg, pc, mod, func, off) != 0)
		return -1;
	return 1;
}

/* The same for a user pc of task pid: the target's usym op only. */
static int
usym_lookup(const struct mt_symsrc *src, int64_t pid, uint64_t pc,
	    const char **mod, const char **func, uint64_t *off)
{
	struct mt_target *t = src ? src->target : NULL;

	*mod = *func = NULL;
	*off = 0;
	if (t == NULL || t->ops->usym == NULL)
		return -1;
	return t->ops->usym(t, pid, pc, mod, func, off) == 0 ? 0 : -1;
}

void
mt_sym_format(const struct mt_symsrc *src, uint64_t pc, int style,
	      char *buf, size_t len)
{
	const char *mod, *func;
	uint64_t off;

	if (sym_lookup(src, pc, &mod, &func, &off) < 0)
		snprintf(buf, len, "0x%llx", (unsigned long long)pc);
	else
		sym_style(mod, func, off, pc, style, buf, len);
}

void
mt_usym_format(const struct mt_symsrc *src, int64_t pid, uint64_t pc,
	       int style, char *buf, size_t len)
{
	const char *mod, *func;
	uint64_t off;

	if (usym_lookup(src, pid, pc, &mod, &func, &off) != 0)
		snprintf(buf, len, "0x%llx", (unsigned long long)pc);
	else
		sym_style(mod, func, off, pc, style, buf, len);
}

/* A target's module pc in no function has offset 0; src->fn's has none. */
int
mt_sym_offset(const struct mt_symsrc *src, uint64_t pc, uint64_t *off)
{
	const char *mod, *func;
	int rc = sym_lookup(src, pc, &mod, &func, off);

	return rc < 0 || (rc == 1 && func == NULL) ? -1 : 0;
}

int
mt_usym_offset(const struct mt_symsrc *src, int64_t pid, uint64_t pc,
	       uint64_t *off)
{
	const char *mod, *func;

	return usym_lookup(src, pid, pc, &mod, &func, off);
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
