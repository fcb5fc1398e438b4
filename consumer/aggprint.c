/*
 * printa() in its default and formatted forms, the exit printout of the
 * aggregations printa() did not print, and trunc().
 */
#include <stdlib.h>
#include <string.h>
#include "impl.h"

static void
print_row_default(struct mt_consumer *c, FILE *fp, const struct bundle *b,
		  const uint32_t *aggids, int n)
{
	const struct agg_ent *rep = b->rep;
	const struct mt_agg_info *ai = info_of(c, rep->aggid);

	for (uint32_t k = 0; ai && k < ai->nkeys; k++)
		print_key_datum(c, fp, &ai->keys[k],
				rep->key + c->keyoff[rep->aggid][k]);
	for (int j = 0; j < n; j++) {
		const struct mt_agg *a = agg_of(c, aggids[j]);
		const int64_t *v = b->ent[j] ? b->ent[j]->vals : c->zeros;

		if (a == NULL)
			continue;
		mt_print_aggval(fp, a, v, c->normal[aggids[j]]);
	}
	fputc('\n', fp);
}

static void
print_row_fmt(struct mt_consumer *c, FILE *fp, const char *fmt,
	      const struct bundle *b, const uint32_t *aggids, int n)
{
	const struct agg_ent *rep = b->rep;
	const struct mt_agg_info *ai = info_of(c, rep->aggid);
	uint32_t nk = ai ? ai->nkeys : 0;
	struct mt_pfarg *args = calloc(nk + n + 1, sizeof(*args));
	char err[128];

	if (args == NULL)
		return;
	for (uint32_t k = 0; k < nk; k++) {
		args[k].kind = ai->keys[k].kind;
		args[k].size = ai->keys[k].kind == MT_TI_INT ||
			       ai->keys[k].kind == MT_TI_UINT ?
			       ai->keys[k].size : c->keyoff[rep->aggid][k + 1] -
			       c->keyoff[rep->aggid][k];
		args[k].data = rep->key + c->keyoff[rep->aggid][k];
	}
	for (int j = 0; j < n; j++) {
		const struct mt_agg *a = agg_of(c, aggids[j]);

		args[nk + j].agg = a;
		args[nk + j].aggvals = b->ent[j] ? b->ent[j]->vals : c->zeros;
		args[nk + j].normal = c->normal[aggids[j]];
	}
	mt_printf(fp, &c->syms, fmt, args, (int)nk + n, err, sizeof(err));
	free(args);
}

void
agg_print_row(struct mt_consumer *c, FILE *fp, const char *fmt,
	      const struct bundle *b, const uint32_t *aggids, int n)
{
	if (fmt)
		print_row_fmt(c, fp, fmt, b, aggids, n);
	else
		print_row_default(c, fp, b, aggids, n);
}

int
agg_printa(struct mt_consumer *c, FILE *fp, const char *fmt,
	   const uint32_t *aggids, int n)
{
	size_t nb;
	struct bundle *b;

	if (n <= 0)
		return 0;
	agg_snapshot(c);
	b = make_bundles(c, aggids, n, &nb);
	if (fmt == NULL)
		fputc('\n', fp);
	for (size_t i = 0; i < nb; i++) {
		if (fmt)
			print_row_fmt(c, fp, fmt, &b[i], aggids, n);
		else
			print_row_default(c, fp, &b[i], aggids, n);
	}
	if (nb > 0)
		for (int j = 0; j < n; j++)
			if (aggids[j] <= c->prog->naggs)
				c->printed[aggids[j]] = 1;
	free_bundles(b, nb);
	return 0;
}

int
agg_print_all(struct mt_consumer *c, FILE *fp)
{
	agg_snapshot(c);
	for (uint32_t id = 1; id <= c->prog->naggs; id++) {
		struct bundle *b;
		size_t nb;

		if (c->printed[id])
			continue;
		b = make_bundles(c, &id, 1, &nb);
		for (size_t i = 0; i < nb; i++)
			print_row_default(c, fp, &b[i], &id, 1);
		free_bundles(b, nb);
	}
	return 0;
}

/*
 * trunc(@) removes every entry, trunc(@, n) keeps the n largest (n < 0:
 * the -n smallest).  A removed entry of an additive function keeps its
 * values as its base (agg.c) and stays hidden until a probe updates it;
 * min()/max() entries are dropped by the runtime.
 */
void
agg_trunc(struct mt_consumer *c, uint32_t aggid, int64_t keep, int all)
{
	const struct mt_agg *a = agg_of(c, aggid);
	struct sortctx s = { c, 0, 0, 1, 0 };
	int rtdrop;
	struct bundle *b;
	size_t nb;

	if (a == NULL)
		return;
	agg_snapshot(c);
	rtdrop = all && !agg_additive(a) && c->target &&
		 c->target->ops->aggclear;
	if (rtdrop)
		c->target->ops->aggclear(c->target, aggid, 1);
	b = make_bundles(c, &aggid, 1, &nb);
	if (!all && nb > 1) {
		/* sort by value, largest first for keep > 0 */
		int rev = c->opts->aggsortrev, ks = c->opts->aggsortkey;

		c->opts->aggsortrev = keep > 0;
		c->opts->aggsortkey = 0;
		qsort_r(b, nb, sizeof(*b), bundlecmp, &s);
		c->opts->aggsortrev = rev;
		c->opts->aggsortkey = ks;
	}
	if (keep < 0)
		keep = -keep;
	for (size_t i = all ? 0 : (size_t)keep; i < nb; i++) {
		struct agg_ent *e = (struct agg_ent *)b[i].rep;

		if (rtdrop) {
			/* hidden until the next snapshot shows it afresh */
			free(e->base);
			e->base = NULL;
		} else if (agg_set_base(c, e) != 0) {
			continue;
		} else {
			e->hide_unchanged = 1;
		}
		e->hidden = 1;
	}
	free_bundles(b, nb);
}
