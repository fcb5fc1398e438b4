/*
 * libFuzzer harness of the CTF trace reader (make fuzz; output/ctf): each
 * input is a trace directory packed as its metadata, the separator
 * "\0\0STREAM\0\0", then channel0_0 (no separator: no stream file).  The
 * reader opens it or says why, and reads every event to the end (twice,
 * through a rewind) or stops with a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "machtrace/trace.h"

#define SEP "\0\0STREAM\0\0"
#define SEPLEN 10

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* under $TMPDIR (run.sh: the harness's directory, where a crash that
   skips the cleanup leaves it) */
static char dir[256];

static void drop(const char *name)
{
	char p[300];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	unlink(p);
}

static void cleanup(void)
{
	drop("metadata");
	drop("channel0_0");
	rmdir(dir);
}

static int put(const char *name, const uint8_t *d, size_t n)
{
	char p[300];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	if (!(f = fopen(p, "wb")))
		return -1;
	if (n && fwrite(d, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Every event to the end: 0, or -1 with a message. */
static int read_all(struct mt_trace *t)
{
	struct mt_trace_event ev;
	char err[256] = "";
	int r;

	while ((r = mt_trace_next(t, &ev, err, sizeof err)) == 1)
		if (!ev.cls || ev.cpu >= mt_trace_ncpus(t))
			abort();
	if (r < 0 && !err[0])
		abort();	/* a malformed stream must say why */
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, SEP, SEPLEN);
	size_t mlen = sep ? (size_t)(sep - data) : size;
	char err[256] = "";
	struct mt_trace *t;

	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof dir, "%s/mt-fuzz-ctf.XXXXXX", tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
	}
	if (put("metadata", data, mlen) != 0 ||
	    (sep && put("channel0_0", sep + SEPLEN, size - mlen - SEPLEN) != 0))
		abort();
	if (!sep)
		drop("channel0_0");
	if (!(t = mt_trace_open(dir, err, sizeof err))) {
		if (!err[0])
			abort();	/* a refusal must say why */
		return 0;
	}
	if (read_all(t) == 0 && mt_trace_rewind(t, err, sizeof err) == 0)
		read_all(t);
	mt_trace_free(t);
	return 0;
}
