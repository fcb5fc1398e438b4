/*
 * User symbols (ustack(), usym(), ufunc(), umod(), uaddr(), %A) from the
 * ELF files of the guest's programs: the boot's modules (machload by
 * default, every --module PATH), static ET_EXEC images whose addresses
 * are their run-time addresses.  A program's functions come from its
 * .symtab (STT_FUNC, and the untyped labels of hand-written assembly),
 * its data from the objects there (STT_OBJECT, by their size, as
 * dtrace's Plookup_by_addr); addresses print as dtrace's
 * "prog`func+0x1c", "prog`0x..." inside the program but in no symbol,
 * "0x..." outside every known program.
 *
 * Which program a pc belongs to: the one of the task whose pid the record
 * carries.  Bootstrap module k (1-based, boot order) is the task with pid
 * k; a pid beyond them (a task one of them created, which runs a copy of
 * its creator) is symbolised by the program whose executable segments hold
 * the pc when it is the only one that does.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "targets/mach/live/live_int.h"
#include "targets/mach/mach_int.h"

struct usym {
	uint64_t addr, size;
	char *name;
};

struct usyms {
	char name[64];			/* the program's basename */
	struct usym *syms;		/* sorted by addr */
	size_t nsyms;
	uint64_t segs[8][3];		/* PT_LOAD ranges: start, end, executable */
	int nsegs;
};

static int by_addr(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add_syms(struct usyms *u, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	if (!d || !(u->syms = calloc(n + 1, sizeof *u->syms)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
		    !s.st_value || !(name = elf_strptr(elf, sh->sh_link, s.st_name)) ||
		    !*name || name[0] == '.')
			continue;
		type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT)
			continue;
		u->syms[u->nsyms].addr = s.st_value;
		u->syms[u->nsyms].size = s.st_size;
		if (!(u->syms[u->nsyms].name = strdup(name)))
			return -1;
		u->nsyms++;
	}
	qsort(u->syms, u->nsyms, sizeof *u->syms, by_addr);
	return 0;
}

struct usyms *usyms_load(const char *path, char *err, size_t errlen)
{
	struct usyms *u = calloc(1, sizeof *u);
	const char *base = strrchr(path, '/');
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t nph = 0;
	int fd = -1, ok = 0;

	if (!u)
		return NULL;
	snprintf(u->name, sizeof u->name, "%s", base ? base + 1 : path);
	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY)) < 0 ||
	    !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) ||
	    elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph) != 0) {
		mt_seterr(err, errlen, "%s: not a readable ELF file", path);
		goto out;
	}
	for (size_t i = 0; i < nph && u->nsegs < 8; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			u->segs[u->nsegs][0] = ph.p_vaddr;
			u->segs[u->nsegs][1] = ph.p_vaddr + ph.p_memsz;
			u->segs[u->nsegs][2] = !!(ph.p_flags & PF_X);
			u->nsegs++;
		}
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			if (add_syms(u, elf, scn, &sh) < 0) {
				mt_seterr(err, errlen, "%s: out of memory", path);
				goto out;
			}
			break;
		}
	}
	ok = 1;
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (!ok) {
		usyms_free(u);
		return NULL;
	}
	return u;
}

void usyms_free(struct usyms *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nsyms; i++)
		free(u->syms[i].name);
	free(u->syms);
	free(u);
}

/* 1 if pc is in one of the program's executable segments, 2 if in
   another of its segments, 0 if outside them all. */
static int segment_of(const struct usyms *u, uint64_t pc)
{
	for (int i = 0; u && i < u->nsegs; i++)
		if (pc >= u->segs[i][0] && pc < u->segs[i][1])
			return u->segs[i][2] ? 1 : 2;
	return 0;
}

int usyms_covers(const struct usyms *u, uint64_t pc)
{
	return segment_of(u, pc) != 0;
}

/*
 * The symbol holding pc: the last symbol at or below it, when pc is
 * inside its size, or in code (an untyped assembly label without a
 * size) before the next symbol, in data (an unsized marker) at it.
 */
int usyms_format(const struct usyms *u, uint64_t pc, char *buf, size_t len)
{
	size_t lo = 0, hi = u ? u->nsyms : 0;
	const struct usym *s;
	int seg = segment_of(u, pc);

	if (!seg)
		return -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	s = lo ? &u->syms[lo - 1] : NULL;
	/* of several symbols at one address, the sized one (the function) */
	while (s && s > u->syms && s[-1].addr == s->addr && !s->size)
		s--;
	if (s && (s->size ? pc - s->addr < s->size : seg == 2 ? pc == s->addr :
		  (lo >= u->nsyms || pc < u->syms[lo].addr))) {
		if (pc == s->addr)
			snprintf(buf, len, "%s`%s", u->name, s->name);
		else
			snprintf(buf, len, "%s`%s+0x%llx", u->name, s->name,
				 (unsigned long long)(pc - s->addr));
		return 0;
	}
	snprintf(buf, len, "%s`0x%llx", u->name, (unsigned long long)pc);
	return 0;
}
