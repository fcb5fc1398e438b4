/*
 * The probe compiler: from a verified enabling image to x86-64 code for
 * one probe, run instead of the interpreter at the probe's site (the GNU
 * Mach target arms it in the blob, runtime/x86_64/jitarm.c).  A probe
 * any of whose clauses uses something the compiler does not translate
 * keeps the interpreter (mt_jit_probe returns 0 and says why); the
 * interpreter stays the reference.
 *
 * What the code may do is checked after it is emitted (mt_jit_check):
 * bounded (forward jumps only), no store outside the runtime's state
 * area and its own stack frame, calls only to the runtime's helpers.
 *
 *   jit/dif.c        DIF bytecode -> x86-64 (predicates, values)
 *   jit/probe.c      the probe: frame, guards, clauses, actions
 *   jit/llq.c        llquantize()'s bin from constants per magnitude
 *   jit/check.c      the emitted code's checker (Capstone)
 *   jit/x86_64/emit.c  instruction encodings
 */
#ifndef MT_JIT_H
#define MT_JIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "machtrace/abi.h"
#include "jit/x86_64/emit.h"

/* Where a firing's arguments are. */
enum jit_site {
	JIT_SITE_ENTRY = 1,		/* a function's entry: rdi, rsi, rdx, rcx,
					   r8, r9 (arg6.. on the stack: not
					   compiled) */
	JIT_SITE_RETURN,		/* a ret: arg0 = func_off, arg1 = rax */
	JIT_SITE_HOST,			/* a host function (unit tests):
					   uint64_t f(const uint64_t *args) */
	JIT_SITE_LOCAL,			/* a probe of the local target (user
					   mode, SysV): int f(const uint64_t
					   *args), args[0..9]; 0: it ran, else
					   the interpreter must (the guards) */
};

struct jit_opts {
	enum jit_site site;
	uint32_t func_off;		/* JIT_SITE_RETURN */
	/* JIT_SITE_ENTRY at an instruction whose raw arguments are the
	   function's variables (an SDT site): raw argument i is DWARF
	   x86-64 register regarg[i] (0-15, not rsp), JIT_REG_CURTHREAD or
	   JIT_REG_ZERO for i < nregargs, 0 beyond; nregargs 0: rdi, rsi,
	   rdx, rcx, r8, r9 */
	uint8_t nregargs, regarg[4];
	/* JIT_SITE_ENTRY at a counter's increment (an SDT site): raw
	   arguments 0 and 1 are these constants (the increment and the
	   counter's address), the others 0 */
	int counter;
	uint64_t cnt_args[2];
	/* more probes the site fires, after the one compiled, in this
	   order (a site two or three probes share: the general path's
	   order), each with its own firing (timestamp, nfirings) */
	uint32_t nalso, also[2];
};
#define JIT_REG_CURTHREAD	0xfe
#define JIT_REG_ZERO		0xff

struct jit_code {
	struct jit_buf b;		/* code and relocations (MT_JR_*, and
					   JIT_JR_FALLBACK: the jmp to the
					   general path) */
};

/* The largest record (header included) compiled code writes: the
   checker allows stores at r11 plus less than this. */
#define JIT_MAX_RECORD		4096

/* The host-resolved relocation: jmp rel32 to the site's general path. */
#define JIT_JR_FALLBACK		0xfff0

/*
 * Compile probe pi of img for a site.  1: out holds the code (the stub
 * ends where the site's continuation follows: the displaced
 * instructions for an entry, after which the caller puts them; a
 * return's stub ends with its ret); 0: not compiled, why says what;
 * -1: out of memory.
 */
int mt_jit_probe(const struct mt_image *img, uint32_t pi, const struct jit_opts *o,
		 struct jit_code *out, char *why, size_t whylen);
/* One DIFO as a host function uint64_t f(const uint64_t *args) (the
   unit tests compare it with the interpreter); same results. */
int mt_jit_difo_host(const struct mt_image *img, uint32_t difo1, struct jit_code *out,
		     char *why, size_t whylen);
void mt_jit_free(struct jit_code *c);

/*
 * Probe pi's code for a target's site at addr, as the target plans it:
 * NULL (the interpreter runs the probe) when MACHTRACE_NOJIT is set, when
 * nojit (not NULL) says why the target cannot run compiled code, when
 * the compiler does not translate a clause or the checker refuses the
 * code.  With MACHTRACE_JIT_SHOW (-S), says which on stderr and shows
 * the code; MACHTRACE_JIT_STATS=FILE appends which to FILE.  Free with
 * mt_jit_free() and free().
 */
struct jit_code *mt_jit_plan(const struct mt_image *img, uint32_t pi, const struct jit_opts *o,
			     uint64_t addr, const char *nojit);
/* A planned probe's code the target could not place after all (why):
   said as mt_jit_plan() says an interpreted probe. */
void mt_jit_unplaced(const struct mt_image *img, uint32_t pi, uint64_t addr, const char *why);

/* Check emitted code (jit/check.c): 0, or -1 and why. */
int mt_jit_check(const struct jit_code *c, char *why, size_t whylen);
/* Disassemble into f (Capstone), one instruction a line, relocations named. */
void mt_jit_disasm(const struct jit_code *c, uint64_t va, FILE *f);

#endif
