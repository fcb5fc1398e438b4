/*
 * sdt: the kernel's own static probes, written with <sys/sdt.h>'s
 * DTRACE_PROBEn / STAP_PROBEn in GNU Mach's source (a kernel one built:
 * `make kernel-src`).  As in illumos, where a kernel's DTRACE_PROBE is an
 * sdt probe, each is sdt:gnumach:FUNC:NAME: FUNC the function holding the
 * site, NAME the note's name with "__" written '-' (the note's provider
 * is not part of the name).  A note gives the site (sdt.h's 1-byte nop:
 * nothing is written while the probe is disabled; enabled, an int3 as a
 * kinst site) and its argument operands, read at the firing from the
 * kernel's registers and memory (LK_SF_UARGS); args[i] is an integer of
 * the operand's size and signedness.  A probe is its notes of one
 * function (an inlined probe has several sites).  Semaphores are not set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"

/* Storage for the probes' descriptions and their sites' operands, one of
   each per note (a probe uses the first of its notes' descriptions). */
struct ksdt {
	struct sdt_probe *probes;
	struct lk_uarg (*args)[SDT_MAXARGS];
	size_t n;
};

static const char *const int_types[2][9] = {
	{ NULL, "uint8_t", "uint16_t", NULL, "uint32_t", NULL, NULL, NULL, "uint64_t" },
	{ NULL, "int8_t", "int16_t", NULL, "int32_t", NULL, NULL, NULL, "int64_t" },
};

static int ksym(void *arg, const char *name, uint64_t *va)
{
	return mt_kimg_symbol(arg, name, va) < 0 ? -1 : 0;
}

static struct lprobe *find(struct live *l, const char *func, const char *name)
{
	for (uint32_t i = 0; i < l->nprobes; i++) {
		struct lprobe *p = &l->probes[i];
		if (p->sdt && strcmp(p->prov, "sdt") == 0 && p->func == func &&
		    strcmp(p->name, name) == 0)
			return p;
	}
	return NULL;
}

/* The description of a new probe from note k's operands; -1 if an
   operand's size is not an integer's. */
static int describe(struct live *l, struct sdt_probe *sp, const struct lk_uarg *a, int na,
		    const char *func, const char *name)
{
	memset(sp, 0, sizeof *sp);
	sp->func = func;
	if (!(sp->name = live_name(l, "%s", name)))
		return -1;
	for (int i = 0; i < na; i++) {
		int sz = a[i].size < 0 ? -a[i].size : a[i].size;
		sp->args[i].raw = (uint8_t)i;
		sp->args[i].native = sz <= 8 ? int_types[a[i].size < 0][sz] : NULL;
		if (!sp->args[i].native)
			return -1;
	}
	return 0;
}

/* Note k of m as a site of its probe; 0 also when it cannot be one. */
static int add_note(struct live *l, struct ksdt *ks, size_t k, const struct usdt_note *n)
{
	const struct mt_kfunc *f = mt_kimg_func_at(l->k, n->pc);
	const uint8_t *code = mt_kimg_bytes(l->k, n->pc, 1);
	struct sdt_loc *v;
	struct lprobe *p;
	char name[32], why[200];
	int na;

	if (!f || f->patch == MT_PATCH_REFUSED || f->inline_only || !code || code[0] != 0x90)
		return 0;	/* not an sdt.h nop in a function we may patch */
	na = usdt_parse_args(n->args, ks->args[k], SDT_MAXARGS, ksym, l->k, why, sizeof why);
	if (na < 0)
		return 0;
	usdt_probe_name(n->name, name, sizeof name);
	if (!(p = find(l, f->name, name))) {
		if (describe(l, &ks->probes[k], ks->args[k], na, f->name, name) < 0)
			return 0;
		if (!(p = live_probe_add(l, "sdt", f->name, name, MT_PK_OTHER, 0, f)))
			return -1;
		p->sdt = &ks->probes[k];
	}
	if (!(v = realloc(p->locs, (p->nlocs + 1) * sizeof *v)))
		return -1;
	p->locs = v;
	v[p->nlocs++] = (struct sdt_loc){ .addr = n->pc, .f = f, .where = SDT_NOTE,
					  .uargs = ks->args[k], .nuargs = (uint8_t)na };
	return 0;
}

static int ksdt_populate(struct live *l)
{
	struct umod m;
	struct ksdt *ks;
	char err[256];
	int rc = 0;

	if (!l->k || umod_load(&m, mt_kimg_path(l->k), 0, err, sizeof err) < 0) {
		umod_free(&m);
		return 0;	/* an unreadable kernel has no fbt probes either */
	}
	if (!m.nnotes) {
		umod_free(&m);
		return 0;
	}
	if (!(ks = calloc(1, sizeof *ks)) || !(ks->probes = calloc(m.nnotes, sizeof *ks->probes)) ||
	    !(ks->args = calloc(m.nnotes, sizeof *ks->args))) {
		if (ks)
			free(ks->probes);
		free(ks);
		umod_free(&m);
		return -1;
	}
	ks->n = m.nnotes;
	l->ksdt = ks;
	for (size_t k = 0; k < m.nnotes && rc == 0; k++)
		rc = add_note(l, ks, k, &m.notes[k]);
	umod_free(&m);
	return rc;
}

void ksdt_free(struct live *l)
{
	if (!l->ksdt)
		return;
	free(l->ksdt->probes);
	free(l->ksdt->args);
	free(l->ksdt);
	l->ksdt = NULL;
}

const struct live_provider live_prov_ksdt = {
	.name = "sdt",
	.populate = ksdt_populate,
};
