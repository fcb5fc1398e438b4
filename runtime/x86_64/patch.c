/*
 * Writing kernel text and hooking vector 3 (probe context).
 *
 * Kernel text pages are read-only (CR0.WP = 1).  A write is done with
 * interrupts off and CR0.WP cleared only around the store, so nothing else
 * runs while write protection is lifted.  With one CPU, interrupts off
 * make a patch atomic.  For other CPUs an instruction of several bytes is
 * poked as Linux's text_poke_bp does: int3 on its first byte, the tail,
 * then the first byte; a CPU meeting the int3 meanwhile goes on at the
 * site's detour (its trampoline, which does what the old and the new
 * bytes do), and one whose int3 is already gone executes the site again
 * (lk_int3_fire).  The syncs between the steps (every CPU serialized, a
 * cross-call) are still missing: there is no cross-call yet.
 */
#include "runtime/x86_64/x86.h"

uint64_t lk_orig_int3;
extern char lk_int3[];

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
	lk_text_write(addr + 1, bytes + 1, n - 1);
	lk_text_write(addr, bytes, 1);
	__atomic_store_n(&lk_poke_addr, 0, __ATOMIC_RELEASE);
}

struct idtr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static volatile uint32_t *gate3(void)
{
	struct idtr r;

	__asm__ volatile("sidt %0" : "=m"(r));
	return (volatile uint32_t *)(r.base + 3 * 16);
}

static void set_gate(volatile uint32_t *g, uint64_t h, uint32_t type)
{
	uint64_t fl = lk_save_cli();

	g[0] = (g[0] & 0xffff0000u) | (uint32_t)(h & 0xffff);
	g[1] = (uint32_t)(h & 0xffff0000u) | (type << 8) | (g[1] & 0xff);
	g[2] = (uint32_t)(h >> 32);
	lk_restore(fl);
}

static uint32_t orig_type, hooked;

/* Vector 3 -> lk_int3 as a DPL3 interrupt gate (IF cleared on entry). */
int lk_idt_hook(void)
{
	volatile uint32_t *g = gate3();

	if (hooked)
		return 0;
	lk_orig_int3 = (g[0] & 0xffff) | (g[1] & 0xffff0000u) | ((uint64_t)g[2] << 32);
	orig_type = (g[1] >> 8) & 0xff;
	if (!(orig_type & 0x80))
		return -1;
	set_gate(g, (uint64_t)lk_int3, 0xee);
	hooked = 1;
	return 0;
}

void lk_idt_unhook(void)
{
	if (!hooked)
		return;
	set_gate(gate3(), lk_orig_int3, orig_type);
	hooked = 0;		/* lk_orig_int3 stays valid for a late trap */
}
