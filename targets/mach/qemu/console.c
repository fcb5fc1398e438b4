/*
 * GNU Mach's console, as the launcher reads it.  The -dbg kernel has KDB:
 * a panic prints "panic: WHY" (after the panicking CPU's line), then the
 * debugger banner and the prompt "db> " without a newline.  A debugger
 * entry without panic prints "Debugger invoked: WHY"; an unexpected kernel
 * trap "Kernel <name> trap, eip ...".  Our boot shim reports why it cannot
 * load the kernel as "shim: error: WHY" and halts.
 */
#include <stdio.h>
#include <string.h>

#include "targets/mach/mach_int.h"

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

enum mt_con_kind mt_console_classify(const char *line)
{
	if (starts(line, "shim: error:"))
		return MT_CON_SHIM_ERROR;
	if (starts(line, "panic"))
		return MT_CON_PANIC;
	if (starts(line, "Debugger invoked"))
		return MT_CON_DEBUGGER;
	if (starts(line, "Kernel ") && strstr(line, " trap"))
		return MT_CON_TRAP;
	if (strcmp(line, "db>") == 0 || strcmp(line, "db> ") == 0 || starts(line, "db{"))
		return MT_CON_PROMPT;
	return MT_CON_PLAIN;
}

char *mt_console_clean(char *line)
{
	char *w = line;
	size_t n;

	for (char *r = line; *r; r++)
		if (*r != '\r')
			*w++ = *r;
	*w = 0;
	n = strlen(line);
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\n'))
		line[--n] = 0;
	return line;
}

/*
 * Console output cut into lines (line: cap bytes, *used pending): fn(arg,
 * line, 0) for each complete line or full buffer; then, when what is
 * pending is the KDB prompt "db>" (a partial line: the debugger waits for
 * input), fn(arg, a copy of it, 1).  fn may change the line it is given.
 */
void mt_console_feed(char *line, size_t cap, size_t *used, const char *chunk, size_t n,
		     void (*fn)(void *arg, char *line, int partial), void *arg)
{
	char tmp[MT_CON_LINE];

	for (size_t i = 0; i < n; i++) {
		if (chunk[i] == '\n' || *used == cap - 1) {
			line[*used] = 0;
			fn(arg, line, 0);
			*used = 0;
			if (chunk[i] == '\n')
				continue;
		}
		line[(*used)++] = chunk[i];
	}
	line[*used] = 0;
	if (strncmp(line + strspn(line, "\r"), "db>", 3) == 0) {
		snprintf(tmp, sizeof tmp, "%s", line);
		fn(arg, tmp, 1);
	}
}
