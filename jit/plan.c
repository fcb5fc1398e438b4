/*
 * A target's plan for a probe's compiled code (jit.h, mt_jit_plan): the
 * GNU Mach target's sites and the local target share it, and with it
 * what -S says of each probe.
 */
#include <stdlib.h>

#include "jit/jit.h"

/* The probe's prov:mod:func:name, and " at ADDR" when addr is not 0. */
static void probe_name(const struct mt_image *img, uint32_t pi, uint64_t addr, char *buf,
		       size_t len)
{
	const struct mt_probe *p = (const struct mt_probe *)((const uint8_t *)img + img->probes_off) + pi;
	const char *st = (const char *)img + img->strtab_off;
	int n = snprintf(buf, len, "%s:%s:%s:%s", st + p->prov, st + p->mod, st + p->func,
			 st + p->name);

	if (addr && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " at 0x%llx", (unsigned long long)addr);
}

/* Code the checker refuses is a compiler bug: said on stderr. */
static int compile(const struct mt_image *img, uint32_t pi, const struct jit_opts *o,
		   struct jit_code *c, const char *nojit, char *why, size_t len)
{
	int rc;

	if (nojit) {
		snprintf(why, len, "%s", nojit);
		return 0;
	}
	rc = mt_jit_probe(img, pi, o, c, why, len);
	if (rc == 1 && mt_jit_check(c, why, len) < 0) {
		fprintf(stderr, "machtrace: compiled probe %u refused by the checker (%s): "
			"interpreted\n", pi, why);
		rc = 0;
	}
	return rc;
}

/* MACHTRACE_JIT_STATS=FILE: a line a planned probe appended to FILE
   (how many of a test suite's probes run compiled code, and why not). */
static void stats(const struct mt_image *img, uint32_t pi, int rc, const char *why)
{
	const char *path = getenv("MACHTRACE_JIT_STATS");
	char name[256];
	FILE *f;

	if (!path || !(f = fopen(path, "a")))
		return;
	probe_name(img, pi, 0, name, sizeof name);
	if (rc == 1)
		fprintf(f, "compiled %s\n", name);
	else
		fprintf(f, "interpreted %s: %s\n", name, why);
	fclose(f);
}

void mt_jit_unplaced(const struct mt_image *img, uint32_t pi, uint64_t addr, const char *why)
{
	char name[300];

	stats(img, pi, 0, why);
	if (!getenv("MACHTRACE_JIT_SHOW"))
		return;
	probe_name(img, pi, addr, name, sizeof name);
	fprintf(stderr, "\nProbe %s: interpreted (%s)\n", name, why);
}

struct jit_code *mt_jit_plan(const struct mt_image *img, uint32_t pi, const struct jit_opts *o,
			     uint64_t addr, const char *nojit)
{
	struct jit_code *c;
	char why[200], name[300];
	int rc, show = getenv("MACHTRACE_JIT_SHOW") != NULL;

	if (!img || getenv("MACHTRACE_NOJIT") || !(c = calloc(1, sizeof *c)))
		return NULL;
	rc = compile(img, pi, o, c, nojit, why, sizeof why);
	if (rc != 1) {
		mt_jit_unplaced(img, pi, addr, why);
		mt_jit_free(c);
		free(c);
		return NULL;
	}
	stats(img, pi, rc, why);
	if (show) {
		probe_name(img, pi, addr, name, sizeof name);
		fprintf(stderr, "\nProbe %s: compiled, %u bytes\n", name, c->b.len);
		mt_jit_disasm(c, 0, stderr);
	}
	return c;
}
