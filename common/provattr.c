/*
 * Stability attributes (dtrace's -v report and #pragma D attributes):
 * machtrace's providers' attribute triples and the parsing of an
 * attribute string.  Levels and classes are numbered in dtrace's order
 * so that the minimum is the weakest (program.h).
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "machtrace/program.h"

const char *const mt_stab_names[MT_STAB_N] = { "Internal", "Private",
	"Obsolete", "External", "Unstable", "Evolving", "Stable", "Standard" };
const char *const mt_class_names[MT_CLASS_N] = { "Unknown", "CPU",
	"Platform", "Group", "ISA", "Common" };

/*
 * dtrace's own providers' attributes; the GNU Mach providers take those of
 * their kind there: mach_trap is a syscall provider, proc, sched, ipc, vm,
 * vminfo and lockstat are SDT providers, pid and USDT providers (a name
 * ending in a process id) are uprobe ones.
 */
#define A_(n, d, c) { MT_STAB_##n, MT_STAB_##d, MT_CLASS_##c }
#define KIND_FBT { A_(EVOLVING, EVOLVING, COMMON), A_(PRIVATE, PRIVATE, UNKNOWN), \
		   A_(PRIVATE, PRIVATE, ISA), A_(EVOLVING, EVOLVING, COMMON), \
		   A_(PRIVATE, PRIVATE, ISA) }
#define KIND_SDT { A_(EVOLVING, EVOLVING, ISA), A_(PRIVATE, PRIVATE, UNKNOWN), \
		   A_(PRIVATE, PRIVATE, UNKNOWN), A_(EVOLVING, EVOLVING, ISA), \
		   A_(EVOLVING, EVOLVING, ISA) }
#define KIND_UPROBE { A_(EVOLVING, EVOLVING, ISA), A_(PRIVATE, PRIVATE, UNKNOWN), \
		      A_(PRIVATE, PRIVATE, UNKNOWN), A_(EVOLVING, EVOLVING, ISA), \
		      A_(PRIVATE, PRIVATE, UNKNOWN) }
static const struct mt_provattr provattrs[] = {
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
#undef A_

const struct mt_provattr *mt_provattr_lookup(const char *prov)
{
	const struct mt_provattr *pa = provattrs;
	size_t n = strlen(prov);

	while (n > 0 && isdigit((unsigned char)prov[n - 1]))
		n--;
	for (; pa->prov; pa++)
		if (strcmp(prov, pa->prov) == 0)
			return pa;
	return n > 0 && prov[n] != '\0' ? mt_provattr_lookup("pid") : NULL;
}

const struct mt_provattr *mt_provattr_default(void)
{
	return &provattrs[sizeof(provattrs) / sizeof(provattrs[0]) - 1];
}

static int name_index(const char *s, size_t len, const char *const *names,
		      int n)
{
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) == len && strncasecmp(s, names[i], len) == 0)
			return i;
	return -1;
}

/*
 * "names[/data[/class]]" as dtrace's dtrace_str2attr: names compared
 * without case, a part left out is the strongest (Standard, Common);
 * 0, or -1 for a bad name or a fourth part.
 */
int mt_attr_parse(const char *s, struct mt_attr *a)
{
	int v[3] = { MT_STAB_STANDARD, MT_STAB_STANDARD, MT_CLASS_COMMON };

	for (int i = 0; *s != '\0'; i++) {
		const char *e = strchr(s, '/');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (i == 3)
			return -1;
		v[i] = i < 2 ? name_index(s, len, mt_stab_names, MT_STAB_N) :
			       name_index(s, len, mt_class_names, MT_CLASS_N);
		if (v[i] < 0)
			return -1;
		s += len + (e != NULL);
	}
	a->name = (uint8_t)v[0];
	a->data = (uint8_t)v[1];
	a->cls = (uint8_t)v[2];
	return 0;
}
