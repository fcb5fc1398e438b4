/*
 * The bucket geometry of quantize(), lquantize() and llquantize(), once,
 * for the runtime (probe context: freestanding, no division by a
 * variable wider than 64 bits), the compiler (how many buckets), the
 * consumer (each bucket's label) and top (quantiles).  Each function has
 * its bucket of a value and the inverse, the smallest value whose bucket
 * is at least b (INT64_MIN when every value below is in b), so that
 * bucket(min(b)) == b for every bucket a value can reach.
 *
 *   quantize: MT_QUANTIZE_NBUCKETS (abi.h) power-of-two buckets, 0 in
 *     MT_QUANTIZE_ZERO (illumos' layout).
 *   lquantize(base, limit, step): [0] below base, [1..levels] step wide,
 *     [levels + 1] from base + levels * step up.
 *   llquantize(factor, lmag, hmag, steps), two layouts (runtime.h): the
 *     nbins() dtrace-utils layout with negative bins around an underflow
 *     bin, or illumos' bucket array of any size (buckets past it are
 *     clamped into its last).
 */
#ifndef MACHTRACE_QUANTIZE_H
#define MACHTRACE_QUANTIZE_H

#include <stdint.h>
#include "machtrace/abi.h"

/* ---- quantize ------------------------------------------------------------ */

static inline int mt_quantize_bucket(int64_t v)
{
	uint64_t m;
	int k;

	if (v == 0)
		return MT_QUANTIZE_ZERO;
	m = v > 0 ? (uint64_t)v : 0 - (uint64_t)v;
	k = 63 - __builtin_clzll(m);	/* floor(log2(m)), inline bsr */
	if (v > 0)
		return MT_QUANTIZE_ZERO + 1 + k;
	return k >= 62 ? 0 : MT_QUANTIZE_ZERO - 1 - k;
}

/* The value dtrace prints for bucket b: its bound nearest zero. */
static inline int64_t mt_quantize_value(int b)
{
	if (b < MT_QUANTIZE_ZERO)
		return -(int64_t)(1ULL << (MT_QUANTIZE_ZERO - 1 - b));
	if (b == MT_QUANTIZE_ZERO)
		return 0;
	return (int64_t)(1ULL << (b - MT_QUANTIZE_ZERO - 1));
}

/* ---- lquantize ----------------------------------------------------------- */

static inline uint32_t mt_lquantize_nbuckets(int64_t base, int64_t limit,
					     int64_t step)
{
	return (uint32_t)((limit - base) / step + 2);
}

static inline uint32_t mt_lquantize_bucket(int64_t base, int64_t step,
					   uint32_t nbuckets, int64_t v)
{
	uint32_t levels = nbuckets - 2;
	/* v >= base: v - base fits in uint64_t */
	uint64_t rel = (uint64_t)v - (uint64_t)base;

	if (v < base)
		return 0;
	if (rel / (uint64_t)step < levels)
		return 1 + (uint32_t)(rel / (uint64_t)step);
	return levels + 1;
}

static inline int64_t mt_lquantize_min(int64_t base, int64_t step, uint32_t b)
{
	return b == 0 ? INT64_MIN : base + (int64_t)(b - 1) * step;
}

/* ---- llquantize ---------------------------------------------------------- */

static inline uint64_t mt_llq_pow(uint64_t factor, uint32_t e)
{
	uint64_t r = 1;

	while (e-- > 0)
		r *= factor;
	return r;
}

/* The dtrace-utils layout's number of bins. */
static inline uint32_t mt_llquantize_nbins(int64_t factor, int64_t lmag,
					   int64_t hmag, int64_t steps)
{
	return (uint32_t)(2 * (hmag - lmag + 1) * (steps - steps / factor) + 3);
}

/* a * f wrapping as two's complement (illumos' check for overflow). */
static inline int64_t mt_llq_mulw(int64_t a, uint16_t f)
{
	return (int64_t)((uint64_t)a * f);
}

/* illumos' llquantize bucket of value. */
static inline int mt_llquantize_bucket(uint16_t factor, uint16_t low,
				       uint16_t high, uint16_t nsteps,
				       int64_t value)
{
	int64_t this = (int64_t)mt_llq_pow(factor, low), last, next;
	int base = 1, order = low;

	if (value < (last = this))
		return 0;
	for (this = mt_llq_mulw(this, factor); order <= high; order++) {
		int nbuckets = this > nsteps ? nsteps : (int)this;

		if ((next = mt_llq_mulw(this, factor)) < this)
			value = this - 1;
		if (value < this)
			return base + (int)((value - last) / (this / nbuckets));
		base += nbuckets - (nbuckets / factor);
		last = this;
		this = next;
	}
	return base;
}

/* The smallest value of illumos' bucket b or above (INT64_MAX: none). */
static inline int64_t mt_llquantize_bucket_min(uint16_t factor, uint16_t low,
					       uint16_t high, uint16_t nsteps,
					       int b)
{
	uint64_t this = mt_llq_pow(factor, low), last = this;
	int base = 1;

	if (b <= 0)
		return INT64_MIN;
	for (int order = low; order <= high; order++) {
		uint64_t next = this * factor;
		int nbuckets = next > nsteps ? nsteps : (int)next;
		int n = nbuckets - nbuckets / factor;

		/* next * factor past int64: values from last on are all in
		   this order's last bucket, and no value is above it */
		int over = next * factor / factor != next ||
			   next * factor > INT64_MAX;

		if (b < base + n) {
			uint64_t v = last + (uint64_t)(b - base) * (next / nbuckets);

			return (int64_t)(over ? last : v < next ? v : next);
		}
		if (over)
			return INT64_MAX;
		base += n;
		last = next;
		this = next;
	}
	return (int64_t)last;
}

/*
 * dtrace-utils' log-linear bins, negative values included: [0] negative
 * overflow, then the negative ranges, the underflow bin (|v| < factor^lmag)
 * in the middle, the positive ranges, [2n + 2] positive overflow, with
 * n = (hmag - lmag + 1) * (steps - steps / factor).
 */
static inline uint32_t mt_llquantize_bin(uint16_t factor, uint16_t lmag,
					 uint16_t hmag, uint16_t steps,
					 int64_t v)
{
	uint64_t sf = steps / factor, per = steps - sf;
	uint64_t under = 1 + (uint64_t)(hmag - lmag + 1) * per;
	uint64_t tmp = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	uint64_t max = mt_llq_pow(factor, lmag), ind = 0, mag;
	int64_t m;

	if (tmp < max)
		return (uint32_t)under;
	for (mag = lmag;; ) {
		max *= factor;
		if (tmp < max) {
			ind = mag ? tmp / (max / steps) : tmp * steps / max;
			ind -= sf;
			break;
		}
		if (++mag > hmag)
			break;
	}
	m = (int64_t)((mag - lmag) * per + ind + 1);
	if (v < 0)
		m = -m;
	return (uint32_t)((int64_t)under + m);
}

/* The smallest |v| >= 0 whose bin is at least under + m (m >= 1). */
static inline uint64_t mt_llq_pos_min(uint16_t factor, uint16_t lmag,
				      uint16_t hmag, uint16_t steps, uint64_t m)
{
	uint64_t sf = steps / factor, per = steps - sf;
	uint64_t mag = lmag + (m - 1) / per, ind = (m - 1) % per + sf;
	uint64_t lo, hi, v;

	if (mag > hmag)
		return mt_llq_pow(factor, (uint32_t)hmag + 1);
	lo = mt_llq_pow(factor, (uint32_t)mag);
	hi = lo * factor;
	v = mag ? ind * (hi / steps) : (ind * hi + steps - 1) / steps;
	return v < lo ? lo : v > hi ? hi : v;
}

/* The smallest value whose dtrace-utils bin is b or above. */
static inline int64_t mt_llquantize_bin_min(uint16_t factor, uint16_t lmag,
					    uint16_t hmag, uint16_t steps,
					    uint32_t b)
{
	uint64_t per = steps - steps / factor;
	uint64_t n = (uint64_t)(hmag - lmag + 1) * per, under = 1 + n;

	if (b >= under + 1)
		return (int64_t)mt_llq_pos_min(factor, lmag, hmag, steps,
					       b - under);
	if (b == under)
		return 1 - (int64_t)mt_llq_pow(factor, lmag);
	if (b == 0)
		return INT64_MIN;
	/* bin under - m holds -v for v in bin under + m */
	return 1 - (int64_t)mt_llq_pos_min(factor, lmag, hmag, steps,
					   under - b + 1);
}

/* ---- an aggregation's bucket ------------------------------------------- */

/* Whether a llquantize() agg has the dtrace-utils layout. */
static inline int mt_llquantize_signed(const struct mt_agg *a)
{
	return a->nvals == mt_llquantize_nbins(a->param[0], a->param[1],
					       a->param[2], a->param[3]);
}

/* The bucket of v in distribution agg a (within a->nvals). */
static inline uint32_t mt_agg_bucket(const struct mt_agg *a, int64_t v)
{
	uint16_t f = (uint16_t)a->param[0], lo = (uint16_t)a->param[1],
		hi = (uint16_t)a->param[2], st = (uint16_t)a->param[3];
	int b;

	switch (a->func) {
	case MT_AGG_QUANTIZE:
		return (uint32_t)mt_quantize_bucket(v);
	case MT_AGG_LQUANTIZE:
		return mt_lquantize_bucket(a->param[0], a->param[2], a->nvals, v);
	default:
		if (mt_llquantize_signed(a)) {
			uint32_t u = mt_llquantize_bin(f, lo, hi, st, v);

			return u < a->nvals ? u : a->nvals - 1;
		}
		b = mt_llquantize_bucket(f, lo, hi, st, v);
		if (b < 0)
			b = 0;
		return (uint32_t)b >= a->nvals ? a->nvals - 1 : (uint32_t)b;
	}
}

/* The smallest value whose bucket in agg a is b or above. */
static inline int64_t mt_agg_bucket_min(const struct mt_agg *a, uint32_t b)
{
	uint16_t f = (uint16_t)a->param[0], lo = (uint16_t)a->param[1],
		hi = (uint16_t)a->param[2], st = (uint16_t)a->param[3];

	switch (a->func) {
	case MT_AGG_QUANTIZE:
		if ((int)b <= MT_QUANTIZE_ZERO)
			return b == 0 ? INT64_MIN :
			       mt_quantize_value((int)b - 1) + 1;
		return mt_quantize_value((int)b);
	case MT_AGG_LQUANTIZE:
		return mt_lquantize_min(a->param[0], a->param[2], b);
	default:
		if (mt_llquantize_signed(a))
			return mt_llquantize_bin_min(f, lo, hi, st, b);
		return mt_llquantize_bucket_min(f, lo, hi, st, (int)b);
	}
}

#endif
