/*
 * usdt: the static probes of guest programs (<sys/sdt.h>'s .note.stapsdt),
 * one provider instance per task as DTrace names them: PROVIDER<pid>:
 * MODULE:FUNC:NAME (machload1:machload:rt_once:round-trip), the note's
 * "__" written '-'.  A note gives the site (sdt.h's 1-byte nop, which
 * stays a nop while the probe is disabled) and its argument operands,
 * read at the firing from the user registers and memory (umod.h).  A
 * probe is its notes of one function (a probe inlined several times has
 * several sites).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"

static int obj_addr(void *arg, const char *name, uint64_t *va)
{
	const struct umod *m = arg;

	for (size_t i = 0; i < m->nobjs; i++)
		if (strcmp(m->objs[i].name, name) == 0) {
			*va = m->objs[i].addr;
			return 0;
		}
	for (size_t i = 0; i < m->nfuncs; i++)
		if (strcmp(m->funcs[i].name, name) == 0) {
			*va = m->funcs[i].addr;
			return 0;
		}
	return -1;
}

/* The user site of note n of m, 0; -1 if it cannot take one. */
static int note_site(const struct umod *m, const struct usdt_note *n, struct lk_usite *s)
{
	size_t avail = 16;
	const uint8_t *code = NULL;
	char why[200];
	int na;

	memset(s, 0, sizeof *s);
	while (avail && !(code = umod_text(m, n->pc, avail)))
		avail--;	/* near the end of the text */
	if (!code || uemul_classify(code, avail, n->pc, s, why, sizeof why) < 0)
		return -1;
	na = usdt_parse_args(n->args, s->args, LK_UARGS_MAX, obj_addr, (void *)m, why, sizeof why);
	if (na < 0)
		return -1;
	s->addr = n->pc;
	s->pid = m->pid;
	s->fire = LK_UF_USDT;
	s->nargs = (uint8_t)na;
	return 0;
}

static struct lprobe *find(struct live *l, const char *prov, const char *func, const char *name)
{
	for (uint32_t i = 0; i < l->nprobes; i++) {
		struct lprobe *p = &l->probes[i];
		if (p->prov == prov && p->func == func && strcmp(p->name, name) == 0)
			return p;
	}
	return NULL;
}

static int add_note(struct live *l, const struct umod *m, const struct usdt_note *n)
{
	const struct ufunc *f = umod_func_at(m, n->pc);
	const char *prov = live_name(l, "%s%u", n->prov, m->pid);
	const char *func = f ? f->name : "";
	struct lk_usite s, *nv;
	struct lprobe *p;
	char name[32];

	if (!prov)
		return -1;
	if (note_site(m, n, &s) < 0)
		return 0;	/* not an sdt.h site: no probe */
	usdt_probe_name(n->name, name, sizeof name);
	p = find(l, prov, func, name);
	if (!p && !(p = live_probe_add(l, prov, func, name, MT_PK_OTHER, 0, NULL)))
		return -1;
	p->um = m;
	if (!(nv = realloc(p->usites, (p->nusites + 1) * sizeof *nv)))
		return -1;
	p->usites = nv;
	nv[p->nusites++] = s;
	return 0;
}

static int usdt_populate(struct live *l)
{
	if (!l->uprogs && live_uprogs_load(l) < 0)
		return -1;
	for (int i = 0; i < l->nuprogs; i++)
		for (size_t k = 0; k < l->uprogs[i].nnotes; k++)
			if (add_note(l, &l->uprogs[i], &l->uprogs[i].notes[k]) < 0)
				return -1;
	return 0;
}

const struct live_provider live_prov_usdt = {
	.name = "usdt",
	.populate = usdt_populate,
};
