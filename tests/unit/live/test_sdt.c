/*
 * SDT probe sites on the stock kernel (targets/mach/live/sdt.c): the ipc
 * provider's sites on mach_msg_trap's fast paths, which call nothing and
 * are found by what they do (the port's sequence number given to the
 * message), with the message read from the register DWARF places it in
 * (sdt_site.vars).  A site that no longer resolves would
 * silently lose messages: each is counted here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"
#include "tests/unit/mach/stock_kernel.h"
#include "tests/unit/mt_test.h"

static struct live *catalog(void)
{
	static struct live l;

	if (!l.k) {
		l.k = kernel();
		if (l.k && live_probes_init(&l) < 0)
			l.k = NULL;
	}
	return l.k ? &l : NULL;
}

static const struct lprobe *probe(const char *prov, const char *func, const char *name)
{
	struct live *l = catalog();

	for (uint32_t i = 0; l && i < l->nprobes; i++)
		if (l->probes[i].sdt && strcmp(l->probes[i].prov, prov) == 0 &&
		    strcmp(l->probes[i].func, func) == 0 && strcmp(l->probes[i].name, name) == 0)
			return &l->probes[i];
	return NULL;
}

static void dump(const struct lprobe *p)
{
	for (uint32_t i = 0; p && i < p->nlocs; i++)
		printf("# %s:%s:%s site %u: %s+%llu where %u regs %u %u %u %u\n", p->prov,
		       p->func, p->name, i, p->locs[i].f->name,
		       (unsigned long long)(p->locs[i].addr - p->locs[i].f->addr),
		       p->locs[i].where, p->locs[i].argreg[0], p->locs[i].argreg[1],
		       p->locs[i].argreg[2], p->locs[i].argreg[3]);
}

/* Where a site of p lies: its function and offset; -1 if none there. */
static int site_at(const struct lprobe *p, uint64_t off)
{
	for (uint32_t i = 0; p && i < p->nlocs; i++)
		if (p->locs[i].addr - p->locs[i].f->addr == off)
			return (int)i;
	return -1;
}

TEST(ipc_send_sites)
{
	const struct lprobe *p = probe("ipc", "mach_msg_trap", "send");

	CHECK(p != NULL);
	dump(p);
	/* the kobject call, the two handoffs, the exception reply, the
	   direct kernel reply */
	CHECK_EQ_INT(p ? p->nlocs : 0, 5);
	for (uint32_t i = 0; p && i < p->nlocs; i++) {
		CHECK(p->locs[i].regargs);
		CHECK_EQ_INT(p->locs[i].argreg[0], 15);	/* kmsg: %r15 */
	}
}

TEST(ipc_receive_sites)
{
	const struct lprobe *p = probe("ipc", "mach_msg_trap", "receive"),
		*q = probe("ipc", "ipc_mqueue_receive", "receive");

	CHECK(p != NULL && q != NULL);
	dump(p);
	dump(q);
	CHECK_EQ_INT(p ? p->nlocs : 0, 3);
	CHECK_EQ_INT(q ? q->nlocs : 0, 1);
	if (q && q->nlocs) {
		CHECK_EQ_INT(q->locs[0].argreg[0], 3);		/* kmsg: %rbx */
		CHECK_EQ_INT(q->locs[0].argreg[1], LK_REG_ZERO);
		CHECK_EQ_INT(q->locs[0].argreg[2], LK_REG_CURTHREAD);
	}
}

TEST(ipc_exception_sites)
{
	const struct lprobe *p = probe("ipc", "exception_raise", "send"),
		*q = probe("ipc", "exception_raise", "receive");

	CHECK(p != NULL && q != NULL);
	dump(p);
	CHECK_EQ_INT(p ? p->nlocs : 0, 1);
	CHECK_EQ_INT(q ? q->nlocs : 0, 1);
}

/* The fast handoff's site is after thread_handoff succeeded (where
   trixie's source line 920 begins): the sender is the thread that
   called it (self, %r13), the receiver current. */
TEST(ipc_handoff_site)
{
	const struct lprobe *p = probe("ipc", "mach_msg_trap", "send");
	int i = site_at(p, 5615);

	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_EQ_INT(p->locs[i].where, SDT_MEMBER_INC);
		CHECK_EQ_INT(p->locs[i].argreg[1], 13);
		CHECK_EQ_INT(p->locs[i].argreg[2], LK_REG_CURTHREAD);
	}
}

/* The sites found by what the code does are where trixie's source lines
   were (mach_msg.c 871, 1376, 920; exception.c 540), the message in the
   register the old tables named (exception_raise: %rbx, which DWARF lost
   there: found as ipc_kmsg_destroy's argument). */
TEST(ipc_sites_where_the_lines_were)
{
	const struct lprobe *p = probe("ipc", "mach_msg_trap", "send"),
		*e = probe("ipc", "exception_raise", "receive");

	CHECK(site_at(p, 4661) >= 0 && site_at(p, 5001) >= 0 && site_at(p, 5615) >= 0);
	CHECK(site_at(e, 633) == 0);
	CHECK_EQ_INT(e->locs[0].argreg[0], 3);
	CHECK_EQ_INT(e->locs[0].fellback, 1);
	CHECK_EQ_INT(e->locs[0].argreg[2], LK_REG_CURTHREAD);
}

/* Each variable fallback (sdt.h "VAR|...") finds the register DWARF gives
   wherever DWARF has the variable, so that it is right where DWARF has
   lost it: every site of every SDT probe of the stock kernel.  At a site
   that is itself the call a fallback names, the fallback is the callee's
   argument register (the ABI's), which holds the same value. */
static int is_call_arg(const struct sdt_loc *lo, const char *var)
{
	const char *fb = strchr(var, '|') + 1;
	size_t n = lo->site->callee ? strlen(lo->site->callee) : 0;

	return lo->where == SDT_CALL && n && strncmp(fb, lo->site->callee, n) == 0 &&
	       (fb[n] == 0 || fb[n] == ':');
}

TEST(fallbacks_agree_with_dwarf)
{
	struct live *l = catalog();
	int checked = 0;

	CHECK(l != NULL);
	for (uint32_t i = 0; i < l->nprobes; i++) {
		const struct lprobe *p = &l->probes[i];
		for (uint32_t j = 0; p->sdt && j < p->nlocs; j++) {
			const struct sdt_loc *lo = &p->locs[j];
			for (int v = 0; lo->regargs && v < SDT_MAXVARS; v++) {
				const char *var = lo->site->vars[v];
				char name[64];
				int dw;
				if (!var || !strchr(var, '|'))
					continue;
				snprintf(name, sizeof name, "%.*s", (int)strcspn(var, "|"), var);
				dw = mt_kimg_var_reg(l->k, lo->addr, name);
				if (dw < 0)
					continue;
				printf("# %s:%s:%s %s+%llu %s: DWARF %d, fallback %d\n", p->prov,
				       p->func, p->name, lo->f->name,
				       (unsigned long long)(lo->addr - lo->f->addr), var, dw,
				       sdt_fallback_reg(l->k, var, lo->addr));
				if (is_call_arg(lo, var))
					CHECK(sdt_fallback_reg(l->k, var, lo->addr) >= 0);
				else
					CHECK_EQ_INT(sdt_fallback_reg(l->k, var, lo->addr), dw);
				checked++;
			}
		}
	}
	CHECK(checked >= 4);
}

MT_TEST_MAIN()
