/*
 * The one JSON writer and reader (common/json.c, common/jsonread.c).
 * Strings are escaped by machtrace/esc.h's mt_json_escape, so a document
 * is valid JSON whatever bytes it holds.
 */
#ifndef MACHTRACE_JSON_H
#define MACHTRACE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "machtrace/esc.h"

/*
 * The writer: nesting, separators and layout.  Keys are ignored inside
 * arrays; at most MT_JSON_WRITE_DEPTH levels (what is deeper is left
 * out, the document stays balanced, and err is set): the report's flame
 * tree takes two levels a frame, of at most 256 frames.
 *
 * mode: 0 indents by two spaces and ends the document with a newline
 * (-xoformat=json); MT_JSON_COMPACT writes no whitespace at all (the
 * exports, the report); MT_JSON_SCRIPT escapes strings and keys with
 * mt_json_escape_script (a document inside an HTML <script> element).
 */
#define MT_JSON_COMPACT		1
#define MT_JSON_SCRIPT		2
/* mt_json_open's kind: an object, an array, and in compact mode a
   container whose members, and its close, each start a new line */
#define MT_JSON_OBJECT		0
#define MT_JSON_ARRAY		1
#define MT_JSON_LINES		2
#define MT_JSON_WRITE_DEPTH	1024
struct mt_json {
	FILE *fp;
	int mode, depth, overflow, err;
	unsigned char level[MT_JSON_WRITE_DEPTH];	/* LV_* (json.c) */
};
void mt_json_init(struct mt_json *j, FILE *fp, int mode);
void mt_json_open(struct mt_json *j, const char *key, int kind);
void mt_json_close(struct mt_json *j);
void mt_json_int(struct mt_json *j, const char *key, int64_t v);
void mt_json_uint(struct mt_json *j, const char *key, uint64_t v);
/* v with decimals digits after the point ("%.*f"); null if not finite. */
void mt_json_fixed(struct mt_json *j, const char *key, double v, int decimals);
void mt_json_bool(struct mt_json *j, const char *key, int v);
void mt_json_null(struct mt_json *j, const char *key);
void mt_json_str(struct mt_json *j, const char *key, const char *s, size_t n);
void mt_json_strz(struct mt_json *j, const char *key, const char *s);

/* The deepest nesting the reader takes. */
#define MT_JSON_DEPTH	32

/*
 * The reader, for files anyone may have written: jansson parses them
 * (duplicate keys refused) once the text is known to be at most max
 * bytes and nested at most MT_JSON_DEPTH deep, so that a hostile file
 * costs neither unbounded memory nor unbounded recursion.  Returns the
 * document (json_decref it), or NULL with why in err ("line L column C:
 * ..." for a parse error).
 */
json_t *mt_json_read(FILE *f, size_t max, char *err, size_t len);
/* The text form of the same (s: n bytes). */
json_t *mt_json_parse(const char *s, size_t n, char *err, size_t len);

/* Whole numbers a double holds exactly: 0 to 2^53. */
#define MT_JSON_MAX_WHOLE	(1ULL << 53)
/* j as a whole number 0 to max into *v; -1 if it is not one (a real, a
   string, negative, above max). */
int mt_json_whole(const json_t *j, uint64_t max, uint64_t *v);

#endif
