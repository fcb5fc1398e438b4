/*
 * Health: user rules (a pmie-like line format), the penalty ramp and the
 * 0-100 score built from deductions, a robust anomaly score of a value
 * against a window of earlier ones.  machtrace top and machtrace health
 * (tools/top/top.c) use them; docs/top.md describes the format.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/stats.h"

static const char *const op_text[] = { ">", ">=", "<", "<=", "==", "!=" };

const char *
mt_rule_op_text(enum mt_rule_op op)
{
	return op >= MT_OP_GT && op <= MT_OP_NE ? op_text[op] : "?";
}

/* "LINE:COL: what" into err; returns -1. */
static int
rule_err(char *err, size_t len, int line, const char *at, const char *bol,
	 const char *what)
{
	snprintf(err, len, "line %d, column %d: %s", line, (int)(at - bol) + 1, what);
	return -1;
}

static const char *
skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/*
 * The text from p to the line's end, at most len - 1 bytes, NUL-terminated:
 * what strtod/strtol read, so that they stop at the newline (strtol skips
 * one as blank space).
 */
static void
line_text(const char *p, const char *eol, char *buf, size_t len)
{
	size_t n = (size_t)(eol - p) < len - 1 ? (size_t)(eol - p) : len - 1;

	memcpy(buf, p, n);
	buf[n] = '\0';
}

/*
 * One rule line (no newline): METRIC OP NUMBER [for N intervals] -> MESSAGE.
 * bol: the line's start, for columns.
 */
static int
parse_rule(const char *bol, const char *eol, int line, struct mt_rule *r,
	   char *err, size_t len)
{
	const char *p = skip_ws(bol), *q;
	char num[64], *end;
	size_t n;
	int k;

	memset(r, 0, sizeof(*r));
	r->line = line;
	r->nfor = 1;
	for (q = p; q < eol && (isalnum((unsigned char)*q) || *q == '_' || *q == '.'); q++)
		;
	if (q == p)
		return rule_err(err, len, line, p, bol, "expected a metric name");
	n = (size_t)(q - p);
	if (n >= sizeof(r->metric))
		return rule_err(err, len, line, p, bol, "metric name too long");
	memcpy(r->metric, p, n);
	p = skip_ws(q);
	/* two-character operators first: ">=" is not ">" then "=" */
	for (k = MT_OP_GT; k <= MT_OP_NE; k++)
		if (strlen(op_text[k]) == 2 && eol - p >= 2 &&
		    strncmp(p, op_text[k], 2) == 0)
			break;
	if (k > MT_OP_NE)
		for (k = MT_OP_GT; k <= MT_OP_NE; k++)
			if (strlen(op_text[k]) == 1 && p < eol && *p == op_text[k][0])
				break;
	if (k > MT_OP_NE)
		return rule_err(err, len, line, p, bol,
				"expected an operator (> >= < <= == !=)");
	r->op = (enum mt_rule_op)k;
	p = skip_ws(p + strlen(op_text[k]));
	/* the number ends where strtod stops ("5->x" is 5 then "->") */
	line_text(p, eol, num, sizeof(num));
	r->threshold = strtod(num, &end);
	if (end == num || !isfinite(r->threshold) ||
	    (*end && !strchr(" \t-", *end)))
		return rule_err(err, len, line, p, bol, "expected a number");
	q = p + (end - num);
	p = skip_ws(q);
	if ((size_t)(eol - p) >= 3 && strncmp(p, "for", 3) == 0 &&
	    (p[3] == ' ' || p[3] == '\t')) {
		long v;

		p = skip_ws(p + 3);
		line_text(p, eol, num, sizeof(num));
		v = strtol(num, &end, 10);
		if (end == num || v < 1 || v > 1000)
			return rule_err(err, len, line, p, bol,
					"expected a count of intervals, 1 to 1000");
		r->nfor = (int)v;
		p = skip_ws(p + (end - num));
		if ((size_t)(eol - p) >= 9 && strncmp(p, "intervals", 9) == 0)
			p = skip_ws(p + 9);
		else if ((size_t)(eol - p) >= 8 && strncmp(p, "interval", 8) == 0)
			p = skip_ws(p + 8);
		else
			return rule_err(err, len, line, p, bol, "expected 'intervals'");
	}
	if ((size_t)(eol - p) < 2 || strncmp(p, "->", 2) != 0)
		return rule_err(err, len, line, p, bol,
				"expected '->' and a message (or 'for N intervals')");
	p = skip_ws(p + 2);
	n = (size_t)(eol - p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	if (n == 0)
		return rule_err(err, len, line, p, bol, "expected a message after '->'");
	if (n >= sizeof(r->message))
		n = sizeof(r->message) - 1;
	memcpy(r->message, p, n);
	return 0;
}

int
mt_rules_parse(const char *text, struct mt_rule **rules, size_t *nrules,
	       char *err, size_t len)
{
	struct mt_rule *v = NULL, r;
	size_t n = 0;
	int line = 1;

	*rules = NULL;
	*nrules = 0;
	for (const char *bol = text; *bol; line++) {
		const char *eol = strchr(bol, '\n'), *p;

		if (eol == NULL)
			eol = bol + strlen(bol);
		p = skip_ws(bol);
		if (p < eol && *p != '#' && *p != '\r') {
			struct mt_rule *nv;

			if (parse_rule(bol, eol, line, &r, err, len) != 0) {
				free(v);
				return -1;
			}
			if ((nv = realloc(v, (n + 1) * sizeof(*v))) == NULL) {
				free(v);
				snprintf(err, len, "out of memory");
				return -1;
			}
			v = nv;
			v[n++] = r;
		}
		bol = *eol ? eol + 1 : eol;
	}
	*rules = v;
	*nrules = n;
	return 0;
}

int
mt_rule_holds(const struct mt_rule *r, double v)
{
	if (isnan(v))
		return 0;
	switch (r->op) {
	case MT_OP_GT: return v > r->threshold;
	case MT_OP_GE: return v >= r->threshold;
	case MT_OP_LT: return v < r->threshold;
	case MT_OP_LE: return v <= r->threshold;
	case MT_OP_EQ: return v == r->threshold;
	case MT_OP_NE: return v != r->threshold;
	}
	return 0;
}

double
mt_ramp(double x, double x0, double x1, double max)
{
	if (isnan(x) || x <= x0)
		return 0;
	if (x >= x1 || x1 <= x0)
		return max;
	return max * (x - x0) / (x1 - x0);
}

double
mt_health_score(const double *points, size_t n)
{
	double s = 100;

	for (size_t i = 0; i < n; i++)
		if (points[i] > 0)
			s -= points[i];
	return s < 0 ? 0 : s;
}

double
mt_window_z(const double *win, size_t n, double x)
{
	double med, mad, floor;

	if (n < MT_WINDOW_MIN || isnan(x))
		return 0;
	med = mt_median(win, n);
	mad = mt_mad(win, n);
	floor = 0.05 * fabs(med);
	if (floor < 1)
		floor = 1;
	if (!(mad >= floor))
		mad = floor;
	return mt_robust_z(x, med, mad);
}
