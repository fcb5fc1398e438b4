/*
 * Printing of aggregation values and distributions, byte dumps and
 * standard deviations, byte for byte as dtrace(1) prints them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/consumer.h"
#include "machtrace/quantize.h"

#define QLEN	40

/*
 * Where a distribution's rows go: dtrace's table on fp, or one call of
 * fn per row (mt_dist_rows, for -xoformat=json).  Both see the same rows.
 */
struct dist_out {
	FILE *fp;
	mt_dist_rowfn fn;
	void *arg;
};

static long double
fabs_ld(long double x)
{
	return x < 0 ? -x : x;
}

/* One bar of a distribution: "|@@@@   count" (dt_print_quantline). */
static void
quantline(FILE *fp, int64_t val, uint64_t normal, long double total,
	  int positives, int negatives)
{
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	static const char spaces[] = "                                        ";
	long long shown = (long long)(val / (int64_t)normal);
	unsigned depth;
	int len = QLEN;

	if (!negatives) {
		depth = positives && total != 0 ?
			(unsigned)((fabs_ld(val) * len) / total + 0.5) : 0;
		fprintf(fp, "|%s%s %-9lld\n", ats + len - depth,
			spaces + depth, shown);
		return;
	}
	if (!positives) {
		depth = total != 0 ?
			(unsigned)((fabs_ld(val) * len) / total + 0.5) : 0;
		fprintf(fp, "%s%s| %-9lld\n", spaces + depth,
			ats + len - depth, shown);
		return;
	}
	/* both signs: half-length bars either side of a centre line */
	len /= 2;
	depth = (unsigned)((fabs_ld(val) * len) / total + 0.5);
	if (val <= 0)
		fprintf(fp, "%s%s|%*s %-9lld\n", spaces + QLEN - len + depth,
			ats + QLEN - depth, len, "", shown);
	else
		fprintf(fp, "%20s|%s%s %-9lld\n", "", ats + QLEN - depth,
			spaces + QLEN - len + depth, shown);
}

static void
dist_header(const struct dist_out *o)
{
	if (o->fp)
		fprintf(o->fp, "\n%16s %41s %-9s\n", "value",
			"------------- Distribution -------------", "count");
}

/* One row: its label right-aligned, then the bar and count. */
static void
dist_row(const struct dist_out *o, const char *label, int64_t val,
	 uint64_t normal, long double total, int pos, int neg)
{
	if (o->fp == NULL) {
		o->fn(o->arg, label, val / (int64_t)normal);
		return;
	}
	fprintf(o->fp, "%16s ", label);
	quantline(o->fp, val, normal, total, pos, neg);
}

static void
dist_totals(const int64_t *data, int first, int last, long double *total,
	    int *pos, int *neg)
{
	*total = 0;
	*pos = *neg = 0;
	for (int i = first; i <= last; i++) {
		*pos |= data[i] > 0;
		*neg |= data[i] < 0;
		*total += fabs_ld((long double)data[i]);
	}
}

static void
quantize_out(const struct dist_out *o, const int64_t *data, uint64_t normal)
{
	char c[32];
	int n = MT_QUANTIZE_NBUCKETS, first = 0, last = n - 1, pos, neg;
	long double total;

	while (first < n - 1 && data[first] == 0)
		first++;
	if (first == n - 1) {
		first = MT_QUANTIZE_ZERO - 1;
		last = MT_QUANTIZE_ZERO + 1;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && data[last] == 0)
			last--;
		if (last < n - 1)
			last++;
	}
	dist_totals(data, first, last, &total, &pos, &neg);
	dist_header(o);
	for (int i = first; i <= last; i++) {
		snprintf(c, sizeof(c), "%lld", (long long)mt_quantize_value(i));
		dist_row(o, c, data[i], normal, total, pos, neg);
	}
}

static void
lquantize_out(const struct dist_out *o, const int64_t *data,
	      const struct mt_agg *agg, uint64_t normal)
{
	int base = (int)agg->param[0], step = (int)agg->param[2];
	int levels = (int)agg->nvals - 2, first = 0, last = levels + 1;
	int pos, neg;
	long double total;
	char c[32];

	while (first <= levels + 1 && data[first] == 0)
		first++;
	if (first > levels + 1) {
		first = 0;
		last = 2;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && data[last] == 0)
			last--;
		if (last < levels + 1)
			last++;
	}
	dist_totals(data, first, last, &total, &pos, &neg);
	dist_header(o);
	for (int i = first; i <= last; i++) {
		if (i == 0)
			snprintf(c, sizeof(c), "< %d", base);
		else if (i == levels + 1)
			snprintf(c, sizeof(c), ">= %d", base + levels * step);
		else
			snprintf(c, sizeof(c), "%d",
				 (int)mt_lquantize_min(base, step, (uint32_t)i));
		dist_row(o, c, data[i], normal, total, pos, neg);
	}
}

static uint64_t
ipow(uint64_t b, int e)
{
	uint64_t r = 1;

	while (e-- > 0)
		r *= b;
	return r;
}

/*
 * dtrace-utils layout (negative and positive log/linear ranges around
 * bin0, which holds abs(value) < factor^lmag).  Labels are built first,
 * then the rows that have one are printed.
 */
static void
llquantize_signed(const struct dist_out *o, const int64_t *data, int factor, int lmag,
		  int hmag, int steps, uint64_t normal)
{
	int sf = steps / factor, nbins = (int)((hmag - lmag + 1) *
		(steps - sf) * 2 + 3), bin0 = 1 + (hmag - lmag + 1) * (steps - sf);
	int first = 0, last = nbins - 1, pad = 0, pos, neg, i, mag, step;
	long double total;
	uint64_t scale;
	const int cw = 16;
	char *c;

	while (first <= last && data[first] == 0)
		first++;
	if (first > last) {
		first = last = bin0 + 1;
	} else {
		while (data[last] == 0)
			last--;
	}
	dist_totals(data, first, last, &total, &pos, &neg);
	dist_header(o);
	if (first > 0)
		first--;
	if (last < nbins - 1)
		last++;
	if (lmag == 0 && steps > factor)
		pad = sf;
	c = calloc((size_t)(last - first + 1 + 2 * pad), cw);
	if (c == NULL)
		return;
#define LABEL(I, ...) do { if ((I) >= first - pad && (I) <= last + pad) \
	snprintf(c + cw * ((I) - first + pad), cw, __VA_ARGS__); } while (0)
	scale = ipow(factor, lmag);
	if (scale == 1)
		LABEL(bin0, "%d", 0);
	else if (first >= bin0)
		LABEL(bin0, "< %llu", (unsigned long long)scale);
	else
		LABEL(bin0, "abs() < %llu", (unsigned long long)scale);
	LABEL(bin0 - 1, "-%llu", (unsigned long long)scale);
	LABEL(bin0 + 1, "%llu", (unsigned long long)scale);
	mag = lmag;
	i = 1;
	if (lmag == 0 && steps > factor) {
		for (step = 2; step <= factor; step++) {
			i += sf;
			LABEL(bin0 - i, "-%d", step);
			LABEL(bin0 + i, "%d", step);
		}
		mag++;
	}
	scale = ipow(factor, mag + 1) / steps;
	for (; mag <= hmag; mag++) {
		for (step = sf + 1; step <= steps; step++) {
			i++;
			LABEL(bin0 - i, "-%llu", (unsigned long long)(step * scale));
			LABEL(bin0 + i, "%llu", (unsigned long long)(step * scale));
		}
		scale *= factor;
	}
	scale = ipow(factor, hmag + 1);
	LABEL(0, "<= -%llu", (unsigned long long)scale);
	LABEL(nbins - 1, ">= %llu", (unsigned long long)scale);
#undef LABEL
	if (pad > 0) {
		int j = cw * pad;

		if (c[j] == 0) {
			for (i = 1; i < pad && c[j - cw * i] == 0; i++)
				;
			if (i < pad)
				memcpy(c + j, c + j - cw * i, cw);
		}
		j = cw * (last - first + pad);
		if (c[j] == 0) {
			for (i = 1; i < pad && c[j + cw * i] == 0; i++)
				;
			if (i < pad)
				memcpy(c + j, c + j + cw * i, cw);
		}
	}
	for (i = first; i <= last; i++) {
		if (c[cw * (i - first + pad)] == 0)
			continue;
		dist_row(o, c + cw * (i - first + pad), data[i], normal, total,
			 pos, neg);
	}
	free(c);
}

/* illumos layout: bin 0 below factor^low, then each order's steps, top. */
static void
llquantize_illumos(const struct dist_out *o, const int64_t *data, int nbins, int factor,
		   int low, int high, int nsteps, uint64_t normal)
{
	int first = 0, last = nbins - 1, bin = 1, order, pos, neg;
	int64_t value = 1, next, step;
	long double total;
	char c[32];

	while (first < nbins && data[first] == 0)
		first++;
	if (first == nbins) {
		first = 0;
		last = 1;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && data[last] == 0)
			last--;
		if (last < nbins - 1)
			last++;
	}
	dist_totals(data, first, last, &total, &pos, &neg);
	dist_header(o);
	for (order = 0; order < low; order++)
		value *= factor;
	next = value * factor;
	step = next > nsteps ? next / nsteps : 1;
	if (first == 0) {
		snprintf(c, sizeof(c), "< %lld", (long long)value);
		dist_row(o, c, data[0], normal, total, pos, neg);
	}
	while (order <= high && bin < nbins) {
		if (bin >= first && bin <= last) {
			snprintf(c, sizeof(c), "%lld", (long long)value);
			dist_row(o, c, data[bin], normal, total, pos, neg);
		}
		bin++;
		if ((value += step) != next)
			continue;
		next = value * factor;
		step = next > nsteps ? next / nsteps : 1;
		order++;
	}
	if (last < bin || bin >= nbins)
		return;
	snprintf(c, sizeof(c), ">= %lld", (long long)value);
	dist_row(o, c, data[bin], normal, total, pos, neg);
}

static void
llquantize_out(const struct dist_out *o, const int64_t *data,
	       const struct mt_agg *agg, uint64_t normal)
{
	int factor = (int)agg->param[0], lmag = (int)agg->param[1];
	int hmag = (int)agg->param[2], steps = (int)agg->param[3];

	if (factor < 2 || steps < 1)
		return;
	if (mt_llquantize_signed(agg))
		llquantize_signed(o, data, factor, lmag, hmag, steps, normal);
	else
		llquantize_illumos(o, data, (int)agg->nvals, factor, lmag,
				   hmag, steps, normal);
}

void
mt_print_quantize(FILE *fp, const int64_t *data, uint64_t normal)
{
	struct dist_out o = { fp, NULL, NULL };

	quantize_out(&o, data, normal ? normal : 1);
}

void
mt_print_lquantize(FILE *fp, const int64_t *data, const struct mt_agg *agg,
		   uint64_t normal)
{
	struct dist_out o = { fp, NULL, NULL };

	lquantize_out(&o, data, agg, normal ? normal : 1);
}

void
mt_print_llquantize(FILE *fp, const int64_t *data, const struct mt_agg *agg,
		    uint64_t normal)
{
	struct dist_out o = { fp, NULL, NULL };

	llquantize_out(&o, data, agg, normal ? normal : 1);
}

void
mt_dist_rows(const struct mt_agg *agg, const int64_t *vals, uint64_t normal,
	     mt_dist_rowfn fn, void *arg)
{
	struct dist_out o = { NULL, fn, arg };

	if (normal == 0)
		normal = 1;
	if (agg->func == MT_AGG_QUANTIZE)
		quantize_out(&o, vals, normal);
	else if (agg->func == MT_AGG_LQUANTIZE)
		lquantize_out(&o, vals, agg, normal);
	else if (agg->func == MT_AGG_LLQUANTIZE)
		llquantize_out(&o, vals, agg, normal);
}

static unsigned __int128
isqrt128(unsigned __int128 v)
{
	unsigned __int128 res = 0, bit = (unsigned __int128)1 << 126;

	while (bit > v)
		bit >>= 2;
	while (bit != 0) {
		if (v >= res + bit) {
			v -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return res;
}

uint64_t
mt_stddev(const int64_t *vals, uint64_t normal)
{
	unsigned __int128 sq, avgsq, sqavg;
	int64_t avg;

	if (vals[0] == 0 || normal == 0)
		return 0;
	sq = ((unsigned __int128)(uint64_t)vals[3] << 64) | (uint64_t)vals[2];
	avgsq = sq / normal / (uint64_t)vals[0];
	avg = vals[1] / (int64_t)normal / vals[0];
	if (avg < 0)
		avg = -avg;
	sqavg = (unsigned __int128)(uint64_t)avg * (uint64_t)avg;
	return (uint64_t)isqrt128(avgsq - sqavg);
}

void
mt_print_aggval(FILE *fp, const struct mt_agg *agg, const int64_t *vals,
		uint64_t normal)
{
	if (normal == 0)
		normal = 1;
	switch (agg->func) {
	case MT_AGG_QUANTIZE:
		mt_print_quantize(fp, vals, normal);
		break;
	case MT_AGG_LQUANTIZE:
		mt_print_lquantize(fp, vals, agg, normal);
		break;
	case MT_AGG_LLQUANTIZE:
		mt_print_llquantize(fp, vals, agg, normal);
		break;
	case MT_AGG_AVG:
		fprintf(fp, " %16lld", vals[0] ?
			(long long)(vals[1] / (int64_t)normal / vals[0]) : 0LL);
		break;
	case MT_AGG_STDDEV:
		fprintf(fp, " %16llu", (unsigned long long)mt_stddev(vals, normal));
		break;
	default:
		fprintf(fp, " %16lld", (long long)(vals[0] / (int64_t)normal));
		break;
	}
}

void
mt_print_rawbytes(FILE *fp, const void *addr, size_t n)
{
	const unsigned char *c = addr;
	size_t i, j;

	if (n == 0)
		return;
	fprintf(fp, "\n%5s      ", "");
	for (i = 0; i < 16; i++)
		fprintf(fp, "  %c", "0123456789abcdef"[i]);
	fprintf(fp, "  0123456789abcdef\n");
	for (i = 0; i < n; i += 16) {
		fprintf(fp, "%5s%5zx:", "", i);
		for (j = i; j < i + 16 && j < n; j++)
			fprintf(fp, " %02x", c[j]);
		while (j++ % 16)
			fprintf(fp, "   ");
		fprintf(fp, "  ");
		for (j = i; j < i + 16 && j < n; j++)
			fputc(c[j] < ' ' || c[j] > '~' ? '.' : c[j], fp);
		fputc('\n', fp);
	}
}
