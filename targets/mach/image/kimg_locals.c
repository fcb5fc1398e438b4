/*
 * A function's local variables and parameters at one instruction (DWARF):
 * the innermost scope at pc that declares the name (an inlined copy's
 * scopes come first), its C type, and its location there compiled to D
 * (dwloc.c) with the frame base of the enclosing out-of-line function and
 * the CFA rule of pc (.eh_frame).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/image/dwloc.h"
#include "targets/mach/image/kimg_int.h"

#define MAXOPS 64

static int is_var(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

/* Whether d declares a variable or parameter called name, its DIE in *var. */
static int declares(Dwarf_Die *d, const char *name, Dwarf_Die *var)
{
	Dwarf_Die child;

	if (dwarf_child(d, &child) != 0)
		return 0;
	do {
		Dwarf_Attribute a;
		const char *s = is_var(&child) ? dwarf_formstring(
			dwarf_attr_integrate(&child, DW_AT_name, &a)) : NULL;
		if (s && strcmp(s, name) == 0) {
			*var = child;
			return 1;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/*
 * The scopes around pc, innermost first, as the DIE tree nests them: an
 * inlined copy's scopes, then its caller's up to the out-of-line
 * subprogram (whose frame base the copy's locations use) and the CU.
 * dwarf_getscopes follows a copy to its abstract origin's scopes instead,
 * which leaves the caller out.  Their count (*out malloc'd), or -1.
 */
static int scopes_at(struct mt_kimg *k, uint64_t pc, Dwarf_Die **out)
{
	Dwarf_Die cu, *s = NULL;
	int n;

	*out = NULL;
	if (!k->dw || !dwarf_addrdie(k->dw, pc, &cu) || (n = dwarf_getscopes(&cu, pc, &s)) <= 0) {
		free(s);
		return -1;
	}
	n = dwarf_getscopes_die(&s[0], out);
	free(s);
	return n;
}

/*
 * The DIE declaring name in scopes (scopes_at), and the subprogram
 * holding it (frame base): 0; -1 when no scope declares it; -2 when an
 * inlined copy's abstract origin declares it but the copy keeps no DIE
 * of it (optimized out, not the caller's variable of that name).
 */
static int find_var(Dwarf_Die *scopes, int n, const char *name, Dwarf_Die *var,
		    Dwarf_Die *fn)
{
	int found = 0;

	for (int i = 0; i < n; i++) {
		Dwarf_Attribute a;
		Dwarf_Die origin, unused;
		if (!found && !(found = declares(&scopes[i], name, var)) &&
		    dwarf_formref_die(dwarf_attr(&scopes[i], DW_AT_abstract_origin, &a), &origin) &&
		    declares(&origin, name, &unused))
			return -2;
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*fn = scopes[i];
			return found ? 0 : -1;
		}
	}
	return -1;
}

/* Convert libdw's operations (at most MAXOPS) for dwloc. */
static size_t ops_of(const Dwarf_Op *in, size_t n, struct dwloc_op *out)
{
	size_t i;

	for (i = 0; i < n && i < MAXOPS; i++) {
		out[i].atom = in[i].atom;
		out[i].number = in[i].number;
		out[i].number2 = in[i].number2;
		out[i].block = in[i].atom == DW_OP_implicit_value ?
			(const uint8_t *)(uintptr_t)in[i].number2 : NULL;
	}
	return i;
}

/* Location of d at pc: ops (0 when none there), -1 on a DWARF error. */
static int loc_at(Dwarf_Die *d, int attr, uint64_t pc, struct dwloc_op *ops)
{
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t len;
	int rc;

	if (!dwarf_attr(d, attr, &a))
		return 0;
	rc = dwarf_getlocation_addr(&a, pc, &expr, &len, 1);
	if (rc <= 0)
		return rc;
	return (int)ops_of(expr, len, ops);
}

/* DW_AT_const_value: a constant instead of a location; 1 if d has one. */
static int const_value(Dwarf_Die *d, struct dwloc_res *res)
{
	Dwarf_Attribute a;
	Dwarf_Sword v;

	if (!dwarf_attr(d, DW_AT_const_value, &a) || dwarf_formsdata(&a, &v) != 0)
		return 0;
	res->kind = DWLOC_VALUE;
	snprintf(res->text, DWLOC_TEXT, "(%lld)", (long long)v);
	return 1;
}

int mt_kimg_local(struct mt_kimg *k, uint64_t pc, const char *name, char *ctype,
		  size_t ctlen, struct dwloc_res *res, char *err, size_t errlen)
{
	Dwarf_Die *scopes = NULL, var, fn, t;
	struct dwloc_op ops[MAXOPS], fb[MAXOPS];
	struct dwloc_frame fr = { 0, 0, NULL, 0 };
	struct mt_kframe kf;
	Dwarf_Attribute a;
	Dwarf_Word size;
	int n, nops, nfb, rc = -1;

	snprintf(err, errlen, "no local variable or parameter %s", name);
	n = scopes_at(k, pc, &scopes);
	if (n > 0 && (n = find_var(scopes, n, name, &var, &fn)) == -2)
		snprintf(err, errlen, "optimized out");
	if (n < 0)
		goto out;
	if (!dwarf_formref_die(dwarf_attr_integrate(&var, DW_AT_type, &a), &t))
		goto out;
	kimg_type_name(&t, ctype, ctlen);
	if (const_value(&var, res)) {
		rc = 0;
		goto out;
	}
	nops = loc_at(&var, DW_AT_location, pc, ops);
	nfb = loc_at(&fn, DW_AT_frame_base, pc, fb);
	if (nops < 0 || nfb < 0) {
		snprintf(err, errlen, "unreadable DWARF location");
		goto out;
	}
	if (mt_kimg_frame(k, pc, &kf) == 0) {
		fr.cfa_reg = kf.cfa_reg;
		fr.cfa_off = kf.cfa_off;
	} else {
		fr.cfa_reg = -1;	/* no CFA rule: call_frame_cfa fails */
	}
	fr.fb = nfb ? fb : NULL;
	fr.nfb = (size_t)nfb;
	if (dwarf_aggregate_size(&t, &size) != 0)
		size = 8;
	rc = dwloc_compile(ops, (size_t)nops, &fr, size, res, err, errlen);
out:
	free(scopes);
	return rc;
}

/* Add the variables scope declares to v (n of them, room for max). */
static int scope_names(Dwarf_Die *scope, char **v, int n, int max)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return n;
	do {
		Dwarf_Attribute a;
		const char *s = is_var(&child) ? dwarf_formstring(
			dwarf_attr_integrate(&child, DW_AT_name, &a)) : NULL;
		int dup = 0;
		for (int i = 0; s && i < n && !dup; i++)
			dup = strcmp(v[i], s) == 0;
		if (!s || dup)
			continue;
		if (n == max || !(v[n] = strdup(s)))
			return -1;
		n++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

int mt_kimg_local_names(struct mt_kimg *k, uint64_t pc, char ***names)
{
	enum { MAXNAMES = 256 };
	Dwarf_Die *scopes = NULL;
	char **v = calloc(MAXNAMES, sizeof *v);
	int n = 0, ns;

	*names = v;
	if (!v || (ns = scopes_at(k, pc, &scopes)) <= 0) {
		free(scopes);
		return v ? 0 : -1;
	}
	for (int i = 0; i < ns && n >= 0; i++) {
		n = scope_names(&scopes[i], v, n, MAXNAMES);
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	if (n < 0) {
		for (int i = 0; i < MAXNAMES; i++)
			free(v[i]);
		free(v);
		*names = NULL;
	}
	return n;
}

/* The bytes of d's type, negative when it is a signed integer. */
static int operand_size(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	Dwarf_Word enc = 0;
	int size;

	if (!dwarf_formref_die(dwarf_attr_integrate(d, DW_AT_type, &a), &t) ||
	    dwarf_peel_type(&t, &t) != 0 || (size = dwarf_bytesize(&t)) <= 0 || size > 8)
		return 8;
	if (dwarf_tag(&t) == DW_TAG_base_type && dwarf_attr(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char ? -size : size;
}

/* d's location at pc as one operand (struct dwloc_operand). */
static void operand_at(struct mt_kimg *k, Dwarf_Die *d, uint64_t pc, struct dwloc_operand *o)
{
	struct dwloc_op ops[MAXOPS];
	struct dwloc_res res;
	struct mt_kframe kf;
	int n = loc_at(d, DW_AT_location, pc, ops);
	unsigned a = n > 0 ? ops[0].atom : 0;

	memset(o, 0, sizeof *o);
	o->size = operand_size(d);
	if (const_value(d, &res)) {
		o->kind = DWOP_IMM;
		o->val = strtoll(res.text + 1, NULL, 10);
	} else if (n == 1 && (a == DW_OP_regx || (a >= DW_OP_reg0 && a <= DW_OP_reg15))) {
		o->kind = DWOP_REG;
		o->reg = a == DW_OP_regx ? (int)ops[0].number : (int)(a - DW_OP_reg0);
	} else if (n == 1 && (a == DW_OP_bregx || (a >= DW_OP_breg0 && a <= DW_OP_breg15))) {
		o->kind = DWOP_MEM;
		o->reg = a == DW_OP_bregx ? (int)ops[0].number : (int)(a - DW_OP_breg0);
		o->val = a == DW_OP_bregx ? (int64_t)ops[0].number2 : (int64_t)ops[0].number;
	} else if (n == 1 && a == DW_OP_fbreg && mt_kimg_frame(k, pc, &kf) == 0) {
		o->kind = DWOP_MEM;	/* GCC's frame base: DW_OP_call_frame_cfa */
		o->reg = kf.cfa_reg;
		o->val = kf.cfa_off + (int64_t)ops[0].number;
	} else if (n == 2 && ops[1].atom == DW_OP_stack_value &&
		   ((a >= DW_OP_lit0 && a <= DW_OP_lit31) || a == DW_OP_constu ||
		    a == DW_OP_consts || (a >= DW_OP_const1u && a <= DW_OP_const8s))) {
		o->kind = DWOP_IMM;
		o->val = a <= DW_OP_lit31 && a >= DW_OP_lit0 ? (int64_t)(a - DW_OP_lit0) :
			(int64_t)ops[0].number;
	}
	if (o->reg > 15)
		o->kind = DWOP_NONE;
}

int mt_kimg_inline_args(struct mt_kimg *k, const struct mt_kinline *in, uint64_t pc,
			const char *const *names, int n, struct dwloc_operand *out)
{
	Dwarf_Die d, c;

	memset(out, 0, (size_t)n * sizeof *out);
	if (!k->dw || !in->die || !dwarf_offdie(k->dw, in->die, &d))
		return -1;
	if (dwarf_child(&d, &c) != 0)
		return 0;
	do {
		Dwarf_Attribute a;
		const char *s = dwarf_tag(&c) == DW_TAG_formal_parameter ?
			dwarf_formstring(dwarf_attr_integrate(&c, DW_AT_name, &a)) : NULL;
		for (int i = 0; s && i < n; i++)
			if (names[i] && strcmp(names[i], s) == 0)
				operand_at(k, &c, pc, &out[i]);
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}
