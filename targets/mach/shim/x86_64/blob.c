/*
 * The machtrace runtime blob (built from runtime/kernel/, layout in
 * include/machtrace/lkabi.h).  The blob is linked at KERNEL_MAP_BASE +
 * load_pa, inside the reserved region.  The shim copies it there, zeroes
 * its bss, and patches the entry of the kernel function the header names
 * (hook_name, a plain prologue) with a jmp to the blob's entry.  The
 * displaced prologue + a jmp back go to the header's hook_cont, the
 * original bytes to hook_orig, so that the blob can continue the hooked
 * function and restore the kernel text byte for byte, together with the
 * shim's own biosmem_register_boot_data patch (rsv_hook_*).
 */
#include "targets/mach/shim/shim.h"
#include "machtrace/lkabi.h"

int blob_is(uint32_t start, uint32_t end)
{
	return end - start >= sizeof(struct lk_blob_hdr) &&
	       *(const uint32_t *)start == LK_BLOB_MAGIC;
}

void blob_load(const struct kimage *k, uint32_t start, uint32_t end,
	       uint64_t resv_start, uint64_t resv_end)
{
	const struct lk_blob_hdr *src = (const struct lk_blob_hdr *)start;
	struct lk_blob_hdr *h;
	uint64_t target, hdr_va;

	if (src->version != LK_BLOB_VERSION)
		die("blob: wrong version (rebuild machtrace)");
	if (src->filesz > end - start || src->filesz > src->memsz ||
	    src->load_pa < resv_start || src->load_pa + src->memsz > resv_end)
		die("blob: does not fit the reserved region");
	h = (struct lk_blob_hdr *)(uint32_t)src->load_pa;
	memcpy(h, src, (uint32_t)src->filesz);
	memset((char *)h + src->filesz, 0, (uint32_t)(src->memsz - src->filesz));
	h->hook_name[sizeof h->hook_name - 1] = 0;
	target = kimage_lookup(k, h->hook_name);
	if (!target)
		die("blob: the kernel has no symbol for the boot hook");
	hdr_va = KERNEL_MAP_BASE + h->load_pa;
	h->hook_va = target;
	h->hook_len = (uint32_t)hook_entry(k, target, h->entry, h->hook_cont,
					   hdr_va + __builtin_offsetof(struct lk_blob_hdr, hook_cont),
					   h->hook_orig);
	h->resv_pa = resv_start;
	h->resv_size = resv_end - resv_start;
	h->rsv_hook_va = reserve_patch.va;
	h->rsv_hook_len = reserve_patch.len;
	memcpy(h->rsv_hook_orig, reserve_patch.orig, sizeof h->rsv_hook_orig);
	con_puts("shim: runtime blob at ");
	con_hex(h->load_pa);
	con_puts(", boot hook ");
	con_puts(h->hook_name);
	con_puts("\n");
}
