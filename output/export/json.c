/*
 * Escaping for the exporters' JSON and SVG output.
 */
#include "export_int.h"

void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void
xml_str(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if (*p >= 0x20 || *p == '\t')
				fputc(*p, f);
		}
	}
}

void
export_progress(struct mt_trace *t, const struct mt_export_opts *o,
		uint64_t nev)
{
	if (o && o->progress && nev % 4096 == 0)
		o->progress(o->progress_arg, mt_trace_bytes_read(t),
			    mt_trace_stream_bytes(t));
}
