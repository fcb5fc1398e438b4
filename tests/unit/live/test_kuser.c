/*
 * The blob's user-memory walk (runtime/kernel/kuser.c) against a fake
 * physical memory holding hand-built x86-64 page tables: present, user,
 * writable bits at every level, 2 MiB pages, copies stopping at the
 * first unreadable byte, and uregs[] slots and aliases.
 */
#include <stdint.h>
#include "../mt_test.h"

#include "runtime/kernel/kern.h"

#define RAM_PAGES 16
static uint8_t ram[RAM_PAGES * 4096] __attribute__((aligned(4096)));

/* kuser.c built with LK_KUSER_HOSTTEST (tests/tests.mk) reads the page
   tables and user pages through this */
const volatile void *lk_phys(uint64_t pa, uint64_t len);
const volatile void *lk_phys(uint64_t pa, uint64_t len)
{
	if (pa >= sizeof ram || len > sizeof ram - pa)
		return 0;
	return ram + pa;
}

struct lk_glob lk;
static struct lk_ctl ctl;
static uint64_t fake_kva_base;

/* Kernel "loads" in the tests read host memory at the given address. */
int lk_load64(uint64_t addr, uint64_t *v)
{
	if (!addr)
		return 0;
	*v = *(const uint64_t *)(uintptr_t)addr;
	return 1;
}

uint64_t lk_kva_pa(uint64_t va)
{
	return va - fake_kva_base;
}

#define P 0x1ull
#define W 0x2ull
#define U 0x4ull
#define PS 0x80ull

static void set(uint64_t table_page, uint32_t idx, uint64_t e)
{
	((uint64_t *)(ram + table_page * 4096))[idx] = e;
}

/* pml4 page 1 -> pdpt 2 -> pd 3 -> pt 4; va's indices 0/0/0/(5, 6, 7) */
static void tables(void)
{
	memset(ram, 0, sizeof ram);
	set(1, 0, 2 * 4096 | P | W | U);
	set(2, 0, 3 * 4096 | P | W | U);
	set(3, 0, 4 * 4096 | P | W | U);
	set(4, 5, 8 * 4096 | P | W | U);	/* va 0x5000 -> page 8 */
	set(4, 6, 9 * 4096 | P | U);		/* va 0x6000 -> page 9, read-only */
	set(4, 7, 10 * 4096 | P);		/* va 0x7000: supervisor only */
	set(4, 8, 11 * 4096 | U);		/* va 0x8000: not present */
}

TEST(kuser_present_user_page)
{
	uint64_t span = 0;

	tables();
	CHECK_EQ_INT(lk_user_pa(4096, 0x5123, &span, 0), 8 * 4096 + 0x123);
	CHECK_EQ_INT(span, 4096 - 0x123);
	CHECK_EQ_INT(lk_user_pa(4096, 0x5123, NULL, 1), 8 * 4096 + 0x123);
}

TEST(kuser_refused_pages)
{
	tables();
	/* read-only: readable, not writable */
	CHECK_EQ_INT(lk_user_pa(4096, 0x6000, NULL, 0), 9 * 4096);
	CHECK(lk_user_pa(4096, 0x6000, NULL, 1) == ~0ull);
	/* supervisor, not present, unmapped, kernel half */
	CHECK(lk_user_pa(4096, 0x7000, NULL, 0) == ~0ull);
	CHECK(lk_user_pa(4096, 0x8000, NULL, 0) == ~0ull);
	CHECK(lk_user_pa(4096, 0x9000, NULL, 0) == ~0ull);
	CHECK(lk_user_pa(4096, 0x10, NULL, 0) == ~0ull);
	CHECK(lk_user_pa(4096, 0x40000000, NULL, 0) == ~0ull);
	CHECK(lk_user_pa(4096, LK_USER_TOP, NULL, 0) == ~0ull);
	CHECK(lk_user_pa(4096, 0xffffffff80001000ull, NULL, 0) == ~0ull);
	/* a directory entry without the user bit hides all below it */
	set(3, 0, 4 * 4096 | P | W);
	CHECK(lk_user_pa(4096, 0x5000, NULL, 0) == ~0ull);
	/* a table outside the readable physical memory */
	set(3, 0, 0x7fff0000ull | P | W | U);
	CHECK(lk_user_pa(4096, 0x5000, NULL, 0) == ~0ull);
}

TEST(kuser_large_pages)
{
	uint64_t span = 0;

	tables();
	set(3, 1, 0x40000000ull | P | W | U | PS);	/* 2 MiB at va 0x200000 */
	CHECK_EQ_INT(lk_user_pa(4096, 0x212345, &span, 0), 0x40012345);
	CHECK_EQ_INT(span, 0x200000 - 0x12345);
	set(2, 1, 0x80000000ull | P | U | PS);		/* 1 GiB at va 1 GiB */
	CHECK_EQ_INT(lk_user_pa(4096, 0x40000010, NULL, 0), 0x80000010);
	CHECK(lk_user_pa(4096, 0x40000010, NULL, 1) == ~0ull);
}

TEST(kuser_copy_stops_at_bad_page)
{
	uint8_t buf[64];

	tables();
	memcpy(ram + 8 * 4096 + 4090, "abcdef", 6);
	memcpy(ram + 9 * 4096, "ghij", 5);
	/* across the 0x5000/0x6000 boundary: both readable */
	CHECK_EQ_INT(lk_user_copy(4096, buf, 0x5ffa, 10, 0), 10);
	CHECK(memcmp(buf, "abcdefghij", 10) == 0);
	/* 0x6ffc.. runs into the supervisor page at 0x7000: 4 bytes */
	CHECK_EQ_INT(lk_user_copy(4096, buf, 0x6ffc, 8, 0), 4);
	CHECK_EQ_INT(lk_user_copy(4096, buf, 0x10, 8, 0), 0);
	/* a string stops after its NUL, wherever the page ends */
	CHECK_EQ_INT(lk_user_copy(4096, buf, 0x5ffa, 64, 1), 11);
	CHECK(strcmp((char *)buf, "abcdefghij") == 0);
}

TEST(kuser_uregs_slots)
{
	uint64_t iss[23], v = 1;
	struct lk_uregs_loc loc = { (uint64_t)(uintptr_t)iss };

	lk.ctl = &ctl;
	for (int i = 0; i < LK_UREG_N; i++)
		ctl.k.iss_off[i] = LK_UREG_NONE;
	for (int i = 0; i < 23; i++)
		iss[i] = 100 + i;
	ctl.k.iss_off[LK_UREG_RIP] = 18 * 8;	/* GNU Mach's eip */
	ctl.k.iss_off[LK_UREG_RSP] = 21 * 8;	/* uesp */
	ctl.k.iss_off[LK_UREG_RBP] = 10 * 8;	/* ebp */
	CHECK_EQ_INT(lk_user_reg(&loc, LK_UREG_RIP, &v), 1);
	CHECK_EQ_INT(v, 118);
	/* R_PC = R_EIP = 37, R_SP = R_ESP = 40, R_FP = R_EBP = 30 */
	CHECK_EQ_INT(lk_user_reg(&loc, 37, &v), 1);
	CHECK_EQ_INT(v, 118);
	CHECK_EQ_INT(lk_user_reg(&loc, 40, &v), 1);
	CHECK_EQ_INT(v, 121);
	CHECK_EQ_INT(lk_user_reg(&loc, 30, &v), 1);
	CHECK_EQ_INT(v, 110);
	/* not saved by the kernel: 0; beyond R_SS's alias: illegal */
	CHECK_EQ_INT(lk_user_reg(&loc, LK_UREG_FS, &v), 1);
	CHECK_EQ_INT(v, 0);
	CHECK_EQ_INT(lk_user_reg(&loc, 42, &v), 0);
	lk.ctl = 0;
}

MT_TEST_MAIN()
