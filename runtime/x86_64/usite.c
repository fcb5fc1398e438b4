/*
 * User sites: the usdt and pid providers' int3s in user tasks' text
 * (probe context; lkabi.h struct lk_usite, decided by the host).
 *
 * Patching: a site's byte is written through its physical page in the
 * direct map, from inside the guest (TCG invalidates the translated code
 * of a page the guest writes), never through the user mapping, whose text
 * is read-only.  The page is found by walking the task's own page tables
 * (kuser.c); it is not paged out (no default pager at boot) nor moved
 * while the task lives.  A text page shared by several tasks (copy-on-
 * write children) holds the int3 for all of them: a site fires only for
 * its pid, the others just get the displaced instruction emulated.
 *
 * When: a boot module's task gets its sites at build_args_and_stack (the
 * blob's LK_SF_INTERNAL_UINSTALL hook): its text has just been loaded
 * and it has not run a user instruction.  They go at STOP (tracing ends,
 * every armed site) and at machine_task_terminate (LK_SF_INTERNAL_
 * UREMOVE, before the task's memory goes); a site keeps its pa so that
 * the host can compare the page with the ELF afterwards.
 *
 * Firing (vector 3 from user mode, entry.S): the sites at rip - 1 whose
 * page is the one hit fire for the current pid, then the displaced
 * instruction is emulated on the saved registers; stack accesses go
 * through the task's page tables (a push needs the page present and
 * writable), checked before the probes fire: should one be impossible,
 * the site is disarmed for good without firing (original byte back,
 * counted in ctl->udisarmed for the host's warning) and the instruction
 * re-runs natively, so the task never notices.  The probes see the
 * registers before the instruction.
 */
#include "runtime/kernel/kern.h"

#ifndef LK_USITE_HOSTTEST
/* RAM at physical pa through the kernel's direct map. */
static volatile uint8_t *usite_ram(uint64_t pa)
{
	return (volatile uint8_t *)LK_KVA(pa);
}
#endif

static uint64_t reg_val(struct lk_regs *r, uint8_t n)
{
	return n < 16 ? *lk_dwarf_slot(r, n) : 0;
}

/* Direct-map pointer to 8 user bytes at va (in one page), 0 if none. */
static volatile uint64_t *user_word(uint64_t pml4, uint64_t va, int write)
{
	uint64_t span = 0, pa = lk_user_pa(pml4, va, &span, write);

	if (pa == ~0ull || span < 8 || pa + 8 > lk.ctl->k.directmap_end)
		return 0;
	return (volatile uint64_t *)usite_ram(pa);
}

static void byte_write(uint64_t pa, uint8_t b)
{
	*usite_ram(pa) = b;
}

static uint64_t cur_thread(void)
{
	return mt_plat_var(0, MT_VAR_CURTHREAD);
}

static uint64_t cur_pid(void)
{
	return mt_plat_var(0, MT_VAR_PID);
}

/* Arm the sites of task pid (the current task), its page tables pml4. */
void lk_usites_install(uint64_t pid)
{
	lk_usites_install_in(pid, lk_task_pml4(cur_thread()));
}

void lk_usites_install_in(uint64_t pid, uint64_t pml4)
{
	for (uint32_t i = 0; i < lk.nusites; i++) {
		struct lk_usite *s = &lk.usites[i];
		uint64_t span, pa;
		uint8_t now;

		if (s->pid != pid || s->state != LK_US_IDLE)
			continue;
		pa = pml4 ? lk_user_pa(pml4, s->addr, &span, 0) : ~0ull;
		if (pa == ~0ull || pa >= lk.ctl->k.directmap_end) {
			s->state = LK_US_DISARMED;
			lk.ctl->ulost++;
			continue;
		}
		now = *usite_ram(pa);
		if (now != s->orig && now != 0xcc) {	/* not the program's text */
			s->state = LK_US_DISARMED;
			lk.ctl->ulost++;
			continue;
		}
		s->pa = pa;
		s->state = LK_US_ARMED;
		byte_write(pa, 0xcc);
	}
}

/* Put back the byte of every armed site at s's page and address. */
static void disarm_at(const struct lk_usite *s)
{
	for (uint32_t i = 0; i < lk.nusites; i++) {
		struct lk_usite *o = &lk.usites[i];
		if (o->state == LK_US_ARMED && o->pa == s->pa) {
			o->state = LK_US_DISARMED;
			byte_write(o->pa, o->orig);
		}
	}
}

static int armed_at(uint64_t pa)
{
	for (uint32_t i = 0; i < lk.nusites; i++)
		if (lk.usites[i].state == LK_US_ARMED && lk.usites[i].pa == pa)
			return 1;
	return 0;
}

/*
 * Task pid ends (pid < 0: every task, at STOP).  A page it shares with
 * a task that lives on keeps the int3 while that task has sites there.
 */
void lk_usites_remove(int64_t pid)
{
	for (uint32_t i = 0; i < lk.nusites; i++) {
		struct lk_usite *s = &lk.usites[i];
		if (pid >= 0 && s->pid != (uint64_t)pid)
			continue;
		if (s->state == LK_US_ARMED) {
			s->state = pid >= 0 ? LK_US_GONE : LK_US_DISARMED;
			if (!armed_at(s->pa))
				byte_write(s->pa, s->orig);
		} else if (s->state == LK_US_IDLE) {
			s->state = LK_US_DISARMED;
		}
	}
}

uint64_t lk_uarg_extend(uint64_t v, int8_t size)
{
	int n = size < 0 ? -size : size;

	if (n >= 8 || n == 0)
		return v;
	v &= (1ull << (8 * n)) - 1;
	if (size < 0 && (v >> (8 * n - 1)) & 1)
		v |= ~0ull << (8 * n);
	return v;
}

static uint64_t usdt_arg(const struct lk_uarg *a, struct lk_regs *r, uint64_t pml4)
{
	uint64_t v = 0, va;

	switch (a->kind) {
	case LK_UA_REG:
		v = reg_val(r, a->reg) >> a->shift;
		break;
	case LK_UA_IMM:
		v = (uint64_t)a->val;
		break;
	case LK_UA_MEM:
		va = (uint64_t)a->val + (a->reg != LK_UA_NOREG ? reg_val(r, a->reg) : 0) +
			(a->idx != LK_UA_NOREG ? reg_val(r, a->idx) * a->scale : 0);
		if (lk_user_copy(pml4, &v, va, 8, 0) < (uint64_t)(a->size < 0 ? -a->size : a->size))
			v = 0;
		break;
	}
	return lk_uarg_extend(v, a->size);
}

static void fire_args(const struct lk_usite *s, struct lk_regs *r, uint64_t pml4,
		      uint64_t *a, uint32_t *n)
{
	switch (s->fire) {
	case LK_UF_RETURN:
		a[0] = s->func_off;
		a[1] = r->rax;
		*n = 2;
		return;
	case LK_UF_USDT:
		for (uint32_t i = 0; i < s->nargs && i < LK_UARGS_MAX; i++)
			a[i] = usdt_arg(&s->args[i], r, pml4);
		*n = s->nargs;
		return;
	default:		/* entry or offset: the argument registers, the stack */
		a[0] = r->rdi, a[1] = r->rsi, a[2] = r->rdx;
		a[3] = r->rcx, a[4] = r->r8, a[5] = r->r9;
		a[6] = a[7] = a[8] = a[9] = 0;
		lk_user_copy(pml4, &a[6], r->u.t.rsp + 8, 32, 0);
		*n = 10;
	}
}

/* rsp +/- imm with the arithmetic flags the CPU would set. */
static void rsp_arith(struct lk_regs *r, int sub, int32_t imm)
{
	uint64_t v = r->u.t.rsp, fl;

	if (sub)
		__asm__("sub %2, %0; pushfq; pop %1" : "+r"(v), "=r"(fl) : "r"((int64_t)imm) : "cc");
	else
		__asm__("add %2, %0; pushfq; pop %1" : "+r"(v), "=r"(fl) : "r"((int64_t)imm) : "cc");
	r->u.t.rsp = v;
	r->u.t.rflags = (r->u.t.rflags & ~0x8d5ull) | (fl & 0x8d5ull);
}

/* Can s's instruction's user stack access be done now? */
static int emulable(const struct lk_usite *s, const struct lk_regs *r, uint64_t pml4)
{
	switch (s->emul) {
	case LK_UE_PUSH:
		return user_word(pml4, r->u.t.rsp - 8, 1) != 0;
	case LK_UE_POP:
	case LK_UE_RET:
		return user_word(pml4, r->u.t.rsp, 0) != 0;
	default:
		return s->emul >= LK_UE_NOP && s->emul <= LK_UE_RET;
	}
}

/* Do s's instruction (at `at`) on the saved state (emulable() said it can). */
static void emulate(const struct lk_usite *s, struct lk_regs *r, uint64_t pml4, uint64_t at)
{
	volatile uint64_t *w;
	uint64_t v;

	r->u.t.rip = at + s->len;
	switch (s->emul) {
	case LK_UE_PUSH:
		v = reg_val(r, s->reg);
		if ((w = user_word(pml4, r->u.t.rsp - 8, 1))) {
			*w = v;
			r->u.t.rsp -= 8;
		}
		break;
	case LK_UE_POP:
		if ((w = user_word(pml4, r->u.t.rsp, 0))) {
			v = *w;
			r->u.t.rsp += 8;
			*lk_dwarf_slot(r, s->reg) = v;
		}
		break;
	case LK_UE_MOV:
		*lk_dwarf_slot(r, s->reg) = reg_val(r, s->reg2);
		break;
	case LK_UE_MOV32:
		*lk_dwarf_slot(r, s->reg) = (uint32_t)reg_val(r, s->reg2);
		break;
	case LK_UE_ADD_RSP:
	case LK_UE_SUB_RSP:
		rsp_arith(r, s->emul == LK_UE_SUB_RSP, s->imm);
		break;
	case LK_UE_RET:
		if ((w = user_word(pml4, r->u.t.rsp, 0))) {
			r->u.t.rip = *w;
			r->u.t.rsp += 8 + (uint64_t)(uint32_t)s->imm;
		}
		break;
	}
}

/* First site at addr (sorted by addr), or nusites. */
static uint32_t first_at(uint64_t addr)
{
	return lk_first_at(lk.usites, lk.nusites, sizeof *lk.usites, addr);
}

/*
 * During the firing, the user registers are where the kernel keeps them
 * at any other trap, in the thread's pcb->iss, so that uregs[] and
 * ustack() (kplat.c, kuser.c) read them as in any probe: entry.S saved
 * them in its own layout (struct lk_regs) inside that same area, below
 * the CPU's frame, which is iss's eip..ss.  A copy is taken on the blob's
 * stack, iss is filled from it (rip = the probe's address, trapno 3), the
 * probes fire, then entry.S's layout is put back.  0 when the thread's
 * iss is not where the trap landed (the probes then see stale uregs[]).
 */
int lk_iss_fill(struct lk_regs *r, const struct lk_regs *u, uint64_t trapno)
{
	static const uint8_t gpr[15] = {	/* lk_regs order: r15 .. rax */
		LK_UREG_R15, LK_UREG_R14, LK_UREG_R13, LK_UREG_R12, LK_UREG_RBP,
		LK_UREG_RBX, LK_UREG_R11, LK_UREG_R10, LK_UREG_R9, LK_UREG_R8,
		LK_UREG_RDI, LK_UREG_RSI, LK_UREG_RDX, LK_UREG_RCX, LK_UREG_RAX,
	};
	const struct lk_kdesc *k = &lk.ctl->k;
	const uint64_t *g = (const uint64_t *)u;
	struct lk_uregs_loc loc;
	uint16_t rip = k->iss_off[LK_UREG_RIP];

	if (rip == LK_UREG_NONE || !lk_user_iss(cur_thread(), &loc) ||
	    loc.iss + rip != (uint64_t)&r->u.t.rip)
		return 0;
	for (int i = 0; i < 15; i++)
		if (k->iss_off[gpr[i]] < rip)
			*(volatile uint64_t *)(loc.iss + k->iss_off[gpr[i]]) = g[i];
	if (k->iss_off[LK_UREG_TRAPNO] < rip)
		*(volatile uint64_t *)(loc.iss + k->iss_off[LK_UREG_TRAPNO]) = trapno;
	if (k->iss_off[LK_UREG_ERR] < rip)
		*(volatile uint64_t *)(loc.iss + k->iss_off[LK_UREG_ERR]) = 0;
	return 1;
}

void lk_regs_copy(struct lk_regs *to, const struct lk_regs *from)
{
	volatile uint64_t *t = (volatile uint64_t *)to;
	const uint64_t *f = (const uint64_t *)from;

	for (uint32_t i = 0; i < sizeof *to / 8; i++)
		t[i] = f[i];
}

/* Fire the sites at `at` for the current pid, r's frame at the probe. */
static void fire_all(struct lk_regs *r, uint32_t i0, uint64_t at, uint64_t pa, uint64_t pml4)
{
	uint64_t pid = cur_pid();
	struct lk_regs u;
	int filled;

	r->u.t.rip = at;		/* uregs[R_PC]: the probe's address */
	lk_regs_copy(&u, r);
	filled = lk_iss_fill(r, &u, 3);
	for (uint32_t i = i0; i < lk.nusites && lk.usites[i].addr == at; i++) {
		struct lk_usite *s = &lk.usites[i];
		/* an entry: ustack() finds the return address at rsp */
		struct lk_fire f = { &u, 0, s->fire == LK_UF_ENTRY ? u.u.t.rsp : 0, 0, 1, 0, 0 };
		uint64_t a[10];
		uint32_t n = 0;
		if (s->state != LK_US_ARMED || s->pa != pa || s->pid != pid)
			continue;
		fire_args(s, &u, pml4, a, &n);
		lk_fire_probe(s->probe, &f, a, n);
	}
	if (filled)
		lk_regs_copy(r, &u);
}

/* An int3 from user mode (entry.S): 1 if it was ours (frame edited). */
int lk_uint3_fire(struct lk_regs *r)
{
	uint64_t at = r->u.t.rip - 1, pml4, pa, span;
	struct lk_usite *hit = 0;
	uint32_t i0 = first_at(at);

	if (i0 == lk.nusites || lk.usites[i0].addr != at ||
	    !(pml4 = lk_task_pml4(cur_thread())) ||
	    (pa = lk_user_pa(pml4, at, &span, 0)) == ~0ull)
		goto foreign;
	for (uint32_t i = i0; i < lk.nusites && lk.usites[i].addr == at && !hit; i++)
		if (lk.usites[i].state == LK_US_ARMED && lk.usites[i].pa == pa)
			hit = &lk.usites[i];
	if (!hit)
		goto foreign;
	lk.ctl->ufires++;
	/* a stack access that cannot be done: disarm, re-run the original */
	if (!emulable(hit, r, pml4)) {
		disarm_at(hit);
		lk.ctl->udisarmed++;
		r->u.t.rip = at;
		return 1;
	}
	fire_all(r, i0, at, pa, pml4);
	emulate(hit, r, pml4, at);
	return 1;
foreign:
	if (lk.ctl)
		lk.ctl->int3_foreign++;
	return 0;
}
