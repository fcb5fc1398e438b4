/*
 * The profile provider's probe names, shared by every target: dtrace's
 * default probe set and the parsing of "tick-N[unit]" / "profile-N[unit]".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/program.h"

const char *const mt_profile_defaults[] = {
	"profile-97", "profile-199", "profile-499", "profile-997",
	"profile-1999", "profile-4001", "profile-4999", "tick-1", "tick-10",
	"tick-100", "tick-500", "tick-1000", "tick-5000", NULL
};

int mt_profile_parse(const char *name, uint32_t *kind, uint64_t *ns)
{
	static const struct { const char *s; uint64_t mult; } units[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 },
		{ "s", 1000000000ull }, { "sec", 1000000000ull },
		{ "m", 60000000000ull }, { "min", 60000000000ull },
		{ "h", 3600000000000ull }, { "hour", 3600000000000ull },
		{ "d", 86400000000000ull }, { "day", 86400000000000ull },
		{ "hz", 0 }, { "", 0 },
	};
	const char *p;
	char *end;
	unsigned long long v;

	if (strncmp(name, "tick-", 5) == 0)
		*kind = MT_PK_TICK, p = name + 5;
	else if (strncmp(name, "profile-", 8) == 0)
		*kind = MT_PK_PROFILE, p = name + 8;
	else
		return -1;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || v == 0)
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (strcmp(end, units[i].s) != 0)
			continue;
		*ns = units[i].mult ? v * units[i].mult : 1000000000ull / v;
		return *ns >= MT_PROFILE_MIN_NS ? 0 : -1;
	}
	return -1;
}
