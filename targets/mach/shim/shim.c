/*
 * machtrace boot shim: a 32-bit multiboot1 kernel that QEMU's -kernel can
 * load, which in turn loads the ELF64 GNU Mach given as the first module.
 *
 *   qemu -kernel shim.elf -append 'reserve=0x2000000:0x400000'
 *        -initrd 'gnumach console=com0,machload ${host-port} ... ,...'
 *
 * Module 0 is the kernel; its string is the kernel's command line.  The
 * other modules are passed on in order, their first word reduced to its
 * basename (argv[0] of a bootstrap task).  The shim's own command line may
 * hold `reserve=PHYS:SIZE` to keep a physical region away from GNU Mach,
 * and `reserve-fill` to fill that region with the words (pa ^ 0xA5A5A5A5)
 * so that a test can check afterwards that the kernel left it alone.
 * A module starting with the runtime blob's magic (include/machtrace/lkabi.h)
 * is not passed on: it is copied into the reserved region and hooked into
 * the kernel's boot (x86_64/blob.c).
 *
 * Everything the kernel receives (multiboot info, memory map, module list,
 * strings) lives in the shim's .bss below 2 MiB; GNU Mach registers those
 * as temporary boot data itself.
 */
#include "multiboot.h"
#include "shim.h"
#include "machtrace/bootlim.h"

#define MAX_MODS    MT_SHIM_MAX_MODS
#define MAX_MMAP    32
#define STR_MAX     MT_SHIM_STR_MAX

extern char _start[], _end[];

static struct mb_info kinfo;
static struct mb_mmap kmap[MAX_MMAP];
static struct mb_mod kmods[MAX_MODS];
static char kcmdline[STR_MAX];
static char kmodstr[MAX_MODS][STR_MAX];
static int kmap_count;

struct region {
	uint64_t start, end;
};

static int overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	return a0 < b1 && b0 < a1;
}

static void copy_str(char *dst, const char *src, uint32_t n)
{
	uint32_t i = 0;

	for (; src && src[i] && i < n - 1; i++)
		dst[i] = src[i];
	dst[i] = 0;
}

/* "dir/name args" -> "name args" */
static void module_string(char *dst, const char *src)
{
	const char *w = src;

	for (const char *p = src; p && *p && *p != ' '; p++)
		if (*p == '/')
			w = p + 1;
	copy_str(dst, w, STR_MAX);
}

static void parse_reserve(const char *cmdline, struct region *r)
{
	const char *s = find_word(cmdline, "reserve=");
	uint64_t size;

	r->start = r->end = 0;
	if (!s)
		return;
	s = parse_u64(s, &r->start);
	if (!s || *s != ':' || !parse_u64(s + 1, &size) || !size)
		die("bad reserve=PHYS:SIZE on the shim command line");
	if ((r->start | size) & 0xfff)
		die("reserve= region must be page aligned");
	r->end = r->start + size;
}

static void map_add(uint64_t addr, uint64_t len, uint32_t type)
{
	if (!len)
		return;
	if (kmap_count >= MAX_MMAP)
		die("memory map too long");
	kmap[kmap_count].size = 20;
	kmap[kmap_count].addr = addr;
	kmap[kmap_count].len = len;
	kmap[kmap_count].type = type;
	kmap_count++;
}

/* The loader's memory map with the reserved region cut out of RAM. */
static void build_mmap(const struct mb_info *mbi, const struct region *r)
{
	for (uint32_t off = 0; off < mbi->mmap_length;) {
		const struct mb_mmap *e = (const struct mb_mmap *)(mbi->mmap_addr + off);
		uint64_t a = e->addr, b = e->addr + e->len;

		off += e->size + 4;
		if (r->end && e->type == MB_MEM_AVAILABLE && overlap(a, b, r->start, r->end)) {
			if (a < r->start)
				map_add(a, r->start - a, MB_MEM_AVAILABLE);
			if (b > r->end)
				map_add(r->end, b - r->end, MB_MEM_AVAILABLE);
		} else {
			map_add(a, e->len, e->type);
		}
	}
	if (r->end)
		map_add(r->start, r->end - r->start, MB_MEM_RESERVED);
}

static void check_layout(const struct kimage *k, const struct mb_info *mbi,
			 const struct region *r)
{
	const struct mb_mod *mods = (const struct mb_mod *)mbi->mods_addr;

	if (kimage_overlaps(k, (uint32_t)_start, (uint32_t)_end))
		die("the kernel's load address overlaps the shim");
	for (uint32_t m = 0; m < mbi->mods_count; m++) {
		if (kimage_overlaps(k, mods[m].start, mods[m].end))
			die("the kernel's load address overlaps a module (modules too large?)");
		if (r->end && overlap(mods[m].start, mods[m].end, r->start, r->end))
			die("a module overlaps the reserved region");
	}
	if (r->end && kimage_overlaps(k, r->start, r->end))
		die("the reserved region overlaps the kernel");
	if (r->end && r->end > 0x40000000)
		die("the reserved region must lie below 1 GiB");
}

void shim_main(uint32_t magic, const struct mb_info *mbi)
{
	const struct mb_mod *mods;
	const char *cmdline;
	struct kimage k;
	struct region r;
	uint32_t n = 0;

	con_init();
	if (magic != MB_LOADER_MAGIC)
		die("not started by a multiboot loader");
	if (!(mbi->flags & MBI_MODS) || mbi->mods_count < 1)
		die("no kernel module (use -initrd 'KERNEL args,MODULE args,...')");
	if (mbi->mods_count > MAX_MODS + 1)
		die("too many modules");
	if (!(mbi->flags & MBI_MMAP))
		die("the loader gave no memory map");
	cmdline = (mbi->flags & MBI_CMDLINE) ? (const char *)mbi->cmdline : "";
	mods = (const struct mb_mod *)mbi->mods_addr;

	parse_reserve(cmdline, &r);
	kimage_check(&k, mods[0].start, mods[0].end);
	check_layout(&k, mbi, &r);
	kimage_load(&k);
	if (r.end)
		hook_reserve(&k, r.start, r.end);
	if (r.end && find_word(cmdline, "reserve-fill"))
		for (uint32_t *w = (uint32_t *)(uint32_t)r.start; w < (uint32_t *)(uint32_t)r.end; w++)
			*w = (uint32_t)w ^ 0xA5A5A5A5u;

	for (uint32_t m = 1; m < mbi->mods_count; m++, n++) {
		if (blob_is(mods[m].start, mods[m].end)) {
			if (!r.end)
				die("a runtime blob module needs reserve=PHYS:SIZE");
			blob_load(&k, mods[m].start, mods[m].end, r.start, r.end);
			n--;
			continue;
		}
		kmods[n] = mods[m];
		module_string(kmodstr[n], (const char *)mods[m].string);
		kmods[n].string = (uint32_t)kmodstr[n];
	}
	build_mmap(mbi, &r);
	copy_str(kcmdline, (const char *)mods[0].string, STR_MAX);

	kinfo.flags = MBI_MEMORY | MBI_CMDLINE | MBI_MODS | MBI_MMAP;
	kinfo.mem_lower = mbi->mem_lower;
	kinfo.mem_upper = mbi->mem_upper;
	kinfo.cmdline = (uint32_t)kcmdline;
	kinfo.mods_count = n;
	kinfo.mods_addr = (uint32_t)kmods;
	kinfo.mmap_length = kmap_count * sizeof kmap[0];
	kinfo.mmap_addr = (uint32_t)kmap;

	con_puts("shim: kernel entry ");
	con_hex(k.eh->e_entry);
	if (r.end) {
		con_puts(", reserved ");
		con_hex(r.start);
		con_puts("-");
		con_hex(r.end);
	}
	con_puts("\n");
	jump_kernel((uint32_t)k.eh->e_entry, (uint32_t)&kinfo);
}
