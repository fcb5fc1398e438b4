/*
 * The one probe-description parser: "prov:mod:func:name" into its fields,
 * used by the compiler (clause descriptions) and the CLI (-l).
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>
#include "machtrace/program.h"

/*
 * A '/' inside the module field of line:FILE:FUNC:N ("vm/vm_fault.c"):
 * spec[0..n) is "line:" and what follows, with no second ':', and a file
 * name character follows p, so that a predicate (three colons before it
 * there) still ends the description.
 */
int
mt_pdesc_file_slash(const char *spec, size_t n, const char *p)
{
	return *p == '/' && n >= 5 && strncmp(spec, "line:", 5) == 0 &&
		!memchr(spec + 5, ':', n - 5) &&
		(isalnum((unsigned char)p[1]) || p[1] == '_' || p[1] == '.');
}

/*
 * Split s in place at each ':' not escaped by a backslash (the backslash
 * stays in the field).  The fields are aligned to the right as dtrace
 * does: "BEGIN" is a name, "f:entry" a function and a name, the missing
 * fields on the left are "".  Returns the number of fields; past four
 * (overspecified) the fourth field, pd->name, holds the rest of s with
 * its colons.  pd->line is left alone.
 */
int
mt_pdesc_split(char *s, struct mt_pdesc *pd)
{
	char *f[4] = { s, NULL, NULL, NULL };
	int n = 1;

	for (char *p = s; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p != ':')
			continue;
		if (n < 4) {
			*p = '\0';
			f[n] = p + 1;
		}
		n++;
	}
	char **dst[4] = { &pd->prov, &pd->mod, &pd->func, &pd->name };
	int k = n < 4 ? n : 4;
	for (int i = 0; i < 4; i++)
		*dst[i] = "";
	for (int i = 0; i < k; i++)
		*dst[4 - k + i] = f[i];
	return n;
}
