/*
 * What the SDT providers say about their sites on this kernel (sdt.h):
 * a warning for each probe a program names that could not be placed or
 * lost a site, and -lv's list of each probe's sites and how they were
 * found.
 */
#include <stdio.h>
#include <string.h>

#include "targets/mach/live/live_int.h"

/*
 * When pd names a provider explicitly, warn (once each) of the probes it
 * matches that this kernel could not place, or placed without a site.
 */
void sdt_warn_missing(struct live *l, const struct mt_pdesc *pd)
{
	if (!pd->prov || !*pd->prov || strcmp(pd->prov, "*") == 0)
		return;
	for (uint32_t i = 0; i < l->nmiss; i++) {
		struct sdt_miss *m = &l->miss[i];
		if (m->warned || !live_fmatch(pd->prov, m->prov) ||
		    (m->func && !live_fmatch(pd->func, m->func)) || !live_fmatch(pd->name, m->name))
			continue;
		m->warned = 1;
		fprintf(stderr, "machtrace: warning: %s:%s:%s %s on this kernel: %s\n", m->prov,
			m->func ? m->func : "*", m->name,
			m->placed ? "misses one of its sites (undercounts)" : "cannot be placed",
			m->why);
	}
}

/* What found site s, in words. */
static void site_how(const struct sdt_site *s, char *buf, size_t len)
{
	switch (s->where) {
	case SDT_ENTRY:
		snprintf(buf, len, "entry");
		break;
	case SDT_RETURN:
		snprintf(buf, len, "each return");
		break;
	case SDT_CALL:
		snprintf(buf, len, "call of %s", s->callee);
		break;
	case SDT_AFTER_CALL:
		snprintf(buf, len, "after a call of %s", s->callee);
		break;
	case SDT_MEMBER_INC: {
		const char *gt = strchr(s->callee, '>');
		if (gt)
			snprintf(buf, len, "increment of %.*s, its old value stored to %s",
				 (int)(gt - s->callee), s->callee, gt + 1);
		else
			snprintf(buf, len, "increment of %s", s->callee);
		break;
	}
	case SDT_MEMBER_USE:
		snprintf(buf, len, "use of %s", s->callee);
		break;
	default:
		snprintf(buf, len, "increment of %s", s->callee);
	}
}

/* How a variable's fallback (sdt.h) found it. */
static const char *fallback_text(const char *fb)
{
	return strcmp(fb, "*") == 0 ? "stored through a pointer next" :
	       fb[0] == '&' ? "the pointer its member is stored through next" :
	       "an argument of the next call";
}

/* The registers of lo's raw arguments and where each came from. */
static void site_regs_text(const struct sdt_loc *lo, char *buf, size_t len)
{
	static const char *const names[16] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; lo->regargs && i < SDT_MAXVARS && n < len; i++) {
		const char *v = lo->site->vars[i];
		uint8_t r = lo->argreg[i];
		if (!v)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%sarg%d=%.*s", i ? " " : "; ", i,
				      (int)strcspn(v, "|"), v);
		if (n < len && r < 16)
			n += (size_t)snprintf(buf + n, len - n, " in %%%s (%s)", names[r],
					      !(lo->fellback & 1u << i) ? (v[0] == '%' ? "named" : "DWARF") :
					      fallback_text(strchr(v, '|') + 1));
	}
}

/* -lv: each site of SDT probe id and how it was found; nothing for
   other probes. */
void sdt_print_sites(const struct live *l, uint32_t id, FILE *out)
{
	const struct lprobe *p = live_probe_by_id(l, id);
	char how[160], regs[256];

	if (!p || !p->sdt)
		return;
	fprintf(out, "\tProbe Sites (%u, found in this kernel's code)\n", p->nlocs);
	for (uint32_t i = 0; i < p->nlocs; i++) {
		const struct sdt_loc *lo = &p->locs[i];
		if (lo->where == SDT_SPIN) {
			snprintf(how, sizeof how, "%s", strcmp(p->name, "spin-spin") == 0 ?
				 "the pause of an inlined simple_lock's wait loop" :
				 "where an inlined simple_lock's xchg has taken the lock");
			regs[0] = '\0';
		} else if (!lo->site) {	/* SDT_NOTE: prov_ksdt.c's */
			snprintf(how, sizeof how, "the kernel's <sys/sdt.h> nop "
				 "(.note.stapsdt), its %u operands as arguments", lo->nuargs);
			regs[0] = '\0';
		} else {
			site_how(lo->site, how, sizeof how);
			site_regs_text(lo, regs, sizeof regs);
		}
		fprintf(out, "\t\t%s+%#llx: %s%s\n", lo->f->name,
			(unsigned long long)(lo->addr - lo->f->addr), how, regs);
	}
	fprintf(out, "\n");
}
