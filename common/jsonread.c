/*
 * The JSON reader (machtrace/json.h): jansson, behind bounds on what a
 * hostile file can make it do (its size, its nesting; numbers are
 * jansson's: an integer beyond 64 bits or a real beyond a double is a
 * parse error, and mt_json_whole holds counts to what the caller allows).
 */
#include <stdlib.h>
#include <string.h>
#include "machtrace/json.h"

/*
 * The deepest nesting of [ and { in s outside strings; stops counting
 * past limit.  A string's escapes are skipped whole, so "\"[" opens
 * nothing; an unterminated string ends the scan (jansson reports it).
 */
static int
nesting(const char *s, size_t n, int limit)
{
	int depth = 0, deepest = 0, in_str = 0;

	for (size_t i = 0; i < n && deepest <= limit; i++) {
		if (in_str) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				in_str = 0;
		} else if (s[i] == '"') {
			in_str = 1;
		} else if (s[i] == '[' || s[i] == '{') {
			if (++depth > deepest)
				deepest = depth;
		} else if ((s[i] == ']' || s[i] == '}') && depth > 0) {
			depth--;
		}
	}
	return deepest;
}

json_t *
mt_json_parse(const char *s, size_t n, char *err, size_t len)
{
	json_error_t e;
	json_t *root;

	if (nesting(s, n, MT_JSON_DEPTH) > MT_JSON_DEPTH) {
		snprintf(err, len, "nested deeper than %d levels", MT_JSON_DEPTH);
		return NULL;
	}
	root = json_loadb(s, n, JSON_REJECT_DUPLICATES, &e);
	if (root == NULL)
		snprintf(err, len, "line %d column %d: %s", e.line, e.column,
			 e.text);
	return root;
}

json_t *
mt_json_read(FILE *f, size_t max, char *err, size_t len)
{
	char *buf = malloc(max + 1);
	size_t n;
	json_t *root = NULL;

	if (buf == NULL) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	n = fread(buf, 1, max + 1, f);
	if (ferror(f))
		snprintf(err, len, "cannot read it");
	else if (n > max)
		snprintf(err, len, "larger than %zu bytes", max);
	else
		root = mt_json_parse(buf, n, err, len);
	free(buf);
	return root;
}

int
mt_json_whole(const json_t *j, uint64_t max, uint64_t *v)
{
	json_int_t i = json_is_integer(j) ? json_integer_value(j) : -1;

	if (i < 0 || (uint64_t)i > max)
		return -1;
	*v = (uint64_t)i;
	return 0;
}
