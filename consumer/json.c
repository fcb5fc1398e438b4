/*
 * A small JSON writer: nesting, separators and indentation are tracked
 * here so that the emitters (jsonout.c) only say what to write.  Strings
 * are escaped so the document is valid JSON whatever the bytes: control
 * characters as \n, \t ... or \u00XX, and bytes that do not form valid
 * UTF-8 as \u00XX (the byte read as Latin-1), so no trace data can make
 * the document unparseable.
 */
#include <string.h>
#include "machtrace/consumer.h"

void
mt_json_init(struct mt_json *j, FILE *fp)
{
	memset(j, 0, sizeof(*j));
	j->fp = fp;
	j->first[0] = 1;
}

static void
indent(struct mt_json *j)
{
	fputc('\n', j->fp);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->fp);
}

/* The separator and key before a value at the current level. */
static int
member(struct mt_json *j, const char *key)
{
	if (j->overflow)
		return 0;
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->fp);
		indent(j);
	}
	j->first[j->depth] = 0;
	if (key && j->depth > 0 && !j->array[j->depth]) {
		mt_json_escape(j->fp, key, strlen(key));
		fputs(": ", j->fp);
	}
	return 1;
}

/*
 * Deeper than MT_JSON_DEPTH: nothing is written until the matching close
 * (err tells), so the document stays balanced and valid.
 */
void
mt_json_open(struct mt_json *j, const char *key, int array)
{
	if (j->overflow || j->depth + 1 >= MT_JSON_DEPTH) {
		j->err = 1;
		j->overflow++;
		return;
	}
	(void)member(j, key);
	fputc(array ? '[' : '{', j->fp);
	j->depth++;
	j->first[j->depth] = 1;
	j->array[j->depth] = (unsigned char)(array != 0);
}

void
mt_json_close(struct mt_json *j)
{
	int array;

	if (j->overflow) {
		j->overflow--;
		return;
	}
	if (j->depth == 0) {
		j->err = 1;
		return;
	}
	array = j->array[j->depth];
	if (!j->first[j->depth]) {
		j->depth--;
		indent(j);
	} else {
		j->depth--;
	}
	fputc(array ? ']' : '}', j->fp);
	if (j->depth == 0)
		fputc('\n', j->fp);
}

void
mt_json_int(struct mt_json *j, const char *key, int64_t v)
{
	if (member(j, key))
		fprintf(j->fp, "%lld", (long long)v);
}

void
mt_json_uint(struct mt_json *j, const char *key, uint64_t v)
{
	if (member(j, key))
		fprintf(j->fp, "%llu", (unsigned long long)v);
}

void
mt_json_str(struct mt_json *j, const char *key, const char *s, size_t n)
{
	if (member(j, key))
		mt_json_escape(j->fp, s, n);
}

void
mt_json_strz(struct mt_json *j, const char *key, const char *s)
{
	mt_json_str(j, key, s ? s : "", s ? strlen(s) : 0);
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

void
mt_json_escape(FILE *fp, const char *s, size_t n)
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
		if (ch < 0x20 || ch == 0x7f) {
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
