/*
 * Escaping for the exporters' JSON and SVG output.
 */
#include <string.h>
#include "machtrace/consumer.h"
#include "export_int.h"

/* The consumer's JSON escaper: valid UTF-8 passes, other bytes \u00XX. */
void
json_str(FILE *f, const char *s)
{
	s = s ? s : "";
	mt_json_escape(f, s, strlen(s));
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
