/*
 * Guest user programs: ELF symbols, segments and stapsdt notes (umod.h).
 */
#include <ctype.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/uelf.h"
#include "targets/mach/live/umod.h"
#include "targets/mach/x86_64/insn.h"

#define NT_STAPSDT	3

uint32_t umod_pid(int k)
{
	return (uint32_t)k;
}

static int umod_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
	snprintf(err, errlen, fmt, a, b);
	return -1;
}

void usdt_note_free(struct usdt_note *n)
{
	free(n->prov);
	free(n->name);
	free(n->args);
	memset(n, 0, sizeof *n);
}

int usdt_parse_note(const uint8_t *desc, size_t len, struct usdt_note *n)
{
	const char *s[3];
	size_t off = 24;

	memset(n, 0, sizeof *n);
	if (len < 24 + 3)
		return -1;
	memcpy(&n->pc, desc, 8);
	memcpy(&n->sem, desc + 16, 8);
	for (int i = 0; i < 3; i++) {
		const uint8_t *z = memchr(desc + off, 0, len - off);
		if (!z)
			return -1;
		s[i] = (const char *)desc + off;
		off = (size_t)(z - desc) + 1;
		if (i < 2 && off >= len)
			return -1;
	}
	if (!*s[0] || !*s[1])
		return -1;
	n->prov = strdup(s[0]);
	n->name = strdup(s[1]);
	n->args = strdup(s[2]);
	if (!n->prov || !n->name || !n->args) {
		usdt_note_free(n);
		return -1;
	}
	return 0;
}

void usdt_probe_name(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 1 < len; in++) {
		if (in[0] == '_' && in[1] == '_') {
			out[o++] = '-';
			in++;
		} else {
			out[o++] = *in;
		}
	}
	if (len)
		out[o] = 0;
}

/* DWARF number of an x86-64 register name (without %): rax 0 ... r15 15,
   sub-registers too (*shift: 8 for ah/bh/ch/dh); -1 if unknown. */
static int usdt_reg(const char *r, uint8_t *shift)
{
	static const char *const q[16][4] = {
		{ "rax", "eax", "ax", "al" }, { "rdx", "edx", "dx", "dl" },
		{ "rcx", "ecx", "cx", "cl" }, { "rbx", "ebx", "bx", "bl" },
		{ "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" },
		{ "rbp", "ebp", "bp", "bpl" }, { "rsp", "esp", "sp", "spl" },
	};
	static const char *const high[4] = { "ah", "dh", "ch", "bh" };
	char buf[8];

	*shift = 0;
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 4; j++)
			if (strcmp(r, q[i][j]) == 0)
				return i;
	for (int i = 0; i < 4; i++)
		if (strcmp(r, high[i]) == 0) {
			*shift = 8;
			return i;
		}
	for (int i = 8; i < 16; i++) {
		static const char *const suf[] = { "", "d", "w", "b" };
		for (int j = 0; j < 4; j++) {
			snprintf(buf, sizeof buf, "r%d%s", i, suf[j]);
			if (strcmp(r, buf) == 0)
				return i;
		}
	}
	return -1;
}

/* "%reg" at *p (advanced); -1 if none. */
static int parse_reg(const char **p, uint8_t *shift)
{
	char name[8];
	size_t n = 0;

	if (**p != '%')
		return -1;
	(*p)++;
	while (isalnum((unsigned char)**p) && n < sizeof name - 1)
		name[n++] = *(*p)++;
	name[n] = 0;
	return usdt_reg(name, shift);
}

/* A signed decimal or 0x number at *p; 0 if none. */
static int parse_num(const char **p, int64_t *v)
{
	char *end;
	long long x = strtoll(*p, &end, 0);

	if (end == *p)
		return 0;
	*v = x;
	*p = end;
	return 1;
}

/* One operand (after "N@"), up to a space; 0 or -1. */
static int parse_operand(const char *p, const char *end, struct lk_uarg *a,
			 int (*sym)(void *, const char *, uint64_t *), void *symarg)
{
	int64_t v = 0;
	int r;

	a->reg = a->idx = LK_UA_NOREG;
	a->scale = 1;
	if (*p == '%') {
		if ((r = parse_reg(&p, &a->shift)) < 0 || p != end)
			return -1;
		a->kind = LK_UA_REG;
		a->reg = (uint8_t)r;
		return 0;
	}
	if (*p == '$') {
		p++;
		if (!parse_num(&p, &v) || p != end)
			return -1;
		a->kind = LK_UA_IMM;
		a->val = v;
		return 0;
	}
	a->kind = LK_UA_MEM;
	if (isalpha((unsigned char)*p) || *p == '_' || *p == '.') {
		char name[256];
		size_t n = 0;
		uint64_t va;
		while (p < end && *p != '(' && *p != '+' && *p != '-' && n < sizeof name - 1)
			name[n++] = *p++;
		name[n] = 0;
		if (!sym || sym(symarg, name, &va) < 0)
			return -1;
		a->val = (int64_t)va;
		if ((*p == '+' || *p == '-') && parse_num(&p, &v))
			a->val += v;
		/* "sym(%rip)": the symbol's address already is the operand */
		if (end - p == 6 && strncmp(p, "(%rip)", 6) == 0)
			return 0;
	} else if (parse_num(&p, &v)) {
		a->val = v;
	}
	if (p == end)
		return 0;		/* an absolute address */
	if (*p++ != '(')
		return -1;
	if (*p != ',') {
		uint8_t sh;
		if ((r = parse_reg(&p, &sh)) < 0 || sh)
			return -1;
		a->reg = (uint8_t)r;
	}
	if (*p == ',') {
		uint8_t sh;
		p++;
		if ((r = parse_reg(&p, &sh)) < 0 || sh)
			return -1;
		a->idx = (uint8_t)r;
		if (*p == ',') {
			p++;
			if (!parse_num(&p, &v) || (v != 1 && v != 2 && v != 4 && v != 8))
				return -1;
			a->scale = (uint8_t)v;
		}
	}
	return *p == ')' && p + 1 == end ? 0 : -1;
}

int usdt_parse_args(const char *s, struct lk_uarg *out, int max,
		    int (*sym)(void *, const char *, uint64_t *), void *symarg,
		    char *err, size_t errlen)
{
	int n = 0;

	while (*s) {
		const char *start, *end, *at;
		struct lk_uarg a;
		int64_t size = 8;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		start = s;
		end = s + strcspn(s, " ");
		memset(&a, 0, sizeof a);
		at = memchr(s, '@', (size_t)(end - s));
		if (at) {
			const char *p = s;
			if (!parse_num(&p, &size) || p != at ||
			    (size != 1 && size != 2 && size != 4 && size != 8 &&
			     size != -1 && size != -2 && size != -4 && size != -8))
				return snprintf(err, errlen, "bad size in argument '%.*s'",
						(int)(end - start), start), -1;
			s = at + 1;
		}
		a.size = (int8_t)size;
		if (n == max)
			return snprintf(err, errlen, "more than %d arguments", max), -1;
		if (parse_operand(s, end, &a, sym, symarg) < 0)
			return snprintf(err, errlen, "cannot read argument '%.*s'",
					(int)(end - start), start), -1;
		out[n++] = a;
		s = end;
	}
	return n;
}

static int cmp_func(const void *a, const void *b)
{
	const struct ufunc *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add_sym(struct ufunc **v, size_t *n, const char *name, uint64_t addr, uint64_t size)
{
	struct ufunc *nv = realloc(*v, (*n + 1) * sizeof **v);

	if (!nv)
		return -1;
	*v = nv;
	nv[*n].name = strdup(name);
	nv[*n].addr = addr;
	nv[*n].size = size;
	if (!nv[*n].name)
		return -1;
	(*n)++;
	return 0;
}

static int add_symbol(void *arg, const char *name, const GElf_Sym *s)
{
	struct umod *m = arg;
	int type = GELF_ST_TYPE(s->st_info);

	if (type == STT_FUNC && s->st_size &&
	    add_sym(&m->funcs, &m->nfuncs, name, s->st_value, s->st_size) < 0)
		return -1;
	if ((type == STT_OBJECT || type == STT_NOTYPE) &&
	    add_sym(&m->objs, &m->nobjs, name, s->st_value, s->st_size) < 0)
		return -1;
	return 0;
}

static int load_notes(struct umod *m, Elf_Scn *scn, uint64_t base_va)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		struct usdt_note n, *nv;
		uint64_t base;
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp((char *)d->d_buf + name_off, "stapsdt", 8) != 0)
			continue;
		if (usdt_parse_note((uint8_t *)d->d_buf + desc_off, nh.n_descsz, &n) < 0)
			continue;
		/* prelink-style adjustment: the note's base vs. .stapsdt.base */
		memcpy(&base, (uint8_t *)d->d_buf + desc_off + 8, 8);
		if (base_va && base) {
			n.pc += base_va - base;
			if (n.sem)
				n.sem += base_va - base;
		}
		if (!(nv = realloc(m->notes, (m->nnotes + 1) * sizeof *nv))) {
			usdt_note_free(&n);
			return -1;
		}
		m->notes = nv;
		nv[m->nnotes++] = n;
	}
	return 0;
}

static int load_elf(struct umod *m, const struct uelf *u, char *err, size_t errlen)
{
	Elf_Scn *notes;
	GElf_Shdr sh;
	uint64_t base_va = 0;

	if (u->eh.e_ident[EI_CLASS] != ELFCLASS64 || u->eh.e_machine != EM_X86_64)
		return umod_err(err, errlen, "%s: not an x86-64 ELF program%s", m->path, "");
	/* a boot module is loaded at its ELF addresses; a position-
	   independent one's load address is not known here */
	if (u->eh.e_type != ET_EXEC)
		return umod_err(err, errlen, "%s: not a fixed-address executable (ET_EXEC)%s",
				m->path, "");
	for (int i = 0; i < u->nsegs; i++) {
		const struct uelf_seg *g = &u->segs[i];

		if (g->offset + g->filesz <= m->filesize)
			m->segs[m->nsegs++] = (struct useg){ g->vaddr, g->filesz,
							     g->offset, g->exec };
	}
	if (uelf_syms(u, add_symbol, m) < 0)
		return umod_err(err, errlen, "%s: out of memory%s", m->path, "");
	if (uelf_section(u, ".stapsdt.base", &sh))
		base_va = sh.sh_addr;
	notes = uelf_section(u, ".note.stapsdt", &sh);
	if (notes && sh.sh_type == SHT_NOTE && load_notes(m, notes, base_va) < 0)
		return umod_err(err, errlen, "%s: out of memory%s", m->path, "");
	qsort(m->funcs, m->nfuncs, sizeof *m->funcs, cmp_func);
	return 0;
}

int umod_load(struct umod *m, const char *path, uint32_t pid, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');
	struct uelf u;
	int rc;

	memset(m, 0, sizeof *m);
	m->pid = pid;
	snprintf(m->name, sizeof m->name, "%s", base ? base + 1 : path);
	if (!(m->path = strdup(path)))
		return umod_err(err, errlen, "out of memory%s%s", "", "");
	if ((rc = uelf_open(&u, path, err, errlen)) != 0)
		return rc == -1 ? -1 : umod_err(err, errlen,
				"%s: not an x86-64 ELF program%s", path, "");
	m->file = u.file;		/* kept: umod_text() reads it */
	m->filesize = u.size;
	rc = load_elf(m, &u, err, errlen);
	u.file = NULL;
	uelf_close(&u);
	return rc;
}

void umod_free(struct umod *m)
{
	for (size_t i = 0; i < m->nfuncs; i++)
		free(m->funcs[i].name);
	for (size_t i = 0; i < m->nobjs; i++)
		free(m->objs[i].name);
	for (size_t i = 0; i < m->nnotes; i++)
		usdt_note_free(&m->notes[i]);
	free(m->funcs);
	free(m->objs);
	free(m->notes);
	free(m->file);
	free(m->path);
	memset(m, 0, sizeof *m);
}

const uint8_t *umod_text(const struct umod *m, uint64_t va, size_t n)
{
	for (int i = 0; i < m->nsegs; i++) {
		const struct useg *s = &m->segs[i];
		if (s->exec && va >= s->va && va - s->va <= s->filesz && n <= s->filesz - (va - s->va))
			return m->file + s->off + (va - s->va);
	}
	return NULL;
}

const struct ufunc *umod_func(const struct umod *m, const char *name)
{
	for (size_t i = 0; i < m->nfuncs; i++)
		if (strcmp(m->funcs[i].name, name) == 0)
			return &m->funcs[i];
	return NULL;
}

const struct ufunc *umod_func_at(const struct umod *m, uint64_t va)
{
	for (size_t i = 0; i < m->nfuncs; i++)
		if (va >= m->funcs[i].addr && va - m->funcs[i].addr < m->funcs[i].size)
			return &m->funcs[i];
	return NULL;
}

int umod_insn_offsets(const struct umod *m, const struct ufunc *f, uint32_t *offs, int max)
{
	const uint8_t *code = umod_text(m, f->addr, f->size);
	size_t left = f->size;
	uint64_t a = f->addr;
	cs_insn *in;
	csh cs;
	int n = 0;

	if (!code || x86_open(&cs) < 0)
		return -1;
	in = cs_malloc(cs);
	while (in && left && n < max) {
		uint32_t off = (uint32_t)(a - f->addr);
		if (!cs_disasm_iter(cs, &code, &left, &a, in)) {
			n = -1;
			break;
		}
		offs[n++] = off;
	}
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	return in ? n : -1;
}
