/*
 * libFuzzer harness of the rules parser of top and health (make fuzz;
 * output/stats/health.c): each input is a rules file.  It parses, or
 * fails with "line L, column C: what"; every parsed rule has a metric, an
 * operator, N intervals from 1 to 1000 and a line within the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[256];
	struct mt_rule *rules = NULL;
	size_t n = 0, lines = 1;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t k = 0; k < size; k++)
		lines += text[k] == '\n';
	err[0] = '\0';
	if (mt_rules_parse(text, &rules, &n, err, sizeof err) != 0) {
		if (strncmp(err, "line ", 5) != 0)
			abort();	/* a refusal must say where */
	} else {
		for (size_t k = 0; k < n; k++)
			if (!rules[k].metric[0] || rules[k].nfor < 1 || rules[k].nfor > 1000 ||
			    rules[k].line < 1 || (size_t)rules[k].line > lines ||
			    !mt_rule_op_text(rules[k].op))
				abort();
	}
	free(rules);
	free(text);
	return 0;
}
