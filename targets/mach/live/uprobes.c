/*
 * The live target's user programs (usdt and pid providers): the boot
 * modules read from their ELF files when the target is created, boot
 * module k being task pid umod_pid(k); the provider names made for them;
 * and the check, after STOP, that every user text page a site patched
 * holds its ELF's bytes again (but a task that ended: its pages may be
 * someone else's now).
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machtrace/mach.h"
#include "targets/mach/live/live_int.h"

const char *live_name(struct live *l, const char *fmt, ...)
{
	char buf[256], **nv, *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	for (int i = 0; i < l->nnames; i++)
		if (strcmp(l->names[i], buf) == 0)
			return l->names[i];
	if (!(s = strdup(buf)) || !(nv = realloc(l->names, (l->nnames + 1) * sizeof *nv))) {
		free(s);
		return NULL;
	}
	l->names = nv;
	nv[l->nnames++] = s;
	return s;
}

/* The path of boot module i ("PATH args" -> PATH). */
static void module_path(const struct live *l, int i, char *buf, size_t len)
{
	const char *m = l->o.modules[i];

	snprintf(buf, len, "%.*s", (int)strcspn(m, " "), m);
}

int live_uprogs_load(struct live *l)
{
	int n = l->o.nmodules ? l->o.nmodules : 1;
	char path[PATH_MAX], err[256];

	if (!(l->uprogs = calloc((size_t)n, sizeof *l->uprogs)))
		return -1;
	for (int i = 0; i < n; i++) {
		struct umod m;
		if (l->o.nmodules) {
			module_path(l, i, path, sizeof path);
		} else {
			mt_build_dir(path, sizeof path);
			strncat(path, "/guest/machload", sizeof path - strlen(path) - 1);
		}
		/* a module that is no readable x86-64 ELF has no user probes */
		if (umod_load(&m, path, umod_pid(i + 1), err, sizeof err) < 0) {
			umod_free(&m);
			continue;
		}
		l->uprogs[l->nuprogs++] = m;
	}
	return 0;
}

void live_uprogs_free(struct live *l)
{
	for (int i = 0; i < l->nuprogs; i++)
		umod_free(&l->uprogs[i]);
	free(l->uprogs);
	for (int i = 0; i < l->nnames; i++)
		free(l->names[i]);
	free(l->names);
	free(l->us);
	l->uprogs = NULL;
	l->names = NULL;
	l->us = NULL;
	l->nuprogs = l->nnames = 0;
	l->nus = 0;
}

/*
 * pid<N> or a glob that could be one; else a usdt provider of machload,
 * the default workload, as PROVIDER<N> or a glob of it (another
 * program's probes need --module, which sends every description to the
 * kernel anyway).
 */
int live_user_prov(const char *prov)
{
	char path[PATH_MAX], err[256], inst[128];
	struct umod m;
	int yes = 0;

	if (!prov || !*prov || strcmp(prov, "*") == 0)
		return 0;
	if (strncmp(prov, "pid", 3) == 0 && prov[3] &&
	    (strspn(prov + 3, "0123456789") == strlen(prov + 3) || live_has_glob(prov + 3)))
		return 1;
	mt_build_dir(path, sizeof path);
	strncat(path, "/guest/machload", sizeof path - strlen(path) - 1);
	if (umod_load(&m, path, umod_pid(1), err, sizeof err) == 0)
		for (size_t i = 0; i < m.nnotes && !yes; i++) {
			size_t n = strlen(m.notes[i].prov);
			snprintf(inst, sizeof inst, "%s%u", m.notes[i].prov, umod_pid(1));
			yes = fnmatch(prov, inst, 0) == 0 ||
			      (strncmp(prov, m.notes[i].prov, n) == 0 && prov[n] &&
			       strspn(prov + n, "0123456789") == strlen(prov + n));
		}
	umod_free(&m);
	return yes;
}

static const struct umod *umod_of_pid(const struct live *l, uint32_t pid)
{
	for (int i = 0; i < l->nuprogs; i++)
		if (l->uprogs[i].pid == pid)
			return &l->uprogs[i];
	return NULL;
}

int live_utext_compare(struct live *l, uint64_t *where, uint32_t *pages)
{
	const struct lk_usite *us = (const struct lk_usite *)((uint8_t *)l->ram + l->resv_pa +
							     LK_USITES_OFF);
	uint64_t done[LK_USITES_MAX];
	uint32_t nd = 0;

	*where = 0;
	*pages = 0;
	for (uint32_t i = 0; i < l->nus; i++) {
		const struct umod *m = umod_of_pid(l, us[i].pid);
		uint64_t page = us[i].addr & ~0xfffull, ppa = us[i].pa & ~0xfffull;
		uint32_t k;
		if (!us[i].pa || !m || us[i].state == LK_US_GONE)
			continue;	/* never patched, or its task ended */
		for (k = 0; k < nd && done[k] != ppa; k++)
			;
		if (k < nd)
			continue;
		done[nd++] = ppa;
		if (ppa + 4096 > l->ram_size)
			return -1;
		for (uint64_t va = page; va < page + 4096; va++) {
			const uint8_t *b = umod_text(m, va, 1);
			if (b && *b != ((uint8_t *)l->ram)[ppa + (va - page)]) {
				*where = va;
				return 1;
			}
		}
		(*pages)++;
	}
	return 0;
}
