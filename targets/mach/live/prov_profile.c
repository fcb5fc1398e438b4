/*
 * profile: dtrace's default probes, and profile:::tick-N / profile-N made
 * on demand.  They fire from the kernel's clock interrupt (see plan.c).
 */
#include <stdio.h>
#include <string.h>
#include "targets/mach/live/live_int.h"

static int profile_populate(struct live *l)
{
	uint32_t kind;
	uint64_t ns;

	for (size_t i = 0; mt_profile_defaults[i]; i++) {
		mt_profile_parse(mt_profile_defaults[i], &kind, &ns);
		if (!live_probe_add(l, "profile", "", mt_profile_defaults[i], kind, ns, NULL))
			return -1;
	}
	return 0;
}

static int profile_create(struct mt_target *t, const struct mt_pdesc *pd,
			  mt_probe_cb cb, void *arg)
{
	struct lprobe *p;
	uint32_t kind;
	uint64_t ns;

	if (!pd->name || live_has_glob(pd->name) || !live_fmatch(pd->prov, "profile") ||
	    !live_fmatch(pd->mod, "") || !live_fmatch(pd->func, "") ||
	    mt_profile_parse(pd->name, &kind, &ns) != 0)
		return 0;
	if (!(p = live_probe_add(t->priv, "profile", "", pd->name, kind, ns, NULL))) {
		snprintf(t->err, sizeof t->err, "out of memory");
		return -1;
	}
	return live_probe_report(p, cb, arg) < 0 ? -1 : 1;
}

const struct live_provider live_prov_profile = {
	.name = "profile",
	.populate = profile_populate,
	.create = profile_create,
};
