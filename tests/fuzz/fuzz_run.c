/*
 * libFuzzer harness of the whole local pipeline (make fuzz): each input
 * is a D program, compiled, linked for the local target and run twice,
 * compiled to x86-64 and on the interpreter, BEGIN and END fired with
 * the same arguments (tests/unit/localrun.h).  A program that compiles
 * must link or say why; both runs must leave the same records, the same
 * aggregations and the same exit status.  Programs whose values differ
 * from run to run by design (time, rand(), addresses of either target's
 * memory, stacks) are run but not compared.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit/localrun.h"

#define FIRINGS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Does text use what differs between two targets' runs? */
static int varies(const char *text)
{
	static const char *const words[] = {
		"timestamp", "rand", "alloca", "stack", "caller", "curthread",
		"curcpu", "regs", "copyin", "task", "mutex", "rw_", "inet", "getf",
		"d_path", "link_ntop", "uaddr", "usym", "umod", "ufunc", NULL,
	};

	for (int i = 0; words[i]; i++)
		if (strstr(text, words[i]))
			return 1;
	/* a lone '&' may take an address; && and &= do not */
	for (const char *p = strchr(text, '&'); p; p = strchr(p + 2, '&'))
		if (p[1] != '&' && p[1] != '=')
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_lrun c, i;
	char *text = malloc(size + 1);
	int rc, ri;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rc = mt_lrun(&c, text, 0, FIRINGS);
	ri = mt_lrun(&i, text, 1, FIRINGS);
	if (rc != ri || (rc == 0 && !varies(text) && !mt_lrun_same(&c, &i))) {
		fprintf(stderr, "fuzz run: compiled and interpreted runs differ "
			"(set up: %d, %d; compiled firings %d)\n", rc, ri, c.compiled);
		abort();
	}
	if (c.t)
		mt_target_free(c.t);
	if (i.t)
		mt_target_free(i.t);
	free(text);
	return 0;
}
