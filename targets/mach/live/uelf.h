/*
 * A guest program's ELF file (machload, a --module PATH): its bytes, its
 * loadable segments and its .symtab, read once with libelf.  umod.c (the
 * pid and usdt providers) and usyms.c (ustack() and usym() names) read
 * programs through it.
 */
#ifndef MT_LIVE_UELF_H
#define MT_LIVE_UELF_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#define UELF_MAXSEGS	8

struct uelf_seg {
	uint64_t vaddr, memsz, filesz, offset;
	int exec;			/* PF_X */
};

struct uelf {
	uint8_t *file;			/* the whole file (the caller may take it) */
	size_t size;
	Elf *elf;
	GElf_Ehdr eh;
	struct uelf_seg segs[UELF_MAXSEGS];	/* PT_LOAD, the first 8 */
	int nsegs;
};

/* Read path's ELF file; -1 ("cannot read PATH") or -2 ("PATH: not a
   readable ELF file") with err. */
int uelf_open(struct uelf *u, const char *path, char *err, size_t errlen);
void uelf_close(struct uelf *u);
/* fn for each defined, named symbol of the first .symtab, in table
   order; -1 as soon as fn returns -1. */
int uelf_syms(const struct uelf *u,
	      int (*fn)(void *arg, const char *name, const GElf_Sym *s),
	      void *arg);
/* The first section named name (its header in *sh), or NULL. */
Elf_Scn *uelf_section(const struct uelf *u, const char *name, GElf_Shdr *sh);

#endif
