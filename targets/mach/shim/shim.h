/* Internal interfaces of the 32-bit multiboot shim. */
#ifndef SHIM_H
#define SHIM_H

#include <stdint.h>
#include "elf64.h"

/* GNU Mach x86_64: kernel VA of a direct-mapped physical address. */
#define KERNEL_MAP_BASE 0xffffffff80000000ull

/* lib.c: serial console (COM1) and small string helpers */
void con_init(void);
void con_puts(const char *s);
void con_hex(uint64_t v);
void die(const char *why) __attribute__((noreturn));
void *memcpy(void *d, const void *s, uint32_t n);
void *memset(void *d, int c, uint32_t n);
uint32_t strlen(const char *s);
int strneq(const char *a, const char *b, uint32_t n);
const char *find_word(const char *s, const char *prefix);
const char *parse_u64(const char *s, uint64_t *v);

/* kernel.c: the ELF64 image given as module 0 */
struct kimage {
	const Elf64_Ehdr *eh;
	uint32_t size;
};
void kimage_check(struct kimage *k, uint32_t start, uint32_t end);
void kimage_load(const struct kimage *k);
uint64_t kimage_lookup(const struct kimage *k, const char *name);
void *kimage_va_to_ptr(const struct kimage *k, uint64_t va);
int kimage_overlaps(const struct kimage *k, uint64_t start, uint64_t end);

/* x86_64/hook.c: the biosmem_register_boot_data reservation hook */
struct hook_patch {
	uint64_t va;
	uint32_t len;
	uint8_t orig[32];
};
extern struct hook_patch reserve_patch;         /* what hook_reserve patched */
void hook_reserve(const struct kimage *k, uint64_t start, uint64_t end);
int hook_entry(const struct kimage *k, uint64_t target, uint64_t tramp_va,
	       uint8_t *disp, uint64_t disp_va, uint8_t *orig);

/* x86_64/blob.c: the machtrace runtime blob module (runtime/kernel/) */
int blob_is(uint32_t start, uint32_t end);
void blob_load(const struct kimage *k, uint32_t start, uint32_t end,
	       uint64_t resv_start, uint64_t resv_end);

/* shim.S */
void jump_kernel(uint32_t entry, uint32_t mbi) __attribute__((noreturn));

/* The C entry point; shim.S calls it with GRUB's multiboot registers. */
struct mb_info;
void shim_main(uint32_t magic, const struct mb_info *mbi);

#endif
