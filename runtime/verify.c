/*
 * The image and bytecode verifier, run at attach before anything fires.
 * Structure: every table inside the image, every index in range.
 * Bytecode: known opcodes, registers < MT_NREGS, branches forward and
 * inside the DIFO, last instruction RET, inttab/strtab/variable/subroutine
 * indices valid.  With forward-only branches every DIFO runs at most ntext
 * instructions.
 */
#include "rt.h"
#include "machtrace/quantize.h"

struct vctx {
	const struct mt_image *img;
	const uint8_t *b;
	struct rt_err e;
};

static int fail(struct vctx *v, const char *what, uint64_t n1,
		const char *mid, uint64_t n2, const char *why)
{
	rt_err_str(&v->e, what);
	rt_err_num(&v->e, n1);
	if (mid) {
		rt_err_str(&v->e, mid);
		rt_err_num(&v->e, n2);
	}
	rt_err_str(&v->e, ": ");
	rt_err_str(&v->e, why);
	return -1;
}

static int table_ok(const struct mt_image *img, uint32_t n, uint32_t off,
		    uint64_t esize)
{
	return off % 4 == 0 && (uint64_t)off + (uint64_t)n * esize <= img->size &&
		(n == 0 || off >= sizeof(*img));
}

/*
 * The msgids table (mach_msgname()): inside the image, ids strictly
 * ascending (binary search), names inside a NUL-terminated msgstr.
 */
static int check_msgids(struct vctx *v)
{
	const struct mt_image *img = v->img;
	const struct mt_msgid *m = (const void *)(v->b + img->msgids_off);

	if (!table_ok(img, img->nmsgids, img->msgids_off, sizeof(struct mt_msgid)) ||
	    !table_ok(img, img->msgstr_size, img->msgstr_off, 1))
		return fail(v, "image", 0, 0, 0, "msgids table outside the image");
	if (img->nmsgids && (img->msgstr_size == 0 ||
			     v->b[img->msgstr_off + img->msgstr_size - 1]))
		return fail(v, "image", 0, 0, 0, "msgstr not NUL-terminated");
	for (uint32_t i = 0; i < img->nmsgids; i++) {
		if (i > 0 && m[i].id <= m[i - 1].id)
			return fail(v, "msgid ", i, 0, 0, "not in ascending order");
		if (m[i].name >= img->msgstr_size ||
		    m[i].subsystem >= img->msgstr_size)
			return fail(v, "msgid ", i, 0, 0, "name outside msgstr");
		if (m[i].flags & ~(uint32_t)MT_MSGID_REPLY)
			return fail(v, "msgid ", i, 0, 0, "unknown flags");
	}
	return 0;
}

static int check_tables(struct vctx *v)
{
	const struct mt_image *img = v->img;

	if (img->magic != MT_IMAGE_MAGIC)
		return fail(v, "image", 0, 0, 0, "bad magic");
	if (img->version != MT_ABI_VERSION)
		return fail(v, "image version ", img->version, 0, 0,
			    "unsupported");
	if (!table_ok(img, img->nprobes, img->probes_off, sizeof(struct mt_probe)) ||
	    !table_ok(img, img->necbs, img->ecbs_off, sizeof(struct mt_ecb)) ||
	    !table_ok(img, img->nclauses, img->clauses_off, sizeof(struct mt_clause)) ||
	    !table_ok(img, img->nactions, img->actions_off, sizeof(struct mt_action)) ||
	    !table_ok(img, img->nrecs, img->recs_off, sizeof(struct mt_rec)) ||
	    !table_ok(img, img->naggs, img->aggs_off, sizeof(struct mt_agg)) ||
	    !table_ok(img, img->nvars, img->vars_off, sizeof(struct mt_var)) ||
	    !table_ok(img, img->ndifos, img->difos_off, sizeof(struct mt_difo)) ||
	    !table_ok(img, img->ntext, img->text_off, sizeof(mt_instr_t)) ||
	    !table_ok(img, img->strtab_size, img->strtab_off, 1) ||
	    (uint64_t)img->ints_off + (uint64_t)img->nints * 8 > img->size)
		return fail(v, "image", 0, 0, 0, "table outside the image");
	if (img->strtab_size && v->b[img->strtab_off + img->strtab_size - 1])
		return fail(v, "image", 0, 0, 0, "strtab not NUL-terminated");
	if (check_msgids(v))
		return -1;
	if (img->opt.bufpolicy > MT_BUFPOLICY_RING)
		return fail(v, "bufpolicy ", img->opt.bufpolicy, 0, 0, "unknown");
	if (img->opt.strsize == 0)
		return fail(v, "strsize ", 0, 0, 0, "no room for the NUL");
	if (img->opt.ncpus > 4096)
		return fail(v, "ncpus ", img->opt.ncpus, 0, 0, "too many");
	return 0;
}

static int var_ok(struct vctx *v, uint32_t scope, uint32_t id, int assoc)
{
	const struct mt_var *vars = (const void *)(v->b + v->img->vars_off);

	for (uint32_t i = 0; i < v->img->nvars; i++)
		if (vars[i].id == id && vars[i].scope == scope)
			return (vars[i].kind == MT_VK_ASSOC) == assoc;
	return 0;
}

static int builtin_ok(uint32_t id)
{
	return id >= MT_VAR_CURTHREAD && id < MT_VAR_BUILTIN_END;
}

/* Registers each opcode reads/writes: bit 0 r1, bit 1 r2, bit 2 rd. */
static int reg_mask(uint32_t op)
{
	if (op >= MT_OP_OR && op <= MT_OP_UREM)
		return 7;
	switch (op) {
	case MT_OP_SRA: case MT_OP_COPYS:
		return 7;
	case MT_OP_NOT: case MT_OP_MOV: case MT_OP_ALLOCS:
	case MT_OP_LDSB: case MT_OP_LDSH: case MT_OP_LDSW: case MT_OP_LDUB:
	case MT_OP_LDUH: case MT_OP_LDUW: case MT_OP_LDX:
	case MT_OP_STB: case MT_OP_STH: case MT_OP_STW: case MT_OP_STX:
		return 5;
	case MT_OP_CMP: case MT_OP_SCMP:
		return 3;
	case MT_OP_TST:
		return 1;
	case MT_OP_LDGA:
		return 6;
	case MT_OP_PUSHTR:
		return 6;
	case MT_OP_RET: case MT_OP_SETX: case MT_OP_SETS: case MT_OP_LDGS:
	case MT_OP_STGS: case MT_OP_LDTS: case MT_OP_STTS: case MT_OP_LDLS:
	case MT_OP_STLS: case MT_OP_LDGAA: case MT_OP_STGAA: case MT_OP_LDTAA:
	case MT_OP_STTAA: case MT_OP_CALL: case MT_OP_PUSHTV:
		return 4;
	default:
		return 0;
	}
}

static const char *check_instr(struct vctx *v, const struct mt_difo *d,
			       uint32_t pc, mt_instr_t in)
{
	uint32_t op = MT_OP(in), m = reg_mask(op), id = MT_V16(in);

	if (op >= MT_OP__COUNT)
		return "invalid opcode";
	if (((m & 1) && MT_R1(in) >= MT_NREGS) ||
	    ((m & 2) && MT_R2(in) >= MT_NREGS) ||
	    ((m & 4) && MT_RD(in) >= MT_NREGS))
		return "invalid register";
	switch (op) {
	case MT_OP_BA: case MT_OP_BE: case MT_OP_BNE: case MT_OP_BG:
	case MT_OP_BGU: case MT_OP_BGE: case MT_OP_BGEU: case MT_OP_BL:
	case MT_OP_BLU: case MT_OP_BLE: case MT_OP_BLEU:
		if (MT_LABEL(in) <= pc)
			return "backward branch";
		if (MT_LABEL(in) >= d->ntext)
			return "branch out of range";
		break;
	case MT_OP_SETX:
		if (id >= v->img->nints)
			return "inttab index out of range";
		break;
	case MT_OP_SETS:
		if (id >= v->img->strtab_size)
			return "strtab offset out of range";
		break;
	case MT_OP_LDGS:
		if (!builtin_ok(id) && !var_ok(v, MT_VS_GLOBAL, id, 0))
			return "unknown variable";
		break;
	case MT_OP_STGS:
		if (!var_ok(v, MT_VS_GLOBAL, id, 0))
			return "unknown or read-only variable";
		break;
	case MT_OP_LDTS: case MT_OP_STTS:
		if (!var_ok(v, MT_VS_THREAD, id, 0))
			return "unknown variable";
		break;
	case MT_OP_LDLS: case MT_OP_STLS:
		if (!var_ok(v, MT_VS_LOCAL, id, 0))
			return "unknown variable";
		break;
	case MT_OP_LDGAA: case MT_OP_STGAA:
		if (!var_ok(v, MT_VS_GLOBAL, id, 1))
			return "unknown variable";
		break;
	case MT_OP_LDTAA: case MT_OP_STTAA:
		if (!var_ok(v, MT_VS_THREAD, id, 1))
			return "unknown variable";
		break;
	case MT_OP_LDGA:
		if (MT_R1(in) > MT_VAR_UREGS)
			return "unknown array variable";
		break;
	case MT_OP_CALL:
		if (id >= MT_SUBR__COUNT)
			return "unknown subroutine";
		break;
	case MT_OP_PUSHTR: case MT_OP_PUSHTV:
		if (MT_R1(in) > MT_TT_MEM)
			return "invalid tuple type";
		break;
	}
	return 0;
}

static int check_difos(struct vctx *v)
{
	const struct mt_difo *difos = (const void *)(v->b + v->img->difos_off);
	const mt_instr_t *text = (const void *)(v->b + v->img->text_off);

	for (uint32_t i = 0; i < v->img->ndifos; i++) {
		const struct mt_difo *d = &difos[i];

		if (d->ntext == 0 || (uint64_t)d->text0 + d->ntext > v->img->ntext)
			return fail(v, "DIFO ", i, 0, 0, "text out of range");
		if (MT_OP(text[d->text0 + d->ntext - 1]) != MT_OP_RET)
			return fail(v, "DIFO ", i, 0, 0,
				    "last instruction is not ret");
		if (d->rtype > MT_RT_REF)
			return fail(v, "DIFO ", i, 0, 0, "bad return type");
		for (uint32_t pc = 0; pc < d->ntext; pc++) {
			const char *why = check_instr(v, d, pc,
						      text[d->text0 + pc]);
			if (why)
				return fail(v, "DIFO ", i, " instruction ", pc,
					    why);
		}
	}
	return 0;
}

static int check_aggs(struct vctx *v)
{
	const struct mt_agg *aggs = (const void *)(v->b + v->img->aggs_off);

	for (uint32_t i = 0; i < v->img->naggs; i++) {
		const struct mt_agg *a = &aggs[i];
		uint32_t want = 0;

		switch (a->func) {
		case MT_AGG_COUNT: case MT_AGG_SUM: case MT_AGG_MIN:
		case MT_AGG_MAX:
			want = 1; break;
		case MT_AGG_AVG: want = 2; break;
		case MT_AGG_STDDEV: want = 4; break;
		case MT_AGG_QUANTIZE: want = MT_QUANTIZE_NBUCKETS; break;
		case MT_AGG_LQUANTIZE:
			if (a->param[2] <= 0 || a->param[1] <= a->param[0])
				return fail(v, "aggregation ", i + 1, 0, 0,
					    "bad lquantize parameters");
			want = mt_lquantize_nbuckets(a->param[0], a->param[1],
						     a->param[2]);
			break;
		case MT_AGG_LLQUANTIZE: {
			int64_t f = a->param[0], lo = a->param[1];
			int64_t hi = a->param[2], st = a->param[3];

			if (f < 2 || f > 0xffff || lo < 0 || hi < lo ||
			    hi > 0xffff || st < 1 || st > 0xffff ||
			    (st < f && f % st) || (st > f && st % f))
				return fail(v, "aggregation ", i + 1, 0, 0,
					    "bad llquantize parameters");
			/* dtrace-utils' layout (nvals 2n + 3) or an illumos
			   bucket array: any size, buckets past it are clamped */
			want = a->nvals;
			break;
		}
		default:
			return fail(v, "aggregation ", i + 1, 0, 0,
				    "unknown function");
		}
		/* up to 65535 lquantize() levels plus the two outer buckets */
		if (a->nvals != want || a->nvals == 0 || a->nvals > (1u << 16) + 1)
			return fail(v, "aggregation ", i + 1, 0, 0,
				    "wrong number of values");
		if (a->keysize < 8 || a->keysize % 8 || a->keysize > 1u << 20)
			return fail(v, "aggregation ", i + 1, 0, 0, "bad key size");
	}
	return 0;
}

static int check_recs(struct vctx *v, const struct mt_action *a, uint32_t ai,
		      const struct mt_clause *c)
{
	const struct mt_rec *recs = (const void *)(v->b + v->img->recs_off);

	if ((uint64_t)a->rec0 + a->nrecs > v->img->nrecs)
		return fail(v, "action ", ai, 0, 0, "records out of range");
	for (uint32_t r = 0; r < a->nrecs; r++) {
		const struct mt_rec *rec = &recs[a->rec0 + r];

		if (rec->difo > v->img->ndifos)
			return fail(v, "record ", a->rec0 + r, 0, 0,
				    "DIFO out of range");
		if (rec->kind < MT_REC_INT || rec->kind > MT_REC_STACK)
			return fail(v, "record ", a->rec0 + r, 0, 0, "bad kind");
		if (rec->kind == MT_REC_INT && rec->size != 1 && rec->size != 2 &&
		    rec->size != 4 && rec->size != 8 && rec->size != 0 &&
		    !(rec->size == 16 && (rec->flags & MT_RF_UPID)))
			return fail(v, "record ", a->rec0 + r, 0, 0, "bad size");
		if ((rec->flags & MT_RF_UPID) && rec->size < 16)
			return fail(v, "record ", a->rec0 + r, 0, 0, "bad size");
		if (a->kind != MT_ACT_AGG &&
		    (uint64_t)rec->offset + rec->size > c->recsize)
			return fail(v, "record ", a->rec0 + r, 0, 0,
				    "outside the clause record");
	}
	return 0;
}

static int check_clauses(struct vctx *v)
{
	const struct mt_clause *cl = (const void *)(v->b + v->img->clauses_off);
	const struct mt_action *acts = (const void *)(v->b + v->img->actions_off);

	for (uint32_t i = 0; i < v->img->nclauses; i++) {
		const struct mt_clause *c = &cl[i];

		if (c->pred_difo > v->img->ndifos)
			return fail(v, "clause ", i, 0, 0, "predicate out of range");
		if ((uint64_t)c->act0 + c->nacts > v->img->nactions)
			return fail(v, "clause ", i, 0, 0, "actions out of range");
		if (c->recsize % 8 || c->recsize > (1u << 24))
			return fail(v, "clause ", i, 0, 0, "bad record size");
		for (uint32_t a = 0; a < c->nacts; a++) {
			const struct mt_action *act = &acts[c->act0 + a];

			if (act->kind < MT_ACT_TRACE || act->kind >= MT_ACT__COUNT)
				return fail(v, "action ", c->act0 + a, 0, 0,
					    "unknown kind");
			if (act->kind == MT_ACT_AGG &&
			    (act->arg == 0 || act->arg > v->img->naggs))
				return fail(v, "action ", c->act0 + a, 0, 0,
					    "unknown aggregation");
			if ((act->kind == MT_ACT_IF || act->kind == MT_ACT_SKIP) &&
			    act->arg >= c->nacts - a)
				return fail(v, "action ", c->act0 + a, 0, 0,
					    "skip beyond the clause");
			if (act->kind == MT_ACT_IF && act->nrecs != 1)
				return fail(v, "action ", c->act0 + a, 0, 0,
					    "if without a condition");
			if (check_recs(v, act, c->act0 + a, c))
				return -1;
		}
	}
	return 0;
}

static int check_probes(struct vctx *v)
{
	const struct mt_probe *pr = (const void *)(v->b + v->img->probes_off);
	const struct mt_ecb *ecbs = (const void *)(v->b + v->img->ecbs_off);

	uint32_t st = v->img->strtab_size;

	for (uint32_t i = 0; i < v->img->nprobes; i++) {
		if ((uint64_t)pr[i].ecb0 + pr[i].necbs > v->img->necbs)
			return fail(v, "probe ", i, 0, 0, "ECBs out of range");
		if (pr[i].prov >= st || pr[i].mod >= st || pr[i].func >= st ||
		    pr[i].name >= st)
			return fail(v, "probe ", i, 0, 0, "name outside strtab");
		if (pr[i].nmap > MT_PROBE_MAXMAP)
			return fail(v, "probe ", i, 0, 0, "argument map too long");
		for (uint32_t k = 0; k < pr[i].nmap; k++)
			if (pr[i].argmap[k] >= MT_NARGS && pr[i].argmap[k] != MT_ARGMAP_ZERO &&
			    pr[i].argmap[k] != MT_ARGMAP_CURTHREAD &&
			    pr[i].argmap[k] != MT_ARGMAP_ELAPSED)
				return fail(v, "probe ", i, 0, 0, "argument map out of range");
	}
	for (uint32_t i = 0; i < v->img->necbs; i++)
		if (ecbs[i].probe >= v->img->nprobes ||
		    ecbs[i].clause >= v->img->nclauses)
			return fail(v, "ECB ", i + 1, 0, 0, "bad probe or clause");
	return 0;
}

int mt_rt_verify(const struct mt_image *img, char *err, uint32_t errlen)
{
	struct vctx v = { img, (const uint8_t *)img, { err, errlen, 0 } };

	if (err && errlen)
		err[0] = '\0';
	if (check_tables(&v) || check_probes(&v) || check_clauses(&v) ||
	    check_aggs(&v) || check_difos(&v))
		return -1;
	return 0;
}
