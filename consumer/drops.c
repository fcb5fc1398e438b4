/*
 * Drop reports: principal and aggregation buffer drops per CPU, dynamic
 * variable and speculation drops, in dtrace's words, with their
 * [DTRACEDROP_*] tags under -xdroptags.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "impl.h"

/* kind, cpu: the DROP record of -xoformat=json (cpu -1: all CPUs). */
static void
drop_line(struct mt_consumer *c, const char *tag, uint64_t n, const char *what,
	  const char *details, int plural_s, int kind, int cpu)
{
	char msg[256];

	if (n == 0)
		return;
	snprintf(msg, sizeof(msg), "%llu %s%s%s", (unsigned long long)n, what,
		 plural_s && n > 1 ? "s" : "", details);
	c->o->drop(c, kind, cpu, n, msg);
	fflush(c->out);
	fprintf(c->err, "dtrace: %s%s%s%llu %s%s%s\n",
		c->opts->droptags ? "[" : "", c->opts->droptags ? tag : "",
		c->opts->droptags ? "] " : "", (unsigned long long)n, what,
		plural_s && n > 1 ? "s" : "", details);
}

/*
 * The runtime keeps counting while we report: every counter is read once,
 * and that same value is both reported (as a delta) and remembered, so a
 * drop counted meanwhile goes into the next report instead of being lost.
 */
static uint64_t
ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void
stat_read(const struct mt_cpustat *s, struct mt_cpustat *out)
{
	out->aggdrops = ld(&s->aggdrops);
	out->dynvar_drops = ld(&s->dynvar_drops);
	out->spec_drops = ld(&s->spec_drops);
	out->spec_unavail = ld(&s->spec_unavail);
	out->errors = ld(&s->errors);
	out->nested = ld(&s->nested);
	out->dblerrors = ld(&s->dblerrors);
}

/*
 * dtrace reads the dynamic variable and speculation drop counters when it
 * checks its status (dtrace_status()): at the first check, then once per
 * statusrate, and when tracing stops.  Each report sums the drops of all
 * CPUs since the previous one, so a burst is one line, as in dtrace.
 */
static int
status_due(struct mt_consumer *c, int final)
{
	uint64_t rate = c->opts->statusrate, now;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (final || c->status_ns == 0 || rate == 0) {
		c->status_ns = now;
		return 1;
	}
	if (now - c->status_ns < rate)
		return 0;
	c->status_ns += rate;
	return 1;
}

static void
report_drops(struct mt_consumer *c, int final)
{
	const struct mt_cpubuf *b;
	const struct mt_cpustat *st;
	struct mt_cpustat tot = { 0 }, now;
	int due;

	if (c->cb == NULL || c->seen_drops == NULL)
		return;
	due = status_due(c, final);
	b = (const void *)((const char *)c->cb + c->cb->cpubuf_off);
	st = c->cb->cpustat_off ?
		(const void *)((const char *)c->cb + c->cb->cpustat_off) : NULL;
	for (uint32_t cpu = 0; cpu < c->ncpus; cpu++) {
		uint64_t drops = ld(&b[cpu].drops);
		uint64_t d = drops - c->seen_drops[cpu];
		char what[64];

		c->seen_drops[cpu] = drops;
		if (d) {
			snprintf(what, sizeof(what), "drop%s on CPU %u",
				 d > 1 ? "s" : "", cpu);
			drop_line(c, "DTRACEDROP_PRINCIPAL", d, what, "", 0,
				  JD_PRINCIPAL, (int)cpu);
		}
		if (st == NULL)
			continue;
		stat_read(&st[cpu], &now);
		d = now.aggdrops - c->seen_stat[cpu].aggdrops;
		c->seen_stat[cpu].aggdrops = now.aggdrops;
		if (d) {
			snprintf(what, sizeof(what), "aggregation drop%s on "
				 "CPU %u", d > 1 ? "s" : "", cpu);
			drop_line(c, "DTRACEDROP_AGGREGATION", d, what, "", 0,
				  JD_AGGREGATION, (int)cpu);
		}
		if (!due)
			continue;
#define DELTA(f) tot.f += now.f - c->seen_stat[cpu].f
		DELTA(dynvar_drops); DELTA(spec_drops); DELTA(spec_unavail);
#undef DELTA
		c->seen_stat[cpu] = now;
	}
	drop_line(c, "DTRACEDROP_DYNAMIC", tot.dynvar_drops,
		  "dynamic variable drop", "", 1, JD_DYNAMIC, -1);
	drop_line(c, "DTRACEDROP_SPEC", tot.spec_drops, "speculative drop",
		  "", 1, JD_SPEC, -1);
	drop_line(c, "DTRACEDROP_SPECUNAVAIL", tot.spec_unavail,
		  "failed speculation", " (no speculative buffer available)",
		  1, JD_SPECUNAVAIL, -1);
	fflush(c->err);
}

void
mt_consume_drops(struct mt_consumer *c)
{
	report_drops(c, 0);
}

void
mt_consume_drops_final(struct mt_consumer *c)
{
	report_drops(c, 1);
}
