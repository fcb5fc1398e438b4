/*
 * `machtrace -l` for GNU Mach: the fbt probes of a kernel image, in
 * dtrace -l / -lv format.  Every function that is not refused has an entry
 * probe, and a return probe when it has return instructions.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/kimg.h"
#include "machtrace/mach.h"
#include "targets/mach/mach_int.h"

#define PROVIDER "fbt"
#define MODULE "gnumach"

struct desc {
	char field[4][256];     /* provider, module, function, name; "" = any */
};

/* dtrace's rule: the given fields are the rightmost ones ("f:n", "m:f:n"). */
static int parse_desc(const char *s, struct desc *d, char *err, size_t errlen)
{
	const char *parts[4];
	size_t lens[4];
	int n = 0;

	memset(d, 0, sizeof *d);
	for (const char *p = s;; n++) {
		const char *c = strchr(p, ':');
		if (n == 4) {
			mt_seterr(err, errlen, "invalid probe description '%s'", s);
			return -1;
		}
		parts[n] = p;
		lens[n] = c ? (size_t)(c - p) : strlen(p);
		if (!c) {
			n++;
			break;
		}
		p = c + 1;
	}
	for (int i = 0; i < n; i++) {
		int f = 4 - n + i;
		if (lens[i] >= sizeof d->field[f]) {
			mt_seterr(err, errlen, "probe description too long");
			return -1;
		}
		memcpy(d->field[f], parts[i], lens[i]);
	}
	return 0;
}

static int field_match(const char *pat, const char *s)
{
	return !*pat || fnmatch(pat, s, 0) == 0;
}

static int matches(const struct desc *d, int nd, const char *func, const char *name)
{
	if (nd == 0)
		return 1;
	for (int i = 0; i < nd; i++)
		if (field_match(d[i].field[0], PROVIDER) && field_match(d[i].field[1], MODULE) &&
		    field_match(d[i].field[2], func) && field_match(d[i].field[3], name))
			return 1;
	return 0;
}

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

static void print_args(FILE *out, const struct mt_kfunc *f, int is_return)
{
	mt_mach_print_attrs(out);
	if (is_return) {
		fprintf(out, "\t\targs[0]: int\n");
		if (f->rettype && strcmp(f->rettype, "void") != 0)
			fprintf(out, "\t\targs[1]: %s\n", f->rettype);
	} else if (f->nargs > 0) {
		for (int i = 0; i < f->nargs; i++)
			fprintf(out, "\t\targs[%d]: %s\n", i, f->args[i].type);
	} else {
		fprintf(out, "\t\tNone\n");
	}
	fprintf(out, "\n");
}

static void print_probe(FILE *out, unsigned id, const struct mt_kfunc *f, const char *name,
			int verbose)
{
	fprintf(out, "%5u %10s %17s %33s %s\n", id, PROVIDER, MODULE, f->name, name);
	if (verbose)
		print_args(out, f, strcmp(name, "return") == 0);
}

int mt_mach_list(const char *kernel, const char *const *descs, int ndescs,
		 int verbose, unsigned first_id, FILE *out, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct desc *d = calloc(ndescs > 0 ? ndescs : 1, sizeof *d);
	struct mt_kimg *k;
	unsigned id = first_id;
	int n = 0;

	if (!d) {
		mt_seterr(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < ndescs; i++)
		if (parse_desc(descs[i], &d[i], err, errlen) < 0)
			goto fail;
	if (!kernel) {
		kernel = mt_stock_kernel(path, sizeof path);
		if (access(kernel, R_OK) != 0) {
			mt_seterr(err, errlen, "no kernel at %s: run scripts/setup.sh (make setup) "
				  "to fetch Debian's gnumach packages, or give a kernel file", kernel);
			goto fail;
		}
	}
	k = mt_kimg_open(kernel, err, errlen);
	if (!k)
		goto fail;
	for (size_t i = 0; i < mt_kimg_nfuncs(k); i++) {
		const struct mt_kfunc *f = mt_kimg_func(k, i);
		if (f->patch == MT_PATCH_REFUSED)
			continue;
		if (matches(d, ndescs, f->name, "entry"))
			print_probe(out, id, f, "entry", verbose), n++;
		id++;
		if (f->nrets) {
			if (matches(d, ndescs, f->name, "return"))
				print_probe(out, id, f, "return", verbose), n++;
			id++;
		}
	}
	mt_kimg_close(k);
	free(d);
	return n;
fail:
	free(d);
	return -1;
}
