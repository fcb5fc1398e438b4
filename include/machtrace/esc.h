/*
 * The one set of escapers (common/esc.c) for what others chose (task
 * names, RPC names, rules, file contents, trace data): for a terminal, so
 * that no control character reaches the user's (D's printf("%s") prints
 * raw, as dtrace does, and %S / %C use mt_esc_char); for JSON, for JSON
 * inside an HTML <script> element, and for HTML and XML text.
 */
#ifndef MACHTRACE_ESC_H
#define MACHTRACE_ESC_H

#include <stddef.h>
#include <stdio.h>

/* dtrace's strchr2esc: c as it is when printable, else \a \b \f \n \r \t
   \v or \ooo; with quotes, also \\ \" \' (dtrace's %S and %C).  out holds
   at least 5 bytes. */
void mt_esc_char(char c, char *out, int quotes);

/* s with every unprintable byte escaped as mt_esc_char does, into buf
   (len bytes, truncated at a whole escape, NUL-terminated); returns buf. */
const char *mt_esc_str(char *buf, size_t len, const char *s);
/* The same with quotes and backslashes escaped too (dtrace's %S); buf
   of 4 * strlen(s) + 1 bytes holds it all. */
const char *mt_esc_quoted(char *buf, size_t len, const char *s);

/* A stream writing to fp with every unprintable byte but '\n' and '\t'
   escaped (machtrace's own messages on stderr); NULL on failure. */
FILE *mt_esc_stream(FILE *fp);

/* s (n bytes) as a JSON string literal, quotes included: control
   characters as \n, \t ... or \u00XX, bytes that do not form valid
   UTF-8 as \u00XX (the byte read as Latin-1), so that any bytes make
   valid JSON. */
void mt_json_escape(FILE *fp, const char *s, size_t n);
/* The same for a NUL-terminated s (NULL: ""). */
void mt_json_escapez(FILE *fp, const char *s);
/* As mt_json_escape, with <, > and & as \u003c, \u003e, \u0026 too:
   the literal can sit inside an HTML <script> element (no "</script>"). */
void mt_json_escape_script(FILE *fp, const char *s, size_t n);
/* s as HTML or XML text or a double-quoted attribute value: &, <, >, "
   as entities, control bytes but tab dropped, a byte that is not UTF-8
   as &#xNN; (read as Latin-1), so that the document stays well-formed. */
void mt_html_escape(FILE *fp, const char *s);
/* Length of the valid UTF-8 sequence at p (at most n bytes, n > 0), 0 if
   none (overlong forms, surrogates and code points above U+10FFFF are not). */
size_t mt_utf8_len(const unsigned char *p, size_t n);

#endif
