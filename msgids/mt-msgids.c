/*
 * mt-msgids: names message ids with the msgids library (a test and
 * debugging aid; machtrace's ipc provider uses the library itself).
 *
 *   mt-msgids [-d DIR]... [-f FILE]... ID...
 *
 * Prints "ID SUBSYSTEM ROUTINE" per id ("ID - ID" when unknown).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/msgids.h"

int main(int argc, char **argv)
{
	struct mt_msgids *m = mt_msgids_new();
	char err[512];
	int c;

	if (!m)
		return 2;
	while ((c = getopt(argc, argv, "d:f:")) != -1) {
		int k = c == 'd' ? mt_msgids_load_dir(m, optarg, err, sizeof err)
				 : c == 'f' ? mt_msgids_load_file(m, optarg, err, sizeof err) : -2;

		if (k == -2) {
			fprintf(stderr, "usage: mt-msgids [-d DIR]... [-f FILE]... ID...\n");
			return 2;
		}
		if (k < 0) {
			fprintf(stderr, "mt-msgids: %s\n", err);
			return 1;
		}
	}
	for (int i = optind; i < argc; i++) {
		struct mt_msgid_name n;
		char *end;
		long id = strtol(argv[i], &end, 0);

		if (*argv[i] == '\0' || *end) {
			fprintf(stderr, "mt-msgids: not a message id: '%s'\n", argv[i]);
			return 1;
		}
		mt_msgids_lookup(m, id, &n);
		printf("%ld %s %s\n", id, n.subsystem[0] ? n.subsystem : "-", n.routine);
	}
	mt_msgids_free(m);
	return 0;
}
