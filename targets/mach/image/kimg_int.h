/* Internal state of the kernel image reader (kimg*.c, x86_64/decode.c). */
#ifndef TARGET_KIMG_INT_H
#define TARGET_KIMG_INT_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "machtrace/kimg.h"

struct kimg_section {
	uint64_t addr, size;
	const uint8_t *data;            /* file bytes, NULL for NOBITS */
	int exec, is_boot;
};

struct kimg_arena {
	struct kimg_arena *next;
	size_t used, cap;
	char mem[];
};

struct kimg_struct {                    /* DWARF struct index entry */
	const char *name;
	Dwarf_Off die;
};

struct kimg_label {
	uint64_t addr, size;
	const char *name;
	uint32_t rank;                  /* among one address's: lowest wins */
};

struct mt_kimg {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;
	struct kimg_section *secs;
	size_t nsecs;
	struct mt_kfunc *funcs;         /* [0, nreal) sorted by addr, then inline-only */
	size_t nfuncs, nreal;
	struct mt_kfunc **by_name;      /* sorted by name */
	GElf_Sym *syms;                 /* all symbols, for mt_kimg_symbol */
	const char **symnames;
	size_t nsyms;
	struct kimg_label *labels;      /* code symbols by address, one per */
	size_t nlabels;                 /* address (mt_kimg_sym_at) */
	struct kimg_label *dlabels;     /* data symbols the same way */
	size_t ndlabels;
	struct kimg_struct *structs;    /* sorted by name, built on first use */
	size_t nstructs;
	int structs_indexed;
	struct mt_kinline *inlines;     /* sorted by name */
	size_t ninlines;
	struct kimg_tname *tnames;      /* live/ctypes.c: named types, sorted */
	size_t ntnames;                 /* by name, built on first use */
	int tnames_indexed;
	struct kimg_arena *arena;
	Dwarf_CFI *cfi;                 /* .eh_frame, opened on first use */
	int cfi_tried;
};

void *kimg_alloc(struct mt_kimg *k, size_t n);
const char *kimg_strdup(struct mt_kimg *k, const char *s);
struct mt_kfunc *kimg_func_mut(struct mt_kimg *k, uint64_t addr);
int kimg_index_names(struct mt_kimg *k);

/* kimg_dwarf.c */
int kimg_dwarf_load(struct mt_kimg *k, char *err, size_t errlen);
void kimg_type_name(Dwarf_Die *type, char *buf, size_t len);

/* x86_64/decode.c */
int kimg_decode(struct mt_kimg *k, char *err, size_t errlen);
/*
 * The branch targets of the whole image, which no jmp entry may displace.
 * A target that cannot be recorded (no memory) sets lost, and then no
 * function gets a jmp entry: the set is incomplete, so any displaced
 * bytes could be a target.  xrealloc NULL: realloc (tests inject failures).
 */
struct kimg_targets {
	uint64_t *v;
	size_t n, cap;
	int lost;
	void *(*xrealloc)(void *p, size_t n);
};
void kimg_targets_add(struct kimg_targets *t, uint64_t a);
/* Sorts t and turns every jmp entry that t forbids into an int3 entry. */
void kimg_targets_apply(struct mt_kimg *k, struct kimg_targets *t);

#endif
