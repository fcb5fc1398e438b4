/*
 * Layout: the enabling image (abi.h) from a program and what matched:
 *
 *   mt_image | probes[] | ecbs[] | clauses[] | actions[] | recs[] | aggs[] |
 *   vars[] | difos[] | text | inttab | strtab | msgids[] | msgstr
 *
 * Each table starts 8-aligned.  Probe names are appended to a copy of the
 * program's string table.  ECBs are grouped per probe, in clause order, so
 * a probe's ECBs are ecbs[ecb0 .. ecb0+necbs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "link/link_int.h"

static uint32_t al8(uint32_t x)
{
	return (x + 7) & ~7u;
}

struct mt_image *link_layout(const struct mt_prog *prog, const struct mt_opts *opts,
			     const struct lmatch *c, const struct lmsgtab *msgs,
			     char *err, size_t errlen)
{
	/* string table: the program's, then probe names */
	uint32_t strsize = prog->strtab_size;
	for (uint32_t i = 0; i < c->nprobes; i++)
		strsize += (uint32_t)(strlen(c->probes[i].prov) + strlen(c->probes[i].mod) +
				      strlen(c->probes[i].func) + strlen(c->probes[i].name) + 4);

	uint32_t off = al8(sizeof(struct mt_image));
	uint32_t probes_off = off; off = al8(off + c->nprobes * sizeof(struct mt_probe));
	uint32_t ecbs_off = off; off = al8(off + c->npairs * sizeof(struct mt_ecb));
	uint32_t clauses_off = off; off = al8(off + prog->nclauses * sizeof(struct mt_clause));
	uint32_t actions_off = off; off = al8(off + prog->nactions * sizeof(struct mt_action));
	uint32_t recs_off = off; off = al8(off + prog->nrecs * sizeof(struct mt_rec));
	uint32_t aggs_off = off; off = al8(off + prog->naggs * sizeof(struct mt_agg));
	uint32_t vars_off = off; off = al8(off + prog->nvars * sizeof(struct mt_var));
	uint32_t difos_off = off; off = al8(off + prog->ndifos * sizeof(struct mt_difo));
	uint32_t text_off = off; off = al8(off + prog->ntext * sizeof(mt_instr_t));
	uint32_t ints_off = off; off = al8(off + prog->nints * sizeof(uint64_t));
	uint32_t str_off = off; off = al8(off + strsize);
	uint32_t nmsgids = msgs ? msgs->n : 0, msgstr_size = msgs ? msgs->strsize : 0;
	uint32_t msgids_off = off; off = al8(off + nmsgids * sizeof(struct mt_msgid));
	uint32_t msgstr_off = off; off = al8(off + msgstr_size);

	char *base = calloc(1, off);
	if (!base) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct mt_image *img = (struct mt_image *)base;
	img->magic = MT_IMAGE_MAGIC;
	img->version = MT_ABI_VERSION;
	img->size = off;
	img->nprobes = c->nprobes; img->probes_off = probes_off;
	img->necbs = c->npairs; img->ecbs_off = ecbs_off;
	img->nclauses = prog->nclauses; img->clauses_off = clauses_off;
	img->nactions = prog->nactions; img->actions_off = actions_off;
	img->nrecs = prog->nrecs; img->recs_off = recs_off;
	img->naggs = prog->naggs; img->aggs_off = aggs_off;
	img->nvars = prog->nvars; img->vars_off = vars_off;
	img->ndifos = prog->ndifos; img->difos_off = difos_off;
	img->ntext = prog->ntext; img->text_off = text_off;
	img->nints = prog->nints; img->ints_off = ints_off;
	img->strtab_size = strsize; img->strtab_off = str_off;
	if (nmsgids) {
		img->nmsgids = nmsgids; img->msgids_off = msgids_off;
		img->msgstr_size = msgstr_size; img->msgstr_off = msgstr_off;
	}

#define CP(o, p, n) do { if ((n) != 0) memcpy(base + (o), (p), (n)); } while (0)
	CP(clauses_off, prog->clauses, prog->nclauses * sizeof(struct mt_clause));
	CP(actions_off, prog->actions, prog->nactions * sizeof(struct mt_action));
	CP(recs_off, prog->recs, prog->nrecs * sizeof(struct mt_rec));
	CP(aggs_off, prog->aggs, prog->naggs * sizeof(struct mt_agg));
	CP(vars_off, prog->vars, prog->nvars * sizeof(struct mt_var));
	CP(difos_off, prog->difos, prog->ndifos * sizeof(struct mt_difo));
	CP(text_off, prog->text, prog->ntext * sizeof(mt_instr_t));
	CP(ints_off, prog->ints, prog->nints * sizeof(uint64_t));
	CP(str_off, prog->strtab, prog->strtab_size);
	if (nmsgids) {
		CP(msgids_off, msgs->v, nmsgids * sizeof(struct mt_msgid));
		CP(msgstr_off, msgs->str, msgstr_size);
	}

	char *strtab = base + str_off;
	uint32_t spos = prog->strtab_size;
	struct mt_probe *probes = (struct mt_probe *)(base + probes_off);
	struct mt_ecb *ecbs = (struct mt_ecb *)(base + ecbs_off);
	uint32_t e = 0;
	for (uint32_t i = 0; i < c->nprobes; i++) {
		const struct lprobe *lp = &c->probes[i];
		struct mt_probe *p = &probes[i];
		const char *names[4] = { lp->prov, lp->mod, lp->func, lp->name };
		uint32_t *dst[4] = { &p->prov, &p->mod, &p->func, &p->name };
		for (int k = 0; k < 4; k++) {
			size_t l = strlen(names[k]);
			*dst[k] = spos;
			memcpy(strtab + spos, names[k], l + 1);
			spos += (uint32_t)l + 1;
		}
		p->id = lp->pi.id;
		p->kind = lp->pi.kind;
		p->arg = lp->pi.arg;
		p->nmap = lp->pi.nmap;
		memcpy(p->argmap, lp->pi.argmap, sizeof p->argmap);
		p->ecb0 = e;
		p->necbs = lp->nclauses;
		for (uint32_t k = 0; k < lp->nclauses; k++, e++) {
			ecbs[e].probe = i;
			ecbs[e].clause = lp->clauses[k];
		}
		if (lp->pi.kind == MT_PK_ERROR)
			img->error_probe = lp->pi.id;
	}

	mt_opts_image(opts, &img->opt);
	return img;
}
