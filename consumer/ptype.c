/*
 * print(): a value laid out by its type, as dtrace-utils prints it.  The
 * compiler describes the type in the action's fmt, one node per line in
 * depth-first order (the consumer knows no types of its own):
 *
 *   *                          first line when printing through a pointer:
 *                              rec 0 = the pointer, rec 1 = the bytes it
 *                              points to (at most printsize of them)
 *   DEPTH KIND OFF SIZE NAME TYPE
 *                              DEPTH 0 is the object itself; KIND i signed
 *                              integer, u unsigned, c char, b bool,
 *                              p pointer, e enum, s struct, n union,
 *                              a array; OFF/SIZE in bytes from the object's
 *                              start; NAME a member name or "-" (the object,
 *                              array elements); TYPE the rest of the line,
 *                              as D spells it ("char [5]", "struct").
 *   DEPTH = VALUE NAME         an enumerator of the enum line above
 *
 * Output: "0x... = *" for a pointer, then "(TYPE) {" 44 columns in, one
 * line per member one column deeper per level; zero members and all-zero
 * structs are left out, a char array stops at its first NUL, and a member
 * past the recorded bytes ends the printout with "...".
 */
#include <stdlib.h>
#include <string.h>
#include "impl.h"

#define PT_INDENT	44
#define PT_MAXDEPTH	32

struct pnode {
	int depth;
	char kind;
	uint32_t off, size;
	char name[128];
	char type[256];
	const char *enums;		/* "DEPTH = VALUE NAME" lines after it */
};

static const char *
next_line(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e + 1 : p + strlen(p);
}

static int
is_enum_line(const char *p)
{
	char eq;
	int d;

	return sscanf(p, "%d %c", &d, &eq) == 2 && eq == '=';
}

/* Parse the node line at p; returns the next node's line or NULL. */
static const char *
parse_node(const char *p, struct pnode *n)
{
	const char *eol = strchr(p, '\n');
	int used = 0;

	memset(n, 0, sizeof(*n));
	if (is_enum_line(p) ||
	    sscanf(p, "%d %c %u %u %127s %n", &n->depth, &n->kind, &n->off,
		   &n->size, n->name, &used) < 5 || used == 0)
		return NULL;
	snprintf(n->type, sizeof(n->type), "%.*s",
		 (int)((eol ? eol : p + strlen(p)) - (p + used)), p + used);
	p = next_line(p);
	n->enums = p;
	while (*p && is_enum_line(p))
		p = next_line(p);
	return p;
}

static int
all_zero(const uint8_t *d, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (d[i])
			return 0;
	return 1;
}

static const char *
enum_name(const char *p, int64_t v, char *buf, size_t len)
{
	long long val;
	int d;

	(void)len;
	while (*p && sscanf(p, "%d = %lld %127s", &d, &val, buf) == 3) {
		if (val == v)
			return buf;
		p = next_line(p);
	}
	return NULL;
}

static void
print_scalar(FILE *fp, const struct pnode *n, const uint8_t *d)
{
	int64_t v = datum_int(d, n->size, n->kind != 'u' && n->kind != 'p' &&
			      n->kind != 'b');
	char prefix[160] = "", buf[128];
	const char *en;

	if (strcmp(n->name, "-") != 0)
		snprintf(prefix, sizeof(prefix), ".%s = ", n->name);
	fprintf(fp, "%*s%s(%s)", PT_INDENT + n->depth, "", prefix, n->type);
	switch (n->kind) {
	case 'c':
		fprintf(fp, "'%c'", (char)v);
		break;
	case 'p':
		fprintf(fp, "0x%llx", (unsigned long long)v);
		break;
	case 'u': case 'b':
		fprintf(fp, "%llu", (unsigned long long)(n->size < 8 ?
			(uint64_t)v & ((1ULL << (8 * n->size)) - 1) : (uint64_t)v));
		break;
	case 'e':
		if ((en = enum_name(n->enums, v, buf, sizeof(buf))) != NULL) {
			fputs(en, fp);
			break;
		}
		/* FALLTHROUGH */
	default:
		fprintf(fp, "%lld", (long long)v);
		break;
	}
	fputs(",\n", fp);
}

/* Skip the children of the node just parsed (deeper lines). */
static const char *
skip_children(const char *p, int depth)
{
	struct pnode n;
	const char *q;

	while (*p && (q = parse_node(p, &n)) != NULL && n.depth > depth)
		p = q;
	return p;
}

static void
print_typed(FILE *fp, const char *desc, const uint8_t *ptr, const uint8_t *d,
	    uint32_t have)
{
	char close[PT_MAXDEPTH];
	int depths[PT_MAXDEPTH], top = 0, stop_nul = -1, in_array;
	const char *p = desc, *q;
	struct pnode n;

	if (ptr != NULL) {
		uint64_t pv;

		memcpy(&pv, ptr, 8);
		fprintf(fp, "0x%llx = *\n", (unsigned long long)pv);
	}
	while (*p && (q = parse_node(p, &n)) != NULL) {
		int agg = n.kind == 's' || n.kind == 'n' || n.kind == 'a';

		p = q;
		/* arrays close as soon as their elements end ... */
		while (top > 0 && depths[top - 1] >= n.depth &&
		       close[top - 1] == ']') {
			top--;
			fprintf(fp, "%*s],\n", PT_INDENT + depths[top], "");
			if (stop_nul >= top)
				stop_nul = -1;
		}
		in_array = top > 0 && close[top - 1] == ']' &&
			   depths[top - 1] == n.depth - 1;
		if (stop_nul >= 0 || (in_array && n.off + n.size > have)) {
			p = skip_children(p, n.depth);
			continue;
		}
		/* ... a member past the recorded bytes ends it all ... */
		if ((agg && n.off >= have && n.depth > 0) ||
		    (!agg && n.off + n.size > have)) {
			fprintf(fp, "%*s...\n", PT_INDENT + n.depth, "");
			break;
		}
		/* ... and structs and unions when a shallower member comes */
		while (top > 0 && depths[top - 1] >= n.depth) {
			top--;
			fprintf(fp, "%*s%c%s\n", PT_INDENT + depths[top], "",
				close[top], top ? "," : "");
		}
		if (!agg) {
			if (n.kind == 'c' && top > 0 && close[top - 1] == ']' &&
			    d[n.off] == 0) {
				stop_nul = top - 1;
				continue;
			}
			if (!all_zero(d + n.off, n.size))
				print_scalar(fp, &n, d + n.off);
			continue;
		}
		if (n.depth > 0 && all_zero(d + n.off, n.size < have - n.off ?
					    n.size : have - n.off)) {
			p = skip_children(p, n.depth);
			continue;
		}
		if (top >= PT_MAXDEPTH)
			break;
		if (strcmp(n.name, "-") == 0)
			fprintf(fp, "%*s(%s) %c\n", PT_INDENT + n.depth, "",
				n.type, n.kind == 'a' ? '[' : '{');
		else
			fprintf(fp, "%*s.%s = (%s) %c\n", PT_INDENT + n.depth,
				"", n.name, n.type, n.kind == 'a' ? '[' : '{');
		depths[top] = n.depth;
		close[top++] = n.kind == 'a' ? ']' : '}';
	}
	while (top > 0) {
		top--;
		fprintf(fp, "%*s%c%s\n", PT_INDENT + depths[top], "", close[top],
			top ? "," : "");
	}
}

/* ------------------------------------------------------------------------
 * The compiler's tdesc (program.h: prefix notation) turned into the node
 * lines above.
 * ------------------------------------------------------------------------ */

static uint32_t
read_num(const char **pp)
{
	uint32_t v = (uint32_t)strtoul(*pp, (char **)pp, 10);

	return v;
}

static void
read_name(const char **pp, char *buf, size_t len)
{
	const char *p = *pp, *e;

	if (*p != '"') {
		buf[0] = '\0';
		return;
	}
	e = strchr(p + 1, '"');
	if (e == NULL)
		e = p + strlen(p);
	snprintf(buf, len, "%.*s", (int)(e - p - 1), p + 1);
	*pp = *e ? e + 1 : e;
}

static int
is_char_name(const char *n)
{
	return strcmp(n, "char") == 0 || strcmp(n, "signed char") == 0 ||
	       strcmp(n, "unsigned char") == 0;
}

/*
 * Parse one type at *pp; when out is set, write its node line (and its
 * members' and elements') at depth/off/name.  Returns the type's size.
 */
static uint32_t
tdesc_emit(const char **pp, FILE *out, int depth, uint32_t off,
	   const char *name)
{
	const char *p = *pp;
	char tname[256], kind = *p++, sign;
	uint32_t size = 0, count, esize;

	switch (kind) {
	case 'i':
		size = read_num(&p);
		sign = *p++;
		read_name(&p, tname, sizeof(tname));
		if (out)
			fprintf(out, "%d %c %u %u %s %s\n", depth,
				size == 1 && is_char_name(tname) ? 'c' :
				strcmp(tname, "bool") == 0 ||
				strcmp(tname, "_Bool") == 0 ? 'b' :
				sign == 's' ? 'i' : 'u', off, size, name, tname);
		break;
	case 'f':
		size = read_num(&p);
		read_name(&p, tname, sizeof(tname));
		if (out)
			fprintf(out, "%d u %u %u %s %s\n", depth, off, size,
				name, tname);
		break;
	case 'p':
		size = 8;
		read_name(&p, tname, sizeof(tname));
		if (out)
			fprintf(out, "%d p %u 8 %s %s\n", depth, off, name,
				tname);
		break;
	case 'e':
		size = read_num(&p);
		read_name(&p, tname, sizeof(tname));
		if (out)
			fprintf(out, "%d e %u %u %s %s\n", depth, off, size,
				name, tname);
		if (*p == '{')
			p++;
		while (*p && *p != '}') {
			const char *eq = strchr(p, '='), *comma;

			if (eq == NULL)
				break;
			comma = strchr(eq, ',');
			if (out)
				fprintf(out, "%d = %lld %.*s\n", depth + 1,
					strtoll(eq + 1, NULL, 10),
					(int)(eq - p), p);
			p = comma ? comma + 1 : eq + strlen(eq);
		}
		if (*p == '}')
			p++;
		break;
	case 'a': {
		const char *elem;

		count = read_num(&p);
		read_name(&p, tname, sizeof(tname));
		elem = p;
		esize = tdesc_emit(&p, NULL, 0, 0, "-");
		size = count * esize;
		if (out) {
			fprintf(out, "%d a %u %u %s %s\n", depth, off, size,
				name, tname);
			for (uint32_t i = 0; i < count; i++) {
				const char *q = elem;

				tdesc_emit(&q, out, depth + 1, off + i * esize,
					   "-");
			}
		}
		break;
	}
	case 's':
	case 'u':
		size = read_num(&p);
		read_name(&p, tname, sizeof(tname));
		if (out)
			fprintf(out, "%d %c %u %u %s %s\n", depth,
				kind == 's' ? 's' : 'n', off, size, name,
				tname);
		if (*p == '{')
			p++;
		while (*p == '.') {
			char mname[128];
			const char *at = strchr(p, '@');
			uint32_t moff;

			if (at == NULL)
				break;
			snprintf(mname, sizeof(mname), "%.*s",
				 (int)(at - p - 1), p + 1);
			p = at + 1;
			moff = read_num(&p);
			if (*p == ':') {	/* bit-field: printed whole */
				p++;
				read_num(&p);
				if (*p == ':')
					p++;
				read_num(&p);
			}
			tdesc_emit(&p, out, depth + 1, off + moff,
				   mname[0] ? mname : "-");
			if (*p == ';')
				p++;
		}
		if (*p == '}')
			p++;
		break;
	default:
		break;
	}
	*pp = p;
	return size;
}

/* print() by a tdesc; ptr set when printing through a pointer. */
void
print_tdesc(FILE *fp, const char *tdesc, const uint8_t *ptr,
	    const uint8_t *data, uint32_t have)
{
	char *lines = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&lines, &len);
	const char *p = tdesc;

	if (m == NULL)
		return;
	tdesc_emit(&p, m, 0, 0, "-");
	fclose(m);
	if (lines && strchr("ibuefp", tdesc[0]) && ptr == NULL) {
		/* a scalar: "(type)value" on its own line */
		struct pnode n;

		if (parse_node(lines, &n) != NULL) {
			char *s = NULL;
			size_t sl = 0;
			FILE *t = open_memstream(&s, &sl);

			if (t) {
				print_scalar(t, &n, data);
				fclose(t);
				/* drop the indent and the trailing comma */
				if (s && sl >= 2) {
					s[sl - 2] = '\0';
					fprintf(fp, "%s\n", s + strspn(s, " "));
				}
				free(s);
			}
		}
	} else if (lines) {
		print_typed(fp, lines, ptr, data, have);
	}
	free(lines);
}
