/*
 * The prologue instructions the shim displaces when it hooks a kernel
 * function's entry (hook_entry): only these position-independent ones,
 * so that the copy runs anywhere.  Shared with the host (targets/mach/
 * image/bootcheck.c), which checks a kernel against the same rule before
 * booting it.
 */
#ifndef SHIM_PROLOGUE_H
#define SHIM_PROLOGUE_H

#include <stdint.h>

#define SHIM_DISPLACED_MAX 32

/* The function whose first call the shim hooks to reserve its region. */
#define SHIM_RESERVE_FUNC "biosmem_register_boot_data"

/* Length of a position-independent prologue instruction at p, 0 if unknown. */
static inline int shim_prologue_insn_len(const uint8_t *p)
{
	if (p[0] >= 0x50 && p[0] <= 0x57)                       /* push %reg */
		return 1;
	if (p[0] == 0x41 && p[1] >= 0x50 && p[1] <= 0x57)       /* push %r8-15 */
		return 2;
	if (p[0] == 0x48 && p[1] == 0x89 && p[2] == 0xe5)       /* mov %rsp,%rbp */
		return 3;
	if (p[0] == 0x48 && p[1] == 0x83 && p[2] == 0xec)       /* sub $imm8,%rsp */
		return 4;
	if (p[0] == 0x48 && p[1] == 0x81 && p[2] == 0xec)       /* sub $imm32,%rsp */
		return 7;
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) /* endbr64 */
		return 4;
	return 0;
}

/*
 * Whole instructions covering a 5-byte jmp at code (which has at least
 * SHIM_DISPLACED_MAX readable bytes): their length, 0 if an instruction
 * is not one of the above or the run is too long for the copy and its jmp.
 */
static inline int shim_prologue_len(const uint8_t *code)
{
	int len = 0, n;

	while (len < 5) {
		n = shim_prologue_insn_len(code + len);
		if (!n)
			return 0;
		len += n;
	}
	return len + 5 <= SHIM_DISPLACED_MAX ? len : 0;
}

#endif
