/*
 * The live target's probe catalog: dtrace:::BEGIN/END/ERROR (1-3), fbt
 * entry/return of every function the image reader accepts (numbered from
 * 4 exactly as `machtrace -l` lists them), the profile provider's default
 * probes, and, created on demand, profile:::tick-N / profile-N and
 * kinst::FUNC:OFFSET (any instruction of an fbt function, as FreeBSD's
 * kinst; kinst::FUNC: is every instruction of FUNC).  mach_trap::NAME:
 * entry/return (Mach's system calls, named from mach_trap_table) are the
 * fbt probes of the trap functions under their trap names.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/kimg_int.h"
#include "target/live/live_int.h"

static struct lprobe *add(struct live *l, const char *prov, const char *func,
			  const char *name, uint32_t kind, uint64_t arg,
			  const struct mt_kfunc *f)
{
	struct lprobe *p;

	if (l->nprobes == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 4096;
		p = realloc(l->probes, cap * sizeof *p);
		if (!p)
			return NULL;
		l->probes = p;
		l->cap = cap;
	}
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

/*
 * mach_trap_table: struct mach_trap { int arg_count; int (*function)();
 * boolean_t stack; const char *name; } (offsets from DWARF when present).
 */
static int add_mach_traps(struct live *l)
{
	uint64_t table, count_va, fn_off = 8, name_off = 24, size = 32, v;
	const uint8_t *cnt, *e;
	uint32_t n;
	char tn[64];

	if (mt_kimg_symbol(l->k, "mach_trap_table", &table) < 0 ||
	    mt_kimg_symbol(l->k, "mach_trap_count", &count_va) < 0 ||
	    !(cnt = mt_kimg_bytes(l->k, count_va, 4)))
		return 0;
	mt_kimg_struct_size(l->k, "mach_trap", &size);
	mt_kimg_member(l->k, "mach_trap", "mach_trap_function", &fn_off, NULL, 0);
	mt_kimg_member(l->k, "mach_trap", "mach_trap_name", &name_off, NULL, 0);
	memcpy(&n, cnt, 4);
	for (uint32_t i = 0; i < n && i < 1024; i++) {
		const struct mt_kfunc *f;
		const char *name;
		if (!(e = mt_kimg_bytes(l->k, table + i * size, size)))
			break;
		memcpy(&v, e + fn_off, 8);
		f = mt_kimg_func_at(l->k, v);
		if (!f || f->addr != v || f->patch == MT_PATCH_REFUSED ||
		    strcmp(f->name, "kern_invalid") == 0)
			continue;
		memcpy(&v, e + name_off, 8);
		name = v ? (const char *)mt_kimg_bytes(l->k, v, 1) : NULL;
		snprintf(tn, sizeof tn, "%s", name && *name ? name : f->name);
		name = kimg_strdup(l->k, tn);
		if (!add(l, "mach_trap", name, "entry", MT_PK_FBT_ENTRY, 0, f) ||
		    (f->nrets && !add(l, "mach_trap", name, "return", MT_PK_FBT_RETURN, 0, f)))
			return -1;
	}
	return 0;
}

int live_probes_init(struct live *l)
{
	uint32_t kind;
	uint64_t ns;

	l->next_id = MT_PROBE_BEGIN;
	if (!add(l, "dtrace", "", "BEGIN", MT_PK_BEGIN, 0, NULL) ||
	    !add(l, "dtrace", "", "END", MT_PK_END, 0, NULL) ||
	    !add(l, "dtrace", "", "ERROR", MT_PK_ERROR, 0, NULL))
		return -1;
	for (size_t i = 0; i < mt_kimg_nfuncs(l->k); i++) {
		const struct mt_kfunc *f = mt_kimg_func(l->k, i);
		if (f->patch == MT_PATCH_REFUSED)
			continue;
		if (!add(l, "fbt", f->name, "entry", MT_PK_FBT_ENTRY, 0, f))
			return -1;
		if (f->nrets && !add(l, "fbt", f->name, "return", MT_PK_FBT_RETURN, 0, f))
			return -1;
	}
	for (size_t i = 0; mt_profile_defaults[i]; i++) {
		mt_profile_parse(mt_profile_defaults[i], &kind, &ns);
		if (!add(l, "profile", "", mt_profile_defaults[i], kind, ns, NULL))
			return -1;
	}
	return add_mach_traps(l);
}

static int fmatch(const char *pat, const char *s)
{
	return !pat || !*pat || fnmatch(pat, s, 0) == 0;
}

static const char *module_of(const struct lprobe *p)
{
	return p->f ? "gnumach" : "";
}

static int report(const struct lprobe *p, mt_probe_cb cb, void *arg)
{
	struct mt_probe_info info = {
		.id = p->id, .prov = p->prov, .mod = module_of(p),
		.func = p->func, .name = p->name, .kind = p->kind, .arg = p->arg,
	};
	return cb ? cb(arg, &info) : 0;
}

#define KINST_MAX	1024	/* instructions of one function */

static int has_glob(const char *s)
{
	return s && strpbrk(s, "*?[\\") != NULL;
}

/* kinst::FUNC:OFFSET (or kinst::FUNC: for every instruction). */
static int kinst_create(struct mt_target *t, const struct mt_pdesc *pd,
			mt_probe_cb cb, void *arg)
{
	struct live *l = t->priv;
	const struct mt_kfunc *f;
	uint32_t offs[KINST_MAX];
	char name[16], *end;
	unsigned long want = 0;
	int n, made = 0;

	if (!pd->prov || strcmp(pd->prov, "kinst") != 0 || !pd->func || has_glob(pd->func) ||
	    has_glob(pd->name) || !fmatch(pd->mod, "gnumach"))
		return 0;
	f = mt_kimg_lookup(l->k, pd->func);
	if (!f || f->patch == MT_PATCH_REFUSED || f->inline_only)
		return 0;
	if (pd->name && *pd->name) {
		want = strtoul(pd->name, &end, 10);
		if (*end)
			return 0;
	}
	n = sites_insn_offsets(l->k, f, offs, KINST_MAX);
	for (int i = 0; i < n; i++) {
		struct lprobe *p;
		if (pd->name && *pd->name && offs[i] != want)
			continue;
		snprintf(name, sizeof name, "%u", offs[i]);
		p = add(l, "kinst", f->name, name, MT_PK_OTHER, offs[i], f);
		if (!p) {
			snprintf(t->err, sizeof t->err, "out of memory");
			return -1;
		}
		if (report(p, cb, arg) < 0)
			return -1;
		made++;
	}
	return made;
}

int live_probes(struct mt_target *t, const struct mt_pdesc *pd, int create,
		mt_probe_cb cb, void *arg)
{
	struct live *l = t->priv;
	struct lprobe *p;
	uint32_t kind;
	uint64_t ns;
	int n = 0;

	for (uint32_t i = 0; i < l->nprobes; i++) {
		p = &l->probes[i];
		if (!fmatch(pd->prov, p->prov) || !fmatch(pd->mod, module_of(p)) ||
		    !fmatch(pd->func, p->func) || !fmatch(pd->name, p->name))
			continue;
		n++;
		if (report(p, cb, arg) < 0)
			return -1;
	}
	if (!n && create && pd->prov && strcmp(pd->prov, "kinst") == 0)
		return kinst_create(t, pd, cb, arg);
	if (n || !create || !pd->name || strpbrk(pd->name, "*?[\\") ||
	    !fmatch(pd->prov, "profile") || !fmatch(pd->mod, "") || !fmatch(pd->func, "") ||
	    mt_profile_parse(pd->name, &kind, &ns) != 0)
		return n;
	p = add(l, "profile", "", pd->name, kind, ns, NULL);
	if (!p) {
		snprintf(t->err, sizeof t->err, "out of memory");
		return -1;
	}
	return report(p, cb, arg) < 0 ? -1 : 1;
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
	     fnmatch(prov, "mach_trap", 0) == 0) && strcmp(prov, "*") != 0)
		return 1;
	return force && (fnmatch(prov, "profile", 0) == 0 || fnmatch(prov, "dtrace", 0) == 0);
}
