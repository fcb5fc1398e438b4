/*
 * The kernel target's answers to a session (mt_target_ops ctypes, dlib):
 * the C types of the kernel's probe arguments and globals from its DWARF,
 * locals at a site, and the kernel D library (mach.d), so that a session
 * asks the target it was given rather than this target's own functions.
 */
#include <string.h>
#include "machtrace/compiler.h"
#include "targets/mach/live/live_int.h"

static const char *
ct_argtype(void *arg, const char *prov, const char *mod, const char *func,
	   const char *name, int i)
{
	return mt_live_argtype(arg, prov, func, name, i);
}

static const char *
ct_argnative(void *arg, const char *prov, const char *mod, const char *func,
	     const char *name, int i)
{
	return mt_live_argnative(arg, prov, func, name, i);
}

static int
ct_nargs(void *arg, const char *prov, const char *mod, const char *func,
	 const char *name)
{
	return mt_live_nargs(arg, prov, func, name);
}

static char *
ct_decls(void *arg, const char *ctype)
{
	return mt_live_decls(arg, ctype);
}

static char *
ct_symbol(void *arg, const char *mod, const char *name, uint64_t *addr)
{
	return mt_live_symbol(arg, mod, name, addr);
}

static char *
ct_local(void *arg, const char *prov, const char *mod, const char *func,
	 const char *name, const char *var, char **ctype, char *err,
	 size_t errlen)
{
	struct mt_pdesc pd = { (char *)prov, (char *)mod, (char *)func,
			       (char *)name, 0 };

	return mt_live_local(arg, &pd, var, ctype, err, errlen);
}

static char *
ct_argmissing(void *arg, const char *prov, const char *mod, const char *func,
	      const char *name, int i)
{
	return mt_live_argmissing(arg, prov, func, name, i);
}

static char **
ct_local_names(void *arg, const char *prov, const char *mod, const char *func,
	       const char *name, char *site, size_t sitelen, char *err,
	       size_t errlen)
{
	struct mt_pdesc pd = { (char *)prov, (char *)mod, (char *)func,
			       (char *)name, 0 };

	return mt_live_local_names(arg, &pd, site, sitelen, err, errlen);
}

void
live_ctypes(struct mt_target *t, struct mt_ctypes *ct)
{
	memset(ct, 0, sizeof(*ct));
	ct->arg = t;
	ct->argtype = ct_argtype;
	ct->argnative = ct_argnative;
	ct->nargs = ct_nargs;
	ct->decls = ct_decls;
	ct->symbol = ct_symbol;
	ct->local = ct_local;
	ct->argmissing = ct_argmissing;
	ct->local_names = ct_local_names;
}

const char *
live_dlib(struct mt_target *t, const char **name)
{
	return mt_live_dlib(name);
}
