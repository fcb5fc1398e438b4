/*
 * printa() and the aggregations left at the end in -xoformat=json: an
 * {"aggregation-name", "aggregation-data": [rows]} object per printa(),
 * each row its "keys" and values as the text shows them (aggsort.c,
 * print.c's mt_dist_rows), and a formatted printa()'s "message".
 */
#include <stdlib.h>
#include <string.h>
#include "impl.h"

/* An aggregation key element as print_key_datum() shows it. */
static void
key_datum(struct mt_consumer *c, const struct mt_rec_info *ri,
	  const uint8_t *d, uint32_t have)
{
	int64_t v;

	switch (ri->kind) {
	case MT_TI_INT:
	case MT_TI_UINT:
		v = ri->size == 1 ? d[0] : ri->size == 2 ? datum_int(d, 2, 0) :
		    ri->size == 4 ? datum_int(d, 4, 1) : datum_int(d, 8, 1);
		js_int(c, "value", v);
		return;
	case MT_TI_STR:
		js_string(c, d, have);
		return;
	case MT_TI_STACK:
	case MT_TI_USTACK:
		js_stack(c, ri->kind == MT_TI_USTACK, d, ri->size);
		return;
	default:
		if (js_symkind(ri->kind))
			js_sym(c, ri, d);
		else
			js_bytes(c, d, ri->size);
		return;
	}
}

static const char *
func_key(uint32_t func)
{
	switch (func) {
	case MT_AGG_COUNT: return "count";
	case MT_AGG_SUM: return "sum";
	case MT_AGG_MIN: return "min";
	case MT_AGG_MAX: return "max";
	case MT_AGG_AVG: return "avg";
	case MT_AGG_STDDEV: return "stddev";
	default: return "value";
	}
}

static void
bucket(void *arg, const char *label, int64_t count)
{
	struct mt_consumer *c = arg;
	char *end;
	long long v = strtoll(label, &end, 10);

	mt_json_open(&c->jw, NULL, 0);
	if (*label && *end == '\0')
		mt_json_int(&c->jw, "value", v);
	else
		mt_json_strz(&c->jw, "value", label);
	mt_json_int(&c->jw, "count", count);
	mt_json_close(&c->jw);
}

/* One aggregation's value in a row, as mt_print_aggval() shows it. */
static void
agg_value(struct mt_consumer *c, const struct mt_agg *a, const int64_t *v,
	  uint64_t normal)
{
	if (normal == 0)
		normal = 1;
	switch (a->func) {
	case MT_AGG_QUANTIZE:
	case MT_AGG_LQUANTIZE:
	case MT_AGG_LLQUANTIZE:
		mt_json_open(&c->jw, "buckets", 1);
		mt_dist_rows(a, v, normal, bucket, c);
		mt_json_close(&c->jw);
		break;
	case MT_AGG_AVG:
		mt_json_int(&c->jw, "avg", v[0] ? v[1] / (int64_t)normal / v[0] :
			    0);
		break;
	case MT_AGG_STDDEV:
		mt_json_uint(&c->jw, "stddev", mt_stddev(v, normal));
		break;
	default:
		mt_json_int(&c->jw, func_key(a->func), v[0] / (int64_t)normal);
		break;
	}
}

/* The formatted text of one printa() row, or NULL. */
static char *
row_message(struct mt_consumer *c, const char *fmt, const struct bundle *b,
	    const uint32_t *aggids, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m == NULL)
		return NULL;
	agg_print_row(c, m, fmt, b, aggids, n);
	fclose(m);
	return buf;
}

static void
agg_row(struct mt_consumer *c, const char *fmt, const struct bundle *b,
	const uint32_t *aggids, int n)
{
	const struct agg_ent *rep = b->rep;
	const struct mt_agg_info *ai = info_of(c, rep->aggid);
	char *msg;

	mt_json_open(&c->jw, NULL, 0);
	mt_json_open(&c->jw, "keys", 1);
	for (uint32_t k = 0; ai && k < ai->nkeys; k++)
		key_datum(c, &ai->keys[k], rep->key + c->keyoff[rep->aggid][k],
			  c->keyoff[rep->aggid][k + 1] -
			  c->keyoff[rep->aggid][k]);
	mt_json_close(&c->jw);
	if (n == 1) {
		const struct mt_agg *a = agg_of(c, aggids[0]);

		if (a)
			agg_value(c, a, b->ent[0] ? b->ent[0]->vals : c->zeros,
				  c->normal[aggids[0]]);
	} else {
		mt_json_open(&c->jw, "aggregations", 1);
		for (int j = 0; j < n; j++) {
			const struct mt_agg *a = agg_of(c, aggids[j]);
			const struct mt_agg_info *aj = info_of(c, aggids[j]);

			if (a == NULL)
				continue;
			mt_json_open(&c->jw, NULL, 0);
			mt_json_strz(&c->jw, "aggregation-name",
				     aj ? aj->name : "");
			agg_value(c, a, b->ent[j] ? b->ent[j]->vals : c->zeros,
				  c->normal[aggids[j]]);
			mt_json_close(&c->jw);
		}
		mt_json_close(&c->jw);
	}
	if (fmt && (msg = row_message(c, fmt, b, aggids, n)) != NULL) {
		mt_json_strz(&c->jw, "message", msg);
		free(msg);
	}
	mt_json_close(&c->jw);
}

/* printa(): {"aggregation-name": ..., "aggregation-data": [rows]}. */
size_t
js_agg_object(struct mt_consumer *c, const char *fmt, const uint32_t *aggids,
	   int n)
{
	const struct mt_agg_info *ai = info_of(c, aggids[0]);
	struct bundle *b;
	size_t nb;

	b = make_bundles(c, aggids, n, &nb);
	mt_json_open(&c->jw, NULL, 0);
	mt_json_strz(&c->jw, "aggregation-name", ai ? ai->name : "");
	if (fmt)
		mt_json_strz(&c->jw, "format", fmt);
	mt_json_open(&c->jw, "aggregation-data", 1);
	for (size_t i = 0; i < nb; i++)
		agg_row(c, fmt, &b[i], aggids, n);
	mt_json_close(&c->jw);
	mt_json_close(&c->jw);
	free_bundles(b, nb);
	return nb;
}

void
js_printa(struct mt_consumer *c, const char *fmt, const uint32_t *aggids,
	  int n)
{
	if (n <= 0)
		return;
	agg_snapshot(c);
	if (js_agg_object(c, fmt, aggids, n) > 0)
		for (int j = 0; j < n; j++)
			if (aggids[j] <= c->prog->naggs)
				c->printed[aggids[j]] = 1;
}

