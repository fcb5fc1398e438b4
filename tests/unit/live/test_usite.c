/*
 * The blob's user sites (runtime/x86_64/usite.c) against a fake user
 * address space: arming through the physical page, firing only for the
 * site's pid, the emulation of each displaced instruction (push, pop,
 * mov, add/sub rsp with the CPU's flags, ret, nop), a push whose stack
 * page is not writable disarming the site without firing, stapsdt
 * arguments from registers and memory, removal at a task's end and at
 * STOP, and a foreign int3 left to the kernel.
 */
#include <stdint.h>
#include <string.h>
#include "../mt_test.h"

#define LK_USITE_HOSTTEST 1
/* user VA 0x400000.. maps 1:1 onto ram[] (pa = va - 0x400000) */
#define VBASE 0x400000ull
#define NPAGES 8
#define RO_PAGE 6		/* present, not writable */
#define HOLE_PAGE 7		/* not present */
static uint8_t ram[NPAGES * 4096];

static volatile uint8_t *usite_ram(uint64_t pa)
{
	return ram + pa;
}

#include "runtime/kernel/kern.h"

struct lk_glob lk;
static struct lk_ctl ctl;
static uint64_t cur_pid_v = 1;
static uint32_t fired[16], nfired;
static uint64_t fired_args[16][10];

uint64_t lk_user_pa(uint64_t pml4_pa, uint64_t va, uint64_t *span, int write)
{
	uint64_t page;

	if (va < VBASE || va >= VBASE + sizeof ram)
		return ~0ull;
	page = (va - VBASE) / 4096;
	if (page == HOLE_PAGE || (write && page == RO_PAGE))
		return ~0ull;
	if (span)
		*span = 4096 - (va & 4095);
	return va - VBASE;
}

uint64_t lk_user_copy(uint64_t pml4_pa, void *dst, uint64_t va, uint64_t n, int str)
{
	uint64_t done = 0;

	for (; done < n; done++) {
		uint64_t pa = lk_user_pa(pml4_pa, va + done, 0, 0);
		if (pa == ~0ull)
			break;
		((uint8_t *)dst)[done] = ram[pa];
	}
	return done;
}

uint64_t lk_task_pml4(uint64_t thread) { return thread ? 0x2000 : 0; }
int lk_user_iss(uint64_t thread, struct lk_uregs_loc *loc) { loc->iss = 0; return 0; }

uint64_t mt_plat_var(const struct mt_pctx *ctx, uint32_t var)
{
	return var == MT_VAR_PID ? cur_pid_v : var == MT_VAR_CURTHREAD ? 0x1000 : 0;
}

void lk_fire_probe(uint32_t probe, struct lk_fire *f, const uint64_t *args, uint32_t nargs)
{
	if (nfired < 16) {
		for (uint32_t i = 0; i < 10; i++)
			fired_args[nfired][i] = i < nargs ? args[i] : 0;
		fired[nfired++] = probe;
	}
}

#include "runtime/x86_64/usite.c"

#define TEXT (VBASE + 0x1000)		/* page 1 */
#define STACK (VBASE + 0x5000)		/* page 5: rsp 0x405800 */

static struct lk_usite us[4];

static void setup(const uint8_t *code, size_t n, uint8_t emul, uint8_t len)
{
	memset(ram, 0, sizeof ram);
	memset(us, 0, sizeof us);
	memset(&ctl, 0, sizeof ctl);
	memcpy(ram + (TEXT - VBASE), code, n);
	ctl.k.directmap_end = sizeof ram;
	lk.ctl = &ctl;
	lk.usites = us;
	lk.nusites = 1;
	us[0].addr = TEXT;
	us[0].pid = 1;
	us[0].probe = 7;
	us[0].fire = LK_UF_ENTRY;
	us[0].emul = emul;
	us[0].len = len;
	us[0].orig = code[0];
	cur_pid_v = 1;
	nfired = 0;
	lk_usites_install(1);
}

static void trap_regs(struct lk_regs *r, uint64_t rsp)
{
	memset(r, 0, sizeof *r);
	r->u.t.rip = TEXT + 1;		/* after the int3 */
	r->u.t.rsp = rsp;
	r->u.t.rflags = 0x202;
	r->rdi = 11, r->rsi = 22, r->rbp = 0x1234;
}

TEST(install_writes_int3_through_the_page)
{
	static const uint8_t push_rbp[] = { 0x55 };

	setup(push_rbp, 1, LK_UE_PUSH, 1);
	CHECK(ram[TEXT - VBASE] == 0xcc && us[0].state == LK_US_ARMED && us[0].pa == TEXT - VBASE);
	lk_usites_remove(-1);
	CHECK(ram[TEXT - VBASE] == 0x55 && us[0].state == LK_US_DISARMED);
}

TEST(push_fires_then_stores_on_the_user_stack)
{
	static const uint8_t push_rbp[] = { 0x55 };
	struct lk_regs r;
	uint64_t v;

	setup(push_rbp, 1, LK_UE_PUSH, 1);
	us[0].reg = 6;		/* rbp */
	trap_regs(&r, STACK + 0x800);
	CHECK(lk_uint3_fire(&r) == 1);
	CHECK_EQ_INT(nfired, 1);
	CHECK(fired[0] == 7 && fired_args[0][0] == 11 && fired_args[0][1] == 22);
	memcpy(&v, ram + (STACK + 0x7f8 - VBASE), 8);
	CHECK(v == 0x1234 && r.u.t.rsp == STACK + 0x7f8 && r.u.t.rip == TEXT + 1);
	CHECK_EQ_INT(ctl.ufires, 1);
}

TEST(other_pid_on_a_shared_page_only_emulates)
{
	static const uint8_t mov[] = { 0x48, 0x89, 0xe5 };	/* mov %rsp,%rbp */
	struct lk_regs r;

	setup(mov, 3, LK_UE_MOV, 3);
	us[0].reg = 6, us[0].reg2 = 7;
	cur_pid_v = 2;
	trap_regs(&r, STACK + 0x800);
	CHECK(lk_uint3_fire(&r) == 1);
	CHECK_EQ_INT(nfired, 0);
	CHECK(r.rbp == STACK + 0x800 && r.u.t.rip == TEXT + 3);
}

TEST(push_to_unwritable_stack_disarms_without_firing)
{
	static const uint8_t push_rbx[] = { 0x53 };
	struct lk_regs r;

	setup(push_rbx, 1, LK_UE_PUSH, 1);
	us[0].reg = 3;
	trap_regs(&r, VBASE + RO_PAGE * 4096 + 0x100);
	CHECK(lk_uint3_fire(&r) == 1);
	CHECK_EQ_INT(nfired, 0);
	CHECK(r.u.t.rip == TEXT && r.u.t.rsp == VBASE + RO_PAGE * 4096 + 0x100);
	CHECK(ram[TEXT - VBASE] == 0x53 && us[0].state == LK_US_DISARMED);
	CHECK_EQ_INT(ctl.udisarmed, 1);
}

TEST(sub_rsp_sets_the_cpus_flags)
{
	static const uint8_t sub[] = { 0x48, 0x81, 0xec, 0x08, 0x01, 0, 0 };
	struct lk_regs r;

	setup(sub, 7, LK_UE_SUB_RSP, 7);
	us[0].imm = 0x108;
	trap_regs(&r, 0x100);
	r.u.t.rflags = 0x202 | 0x40;		/* ZF set before */
	CHECK(lk_uint3_fire(&r) == 1);
	CHECK(r.u.t.rsp == (uint64_t)0x100 - 0x108);
	CHECK((r.u.t.rflags & 0x1) && (r.u.t.rflags & 0x80) && !(r.u.t.rflags & 0x40));
	CHECK((r.u.t.rflags & 0x200) && r.u.t.rip == TEXT + 7);
}

TEST(ret_fires_return_and_pops_the_address)
{
	static const uint8_t ret[] = { 0xc3 };
	struct lk_regs r;
	uint64_t to = 0x401234;

	setup(ret, 1, LK_UE_RET, 1);
	us[0].fire = LK_UF_RETURN;
	us[0].func_off = 0x2a;
	trap_regs(&r, STACK + 0x800);
	r.rax = 99;
	memcpy(ram + (STACK + 0x800 - VBASE), &to, 8);
	CHECK(lk_uint3_fire(&r) == 1);
	CHECK(nfired == 1 && fired_args[0][0] == 0x2a && fired_args[0][1] == 99);
	CHECK(r.u.t.rip == to && r.u.t.rsp == STACK + 0x808);
}

TEST(pop_and_mov32)
{
	static const uint8_t pop[] = { 0x5b };
	static const uint8_t mov32[] = { 0x89, 0xfd };		/* mov %edi,%ebp */
	struct lk_regs r;
	uint64_t v = 0x5555;

	setup(pop, 1, LK_UE_POP, 1);
	us[0].reg = 3;
	trap_regs(&r, STACK + 0x800);
	memcpy(ram + (STACK + 0x800 - VBASE), &v, 8);
	CHECK(lk_uint3_fire(&r) == 1 && r.rbx == 0x5555 && r.u.t.rsp == STACK + 0x808);
	setup(mov32, 2, LK_UE_MOV32, 2);
	us[0].reg = 6, us[0].reg2 = 5;
	trap_regs(&r, STACK + 0x800);
	r.rdi = 0xffffffff00000007ull;
	CHECK(lk_uint3_fire(&r) == 1 && r.rbp == 7 && r.u.t.rip == TEXT + 2);
}

TEST(usdt_arguments_registers_memory_immediates)
{
	static const uint8_t nop[] = { 0x90 };
	struct lk_regs r;
	int32_t m = -5;

	setup(nop, 1, LK_UE_NOP, 1);
	us[0].fire = LK_UF_USDT;
	us[0].nargs = 3;
	us[0].args[0] = (struct lk_uarg){ .size = -4, .kind = LK_UA_REG, .reg = 5,
					  .idx = LK_UA_NOREG };
	us[0].args[1] = (struct lk_uarg){ .size = -4, .kind = LK_UA_MEM, .reg = 6,
					  .idx = LK_UA_NOREG, .val = 16 };
	us[0].args[2] = (struct lk_uarg){ .size = 4, .kind = LK_UA_IMM, .val = 5 };
	trap_regs(&r, STACK + 0x800);
	r.rdi = 0xffffffff;		/* %edi = -1 */
	r.rbp = STACK;
	memcpy(ram + (STACK + 16 - VBASE), &m, 4);
	CHECK(lk_uint3_fire(&r) == 1 && nfired == 1);
	CHECK(fired_args[0][0] == (uint64_t)-1 && fired_args[0][1] == (uint64_t)-5 &&
	      fired_args[0][2] == 5);
	CHECK(r.u.t.rip == TEXT + 1);
}

TEST(task_end_and_foreign_int3)
{
	static const uint8_t nop[] = { 0x90 };
	struct lk_regs r;

	setup(nop, 1, LK_UE_NOP, 1);
	trap_regs(&r, STACK + 0x800);
	r.u.t.rip = TEXT + 0x101;	/* an int3 that is none of ours */
	CHECK(lk_uint3_fire(&r) == 0 && ctl.int3_foreign == 1 && r.u.t.rip == TEXT + 0x101);
	lk_usites_remove(1);
	CHECK(ram[TEXT - VBASE] == 0x90 && us[0].state == LK_US_GONE);
	lk_usites_remove(-1);
	CHECK(us[0].state == LK_US_GONE);
	trap_regs(&r, STACK + 0x800);
	CHECK(lk_uint3_fire(&r) == 0);	/* no longer ours */
}

MT_TEST_MAIN()
