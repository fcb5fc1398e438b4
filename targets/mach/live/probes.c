/*
 * The live target's probe catalog.  Each provider (prov_*.c) adds its
 * fixed probes at creation, in this order, so that ids are those `machtrace
 * -l` prints: dtrace:::BEGIN/END/ERROR (1-3), fbt (from 4), the profile
 * defaults, mach_trap, the SDT providers (sdt.c), the kernel's own
 * <sys/sdt.h> probes (sdt:::, prov_ksdt.c), the usdt probes of the
 * boot modules' programs (prov_usdt.c).  Descriptions that match nothing may make probes on
 * demand (profile:::tick-N, kinst::FUNC:OFFSET).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machtrace/vec.h"
#include "targets/mach/live/live_int.h"

static const struct live_provider *const providers[] = {
	&live_prov_dtrace, &live_prov_fbt, &live_prov_profile,
	&live_prov_mach_trap, &live_prov_sdt, &live_prov_spin, &live_prov_ksdt, &live_prov_kinst,
	&live_prov_usdt, &live_prov_pid, &live_prov_line,
};
#define NPROVIDERS (sizeof providers / sizeof *providers)

struct lprobe *live_probe_add(struct live *l, const char *prov, const char *func,
			      const char *name, uint32_t kind, uint64_t arg,
			      const struct mt_kfunc *f)
{
	struct lprobe *p;

	if (MT_VEC_ROOM(l->probes, l->nprobes, l->cap, 4096) != 0)
		return NULL;
	p = &l->probes[l->nprobes++];
	memset(p, 0, sizeof *p);
	p->id = l->next_id++;
	p->prov = prov;
	p->func = func;
	snprintf(p->name, sizeof p->name, "%s", name);
	p->kind = kind;
	p->arg = arg;
	p->f = f;
	return p;
}

int live_probes_init(struct live *l)
{
	l->next_id = MT_PROBE_BEGIN;
	for (size_t i = 0; i < NPROVIDERS; i++)
		if (providers[i]->populate && providers[i]->populate(l) < 0)
			return -1;
	return 0;
}

int live_fmatch(const char *pat, const char *s)
{
	return !pat || !*pat || fnmatch(pat, s, 0) == 0;
}

int live_has_glob(const char *s)
{
	return s && strpbrk(s, "*?[\\") != NULL;
}

static const char *module_of(const struct lprobe *p)
{
	return p->mod ? p->mod : p->um ? p->um->name : p->f ? "gnumach" : "";
}

int live_probe_report(const struct lprobe *p, mt_probe_cb cb, void *arg)
{
	struct mt_probe_info info = {
		.id = p->id, .prov = p->prov, .mod = module_of(p),
		.func = p->func, .name = p->name, .kind = p->kind, .arg = p->arg,
	};

	if (p->sdt)
		sdt_argmap(p, &info.nmap, info.argmap);
	return cb ? cb(arg, &info) : 0;
}

int live_probes(struct mt_target *t, const struct mt_pdesc *pd, int create,
		mt_probe_cb cb, void *arg)
{
	struct live *l = t->priv;
	int n = 0;

	sdt_warn_missing(l, pd);
	for (uint32_t i = 0; i < l->nprobes; i++) {
		struct lprobe *p = &l->probes[i];

		if (!live_fmatch(pd->prov, p->prov) ||
		    (!live_fmatch(pd->mod, module_of(p)) &&
		     !(p->um && live_fmatch(pd->mod, "a.out"))) ||
		    !live_fmatch(pd->func, p->func) || !live_fmatch(pd->name, p->name))
			continue;
		n++;
		if (live_probe_report(p, cb, arg) < 0)
			return -1;
	}
	for (size_t i = 0; !n && create && i < NPROVIDERS; i++)
		if (providers[i]->create &&
		    (n = providers[i]->create(t, pd, cb, arg)) != 0)
			return n;
	return n;
}

const struct lprobe *live_probe_by_id(const struct live *l, uint32_t id)
{
	/* ids are dense and increasing: index = id - 1 */
	if (id >= 1 && id - 1 < l->nprobes && l->probes[id - 1].id == id)
		return &l->probes[id - 1];
	return NULL;
}

int mt_live_wants(const char *prov, int force)
{
	if (!prov || !*prov)
		return force;
	if ((fnmatch(prov, "fbt", 0) == 0 || fnmatch(prov, "kinst", 0) == 0 ||
	     fnmatch(prov, "line", 0) == 0 ||
	     fnmatch(prov, "mach_trap", 0) == 0 || sdt_is_provider(prov) ||
	     live_user_prov(prov)) &&
	    strcmp(prov, "*") != 0)
		return 1;
	return force && (fnmatch(prov, "profile", 0) == 0 || fnmatch(prov, "dtrace", 0) == 0);
}

/* dtrace -lv's attribute lines of a kernel probe, up to "Argument Types". */
void mt_mach_print_attrs(FILE *out)
{
	fprintf(out, "\n\tProbe Description Attributes\n"
		"\t\tIdentifier Names: Private\n"
		"\t\tData Semantics:   Private\n"
		"\t\tDependency Class: Unknown\n"
		"\n\tArgument Attributes\n"
		"\t\tIdentifier Names: Private\n"
		"\t\tData Semantics:   Private\n"
		"\t\tDependency Class: ISA\n"
		"\n\tArgument Types\n");
}
