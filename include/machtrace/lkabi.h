/*
 * The live GNU Mach target's shared layouts: the blob header (read and
 * completed by the 32-bit boot shim), and the live control page (written
 * by the host through the shared guest RAM, read by the blob in the
 * kernel).  Freestanding: fixed-width integers, no pointers (addresses are
 * kernel virtual addresses held in uint64_t), same bytes for the 32-bit
 * shim, the 64-bit blob and the host.
 *
 * Reserved region (physical, kept from GNU Mach by the shim):
 *
 *   resv_pa + 0            the blob (header, text, data, bss)
 *   resv_pa + LK_CTL_OFF   struct lk_ctl (one page, host <-> blob)
 *   resv_pa + LK_SITES_OFF struct lk_site[nsites] (host writes)
 *   resv_pa + LK_TRAMP_OFF trampolines (host writes machine code)
 *   resv_pa + LK_USITES_OFF struct lk_usite[nusites] (host writes)
 *   resv_pa + LK_AREA_OFF  the runtime's state area (mt_cb first)
 *
 * Kernel VA of a region byte = KERNEL_MAP_BASE + physical address.
 *
 * Who writes each field, and when (as OpenBSD's sys/dev/dt/dtvar.h):
 *   [B]  the blob's build (its linked header); immutable
 *   [s]  the boot shim, in the copy at load_pa, before the kernel runs
 *   [h]  the host, through the shared guest RAM, before LK_CMD_INIT
 *        (or before GO where said); immutable afterwards
 *   [H]  the host at any time (commands, heartbeat)
 *   [b]  the blob in the kernel, outside probe context (boot hook,
 *        command handling, its tick)
 *   [k]  the blob in probe context (a firing)
 * Every structure's size is asserted at the end: the 32-bit shim, the
 * 64-bit blob and the host must agree.  A layout change bumps
 * LK_BLOB_VERSION (docs/abi-changes.md).
 */
#ifndef MT_LKABI_H
#define MT_LKABI_H

#ifndef __ASSEMBLER__
#include <stdint.h>
#endif

#define LK_KERNEL_MAP_BASE	0xffffffff80000000ull
#define LK_RESV_PA		0x1400000ull	/* default region: where the boot heap
						   would go without the shim's hook */
#define LK_RESV_SIZE		0x2300000ull	/* 35 MiB: 28 for the area */
#define LK_BLOB_MAX		0x100000ull
#define LK_CTL_OFF		0x100000ull
#define LK_SITES_OFF		0x101000ull
#define LK_SITES_MAX		12256u	/* (LK_TRAMP_OFF - LK_SITES_OFF) / 128 */
#define LK_TRAMP_OFF		0x280000ull
#define LK_TRAMP_MAX		0x440000ull	/* every fbt probe with two
						   clauses compiled (~3.3 MiB) */
#define LK_USITES_OFF		0x6c0000ull
#define LK_USITES_MAX		1024u	/* (LK_AREA_OFF - LK_USITES_OFF) / 256 */
#define LK_AREA_OFF		0x700000ull

/* ---- blob header: the first bytes of the blob module ---- */
#define LK_BLOB_MAGIC		0x4c42544du	/* "MTBL" */
#define LK_BLOB_VERSION		32
#define LK_BLOB_HDR_REST	160	/* bytes after hook_name (shim's part) */
/* A jmp trampoline: "push $site_index; jmp lk_fbt_entry" (10 bytes), then
   the relocated displaced instructions and a jmp back. */
#define LK_TRAMP_DISP		10
/* Entry vectors after the blob header (offsets from the blob's start). */
#define LK_VEC_FBT_ENTRY	(72 + LK_BLOB_HDR_REST)
#define LK_VEC_FBT_RET		(72 + LK_BLOB_HDR_REST + 8)
#define LK_VEC_JIT_DISPATCH	(72 + LK_BLOB_HDR_REST + 16)
/* [h] after the vectors, 8 bytes: the kernel's cpu_id_lut (0: one CPU),
   written before any hook of a session can run, because the entry code
   picks each CPU's stack by it (entry.S CPU_INDEX): with 0 on an SMP
   kernel every CPU would take CPU 0's stack */
#define LK_VEC_CPU_LUT		(72 + LK_BLOB_HDR_REST + 24)
#define LK_STACK_SIZE		16384	/* the blob's own stack, one per CPU */
#define LK_NCPU_MAX		8	/* CPUs with a blob stack (Debian's NCPUS) */

#ifndef __ASSEMBLER__

struct lk_blob_hdr {
	uint32_t magic, version;	/* [B] LK_BLOB_MAGIC, LK_BLOB_VERSION */
	uint64_t load_pa;		/* [B] the shim copies the module here */
	uint64_t filesz, memsz;		/* [B] copy filesz, zero up to memsz */
	uint64_t entry;			/* [B] VA the boot hook jumps to */
	char hook_name[32];		/* [B] kernel function to hook at boot */
	uint64_t hook_va;		/* [s] address of hook_name */
	uint32_t hook_len;		/* [s] bytes displaced (whole insns, >= 5) */
	uint32_t shim_flags;		/* [s] */
	uint8_t hook_orig[32];		/* [s] original bytes at hook_va */
	uint8_t hook_cont[48];		/* [s] displaced insns + jmp hook_va+hook_len */
	uint64_t resv_pa, resv_size;	/* [s] the reserved region */
	uint64_t rsv_hook_va;		/* [s] the shim's reservation patch */
	uint32_t rsv_hook_len, pad;	/* [s] */
	uint8_t rsv_hook_orig[32];	/* [s] its original bytes (blob restores) */
};

/* ---- patch sites (host decides everything, blob only writes bytes) ---- */
enum lk_site_kind {
	LK_SK_JMP = 1,			/* 5-byte jmp to tramp; displaced in tramp */
	LK_SK_INT3,			/* int3; first insn out of line at ool */
	LK_SK_RET,			/* int3 on a ret; emulated by the handler */
	LK_SK_JMPRET,			/* jmp over a ret and the instructions
					   before it (addr = their start); the
					   trampoline runs them, then "push
					   $index; jmp LK_VEC_FBT_RET" */
};
#define LK_SF_INTERNAL_TICK	0x1	/* the blob's timer service hook */
#define LK_SF_INTERNAL_END	0x2	/* the reboot hook (fire END, wait) */
#define LK_SF_FIRE		0x4	/* fires probe `probe` */
#define LK_SF_FIRE_RET		0x8	/* RET site: also fires `rprobe` (a
					   function whose entry is its ret) */
#define LK_SF_FAST		0x10	/* JMP site whose only clause is an
					   unpredicated keyless @ = count():
					   after the first firing the jmp goes
					   to `fast` ("incq value; displaced;
					   jmp back"), the value of fast_aggid */
#define LK_SF_FIRE2		0x20	/* entry: also fires `probe2` (a second
					   probe at this address: kinst:0 and fbt
					   entry, two aliases of one function, an
					   SDT probe), then the `nextra` probes
					   listed at `extra` (inline instances
					   starting at one instruction) */
/* The frame at a mid-function instruction (kinst), from the kernel's
   .eh_frame: CFA = (LK_SF_CFA_RBP ? rbp : rsp) + cfa_off, the return
   address at CFA - 8, the caller's rbp at CFA + rbp_off when
   LK_SF_RBP_SAVED (else still in rbp).  Without LK_SF_FRAME a site is an
   entry or a ret: the return address at rsp, the caller's rbp in rbp. */
#define LK_SF_FRAME		0x40
#define LK_SF_CFA_RBP		0x80
#define LK_SF_RBP_SAVED		0x100
#define LK_SF_NOFRAME		0x200	/* mid-function, frame unknown: no
					   caller, stack() is the pc alone */
/* An int3 site whose raw arguments are registers (an SDT site naming the
   function's variables, from DWARF): arg i is register argreg[i] (DWARF
   x86-64 numbering, 0-15), LK_REG_CURTHREAD (the current thread) or
   LK_REG_ZERO, for i < LK_SITE_NREGARGS; 0 beyond. */
#define LK_SF_INTERNAL_FORGET	0x800	/* a destruction site (pcb_terminate,
					   machine_task_terminate): the blob
					   forgets arg0's pid/tid number */
#define LK_SF_REGARGS		0x400
#define LK_SITE_NREGARGS	4
#define LK_REG_CURTHREAD	0xfe
#define LK_REG_ZERO		0xff
#define LK_SF_STAMP		0x1000	/* after any firing: stamp the time for
					   the current thread (mt_rt_stamp: the
					   start of an MT_ARGMAP_ELAPSED interval) */
#define LK_SF_COUNTER		0x2000	/* INT3 on an instruction adding
					   cnt_inc to the counter at cnt_addr:
					   the probes fire with arg0 = cnt_inc,
					   arg1 = cnt_addr (not the registers) */
#define LK_SF_INTERNAL_BORN_TASK 0x4000	/* ipc_task_enable / ipc_thread_enable */
#define LK_SF_INTERNAL_BORN_THREAD 0x8000 /* entry: arg0 (rdi) was just created;
					   the blob numbers it (pid / tid in
					   creation order) */
#define LK_SF_INTERNAL_UINSTALL	0x10000	/* build_args_and_stack: the current
					   task's text is loaded, no user
					   instruction run: arm its user sites */
#define LK_SF_INTERNAL_UREMOVE	0x20000	/* machine_task_terminate: disarm
					   arg0's user sites (before FORGET) */
#define LK_SF_JIT		0x40000	/* JMP or JMPRET site of one probe
					   compiled by the host (jit/): after
					   the first firing the jmp goes to the
					   code described by the struct lk_jit
					   at `fast` (the blob fills in its
					   relocations first), disarmed as
					   LK_SF_FAST */
/* A context switch's entry (LK_CTL_VTIME): the current thread leaves the
   CPU, the thread in entry argument 2 (switch_context(old, cont, new)) or
   1 (stack_handoff(old, new)) takes it; the blob moves the virtual clock
   (vtimestamp) from one to the other. */
#define LK_SF_INTERNAL_SWITCH2	0x80000
#define LK_SF_INTERNAL_SWITCH1	0x100000
/* An int3 site of a kernel static probe (<sys/sdt.h>'s note): its raw
   arguments are the note's operands (struct lk_uarg, as a usdt site's),
   read from the kernel registers and memory at the trap (a safe load:
   an unreadable operand reads 0); `uargs` is the kernel VA of the
   `nuargs` operands, in the trampoline area. */
#define LK_SF_UARGS		0x200000

struct lk_site {
	uint64_t addr;			/* [h] kernel VA of the patched byte(s) */
	uint64_t ool;			/* [h] JMP: tramp entry; INT3: out-of-line copy */
	uint32_t kind;			/* [h] LK_SK_* */
	uint32_t flags;			/* [h] LK_SF_* */
	uint32_t probe;			/* [h] image probes[] index (LK_SF_FIRE) */
	uint32_t len;			/* [h] bytes patched region covers (orig) */
	uint8_t orig[8];		/* [h] original bytes (first len, max 8) */
	uint8_t patch[8];		/* [h] bytes written at addr (len of them) */
	uint32_t plen;			/* [h] bytes of patch[] written */
	uint32_t ret_imm;		/* [h] RET: imm16 of "ret imm16" */
	uint32_t func_off;		/* [h] RET: offset in its function (arg0) */
	uint32_t installed;		/* [b] 1 while patched */
	uint32_t rprobe;		/* [h] return probe when probe is the entry */
	uint32_t fast_aggid;		/* [h] LK_SF_FAST: the count() aggregation */
	uint64_t fast;			/* [h] LK_SF_FAST: its trampoline; the
					   incq's disp32 at fast + 4; LK_SF_JIT:
					   its struct lk_jit */
	uint32_t fast_armed;		/* [k] the jmp goes to `fast` now ([b]
					   disarms it at STOP); LK_JIT_BAD: a
					   relocation cannot be resolved, never */
	uint32_t probe2;		/* [h] LK_SF_FIRE2 */
	int32_t cfa_off;		/* [h] LK_SF_FRAME */
	int32_t rbp_off;		/* [h] LK_SF_RBP_SAVED */
	uint32_t nextra;		/* [h] LK_SF_FIRE2: more probes, at most
					   LK_SITE_EXTRA_MAX ... */
	uint8_t argreg[LK_SITE_NREGARGS];	/* [h] LK_SF_REGARGS */
	uint64_t extra;			/* [h] ... their uint32_t image probe
					   indices (kernel VA in the trampolines) */
	union {
		uint64_t cnt_addr;	/* [h] LK_SF_COUNTER */
		uint64_t uargs;		/* [h] LK_SF_UARGS */
	};
	union {
		int32_t cnt_inc;	/* [h] LK_SF_COUNTER */
		int32_t nuargs;		/* [h] LK_SF_UARGS */
	};
	uint32_t nargs;			/* [b] arguments its probes read (arg0
					   .. arg[nargs - 1]), the only ones a
					   firing fetches; set at INIT */
};
#define LK_SITE_EXTRA_MAX	16
#define LK_JIT_BAD		2

/*
 * A compiled probe's code in the trampoline area (LK_SF_JIT), written by
 * the host: this header, nrel relocations, then at code_off (from the
 * header) the bytes the site's jmp goes to.  Each relocation is a 4-byte
 * field at code + at (machtrace/jitabi.h: kind, arg, addend) that the
 * blob fills in before it points the jmp at the code; the host filled in
 * the fields it knows (the jmp to the general path).
 *
 * The code has ncopy copies, one per CPU of the session, copy i at
 * code_off + i * stride, the same bytes (each with its own jmp to the
 * general path); the blob relocates copy i to CPU i's state (its buffers,
 * aggregations, staging record, thread memo, current thread).  With one
 * copy the site's jmp goes to it; with more, to the host's stub at
 * disp_off ("push $table; jmp LK_VEC_JIT_DISPATCH"), whose table (8-byte
 * aligned, after the stub) holds LK_NCPU_MAX + 1 addresses: copy i's for
 * CPU i < ncopy, the general path's for the others and for a CPU number
 * beyond LK_NCPU_MAX (the last).  The dispatch (entry.S) keeps every
 * register and the flags and goes on to the address of its CPU; the copy
 * then turns interrupts off, and GNU Mach does not preempt kernel code,
 * so a copy runs on the CPU it belongs to.
 */
struct lk_jit_rel {
	uint32_t at;			/* [h] offset of the field from code */
	uint16_t kind, pad;		/* [h] MT_JR_* */
	uint32_t arg;			/* [h] */
	int32_t addend;			/* [h] */
};
struct lk_jit {
	uint32_t nrel;			/* [h] */
	uint32_t code_off;		/* [h] from this header */
	uint32_t code_len;		/* [h] */
	uint16_t ncopy, pad;		/* [h] copies of the code (>= 1) */
	uint32_t stride;		/* [h] bytes from one copy to the next */
	uint32_t disp_off;		/* [h] ncopy > 1: the stub, from this header */
	struct lk_jit_rel rel[];	/* [h] */
};
#define LK_JIT_STUB		16	/* the stub's bytes, before its table */
#define LK_FAST_INCQ_LEN	8	/* 48 ff 04 25 disp32 */

/* ---- user sites (usdt and pid providers) ----
 * An int3 on one instruction of a user task's text, written through the
 * physical page (the direct map), never through the user mapping.  The
 * host decides everything: which task (pid), the original byte, how the
 * handler emulates the displaced instruction (LK_UE_*), what the probe's
 * arguments are (LK_UF_*).  Several sites may share an address (probes
 * of one instruction, or the same VA in several tasks); the blob fires
 * those whose pid is the current task's and whose page is the one hit,
 * then emulates the instruction once. */
enum lk_uemul {
	LK_UE_NOP = 1,			/* nop, endbr64 (sdt.h's site): rip += len */
	LK_UE_PUSH,			/* push %reg: user store at rsp - 8 */
	LK_UE_POP,			/* pop %reg (never rsp): user load at rsp */
	LK_UE_MOV,			/* mov %reg2, %reg (64-bit) */
	LK_UE_MOV32,			/* mov %reg2d, %regd (zero-extends) */
	LK_UE_ADD_RSP,			/* add $imm, %rsp (flags as the CPU's) */
	LK_UE_SUB_RSP,			/* sub $imm, %rsp */
	LK_UE_RET,			/* ret [$imm]: user load of the return address */
};
enum lk_ufire {
	LK_UF_ENTRY = 1,		/* args: rdi, rsi, rdx, rcx, r8, r9, stack */
	LK_UF_RETURN,			/* arg0 = func_off, arg1 = rax */
	LK_UF_USDT,			/* args: args[0..nargs) */
};
/* A stapsdt argument ("-4@%edi", "8@-16(%rbp)", "4@$5", "8@sym(%rip)"):
   REG: register reg (DWARF number) >> shift; MEM: the |size| bytes at
   val + reg + idx * scale (LK_UA_NOREG: no such part); IMM: val; ADDR:
   that address itself (a kernel site's memory operand, lockstat's lock).
   The value is then sign- (size < 0) or zero-extended from |size| bytes. */
enum lk_uarg_kind { LK_UA_REG = 1, LK_UA_MEM, LK_UA_IMM, LK_UA_ADDR };
#define LK_UA_NOREG		0xff
#define LK_UARGS_MAX		10
struct lk_uarg {
	int8_t size;			/* [h] -8..8 */
	uint8_t kind;			/* [h] LK_UA_* */
	uint8_t reg, idx;		/* [h] DWARF register numbers or NOREG */
	uint8_t scale, shift;		/* [h] */
	uint8_t pad[2];
	int64_t val;			/* [h] */
};
enum lk_ustate {
	LK_US_IDLE = 0,			/* not written (task not loaded yet) */
	LK_US_ARMED,			/* int3 at pa */
	LK_US_DISARMED,			/* original byte back for good: tracing
					   stopped, or the emulation could not
					   touch the user stack (counted in
					   ctl->udisarmed) */
	LK_US_GONE,			/* original byte back, then the task
					   ended: its page may be reused */
};
struct lk_usite {
	uint64_t addr;			/* [h] user VA of the instruction */
	uint32_t pid;			/* [h] the task whose text it is */
	uint32_t probe;			/* [h] image probe index */
	uint32_t fire;			/* [h] LK_UF_* */
	uint32_t func_off;		/* [h] LK_UF_RETURN: the ret's offset */
	uint8_t emul, len, reg, reg2;	/* [h] LK_UE_*, insn length, registers */
	int32_t imm;			/* [h] ADD/SUB_RSP's imm, RET's imm16 */
	uint8_t orig, nargs;		/* [h] original first byte; USDT args */
	uint8_t pad[6];
	uint64_t pa;			/* [b] physical address while armed */
	volatile uint32_t state;	/* [b] LK_US_* */
	uint32_t pad2;
	struct lk_uarg args[LK_UARGS_MAX];	/* [h] LK_UF_USDT */
	uint8_t pad3[40];
};

/* ---- control page ---- */
#define LK_CTL_MAGIC		0x4c54434du	/* "MCTL" */

/* ctl->state, written by the blob */
enum lk_state {
	LK_ST_NONE = 0,
	LK_ST_WAITING,			/* in the boot hook, waiting for the host */
	LK_ST_READY,			/* runtime initialised, waiting for go */
	LK_ST_TRACING,			/* probes installed */
	LK_ST_ENDING,			/* kernel is rebooting; waiting for host */
	LK_ST_STOPPED,			/* END fired, text restored */
	LK_ST_FAILED,			/* see ctl->msg */
	LK_ST_DEADMAN,			/* host went silent: everything removed */
};

/* ctl->cmd, written by the host; the blob acknowledges in cmd_ack */
enum lk_cmd {
	LK_CMD_NONE = 0,
	LK_CMD_INIT,			/* description + image + sites are there */
	LK_CMD_GO,			/* fire BEGIN, install probes */
	LK_CMD_STOP,			/* fire END, remove probes */
	LK_CMD_RELEASE,			/* host done: let a rebooting kernel go */
	LK_CMD_SKIP,			/* no tracing: continue boot */
};

/* ctl->tick_src: what fires tick-N / profile-N */
enum lk_tick_src { LK_TS_CLOCK = 0, LK_TS_LAPIC };
/* ctl->ticks[].kind: tick-N fires on one CPU (0), profile-N on every CPU */
enum lk_tick_kind { LK_TICK_ONE = 0, LK_TICK_PROFILE };
/* ctl->apic_why: why the local APIC timer is not used (LK_TS_CLOCK) */
enum lk_apic_why {
	LK_AW_OK = 0,
	LK_AW_NOT_ASKED,		/* the host did not ask (no ticks, or off) */
	LK_AW_DISABLED,			/* IA32_APIC_BASE: APIC off, or x2APIC mode */
	LK_AW_NO_MAPPING,		/* no 4 KiB page table entry to borrow */
	LK_AW_NO_APIC,			/* its registers read as no APIC */
	LK_AW_NO_VECTOR,		/* no free IDT vector */
	LK_AW_NO_COUNT,			/* the timer does not count */
};

#define LK_KFN_MAX		24
#define LK_MAX_TICKS		32	/* tick/profile probes in a session */
/* dtrace-utils' x86-64 uregs[] indices, which the kernel description maps
   to the saved user state (0..20 in Linux's pt_regs order, then the
   segment registers and the trap number) */
enum lk_ureg {
	LK_UREG_R15 = 0, LK_UREG_R14, LK_UREG_R13, LK_UREG_R12, LK_UREG_RBP,
	LK_UREG_RBX, LK_UREG_R11, LK_UREG_R10, LK_UREG_R9, LK_UREG_R8,
	LK_UREG_RAX, LK_UREG_RCX, LK_UREG_RDX, LK_UREG_RSI, LK_UREG_RDI,
	LK_UREG_ERR, LK_UREG_RIP, LK_UREG_CS, LK_UREG_RFL, LK_UREG_RSP,
	LK_UREG_SS, LK_UREG_DS, LK_UREG_ES, LK_UREG_FS, LK_UREG_GS,
	LK_UREG_TRAPNO, LK_UREG_N
};
#define LK_UREG_NONE		0xffffu

enum lk_target_state { LK_TGT_UNSEEN = 0, LK_TGT_RUNNING, LK_TGT_EXITED };

/* Kernel description: addresses and struct offsets (from symbols, DWARF). */
struct lk_kdesc {
	uint64_t text_start, text_end;	/* [h] [_start, etext) */
	uint64_t idt;			/* [h] &idt[0], the boot CPU's IDT (0:
					   the blob hooks its own CPU's, sidt) */
	uint64_t percpu_array;		/* [h] &percpu_array[0] */
	uint64_t percpu_stride;		/* [h] sizeof(struct percpu) */
	uint32_t off_active_thread;	/* [h] percpu.active_thread */
	uint32_t off_thread_task;	/* [h] thread.task */
	uint32_t off_task_name;		/* [h] task.name (char[]) */
	uint32_t task_name_size;	/* [h] */
	uint32_t off_task_map;		/* [h] task.map (0: no user memory) */
	uint32_t off_map_pmap;		/* [h] vm_map.pmap */
	uint64_t directmap_end;		/* [h] physical end of the direct map */
	uint64_t tsc_hz;		/* [h] guest TSC rate (host TSC under TCG) */
	uint64_t boot_walltime_ns;	/* [h] before GO: host wall time at tsc 0 */
	uint64_t kernel_map_base;	/* [h] */
	/* [h] [lo, hi) of the interrupt dispatch code (`interrupt`,
	   `all_intrs`; 0, 0 if unknown), which leaves rbp alone: in a profile
	   probe the first frame returning into it holds the interrupted rbp */
	uint64_t intr_code[2][2];
	uint64_t panic_fn;		/* [h] Panic(file, line, func, fmt, ...), the
					   panic() action; 0: an int3 (KDB) */
	/* pid/tid/execname (0 when the kernel's DWARF lacks them): the
	   address of the kernel_task variable, the task's thread queue and
	   a thread's link in it, creation_time (time_value64_t) of both,
	   the thread's name (char[]) and its continuation (swap_func) */
	uint64_t kernel_task;		/* [h] &kernel_task */
	uint32_t off_task_threads;	/* [h] task.thread_list (queue head) */
	uint32_t off_thread_link;	/* [h] thread.thread_list (chain) */
	uint32_t off_task_ctime;	/* [h] task.creation_time */
	uint32_t off_thread_ctime;	/* [h] thread.creation_time */
	uint32_t off_thread_name;	/* [h] thread.name */
	uint32_t thread_name_size;	/* [h] */
	uint32_t off_thread_cont;	/* [h] thread.swap_func */
	uint32_t nkfn;			/* [h] kfn[] used */
	/* [h] kernel threads' start functions and continuations, which
	   name a kernel thread the kernel gave no name (reaper_thread) */
	struct { uint64_t addr; char name[24]; } kfn[LK_KFN_MAX];
	/* user memory and registers (runtime/kernel/kuser.c; 0 when the
	   kernel's DWARF lacks them: no user memory, uregs[] errors):
	   the pmap's top-level table (a kernel VA), the thread's pcb and
	   the user registers saved in it at the trap, each of dtrace's
	   x86-64 uregs[] slots 0..LK_UREG_N-1 at iss_off[] in the saved
	   state (LK_UREG_NONE: the kernel saves no such register) */
	uint32_t off_pmap_l4;		/* [h] pmap.l4base */
	uint32_t off_thread_pcb;	/* [h] thread.pcb */
	uint32_t off_pcb_iss;		/* [h] pcb.iss (struct i386_saved_state) */
	uint16_t iss_off[LK_UREG_N];	/* [h] */
	uint16_t pad_k;
	/* every task (a VM's tasks existed long before GO): the queue head
	   &default_pset.tasks and a task's link in it (task.pset_tasks);
	   0 when the kernel's DWARF lacks them */
	uint32_t off_task_pset_link;	/* [h] */
	uint64_t all_tasks;		/* [h] &default_pset.tasks */
	/* the kernel's local APIC pointer (i386/i386/apic.c `lapic`: its
	   mapping of the APIC, or &dummy_lapic when it never mapped one);
	   0 when the kernel has no such symbols */
	uint64_t lapic_var;		/* [h] &lapic */
	uint64_t dummy_lapic;		/* [h] &dummy_lapic */
	/* [h] the return address of Thread_continue's call of a thread's
	   continuation (stack_attach starts every kernel stack there, rbp
	   zeroed; the call never returns): a stack walk ends before it.
	   0: unknown */
	uint64_t stack_start_ret;
	/* the kernel's CPU numbers: an SMP kernel's cpu_id_lut (int[256],
	   by initial APIC ID, as its cpu_number_slow() reads it) and NCPUS
	   (percpu_array's length); 0 and 1 for a uniprocessor kernel */
	uint64_t cpu_id_lut;		/* [h] &cpu_id_lut[0] */
	uint32_t ncpus;			/* [h] */
	/* every CPU's IDT, where the blob hooks vector 3: the boot CPU's
	   `idt` (above); an SMP kernel's other CPUs' at mp_desc_table[cpu] +
	   off_mpdesc_idt (struct mp_desc_table *[NCPUS], 0 until that CPU
	   started); and idt_inittab, the table (struct idt_init_entry,
	   iie_size bytes each, ending at a 0 entrypoint) every CPU started
	   later fills its IDT from.  0: unknown (the blob then hooks the
	   IDT of the CPU it runs on, and no table) */
	uint32_t off_mpdesc_idt;	/* [h] */
	uint64_t mp_desc_table;		/* [h] &mp_desc_table[0] */
	uint64_t idt_inittab;		/* [h] &idt_inittab[0] */
	uint16_t iie_size;		/* [h] sizeof(struct idt_init_entry) */
	uint8_t iie_off_vector;		/* [h] its `vector` (16 bits) */
	uint8_t iie_off_type;		/* [h] its `type` (16 bits) */
	uint32_t pad_d;
};

/* lk_ctl.flags */
#define LK_CTL_STATS		0x1	/* count fires and fire_tsc (two rdtscs
					   a firing: MACHTRACE_LIVE_STATS) */
#define LK_CTL_VTIME		0x2	/* the image reads vtimestamp: keep each
					   thread's on-CPU time, less the time in
					   probe context (two rdtscs a firing) */

struct lk_ctl {
	uint32_t magic, version;	/* [b] at the boot hook: LK_CTL_MAGIC,
					   LK_BLOB_VERSION */
	volatile uint32_t state;	/* [b] LK_ST_* */
	volatile uint32_t cmd;		/* [H] LK_CMD_* */
	volatile uint32_t cmd_ack;	/* [b] last cmd done */
	volatile uint32_t error;	/* [b] nonzero with msg */
	volatile uint64_t heartbeat;	/* [H] increments while it is alive */
	uint64_t deadman_ns;		/* [h] host silence tolerated (0: none) */
	uint64_t area_size;		/* [h] runtime area bytes at LK_AREA_OFF */
	uint32_t nsites, nprobes;	/* [h] lk_site[] used; image probes */
	uint64_t image_off;		/* [h] image bytes inside the area (from area) */
	struct lk_kdesc k;		/* [h] */
	/* tick/profile probes: [h] image probe index, kind (LK_TICK_*) and
	   interval, [b] the next due TSC (set at GO, advanced by its tick;
	   CPU 0's for a profile probe, which fires on every CPU) */
	uint32_t nticks;		/* [h] */
	uint32_t flags;			/* [h] LK_CTL_* */
	struct { uint32_t probe, kind; uint64_t interval_ns, next_tsc; } ticks[LK_MAX_TICKS];
	/* blob statistics (the host reads them) */
	volatile uint64_t ticks_seen;	/* [b] */
	volatile uint64_t fires;	/* [k] with LK_CTL_STATS */
	volatile uint64_t int3_hits;	/* [k] */
	volatile uint64_t int3_foreign;	/* [k] int3s that were not ours */
	volatile uint64_t patched;	/* [b] */
	volatile uint64_t tsc_go;	/* [b] tsc at GO */
	volatile uint64_t fire_tsc;	/* [k] TSC ticks spent in mt_rt_probe,
					   with LK_CTL_STATS */
	volatile uint64_t tsc_now;	/* [b] its TSC, stored while it waits
					   for a command (the host pairs it with
					   its wall clock before GO) */
	/* -c / -p: the target task's pid ([h], -1: none) and what the
	   blob saw of it ([b]/[k] LK_TGT_*): created (or kernel_task at
	   GO), then destroyed (machine_task_terminate) */
	int32_t target_pid;
	volatile uint32_t target_state;
	uint32_t nusites, pad3;		/* [h] lk_usite[] used */
	volatile uint64_t ufires;	/* [k] user int3s of our sites */
	volatile uint64_t udisarmed;	/* [k] user sites disarmed because the
					   emulation could not reach the user
					   stack (the host warns) */
	volatile uint64_t ulost;	/* [b] user sites never armed: their
					   text page was not present */
	/* attach to a running kernel (machtrace --vm): the blob idles
	   resident, nothing patched, since its boot hook was answered
	   LK_CMD_SKIP; the host writes everything as at boot, then puts the
	   tick site (tick_site) in through QEMU's gdbstub, which invalidates
	   translated code.  INIT and GO then arrive in lk_tick.  Before the
	   sites go in the blob rewrites the first tramp_used trampoline bytes
	   (a guest write invalidates what an earlier session left translated
	   at those addresses; the host's writes through the RAM file do not) */
	uint32_t attach;		/* [h] 1: INIT/GO through the tick hook */
	uint32_t tick_site;		/* [h] the LK_SF_INTERNAL_TICK site's index */
	uint64_t tramp_used;		/* [h] trampoline bytes written */
	volatile uint64_t sessions;	/* [b] attach sessions started (GO) */
	/* tick/profile probes from the local APIC timer (runtime/x86_64/
	   apic.c): the host asks, the blob says at GO whether it could */
	uint32_t tick_lapic;		/* [h] 1: use the local APIC timer */
	volatile uint32_t tick_src;	/* [b] LK_TS_* in use since GO */
	volatile uint32_t apic_why;	/* [b] LK_AW_*: why not the APIC */
	volatile uint32_t apic_vec;	/* [b] the IDT vector it took */
	volatile uint64_t apic_hz;	/* [b] its timer's rate (calibrated) */
	volatile uint64_t apic_ints;	/* [k] timer interrupts taken */
	/* the host's no-progress watchdog: clock interrupts that came in
	   user mode or at a kernel pc outside the idle loop [idle_lo,
	   idle_hi) (machine_idle, where the CPU halts), and the kernel's
	   count of the RPCs it served (kernel_task's messages_received at
	   off_krpcs, 0: unknown), read at each clock interrupt */
	uint64_t idle_lo, idle_hi;	/* [h] */
	uint32_t off_krpcs, pad4;	/* [h] */
	volatile uint64_t busy_ticks;	/* [b] */
	volatile uint64_t krpcs;	/* [b] */
	/* cross-calls (xcall.c): the blob's IPI vector (0: one CPU, none),
	   the CPUs that answer it, the syncs sent and the CPUs not waited
	   for past their time */
	volatile uint32_t xcall_vec;	/* [b] */
	volatile uint32_t xcall_cpus;	/* [b] */
	volatile uint64_t xcalls;	/* [b] */
	volatile uint64_t xcall_timeouts; /* [b] */
	/* [k] firings each CPU ran through the general path (the
	   interpreter), not compiled code or the counting fast path */
	volatile uint64_t gen_fires[LK_NCPU_MAX];
	/* [k] text pokes begun while another CPU's was under way (patch.c
	   lets one CPU patch at a time: 0; the text check reports it) */
	volatile uint64_t poke_overlaps;
	char msg[256];			/* [b] why FAILED */
};

_Static_assert(LK_SITES_MAX * sizeof(struct lk_site) <= LK_TRAMP_OFF - LK_SITES_OFF,
	       "the sites must not reach the trampolines");
_Static_assert(sizeof(struct lk_ctl) <= 4096, "the control page is one page");
_Static_assert(sizeof(struct lk_blob_hdr) == 232, "lk_blob_hdr layout");
_Static_assert(sizeof(struct lk_site) == 128, "lk_site layout");
_Static_assert(sizeof(struct lk_jit_rel) == 16 && sizeof(struct lk_jit) == 24,
	       "lk_jit layout");
_Static_assert(sizeof(struct lk_usite) == 256, "lk_usite layout");
_Static_assert(LK_USITES_OFF + LK_USITES_MAX * sizeof(struct lk_usite) <= LK_AREA_OFF &&
	       LK_TRAMP_OFF + LK_TRAMP_MAX <= LK_USITES_OFF,
	       "the user sites fit between the trampolines and the area");
_Static_assert(sizeof(struct lk_kdesc) == 320 + 32 * LK_KFN_MAX, "lk_kdesc layout");
_Static_assert(sizeof(struct lk_ctl) == 1712 + 32 * LK_KFN_MAX, "lk_ctl layout");
_Static_assert(LK_VEC_FBT_ENTRY == sizeof(struct lk_blob_hdr),
	       "the entry vectors follow the blob header");

#endif /* __ASSEMBLER__ */
#endif /* MT_LKABI_H */
