/*
 * x86-64 side of the blob: saved registers, privileged instructions.
 * Probe context only (runtime/x86_64/, runtime/kernel/).
 */
#ifndef MT_RT_X86_H
#define MT_RT_X86_H

#include <stdint.h>
#include "machtrace/lkabi.h"

/* What entry.S saves, lowest address first. */
struct lk_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rdi, rsi, rdx, rcx, rax;
	union {
		struct {		/* lk_fbt_entry / lk_boot_entry */
			uint64_t rflags, slot;
			uint64_t entry_sp[];	/* return address, stack args */
		} j;
		struct {		/* lk_int3: the CPU's frame */
			uint64_t rip, cs, rflags, rsp, ss;
		} t;
	} u;
};

/* DWARF x86-64 register n (0-15) in a trap frame's save area; rsp (7) is
   the CPU's int3 frame's, so a jmp entry's caller supplies its own. */
static inline uint64_t *lk_dwarf_slot(struct lk_regs *r, uint8_t n)
{
	switch (n) {
	case 0: return &r->rax;
	case 1: return &r->rdx;
	case 2: return &r->rcx;
	case 3: return &r->rbx;
	case 4: return &r->rsi;
	case 5: return &r->rdi;
	case 6: return &r->rbp;
	case 7: return &r->u.t.rsp;
	case 8: return &r->r8;
	case 9: return &r->r9;
	case 10: return &r->r10;
	case 11: return &r->r11;
	case 12: return &r->r12;
	case 13: return &r->r13;
	case 14: return &r->r14;
	default: return &r->r15;
	}
}

static inline uint64_t lk_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t lk_save_cli(void)
{
	uint64_t fl;

	__asm__ volatile("pushfq; pop %0; cli" : "=r"(fl) : : "memory");
	return fl;
}

static inline void lk_restore(uint64_t fl)
{
	if (fl & 0x200)
		__asm__ volatile("sti" : : : "memory");
}

static inline uint64_t lk_cr0(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline void lk_set_cr0(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline uint64_t lk_cr3(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void lk_pause(void)
{
	__asm__ volatile("pause" : : : "memory");
}

/* patch.c */
void lk_text_write(uint64_t addr, const uint8_t *bytes, uint32_t n);
/* The same for a live instruction other CPUs may run: int3 first
   (patch.c); detour: where a CPU meeting it goes, 0 to write plainly. */
void lk_text_poke(uint64_t addr, const uint8_t *bytes, uint32_t n, uint64_t detour);
extern uint64_t lk_poke_addr, lk_poke_detour;
/* patch.c: one CPU patches at a time (every lk_text_poke and batch) */
int lk_patch_try(void);
void lk_patch_wait(void);
void lk_patch_done(void);
/* idt.c: vector 3 of every CPU */
int lk_idt_hook(void);
void lk_idt_unhook(void);
extern uint64_t lk_orig_int3;
/* idt.c: a vector of the blob's in every CPU's IDT (0: none free) */
uint32_t lk_idt_take(uint64_t handler);
void lk_idt_give(uint32_t vec);
/* apic.c: an IPI through the local APIC at base (ICR shorthand/dest in how) */
#define LK_ICR_SELF	(1u << 18)
#define LK_ICR_OTHERS	(3u << 18)
void lk_apic_ipi(uint64_t base, uint32_t how, uint32_t dest, uint32_t vec);
uint64_t lk_apic_kernel_regs(void);
/* xcall.c: cross-calls */
#define LK_XC_ALL	0xffffffffu
int lk_xcall_start(void);
void lk_xcall_stop(void);
void lk_xcall_online(void);
int lk_xcall(uint32_t cpu, void (*fn)(void *), void *arg);
void lk_xcall_sync(void);
void lk_xcall_poll(void);
int lk_xcall_hold(uint32_t cpus);
struct lk_regs *lk_xcall_held(uint32_t cpu);
void lk_xcall_release(void);
void lk_xcall_sync_long(void);
void lk_xcall_fire(struct lk_regs *r);

/*
 * The C handlers entry.S calls (CALL_ON_STACK) with the saved registers:
 * fbt.c's probe and trap handlers, kmain.c's boot hook, apic.c's timer
 * interrupt.
 */
uint64_t lk_fbt_fire(struct lk_regs *r);
uint64_t lk_fbt_ret_fire(struct lk_regs *r);
int lk_int3_fire(struct lk_regs *r);
int lk_uint3_fire(struct lk_regs *r);
uint64_t lk_boot(struct lk_regs *r);
void lk_apic_fire(struct lk_regs *r);

#endif
