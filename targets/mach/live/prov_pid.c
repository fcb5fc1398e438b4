/*
 * pid: function boundary and instruction probes in guest tasks, made on
 * demand as dtrace's: pid<N>:MODULE:FUNC:entry, :return (every ret of
 * FUNC) and :OFFSET (hex, an instruction of FUNC), MODULE being the
 * program's basename or a.out.  Functions come from the ELF's symbol
 * table, instructions from Capstone; each site is an int3 written in the
 * task's text page, and the instruction it displaces is emulated by the
 * blob (uemul.c), so a probe on an instruction it cannot emulate, or on
 * an offset inside an instruction, is refused here with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"

#define PID_MAXINSNS	16384

static const struct umod *umod_of(const struct live *l, const char *prov)
{
	char *end;
	unsigned long pid;

	if (!prov || strncmp(prov, "pid", 3) != 0 || !prov[3] || live_has_glob(prov))
		return NULL;
	pid = strtoul(prov + 3, &end, 10);
	if (*end)
		return NULL;
	for (int i = 0; i < l->nuprogs; i++)
		if (l->uprogs[i].pid == pid)
			return &l->uprogs[i];
	return NULL;
}

/* The site of the instruction at f + off, 0; -1 with why. */
static int insn_site(const struct umod *m, const struct ufunc *f, uint32_t off, uint32_t fire,
		     struct lk_usite *s, char *why, size_t whylen)
{
	uint64_t va = f->addr + off;
	const uint8_t *code = umod_text(m, va, f->size - off);

	memset(s, 0, sizeof *s);
	if (!code)
		return snprintf(why, whylen, "%s is not in the program's text", f->name), -1;
	if (uemul_classify(code, f->size - off, va, s, why, whylen) < 0)
		return -1;
	s->addr = va;
	s->pid = m->pid;
	s->fire = fire;
	s->func_off = off;
	return 0;
}

struct pid_req {
	struct mt_target *t;
	const struct umod *m;
	const struct ufunc *f;
	const char *prov;
	mt_probe_cb cb;
	void *arg;
};

static int made(struct pid_req *r, const char *name, uint32_t kind, uint64_t arg,
		struct lk_usite *s, uint32_t n)
{
	struct live *l = r->t->priv;
	struct lprobe *p = live_probe_add(l, r->prov, r->f->name, name, kind, arg, NULL);

	if (!p) {
		free(s);
		snprintf(r->t->err, sizeof r->t->err, "out of memory");
		return -1;
	}
	p->um = r->m;
	p->usites = s;
	p->nusites = n;
	return live_probe_report(p, r->cb, r->arg) < 0 ? -1 : 1;
}

static int refuse(struct pid_req *r, const char *name, const char *why)
{
	snprintf(r->t->err, sizeof r->t->err, "%s:%s:%s:%s: cannot probe: %s", r->prov,
		 r->m->name, r->f->name, name, why);
	return -1;
}

static int make_entry(struct pid_req *r)
{
	struct lk_usite *s = malloc(sizeof *s);
	char why[200];

	if (!s)
		return refuse(r, "entry", "out of memory");
	if (insn_site(r->m, r->f, 0, LK_UF_ENTRY, s, why, sizeof why) < 0) {
		free(s);
		return refuse(r, "entry", why);
	}
	return made(r, "entry", MT_PK_FBT_ENTRY, 0, s, 1);
}

static int make_return(struct pid_req *r, uint32_t *offs, int n)
{
	struct lk_usite *s = calloc((size_t)n, sizeof *s);
	uint32_t ns = 0;
	char why[200];

	if (!s)
		return refuse(r, "return", "out of memory");
	for (int i = 0; i < n; i++) {
		struct lk_usite one;
		if (insn_site(r->m, r->f, offs[i], LK_UF_RETURN, &one, why, sizeof why) == 0 &&
		    one.emul == LK_UE_RET)
			s[ns++] = one;
	}
	if (!ns) {
		free(s);
		return refuse(r, "return", "the function has no ret instruction");
	}
	return made(r, "return", MT_PK_FBT_RETURN, 0, s, ns);
}

static int make_offset(struct pid_req *r, const char *name, uint32_t *offs, int n)
{
	char *end, why[240];
	unsigned long off = strtoul(name, &end, 16);
	struct lk_usite *s;
	int i;

	if (*end || !*name)
		return 0;	/* no such probe name */
	for (i = 0; i < n && offs[i] != off; i++)
		;
	if (off >= r->f->size || i == n) {
		snprintf(why, sizeof why, "offset 0x%lx is not an instruction boundary of %s "
			 "(%llu bytes)", off, r->f->name, (unsigned long long)r->f->size);
		return refuse(r, name, why);
	}
	if (!(s = malloc(sizeof *s)))
		return refuse(r, name, "out of memory");
	if (insn_site(r->m, r->f, (uint32_t)off, LK_UF_ENTRY, s, why, sizeof why) < 0) {
		free(s);
		return refuse(r, name, why);
	}
	return made(r, name, MT_PK_OTHER, off, s, 1);
}

static int pid_func_insns(struct pid_req *r, const char *name, int glob, uint32_t *offs, int n);

/* The probes of one function the description names; how many, or -1. */
static int pid_func(struct pid_req *r, const char *name, int glob)
{
	uint32_t *offs = malloc(PID_MAXINSNS * sizeof *offs);
	int n, k;

	if (!offs)
		return refuse(r, name, "out of memory");
	n = umod_insn_offsets(r->m, r->f, offs, PID_MAXINSNS);
	k = n < 0 ? (glob ? 0 : refuse(r, name, "its instructions do not decode")) :
		pid_func_insns(r, name, glob, offs, n);
	free(offs);
	return k;
}

static int pid_func_insns(struct pid_req *r, const char *name, int glob, uint32_t *offs, int n)
{
	int k = 0, rc;

	if (live_fmatch(name, "entry")) {
		if ((rc = make_entry(r)) < 0 && !glob)
			return -1;
		k += rc > 0;
	}
	if (live_fmatch(name, "return")) {
		if ((rc = make_return(r, offs, n)) < 0 && !glob)
			return -1;
		k += rc > 0;
	}
	if (!glob && *name && strcmp(name, "entry") != 0 && strcmp(name, "return") != 0) {
		if ((rc = make_offset(r, name, offs, n)) < 0)
			return -1;
		k += rc;
	}
	return k;
}

static int pid_create(struct mt_target *t, const struct mt_pdesc *pd, mt_probe_cb cb, void *arg)
{
	struct live *l = t->priv;
	const struct umod *m = umod_of(l, pd->prov);
	const char *name = pd->name ? pd->name : "";
	struct pid_req r = { t, m, NULL, pd->prov, cb, arg };
	int total = 0, fglob, nglob = live_has_glob(name) || !*name;

	if (!m || (pd->mod && *pd->mod && !live_fmatch(pd->mod, m->name) && !live_fmatch(pd->mod, "a.out")))
		return 0;
	if (!(r.prov = live_name(l, "%s", pd->prov)))
		return snprintf(t->err, sizeof t->err, "out of memory"), -1;
	fglob = !pd->func || !*pd->func || live_has_glob(pd->func);
	t->err[0] = 0;
	for (size_t i = 0; i < m->nfuncs; i++) {
		int rc;
		if (!live_fmatch(pd->func, m->funcs[i].name) ||
		    (i && m->funcs[i].addr == m->funcs[i - 1].addr))
			continue;	/* an alias: one probe per function */
		r.f = &m->funcs[i];
		if ((rc = pid_func(&r, name, fglob || nglob)) < 0)
			return -1;
		total += rc;
	}
	return total;
}

const struct live_provider live_prov_pid = {
	.name = "pid",
	.create = pid_create,
};
