/*
 * Recorded values as dtrace prints them: trace() data by size and sign,
 * strings, byte dumps, stacks, and aggregation key elements.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "impl.h"

int64_t
datum_int(const uint8_t *p, uint32_t size, int sign)
{
	switch (size) {
	case 1: return sign ? (int8_t)p[0] : p[0];
	case 2: { int16_t v; memcpy(&v, p, 2);
		  return sign ? (int64_t)v : (int64_t)(uint16_t)v; }
	case 4: { int32_t v; memcpy(&v, p, 4);
		  return sign ? (int64_t)v : (int64_t)(uint32_t)v; }
	case 8: { int64_t v; memcpy(&v, p, 8); return v; }
	}
	return 0;
}

int64_t
mt_rec_int(const struct mt_rec *r, const uint8_t *data)
{
	return datum_int(data + r->offset, r->size, 1);
}

struct stack_out {
	FILE *fp;
	int indent;
};

static void
stack_line(void *arg, const char *sym)
{
	struct stack_out *o = arg;

	fprintf(o->fp, "%*s%s\n", o->indent, "", sym);
}

void
datum_stack(struct mt_consumer *c, FILE *fp, int user, const uint8_t *p,
	    uint32_t size)
{
	struct stack_out o = { fp, (int)(c->opts->stackindent == MT_OPT_UNSET ? 0 :
					  c->opts->stackindent) };

	fputc('\n', fp);
	mt_stack_frames(&c->syms, user, p, size, stack_line, &o);
}

/* dt_print_bytes: a string if it looks like one, else a hex dump. */
static void
print_bytes(struct mt_consumer *c, FILE *fp, const uint8_t *p, uint32_t n,
	    int width, int quiet)
{
	uint32_t i, j;

	if (n == 0)
		return;
	if (c->opts->rawbytes) {
		mt_print_rawbytes(fp, p, n);
		return;
	}
	for (i = 0; i < n; i++) {
		if ((p[i] >= ' ' && p[i] <= '~') || (p[i] >= '\t' && p[i] <= '\r')
		    || p[i] == '\b' || p[i] == '\a')
			continue;
		if (p[i] == '\0' && i > 0) {
			for (j = i + 1; j < n && p[j] == '\0'; j++)
				;
			if (j != n)
				break;
			if (quiet)
				fprintf(fp, "%s", (const char *)p);
			else
				fprintf(fp, "  %-*s", width, (const char *)p);
			return;
		}
		break;
	}
	if (i == n) {
		fprintf(fp, "  %-*.*s", width, (int)n, (const char *)p);
		return;
	}
	mt_print_rawbytes(fp, p, n);
}

void
sym_text(struct mt_consumer *c, const struct mt_rec_info *ri,
	 const uint8_t *d, char *buf, size_t len)
{
	uint64_t v;

	memcpy(&v, d + (ri->kind >= MT_TI_USYM && ri->size > 8 ? 8 : 0), 8);
	if (ri->kind == MT_TI_SYM || ri->kind == MT_TI_MOD) {
		mt_sym_format(&c->syms, v, ri->kind == MT_TI_SYM ? MT_SYM_FUNC :
			      MT_SYM_MOD, buf, len);
	} else if (ri->size > 8) {
		int64_t pid;

		memcpy(&pid, d, 8);
		mt_usym_format(&c->syms, pid, v, ri->kind == MT_TI_USYM ?
			       MT_SYM_FUNC : ri->kind == MT_TI_UMOD ?
			       MT_SYM_MOD : MT_SYM_PC, buf, len);
	} else {
		snprintf(buf, len, "0x%llx", (unsigned long long)v);
	}
}

/* An aggregation key element (dt_print_datum). */
void
print_key_datum(struct mt_consumer *c, FILE *fp, const struct mt_rec_info *ri,
		const uint8_t *d)
{
	switch (ri->kind) {
	case MT_TI_INT:
	case MT_TI_UINT:
		switch (ri->size) {
		case 1: fprintf(fp, " %3d", d[0]); return;
		case 2: fprintf(fp, " %5d", (int)datum_int(d, 2, 0)); return;
		case 4: fprintf(fp, " %8d", (int)datum_int(d, 4, 1)); return;
		default: fprintf(fp, " %16lld", (long long)datum_int(d, 8, 1));
			return;
		}
	case MT_TI_STR:
		print_bytes(c, fp, d, (uint32_t)strnlen((const char *)d,
			    c->img ? c->img->opt.strsize : ri->size) + 1, 50, 0);
		return;
	case MT_TI_STACK:
	case MT_TI_USTACK:
		datum_stack(c, fp, ri->kind == MT_TI_USTACK, d, ri->size);
		return;
	case MT_TI_SYM: case MT_TI_MOD: case MT_TI_USYM: case MT_TI_UMOD:
	case MT_TI_UADDR: {
		char buf[512];

		sym_text(c, ri, d, buf, sizeof(buf));
		fprintf(fp, "  %-50s", buf);
		return;
	}
	default:
		print_bytes(c, fp, d, ri->size, 50, 0);
		return;
	}
}

/* trace(): dt_print_trace of dtrace-utils. */
void
datum_trace(struct mt_consumer *c, FILE *fp, const struct mt_rec *r,
	    const struct mt_rec_info *ri, const uint8_t *d)
{
	int quiet = c->opts->quiet;
	uint32_t size = r->size;
	int sign;

	if (c->opts->rawbytes) {
		mt_print_rawbytes(fp, d, size);
		return;
	}
	if (r->kind == MT_REC_STR || (ri && ri->kind == MT_TI_STR)) {
		if (quiet)
			fprintf(fp, "%.*s", (int)size, (const char *)d);
		else
			fprintf(fp, "  %-33.*s", (int)strnlen((const char *)d,
				size), (const char *)d);
		return;
	}
	if (r->kind == MT_REC_STACK) {
		datum_stack(c, fp, (r->flags & MT_RF_UPID) != 0, d, size);
		return;
	}
	if (r->kind == MT_REC_MEM) {
		/* dtrace-utils: char arrays print as strings, the rest raw */
		if (ri && ri->ctype && strncmp(ri->ctype, "char [", 6) == 0)
			print_bytes(c, fp, d, size, 33, quiet);
		else
			mt_print_rawbytes(fp, d, size);
		return;
	}
	sign = ri ? ri->kind == MT_TI_INT : (r->flags & MT_RF_SIGNED) != 0;
	if (ri && (ri->kind == MT_TI_SYM || ri->kind == MT_TI_MOD ||
		   ri->kind == MT_TI_USYM || ri->kind == MT_TI_UMOD ||
		   ri->kind == MT_TI_UADDR)) {
		print_key_datum(c, fp, ri, d);
		return;
	}
	switch (size) {
	case 8:
		fprintf(fp, sign ? (quiet ? "%lld" : " %19lld") :
			(quiet ? "%llu" : " %20llu"),
			(long long)datum_int(d, 8, 1));
		break;
	case 4:
		fprintf(fp, sign ? (quiet ? "%d" : " %10d") :
			(quiet ? "%u" : " %10u"), (int)datum_int(d, 4, sign));
		break;
	case 2:
		fprintf(fp, sign ? (quiet ? "%d" : " %5d") :
			(quiet ? "%u" : " %5u"), (int)datum_int(d, 2, sign));
		break;
	case 1:
		fprintf(fp, sign ? (quiet ? "%d" : " %3d") :
			(quiet ? "%u" : " %3u"), (int)datum_int(d, 1, sign));
		break;
	default:
		mt_print_rawbytes(fp, d, size);
		break;
	}
}
