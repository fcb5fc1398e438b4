/*
 * Kernel image reader, DWARF part (libdw): prototypes of the functions,
 * C spellings of types, struct layouts and inline instances.
 *
 * A function's DIE is the DW_TAG_subprogram whose DW_AT_low_pc equals its
 * symbol's address; name, type and parameters are read through
 * DW_AT_abstract_origin/DW_AT_specification (dwarf_attr_integrate), so
 * out-of-line copies of inline functions get their prototypes too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/image/kimg_int.h"
#include "targets/mach/mach_int.h"
#include "machtrace/vec.h"

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));

	return s ? s : "";
}

static int die_type(Dwarf_Die *d, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr_integrate(d, DW_AT_type, &a), type) ? 0 : -1;
}

static void type_name(Dwarf_Die *t, char *buf, size_t len, int depth)
{
	Dwarf_Die sub;
	char inner[256];
	const char *name = dwarf_diename(t);
	int has_sub = die_type(t, &sub) == 0;

	if (depth > 16) {
		snprintf(buf, len, "?");
		return;
	}
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
		snprintf(buf, len, "%s", name ? name : "?");
		return;
	case DW_TAG_structure_type:
		snprintf(buf, len, "struct %s", name ? name : "<anon>");
		return;
	case DW_TAG_union_type:
		snprintf(buf, len, "union %s", name ? name : "<anon>");
		return;
	case DW_TAG_enumeration_type:
		snprintf(buf, len, "enum %s", name ? name : "<anon>");
		return;
	case DW_TAG_subroutine_type:
		if (has_sub)
			type_name(&sub, inner, sizeof inner, depth + 1);
		snprintf(buf, len, "%s ()", has_sub ? inner : "void");
		return;
	}
	if (has_sub)
		type_name(&sub, inner, sizeof inner, depth + 1);
	else
		snprintf(inner, sizeof inner, "void");
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		if (has_sub && dwarf_tag(&sub) == DW_TAG_subroutine_type) {
			char *p = strstr(inner, " ()");
			if (p)
				*p = 0;
			snprintf(buf, len, "%s (*)()", inner);
		} else {
			snprintf(buf, len, "%s *", inner);
		}
		return;
	case DW_TAG_const_type:
		snprintf(buf, len, has_sub && dwarf_tag(&sub) == DW_TAG_pointer_type ?
			 "%s const" : "const %s", inner);
		return;
	case DW_TAG_volatile_type:
		snprintf(buf, len, has_sub && dwarf_tag(&sub) == DW_TAG_pointer_type ?
			 "%s volatile" : "volatile %s", inner);
		return;
	case DW_TAG_restrict_type:
		snprintf(buf, len, "%s restrict", inner);
		return;
	case DW_TAG_array_type: {
		Dwarf_Die child;
		Dwarf_Word n = 0;
		Dwarf_Attribute a;
		if (dwarf_child(t, &child) == 0 &&
		    dwarf_formudata(dwarf_attr(&child, DW_AT_upper_bound, &a), &n) == 0)
			snprintf(buf, len, "%s [%lu]", inner, (unsigned long)n + 1);
		else
			snprintf(buf, len, "%s []", inner);
		return;
	}
	}
	snprintf(buf, len, "%s", inner);
}

void kimg_type_name(Dwarf_Die *type, char *buf, size_t len)
{
	type_name(type, buf, len, 0);
}

static const char *type_of(struct mt_kimg *k, Dwarf_Die *d)
{
	Dwarf_Die t;
	char buf[512];

	if (die_type(d, &t) < 0)
		return "void";
	kimg_type_name(&t, buf, sizeof buf);
	return kimg_strdup(k, buf);
}

/* Parameters of a subprogram DIE; returns -1 when it lists none. */
static int read_params(struct mt_kimg *k, Dwarf_Die *sp, struct mt_kfunc *f)
{
	Dwarf_Die c;
	int n = 0, any = 0;

	if (dwarf_child(sp, &c) != 0)
		return -1;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_unspecified_parameters) {
			f->varargs = 1;
			any = 1;
		} else if (tag == DW_TAG_formal_parameter) {
			any = 1;
			if (n < MT_KFUNC_MAXARGS) {
				f->args[n].name = kimg_strdup(k, die_name(&c));
				f->args[n].type = type_of(k, &c);
			}
			n++;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	if (!any)
		return -1;
	f->nargs = n < MT_KFUNC_MAXARGS ? n : MT_KFUNC_MAXARGS;
	return 0;
}

static void prototype(struct mt_kimg *k, Dwarf_Die *sp, struct mt_kfunc *f)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;

	f->has_dwarf = 1;
	f->noreturn = dwarf_hasattr_integrate(sp, DW_AT_noreturn);
	f->rettype = type_of(k, sp);
	f->nargs = 0;
	if (read_params(k, sp, f) == 0)
		return;
	if (dwarf_formref_die(dwarf_attr(sp, DW_AT_abstract_origin, &a), &origin) ||
	    dwarf_formref_die(dwarf_attr(sp, DW_AT_specification, &a), &origin))
		read_params(k, &origin, f);
}

struct walk {
	struct mt_kimg *k;
	struct mt_kinline *inl;
	size_t ninl, cap;
};

static void add_inline(struct walk *w, Dwarf_Die *d, const char *caller)
{
	Dwarf_Addr entry = 0, base, lo = 0, hi = 0;
	ptrdiff_t off;

	if (MT_VEC_ROOM(w->inl, w->ninl, w->cap, 1024) != 0)
		return;
	off = dwarf_ranges(d, 0, &base, &lo, &hi);
	if (dwarf_entrypc(d, &entry) != 0)
		entry = lo;
	if (off <= 0 && !entry)
		return;
	Dwarf_Attribute a;
	Dwarf_Die origin;
	w->inl[w->ninl++] = (struct mt_kinline){
		.name = kimg_strdup(w->k, die_name(d)), .caller = caller,
		.entry = entry, .low = lo, .high = hi,
		.origin = dwarf_formref_die(dwarf_attr(d, DW_AT_abstract_origin, &a), &origin) ?
			dwarf_dieoffset(&origin) : 0,
		.die = dwarf_dieoffset(d),
	};
}

static void walk_scope(struct walk *w, Dwarf_Die *scope, const char *caller)
{
	Dwarf_Die c;

	if (dwarf_child(scope, &c) != 0)
		return;
	do {
		Dwarf_Addr lo;
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram: {
			const char *name = caller;
			if (dwarf_lowpc(&c, &lo) == 0) {
				struct mt_kfunc *f = kimg_func_mut(w->k, lo);
				if (f && f->addr == lo && !f->has_dwarf)
					prototype(w->k, &c, f);
				name = f ? f->name : kimg_strdup(w->k, die_name(&c));
			}
			walk_scope(w, &c, name);
			break;
		}
		case DW_TAG_inlined_subroutine:
			add_inline(w, &c, caller ? caller : "?");
			walk_scope(w, &c, caller);
			break;
		case DW_TAG_lexical_block:
			walk_scope(w, &c, caller);
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int cmp_inline(const void *a, const void *b)
{
	const struct mt_kinline *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->entry < y->entry ? -1 : x->entry > y->entry);
}

/*
 * Functions of which only inline instances exist get an entry of their
 * own after the real ones, with the prototype of their abstract DIE.
 */
static int add_inline_only(struct mt_kimg *k)
{
	size_t groups = 0, n = k->nfuncs;
	struct mt_kfunc *p;

	for (size_t i = 0; i < k->ninlines; i++)
		groups += !i || strcmp(k->inlines[i].name, k->inlines[i - 1].name) != 0;
	p = realloc(k->funcs, (n + groups + 1) * sizeof *p);
	if (!p)
		return -1;
	k->funcs = p;
	for (size_t i = 0, j; i < k->ninlines; i = j) {
		const struct mt_kinline *in = &k->inlines[i];
		struct mt_kfunc *f = NULL;
		Dwarf_Die origin;
		for (j = i; j < k->ninlines && strcmp(k->inlines[j].name, in->name) == 0; j++)
			;
		for (size_t r = 0; r < k->nreal && !f; r++)
			if (strcmp(k->funcs[r].name, in->name) == 0)
				f = &k->funcs[r];
		if (f) {
			f->ninstances = (unsigned)(j - i);
			continue;
		}
		if (!*in->name || !in->entry)
			continue;
		f = &k->funcs[n++];
		*f = (struct mt_kfunc){
			.name = in->name, .addr = in->entry, .inline_only = 1,
			.ninstances = (unsigned)(j - i), .nargs = -1,
		};
		if (in->origin && dwarf_offdie(k->dw, in->origin, &origin))
			prototype(k, &origin, f);
	}
	k->nfuncs = n;
	return kimg_index_names(k);
}

int kimg_dwarf_load(struct mt_kimg *k, char *err, size_t errlen)
{
	struct walk w = { .k = k };
	Dwarf_Off off = 0, next;
	size_t hsize;

	k->dw = dwarf_begin_elf(k->elf, DWARF_C_READ, NULL);
	if (!k->dw)
		return 0;       /* symbols only: no prototypes, no types */
	while (dwarf_nextcu(k->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(k->dw, off + hsize, &cu))
			walk_scope(&w, &cu, NULL);
		off = next;
	}
	qsort(w.inl, w.ninl, sizeof *w.inl, cmp_inline);
	k->inlines = w.inl;
	k->ninlines = w.ninl;
	if (add_inline_only(k) < 0) {
		mt_seterr(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

size_t mt_kimg_inlines(struct mt_kimg *k, const char *name, const struct mt_kinline **out)
{
	size_t lo = 0, hi = k->ninlines, n = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(k->inlines[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + n < k->ninlines && strcmp(k->inlines[lo + n].name, name) == 0)
		n++;
	*out = n ? &k->inlines[lo] : NULL;
	return n;
}

size_t mt_kimg_inline_ranges(struct mt_kimg *k, const struct mt_kinline *in,
			     uint64_t *lo, uint64_t *hi, size_t max)
{
	Dwarf_Addr base, a, b;
	Dwarf_Die d;
	ptrdiff_t off = 0;
	size_t n = 0;

	if (!k->dw || !in->die || !dwarf_offdie(k->dw, in->die, &d))
		return 0;
	while (n < max && (off = dwarf_ranges(&d, off, &base, &a, &b)) > 0) {
		lo[n] = a;
		hi[n++] = b;
	}
	return n;
}

/* Where the caller's rbp is: {call_frame_cfa [, plus_uconst N]} in memory. */
static int frame_rbp(Dwarf_Frame *f, struct mt_kframe *fr)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t n = 0;
	int rc = dwarf_frame_register(f, MT_KREG_RBP, mem, &ops, &n);

	fr->rbp_saved = 0;
	fr->rbp_off = 0;
	if (rc < 0)
		return -1;
	if (rc == 1 || n == 0)		/* a value, or same value: not saved */
		return rc == 1 ? -1 : 0;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -1;
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst)
		fr->rbp_off = (int64_t)ops[1].number;
	else if (n != 1)
		return -1;
	fr->rbp_saved = 1;
	return 0;
}

int mt_kimg_frame(struct mt_kimg *k, uint64_t pc, struct mt_kframe *fr)
{
	Dwarf_Frame *f = NULL;
	Dwarf_Op *ops = NULL;
	size_t n = 0;
	int rc = -1;

	if (!k->cfi_tried) {
		k->cfi_tried = 1;
		k->cfi = dwarf_getcfi_elf(k->elf);
	}
	if (!k->cfi || dwarf_cfi_addrframe(k->cfi, pc, &f) != 0)
		return -1;
	/* libdw gives a register + offset rule as one DW_OP_bregx */
	if (dwarf_frame_cfa(f, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == MT_KREG_RSP || ops[0].number == MT_KREG_RBP)) {
		fr->cfa_reg = (int)ops[0].number;
		fr->cfa_off = (int64_t)ops[0].number2;
		rc = frame_rbp(f, fr);
	}
	free(f);
	return rc;
}

/* Register (DWARF number) holding the value of variable d at pc, -1. */
static int var_reg_at(Dwarf_Die *d, uint64_t pc)
{
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t len;

	if (!dwarf_attr(d, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, pc, &expr, &len, 1) != 1 || len != 1)
		return -1;
	if (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg15)
		return expr[0].atom - DW_OP_reg0;
	if (expr[0].atom == DW_OP_regx && expr[0].number <= 15)
		return (int)expr[0].number;
	return -1;
}

int mt_kimg_var_reg(struct mt_kimg *k, uint64_t pc, const char *name)
{
	Dwarf_Die cu, *scopes = NULL, child;
	int n, reg = -1, found = 0;

	if (!k->dw || !dwarf_addrdie(k->dw, pc, &cu))
		return -1;
	n = dwarf_getscopes(&cu, pc, &scopes);
	/* innermost first: the name as the code at pc sees it */
	for (int i = 0; i < n && !found; i++) {
		if (dwarf_child(&scopes[i], &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child);
			const char *s;
			if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter)
				continue;
			s = die_name(&child);
			if (s && strcmp(s, name) == 0) {
				reg = var_reg_at(&child, pc);
				found = 1;
			}
		} while (!found && dwarf_siblingof(&child, &child) == 0);
	}
	free(scopes);
	return reg;
}
