/*
 * GNU Mach's console, as the launcher reads it.  The -dbg kernel has KDB:
 * a panic prints "panic: WHY" (after the panicking CPU's line), then the
 * debugger banner and the prompt "db> " without a newline.  A debugger
 * entry without panic prints "Debugger invoked: WHY"; an unexpected kernel
 * trap "Kernel <name> trap, eip ...".  An SMP kernel prefixes an
 * assertion with its CPU ("{cpu0} FILE:LINE: FUNC: Assertion `E' failed.")
 * and "Debugger invoked" follows it on the same line; its prompt is
 * "db{0}> ".  Our boot shim reports why it cannot load the kernel as
 * "shim: error: WHY" and halts.
 */
#include <stdio.h>
#include <string.h>

#include "machtrace/lkabi.h"
#include "targets/mach/mach_int.h"

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

enum mt_con_kind mt_console_classify(const char *line)
{
	if (starts(line, "shim: error:"))
		return MT_CON_SHIM_ERROR;
	if (starts(line, "{cpu") && strchr(line, '}'))
		line = strchr(line, '}') + 1 + (strchr(line, '}')[1] == ' ');
	if (starts(line, "panic"))
		return MT_CON_PANIC;
	if (starts(line, "Debugger invoked") ||
	    (strstr(line, "Assertion `") && strstr(line, "Debugger invoked")))
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
	if (strncmp(line + strspn(line, "\r"), "db>", 3) == 0 ||
	    strncmp(line + strspn(line, "\r"), "db{", 3) == 0) {
		snprintf(tmp, sizeof tmp, "%s", line);
		fn(arg, tmp, 1);
	}
}

enum mt_con_kind mt_console_note(struct mt_con_kdb *k, const char *line)
{
	enum mt_con_kind kind = mt_console_classify(line);

	if (kind == MT_CON_PANIC)
		snprintf(k->panic, sizeof k->panic, "%s", line);
	else if ((kind == MT_CON_DEBUGGER || kind == MT_CON_TRAP) && !k->stop[0])
		snprintf(k->stop, sizeof k->stop, "%s", line);
	return kind;
}

const char *mt_console_why(const struct mt_con_kdb *k)
{
	return k->panic[0] ? k->panic : k->stop[0] ? k->stop : "kernel debugger prompt";
}

struct scan {
	struct mt_con_kdb kdb;
	int prompt;
};

static void scan_line(void *arg, char *line, int partial)
{
	struct scan *s = arg;

	if (mt_console_note(&s->kdb, mt_console_clean(line)) == MT_CON_PROMPT)
		s->prompt = 1;
}

static int console_scan(const char *buf, size_t n, char *why, size_t len)
{
	char line[MT_CON_LINE];
	struct scan s;
	size_t used = 0;

	memset(&s, 0, sizeof s);
	mt_console_feed(line, sizeof line, &used, buf, strnlen(buf, n), scan_line, &s);
	if (!s.prompt)
		return 0;
	snprintf(why, len, "%s", mt_console_why(&s.kdb));
	return 1;
}

int mt_kmsg_stop(const uint8_t *ram, size_t ram_size, uint64_t va, uint64_t size, char *why,
		 size_t len)
{
	uint64_t pa = va - LK_KERNEL_MAP_BASE;

	return ram && size && va >= LK_KERNEL_MAP_BASE && pa < ram_size &&
	       size <= ram_size - pa && console_scan((const char *)ram + pa, size, why, len);
}
