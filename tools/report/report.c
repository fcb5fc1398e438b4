/*
 * machtrace report DIR -o FILE: the HTML report of a recorded trace
 * (output/report).  Progress goes to stderr when it is a terminal.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/tools.h"
#include "machtrace/trace.h"
#include "output/report/load.h"

static int
report_usage(FILE *fp)
{
	fprintf(fp, "Usage: machtrace report TRACE-DIR -o FILE.html\n"
		"\tWrite one self-contained HTML page (no network needed) "
		"about a trace\n\tmachtrace record wrote: threads on CPU, RPCs "
		"and traps with their\n\tlatencies, a latency heatmap, a flame "
		"graph of stack samples, drops.\n\t-o - writes the page to "
		"standard output.\n");
	return fp == stdout ? MT_EXIT_OK : MT_EXIT_USAGE;
}

static void
progress(void *ctx, uint64_t done, uint64_t total)
{
	unsigned pct = total ? (unsigned)(done * 100 / total) : 100;

	fprintf(stderr, "\rmachtrace report: reading %s: %3u%%%s",
		(const char *)ctx, pct, done >= total ? "\n" : "");
}

static int
write_page(struct rp *r, const char *out, const char *title)
{
	FILE *fp = strcmp(out, "-") == 0 ? stdout : fopen(out, "w");
	int rc;

	if (fp == NULL) {
		fprintf(stderr, "machtrace report: %s: %s\n", out,
			strerror(errno));
		return MT_EXIT_ERROR;
	}
	rc = rp_write_html(r, fp, title);
	if (rc != 0)
		fprintf(stderr, "machtrace report: %s: %s\n", out,
			strerror(errno));
	if (fp != stdout && fclose(fp) != 0 && rc == 0) {
		fprintf(stderr, "machtrace report: %s: %s\n", out,
			strerror(errno));
		rc = -1;
	}
	if (rc != 0 && fp != stdout)
		unlink(out);
	return rc == 0 ? MT_EXIT_OK : MT_EXIT_ERROR;
}

static int
report(const char *dir, const char *out)
{
	char err[512], title[512], *dcopy;
	struct mt_trace *t;
	struct rp *r;
	int rc = MT_EXIT_ERROR;

	t = mt_trace_open(dir, err, sizeof(err));
	if (t == NULL) {
		fprintf(stderr, "machtrace report: %s\n", err);
		return MT_EXIT_ERROR;
	}
	r = rp_new();
	dcopy = strdup(dir);
	if (r == NULL || dcopy == NULL) {
		fprintf(stderr, "machtrace report: out of memory\n");
		goto out;
	}
	snprintf(title, sizeof(title), "machtrace report: %s",
		 mt_trace_env_get(t, "trace_name") ?
		 mt_trace_env_get(t, "trace_name") : basename(dcopy));
	if (rp_load_trace(r, t, isatty(2) ? progress : NULL, (void *)dir,
			  err, sizeof(err)) != 0) {
		fprintf(stderr, "machtrace report: %s\n", err);
		goto out;
	}
	rc = write_page(r, out, title);
out:
	free(dcopy);
	rp_free(r);
	mt_trace_free(t);
	return rc;
}

int
tool_report_main(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return report_usage(stdout);
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "machtrace report: unknown option %s\n",
				argv[i]);
			return report_usage(stderr);
		} else if (dir == NULL) {
			dir = argv[i];
		} else {
			fprintf(stderr, "machtrace report: one trace "
				"directory only (%s, %s)\n", dir, argv[i]);
			return report_usage(stderr);
		}
	}
	if (dir == NULL || out == NULL) {
		fprintf(stderr, "machtrace report: %s\n", dir == NULL ?
			"a trace directory is needed" : "-o FILE is needed");
		return report_usage(stderr);
	}
	return report(dir, out);
}
