/* Freeing a compiled program (struct mt_prog, program.h). */
#include <stdlib.h>
#include "machtrace/program.h"

void mt_prog_free(struct mt_prog *p)
{
	if (!p)
		return;
	if (p->clause_info)
		for (uint32_t i = 0; i < p->nclauses; i++) {
			struct mt_clause_info *ci = &p->clause_info[i];
			for (uint32_t k = 0; k < ci->npdescs; k++) {
				free(ci->pdescs[k].prov);
				free(ci->pdescs[k].mod);
				free(ci->pdescs[k].func);
				free(ci->pdescs[k].name);
			}
			free(ci->pdescs);
		}
	if (p->action_info)
		for (uint32_t i = 0; i < p->nactions; i++) {
			free(p->action_info[i].fmt);
			free(p->action_info[i].aggids);
			free(p->action_info[i].opt_name);
			free(p->action_info[i].opt_value);
		}
	if (p->rec_info)
		for (uint32_t i = 0; i < p->nrecs; i++) {
			free(p->rec_info[i].ctype);
			free(p->rec_info[i].tdesc);
		}
	if (p->agg_info)
		for (uint32_t i = 0; i < p->naggs; i++) {
			free(p->agg_info[i].name);
			if (p->agg_info[i].keys)
				for (uint32_t k = 0; k < p->agg_info[i].nkeys; k++)
					free(p->agg_info[i].keys[k].ctype);
			free(p->agg_info[i].keys);
		}
	if (p->var_names)
		for (uint32_t i = 0; i < p->nvars; i++)
			free(p->var_names[i]);
	for (uint32_t i = 0; i < p->noptsets; i++) {
		free(p->optsets[i].name);
		free(p->optsets[i].value);
	}
	for (uint32_t i = 0; i < p->npragattrs; i++)
		free(p->pragattrs[i].prov);
	free(p->pragattrs);
	free(p->clauses); free(p->clause_info);
	free(p->actions); free(p->action_info);
	free(p->recs); free(p->rec_info);
	free(p->aggs); free(p->agg_info);
	free(p->vars); free(p->var_names);
	free(p->difos); free(p->text); free(p->ints); free(p->strtab);
	free(p->optsets); free(p->source_name); free(p->dump);
	free(p);
}
