/*
 * dtrace's printf() at consume time (dt_printf semantics): each
 * conversion takes the next recorded argument; '*' widths and precisions
 * take one too.  Integers are widened from their recorded size by their
 * D type's signedness to 32 bits (64 for 8-byte values) and printed at
 * that width: %x of an int -1 is ffffffff, of a long long -1 sixteen f's,
 * and %d of an unsigned type prints it unsigned, as dtrace-utils does.
 * A precision of 0 is ignored, as dtrace does.  "%@..." (printa) prints
 * an aggregation value and takes no ordinary argument.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "machtrace/consumer.h"
#include "machtrace/esc.h"

struct spec {
	char flags[8];		/* "#0-+ '" as given */
	int width, prec;	/* -1: none */
	int dynwidth, dynprec, agg;
	int hbits;		/* 8 for hh, 16 for h: C narrows the value */
	char conv;
};

static int64_t
arg_sint(const struct mt_pfarg *a)
{
	const unsigned char *p = a->data;

	if (p == NULL)
		return 0;
	switch (a->size) {
	case 1: return (int8_t)p[0];
	case 2: { int16_t v; memcpy(&v, p, 2); return v; }
	case 4: { int32_t v; memcpy(&v, p, 4); return v; }
	default: { int64_t v; memcpy(&v, p, 8); return v; }
	}
}

static uint64_t
arg_uint(const struct mt_pfarg *a)
{
	const unsigned char *p = a->data;

	if (p == NULL)
		return 0;
	switch (a->size) {
	case 1: return p[0];
	case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

/* Copy a recorded string (NUL-padded, maybe unterminated) into buf. */
static const char *
arg_str(const struct mt_pfarg *a, char *buf, size_t len)
{
	size_t n = 0;
	const char *p = a->data;

	if (p == NULL)
		return "";
	if (a->kind != MT_TI_STR && a->kind != MT_TI_MEM) {
		snprintf(buf, len, "%lld", (long long)arg_sint(a));
		return buf;
	}
	while (n < a->size && n + 1 < len && p[n] != '\0') {
		buf[n] = p[n];
		n++;
	}
	buf[n] = '\0';
	return buf;
}

/* Parse "%...c" at p (after the '%'); returns the end or NULL. */
static const char *
parse_spec(const char *p, struct spec *s)
{
	size_t nf = 0;

	memset(s, 0, sizeof(*s));
	s->width = s->prec = -1;
	for (;; p++) {
		if (*p == '@') {
			s->agg = 1;
		} else if (*p == '?') {
			s->width = 16;	/* dtrace: the width of a pointer */
		} else if (strchr("#0-+ '", *p) && *p) {
			if (nf + 1 < sizeof(s->flags))
				s->flags[nf++] = *p;
		} else {
			break;
		}
	}
	if (*p == '*') {
		s->dynwidth = 1;
		p++;
	} else if (isdigit((unsigned char)*p)) {
		s->width = (int)strtol(p, (char **)&p, 10);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			s->dynprec = 1;
			p++;
		} else {
			s->prec = (int)strtol(p, (char **)&p, 10);
		}
	}
	while (*p && strchr("hlLjztqw@", *p)) {
		if (*p == '@')
			s->agg = 1;
		else if (*p == 'h')
			s->hbits = s->hbits == 16 ? 8 : 16;
		p++;
	}
	if (*p == '\0')
		return NULL;
	s->conv = *p;
	return p + 1;
}

/* Build a C format "%<flags><width>.<prec><len><conv>". */
static void
cfmt(char *out, size_t n, const struct spec *s, const char *len, char conv)
{
	int w = s->width, k;
	int left = strchr(s->flags, '-') != NULL;

	k = snprintf(out, n, "%%");
	for (const char *f = s->flags; *f; f++)
		if (*f != '-' && *f != '\'')
			k += snprintf(out + k, n - k, "%c", *f);
	if (w < 0 && w != -1) {
		left = 1;
		w = -w;
	}
	if (left)
		k += snprintf(out + k, n - k, "-");
	if (w > 0)
		k += snprintf(out + k, n - k, "%d", w);
	if (s->prec > 0)
		k += snprintf(out + k, n - k, ".%d", s->prec);
	snprintf(out + k, n - k, "%s%c", len, conv);
}

static void
print_string(FILE *fp, const struct spec *s, const char *str)
{
	char f[64];

	cfmt(f, sizeof(f), s, "", 's');
	fprintf(fp, f, str);
}

static void
print_time(FILE *fp, const struct spec *s, uint64_t ns, int rfc822)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;
	char buf[64];

	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), rfc822 ? "%a, %d %b %G %T %Z" :
		 "%Y %b %e %T", &tm);
	print_string(fp, s, buf);
}

static void
print_stack(FILE *fp, const struct mt_symsrc *syms, const struct spec *s,
	    const struct mt_pfarg *a)
{
	const unsigned char *p = a->data;
	uint64_t pc, pid = 0;
	uint32_t i = 0;
	char buf[512];
	struct spec s2 = *s;
	int user = a->kind == MT_TI_USTACK;

	if (strchr(s->flags, '-'))
		s2.width = -1;
	fputc('\n', fp);
	if (user && p && a->size >= 8) {
		memcpy(&pid, p, 8);
		i = 8;
	}
	for (; p && i + 8 <= a->size; i += 8) {
		memcpy(&pc, p + i, 8);
		if (pc == 0)
			break;
		if (user)
			mt_usym_format(syms, (int64_t)pid, pc, MT_SYM_PC, buf,
				       sizeof(buf));
		else
			mt_sym_format(syms, pc, MT_SYM_PC, buf, sizeof(buf));
		fprintf(fp, "%14s", "");
		print_string(fp, &s2, buf);
		fputc('\n', fp);
	}
}

/* Print the aggregation value for "%@c". */
static void
print_aggval(FILE *fp, const struct spec *s, const struct mt_pfarg *a)
{
	const struct mt_agg *agg = a->agg;
	const int64_t *v = a->aggvals;
	uint64_t normal = a->normal ? a->normal : 1;
	int64_t val;
	char f[64];

	switch (agg->func) {
	case MT_AGG_QUANTIZE:
	case MT_AGG_LQUANTIZE:
	case MT_AGG_LLQUANTIZE:
		mt_print_aggval(fp, agg, v, normal);
		return;
	case MT_AGG_AVG:
		val = v[0] ? v[1] / (int64_t)normal / v[0] : 0;
		break;
	case MT_AGG_STDDEV:
		val = (int64_t)mt_stddev(v, normal);
		break;
	default:
		val = v[0] / (int64_t)normal;
		break;
	}
	switch (s->conv) {
	case 'd': case 'i':
		cfmt(f, sizeof(f), s, "ll", s->conv);
		fprintf(fp, f, (long long)val);
		break;
	case 'u': case 'o': case 'x': case 'X':
		cfmt(f, sizeof(f), s, "ll", s->conv);
		fprintf(fp, f, (unsigned long long)val);
		break;
	case 'e': case 'E': case 'f': case 'g': case 'G':
		cfmt(f, sizeof(f), s, "", s->conv);
		fprintf(fp, f, (double)val);
		break;
	default:
		cfmt(f, sizeof(f), s, "ll", 'd');
		fprintf(fp, f, (long long)val);
		break;
	}
}

/* The argument widened as dtrace prints it (see the top comment). */
static uint64_t
arg_widened(const struct mt_pfarg *a, int *is64)
{
	int sign = a->kind != MT_TI_UINT;

	*is64 = a->size >= 8;
	if (*is64)
		return arg_uint(a);
	return sign ? (uint64_t)(uint32_t)(int32_t)arg_sint(a) :
		      (uint64_t)(uint32_t)arg_uint(a);
}

static void
print_int(FILE *fp, const struct spec *s, const struct mt_pfarg *a)
{
	int is64, unsign = a->kind == MT_TI_UINT;
	uint64_t v = arg_widened(a, &is64);
	char f[64], conv = s->conv;

	if ((conv == 'd' || conv == 'i') && unsign)
		conv = 'u';
	if (s->hbits) {		/* %hd, %hhx...: printf narrows it */
		uint64_t m = (1ULL << s->hbits) - 1;

		v &= m;
		if ((conv == 'd' || conv == 'i') && (v >> (s->hbits - 1)))
			v |= ~m;
		is64 = 1;
	}
	cfmt(f, sizeof(f), s, "ll", conv);
	if (conv == 'd' || conv == 'i')
		fprintf(fp, f, is64 ? (long long)v : (long long)(int32_t)v);
	else
		fprintf(fp, f, (unsigned long long)v);
}

static void
print_conv(FILE *fp, const struct mt_symsrc *syms, const struct spec *s,
	   const struct mt_pfarg *a)
{
	char f[64], buf[4096], *e;
	const char *str;
	size_t elen;

	switch (s->conv) {
	case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
		print_int(fp, s, a);
		break;
	case 'p':
		snprintf(buf, sizeof(buf), "0x%llx",
			 (unsigned long long)arg_uint(a));
		print_string(fp, s, buf);
		break;
	case 'c':
		cfmt(f, sizeof(f), s, "", 'c');
		fprintf(fp, f, (int)(char)arg_sint(a));
		break;
	case 'C':
		mt_esc_char((char)arg_sint(a), buf, 1);
		print_string(fp, s, buf);
		break;
	case 's':
		if (a->kind == MT_TI_STACK || a->kind == MT_TI_USTACK) {
			print_stack(fp, syms, s, a);
			break;
		}
		print_string(fp, s, arg_str(a, buf, sizeof(buf)));
		break;
	case 'S':
		str = arg_str(a, buf, sizeof(buf));
		elen = strlen(str) * 4 + 1;
		e = malloc(elen);
		print_string(fp, s, e ? mt_esc_quoted(e, elen, str) : "");
		free(e);
		break;
	case 'a':
		mt_sym_format(syms, arg_uint(a), MT_SYM_PC, buf, sizeof(buf));
		print_string(fp, s, buf);
		break;
	case 'A':
		if (a->size == 16 && a->data) {
			int64_t pid;
			uint64_t pc;

			memcpy(&pid, a->data, 8);
			memcpy(&pc, (const uint8_t *)a->data + 8, 8);
			mt_usym_format(syms, pid, pc, MT_SYM_PC, buf, sizeof(buf));
		} else {
			snprintf(buf, sizeof(buf), "0x%llx",
				 (unsigned long long)arg_uint(a));
		}
		print_string(fp, s, buf);
		break;
	case 'k':
		print_stack(fp, syms, s, a);
		break;
	case 'Y':
		print_time(fp, s, arg_uint(a), 0);
		break;
	case 'T':
		print_time(fp, s, arg_uint(a), 1);
		break;
	case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
		cfmt(f, sizeof(f), s, "", s->conv);
		fprintf(fp, f, (double)arg_sint(a));
		break;
	default:
		cfmt(f, sizeof(f), s, "ll", 'd');
		fprintf(fp, f, (long long)arg_sint(a));
		break;
	}
}

/* Next ordinary (non-aggregation) argument, or NULL. */
static const struct mt_pfarg *
next_arg(const struct mt_pfarg *args, int nargs, int *i)
{
	while (*i < nargs && args[*i].agg != NULL)
		(*i)++;
	return *i < nargs ? &args[(*i)++] : NULL;
}

static const struct mt_pfarg *
next_agg(const struct mt_pfarg *args, int nargs, int *i)
{
	while (*i < nargs && args[*i].agg == NULL)
		(*i)++;
	return *i < nargs ? &args[(*i)++] : NULL;
}

int
mt_printf(FILE *fp, const struct mt_symsrc *syms, const char *fmt,
	  const struct mt_pfarg *args, int nargs, char *errbuf, size_t errlen)
{
	int ai = 0, gi = 0;
	const struct mt_pfarg *a, *last_agg = NULL;
	struct spec s;
	const char *p = fmt, *q;

	while (*p) {
		if (*p != '%') {
			q = strchr(p, '%');
			if (q == NULL)
				q = p + strlen(p);
			fwrite(p, 1, (size_t)(q - p), fp);
			p = q;
			continue;
		}
		if (p[1] == '%') {
			fputc('%', fp);
			p += 2;
			continue;
		}
		q = parse_spec(p + 1, &s);
		if (q == NULL) {
			if (errbuf && errlen)
				snprintf(errbuf, errlen,
					 "Incomplete printf conversion");
			return -1;
		}
		p = q;
		if (s.conv == '%') {
			fputc('%', fp);
			continue;
		}
		if (s.dynwidth) {
			a = next_arg(args, nargs, &ai);
			s.width = a ? (int)arg_sint(a) : 0;
			if (s.width < 0) {
				size_t n = strlen(s.flags);
				if (n + 1 < sizeof(s.flags))
					s.flags[n] = '-';
				s.width = -s.width;
			}
		}
		if (s.dynprec) {
			a = next_arg(args, nargs, &ai);
			s.prec = a ? (int)arg_sint(a) : 0;
		}
		if (s.agg) {
			/* past the last aggregation, %@ reuses the last one */
			a = next_agg(args, nargs, &gi);
			if (a)
				last_agg = a;
			if (last_agg)
				print_aggval(fp, &s, last_agg);
			continue;
		}
		a = next_arg(args, nargs, &ai);
		if (a == NULL)
			continue;
		print_conv(fp, syms, &s, a);
	}
	return ai;
}
