/*
 * The reservation hook.  GNU Mach's biosmem takes the largest gap between
 * its boot data as the boot heap and ignores "reserved" memory map entries
 * for that choice, so a reserved region alone is not safe.  Every biosmem
 * bootstrap (biosmem_bootstrap until 2026, biosmem_mb1_bootstrap and
 * biosmem_mb2_bootstrap since multiboot2) comes after the boot code has
 * registered the kernel, the boot information and the modules with
 *
 *      biosmem_register_boot_data(start, end, temporary)
 *
 * so the shim hooks that function, whichever bootstrap the kernel has:
 * before jumping to the kernel it patches its entry with
 *
 *      jmp rel32 reserve_tramp
 *
 * reserve_tramp (shim.S, 64-bit code) runs on the kernel's boot page tables,
 * which map physical [0, 2 GiB) at KERNEL_MAP_BASE, writable, so the shim's
 * own image is reachable at KERNEL_MAP_BASE + its physical address, within
 * rel32 of the kernel text.  On the first call it puts the five original
 * bytes back, calls
 *
 *      biosmem_register_boot_data(start, end, FALSE)
 *
 * (permanent boot data: never part of the heap, never freed) and jumps to
 * the function for the kernel's own call.  That first call comes before
 * the kernel allocates anything, so the shim's memory is still intact, and
 * no kernel instruction is ever moved.
 */
#include "targets/mach/shim/shim.h"
#include "prologue.h"

extern char reserve_tramp[], reserve_orig[];
extern uint64_t reserve_args[3];        /* start, end, &biosmem_register_boot_data */

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
	int len;

	if (!code)
		die("hook: function is not in a loaded segment");
	len = shim_prologue_len(code);
	if (!len)
		die("hook: unexpected instruction in a hooked prologue");
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
	uint64_t reg = kimage_lookup(k, SHIM_RESERVE_FUNC);
	uint8_t *code = reg ? kimage_va_to_ptr(k, reg) : 0;

	if (!code)
		die("reserve: the kernel has no biosmem_register_boot_data: "
		    "it cannot keep the runtime's memory (listing probes with -l still works)");
	reserve_args[0] = start;
	reserve_args[1] = end;
	reserve_args[2] = reg;
	memcpy(reserve_orig, code, 5);
	memcpy(reserve_patch.orig, code, 5);
	reserve_patch.va = reg;
	reserve_patch.len = 5;
	code[0] = 0xe9;
	*(int32_t *)(code + 1) = (int32_t)(kva_of_shim(reserve_tramp) - (reg + 5));
}
