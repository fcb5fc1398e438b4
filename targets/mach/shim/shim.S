/*
 * Entry of the 32-bit multiboot1 shim (QEMU -kernel loads it as ELF32),
 * the jump into GNU Mach, and the 64-bit reservation trampoline that the
 * kernel runs from the shim's memory (see x86_64/hook.c).
 */
#define MB_HEADER_MAGIC 0x1BADB002
#define MB_HEADER_FLAGS 0x00000003      /* page-aligned modules, memory map */

	.section .mbheader, "a"
	.align 4
	.long MB_HEADER_MAGIC
	.long MB_HEADER_FLAGS
	.long -(MB_HEADER_MAGIC + MB_HEADER_FLAGS)

	.text
	.code32
	.globl _start
_start:
	cli
	cld
	mov	$stack_top, %esp
	push	%ebx                    /* multiboot info */
	push	%eax                    /* loader magic */
	call	shim_main
1:	hlt
	jmp	1b

/* void jump_kernel(uint32_t entry, uint32_t mbi) */
	.globl jump_kernel
jump_kernel:
	mov	4(%esp), %ecx
	mov	8(%esp), %ebx
	mov	$0x2BADB002, %eax
	jmp	*%ecx

/*
 * Entered by "jmp" from biosmem_register_boot_data's patched entry, on its
 * first call: the stack is that of the function entry (rsp = 8 mod 16).
 * Nine pushes make it 0 mod 16 for the call.  The entry's original bytes
 * go back first (so the call below and every later one run the kernel's
 * own code), then the function registers the reserved region, and the
 * kernel's own call proceeds with its argument registers restored.
 */
	.code64
	.globl reserve_tramp, reserve_orig, reserve_args
reserve_tramp:
	push	%rax
	push	%rcx
	push	%rdx
	push	%rsi
	push	%rdi
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	mov	reserve_args+16(%rip), %rdi
	lea	reserve_orig(%rip), %rsi
	mov	$5, %ecx
	rep movsb
	mov	reserve_args(%rip), %rdi
	mov	reserve_args+8(%rip), %rsi
	xor	%edx, %edx
	call	*reserve_args+16(%rip)
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rdi
	pop	%rsi
	pop	%rdx
	pop	%rcx
	pop	%rax
	jmp	*reserve_args+16(%rip)
reserve_orig:
	.fill	8, 1, 0xcc
	.align	8
reserve_args:
	.quad	0, 0, 0
	.code32

	.bss
	.align 16
	.space 16384
stack_top:

	.section .note.GNU-stack, "", @progbits
