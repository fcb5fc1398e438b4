/*
 * profile: dtrace's default probes, and profile:::tick-N / profile-N made
 * on demand.  They fire from the local APIC timer the blob takes at GO
 * (runtime/x86_64/apic.c), or from the kernel's clock interrupt at its
 * 100 Hz when it cannot (plan.c).  Intervals under MT_PROFILE_MIN_NS
 * (200 us, 5000 Hz: illumos' profile_interval_min) make no probe, as in
 * illumos, but say why instead of matching nothing.
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
	uint64_t ns = 0;

	if (!pd->name || live_has_glob(pd->name) || !live_fmatch(pd->prov, "profile") ||
	    !live_fmatch(pd->mod, "") || !live_fmatch(pd->func, ""))
		return 0;
	if (mt_profile_parse(pd->name, &kind, &ns) != 0) {
		if (!ns || ns >= MT_PROFILE_MIN_NS)
			return 0;
		snprintf(t->err, sizeof t->err, "profile:::%s: its interval (%llu ns) is under "
			 "the minimum of %llu us: profile-N and tick-N fire at most %llu times "
			 "a second", pd->name, (unsigned long long)ns,
			 MT_PROFILE_MIN_NS / 1000, 1000000000ull / MT_PROFILE_MIN_NS);
		return -1;
	}
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
