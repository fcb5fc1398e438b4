/*
 * DWARF location expressions compiled to D (dwloc.c).  A variable's
 * location at one instruction becomes a D expression over the probe's
 * saved registers (regs[], the kernel target's numbering: lk_dwarf_regs
 * below) whose loads are D loads, hence safe loads in probe context.
 */
#ifndef TARGET_MACH_DWLOC_H
#define TARGET_MACH_DWLOC_H

#include <stddef.h>
#include <stdint.h>

/* One operation, as libdw's Dwarf_Op: atom (DW_OP_*), operands. */
struct dwloc_op {
	uint8_t atom;
	uint64_t number, number2;
	const uint8_t *block;		/* DW_OP_implicit_value: number bytes */
};

/* The frame at the site: CFA = register cfa_reg (DWARF number) + cfa_off
   (.eh_frame); the frame base (DW_AT_frame_base), NULL: call_frame_cfa. */
struct dwloc_frame {
	int cfa_reg;
	int64_t cfa_off;
	const struct dwloc_op *fb;
	size_t nfb;
};

#define DWLOC_ADDR	1	/* text is the variable's address */
#define DWLOC_VALUE	2	/* text is the variable's value */
#define DWLOC_TEXT	512

struct dwloc_res {
	int kind;
	char text[DWLOC_TEXT];
};

/*
 * Compile ops (n of them; 0: optimized out) for a variable of size bytes
 * (a composite of DW_OP_pieces fits in 8).  0, or -1 with a message in err
 * naming the operation that cannot be compiled.
 */
int dwloc_compile(const struct dwloc_op *ops, size_t n, const struct dwloc_frame *fr,
		  uint64_t size, struct dwloc_res *res, char *err, size_t errlen);

/*
 * kimg_locals.c: local variable or parameter name of the code at pc (the
 * innermost scope declaring it, inlined copies included): its C type in
 * ctype and its location there in *res.  0, or -1 with err ("optimized
 * out", "no local variable or parameter NAME", an operation dwloc lacks).
 */
struct mt_kimg;
int mt_kimg_local(struct mt_kimg *k, uint64_t pc, const char *name, char *ctype,
		  size_t ctlen, struct dwloc_res *res, char *err, size_t errlen);
/*
 * kimg_locals.c: the parameters of inlined copy `in` at pc as operands
 * one read gives (out[i] for the parameter named names[i], n of them):
 * a register, memory at a register plus an offset (the frame base
 * through pc's CFA rule included), or a constant; kind 0 where it has
 * none of these there (optimized out, a computed value, an entry value).
 * size: its type's bytes, negative when signed.  -1 without DWARF.
 */
enum { DWOP_NONE, DWOP_REG, DWOP_MEM, DWOP_IMM };
struct dwloc_operand {
	int kind, reg, size;
	int64_t val;		/* MEM: the offset; IMM: the value */
};
struct mt_kinline;
int mt_kimg_inline_args(struct mt_kimg *k, const struct mt_kinline *in, uint64_t pc,
			const char *const *names, int n, struct dwloc_operand *out);
/* The names of the local variables and parameters declared in the scopes
   around pc (innermost first, each once), located there or not: a
   malloc'd array of malloc'd strings in *names; their count, -1 if none
   can be read. */
int mt_kimg_local_names(struct mt_kimg *k, uint64_t pc, char ***names);

/*
 * kimg_lines.c: the first row that begins a statement in each block of a
 * line (consecutive rows of one file and line) at an address in [lo, hi)
 * (hi 0: every CU's), with its file as the source tree names it
 * ("vm/vm_fault.c"); fn's non-zero ends the walk and is returned.  -1
 * without DWARF.
 */
typedef int (*mt_kline_fn)(void *arg, const char *file, int line, uint64_t addr);
int mt_kimg_lines(struct mt_kimg *k, uint64_t lo, uint64_t hi, mt_kline_fn fn, void *arg);

#endif /* TARGET_MACH_DWLOC_H */
