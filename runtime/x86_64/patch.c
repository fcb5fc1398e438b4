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
 *
 * One patch at a time (lk_patch_try, lk_patch_wait): any CPU's firing
 * may arm a site in probe context while another CPU arms it too, or CPU
 * 0's tick disarms it or the stop removes it.  Two writers of one site
 * mixed their bytes (a jmp whose rel32 was half one target's, half the
 * other's, into the middle of the trampoline area) and cleared each
 * other's lk_poke_addr (an int3 left that nobody claimed).
 */
#include "runtime/kernel/kern.h"

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
static volatile uint32_t patch_busy;

/* Probe context: the right to patch, or 0 at once (arm at a later firing). */
int lk_patch_try(void)
{
	uint32_t zero = 0;

	return __atomic_compare_exchange_n(&patch_busy, &zero, 1, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* The tick or the stop (interrupts off): wait for the CPU patching,
   answering its syncs meanwhile. */
void lk_patch_wait(void)
{
	while (!lk_patch_try())
		lk_xcall_poll();
}

void lk_patch_done(void)
{
	__atomic_store_n(&patch_busy, 0, __ATOMIC_RELEASE);
}

void lk_text_poke(uint64_t addr, const uint8_t *bytes, uint32_t n, uint64_t detour)
{
	static const uint8_t bp = 0xcc;

	if (n < 2 || !detour) {
		lk_text_write(addr, bytes, n);
		return;
	}
	lk_poke_detour = detour;
	if (__atomic_exchange_n(&lk_poke_addr, addr, __ATOMIC_ACQ_REL))
		lk.ctl->poke_overlaps++;
	lk_text_write(addr, &bp, 1);
	lk_xcall_sync();
	lk_text_write(addr + 1, bytes + 1, n - 1);
	lk_xcall_sync();
	lk_text_write(addr, bytes, 1);
	lk_xcall_sync();
	__atomic_store_n(&lk_poke_addr, 0, __ATOMIC_RELEASE);
}
