/*
 * Multiboot version 1 structures, as QEMU's -kernel loader hands them to
 * the shim and as the shim hands them on to GNU Mach.
 */
#ifndef SHIM_MULTIBOOT_H
#define SHIM_MULTIBOOT_H

#include <stdint.h>

#define MB_HEADER_MAGIC     0x1BADB002u
#define MB_LOADER_MAGIC     0x2BADB002u

#define MBI_MEMORY          (1u << 0)
#define MBI_CMDLINE         (1u << 2)
#define MBI_MODS            (1u << 3)
#define MBI_MMAP            (1u << 6)

#define MB_MEM_AVAILABLE    1
#define MB_MEM_RESERVED     2

struct mb_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
	uint32_t drives_length, drives_addr;
	uint32_t config_table, boot_loader_name, apm_table;
	uint32_t vbe[6];
} __attribute__((packed));

struct mb_mod {
	uint32_t start, end;    /* [start, end) physical */
	uint32_t string;        /* "path args" from QEMU's -initrd */
	uint32_t reserved;
};

/* One memory map entry; `size` counts the bytes after itself (20). */
struct mb_mmap {
	uint32_t size;
	uint64_t addr, len;
	uint32_t type;
} __attribute__((packed));

#endif
