/*
 * -v: dtrace's stability report.  Attributes are (names, data, class);
 * stability levels and dependency classes are numbered in dtrace's order
 * so that the minimum is the weakest.
 *
 * A probe description's attributes are computed as dtrace's
 * dt_probe_info() does: from its provider's five attribute triples
 * (provider, module, function, name, arguments), the provider's lowered by
 * each component that is given and not a pattern.  When the provider is
 * not named (or is a pattern), when nothing matches, or when several
 * probes match while a component of at least Evolving name stability is
 * left open, dtrace cannot vouch for one provider: it uses Unstable for
 * all five (_dtrace_prvdesc).
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "machtrace/session.h"
#include "machtrace/program.h"

typedef struct mt_attr attr_t;

#define U_ { MT_STAB_UNSTABLE, MT_STAB_UNSTABLE, MT_CLASS_COMMON }
static const struct mt_provattr prvdesc = { "", { U_, U_, U_, U_, U_ } };
#undef U_

static attr_t
attr_min(attr_t a, attr_t b)
{
	attr_t m = { a.name < b.name ? a.name : b.name,
		     a.data < b.data ? a.data : b.data,
		     a.cls < b.cls ? a.cls : b.cls };
	return m;
}

static int
is_glob(const char *s)
{
	return s == NULL || *s == '\0' || strpbrk(s, "*?[") != NULL;
}

/*
 * A named provider's attributes, with the program's #pragma D attributes
 * ... provider NAME PART applied in order (into *buf).
 */
static const struct mt_provattr *
provider_attrs(const struct mt_prog *prog, const char *prov,
	       struct mt_provattr *buf)
{
	const struct mt_provattr *pa = mt_provattr_lookup(prov);

	*buf = pa != NULL ? *pa : *mt_provattr_default();
	for (uint32_t i = 0; i < prog->npragattrs; i++)
		if (strcmp(prog->pragattrs[i].prov, prov) == 0)
			buf->a[prog->pragattrs[i].part] = prog->pragattrs[i].attr;
	return buf;
}

/* dt_probe_info()'s rule for a description matching several probes. */
static int
open_but_evolving(const struct mt_provattr *pa, const struct mt_pdesc *pd)
{
	return (pa->a[MT_PA_MOD].name >= MT_STAB_EVOLVING && is_glob(pd->mod)) ||
	       (pa->a[MT_PA_FUNC].name >= MT_STAB_EVOLVING && is_glob(pd->func)) ||
	       (pa->a[MT_PA_NAME].name >= MT_STAB_EVOLVING && is_glob(pd->name));
}

static attr_t
pdesc_attr(struct mt_target *t, const struct mt_prog *prog,
	   const struct mt_pdesc *pd, attr_t *args)
{
	const struct mt_provattr *pa = &prvdesc;
	struct mt_provattr buf;
	attr_t a;
	int n = 0;

	if (!is_glob(pd->prov)) {
		pa = provider_attrs(prog, pd->prov, &buf);
		if (t != NULL)
			t->ops->probes(t, pd, 1, mt_session_count_cb, &n);
		if (t != NULL && (n == 0 || (n > 1 && open_but_evolving(pa, pd))))
			pa = &prvdesc;
	}
	a = pa->a[MT_PA_PROV];
	if (!is_glob(pd->mod))
		a = attr_min(a, pa->a[MT_PA_MOD]);
	if (!is_glob(pd->func))
		a = attr_min(a, pa->a[MT_PA_FUNC]);
	if (!is_glob(pd->name))
		a = attr_min(a, pa->a[MT_PA_NAME]);
	*args = pa->a[MT_PA_ARGS];
	return a;
}

static void
print_attr(FILE *f, const char *title, attr_t a)
{
	fprintf(f, "\n\t%s\n\t\tIdentifier Names: %s\n"
		"\t\tData Semantics:   %s\n\t\tDependency Class: %s\n",
		title, mt_stab_names[a.name], mt_stab_names[a.data],
		mt_class_names[a.cls]);
}

/*
 * The report for one program: the minimum attributes of its probe
 * descriptions and of its statements; with -e (nothing enabled), each
 * probe description's own attributes follow, as dtrace's info_stmt().
 */
void
cli_stability_report(const struct cli *cl, struct mt_target *t,
		     const struct mt_prog *prog, const struct cli_cmd *cmd,
		     const char *name)
{
	attr_t desc = { MT_STAB_STANDARD, MT_STAB_STANDARD, MT_CLASS_COMMON }, args;
	/* -xoformat=json keeps stdout for the session's document */
	FILE *out = cl->opts.oformat == MT_OFORMAT_JSON ? stderr : cl->out;
	attr_t stmt = { prog->stmt_attr[0], prog->stmt_attr[1],
			     prog->stmt_attr[2] };

	for (uint32_t i = 0; i < prog->nclauses; i++) {
		const struct mt_clause_info *ci = &prog->clause_info[i];

		for (uint32_t j = 0; j < ci->npdescs; j++)
			desc = attr_min(desc, pdesc_attr(t, prog, &ci->pdescs[j], &args));
	}
	fprintf(out, "\nStability attributes for %s %s:\n",
		cmd->is_file ? "script" : "description", name);
	print_attr(out, "Minimum Probe Description Attributes", desc);
	print_attr(out, "Minimum Statement Attributes", stmt);
	if (cl->exec) {
		fprintf(out, "\n");
		return;
	}
	for (uint32_t i = 0; i < prog->nclauses; i++) {
		const struct mt_clause_info *ci = &prog->clause_info[i];

		for (uint32_t j = 0; j < ci->npdescs; j++) {
			const struct mt_pdesc *pd = &ci->pdescs[j];
			attr_t a = pdesc_attr(t, prog, pd, &args);

			fprintf(out, "\n%s:%s:%s:%s\n",
				pd->prov ? pd->prov : "", pd->mod ? pd->mod : "",
				pd->func ? pd->func : "",
				pd->name ? pd->name : "");
			print_attr(out, "Probe Description Attributes", a);
			print_attr(out, "Argument Attributes", args);
			fprintf(out, "\n\tArgument Types\n\t\tNone\n\n");
		}
	}
}
