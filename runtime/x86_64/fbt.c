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

static struct lk_site *lk_site_at(uint64_t addr)
{
	uint32_t a = lk_first_at(lk.sites, lk.nsites, sizeof *lk.sites, addr);

	if (a < lk.nsites && lk.sites[a].addr == addr)
		return &lk.sites[a];
	return 0;
}

void lk_fire_probe(uint32_t probe, struct lk_fire *f, const uint64_t *args,
		   uint32_t nargs)
{
	struct mt_pctx ctx;

	if (!lk.cb || !lk.tracing)
		return;
	if (lk.cb->req != MT_REQ_NONE)
		lk_fast_disarm();	/* the runtime services it now */
	for (uint32_t i = 0; i < 10; i++)
		ctx.arg[i] = i < nargs ? args[i] : 0;
	ctx.argdata = 0;
	ctx.argdata_size = 0;
	ctx.plat = f;
	uint64_t t0 = lk_rdtsc();
	lk.ctl->fires++;
	mt_rt_probe(lk.cb, probe, &ctx);
	lk.ctl->fire_tsc += lk_rdtsc() - t0;
}

/* An LK_SF_STAMP site: the start of the current thread's interval. */
static void lk_stamp(struct lk_fire *f)
{
	struct mt_pctx ctx = { .plat = f };

	if (lk.cb && lk.tracing)
		mt_rt_stamp(lk.cb, &ctx);
}

/* arg0..arg9 at a function entry: six registers, then the stack. */
static void entry_args(const struct lk_regs *r, uint64_t sp, uint64_t *a)
{
	a[0] = r->rdi;
	a[1] = r->rsi;
	a[2] = r->rdx;
	a[3] = r->rcx;
	a[4] = r->r8;
	a[5] = r->r9;
	/* the stack page holding sp is mapped: no walk when the args share it */
	if (((sp + 32) & ~0xfffull) == (sp & ~0xfffull)) {
		const uint64_t *st = (const uint64_t *)sp;
		a[6] = st[1], a[7] = st[2], a[8] = st[3], a[9] = st[4];
		return;
	}
	for (int i = 6; i < 10; i++)
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

/* LK_SF_REGARGS: the registers the host named (lkabi.h). */
static void reg_args(const struct lk_site *s, struct lk_regs *r, uint64_t sp,
		     uint64_t *a)
{
	for (uint32_t i = 0; i < 10; i++)
		a[i] = i < LK_SITE_NREGARGS ? dwarf_reg(r, sp, s->argreg[i]) : 0;
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
	f->pc = s->addr;
	f->sp = sp;
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

/* The probes first: the reboot hook may end tracing. */
static void fire_entry(struct lk_site *s, struct lk_regs *r, uint64_t sp)
{
	struct lk_fire f;
	uint64_t a[10];
	uint32_t nargs = (s->flags & LK_SF_COUNTER) ? 2 : 10;

	site_frame(s, r, sp, &f);

	if (s->flags & LK_SF_COUNTER) {
		a[0] = (uint64_t)(int64_t)s->cnt_inc;
		a[1] = s->cnt_addr;
	} else if ((s->flags & (LK_SF_FIRE | LK_SF_FIRE2)) && (s->flags & LK_SF_REGARGS)) {
		reg_args(s, r, sp, a);
	} else if (s->flags & (LK_SF_FIRE | LK_SF_FIRE2)) {
		entry_args(r, sp, a);
	}
	if (s->flags & LK_SF_FIRE)
		lk_fire_probe(s->probe, &f, a, nargs);
	if (s->flags & LK_SF_FIRE2) {
		lk_fire_probe(s->probe2, &f, a, nargs);
		for (uint32_t k = 0; k < s->nextra && k < LK_SITE_EXTRA_MAX; k++)
			lk_fire_probe(((const uint32_t *)s->extra)[k], &f, a, nargs);
	}
	if (s->flags & LK_SF_STAMP)
		lk_stamp(&f);
	if (s->flags & LK_SF_INTERNAL_UINSTALL)
		lk_usites_install(mt_plat_var(0, MT_VAR_PID));
	if (s->flags & LK_SF_INTERNAL_UREMOVE)
		lk_usites_remove(mt_plat_objid(0, 0, r->rdi));
	if (s->flags & LK_SF_INTERNAL_FORGET)
		lk_ids_forget(r->rdi);
	if (s->flags & (LK_SF_INTERNAL_BORN_TASK | LK_SF_INTERNAL_BORN_THREAD))
		lk_ids_born(r->rdi, (s->flags & LK_SF_INTERNAL_BORN_THREAD) != 0);
	if (s->flags & LK_SF_INTERNAL_TICK)
		lk_tick(r);
	if (s->flags & LK_SF_INTERNAL_END)
		lk_ending(r);
}

/* The value of aggregation aggid's keyless entry on CPU 0, 0 if none. */
static int64_t *count_value(uint32_t aggid)
{
	const struct mt_image *img = mt_rt_image(lk.cb);
	const struct mt_agg *ag = (const struct mt_agg *)((const uint8_t *)img + img->aggs_off);
	const struct mt_aggbuf *ab = (const struct mt_aggbuf *)((uint8_t *)lk.cb + lk.cb->aggbuf_off);
	uint8_t *data = (uint8_t *)lk.cb + ab->data_off;

	for (uint64_t off = 0; off + sizeof(struct mt_aggent) <= ab->used;) {
		struct mt_aggent *e = (struct mt_aggent *)(data + off);
		const struct mt_agg *a;
		if (e->aggid == 0 || e->aggid > img->naggs)
			return 0;
		a = &ag[e->aggid - 1];
		if (e->aggid == aggid)
			return (int64_t *)((uint8_t *)(e + 1) + a->keysize);
		off += sizeof *e + a->keysize + 8ull * a->nvals;
	}
	return 0;
}

/* Point the site's jmp at its counting trampoline. */
static void fast_arm(struct lk_site *s)
{
	int64_t *v = count_value(s->fast_aggid);
	uint8_t jmp[5];
	int64_t rel = (int64_t)(s->fast - (s->addr + 5));

	if (!v || (int64_t)(int32_t)(uint64_t)v != (int64_t)v || rel != (int32_t)rel)
		return;
	*(volatile int32_t *)(s->fast + 4) = (int32_t)(uint64_t)v;
	jmp[0] = 0xe9;
	for (int i = 0; i < 4; i++)
		jmp[1 + i] = (uint8_t)((uint64_t)rel >> (8 * i));
	lk_text_write(s->addr, jmp, 5);
	s->fast_armed = 1;
}

/* Back to the full trampolines (before the host's aggregation requests,
   which may move entries). */
void lk_fast_disarm(void)
{
	for (uint32_t i = 0; i < lk.nsites; i++) {
		struct lk_site *s = &lk.sites[i];
		if (!s->fast_armed)
			continue;
		s->fast_armed = 0;
		if (s->installed)
			lk_text_write(s->addr, s->patch, s->plen);
	}
}

uint64_t lk_fbt_fire(struct lk_regs *r)
{
	struct lk_site *s = &lk.sites[r->u.j.slot];

	fire_entry(s, r, (uint64_t)r->u.j.entry_sp);
	if ((s->flags & LK_SF_FAST) && !s->fast_armed && lk.tracing && s->installed &&
	    lk.cb->state == MT_CB_ACTIVE)
		fast_arm(s);
	return s->ool + LK_TRAMP_DISP;
}

/* LK_SK_JMPRET: the stack is that of the ret; arg0 = its offset, arg1 = rax */
uint64_t lk_fbt_ret_fire(struct lk_regs *r)
{
	struct lk_site *s = &lk.sites[r->u.j.slot];
	uint64_t sp = (uint64_t)r->u.j.entry_sp;
	struct lk_fire f = { r, s->addr + s->len - 1, sp, r->rbp, 0 };
	uint64_t a[2] = { s->func_off, r->rax };

	if (s->flags & LK_SF_FIRE)
		lk_fire_probe(s->probe, &f, a, 2);
	return 0;
}

int lk_int3_fire(struct lk_regs *r)
{
	struct lk_site *s = lk_site_at(r->u.t.rip - 1);
	uint64_t ret;

	if (!s || !s->installed || s->kind == LK_SK_JMP || s->kind == LK_SK_JMPRET) {
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
		struct lk_fire f = { r, s->addr, r->u.t.rsp, r->rbp, 0 };
		uint64_t a[2] = { s->func_off, r->rax };
		lk_fire_probe(s->rprobe, &f, a, 2);
	} else if (s->flags & LK_SF_FIRE) {
		struct lk_fire f = { r, s->addr, r->u.t.rsp, r->rbp, 0 };
		uint64_t a[2] = { s->func_off, r->rax };
		lk_fire_probe(s->probe, &f, a, 2);
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

void lk_sites_install(void)
{
	for (uint32_t i = 0; i < lk.nsites; i++) {
		struct lk_site *s = &lk.sites[i];
		if (s->installed || !bytes_eq(s->addr, s->orig, s->plen))
			continue;
		s->installed = 1;
		lk_text_write(s->addr, s->patch, s->plen);
		lk.ctl->patched++;
	}
}

/* Restore every patched byte.  Trampolines stay: a thread may be in one. */
void lk_sites_remove(void)
{
	for (uint32_t i = 0; i < lk.nsites; i++) {
		struct lk_site *s = &lk.sites[i];
		if (!s->installed)
			continue;
		lk_text_write(s->addr, s->orig, s->plen);
		s->installed = 0;
		s->fast_armed = 0;
		lk.ctl->patched--;
	}
}
