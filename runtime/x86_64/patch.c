/*
 * Writing kernel text (probe context).
 *
 * Kernel text pages are read-only (CR0.WP = 1).  A write is done with
 * interrupts off and CR0.WP cleared only around the store, so nothing else
 * runs while write protection is lifted.  With one CPU, interrupts off
 * make a patch atomic.  For other CPUs an instruction of several bytes is
 * poked as Linux's text_poke_bp does: int3 on its first byte, the tail,
 * then the first byte; a CPU meeting the int3 meanwhile goes on at the
 * site's detour (its trampoline, which does what the old and the new
 * bytes do), and one whose int3 is already gone executes the site again
 * (lk_int3_fire).  Between the steps every other CPU is serialized by a
 * cross-call (xcall.c; nothing with one CPU), as text_poke_bp's syncs.
 * GO and STOP change every site in one batch instead (fbt.c sites_poke).
 */
#include "runtime/x86_64/x86.h"

void lk_text_write(uint64_t addr, const uint8_t *bytes, uint32_t n)
{
	volatile uint8_t *p = (volatile uint8_t *)addr;
	uint64_t fl = lk_save_cli(), cr0 = lk_cr0();

	lk_set_cr0(cr0 & ~0x10000ull);
	for (uint32_t i = 0; i < n; i++)
		p[i] = bytes[i];
	lk_set_cr0(cr0);
	lk_restore(fl);
}

/* The site being poked and where a CPU meeting its int3 goes meanwhile. */
uint64_t lk_poke_addr, lk_poke_detour;

void lk_text_poke(uint64_t addr, const uint8_t *bytes, uint32_t n, uint64_t detour)
{
	static const uint8_t bp = 0xcc;

	if (n < 2 || !detour) {
		lk_text_write(addr, bytes, n);
		return;
	}
	lk_poke_detour = detour;
	__atomic_store_n(&lk_poke_addr, addr, __ATOMIC_RELEASE);
	lk_text_write(addr, &bp, 1);
	lk_xcall_sync();
	lk_text_write(addr + 1, bytes + 1, n - 1);
	lk_xcall_sync();
	lk_text_write(addr, bytes, 1);
	lk_xcall_sync();
	__atomic_store_n(&lk_poke_addr, 0, __ATOMIC_RELEASE);
}
