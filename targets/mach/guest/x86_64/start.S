/*
 * Entry points and GNU Mach x86_64 trap stubs for freestanding tasks.
 *
 * Trap ABI (native 64-bit user space): `syscall` with %eax = -(trap number),
 * arguments in rdi, rsi, rdx, r10, r8, r9, the 7th and later on the user
 * stack above the stub's return address; result in %rax; rcx and r11 are
 * clobbered.  The stubs are ordinary SysV functions, so argument 4 arrives
 * in %rcx and moves to %r10, and argument 7 is already at 8(%rsp).
 *
 * Initial stack of a bootstrap task: [rsp] = argc, then argv[] pointers,
 * NULL, envp[], NULL.
 */
	.text
	.globl _start
_start:
	mov	%rsp, %rdi
	and	$-16, %rsp
	call	task_main
1:	jmp	1b

/*
 * First instructions of a thread made by thread_create: the creator set
 * rsp to a 16-byte aligned stack whose top word holds the argument and
 * rip here.  The C entry must not return; it terminates its thread.
 */
	.globl thread_start
thread_start:
	mov	(%rsp), %rdi
	call	thread_main
2:	jmp	2b

#define TRAP(name, num)		\
	.globl name;		\
	.type name, @function;	\
name:				\
	mov	%rcx, %r10;	\
	mov	$-(num), %eax;	\
	syscall;		\
	ret

TRAP(mach_msg_trap, 25)
TRAP(mach_reply_port, 26)
TRAP(mach_thread_self, 27)
TRAP(mach_task_self, 28)
TRAP(mach_host_self, 29)
TRAP(trap_vm_allocate, 65)
TRAP(trap_vm_deallocate, 66)
TRAP(trap_task_terminate, 69)
TRAP(trap_mach_port_allocate, 72)

	.section .note.GNU-stack, "", @progbits
