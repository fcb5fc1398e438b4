/*
 * --format folded: one line per distinct stack, "root;...;leaf COUNT",
 * the input of flamegraph.pl (and of speedscope, inferno, ...).
 */
#include "export_int.h"

int
mt_export_folded(struct mt_trace *t, FILE *out, const struct mt_export_opts *o,
		 char *err, size_t errlen)
{
	struct folded_set fs;

	if (stacks_collect(t, o, &fs, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < fs.n; i++)
		fprintf(out, "%s %llu\n", fs.v[i].stack,
			(unsigned long long)fs.v[i].count);
	stacks_free(&fs);
	return 0;
}
