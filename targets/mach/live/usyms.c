/*
 * User symbols (ustack(), usym(), ufunc(), umod(), uaddr(), %A) from the
 * ELF files of the guest's programs: the boot's modules (machload by
 * default, every --module PATH), static ET_EXEC images whose addresses
 * are their run-time addresses.  A program's functions come from its
 * .symtab (STT_FUNC, and the untyped labels of hand-written assembly);
 * pcs print as dtrace's "prog`func+0x1c", "prog`0x..." inside the program
 * but in no function, "0x..." outside every known program.
 *
 * Which program a pc belongs to: the one of the task whose pid the record
 * carries.  Bootstrap module k (1-based, boot order) is the task with pid
 * k; a pid beyond them (a task one of them created, which runs a copy of
 * its creator) is symbolised by the program whose executable segments hold
 * the pc when it is the only one that does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machtrace/vec.h"
#include "targets/mach/live/live_int.h"
#include "targets/mach/live/uelf.h"
#include "targets/mach/mach_int.h"

struct usym {
	uint64_t addr, size;
	char *name;
};

struct usyms {
	char name[64];			/* the program's basename */
	struct usym *syms;		/* sorted by addr */
	size_t nsyms, cap;
	uint64_t segs[8][3];		/* PT_LOAD ranges: start, end, executable */
	int nsegs;
};

static int by_addr(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add_sym(void *arg, const char *name, const GElf_Sym *s)
{
	struct usyms *u = arg;
	int type = GELF_ST_TYPE(s->st_info);

	if (!s->st_value || name[0] == '.' || (type != STT_FUNC && type != STT_NOTYPE &&
						  type != STT_OBJECT))
		return 0;
	if (MT_VEC_ROOM(u->syms, u->nsyms, u->cap, 256) != 0 ||
	    !(u->syms[u->nsyms].name = strdup(name)))
		return -1;
	u->syms[u->nsyms].addr = s->st_value;
	u->syms[u->nsyms].size = s->st_size;
	u->nsyms++;
	return 0;
}

struct usyms *usyms_load(const char *path, char *err, size_t errlen)
{
	struct usyms *u = calloc(1, sizeof *u);
	const char *base = strrchr(path, '/');
	struct uelf e;
	int ok = 0;

	if (!u)
		return NULL;
	snprintf(u->name, sizeof u->name, "%s", base ? base + 1 : path);
	if (uelf_open(&e, path, err, errlen) != 0) {
		mt_seterr(err, errlen, "%s: not a readable ELF file", path);
		goto out;
	}
	for (int i = 0; i < e.nsegs && u->nsegs < 8; i++) {
		u->segs[u->nsegs][0] = e.segs[i].vaddr;
		u->segs[u->nsegs][1] = e.segs[i].vaddr + e.segs[i].memsz;
		u->segs[u->nsegs][2] = !!e.segs[i].exec;
		u->nsegs++;
	}
	if (uelf_syms(&e, add_sym, u) < 0) {
		mt_seterr(err, errlen, "%s: out of memory", path);
		goto out;
	}
	qsort(u->syms, u->nsyms, sizeof *u->syms, by_addr);
	ok = 1;
out:
	uelf_close(&e);
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
 * size) before the next symbol, in data (an unsized marker) at it; func
 * NULL when pc is in the program but in no symbol.  -1 when pc is
 * outside the program's segments.
 */
int usyms_lookup(const struct usyms *u, uint64_t pc, const char **mod,
		 const char **func, uint64_t *off)
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
	*mod = u->name;
	*func = NULL;
	*off = 0;
	if (s && (s->size ? pc - s->addr < s->size : seg == 2 ? pc == s->addr :
		  (lo >= u->nsyms || pc < u->syms[lo].addr))) {
		*func = s->name;
		*off = pc - s->addr;
	}
	return 0;
}
