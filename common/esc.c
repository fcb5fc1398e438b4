/*
 * The one set of escapers (machtrace/esc.h): for a terminal, JSON, JSON
 * inside <script>, HTML and XML.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "machtrace/esc.h"

void
mt_esc_char(char c, char *out, int quotes)
{
	static const char named[] = "\a\b\f\n\r\t\v", letters[] = "abfnrtv";
	const char *p = c ? strchr(named, c) : NULL;

	if (p != NULL) {
		out[0] = '\\';
		out[1] = letters[p - named];
		out[2] = '\0';
	} else if (quotes && (c == '\\' || c == '"' || c == '\'')) {
		out[0] = '\\';
		out[1] = c;
		out[2] = '\0';
	} else if (isprint((unsigned char)c)) {
		out[0] = c;
		out[1] = '\0';
	} else {
		snprintf(out, 5, "\\%03o", (unsigned char)c);
	}
}

static const char *
esc_str(char *buf, size_t len, const char *s, int quotes)
{
	size_t o = 0;
	char e[5];

	if (len == 0)
		return buf;
	for (; *s; s++) {
		size_t n;

		mt_esc_char(*s, e, quotes);
		n = strlen(e);
		if (o + n >= len)
			break;
		memcpy(buf + o, e, n);
		o += n;
	}
	buf[o] = '\0';
	return buf;
}

const char *
mt_esc_str(char *buf, size_t len, const char *s)
{
	return esc_str(buf, len, s, 0);
}

const char *
mt_esc_quoted(char *buf, size_t len, const char *s)
{
	return esc_str(buf, len, s, 1);
}

static ssize_t
esc_write(void *cookie, const char *s, size_t n)
{
	FILE *fp = cookie;
	char e[5];

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n' || s[i] == '\t') {
			e[0] = s[i];
			e[1] = '\0';
		} else {
			mt_esc_char(s[i], e, 0);
		}
		if (fputs(e, fp) == EOF)
			return -1;
	}
	fflush(fp);
	return (ssize_t)n;
}

FILE *
mt_esc_stream(FILE *fp)
{
	cookie_io_functions_t io = { .write = esc_write };
	FILE *f = fopencookie(fp, "w", io);

	if (f != NULL)
		setvbuf(f, NULL, _IONBF, 0);
	return f;
}

size_t
mt_utf8_len(const unsigned char *p, size_t n)
{
	size_t len;
	unsigned lo = 0x80, hi = 0xbf;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	/* no overlong forms, no surrogates, nothing above U+10FFFF */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/* script: < > & as \u00XX too (inside an HTML <script> element). */
static void
json_escape(FILE *fp, const char *s, size_t n, int script)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	fputc('"', fp);
	while (i < n) {
		unsigned char ch = p[i];

		switch (ch) {
		case '"': fputs("\\\"", fp); i++; continue;
		case '\\': fputs("\\\\", fp); i++; continue;
		case '\n': fputs("\\n", fp); i++; continue;
		case '\t': fputs("\\t", fp); i++; continue;
		case '\r': fputs("\\r", fp); i++; continue;
		case '\b': fputs("\\b", fp); i++; continue;
		case '\f': fputs("\\f", fp); i++; continue;
		}
		if (ch < 0x20 || ch == 0x7f ||
		    (script && (ch == '<' || ch == '>' || ch == '&'))) {
			fprintf(fp, "\\u%04x", ch);
			i++;
		} else if (ch < 0x80) {
			fputc(ch, fp);
			i++;
		} else if ((k = mt_utf8_len(p + i, n - i)) != 0) {
			fwrite(p + i, 1, k, fp);
			i += k;
		} else {
			fprintf(fp, "\\u%04x", ch);
			i++;
		}
	}
	fputc('"', fp);
}

void
mt_json_escape(FILE *fp, const char *s, size_t n)
{
	json_escape(fp, s, n, 0);
}

void
mt_json_escapez(FILE *fp, const char *s)
{
	s = s ? s : "";
	json_escape(fp, s, strlen(s), 0);
}

void
mt_json_escape_script(FILE *fp, const char *s, size_t n)
{
	json_escape(fp, s, n, 1);
}

void
mt_html_escape(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), k;

	for (size_t i = 0; i < n; i++) {
		switch (p[i]) {
		case '&': fputs("&amp;", fp); continue;
		case '<': fputs("&lt;", fp); continue;
		case '>': fputs("&gt;", fp); continue;
		case '"': fputs("&quot;", fp); continue;
		}
		if (p[i] < 0x80) {
			if (p[i] >= 0x20 || p[i] == '\t')
				fputc(p[i], fp);
		} else if ((k = mt_utf8_len(p + i, n - i)) != 0) {
			fwrite(p + i, 1, k, fp);
			i += k - 1;
		} else {		/* not UTF-8: the byte read as Latin-1 */
			fprintf(fp, "&#x%02x;", p[i]);
		}
	}
}
