/*
 * A session's input from the command line: a D source file's text (-s,
 * "-" for stdin), and the -x msgids files, checked when given.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "machtrace/msgids.h"
#include "machtrace/session.h"

static char *
read_all(FILE *f)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	for (;;) {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap = cap * 2 + 8192);
			if (nb == NULL) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;

		free(buf);
		errno = e ? e : EIO;
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

char *
mt_session_read_source(const char *path, FILE *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char *buf = NULL;

	if (f != NULL && f != stdin) {
		struct stat st;

		/* fopen() opens a directory; reading it then fails */
		if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
			fclose(f);
			f = NULL;
			errno = EISDIR;
		}
	}
	if (f != NULL) {
		buf = read_all(f);
		if (f != stdin) {
			int e = errno;

			fclose(f);
			errno = e;
		}
	}
	if (buf == NULL)
		fprintf(err, "dtrace: failed to open %s: %s\n", path,
			strerror(errno));
	return buf;
}

int
mt_session_check_msgids(const struct mt_opts *opts, FILE *err)
{
	struct mt_msgids *m;
	char msg[512];

	if (opts->nmsgids == 0)
		return 0;
	m = mt_msgids_open(NULL, opts->msgids, opts->nmsgids, msg, sizeof(msg));
	if (m == NULL) {
		fprintf(err, "dtrace: failed to load msgids: %s\n", msg);
		return -1;
	}
	mt_msgids_free(m);
	return 0;
}
