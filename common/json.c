/*
 * The JSON writer (machtrace/json.h): nesting, separators and indentation
 * are tracked here so that its users (consumer/jsonout.c) only say what to
 * write.  Strings go through mt_json_escape (esc.c), so no trace data can
 * make the document unparseable.
 */
#include <string.h>
#include "machtrace/json.h"

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
