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

/* The image's msgids table (msgtab.c): entries by id, their strings. */
struct lmsgtab {
	struct mt_msgid *v;
	uint32_t n;
	char *str;
	uint32_t strsize;
};

/* 1 if the program calls mach_msgname() or mach_msgsubsystem(). */
int link_uses_msgids(const struct mt_prog *prog);
/* The names of every msgids source (mt_msgids_open): built-in, sysdir,
   then opts' -x msgids paths.  -1 with err set on a bad source. */
int link_msgtab(const struct mt_opts *opts, const char *sysdir, struct lmsgtab *t,
		char *err, size_t errlen);
void link_msgtab_free(struct lmsgtab *t);

/* bad_clause (may be NULL): the clause that failed, else -1 */
int link_match(const struct mt_prog *prog, const struct mt_opts *opts,
	       struct mt_target *t, struct lmatch *m, int *bad_clause,
	       char *err, size_t errlen);
void link_match_free(struct lmatch *m);
/* msgs: the msgids table, or NULL for none. */
struct mt_image *link_layout(const struct mt_prog *prog, const struct mt_opts *opts,
			     const struct lmatch *m, const struct lmsgtab *msgs,
			     char *err, size_t errlen);

#endif
