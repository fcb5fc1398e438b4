/*
 * Kernel image reader, ELF part: the file is mapped through libelf; the
 * functions are its STT_FUNC symbols with a size in executable sections
 * (.text; .boot holds GNU Mach's 32-bit entry code and is refused).
 * DWARF (kimg_dwarf.c) and decoding (x86_64/decode.c) complete each
 * function afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "targets/mach/image/kimg_int.h"
#include "targets/mach/mach_int.h"

/* Symbols every GNU Mach kernel has; their absence means "not GNU Mach". */
static const char *const mach_markers[] = { "mach_msg_trap", "thread_invoke", "vm_fault" };

void *kimg_alloc(struct mt_kimg *k, size_t n)
{
	struct kimg_arena *a = k->arena;

	n = (n + 15) & ~(size_t)15;
	if (!a || a->used + n > a->cap) {
		size_t cap = n > 65536 ? n : 65536;
		a = malloc(sizeof *a + cap);
		if (!a)
			return NULL;
		a->next = k->arena;
		a->used = 0;
		a->cap = cap;
		k->arena = a;
	}
	a->used += n;
	return memset(a->mem + a->used - n, 0, n);
}

const char *kimg_strdup(struct mt_kimg *k, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = kimg_alloc(k, n);

	return d ? memcpy(d, s, n) : "";
}

static int open_elf(const char *path, int *fd, Elf **elf, char *err, size_t errlen)
{
	char elfpath[PATH_MAX];
	GElf_Ehdr eh;

	elf_version(EV_CURRENT);
	*fd = -1;
	*elf = NULL;
	if (mt_kernel_elf(path, elfpath, sizeof elfpath, err, errlen) < 0)
		return -1;
	*fd = open(elfpath, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		mt_seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF || !gelf_getehdr(*elf, &eh)) {
		mt_seterr(err, errlen, "%s: not an ELF file (expected a GNU Mach kernel)", path);
		goto fail;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
	    eh.e_type != ET_EXEC) {
		mt_seterr(err, errlen, "%s: not an x86_64 ELF64 executable (expected a GNU Mach kernel)",
			  path);
		goto fail;
	}
	return 0;
fail:
	if (*elf)
		elf_end(*elf);
	close(*fd);
	*elf = NULL;
	*fd = -1;
	return -1;
}

static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == SHT_SYMTAB)
			return scn;
	return NULL;
}

static int has_markers(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, found = 0;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym s;
		const char *name;
		if (!gelf_getsym(d, (int)i, &s) || !(name = elf_strptr(elf, sh->sh_link, s.st_name)))
			continue;
		for (size_t m = 0; m < sizeof mach_markers / sizeof *mach_markers; m++)
			if (strcmp(name, mach_markers[m]) == 0)
				found |= 1u << m;
	}
	return found == (1u << (sizeof mach_markers / sizeof *mach_markers)) - 1;
}

static int check_elf(const char *path, Elf *elf, char *err, size_t errlen)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_symtab(elf, &sh);

	if (!scn) {
		mt_seterr(err, errlen, "%s: the kernel has no symbol table (stripped?); "
			  "use a kernel with symbols such as gnumach-image-*-dbg", path);
		return -1;
	}
	if (!has_markers(elf, scn, &sh)) {
		mt_seterr(err, errlen, "%s: not a GNU Mach kernel (no mach_msg_trap, "
			  "thread_invoke, vm_fault symbols)", path);
		return -1;
	}
	return 0;
}

int mt_kimg_check(const char *path, char *err, size_t errlen)
{
	Elf *elf;
	int fd, rc;

	if (open_elf(path, &fd, &elf, err, errlen) < 0)
		return -1;
	rc = check_elf(path, elf, err, errlen);
	elf_end(elf);
	close(fd);
	return rc;
}

static int load_sections(struct mt_kimg *k)
{
	Elf_Scn *scn = NULL;
	size_t shstr, n = 0;

	if (elf_getshdrstrndx(k->elf, &shstr) < 0 || elf_getshdrnum(k->elf, &n) < 0)
		return -1;
	k->secs = calloc(n, sizeof *k->secs);
	if (!k->secs)
		return -1;
	while ((scn = elf_nextscn(k->elf, scn))) {
		GElf_Shdr sh;
		struct kimg_section *s;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_addr)
			continue;
		s = &k->secs[k->nsecs++];
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->exec = !!(sh.sh_flags & SHF_EXECINSTR);
		name = elf_strptr(k->elf, shstr, sh.sh_name);
		s->is_boot = name && strcmp(name, ".boot") == 0;
		if (sh.sh_type != SHT_NOBITS) {
			Elf_Data *d = elf_rawdata(scn, NULL);
			s->data = d ? d->d_buf : NULL;
		}
	}
	return 0;
}

static const struct kimg_section *section_at(const struct mt_kimg *k, uint64_t va)
{
	for (size_t i = 0; i < k->nsecs; i++)
		if (va >= k->secs[i].addr && va - k->secs[i].addr < k->secs[i].size)
			return &k->secs[i];
	return NULL;
}

const uint8_t *mt_kimg_bytes(const struct mt_kimg *k, uint64_t va, size_t len)
{
	const struct kimg_section *s = section_at(k, va);

	if (!s || !s->data || va + len > s->addr + s->size)
		return NULL;
	return s->data + (va - s->addr);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct mt_kfunc *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->global < y->global ? 1 : (x->global > y->global ? -1 : 0);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(struct mt_kfunc *const *)a)->name, (*(struct mt_kfunc *const *)b)->name);
}

/* How many of n elements (sorted by the uint64_t address at offset off)
   have an address <= addr. */
static size_t upto(const void *base, size_t n, size_t stride, size_t off, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const uint64_t *a = (const uint64_t *)((const char *)base + mid * stride + off);
		if (*a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_label(const void *a, const void *b)
{
	const struct kimg_label *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * Which symbols name addresses: in code, functions and assembly labels;
 * in data, as dtrace's symbol table (dt_module's address map), objects,
 * functions and untyped markers, but no unsized local one.  Among one
 * address's, the lowest rank wins: a function before a label in code; in
 * data a sized symbol before a marker, a typed one before an untyped;
 * then a global one before a local one, then symbol table order.
 */
static int is_label(const GElf_Sym *s, int exec)
{
	int t = GELF_ST_TYPE(s->st_info);

	if (exec)
		return t == STT_FUNC || t == STT_NOTYPE;
	return (t == STT_OBJECT || t == STT_FUNC || t == STT_NOTYPE) &&
	       (GELF_ST_BIND(s->st_info) != STB_LOCAL || s->st_size);
}

static uint32_t label_rank(const GElf_Sym *s, size_t i, int exec)
{
	uint32_t r = (uint32_t)i;

	if (GELF_ST_TYPE(s->st_info) == STT_NOTYPE)
		r += 1u << 29;
	if (GELF_ST_BIND(s->st_info) != STB_GLOBAL)
		r += 1u << 28;
	if (!exec && !s->st_size)
		r += 1u << 30;
	return r;
}

/* The labels of code (exec) or of data by address, one per address. */
static struct kimg_label *load_labels(struct mt_kimg *k, int exec, size_t *count)
{
	struct kimg_label *ls = calloc(k->nsyms ? k->nsyms : 1, sizeof *ls);
	size_t n = 0;

	if (!ls)
		return NULL;
	for (size_t i = 0; i < k->nsyms; i++) {
		const GElf_Sym *s = &k->syms[i];
		const struct kimg_section *sec = section_at(k, s->st_value);
		if (!sec || sec->exec != exec || !is_label(s, exec))
			continue;
		ls[n++] = (struct kimg_label){
			.addr = s->st_value, .size = s->st_size, .name = k->symnames[i],
			.rank = label_rank(s, i, exec),
		};
	}
	qsort(ls, n, sizeof *ls, cmp_label);
	*count = 0;
	for (size_t i = 0; i < n; i++)
		if (!*count || ls[*count - 1].addr != ls[i].addr)
			ls[(*count)++] = ls[i];
	return ls;
}

/* The data symbol holding addr, as dtrace's: a sized one's bytes, a
   marker's own address. */
static const char *data_at(const struct mt_kimg *k, uint64_t addr, uint64_t *off)
{
	size_t lo = upto(k->dlabels, k->ndlabels, sizeof *k->dlabels,
			 offsetof(struct kimg_label, addr), addr);
	const struct kimg_label *l = lo ? &k->dlabels[lo - 1] : NULL;

	if (!l || addr - l->addr >= (l->size ? l->size : 1))
		return NULL;
	*off = addr - l->addr;
	return l->name;
}

int mt_kimg_in_image(const struct mt_kimg *k, uint64_t addr)
{
	const struct kimg_section *sec = section_at(k, addr);

	return sec && !sec->is_boot;
}

const char *mt_kimg_sym_at(const struct mt_kimg *k, uint64_t addr, uint64_t *off)
{
	const struct mt_kfunc *f = mt_kimg_func_at(k, addr);
	const struct kimg_section *sec = section_at(k, addr);
	const struct kimg_label *l;
	size_t lo;

	if (f) {
		*off = addr - f->addr;
		return f->name;
	}
	if (!sec)
		return NULL;
	if (!sec->exec)
		return data_at(k, addr, off);
	lo = upto(k->labels, k->nlabels, sizeof *k->labels, offsetof(struct kimg_label, addr), addr);
	if (!lo)
		return NULL;
	l = &k->labels[lo - 1];
	/* a sized one's end is its own: a noreturn call's return address */
	if (l->addr < sec->addr || (l->size && addr - l->addr > l->size))
		return NULL;
	*off = addr - l->addr;
	return l->name;
}

/* Functions: STT_FUNC symbols in executable sections; one per address. */
static int load_symbols(struct mt_kimg *k)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_symtab(k->elf, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0, nf = 0;

	k->syms = calloc(n ? n : 1, sizeof *k->syms);
	k->symnames = calloc(n ? n : 1, sizeof *k->symnames);
	k->funcs = calloc(n ? n : 1, sizeof *k->funcs);
	if (!k->syms || !k->symnames || !k->funcs)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;
		const struct kimg_section *sec;
		if (!gelf_getsym(d, (int)i, &s) || !(name = elf_strptr(k->elf, sh.sh_link, s.st_name)) ||
		    !*name)
			continue;
		k->syms[k->nsyms] = s;
		k->symnames[k->nsyms++] = name;
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC || !(sec = section_at(k, s.st_value)) ||
		    !sec->exec)
			continue;
		k->funcs[nf] = (struct mt_kfunc){
			.name = name, .addr = s.st_value, .size = s.st_size,
			.global = GELF_ST_BIND(s.st_info) == STB_GLOBAL, .nargs = -1,
		};
		if (sec->is_boot) {
			k->funcs[nf].patch = MT_PATCH_REFUSED;
			k->funcs[nf].why = "32-bit boot code (.boot)";
		}
		nf++;
	}
	qsort(k->funcs, nf, sizeof *k->funcs, cmp_addr);
	k->nfuncs = 0;
	for (size_t i = 0; i < nf; i++)         /* aliases: keep the first (global) name */
		if (!k->nfuncs || k->funcs[k->nfuncs - 1].addr != k->funcs[i].addr)
			k->funcs[k->nfuncs++] = k->funcs[i];
	k->nreal = k->nfuncs;
	k->labels = load_labels(k, 1, &k->nlabels);
	k->dlabels = load_labels(k, 0, &k->ndlabels);
	return !k->labels || !k->dlabels ? -1 : kimg_index_names(k);
}

int kimg_index_names(struct mt_kimg *k)
{
	free(k->by_name);
	k->by_name = calloc(k->nfuncs ? k->nfuncs : 1, sizeof *k->by_name);
	if (!k->by_name)
		return -1;
	for (size_t i = 0; i < k->nfuncs; i++)
		k->by_name[i] = &k->funcs[i];
	qsort(k->by_name, k->nfuncs, sizeof *k->by_name, cmp_name);
	return 0;
}

struct mt_kimg *mt_kimg_open(const char *path, char *err, size_t errlen)
{
	struct mt_kimg *k = calloc(1, sizeof *k);

	if (!k) {
		mt_seterr(err, errlen, "out of memory");
		return NULL;
	}
	k->fd = -1;
	k->path = strdup(path);
	if (open_elf(path, &k->fd, &k->elf, err, errlen) < 0 ||
	    check_elf(path, k->elf, err, errlen) < 0)
		goto fail;
	if (load_sections(k) < 0 || load_symbols(k) < 0) {
		mt_seterr(err, errlen, "%s: cannot read sections or symbols: %s", path, elf_errmsg(-1));
		goto fail;
	}
	if (kimg_dwarf_load(k, err, errlen) < 0 || kimg_decode(k, err, errlen) < 0)
		goto fail;
	return k;
fail:
	mt_kimg_close(k);
	return NULL;
}

void mt_kimg_close(struct mt_kimg *k)
{
	if (!k)
		return;
	if (k->cfi)
		dwarf_cfi_end(k->cfi);
	if (k->dw)
		dwarf_end(k->dw);
	if (k->elf)
		elf_end(k->elf);
	if (k->fd >= 0)
		close(k->fd);
	while (k->arena) {
		struct kimg_arena *a = k->arena;
		k->arena = a->next;
		free(a);
	}
	free(k->secs);
	free(k->tnames);
	free(k->funcs);
	free(k->by_name);
	free(k->syms);
	free(k->symnames);
	free(k->labels);
	free(k->dlabels);
	free(k->structs);
	free(k->inlines);
	free(k->path);
	free(k);
}

const char *mt_kimg_path(const struct mt_kimg *k)
{
	return k->path;
}

size_t mt_kimg_nfuncs(const struct mt_kimg *k)
{
	return k->nfuncs;
}

const struct mt_kfunc *mt_kimg_func(const struct mt_kimg *k, size_t i)
{
	return i < k->nfuncs ? &k->funcs[i] : NULL;
}

const struct mt_kfunc *mt_kimg_lookup(const struct mt_kimg *k, const char *name)
{
	struct mt_kfunc key = { .name = name }, *pk = &key, **r;

	r = bsearch(&pk, k->by_name, k->nfuncs, sizeof *k->by_name, cmp_name);
	return r ? *r : NULL;
}

struct mt_kfunc *kimg_func_mut(struct mt_kimg *k, uint64_t addr)
{
	size_t lo = upto(k->funcs, k->nreal, sizeof *k->funcs, offsetof(struct mt_kfunc, addr), addr);

	if (!lo)
		return NULL;
	struct mt_kfunc *f = &k->funcs[lo - 1];
	return addr - f->addr < (f->size ? f->size : 1) ? f : NULL;
}

const struct mt_kfunc *mt_kimg_func_at(const struct mt_kimg *k, uint64_t addr)
{
	return kimg_func_mut((struct mt_kimg *)k, addr);
}

int mt_kimg_symbol(const struct mt_kimg *k, const char *name, uint64_t *value)
{
	uint64_t size;

	return mt_kimg_symbol_size(k, name, value, &size);
}

int mt_kimg_symbol_size(const struct mt_kimg *k, const char *name, uint64_t *value,
			uint64_t *size)
{
	for (size_t i = 0; i < k->nsyms; i++)
		if (strcmp(k->symnames[i], name) == 0) {
			*value = k->syms[i].st_value;
			*size = k->syms[i].st_size;
			return 0;
		}
	return -1;
}
