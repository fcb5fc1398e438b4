/* The dtrace provider of the live target: BEGIN, END, ERROR (ids 1-3). */
#include "targets/mach/live/live_int.h"

static int dtrace_populate(struct live *l)
{
	if (!live_probe_add(l, "dtrace", "", "BEGIN", MT_PK_BEGIN, 0, NULL) ||
	    !live_probe_add(l, "dtrace", "", "END", MT_PK_END, 0, NULL) ||
	    !live_probe_add(l, "dtrace", "", "ERROR", MT_PK_ERROR, 0, NULL))
		return -1;
	return 0;
}

const struct live_provider live_prov_dtrace = {
	.name = "dtrace",
	.populate = dtrace_populate,
};
