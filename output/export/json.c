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
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), k;

	for (size_t i = 0; i < n; i++) {
		switch (p[i]) {
		case '&': fputs("&amp;", f); continue;
		case '<': fputs("&lt;", f); continue;
		case '>': fputs("&gt;", f); continue;
		case '"': fputs("&quot;", f); continue;
		}
		if (p[i] < 0x80) {
			if (p[i] >= 0x20 || p[i] == '\t')
				fputc(p[i], f);
		} else if ((k = mt_utf8_len(p + i, n - i)) != 0) {
			fwrite(p + i, 1, k, f);
			i += k - 1;
		} else {                /* not UTF-8: the byte read as Latin-1 */
			fprintf(f, "&#x%02x;", p[i]);
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
