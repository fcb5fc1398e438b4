/*
 * Source lines of the kernel's code (DWARF line tables): where each block
 * of a line begins a statement, with the file as the source tree names
 * it ("vm/vm_fault.c": the build's directories before it dropped).
 */
#include <string.h>

#include "targets/mach/image/dwloc.h"
#include "targets/mach/image/kimg_int.h"

/* "/build/x/build-amd64/../vm/vm_fault.c" -> "vm/vm_fault.c" */
static const char *tree_path(const char *p)
{
	const char *up = NULL, *s;

	for (s = p; (s = strstr(s, "../")) != NULL; s += 3)
		up = s + 3;
	return up ? up : p;
}

/*
 * A block of a line: consecutive rows of one sequence with the same file
 * and line.  A line the compiler placed twice (a loop's test and its
 * increment, two inlined copies) has a block at each place; its site
 * there is the block's first row that begins a statement (a block with
 * none, a fragment of the line scheduled among others, has no site).
 */
static int cu_rows(Dwarf_Die *cu, uint64_t lo, uint64_t hi, mt_kline_fn fn, void *arg)
{
	Dwarf_Lines *lines;
	const char *pfile = NULL;
	int pline = 0, taken = 0;
	size_t n;

	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *ln = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool stmt = false, end = false;
		int line, rc;
		const char *file;

		if (!ln || dwarf_lineaddr(ln, &a) != 0 || dwarf_lineno(ln, &line) != 0 ||
		    dwarf_linebeginstatement(ln, &stmt) != 0 ||
		    dwarf_lineendsequence(ln, &end) != 0 ||
		    !(file = dwarf_linesrc(ln, NULL, NULL)) || end) {
			pfile = NULL;
			continue;
		}
		if (!pfile || line != pline || strcmp(file, pfile) != 0)
			taken = 0;	/* a new block */
		pfile = file;
		pline = line;
		if (taken || !stmt || line <= 0 || a < lo || (hi && a >= hi))
			continue;
		taken = 1;
		if ((rc = fn(arg, tree_path(file), line, a)) != 0)
			return rc;
	}
	return 0;
}

int mt_kimg_lines(struct mt_kimg *k, uint64_t lo, uint64_t hi, mt_kline_fn fn, void *arg)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;
	int rc;

	if (!k->dw)
		return -1;
	if (hi && dwarf_addrdie(k->dw, lo, &cu))
		return cu_rows(&cu, lo, hi, fn, arg);
	while (dwarf_nextcu(k->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(k->dw, off + hsize, &cu) &&
		    (rc = cu_rows(&cu, lo, hi, fn, arg)) != 0)
			return rc;
		off = next;
	}
	return 0;
}
