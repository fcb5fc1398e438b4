/*
 * machtrace msgdecode: rpcsnoop's filter (toolkit/rpcsnoop), stdin to
 * stdout, a line at a time.  rpcsnoop's D program prints message bodies
 * with tracemem(); this puts their decoded items (output/msg/) where the
 * lines ask for them:
 *   "@Q KEY" then a hex dump: a request's body, kept under KEY;
 *   a line holding "{Q:KEY}" and "{R}", then a hex dump (its reply's
 *     body): printed with {Q:KEY} replaced by the request's items ("?"
 *     if none was seen) and {R} by the reply's items after its RetCode
 *     (each preceded by a space);
 *   any other line: printed as it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "machtrace/msgdecode.h"

#define BODY_MAX	4096	/* more than rpcsnoop's tracemem() bound */
#define NREQ		64	/* requests awaiting their reply */
#define KEY_MAX		24
#define TEXT_MAX	2048

struct body {
	char key[KEY_MAX];		/* "" when free */
	uint8_t b[BODY_MAX];
	size_t n;
};

struct decoder {
	struct body req[NREQ];
	unsigned next;			/* the slot taken when none is free */
	struct body cur;		/* the dump being read */
	char *line;			/* cur's reply line, NULL for a request */
	int in_dump;
};

static struct body *
find(struct decoder *d, const char *key)
{
	for (unsigned i = 0; i < NREQ; i++)
		if (strcmp(d->req[i].key, key) == 0)
			return &d->req[i];
	return NULL;
}

/* The reply line with its request's and its own items put in. */
static void
print_reply(struct decoder *d, FILE *out)
{
	char args[TEXT_MAX] = "?", outs[TEXT_MAX], key[KEY_MAX];
	char *q = strstr(d->line, "{Q:"), *r, *e;
	struct body *b = NULL;

	if (q && (e = strchr(q, '}')) && (size_t)(e - q - 3) < KEY_MAX) {
		memcpy(key, q + 3, (size_t)(e - q - 3));
		key[e - q - 3] = '\0';
		if ((b = find(d, key)) != NULL) {
			mt_msg_decode(b->b, b->n, 0, args, sizeof(args));
			b->key[0] = '\0';
		}
		*q = '\0';
		q = e + 1;
	}
	mt_msg_decode(d->cur.b, d->cur.n, 1, outs, sizeof(outs));
	for (char *s = d->line; s; s = q, q = NULL) {
		if ((r = strstr(s, "{R}")) != NULL)
			*r = '\0';
		fputs(s, out);
		if (r)
			fprintf(out, "%s%s%s", outs[0] ? " " : "", outs, r + 3);
		if (q)
			fputs(args, out);
	}
}

/* The dump being read is complete. */
static void
flush(struct decoder *d, FILE *out)
{
	struct body *b;

	if (!d->in_dump)
		return;
	d->in_dump = 0;
	if (d->line) {
		print_reply(d, out);
		free(d->line);
		d->line = NULL;
		return;
	}
	if ((b = find(d, d->cur.key)) == NULL && (b = find(d, "")) == NULL)
		b = &d->req[d->next++ % NREQ];
	memcpy(b, &d->cur, sizeof(*b));
}

static void
start(struct decoder *d, const char *key, const char *line)
{
	memset(&d->cur, 0, sizeof(d->cur));
	snprintf(d->cur.key, sizeof(d->cur.key), "%s", key);
	d->line = line ? strdup(line) : NULL;
	d->in_dump = 1;
}

int
cli_msgdecode_main(int argc, char **argv)
{
	struct decoder *d;
	char line[TEXT_MAX], key[KEY_MAX];

	if (argc > 1) {
		int help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;

		fprintf(help ? stdout : stderr,
			"usage: machtrace msgdecode <rpcsnoop's output\n");
		return help ? E_SUCCESS : E_USAGE;
	}
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return E_ERROR;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (d->in_dump && mt_msg_hexline(line, d->cur.b, BODY_MAX, &d->cur.n) >= 0)
			continue;
		flush(d, stdout);
		if (sscanf(line, "@Q %23s", key) == 1)
			start(d, key, NULL);
		else if (strstr(line, "{R}") != NULL)
			start(d, "", line);
		else
			fputs(line, stdout);
	}
	flush(d, stdout);
	free(d->line);
	free(d);
	return E_SUCCESS;
}
