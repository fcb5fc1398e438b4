/*
 * libFuzzer harness for the D compiler (make fuzz): each input is a D
 * program, compiled with -e semantics (no target, no cpp).  An input whose
 * first byte is 0x01 is compiled as a -n probe specifier instead, to reach
 * the probe-description lexer.  A compiled program is also listed (-S) to
 * /dev/null.  Every compile must return a program or a diagnostic; a
 * crash, a sanitizer report or a leak is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/compiler.h"
#include "machtrace/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int pspec = size > 0 && data[0] == 1;
	if (pspec) {
		data++;
		size--;
	}
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;

	struct mt_opts opts;
	mt_opts_init(&opts);
	struct mt_cc_src src = { text, pspec ? text : "fuzz.d", pspec };
	struct mt_cc_input in = {
		.srcs = &src, .nsrcs = 1, .opts = &opts,
		.flags = MT_CC_COMPILE_ONLY,
	};
	struct mt_diag diag;
	struct mt_prog *prog = mt_compile(&in, &diag);
	if (prog) {
		/* the -S listing reads every table the compiler built */
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			mt_disasm(prog, null);
			fclose(null);
		}
		mt_prog_free(prog);
	}
	else if (!diag.msg[0])
		abort();	/* a failure must say why */
	free(text);
	return 0;
}
