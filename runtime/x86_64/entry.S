/*
 * Entry points of the machtrace blob in GNU Mach (probe context, x86-64).
 * Never instrumented: the blob lives in the reserved region, outside the
 * kernel text.  Register save layout = struct lk_regs (runtime/x86_64/x86.h).
 *
 *   lk_boot_entry   the shim's boot hook jumps here from the hooked
 *                   function's entry (stack as at its entry)
 *   lk_fbt_entry    jmp trampolines ("push $site; jmp lk_fbt_entry") land
 *                   here; lk_fbt_fire returns where to go on (the site's
 *                   relocated displaced instructions), reached by "ret"
 *   lk_int3         vector 3 (interrupt gate): our int3 sites are handled
 *                   by lk_int3_fire (kernel) or lk_uint3_fire (user
 *                   tasks), which edit the iret frame; any other
 *                   breakpoint goes to the kernel's handler unchanged
 *   lk_apic_entry   the local APIC timer's vector while the blob owns it
 *                   (apic.c): lk_apic_fire fires the due tick/profile
 *                   probes, re-arms the timer and sends the EOI
 *   lk_xcall_entry  the blob's cross-call IPI (xcall.c)
 *   lk_jit_dispatch a compiled probe's stub ("push $table; jmp") on a
 *                   guest of several CPUs lands here: on to the CPU's
 *                   copy of the code (lkabi.h, struct lk_jit)
 *   lk_jit_thunks   compiled code's calls of the runtime, each moved to
 *                   the blob's stack
 */
#include "machtrace/lkabi.h"

/* Save/restore every general register (15) below the current rsp. */
	.macro SAVE
	push	%rax
	push	%rcx
	push	%rdx
	push	%rsi
	push	%rdi
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	push	%rbx
	push	%rbp
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	.endm
	.macro RESTORE
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbp
	pop	%rbx
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rdi
	pop	%rsi
	pop	%rdx
	pop	%rcx
	pop	%rax
	.endm

/*
 * rax = the kernel's number of the current CPU: lk_cpu_lut (an SMP
 * kernel's cpu_id_lut, written by the host before the session's first
 * hook; 0 on a UP kernel: CPU 0) at CPUID's initial APIC ID; `beyond`
 * for one not below LK_NCPU_MAX.  Clobbers rbx, rcx, rdx.
 */
	.macro CPU_INDEX beyond
	xor	%eax, %eax
	cmpq	$0, lk_cpu_lut(%rip)
	je	80f
	mov	$1, %eax
	xor	%ecx, %ecx
	cpuid
	shr	$24, %ebx
	mov	lk_cpu_lut(%rip), %rcx
	movslq	(%rcx,%rbx,4), %rax
	cmp	$LK_NCPU_MAX, %rax
	jb	80f
	mov	$\beyond, %eax
80:
	.endm

/*
 * Onto the blob's own stack of this CPU: kernel stacks are small (one
 * 4 KiB page on Debian's kernels) and the runtime needs a few KiB.
 * Interrupts are off, so a CPU's stack is its own; a nested entry (an
 * NMI path hitting a probe), or a CPU finding its stack taken, stays on
 * its current stack.  The CPU is the
 * kernel's number (CPU_INDEX), computed here without a push (from user
 * mode the stack is the thread's pcb->iss); one beyond LK_NCPU_MAX takes
 * CPU 0's.  rbx = the old rsp, r12 = the on-stack flag to clear (0: none)
 * for STACK_LEAVE.  Clobbers rax, rcx, rdx.
 */
	.macro STACK_ENTER
	CPU_INDEX 0
	mov	%rsp, %rbx
	xor	%r12d, %r12d
	lea	lk_on_stack(%rip), %rcx
	lea	(%rcx,%rax,4), %rcx
	mov	$1, %edx
	xchg	%edx, (%rcx)		/* atomic: two CPUs never share it */
	test	%edx, %edx
	jnz	91f
	mov	%rcx, %r12
	add	$1, %rax
	imul	$LK_STACK_SIZE, %rax
	lea	lk_stacks(%rip), %rsp
	add	%rax, %rsp
91:
	.endm
	.macro STACK_LEAVE
	mov	%rbx, %rsp
	test	%r12, %r12
	jz	92f
	movl	$0, (%r12)
92:
	.endm

/*
 * Call fn(rdi = saved registers) on the blob's stack (STACK_ENTER).
 * Clobbers rax, rbx, rcx, rdx, r12 (saved by SAVE), returns fn's rax.
 */
	.macro CALL_ON_STACK fn
	STACK_ENTER
	mov	%rbx, %rdi
	cld
	call	\fn
	STACK_LEAVE
	.endm

	.section .hdr, "ax"
	.globl lk_blob_hdr
lk_blob_hdr:
	.long	LK_BLOB_MAGIC, LK_BLOB_VERSION
	.quad	__blob_start - LK_KERNEL_MAP_BASE	/* load_pa */
	.quad	__blob_filesz, __blob_memsz
	.quad	lk_boot_entry
	.asciz	"bootstrap_create"
	.fill	32 - 17, 1, 0
	.fill	LK_BLOB_HDR_REST, 1, 0		/* filled in by the shim */

/* At fixed places after the header (LK_VEC_*), for the host's trampolines. */
	.globl lk_vectors
lk_vectors:
	jmp	lk_fbt_entry		/* LK_VEC_FBT_ENTRY */
	.balign	8, 0xcc
	jmp	lk_fbt_ret_entry	/* LK_VEC_FBT_RET */
	.balign	8, 0xcc
	jmp	lk_jit_dispatch		/* LK_VEC_JIT_DISPATCH */
	.balign	8, 0xcc
	.org	LK_VEC_CPU_LUT		/* from the header's start; never backwards */
	.globl	lk_cpu_lut		/* the host writes it */
lk_cpu_lut:
	.quad	0

	.globl lk_fbt_entry
lk_fbt_entry:
	pushfq
	SAVE
	cli
	CALL_ON_STACK lk_fbt_fire
	mov	%rax, 128(%rsp)		/* the slot held the site index */
	RESTORE
	popfq
	.globl lk_fbt_entry_ret		/* a pending tick is taken here (apic.c) */
lk_fbt_entry_ret:
	ret


/*
 * A compiled probe's dispatch stub lands here with [table] pushed on the
 * stack of the site (an entry's or a ret's): the slot becomes the table's
 * address for this CPU (the general path's, LK_NCPU_MAX, for a CPU beyond
 * the table), every register and the flags are put back and `ret` goes
 * there with the site's own stack.
 */
	.globl lk_jit_dispatch
lk_jit_dispatch:
	pushfq
	push	%rax
	push	%rbx
	push	%rcx
	push	%rdx
	CPU_INDEX LK_NCPU_MAX
	mov	40(%rsp), %rcx
	mov	(%rcx,%rax,8), %rax
	mov	%rax, 40(%rsp)
	pop	%rdx
	pop	%rcx
	pop	%rbx
	pop	%rax
	popfq
	ret

/*
 * Compiled code's calls of the runtime (jitarm.c points a call's rel32 at
 * thunk i, which calls lk_jit_fn[i]) run on the blob's stack, as the
 * general path does: the code runs on the kernel's stack of the site,
 * where a deep caller (vm_page_grab under the slab allocator) leaves too
 * little for a helper's frames.  Arguments in rdi, rsi, rdx, rcx (kept
 * across STACK_ENTER), the result in rax; the callee-saved registers are
 * kept, as for any call.
 */
#define LK_JIT_NTHUNK	32	/* the MT_JH_* helpers, then the platform's */
	.globl lk_jit_thunks, lk_jit_thunks_end
	.balign	16, 0xcc
lk_jit_thunks:
	.rept	LK_JIT_NTHUNK
	mov	$((. - lk_jit_thunks) / 16), %eax
	jmp	lk_jit_call
	.balign	16, 0xcc
	.endr
lk_jit_thunks_end:

lk_jit_call:
	push	%rbx
	push	%r12
	push	%rdx
	push	%rcx
	mov	%rax, %r11
	STACK_ENTER
	and	$-16, %rsp		/* nested: on the current stack */
	mov	(%rbx), %rcx
	mov	8(%rbx), %rdx
	lea	lk_jit_fn(%rip), %rax
	cld
	call	*(%rax,%r11,8)
	STACK_LEAVE
	add	$16, %rsp
	pop	%r12
	pop	%rbx
	ret

/*
 * Return trampolines ("displaced epilogue; push $site; jmp") land here with
 * the stack of the ret: [site index] [return address].  Flags are dead at
 * a return, but lea keeps them anyway.
 */
	.globl lk_fbt_ret_entry
lk_fbt_ret_entry:
	pushfq
	SAVE
	cli
	CALL_ON_STACK lk_fbt_ret_fire
	RESTORE
	popfq
	.globl lk_fbt_ret_tail		/* a pending tick is taken here (apic.c) */
lk_fbt_ret_tail:
	lea	8(%rsp), %rsp
	ret

	.text
/*
 * Function-entry stack: rsp = 8 mod 16.  After a slot push, pushfq and
 * 15 registers: 8 + 8 + 8 + 120 = 144 bytes, rsp = 0 mod 16 at the call.
 */
	.globl lk_boot_entry
lk_boot_entry:
	push	$0
	pushfq
	SAVE
	cli
	CALL_ON_STACK lk_boot
	mov	%rax, 128(%rsp)		/* continue at hook_cont */
	RESTORE
	popfq
	.globl lk_boot_ret		/* a pending tick is taken here (sample.c) */
lk_boot_ret:
	ret

/*
 * #BP frame (no error code): rip, cs, rflags, rsp, ss; the CPU aligned rsp
 * to 16 before pushing 40 bytes, so 15 pushes leave it 0 mod 16.
 */
	.globl lk_int3
lk_int3:
	testb	$3, 8(%rsp)
	jnz	2f
	SAVE
	CALL_ON_STACK lk_int3_fire
	test	%eax, %eax
	RESTORE
	jz	1f
	iretq
1:	jmp	*lk_orig_int3(%rip)

/*
 * From user mode (a usdt or pid site, usite.c; else the kernel's, with
 * the frame unchanged).  The CPU switched to the thread's rsp0, the top
 * of its pcb->iss: SAVE's 120 bytes stay inside that saved state, below
 * the frame (the host checked the layout in the kernel's DWARF, plan.c),
 * where the kernel's own trap entry would store the registers; the work
 * runs on the blob's stack.  The user's flags come back with iretq.
 */
2:	cli
	SAVE
	CALL_ON_STACK lk_uint3_fire
	test	%eax, %eax
	RESTORE
	jz	1b
	iretq

/*
 * The APIC timer's interrupt gate (IF = 0), from kernel or user mode (the
 * C side looks at the frame's cs).  From user mode the CPU is at the
 * thread's rsp0, the top of its pcb->iss, and SAVE stays inside iss as
 * at lk_int3 (the host checked the layout, plan.c).  Interrupt frame
 * with rsp aligned to 16 first: as at lk_int3, 0 mod 16 after SAVE.
 */
	.globl lk_apic_entry
lk_apic_entry:
	SAVE
	CALL_ON_STACK lk_apic_fire
	RESTORE
	iretq

/* The blob's cross-call IPI (xcall.c), framed as lk_apic_entry. */
	.globl lk_xcall_entry
lk_xcall_entry:
	SAVE
	CALL_ON_STACK lk_xcall_fire
	RESTORE
	iretq

	.bss
	.align	16
	.globl	lk_on_stack
lk_on_stack:				/* per CPU: 1 while on its stack */
	.space	4 * LK_NCPU_MAX
	.align	16
lk_stacks:				/* CPU n's top: lk_stacks + (n + 1) * size */
	.space	LK_STACK_SIZE * LK_NCPU_MAX

	.section .note.GNU-stack, "", @progbits
