/*
 * The JSON writer (machtrace/json.h): nesting, separators and layout are
 * tracked here so that its users (consumer/jsonout.c, the exports, the
 * report) only say what to write.  Strings go through mt_json_escape or
 * mt_json_escape_script (esc.c), so no trace data can make the document
 * unparseable, nor close the report's <script> element.
 */
#include <math.h>
#include <string.h>
#include "machtrace/json.h"

/* A level's state: no member written yet, an array, members on lines. */
#define LV_FIRST	1
#define LV_ARRAY	2
#define LV_LINES	4

void
mt_json_init(struct mt_json *j, FILE *fp, int mode)
{
	memset(j, 0, sizeof(*j));
	j->fp = fp;
	j->mode = mode;
	j->level[0] = LV_FIRST;
}

static void
escape(struct mt_json *j, const char *s, size_t n)
{
	if (j->mode & MT_JSON_SCRIPT)
		mt_json_escape_script(j->fp, s, n);
	else
		mt_json_escape(j->fp, s, n);
}

/* The line break (and indentation) before a member or a close. */
static void
indent(struct mt_json *j, unsigned char lv)
{
	if (!(j->mode & MT_JSON_COMPACT)) {
		fputc('\n', j->fp);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->fp);
	} else if (lv & LV_LINES) {
		fputc('\n', j->fp);
	}
}

/* The separator and key before a value at the current level. */
static int
member(struct mt_json *j, const char *key)
{
	unsigned char *lv = &j->level[j->depth];

	if (j->overflow)
		return 0;
	if (j->depth > 0) {
		if (!(*lv & LV_FIRST))
			fputc(',', j->fp);
		indent(j, *lv);
	}
	*lv &= (unsigned char)~LV_FIRST;
	if (key && j->depth > 0 && !(*lv & LV_ARRAY)) {
		escape(j, key, strlen(key));
		fputs(j->mode & MT_JSON_COMPACT ? ":" : ": ", j->fp);
	}
	return 1;
}

/*
 * Deeper than MT_JSON_WRITE_DEPTH: nothing is written until the matching
 * close (err tells), so the document stays balanced and valid.
 */
void
mt_json_open(struct mt_json *j, const char *key, int kind)
{
	if (j->overflow || j->depth + 1 >= MT_JSON_WRITE_DEPTH) {
		j->err = 1;
		j->overflow++;
		return;
	}
	(void)member(j, key);
	fputc(kind & MT_JSON_ARRAY ? '[' : '{', j->fp);
	j->depth++;
	j->level[j->depth] = LV_FIRST | (kind & MT_JSON_ARRAY ? LV_ARRAY : 0) |
			     (kind & MT_JSON_LINES ? LV_LINES : 0);
}

/*
 * An indented container closes on its own line when it has members; a
 * container of lines always does (an empty one too).
 */
void
mt_json_close(struct mt_json *j)
{
	unsigned char lv;

	if (j->overflow) {
		j->overflow--;
		return;
	}
	if (j->depth == 0) {
		j->err = 1;
		return;
	}
	lv = j->level[j->depth];
	j->depth--;
	if (!(lv & LV_FIRST) || (lv & LV_LINES))
		indent(j, lv);
	fputc(lv & LV_ARRAY ? ']' : '}', j->fp);
	if (j->depth == 0 && !(j->mode & MT_JSON_COMPACT))
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
mt_json_fixed(struct mt_json *j, const char *key, double v, int decimals)
{
	if (!member(j, key))
		return;
	if (isfinite(v))
		fprintf(j->fp, "%.*f", decimals, v);
	else
		fputs("null", j->fp);
}

void
mt_json_bool(struct mt_json *j, const char *key, int v)
{
	if (member(j, key))
		fputs(v ? "true" : "false", j->fp);
}

void
mt_json_null(struct mt_json *j, const char *key)
{
	if (member(j, key))
		fputs("null", j->fp);
}

void
mt_json_str(struct mt_json *j, const char *key, const char *s, size_t n)
{
	if (member(j, key))
		escape(j, s, n);
}

void
mt_json_strz(struct mt_json *j, const char *key, const char *s)
{
	mt_json_str(j, key, s ? s : "", s ? strlen(s) : 0);
}
