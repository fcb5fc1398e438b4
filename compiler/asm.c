/*
 * Assembler: the shared text, integer and string tables every DIFO points
 * into, DIFO boundaries and branch patching, and moving the finished tables
 * into the struct mt_prog.
 */
#include <stdlib.h>
#include <string.h>
#include "cc.h"

/*
 * Branch labels are 24 bits (MT_INSTR_BR); bounding the whole text there
 * also bounds the memory of inlines that expand to exponential code.
 */
#define AS_TEXT_MAX	(1u << 24)

uint32_t as_emit(struct cc *cc, mt_instr_t i)
{
	if (cc->text_v.n >= AS_TEXT_MAX)
		cc_error(cc, cc->cg_line, D_DIF_OFLOW, "instruction table overflow");
	VEC_PUSH(cc, cc->text_v, i);
	return cc->text_v.n - 1;
}

/*
 * The integer table holds fewer than 0xffff values, each once: int_slots
 * (open addressing, more than twice as many slots) finds a value's index
 * without a walk of the table.
 */
#define AS_INT_SLOTS	(1u << 17)

uint32_t as_int(struct cc *cc, uint64_t v)
{
	uint32_t h = (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> 47);

	if (cc->int_slots == NULL)
		cc->int_slots = cc_alloc(cc, AS_INT_SLOTS * sizeof(*cc->int_slots));
	for (;; h = (h + 1) % AS_INT_SLOTS) {
		uint32_t i = cc->int_slots[h];

		if (i == 0)
			break;
		if (cc->ints.v[i - 1] == v)
			return i - 1;
	}
	if (cc->ints.n >= 0xffff)
		cc_error(cc, 0, D_DIF_OFLOW, "integer table overflow");
	VEC_PUSH(cc, cc->ints, v);
	cc->int_slots[h] = cc->ints.n;
	return cc->ints.n - 1;
}

/* Strings are NUL-terminated in the table; equal strings are shared. */
uint32_t as_str(struct cc *cc, const char *s, size_t len)
{
	uint32_t off = 0;
	while (off < cc->strtab.n) {
		size_t l = strlen(cc->strtab.v + off);
		if (l == len && memcmp(cc->strtab.v + off, s, len) == 0)
			return off;
		off += (uint32_t)l + 1;
	}
	off = cc->strtab.n;
	if (off + len + 1 > 0xffff)
		cc_error(cc, 0, D_DIF_OFLOW, "string table overflow");
	for (size_t i = 0; i < len; i++)
		VEC_PUSH(cc, cc->strtab, s[i]);
	VEC_PUSH(cc, cc->strtab, 0);
	return off;
}

uint32_t as_difo_begin(struct cc *cc)
{
	return cc->text_v.n;
}

uint32_t as_difo_end(struct cc *cc, uint32_t text0, uint32_t rtype,
		     uint32_t rsize)
{
	struct mt_difo d = { text0, cc->text_v.n - text0, rtype, rsize };
	VEC_PUSH(cc, cc->difos, d);
	return cc->difos.n;
}

void as_patch(struct cc *cc, uint32_t at, uint32_t target)
{
	mt_instr_t i = cc->text_v.v[at];
	cc->text_v.v[at] = MT_INSTR_BR(MT_OP(i), target);
}

#define TAKE(dst, ndst, vec) do { (dst) = (vec).v; (ndst) = (vec).n; \
	(vec).v = NULL; (vec).n = (vec).cap = 0; } while (0)

void as_finish(struct cc *cc, struct mt_prog *p)
{
	uint32_t n;
	memcpy(p->stmt_attr, cc->stmt_attr, sizeof(p->stmt_attr));
	TAKE(p->clauses, p->nclauses, cc->clauses);
	TAKE(p->clause_info, n, cc->clause_info);
	TAKE(p->actions, p->nactions, cc->actions);
	TAKE(p->action_info, n, cc->action_info);
	TAKE(p->recs, p->nrecs, cc->recs);
	TAKE(p->rec_info, n, cc->rec_info);
	TAKE(p->aggs, p->naggs, cc->aggs_v);
	TAKE(p->agg_info, n, cc->agg_info);
	TAKE(p->vars, p->nvars, cc->vars);
	TAKE(p->var_names, n, cc->var_names);
	TAKE(p->difos, p->ndifos, cc->difos);
	TAKE(p->text, p->ntext, cc->text_v);
	TAKE(p->ints, p->nints, cc->ints);
	TAKE(p->strtab, p->strtab_size, cc->strtab);
	TAKE(p->optsets, p->noptsets, cc->optsets);
	TAKE(p->pragattrs, p->npragattrs, cc->pragattrs);
	(void)n;
}
