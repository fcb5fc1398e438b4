/*
 * The kernel image reader: a GNU Mach ELF64 kernel with symbols, read
 * through libelf (symbols), libdw (prototypes, types, struct layouts,
 * inline instances) and Capstone (instruction decoding of every function:
 * patchability of its entry and its return instructions).
 *
 * Everything returned points into the mt_kimg and lives until
 * mt_kimg_close().  Functions return -1 (or NULL) with err filled on error.
 */
#ifndef MACHTRACE_KIMG_H
#define MACHTRACE_KIMG_H

#include <stddef.h>
#include <stdint.h>

#define MT_KFUNC_MAXARGS 10

enum mt_patch {
	MT_PATCH_JMP,           /* entry may take a 5-byte jmp (displaced bytes relocatable) */
	MT_PATCH_INT3,          /* entry may only take an int3 (see why) */
	MT_PATCH_REFUSED,       /* no probe at all (see why) */
};

struct mt_karg {
	const char *name;       /* "" when DWARF has none */
	const char *type;       /* C spelling, "struct ipc_port *" */
};

/*
 * A function of the image.  Functions with code of their own come first,
 * in address order; then the inline-only ones (every call was inlined):
 * those have inline_only set, addr = their first instance's entry, size 0,
 * no returns, and their sites from mt_kimg_inlines().
 */
struct mt_kfunc {
	const char *name;
	uint64_t addr, size;
	int inline_only;
	unsigned ninstances;    /* inline instances (any function) */
	int global;             /* STB_GLOBAL */
	int has_dwarf;          /* a DW_TAG_subprogram describes it */
	enum mt_patch patch;
	const char *why;        /* why not MT_PATCH_JMP, NULL when jmp */
	unsigned displaced;     /* bytes a jmp displaces (whole instructions), 0 if none */
	unsigned first_len;     /* length of the first instruction, 0 if undecodable */
	unsigned nrets;         /* return instructions ... */
	const uint32_t *rets;   /* ... at these offsets from addr */
	const char *rettype;    /* "void" when none; NULL without DWARF */
	int nargs;              /* -1: unknown (no DWARF); varargs count as declared */
	int varargs;
	int noreturn;           /* DWARF's DW_AT_noreturn (Assert, Panic) */
	struct mt_karg args[MT_KFUNC_MAXARGS];
};

struct mt_kinline {
	const char *name;       /* the inlined function */
	const char *caller;     /* function it was inlined into */
	uint64_t entry;         /* DW_AT_entry_pc or lowest address */
	uint64_t low, high;     /* first range */
	uint64_t origin;        /* DWARF offset of the abstract subprogram DIE */
	uint64_t die;           /* DWARF offset of this instance's DIE */
};

struct mt_kimg;

/*
 * The ELF a kernel path stands for: path itself, or for a gzip file (as
 * Debian installs boot/gnumach-*.gz) its inflated copy in the user's cache
 * (~/.cache/machtrace/gunzipped, made once per .gz).  Every function here
 * taking a kernel path does this itself.  Returns 0, or -1 with err.
 */
int mt_kernel_elf(const char *path, char *out, size_t outlen, char *err, size_t errlen);
/* The first two bytes are gzip's magic. */
int mt_is_gzip(const void *data, size_t len);

/*
 * What booting k traced needs of it (the boot shim's reservation hook,
 * the runtime blob file's boot hook with a prologue the shim can move,
 * `cpus` CPUs (0: 1) within its NCPUS, and one CPU at most while the
 * runtime keeps one CPU's state): 0, or -1 with err naming the kernel's
 * version string, what is missing and that -l still works.
 */
int mt_kimg_boot_check(struct mt_kimg *k, const char *blob, unsigned cpus, char *err,
		       size_t errlen);
/* The same for a kernel file (opened and closed here). */
int mt_kernel_boot_check(const char *kernel, const char *blob, unsigned cpus, char *err,
			 size_t errlen);
/* The CPUs the kernel is built for (NCPUS: percpu_array's size over struct
   percpu's; 1 for a uniprocessor kernel or without DWARF for them). */
uint64_t mt_kimg_ncpus(struct mt_kimg *k);
/* The kernel's message buffer (kmsg_buffer): VA and size; -1 if none. */
int mt_kernel_kmsg(const char *kernel, uint64_t *va, uint64_t *size);
/* 0 if a guest of `cpus` CPUs (0: 1) can boot the kernel file, else -1
   with err naming the kernel's NCPUS. */
int mt_kernel_cpus_check(const char *kernel, unsigned cpus, char *err, size_t errlen);
/* The kernel's version string (its `version` symbol) in buf. */
const char *mt_kimg_version(const struct mt_kimg *k, char *buf, size_t len);

/* Cheap check that path is a GNU Mach x86_64 kernel with symbols (libelf only). */
int mt_kimg_check(const char *path, char *err, size_t errlen);

struct mt_kimg *mt_kimg_open(const char *path, char *err, size_t errlen);
void mt_kimg_close(struct mt_kimg *k);

const char *mt_kimg_path(const struct mt_kimg *k);
/* Functions: STT_FUNC symbols of .text and .boot in address order, then
 * the inline-only functions. */
size_t mt_kimg_nfuncs(const struct mt_kimg *k);
const struct mt_kfunc *mt_kimg_func(const struct mt_kimg *k, size_t i);
const struct mt_kfunc *mt_kimg_lookup(const struct mt_kimg *k, const char *name);
/* The function containing addr, NULL if none. */
const struct mt_kfunc *mt_kimg_func_at(const struct mt_kimg *k, uint64_t addr);
/* The name addr goes by, with addr's offset from it in *off: the
 * function containing it, else the code symbol before it (an assembly
 * routine's or label's symbol without a size: spl0, _take_trap; at one
 * address a function beats a label, a global symbol a local one).  NULL
 * if none, or if addr is beyond the end of a sized one (its end is its
 * own: the return address of a call that never returns, as its last
 * instruction).  In data (.data, .bss, .rodata), as dtrace: the object
 * whose bytes hold addr (kernel_map_store+0x10), or an unsized global
 * symbol at addr itself. */
const char *mt_kimg_sym_at(const struct mt_kimg *k, uint64_t addr, uint64_t *off);
/* Whether addr lies in one of the kernel's loaded sections (not .boot). */
int mt_kimg_in_image(const struct mt_kimg *k, uint64_t addr);
/* Value of any symbol; -1 if absent. */
int mt_kimg_symbol(const struct mt_kimg *k, const char *name, uint64_t *value);
/* The same with the symbol's size (0 when the image gives none). */
int mt_kimg_symbol_size(const struct mt_kimg *k, const char *name, uint64_t *value,
			uint64_t *size);
/* Image bytes at a virtual address; NULL unless [va, va+len) is file-backed. */
const uint8_t *mt_kimg_bytes(const struct mt_kimg *k, uint64_t va, size_t len);

/* Struct layouts: size of `struct name`, and a member's offset and type
   (member: a name, or a path through nested members "saved.receive.x"). */
int mt_kimg_struct_size(struct mt_kimg *k, const char *name, uint64_t *size);
int mt_kimg_member(struct mt_kimg *k, const char *sname, const char *member,
		   uint64_t *offset, char *type, size_t typelen);

/*
 * The call frame at pc (from .eh_frame): CFA = cfa_reg + cfa_off, the
 * return address at CFA - 8; the caller's rbp saved at CFA + rbp_off when
 * rbp_saved, else still in rbp.  -1 when the image has no rule for pc or
 * the rule is not of that form (an expression).
 */
#define MT_KREG_RBP 6           /* DWARF x86-64 register numbers */
#define MT_KREG_RSP 7
struct mt_kframe {
	int cfa_reg;            /* MT_KREG_RSP or MT_KREG_RBP */
	int64_t cfa_off;
	int rbp_saved;
	int64_t rbp_off;
};
int mt_kimg_frame(struct mt_kimg *k, uint64_t pc, struct mt_kframe *fr);

/*
 * DWARF of the code at pc: the register (DWARF x86-64 number, 0-15)
 * holding variable or parameter `name` of the innermost scope declaring
 * it there, -1 when it is elsewhere (memory, optimized out) or unknown.
 */
int mt_kimg_var_reg(struct mt_kimg *k, uint64_t pc, const char *name);

/* Inline instances of function `name` (all callers); returns their count. */
size_t mt_kimg_inlines(struct mt_kimg *k, const char *name,
		       const struct mt_kinline **out);
/* The address ranges [lo[i], hi[i]) of inline instance `in` (at most
   max); returns their count, 0 if DWARF gives none. */
size_t mt_kimg_inline_ranges(struct mt_kimg *k, const struct mt_kinline *in,
			     uint64_t *lo, uint64_t *hi, size_t max);

#endif
