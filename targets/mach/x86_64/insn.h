/*
 * x86-64 instruction helpers over Capstone, the one place the GNU Mach
 * target opens a decoder and classifies instructions: the image reader
 * (decode.c) and the live side (reloc.c, retrange.c, sites.c) share them.
 */
#ifndef MT_X86_INSN_H
#define MT_X86_INSN_H
#include <capstone/capstone.h>
#include <stdint.h>

/* A 64-bit decoder with instruction details on; 0, or -1 if it cannot. */
int x86_open(csh *cs);
/* in belongs to Capstone group g (CS_GRP_*). */
int x86_in_group(const cs_insn *in, int g);
/* Any control transfer: jmp, jcc, call, ret, int, iret, loop/jrcxz. */
int x86_is_branch(const cs_insn *in);
/* Has a rip-relative memory operand. */
int x86_rip_relative(const cs_insn *in);
/* Target of a direct jmp/jcc/call, 0 if in is none. */
uint64_t x86_branch_target(const cs_insn *in);

/* DWARF number (0-15) and width (bytes: 8 or 4) of a Capstone register;
   -1 for any other register (8- and 16-bit ones included). */
int x86_dwarf_reg(x86_reg r, int *width);

#endif
