/* Guest programs' ELF files (uelf.h). */
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/uelf.h"

static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		*size = (size_t)n;
	fclose(f);
	return buf;
}

int uelf_open(struct uelf *u, const char *path, char *err, size_t errlen)
{
	size_t nph = 0;

	memset(u, 0, sizeof *u);
	if (!(u->file = read_file(path, &u->size))) {
		snprintf(err, errlen, "cannot read %s", path);
		return -1;
	}
	elf_version(EV_CURRENT);
	if (!(u->elf = elf_memory((char *)u->file, u->size)) ||
	    elf_kind(u->elf) != ELF_K_ELF || !gelf_getehdr(u->elf, &u->eh) ||
	    elf_getphdrnum(u->elf, &nph) != 0) {
		snprintf(err, errlen, "%s: not a readable ELF file", path);
		uelf_close(u);
		return -2;
	}
	for (size_t i = 0; i < nph && u->nsegs < UELF_MAXSEGS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(u->elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			u->segs[u->nsegs++] = (struct uelf_seg){
				ph.p_vaddr, ph.p_memsz, ph.p_filesz, ph.p_offset,
				(ph.p_flags & PF_X) != 0 };
	}
	return 0;
}

void uelf_close(struct uelf *u)
{
	if (u->elf)
		elf_end(u->elf);
	free(u->file);
	memset(u, 0, sizeof *u);
}

int uelf_syms(const struct uelf *u,
	      int (*fn)(void *arg, const char *name, const GElf_Sym *s),
	      void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(u->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	if (scn == NULL)
		return 0;
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
		    !(name = elf_strptr(u->elf, sh.sh_link, s.st_name)) || !*name)
			continue;
		if (fn(arg, name, &s) < 0)
			return -1;
	}
	return 0;
}

Elf_Scn *uelf_section(const struct uelf *u, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(u->elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(u->elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) &&
		    (n = elf_strptr(u->elf, shstrndx, sh->sh_name)) != NULL &&
		    strcmp(n, name) == 0)
			return scn;
	return NULL;
}
