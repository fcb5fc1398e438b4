/*
 * The one escaping of strings for a terminal (machtrace/esc.h).
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

const char *
mt_esc_str(char *buf, size_t len, const char *s)
{
	size_t o = 0;
	char e[5];

	if (len == 0)
		return buf;
	for (; *s; s++) {
		size_t n;

		mt_esc_char(*s, e, 0);
		n = strlen(e);
		if (o + n >= len)
			break;
		memcpy(buf + o, e, n);
		o += n;
	}
	buf[o] = '\0';
	return buf;
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
