/*
 * Kernel C types for D programs: D declaration text generated from the
 * kernel's DWARF (struct/union/enum/typedef definitions, dependencies
 * first), and the C type of a probe's args[i].  The compiler can compile
 * the text before a program to type args[] and casts such as
 * `((struct ipc_kmsg *)arg0)->ikm_header`.
 *
 * Types are named by their C spelling; DWARF repeats a type in every
 * compilation unit, so identity is the name ("struct ipc_port"), not the
 * DIE.  Types reached through pointers only get a forward declaration.
 * Qualifiers are dropped, pointers to functions spelled `void *`, anonymous
 * enums spelled as the integer of their size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/image/kimg_int.h"
#include "targets/mach/live/live_int.h"

struct kimg_tname {			/* top-level named type DIEs */
	const char *key;		/* "struct x", "union x", "enum x", "x" (typedef) */
	Dwarf_Off die;
};

struct gen {
	struct mt_kimg *k;
	FILE *out;
	char **seen;			/* "D key": defined; "F key": forward */
	size_t nseen, capseen;
	int depth;
};

static int cmp_tname(const void *a, const void *b)
{
	return strcmp(((const struct kimg_tname *)a)->key,
		      ((const struct kimg_tname *)b)->key);
}

static const char *prefix(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type: return "struct ";
	case DW_TAG_union_type: return "union ";
	case DW_TAG_enumeration_type: return "enum ";
	case DW_TAG_typedef: return "";
	default: return NULL;
	}
}

/*
 * Index every complete named struct/union/enum/typedef at CU level, once
 * per kernel image (the index lives in the image and dies with it).
 */
static void index_names(struct mt_kimg *k)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	k->tnames_indexed = 1;
	while (k->dw && dwarf_nextcu(k->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		Dwarf_Attribute a;
		if (dwarf_offdie(k->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				const char *p = prefix(dwarf_tag(&c)), *n = dwarf_diename(&c);
				char key[300];
				if (!p || !n || dwarf_attr(&c, DW_AT_declaration, &a))
					continue;
				if (k->ntnames == cap) {
					struct kimg_tname *t = realloc(k->tnames, (cap = cap ? 2 * cap : 4096) * sizeof *t);
					if (!t)
						goto done;
					k->tnames = t;
				}
				snprintf(key, sizeof key, "%s%s", p, n);
				k->tnames[k->ntnames].key = kimg_strdup(k, key);
				k->tnames[k->ntnames++].die = dwarf_dieoffset(&c);
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
done:
	if (k->ntnames)
		qsort(k->tnames, k->ntnames, sizeof *k->tnames, cmp_tname);
}

static int find_type(struct mt_kimg *k, const char *key, Dwarf_Die *d)
{
	struct kimg_tname t = { key, 0 }, *r;

	if (!k->tnames_indexed)
		index_names(k);
	r = k->ntnames ? bsearch(&t, k->tnames, k->ntnames, sizeof *k->tnames,
				 cmp_tname) : NULL;
	return r && dwarf_offdie(k->dw, r->die, d) ? 0 : -1;
}

static int sub_type(Dwarf_Die *d, Dwarf_Die *t)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr_integrate(d, DW_AT_type, &a), t) ? 0 : -1;
}

static int seen(struct gen *g, char kind, const char *key)
{
	for (size_t i = 0; i < g->nseen; i++)
		if (g->seen[i][0] == kind && strcmp(g->seen[i] + 2, key) == 0)
			return 1;
	return 0;
}

static void mark(struct gen *g, char kind, const char *key)
{
	char *s = malloc(strlen(key) + 3);

	if (!s)
		return;
	sprintf(s, "%c %s", kind, key);
	if (g->nseen == g->capseen) {
		char **p = realloc(g->seen, (g->capseen = g->capseen ? 2 * g->capseen : 64) * sizeof *p);
		if (!p) {
			free(s);
			return;
		}
		g->seen = p;
	}
	g->seen[g->nseen++] = s;
}

static uint64_t byte_size(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Word n = 0;

	dwarf_formudata(dwarf_attr(d, DW_AT_byte_size, &a), &n);
	return n;
}

/* Bytes of a type, through typedefs and qualifiers; 0 for empty structs
   and flexible arrays (D has no zero-sized types: such members are left
   out, which keeps the layout). */
static uint64_t type_size(Dwarf_Die *t, int depth)
{
	Dwarf_Die sub;
	Dwarf_Attribute a;

	if (depth > 16)
		return 1;
	if (dwarf_hasattr(t, DW_AT_byte_size))
		return byte_size(t);
	if (dwarf_tag(t) == DW_TAG_array_type) {
		Dwarf_Die c;
		Dwarf_Word ub;
		if (dwarf_child(t, &c) != 0 ||
		    dwarf_formudata(dwarf_attr(&c, DW_AT_upper_bound, &a), &ub) != 0)
			return 0;
		return sub_type(t, &sub) == 0 ? (ub + 1) * type_size(&sub, depth + 1) : 0;
	}
	if (dwarf_tag(t) == DW_TAG_pointer_type)
		return 8;
	if (dwarf_tag(t) == DW_TAG_structure_type || dwarf_tag(t) == DW_TAG_union_type)
		return 0;			/* GCC leaves out byte_size 0 */
	return sub_type(t, &sub) == 0 ? type_size(&sub, depth + 1) : 1;
}

/* D's own keywords are renamed NAME_ when C uses them as member names. */
static const char *dname(const char *name, char *buf, size_t len)
{
	static const char *const kw[] = {
		"self", "this", "string", "stringof", "counter", "import", "offsetof",
		"probe", "provider", "translator", "userland", "xlate", "inline",
	};

	for (size_t i = 0; name && i < sizeof kw / sizeof *kw; i++)
		if (strcmp(name, kw[i]) == 0) {
			snprintf(buf, len, "%s_", name);
			return buf;
		}
	return name ? name : "";
}

static void need(struct gen *g, Dwarf_Die *d, int complete);
static void spell(struct gen *g, Dwarf_Die *t, const char *decl, char *buf, size_t len);

/*
 * Members of a struct/union body, "{ ... }".  Gaps the DWARF layout has
 * beyond natural alignment (aligned attributes) become char arrays, so
 * every offset and the size are the kernel's.
 */
static void body(struct gen *g, Dwarf_Die *s, char *buf, size_t len)
{
	Dwarf_Die m, t;
	size_t n = (size_t)snprintf(buf, len, "{ ");
	int is_union = dwarf_tag(s) == DW_TAG_union_type, bitf = 0, npad = 0;
	uint64_t end = 0;

#define PUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	if (dwarf_child(s, &m) == 0) {
		do {
			char nb[64], one[2048];
			const char *name = dname(dwarf_diename(&m), nb, sizeof nb);
			Dwarf_Attribute a;
			Dwarf_Word bits, off = 0;
			uint64_t size;
			if (dwarf_tag(&m) != DW_TAG_member || sub_type(&m, &t) < 0 ||
			    (size = type_size(&t, 0)) == 0)
				continue;
			dwarf_formudata(dwarf_attr(&m, DW_AT_data_member_location, &a), &off);
			spell(g, &t, name, one, sizeof one);
			if (dwarf_formudata(dwarf_attr(&m, DW_AT_bit_size, &a), &bits) == 0) {
				PUT("%s : %lu; ", one, (unsigned long)bits);
				bitf = 1;
				continue;
			}
			if (!is_union && !bitf && off > end)
				PUT("char __pad%d[%lu]; ", npad++, (unsigned long)(off - end));
			PUT("%s; ", one);
			bitf = 0;
			if (is_union ? size > end : 1)
				end = is_union ? size : off + size;
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	if (!bitf && byte_size(s) > end)
		PUT(is_union ? "char __pad%d[%lu]; " : "char __pad%d[%lu]; ", npad,
		    (unsigned long)(is_union ? byte_size(s) : byte_size(s) - end));
	snprintf(buf + n, n < len ? len - n : 0, "}");
#undef PUT
}

static void spell(struct gen *g, Dwarf_Die *t, const char *decl, char *buf, size_t len)
{
	Dwarf_Die sub;
	int has = sub_type(t, &sub) == 0, tag = dwarf_tag(t);
	const char *name = dwarf_diename(t);
	char inner[1024], *b;

	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
		snprintf(buf, len, "%s%s%s", name ? name : "int", *decl ? " " : "", decl);
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		if (name) {
			snprintf(buf, len, "%s%s%s%s", prefix(tag), name, *decl ? " " : "", decl);
			return;
		}
		b = malloc(len);
		if (!b)
			return;
		body(g, t, b, len);
		snprintf(buf, len, "%s%s %s", prefix(tag), b, decl);
		free(b);
		return;
	case DW_TAG_enumeration_type:
		if (name)
			snprintf(buf, len, "enum %s%s%s", name, *decl ? " " : "", decl);
		else
			snprintf(buf, len, "%s %s", byte_size(t) == 8 ? "long" : byte_size(t) == 2 ?
				 "short" : byte_size(t) == 1 ? "char" : "int", decl);
		return;
	case DW_TAG_pointer_type:
		if (!has || dwarf_tag(&sub) == DW_TAG_subroutine_type) {
			snprintf(buf, len, "void *%s", decl);
			return;
		}
		snprintf(inner, sizeof inner, dwarf_tag(&sub) == DW_TAG_array_type ?
			 "(*%s)" : "*%s", decl);
		spell(g, &sub, inner, buf, len);
		return;
	case DW_TAG_array_type: {
		Dwarf_Die c;
		Dwarf_Attribute a;
		Dwarf_Word ub = 0;
		int known = dwarf_child(t, &c) == 0 &&
			dwarf_formudata(dwarf_attr(&c, DW_AT_upper_bound, &a), &ub) == 0;
		snprintf(inner, sizeof inner, "%s[%lu]", decl, known ? (unsigned long)ub + 1 : 0ul);
		if (has)
			spell(g, &sub, inner, buf, len);
		return;
	}
	case DW_TAG_subroutine_type:
		snprintf(buf, len, "void *%s", decl);
		return;
	default:		/* const, volatile, restrict, atomic: dropped */
		if (has)
			spell(g, &sub, decl, buf, len);
		else
			snprintf(buf, len, "void %s", decl);
	}
}

/* Dependencies of a struct/union body (members by value complete). */
static void need_members(struct gen *g, Dwarf_Die *s)
{
	Dwarf_Die m, t;

	if (dwarf_child(s, &m) != 0)
		return;
	do
		if (dwarf_tag(&m) == DW_TAG_member && sub_type(&m, &t) == 0 &&
		    type_size(&t, 0) != 0)
			need(g, &t, 1);
	while (dwarf_siblingof(&m, &m) == 0);
}

static void need(struct gen *g, Dwarf_Die *d, int complete)
{
	Dwarf_Die sub, full;
	int tag = dwarf_tag(d), has = sub_type(d, &sub) == 0;
	const char *name = dwarf_diename(d), *p = prefix(tag);
	char key[300], text[16384];

	if (++g->depth > 64) {
		g->depth--;
		return;
	}
	if (p && name)
		snprintf(key, sizeof key, "%s%s", p, name);
	switch (tag) {
	case DW_TAG_pointer_type:
		if (has && dwarf_tag(&sub) != DW_TAG_subroutine_type)
			need(g, &sub, 0);
		break;
	case DW_TAG_array_type:
		if (has)
			need(g, &sub, 1);
		break;
	case DW_TAG_typedef:
		if (has)
			need(g, &sub, complete);
		if (!seen(g, 'D', key)) {
			mark(g, 'D', key);
			spell(g, has ? &sub : d, name, text, sizeof text);
			fprintf(g->out, "typedef %s;\n", has ? text : "int");
		}
		break;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		if (!name) {
			need_members(g, d);
			break;
		}
		if (!complete || seen(g, 'D', key) || seen(g, 'P', key)) {
			if (!seen(g, 'D', key) && !seen(g, 'F', key)) {
				mark(g, 'F', key);
				fprintf(g->out, "%s;\n", key);
			}
			break;
		}
		/* a declaration DIE: use the complete one of another unit */
		if (dwarf_hasattr(d, DW_AT_declaration)) {
			if (find_type(g->k, key, &full) < 0)
				break;
			d = &full;
		}
		mark(g, 'P', key);
		need_members(g, d);
		mark(g, 'D', key);
		body(g, d, text, sizeof text);
		if (strcmp(text, "{ }") == 0)	/* empty: D has no zero-sized types */
			fprintf(g->out, "%s;\n", key);
		else
			fprintf(g->out, "%s %s;\n", key, text);
		break;
	case DW_TAG_enumeration_type:
		if (name && !seen(g, 'D', key)) {
			Dwarf_Die e;
			Dwarf_Attribute a;
			mark(g, 'D', key);
			fprintf(g->out, "enum %s {", name);
			if (dwarf_child(d, &e) == 0) {
				int first = 1;
				do {
					Dwarf_Sword v = 0;
					if (dwarf_tag(&e) != DW_TAG_enumerator)
						continue;
					dwarf_formsdata(dwarf_attr(&e, DW_AT_const_value, &a), &v);
					fprintf(g->out, "%s %s = %lld", first ? "" : ",",
						dwarf_diename(&e), (long long)v);
					first = 0;
				} while (dwarf_siblingof(&e, &e) == 0);
			}
			fprintf(g->out, " };\n");
		}
		break;
	default:
		if (has && tag != DW_TAG_subroutine_type)
			need(g, &sub, complete);
	}
	g->depth--;
}

/* "struct x *", "const foo_t" -> "struct x", "foo_t" */
static void base_name(const char *ctype, char *key, size_t len)
{
	size_t n;

	snprintf(key, len, "%s", ctype);
	while (strncmp(key, "const ", 6) == 0 || strncmp(key, "volatile ", 9) == 0)
		memmove(key, strchr(key, ' ') + 1, strlen(strchr(key, ' ') + 1) + 1);
	n = strcspn(key, "*[");
	while (n && key[n - 1] == ' ')
		n--;
	key[n] = 0;
}

char *live_decls_n(struct mt_kimg *k, const char *const *ctypes, int n)
{
	struct gen g = { .k = k };
	char key[300], *text = NULL;
	size_t len = 0;
	Dwarf_Die d;
	int found = 0;

	if (!k->dw)
		return NULL;
	g.out = open_memstream(&text, &len);
	if (!g.out)
		return NULL;
	/*
	 * The kernel's C layout, also when the text is pasted in front of a
	 * program (then for the program's own types too: a control line at
	 * the end would swallow what follows on the same line).
	 */
	fprintf(g.out, "#pragma machtrace layout c\n");
	for (int i = 0; i < n; i++) {
		base_name(ctypes[i], key, sizeof key);
		if (find_type(k, key, &d) == 0) {
			need(&g, &d, 1);
			found++;
		}
	}
	fclose(g.out);
	for (size_t i = 0; i < g.nseen; i++)
		free(g.seen[i]);
	free(g.seen);
	if (!found) {
		free(text);
		return NULL;
	}
	return text;
}

char *live_decls(struct mt_kimg *k, const char *ctype)
{
	return live_decls_n(k, &ctype, 1);
}

/*
 * The C type of the kernel global variable `name` (a CU-level
 * DW_TAG_variable with a type; a definition's type may be on the extern
 * declaration it completes), into buf; -1 when the DWARF has none.
 */
int live_var_type(struct mt_kimg *k, const char *name, char *buf, size_t len)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (k->dw && dwarf_nextcu(k->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c, t;
		Dwarf_Attribute a;

		if (dwarf_offdie(k->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				const char *n = dwarf_diename(&c);

				if (dwarf_tag(&c) != DW_TAG_variable || !n ||
				    strcmp(n, name) != 0 ||
				    !dwarf_formref_die(dwarf_attr_integrate(&c, DW_AT_type, &a), &t))
					continue;
				kimg_type_name(&t, buf, len);
				return 0;
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
	return -1;
}

/* The struct a type names through typedefs ("vm_statistics_data_t" ->
   "vm_statistics"), in buf; -1 if it names none. */
int live_struct_of(struct mt_kimg *k, const char *type, char *buf, size_t len)
{
	Dwarf_Die d;
	const char *n;

	if (strncmp(type, "struct ", 7) == 0) {
		snprintf(buf, len, "%s", type + 7);
		return 0;
	}
	if (find_type(k, type, &d) < 0)
		return -1;
	for (int depth = 0; depth < 8 && dwarf_tag(&d) == DW_TAG_typedef; depth++)
		if (sub_type(&d, &d) < 0)
			return -1;
	if (dwarf_tag(&d) != DW_TAG_structure_type || !(n = dwarf_diename(&d)))
		return -1;
	snprintf(buf, len, "%s", n);
	return 0;
}
