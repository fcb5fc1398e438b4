/*
 * Probe sites (probe context).  The host decides every site (runtime/
 * machtrace/lkabi.h, struct lk_site): the bytes to write, the original bytes,
 * and the trampoline or out-of-line copy holding the relocated displaced
 * instructions.  Here the sites are only checked, patched, unpatched, and
 * their firings turned into mt_rt_probe calls.
 *
 *   JMP   "jmp rel32" to a trampoline "push $index; jmp lk_fbt_entry";
 *         lk_fbt_fire returns the trampoline's displaced copy
 *   INT3  vector 3: fire, then resume at the out-of-line copy
 *   RET   vector 3 on a ret: fire the return probe, then do the ret
 */
#include "runtime/kernel/kern.h"
#include "machtrace/jitabi.h"

struct lk_site *lk_site_at(uint64_t addr)
{
	uint32_t a = lk_first_at(lk.sites, lk.nsites, sizeof *lk.sites, addr);

	if (a < lk.nsites && lk.sites[a].addr == addr)
		return &lk.sites[a];
	return 0;
}

/*
 * Run probe's clauses on ctx (counted in the CPU's gen_fires), between
 * two rdtscs: the time goes to the probe-context ticks lk.vt_probe
 * (always: the virtual clock's, kvtime.c, and the tracer's own cost,
 * which lk_tick publishes) and, with LK_CTL_STATS, to the statistics
 * (firings, TSC ticks in the runtime).
 */
static void lk_fire_ctx(uint32_t probe, const struct mt_pctx *ctx)
{
	uint64_t t0, dt;
	uint32_t cpu;

	if (!lk.cb || !lk.tracing)
		return;
	if (__atomic_load_n(&lk.ending, __ATOMIC_ACQUIRE) && probe + 1 != lk.end_probe)
		return;
	if (lk.cb->req != MT_REQ_NONE && lk.cb->ncpus == 1)
		lk_fast_disarm();	/* the runtime services it now */
	if ((cpu = mt_plat_cpu()) < LK_NCPU_MAX)
		lk.ctl->gen_fires[cpu]++;
	t0 = lk_rdtsc();
	lk.vt_fire = t0;
	mt_rt_probe(lk.cb, probe, ctx);
	dt = lk_rdtsc() - t0;
	lk.vt_fire = 0;
	lk.vt_probe += dt;
	if (lk.ctl->flags & LK_CTL_STATS) {
		lk.ctl->fires++;
		lk.ctl->fire_tsc += dt;
	}
}

void lk_fire_probe(uint32_t probe, struct lk_fire *f, const uint64_t *args,
		   uint32_t nargs)
{
	struct mt_pctx ctx;

	for (uint32_t i = 0; i < MT_NARGS; i++)
		ctx.arg[i] = i < nargs ? args[i] : 0;
	ctx.argdata = 0;
	ctx.argdata_size = 0;
	ctx.plat = f;
	lk_fire_ctx(probe, &ctx);
}

/* An LK_SF_STAMP site: the start of the current thread's interval. */
static void lk_stamp(struct lk_fire *f)
{
	struct mt_pctx ctx = { .plat = f };

	if (lk.cb && lk.tracing)
		mt_rt_stamp(lk.cb, &ctx);
}

/*
 * arg0 .. arg[n - 1] at a function entry: six registers, then the stack.
 * The others stay unset: no clause of the site's probes reads them
 * (lk_sites_prepare).
 */
static void entry_args(const struct lk_regs *r, uint64_t sp, uint64_t *a, uint32_t n)
{
	switch (n < 6 ? n : 6) {
	case 6: a[5] = r->r9;		/* fallthrough */
	case 5: a[4] = r->r8;		/* fallthrough */
	case 4: a[3] = r->rcx;		/* fallthrough */
	case 3: a[2] = r->rdx;		/* fallthrough */
	case 2: a[1] = r->rsi;		/* fallthrough */
	case 1: a[0] = r->rdi;		/* fallthrough */
	default: break;
	}
	if (n <= 6)
		return;
	/* the stack page holding sp is mapped: no walk when the args share it */
	if (((sp + 32) & ~0xfffull) == (sp & ~0xfffull)) {
		const uint64_t *st = (const uint64_t *)sp;
		for (uint32_t i = 6; i < n; i++)
			a[i] = st[i - 5];
		return;
	}
	for (uint32_t i = 6; i < n; i++)
		if (!lk_load64(sp + 8 * (uint64_t)(i - 5), &a[i]))
			a[i] = 0;
}

/* DWARF x86-64 register n at a site (rsp: its value before the trap). */
static uint64_t dwarf_reg(struct lk_regs *r, uint64_t sp, uint8_t n)
{
	if (n == 7)
		return sp;
	if (n == LK_REG_CURTHREAD)
		return mt_plat_var(0, MT_VAR_CURTHREAD);
	return n < 16 ? *lk_dwarf_slot(r, n) : 0;
}

/* LK_SF_REGARGS: the registers the host named (lkabi.h), the first n. */
static void reg_args(const struct lk_site *s, struct lk_regs *r, uint64_t sp,
		     uint64_t *a, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		a[i] = i < LK_SITE_NREGARGS ? dwarf_reg(r, sp, s->argreg[i]) : 0;
}

/* LK_SF_UARGS: a kernel static probe's operand (lkabi.h), safe loads. */
static uint64_t kuarg(const struct lk_uarg *u, struct lk_regs *r, uint64_t sp)
{
	uint64_t v = 0, va;

	switch (u->kind) {
	case LK_UA_REG:
		v = dwarf_reg(r, sp, u->reg) >> u->shift;
		break;
	case LK_UA_IMM:
		v = (uint64_t)u->val;
		break;
	case LK_UA_MEM:
	case LK_UA_ADDR:
		va = (uint64_t)u->val + (u->reg != LK_UA_NOREG ? dwarf_reg(r, sp, u->reg) : 0) +
			(u->idx != LK_UA_NOREG ? dwarf_reg(r, sp, u->idx) * u->scale : 0);
		if (u->kind == LK_UA_ADDR)
			v = va;
		else if (!lk_load_n(va, (uint32_t)(u->size < 0 ? -u->size : u->size), &v))
			v = 0;
		break;
	}
	return lk_uarg_extend(v, u->size);
}

static void uarg_args(const struct lk_site *s, struct lk_regs *r, uint64_t sp,
		      uint64_t *a, uint32_t n)
{
	const struct lk_uarg *u = (const struct lk_uarg *)s->uargs;

	for (uint32_t i = 0; i < n; i++)
		a[i] = i < (uint32_t)s->nuargs ? kuarg(&u[i], r, sp) : 0;
}

/*
 * Where the return address and the caller's rbp are at the site (lk_fire:
 * caller = [sp], the walk starts at fp): an entry's are at rsp and in rbp;
 * a kinst site's follow the host's CFA rule for its instruction.
 */
static void site_frame(const struct lk_site *s, struct lk_regs *r, uint64_t sp,
		       struct lk_fire *f)
{
	uint64_t cfa, v;

	f->r = r;
	f->user = 0;
	f->tracer = 0;
	f->pc = s->addr;
	f->sp = sp;
	f->rsp = sp;
	f->fp = r->rbp;
	if (s->flags & LK_SF_NOFRAME) {
		f->sp = f->fp = 0;
		return;
	}
	if (!(s->flags & LK_SF_FRAME))
		return;
	cfa = ((s->flags & LK_SF_CFA_RBP) ? r->rbp : sp) + (uint64_t)(int64_t)s->cfa_off;
	f->sp = cfa - 8;
	if (s->flags & LK_SF_RBP_SAVED)
		f->fp = lk_load64(cfa + (uint64_t)(int64_t)s->rbp_off, &v) ? v : 0;
}

#define SF_AFTER (LK_SF_STAMP | LK_SF_INTERNAL_UINSTALL | LK_SF_INTERNAL_UREMOVE | \
		  LK_SF_INTERNAL_FORGET | LK_SF_INTERNAL_BORN_TASK | \
		  LK_SF_INTERNAL_BORN_THREAD | LK_SF_INTERNAL_TICK | LK_SF_INTERNAL_END | \
		  LK_SF_INTERNAL_SWITCH1 | LK_SF_INTERNAL_SWITCH2)
static void after_probes(struct lk_site *s, struct lk_regs *r, struct lk_fire *f);

/*
 * The probes first: the reboot hook may end tracing.  One context for
 * every probe of the site, its arguments read once, straight from the
 * saved registers, and only the first s->nargs.
 */
static void fire_entry(struct lk_site *s, struct lk_regs *r, uint64_t sp)
{
	struct lk_fire f;
	struct mt_pctx ctx;

	site_frame(s, r, sp, &f);
	if (s->flags & (LK_SF_FIRE | LK_SF_FIRE2)) {
		ctx.argdata = 0;
		ctx.argdata_size = 0;
		ctx.plat = &f;
		if (s->flags & LK_SF_COUNTER) {
			uint64_t c[2] = { (uint64_t)(int64_t)s->cnt_inc, s->cnt_addr };
			for (uint32_t i = 0; i < s->nargs; i++)
				ctx.arg[i] = i < 2 ? c[i] : 0;
		} else if (s->flags & LK_SF_REGARGS) {
			reg_args(s, r, sp, ctx.arg, s->nargs);
		} else if (s->flags & LK_SF_UARGS) {
			uarg_args(s, r, sp, ctx.arg, s->nargs);
		} else {
			entry_args(r, sp, ctx.arg, s->nargs);
		}
		if (s->flags & LK_SF_FIRE)
			lk_fire_ctx(s->probe, &ctx);
		if (s->flags & LK_SF_FIRE2) {
			lk_fire_ctx(s->probe2, &ctx);
			for (uint32_t k = 0; k < s->nextra && k < LK_SITE_EXTRA_MAX; k++)
				lk_fire_ctx(((const uint32_t *)s->extra)[k], &ctx);
		}
	}
	if (s->flags & SF_AFTER)
		after_probes(s, r, &f);
}

/* The blob's own work at a site, after its probes (SF_AFTER: one test
   on the probes' path). */
static void after_probes(struct lk_site *s, struct lk_regs *r, struct lk_fire *f)
{
	if (s->flags & LK_SF_STAMP)
		lk_stamp(f);
	if (s->flags & LK_SF_INTERNAL_UINSTALL)
		lk_usites_install(mt_plat_var(0, MT_VAR_PID));
	if (s->flags & LK_SF_INTERNAL_UREMOVE)
		lk_usites_remove(mt_plat_objid(0, 0, r->rdi));
	if (s->flags & LK_SF_INTERNAL_FORGET)
		lk_ids_forget(r->rdi);
	if (s->flags & (LK_SF_INTERNAL_BORN_TASK | LK_SF_INTERNAL_BORN_THREAD))
		lk_ids_born(r->rdi, (s->flags & LK_SF_INTERNAL_BORN_THREAD) != 0);
	if (s->flags & LK_SF_INTERNAL_SWITCH1)
		lk_vtime_switch(r->rsi);
	if (s->flags & LK_SF_INTERNAL_SWITCH2)
		lk_vtime_switch(r->rdx);
	if (s->flags & LK_SF_INTERNAL_TICK)
		lk_tick(r);
	if (s->flags & LK_SF_INTERNAL_END)
		lk_ending(r);
}

/* A return probe: arg0 = the ret's offset in its function, arg1 = rax. */
static void fire_return(const struct lk_site *s, uint32_t probe, struct lk_fire *f,
			uint64_t rax)
{
	struct mt_pctx ctx;

	ctx.argdata = 0;
	ctx.argdata_size = 0;
	ctx.plat = f;
	ctx.arg[0] = s->func_off;
	ctx.arg[1] = rax;
	for (uint32_t i = 2; i < s->nargs; i++)
		ctx.arg[i] = 0;
	lk_fire_ctx(probe, &ctx);
}

/* The value of aggregation aggid's keyless entry on CPU 0, found as
   compiled code finds it (the runtime's table of keyless entries); 0 if
   it has none yet. */
static int64_t *count_value(uint32_t aggid)
{
	const struct mt_image *img = mt_rt_image(lk.cb);
	const struct mt_agg *ag = (const struct mt_agg *)((const uint8_t *)img + img->aggs_off);
	const uint32_t *ent = (const uint32_t *)mt_rt_jit_addr(lk.cb, MT_JR_AGGENT, aggid, 0);
	uint8_t *data = (uint8_t *)mt_rt_jit_addr(lk.cb, MT_JR_AGGDATA, 0, 0);

	if (!ent || !*ent || !data)
		return 0;
	return (int64_t *)(data + *ent - 1 + sizeof(struct mt_aggent) + ag[aggid - 1].keysize);
}

/* Write the site's "jmp rel32" to its counting or compiled code: armed. */
/* Where a CPU meeting a jmp site's bytes mid-change goes: its trampoline
   (the probe, the displaced instructions, back); 0 for int3 sites (one
   byte, written at once). */
static uint64_t detour(const struct lk_site *s)
{
	return s->kind == LK_SK_JMP || s->kind == LK_SK_JMPRET ? s->ool : 0;
}

void lk_site_jump(struct lk_site *s, int32_t rel)
{
	uint8_t jmp[5];

	jmp[0] = 0xe9;
	for (int i = 0; i < 4; i++)
		jmp[1 + i] = (uint8_t)((uint32_t)rel >> (8 * i));
	lk_text_poke(s->addr, jmp, 5, detour(s));
	s->fast_armed = 1;
}

/* Point the site's jmp at its counting trampoline. */
static void fast_arm(struct lk_site *s)
{
	int64_t *v = count_value(s->fast_aggid);
	int64_t rel = (int64_t)(s->fast - (s->addr + 5));

	if (!v || (int64_t)(int32_t)(uint64_t)v != (int64_t)v || rel != (int32_t)rel)
		return;
	*(volatile int32_t *)(s->fast + 4) = (int32_t)(uint64_t)v;
	lk_site_jump(s, (int32_t)rel);
}

/* Back to the full trampolines (before the host's aggregation requests,
   which may move entries). */
void lk_fast_disarm(void)
{
	lk_patch_wait();
	for (uint32_t i = 0; i < lk.nsites; i++) {
		struct lk_site *s = &lk.sites[i];
		if (s->fast_armed != 1)
			continue;
		s->fast_armed = 0;
		if (s->installed)
			lk_text_poke(s->addr, s->patch, s->plen, detour(s));
	}
	lk_patch_done();
}

/* After a general firing: may the site's jmp go to its fast or compiled
   code now?  Not with the statistics, which only the general path counts. */
static int can_arm(const struct lk_site *s)
{
	return !s->fast_armed && lk.tracing && !lk.ending && s->installed && lk.cb &&
		lk.cb->state == MT_CB_ACTIVE && lk.cb->req == MT_REQ_NONE &&
		!(lk.ctl->flags & LK_CTL_STATS);
}

/* Arm the site's fast or compiled code if it may be and no other CPU is
   patching (it is asked again, under the patch lock: another CPU may
   have armed it, or the tick disarmed for a request, meanwhile). */
static void try_arm(struct lk_site *s)
{
	if (!(s->flags & (LK_SF_FAST | LK_SF_JIT)) || !can_arm(s) || !lk_patch_try())
		return;
	if (can_arm(s)) {
		if (s->flags & LK_SF_JIT)
			lk_jit_arm(s);
		else
			fast_arm(s);
	}
	lk_patch_done();
}

uint64_t lk_fbt_fire(struct lk_regs *r)
{
	struct lk_site *s = &lk.sites[r->u.j.slot];

	fire_entry(s, r, (uint64_t)r->u.j.entry_sp);
	try_arm(s);
	return s->ool + LK_TRAMP_DISP;
}

/* LK_SK_JMPRET: the stack is that of the ret; arg0 = its offset, arg1 = rax */
uint64_t lk_fbt_ret_fire(struct lk_regs *r)
{
	struct lk_site *s = &lk.sites[r->u.j.slot];
	uint64_t sp = (uint64_t)r->u.j.entry_sp;
	struct lk_fire f = { r, s->addr + s->len - 1, sp, r->rbp, 0, 0, 0 };

	if (s->flags & LK_SF_FIRE)
		fire_return(s, s->probe, &f, r->rax);
	if (s->flags & LK_SF_JIT)
		try_arm(s);
	return 0;
}

/*
 * installed is read before the site's byte: the CPU restoring a site
 * writes the byte first and clears installed after, so a site seen
 * uninstalled here also shows its own byte again (poked since), and a
 * CPU the host held between its two loads cannot take its own int3 for
 * a foreign one (the kernel's breakpoint trap, under a 2-CPU stress).
 */
int lk_int3_fire(struct lk_regs *r)
{
	struct lk_site *s = lk_site_at(r->u.t.rip - 1);
	uint32_t installed = s ? __atomic_load_n(&s->installed, __ATOMIC_ACQUIRE) : 0;
	uint64_t ret;

	if (lk_poke_addr && r->u.t.rip - 1 == lk_poke_addr) {	/* mid-poke */
		r->u.t.rip = lk_poke_detour;
		return 1;
	}
	if (s && *(volatile const uint8_t *)s->addr != 0xcc) {	/* poked since */
		r->u.t.rip = s->addr;
		return 1;
	}
	if (s && detour(s)) {		/* a jmp site's int3: sites_poke under way */
		r->u.t.rip = detour(s);
		return 1;
	}
	if (!s || !installed || s->kind == LK_SK_JMP || s->kind == LK_SK_JMPRET) {
		if (lk.ctl)
			lk.ctl->int3_foreign++;
		return 0;
	}
	lk.ctl->int3_hits++;
	if (s->kind == LK_SK_INT3) {
		fire_entry(s, r, r->u.t.rsp);
		r->u.t.rip = s->ool;
		return 1;
	}
	/* LK_SK_RET: arg0 = offset of the ret in its function, arg1 = rax */
	if (s->flags & LK_SF_FIRE_RET) {	/* entry and return at once */
		fire_entry(s, r, r->u.t.rsp);
		struct lk_fire f = { r, s->addr, r->u.t.rsp, r->rbp, 0, 0, 0 };
		fire_return(s, s->rprobe, &f, r->rax);
	} else if (s->flags & LK_SF_FIRE) {
		struct lk_fire f = { r, s->addr, r->u.t.rsp, r->rbp, 0, 0, 0 };
		fire_return(s, s->probe, &f, r->rax);
	}
	ret = *(volatile uint64_t *)r->u.t.rsp;
	r->u.t.rsp += 8 + s->ret_imm;
	r->u.t.rip = ret;
	return 1;
}

static int bytes_eq(uint64_t addr, const uint8_t *b, uint32_t n)
{
	const volatile uint8_t *p = (const volatile uint8_t *)addr;

	for (uint32_t i = 0; i < n; i++)
		if (p[i] != b[i])
			return 0;
	return 1;
}

static void put_hex(char *p, uint64_t v)
{
	for (int i = 15; i >= 0; i--, v >>= 4)
		p[i] = "0123456789abcdef"[v & 15];
}

/* Every site's original bytes must be in the text now. */
int lk_sites_check(char *msg, uint32_t len)
{
	static const char txt[] = "text differs from the image at 0x";

	for (uint32_t i = 0; i < lk.nsites; i++) {
		struct lk_site *s = &lk.sites[i];
		if (s->installed || s->plen == 0 || s->plen > 8 ||
		    bytes_eq(s->addr, s->orig, s->plen))
			continue;
		if (len > sizeof txt + 16) {
			for (uint32_t k = 0; k < sizeof txt - 1; k++)
				msg[k] = txt[k];
			put_hex(msg + sizeof txt - 1, s->addr);
			msg[sizeof txt - 1 + 16] = 0;
		}
		return -1;
	}
	return 0;
}

/* Attach mode: site i was put in by the host (the tick hook); it is ours
   to remove now.  -1 if its bytes are not there. */
int lk_site_adopt(uint32_t i)
{
	struct lk_site *s;

	if (i >= lk.ctl->nsites || i >= LK_SITES_MAX)
		return -1;
	s = &lk.sites[i];
	if (!(s->flags & LK_SF_INTERNAL_TICK) || s->plen == 0 || s->plen > 8 ||
	    !bytes_eq(s->addr, s->patch, s->plen))
		return -1;
	if (!s->installed) {
		s->installed = 1;
		lk.ctl->patched++;
	}
	return 0;
}

static uint32_t max_nargs(uint32_t n, uint32_t probe)
{
	uint32_t k = mt_rt_probe_nargs(lk.cb, probe);

	return k > n ? k : n;
}

/*
 * Once per session, after the runtime is initialised: how many arguments
 * each site fetches, the most any of its probes reads (return sites: the
 * zeroes after arg1).
 */
void lk_sites_prepare(void)
{
	for (uint32_t i = 0; i < lk.nsites; i++) {
		struct lk_site *s = &lk.sites[i];
		uint32_t n = 0;

		if (s->flags & LK_SF_FIRE)
			n = max_nargs(n, s->probe);
		if (s->flags & LK_SF_FIRE_RET)
			n = max_nargs(n, s->rprobe);
		if (s->flags & LK_SF_FIRE2) {
			n = max_nargs(n, s->probe2);
			for (uint32_t k = 0; k < s->nextra && k < LK_SITE_EXTRA_MAX; k++)
				n = max_nargs(n, ((const uint32_t *)s->extra)[k]);
		}
		s->nargs = n;
	}
}

/*
 * Every site to change at once, as Linux's text_poke_bp_batch: one pass
 * writes int3 over the first byte of each jmp site (an int3 site's one
 * byte is written whole), a cross-call syncs the other CPUs, a pass
 * writes the tails, another sync, then the first bytes and a last sync:
 * three syncs in all where poking each site would take three per site
 * (seconds at stop when the host is slow to run another CPU).  A CPU
 * meeting a jmp site's int3 meanwhile goes to its trampoline
 * (lk_int3_fire).  The jmp sites under way are those installed whose
 * first byte is int3 (a jmp site's never is otherwise).  installed is
 * set before a site's first byte changes and cleared after its last
 * (the order lk_int3_fire reads them in).  A remove writes each site's
 * bytes once more after the last sync: QEMU's TCG may have linked a
 * translation of the int3 that another CPU made while the first write
 * went on, and kept it after that write's invalidation; the second
 * write, once every CPU took the sync's interrupt (no translation under
 * way), drops it.  Else a CPU could run that int3 after STOP gave
 * vector 3 back (the kernel's breakpoint trap, both CPUs at one site).
 */
static int mid_poke(const struct lk_site *s)
{
	return s->installed && s->plen >= 2 && detour(s) &&
		*(volatile const uint8_t *)s->addr == 0xcc;
}

static void sites_poke(int install)
{
	static const uint8_t bp = 0xcc;

	lk_patch_wait();
	for (uint32_t i = 0; i < lk.nsites; i++) {
		struct lk_site *s = &lk.sites[i];
		if (install ? s->installed || !bytes_eq(s->addr, s->orig, s->plen) : !s->installed)
			continue;
		if (install) {
			__atomic_store_n(&s->installed, 1, __ATOMIC_RELEASE);
			lk.ctl->patched++;
		}
		if (s->plen < 2 || !detour(s))
			lk_text_write(s->addr, install ? s->patch : s->orig, s->plen);
		else
			lk_text_write(s->addr, &bp, 1);
	}
	lk_xcall_sync();
	for (int step = 0; step < 2; step++) {
		for (uint32_t i = 0; i < lk.nsites; i++) {
			struct lk_site *s = &lk.sites[i];
			const uint8_t *b = install ? s->patch : s->orig;
			if (!mid_poke(s))
				continue;
			if (step == 0)
				lk_text_write(s->addr + 1, b + 1, s->plen - 1);
			else
				lk_text_write(s->addr, b, 1);
		}
		lk_xcall_sync();
	}
	for (uint32_t i = 0; i < lk.nsites && !install; i++) {
		struct lk_site *s = &lk.sites[i];
		if (!s->installed)
			continue;
		lk_text_write(s->addr, s->orig, s->plen);	/* QEMU: see above */
		__atomic_store_n(&s->installed, 0, __ATOMIC_RELEASE);
		s->fast_armed = 0;
		lk.ctl->patched--;
	}
	if (!install)
		lk_xcall_sync();
	lk_patch_done();
}

void lk_sites_install(void)
{
	sites_poke(1);
}

/* Restore every patched byte.  Trampolines stay: a thread may be in one. */
void lk_sites_remove(void)
{
	sites_poke(0);
}
