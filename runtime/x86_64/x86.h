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
int lk_idt_hook(void);
void lk_idt_unhook(void);
extern uint64_t lk_orig_int3;

/*
 * The C handlers entry.S calls (CALL_ON_STACK) with the saved registers:
 * fbt.c's probe and trap handlers, kmain.c's boot hook.
 */
uint64_t lk_fbt_fire(struct lk_regs *r);
uint64_t lk_fbt_ret_fire(struct lk_regs *r);
int lk_int3_fire(struct lk_regs *r);
int lk_uint3_fire(struct lk_regs *r);
uint64_t lk_boot(struct lk_regs *r);

#endif
