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
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "machtrace/session.h"
#include "machtrace/program.h"

enum { S_INTERNAL, S_PRIVATE, S_OBSOLETE, S_EXTERNAL, S_UNSTABLE, S_EVOLVING,
       S_STABLE, S_STANDARD };
enum { C_UNKNOWN, C_CPU, C_PLATFORM, C_GROUP, C_ISA, C_COMMON };

struct attr { int name, data, cls; };

static const char *const stab_name[] = { "Internal", "Private", "Obsolete",
	"External", "Unstable", "Evolving", "Stable", "Standard" };
static const char *const class_name[] = { "Unknown", "CPU", "Platform",
	"Group", "ISA", "Common" };

enum { A_PROV, A_MOD, A_FUNC, A_NAME, A_ARGS };

/* A provider's attributes: provider, module, function, name, arguments. */
struct pattr { const char *prov; struct attr a[5]; };

/*
 * dtrace's own providers' attributes; the GNU Mach providers take those of
 * their kind there: mach_trap is a syscall provider, proc, sched, ipc, vm,
 * vminfo and lockstat are SDT providers, pid and USDT providers (a name ending in
 * a process id) are uprobe ones.
 */
#define A_(n, d, c) { S_##n, S_##d, C_##c }
#define KIND_FBT { A_(EVOLVING, EVOLVING, COMMON), A_(PRIVATE, PRIVATE, UNKNOWN), \
		   A_(PRIVATE, PRIVATE, ISA), A_(EVOLVING, EVOLVING, COMMON), \
		   A_(PRIVATE, PRIVATE, ISA) }
#define KIND_SDT { A_(EVOLVING, EVOLVING, ISA), A_(PRIVATE, PRIVATE, UNKNOWN), \
		   A_(PRIVATE, PRIVATE, UNKNOWN), A_(EVOLVING, EVOLVING, ISA), \
		   A_(EVOLVING, EVOLVING, ISA) }
#define KIND_UPROBE { A_(EVOLVING, EVOLVING, ISA), A_(PRIVATE, PRIVATE, UNKNOWN), \
		      A_(PRIVATE, PRIVATE, UNKNOWN), A_(EVOLVING, EVOLVING, ISA), \
		      A_(PRIVATE, PRIVATE, UNKNOWN) }
static const struct pattr pattrs[] = {
	{ "dtrace", { A_(STABLE, STABLE, COMMON), A_(PRIVATE, PRIVATE, UNKNOWN),
		      A_(PRIVATE, PRIVATE, UNKNOWN), A_(STABLE, STABLE, COMMON),
		      A_(STABLE, STABLE, COMMON) } },
	{ "profile", { A_(EVOLVING, EVOLVING, COMMON),
		       A_(UNSTABLE, UNSTABLE, UNKNOWN),
		       A_(PRIVATE, PRIVATE, UNKNOWN),
		       A_(EVOLVING, EVOLVING, COMMON),
		       A_(EVOLVING, EVOLVING, COMMON) } },
	{ "fbt", KIND_FBT },
	{ "mach_trap", KIND_FBT },
	{ "proc", KIND_SDT },
	{ "sched", KIND_SDT },
	{ "ipc", KIND_SDT },
	{ "vm", KIND_SDT },
	{ "vminfo", KIND_SDT },
	{ "lockstat", KIND_SDT },
	{ "pid", KIND_UPROBE },
	{ NULL, { A_(PRIVATE, PRIVATE, UNKNOWN), A_(PRIVATE, PRIVATE, UNKNOWN),
		  A_(PRIVATE, PRIVATE, UNKNOWN), A_(PRIVATE, PRIVATE, UNKNOWN),
		  A_(PRIVATE, PRIVATE, UNKNOWN) } },
};
static const struct pattr prvdesc = { "", {
	A_(UNSTABLE, UNSTABLE, COMMON), A_(UNSTABLE, UNSTABLE, COMMON),
	A_(UNSTABLE, UNSTABLE, COMMON), A_(UNSTABLE, UNSTABLE, COMMON),
	A_(UNSTABLE, UNSTABLE, COMMON) } };
#undef A_

static struct attr
attr_min(struct attr a, struct attr b)
{
	struct attr m = { a.name < b.name ? a.name : b.name,
			  a.data < b.data ? a.data : b.data,
			  a.cls < b.cls ? a.cls : b.cls };
	return m;
}

static int
is_glob(const char *s)
{
	return s == NULL || *s == '\0' || strpbrk(s, "*?[") != NULL;
}

/* The attributes of a named provider ("machload12": a USDT one). */
static const struct pattr *
provider_attrs(const char *prov)
{
	const struct pattr *pa = pattrs;
	size_t n = strlen(prov);

	while (n > 0 && isdigit((unsigned char)prov[n - 1]))
		n--;
	for (; pa->prov; pa++)
		if (strcmp(prov, pa->prov) == 0)
			return pa;
	return n > 0 && prov[n] != '\0' ? provider_attrs("pid") : pa;
}

/* dt_probe_info()'s rule for a description matching several probes. */
static int
open_but_evolving(const struct pattr *pa, const struct mt_pdesc *pd)
{
	return (pa->a[A_MOD].name >= S_EVOLVING && is_glob(pd->mod)) ||
	       (pa->a[A_FUNC].name >= S_EVOLVING && is_glob(pd->func)) ||
	       (pa->a[A_NAME].name >= S_EVOLVING && is_glob(pd->name));
}

static struct attr
pdesc_attr(struct mt_target *t, const struct mt_pdesc *pd, struct attr *args)
{
	const struct pattr *pa = &prvdesc;
	struct attr a;
	int n = 0;

	if (!is_glob(pd->prov)) {
		pa = provider_attrs(pd->prov);
		if (t != NULL)
			t->ops->probes(t, pd, 1, mt_session_count_cb, &n);
		if (t != NULL && (n == 0 || (n > 1 && open_but_evolving(pa, pd))))
			pa = &prvdesc;
	}
	a = pa->a[A_PROV];
	if (!is_glob(pd->mod))
		a = attr_min(a, pa->a[A_MOD]);
	if (!is_glob(pd->func))
		a = attr_min(a, pa->a[A_FUNC]);
	if (!is_glob(pd->name))
		a = attr_min(a, pa->a[A_NAME]);
	*args = pa->a[A_ARGS];
	return a;
}

static void
print_attr(FILE *f, const char *title, struct attr a)
{
	fprintf(f, "\n\t%s\n\t\tIdentifier Names: %s\n"
		"\t\tData Semantics:   %s\n\t\tDependency Class: %s\n",
		title, stab_name[a.name], stab_name[a.data], class_name[a.cls]);
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
	struct attr desc = { S_STANDARD, S_STANDARD, C_COMMON }, args;
	/* -xoformat=json keeps stdout for the session's document */
	FILE *out = cl->opts.oformat == MT_OFORMAT_JSON ? stderr : cl->out;
	struct attr stmt = { prog->stmt_attr[0], prog->stmt_attr[1],
			     prog->stmt_attr[2] };

	for (uint32_t i = 0; i < prog->nclauses; i++) {
		const struct mt_clause_info *ci = &prog->clause_info[i];

		for (uint32_t j = 0; j < ci->npdescs; j++)
			desc = attr_min(desc, pdesc_attr(t, &ci->pdescs[j], &args));
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
			struct attr a = pdesc_attr(t, pd, &args);

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
