/*
 * Reading back the metadata writer/tsdl.c writes: the env entries, the
 * clock's offset and the event classes (one field per line).  Not a TSDL
 * parser: a trace machtrace did not write is refused with a message.
 */
#include <stdlib.h>
#include <string.h>
#include "reader_int.h"

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t' ||
			 e[-1] == ';'))
		*--e = '\0';
	return s;
}

/* "text" -> text (escapes undone), in place. */
static char *
unquote(char *s)
{
	char *o, *r;

	if (*s != '"')
		return s;
	for (o = r = s + 1; *r && *r != '"'; r++) {
		if (*r == '\\' && r[1])
			r++;
		*o++ = *r;
	}
	*o = '\0';
	return s + 1;
}

static int
add_env(struct mt_trace *t, const char *key, const char *val)
{
	struct ctf_env *v = realloc(t->env, (t->nenv + 1) * sizeof(*v));

	if (v == NULL)
		return -1;
	t->env = v;
	v[t->nenv].key = strdup(key);
	v[t->nenv].val = strdup(val);
	t->nenv++;
	return 0;
}

static struct mt_trace_class *
new_class(struct mt_trace *t)
{
	struct mt_trace_class *v = realloc(t->classes,
					   (t->nclasses + 1) * sizeof(*v));

	if (v == NULL)
		return NULL;
	t->classes = v;
	memset(&v[t->nclasses], 0, sizeof(*v));
	return &v[t->nclasses++];
}

/* One field line: "integer { size = S; ...; signed = G; ...; base = B; } _N[K]"
   or "string _N". */
static int
parse_field(struct mt_trace_class *c, char *line)
{
	struct mt_trace_field f, *v;
	unsigned size = 0, count = 0;
	int sign = 0, base = 10;
	char name[256], *p;

	memset(&f, 0, sizeof(f));
	if (sscanf(line, "string _%255[A-Za-z0-9_]", name) == 1) {
		f.type = MT_TF_STR;
	} else if (strncmp(line, "integer {", 9) == 0 && (p = strchr(line, '}'))) {
		char *q = strstr(line, "size = "), *g = strstr(line, "signed = "),
		     *b = strstr(line, "base = ");

		if (!q || sscanf(q, "size = %u", &size) != 1 ||
		    sscanf(p, "} _%255[A-Za-z0-9_]", name) != 1)
			return -1;
		if (g)
			sign = g[9] == '1' || g[9] == 't';
		if (b)
			base = atoi(b + 7);
		if (strchr(p, '[') && sscanf(strchr(p, '['), "[%u]", &count) == 1) {
			if (size != 8)
				return -1;
			f.type = MT_TF_BYTES;
			f.size = count;
		} else {
			if (size != 8 && size != 16 && size != 32 && size != 64)
				return -1;
			f.type = sign ? MT_TF_INT : base == 16 ? MT_TF_HEX : MT_TF_UINT;
			f.size = size / 8;
		}
	} else {
		return -1;
	}
	if ((v = realloc(c->fields, (c->nfields + 1) * sizeof(*v))) == NULL)
		return -1;
	c->fields = v;
	f.name = strdup(name);
	v[c->nfields++] = f;
	return 0;
}

int
ctf_read_metadata(struct mt_trace *t, FILE *f, char *err, size_t errlen)
{
	char line[4096];
	enum { TOP, ENV, CLOCK, EVENT, FIELDS } st = TOP;
	struct mt_trace_class *c = NULL;
	int64_t off_s = 0, off = 0;
	int lineno = 0;

	if (!fgets(line, sizeof(line), f) || strncmp(line, "/* CTF 1.8", 10) != 0) {
		snprintf(err, errlen, "not a CTF 1.8 trace (metadata does not "
			 "start with /* CTF 1.8)");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *eq;

		lineno++;
		if (st == TOP) {
			if (strcmp(s, "env {") == 0)
				st = ENV;
			else if (strcmp(s, "clock {") == 0)
				st = CLOCK;
			else if (strcmp(s, "event {") == 0) {
				if ((c = new_class(t)) == NULL)
					return -1;
				st = EVENT;
			}
			continue;
		}
		if (strcmp(s, "}") == 0 || (st != FIELDS && strcmp(s, "}") == 0)) {
			st = st == FIELDS ? EVENT : TOP;
			continue;
		}
		if (st == FIELDS) {
			if (parse_field(c, s) != 0) {
				snprintf(err, errlen, "metadata line %d: a field "
					 "machtrace does not write: %s", lineno + 1, s);
				return -1;
			}
			continue;
		}
		if (st == EVENT && strcmp(s, "fields := struct {") == 0) {
			st = FIELDS;
			continue;
		}
		if ((eq = strstr(s, " = ")) == NULL)
			continue;
		*eq = '\0';
		eq += 3;
		if (st == ENV && add_env(t, s, unquote(eq)) != 0)
			return -1;
		if (st == CLOCK && strcmp(s, "offset_s") == 0)
			off_s = strtoll(eq, NULL, 10);
		if (st == CLOCK && strcmp(s, "offset") == 0)
			off = strtoll(eq, NULL, 10);
		if (st == EVENT && strcmp(s, "name") == 0) {
			free(c->name);
			c->name = strdup(unquote(eq));
		}
		if (st == EVENT && strcmp(s, "id") == 0)
			c->id = (uint32_t)strtoul(eq, NULL, 10);
	}
	if (__builtin_mul_overflow(off_s, 1000000000, &off_s) ||
	    __builtin_add_overflow(off_s, off, &t->clock_offset)) {
		snprintf(err, errlen, "metadata: the clock's offset is more "
			 "than 2^63 ns");
		return -1;
	}
	for (uint32_t i = 0; i < t->nclasses; i++)
		if (t->classes[i].id != i || t->classes[i].name == NULL) {
			snprintf(err, errlen, "metadata: event class %u is not "
				 "numbered in order", i);
			return -1;
		}
	return 0;
}
