/*
 * The reservation hook.  GNU Mach's biosmem takes the largest gap between
 * its boot data as the boot heap and ignores "reserved" memory map entries
 * for that choice, so a reserved region alone is not safe.  Before jumping
 * to the kernel, the shim patches the entry of biosmem_bootstrap with
 *
 *      jmp rel32 reserve_tramp        (padded with int3 to whole instructions)
 *
 * reserve_tramp (shim.S, 64-bit code) runs on the kernel's boot page tables,
 * which map physical [0, 2 GiB) at KERNEL_MAP_BASE, so the shim's own image
 * is reachable at KERNEL_MAP_BASE + its physical address, within rel32 of
 * the kernel text.  It calls
 *
 *      biosmem_register_boot_data(start, end, FALSE)
 *
 * (permanent boot data: never part of the heap, never freed), then executes
 * the displaced prologue instructions and jumps back behind them.  It runs
 * once, before the kernel allocates anything, so the shim's memory is still
 * intact.  The displaced instructions must be position independent: only
 * the plain prologue instructions below are accepted.
 */
#include "../shim.h"

#define DISPLACED_MAX 32

extern char reserve_tramp[], reserve_displaced[];
extern uint64_t reserve_args[3];        /* start, end, &biosmem_register_boot_data */

/* Length of a position-independent prologue instruction at p, 0 if unknown. */
static int prologue_insn_len(const uint8_t *p)
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

static uint64_t kva_of_shim(const void *p)
{
	return KERNEL_MAP_BASE + (uint32_t)p;
}

/*
 * Patch the entry of the kernel function at `target` (a plain prologue)
 * with "jmp rel32 tramp_va".  The displaced whole instructions are copied
 * to disp (executed at disp_va), followed by a jmp back behind them; the
 * original bytes go to orig (32 bytes).  Returns the displaced length.
 */
int hook_entry(const struct kimage *k, uint64_t target, uint64_t tramp_va,
	       uint8_t *disp, uint64_t disp_va, uint8_t *orig)
{
	uint8_t *code = kimage_va_to_ptr(k, target);
	int len = 0, n;

	if (!code)
		die("hook: function is not in a loaded segment");
	while (len < 5) {
		n = prologue_insn_len(code + len);
		if (!n)
			die("hook: unexpected instruction in a hooked prologue");
		len += n;
	}
	if (len + 5 > DISPLACED_MAX)
		die("hook: prologue too long");
	memcpy(orig, code, (uint32_t)len);
	memcpy(disp, code, (uint32_t)len);
	disp[len] = 0xe9;
	*(int32_t *)(disp + len + 1) = (int32_t)((target + len) - (disp_va + len + 5));
	code[0] = 0xe9;
	*(int32_t *)(code + 1) = (int32_t)(tramp_va - (target + 5));
	for (int i = 5; i < len; i++)
		code[i] = 0xcc;
	return len;
}

struct hook_patch reserve_patch;

void hook_reserve(const struct kimage *k, uint64_t start, uint64_t end)
{
	uint64_t target = kimage_lookup(k, "biosmem_bootstrap");
	uint64_t reg = kimage_lookup(k, "biosmem_register_boot_data");
	uint8_t *disp = (uint8_t *)reserve_displaced;

	if (!target || !reg)
		die("reserve: kernel has no biosmem_bootstrap/biosmem_register_boot_data symbol");
	reserve_args[0] = start;
	reserve_args[1] = end;
	reserve_args[2] = reg;
	reserve_patch.va = target;
	reserve_patch.len = (uint32_t)hook_entry(k, target, kva_of_shim(reserve_tramp),
						 disp, kva_of_shim(disp), reserve_patch.orig);
}
