/*
 * Internals of the link stage (link/): matching (match.c) hands layout
 * (layout.c) the probes that matched, sorted by id, each with the clauses
 * enabled on it in clause order.
 */
#ifndef MT_LINK_INT_H
#define MT_LINK_INT_H
#include "machtrace/program.h"

struct lprobe {
	struct mt_probe_info pi;
	char *prov, *mod, *func, *name;
	uint32_t *clauses;		/* clause indices, in order */
	uint32_t nclauses;
};

struct lmatch {
	struct lprobe *probes;
	uint32_t nprobes, cap;
	uint32_t npairs;		/* (probe, clause) pairs: ECBs */
	uint32_t clause;		/* clause being matched */
	int matched;
};

int link_match(const struct mt_prog *prog, const struct mt_opts *opts,
	       struct mt_target *t, struct lmatch *m, char *err, size_t errlen);
void link_match_free(struct lmatch *m);
struct mt_image *link_layout(const struct mt_prog *prog, const struct mt_opts *opts,
			     const struct lmatch *m, char *err, size_t errlen);

#endif
