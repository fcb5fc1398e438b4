/*
 * Escaping what others chose (task names, RPC names, rules, file contents)
 * before machtrace prints it, so that no control character reaches the
 * user's terminal.  Implemented in common/esc.c; D's printf("%s") prints
 * raw, as dtrace does, and %S / %C use mt_esc_char.
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

/* A stream writing to fp with every unprintable byte but '\n' and '\t'
   escaped (machtrace's own messages on stderr); NULL on failure. */
FILE *mt_esc_stream(FILE *fp);

#endif
