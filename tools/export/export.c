/*
 * machtrace export DIR --format chrome|folded|flamegraph|speedscope
 *                  [-o FILE]
 * A trace machtrace record wrote, in a format other tools read
 * (include/machtrace/export.h); stdout without -o.  Progress on stderr
 * when it is a terminal.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/tools.h"
#include "machtrace/export.h"

typedef int (*export_fn)(struct mt_trace *, FILE *, const struct mt_export_opts *,
			 char *, size_t);

static const struct { const char *name; export_fn fn; } formats[] = {
	{ "chrome", mt_export_chrome },
	{ "folded", mt_export_folded },
	{ "flamegraph", mt_export_flamegraph },
	{ "speedscope", mt_export_speedscope },
};

static int
export_usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "machtrace: export: %s\n", msg);
	fprintf(stderr, "usage: machtrace export DIR --format chrome|folded|"
		"flamegraph|speedscope [-o FILE]\n");
	return MT_EXIT_USAGE;
}

static void
progress(void *arg, uint64_t done, uint64_t total)
{
	(void)arg;
	fprintf(stderr, "\rmachtrace: export: %3.0f%%", total ?
		100.0 * (double)done / (double)total : 100.0);
}

int
tool_export_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fmt = NULL, *ofile = NULL, *dir = NULL;
	struct mt_export_opts eo = { NULL, NULL, NULL };
	export_fn fn = NULL;
	struct mt_trace *t;
	char err[512];
	FILE *out = stdout;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': fmt = optarg; break;
		case 'o': ofile = optarg; break;
		case 'h': export_usage(NULL); return MT_EXIT_OK;
		default: return export_usage(NULL);
		}
	}
	if (optind + 1 != argc)
		return export_usage(optind == argc ? "no trace directory given" :
				    "one trace directory only");
	dir = argv[optind];
	if (fmt == NULL)
		return export_usage("--format is required");
	for (size_t i = 0; i < sizeof(formats) / sizeof(*formats); i++)
		if (strcmp(fmt, formats[i].name) == 0)
			fn = formats[i].fn;
	if (fn == NULL) {
		fprintf(stderr, "machtrace: export: unknown format '%s' (formats: "
			"chrome, folded, flamegraph, speedscope)\n", fmt);
		return MT_EXIT_USAGE;
	}
	if ((t = mt_trace_open(dir, err, sizeof(err))) == NULL) {
		fprintf(stderr, "machtrace: export: %s\n", err);
		return MT_EXIT_ERROR;
	}
	if (ofile && (out = fopen(ofile, "w")) == NULL) {
		fprintf(stderr, "machtrace: export: cannot create %s\n", ofile);
		mt_trace_free(t);
		return MT_EXIT_ERROR;
	}
	if (isatty(2))
		eo.progress = progress;
	eo.title = mt_trace_env_get(t, "trace_name");
	rc = fn(t, out, &eo, err, sizeof(err));
	if (eo.progress) {
		progress(NULL, mt_trace_bytes_read(t), mt_trace_stream_bytes(t));
		fputc('\n', stderr);
	}
	if (fflush(out) != 0 || ferror(out)) {
		snprintf(err, sizeof(err), "write error");
		rc = -1;
	}
	if (out != stdout)
		fclose(out);
	mt_trace_free(t);
	if (rc != 0) {
		fprintf(stderr, "machtrace: export: %s\n", err);
		return MT_EXIT_ERROR;
	}
	return MT_EXIT_OK;
}
