/*
 * The trace's TSDL metadata (CTF 1.8, plain text): trace, env (as LTTng
 * writes it for a kernel trace, so that Trace Compass applies its kernel
 * analyses), the clock, the stream's packet and event headers, one event
 * block per class.  Field names get LTTng's leading '_' (babeltrace2 and
 * Trace Compass strip it); each field is on one line, in the form the
 * reader (reader_meta.c) parses back.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "ctf_int.h"

char *
ctf_ident(const char *name, uint32_t i)
{
	char *s;
	size_t n = name ? strlen(name) : 0;

	if (n == 0) {
		if ((s = malloc(16)) != NULL)
			snprintf(s, 16, "f%u", i);
		return s;
	}
	if ((s = strdup(name)) == NULL)
		return NULL;
	for (char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			*p = '_';
	return s;
}

/* A TSDL string literal's body: quotes and backslashes escaped. */
static void
put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' || *s == '\t' ? ' ' : *s >= ' ' ? *s : '?', f);
	}
	fputc('"', f);
}

static void
put_field(FILE *f, const struct mt_trace_field *fd)
{
	switch (fd->type) {
	case MT_TF_STR:
		fprintf(f, "\t\tstring _%s;\n", fd->name);
		break;
	case MT_TF_BYTES:
		fprintf(f, "\t\tinteger { size = 8; align = 8; signed = 0; "
			"encoding = none; base = 16; } _%s[%u];\n", fd->name,
			fd->size);
		break;
	default:
		fprintf(f, "\t\tinteger { size = %u; align = 8; signed = %d; "
			"encoding = none; base = %d; } _%s;\n", fd->size * 8,
			fd->type == MT_TF_INT, fd->type == MT_TF_HEX ? 16 : 10,
			fd->name);
	}
}

static void
put_env(FILE *f, const struct mt_trace_writer *w)
{
	char host[256] = "", date[64] = "";
	const char *name = w->env.trace_name, *slash;
	struct utsname u;
	time_t now = time(NULL);
	const struct { const char *k, *v; } what[] = {
		{ "program", w->env.program }, { "events", w->env.events },
		{ "workload", w->env.workload }, { "kernel", w->env.kernel },
	};
	struct tm tm;

	if (w->env.hostname)
		snprintf(host, sizeof(host), "%s", w->env.hostname);
	else if (gethostname(host, sizeof(host) - 1) != 0)
		strcpy(host, "unknown");
	if (name == NULL)
		name = (slash = strrchr(w->dir, '/')) && slash[1] ? slash + 1 : w->dir;
	memset(&u, 0, sizeof(u));
	uname(&u);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y%m%dT%H%M%S+0000", &tm);
	fprintf(f, "env {\n\thostname = ");
	put_str(f, host);
	fprintf(f, ";\n\tdomain = \"kernel\";\n\tsysname = \"GNU\";\n"
		"\tkernel_release = \"gnumach\";\n\tkernel_version = \"GNU Mach "
		"under QEMU\";\n\ttracer_name = \"lttng-modules\";\n"
		"\ttracer_major = 2;\n\ttracer_minor = 13;\n\ttracer_patchlevel = 0;\n"
		"\ttrace_buffering_scheme = \"global\";\n\ttrace_name = ");
	put_str(f, name);
	fprintf(f, ";\n\ttrace_creation_datetime = \"%s\";\n"
		"\tproduct = \"machtrace\";\n\thost_sysname = ", date);
	put_str(f, u.sysname);
	fprintf(f, ";\n");
	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		if (what[i].v == NULL)
			continue;
		fprintf(f, "\tmachtrace_%s = ", what[i].k);
		put_str(f, what[i].v);
		fprintf(f, ";\n");
	}
	if (w->probe_cost)
		fprintf(f, "\tmachtrace_probe_firings = %llu;\n\tmachtrace_probe_ns = %llu;\n",
			(unsigned long long)w->probe_firings,
			(unsigned long long)w->probe_ns);
	fprintf(f, "};\n\n");
}

int
ctf_write_metadata(const struct mt_trace_writer *w, const char *path)
{
	FILE *f = fopen(path, "w");
	int64_t off = w->env.clock_offset_ns;
	int64_t off_s = off >= 0 ? off / 1000000000 : -((-off + 999999999) / 1000000000);

	if (f == NULL)
		return -1;
	fprintf(f, "/* CTF 1.8 */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n"
		"\t\tuint32_t stream_id;\n\t};\n};\n\n");
	put_env(f, w);
	fprintf(f, "clock {\n\tname = \"monotonic\";\n"
		"\tdescription = \"GNU Mach's clock, as the traced kernel's "
		"probes read it\";\n\tfreq = 1000000000;\n\tprecision = 1;\n"
		"\toffset_s = %lld;\n\toffset = %lld;\n\tabsolute = FALSE;\n};\n\n"
		"typealias integer {\n\tsize = 64; align = 8; signed = false;\n"
		"\tmap = clock.monotonic.value;\n} := uint64_clock_monotonic_t;\n\n",
		(long long)off_s, (long long)(off - off_s * 1000000000));
	fprintf(f, "stream {\n\tid = 0;\n\tpacket.context := struct {\n"
		"\t\tuint64_clock_monotonic_t timestamp_begin;\n"
		"\t\tuint64_clock_monotonic_t timestamp_end;\n"
		"\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
		"\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n"
		"\t\tuint32_t cpu_id;\n\t};\n"
		"\tevent.header := struct {\n\t\tuint32_t id;\n"
		"\t\tuint64_clock_monotonic_t timestamp;\n\t};\n};\n\n");
	for (uint32_t i = 0; i < w->nclasses; i++) {
		const struct mt_trace_class *c = &w->classes[i];

		fprintf(f, "event {\n\tname = ");
		put_str(f, c->name);
		fprintf(f, ";\n\tid = %u;\n\tstream_id = 0;\n", c->id);
		if (c->nfields) {
			fprintf(f, "\tfields := struct {\n");
			for (uint32_t k = 0; k < c->nfields; k++)
				put_field(f, &c->fields[k]);
			fprintf(f, "\t};\n");
		}
		fprintf(f, "};\n\n");
	}
	return fclose(f);
}
