/*
 * The type container: named types ("int", "struct foo", "uint64_t"), with
 * derived types (pointers, arrays) created on demand.  D's built-in types
 * are defined at start-up (LP64); C declarations add to the container, and
 * a later importer (kernel DWARF) can add through ty_define() the same way.
 */
#include <stdlib.h>
#include <string.h>
#include "cc.h"

struct tentry {
	char *name;
	struct type *type;
};

static int tentry_eq(const void *name, uintptr_t val)
{
	return strcmp(((const struct tentry *)val)->name, name) == 0;
}

struct type *ty_lookup(struct cc *cc, const char *name)
{
	struct tentry *e = (struct tentry *)mt_hmap_find(&cc->types,
				mt_hash_str(name), tentry_eq, name);

	return e ? e->type : NULL;
}

/* A name defined again names the new type from then on. */
void ty_define(struct cc *cc, const char *name, struct type *t)
{
	uint64_t h = mt_hash_str(name);
	struct tentry *e = (struct tentry *)mt_hmap_find(&cc->types, h,
							 tentry_eq, name);

	if (e) {
		e->type = t;
		return;
	}
	e = cc_alloc(cc, sizeof(*e));
	e->name = cc_strdup(cc, name);
	e->type = t;
	if (mt_hmap_put(&cc->types, h, (uintptr_t)e) != 0)
		abort();	/* as cc_alloc does */
}

struct type *ty_new(struct cc *cc, enum tkind k, uint32_t size, const char *name)
{
	struct type *t = cc_alloc(cc, sizeof(*t));
	t->kind = k;
	t->size = size;
	t->align = size > 8 ? 8 : (size ? size : 1);
	t->name = cc_strdup(cc, name ? name : "");
	t->canon = t;
	t->complete = 1;
	return t;
}

/* Name of a declarator of type t around inner text ("" for abstract). */
char *ty_decl_name(struct cc *cc, struct type *t, const char *inner)
{
	if (t->canon != t && t->name[0] && t->kind != T_PTR &&
	    t->kind != T_ARRAY)
		return *inner ? cc_printf(cc, "%s %s", t->name, inner) :
				cc_strdup(cc, t->name);
	switch (t->kind) {
	case T_PTR:
		if (t->base->kind == T_ARRAY || t->base->kind == T_FUNC)
			return ty_decl_name(cc, t->base, cc_printf(cc, "(*%s)", inner));
		return ty_decl_name(cc, t->base, cc_printf(cc, "*%s", inner));
	case T_ARRAY:
		return ty_decl_name(cc, t->base,
				    cc_printf(cc, "%s[%u]", inner, t->nelems));
	case T_FUNC:
		return ty_decl_name(cc, t->base, cc_printf(cc, "%s()", inner));
	default:
		return *inner ? cc_printf(cc, "%s %s", t->name, inner) :
				cc_strdup(cc, t->name);
	}
}

struct type *ty_ptr(struct cc *cc, struct type *t)
{
	if (t->ptrto)
		return t->ptrto;
	struct type *p = ty_new(cc, T_PTR, 8, NULL);
	p->base = t;
	p->name = ty_decl_name(cc, p, "");
	t->ptrto = p;
	return p;
}

struct type *ty_array(struct cc *cc, struct type *t, uint32_t n)
{
	struct type *a = ty_new(cc, T_ARRAY, t->size * n, NULL);
	a->base = t;
	a->nelems = n;
	a->align = t->align;
	a->name = ty_decl_name(cc, a, "");
	return a;
}

struct type *ty_typedef(struct cc *cc, struct type *t, const char *name)
{
	struct type *c = cc_alloc(cc, sizeof(*c));
	*c = *t;
	c->name = cc_strdup(cc, name);
	c->canon = t->canon;
	c->ptrto = NULL;
	return c;
}

static struct type *ty_int(struct cc *cc, uint32_t size, int is_signed)
{
	switch (size) {
	case 1: return is_signed ? cc->t_char : cc->t_uchar;
	case 2: return is_signed ? cc->t_short : cc->t_ushort;
	case 4: return is_signed ? cc->t_int : cc->t_uint;
	default: return is_signed ? cc->t_long : cc->t_ulong;
	}
}

static struct type *def_int(struct cc *cc, const char *name, uint32_t size,
			    int is_signed)
{
	struct type *t = ty_new(cc, T_INT, size, name);
	t->is_signed = is_signed;
	ty_define(cc, name, t);
	return t;
}

static void def_alias(struct cc *cc, const char *name, struct type *t)
{
	ty_define(cc, name, ty_typedef(cc, t, name));
}

void ty_init(struct cc *cc)
{
	cc->t_char = def_int(cc, "char", 1, 1);
	cc->t_schar = def_int(cc, "signed char", 1, 1);
	cc->t_uchar = def_int(cc, "unsigned char", 1, 0);
	cc->t_short = def_int(cc, "short", 2, 1);
	def_int(cc, "signed short", 2, 1);
	cc->t_ushort = def_int(cc, "unsigned short", 2, 0);
	cc->t_int = def_int(cc, "int", 4, 1);
	def_int(cc, "signed int", 4, 1);
	cc->t_uint = def_int(cc, "unsigned int", 4, 0);
	cc->t_long = def_int(cc, "long", 8, 1);
	def_int(cc, "signed long", 8, 1);
	cc->t_ulong = def_int(cc, "unsigned long", 8, 0);
	cc->t_llong = def_int(cc, "long long", 8, 1);
	def_int(cc, "signed long long", 8, 1);
	cc->t_ullong = def_int(cc, "unsigned long long", 8, 0);
	cc->t_bool = def_int(cc, "_Bool", 1, 0);

	cc->t_float = ty_new(cc, T_FLOAT, 4, "float");
	ty_define(cc, "float", cc->t_float);
	cc->t_double = ty_new(cc, T_FLOAT, 8, "double");
	ty_define(cc, "double", cc->t_double);
	cc->t_ldouble = ty_new(cc, T_FLOAT, 16, "long double");
	ty_define(cc, "long double", cc->t_ldouble);

	cc->t_void = ty_new(cc, T_VOID, 0, "void");
	ty_define(cc, "void", cc->t_void);
	cc->t_string = ty_new(cc, T_STRING, cc->strsize, "string");
	cc->t_string->align = 1;
	ty_define(cc, "string", cc->t_string);
	cc->t_voidp = ty_ptr(cc, cc->t_void);
	cc->t_charp = ty_ptr(cc, cc->t_char);

	static const struct { const char *n; int size, sgn; } ints[] = {
		{"int8_t", 1, 1}, {"int16_t", 2, 1}, {"int32_t", 4, 1},
		{"int64_t", 8, 1}, {"uint8_t", 1, 0}, {"uint16_t", 2, 0},
		{"uint32_t", 4, 0}, {"uint64_t", 8, 0}, {"intptr_t", 8, 1},
		{"uintptr_t", 8, 0}, {"size_t", 8, 0}, {"ssize_t", 8, 1},
		{"ptrdiff_t", 8, 1}, {"off_t", 8, 1}, {"uchar_t", 1, 0},
		{"ushort_t", 2, 0}, {"uint_t", 4, 0}, {"ulong_t", 8, 0},
		{"longlong_t", 8, 1}, {"u_longlong_t", 8, 0}, {"pid_t", 4, 1},
		{"id_t", 4, 1}, {"uid_t", 4, 0}, {"gid_t", 4, 0},
		{"processorid_t", 4, 1}, {"zoneid_t", 4, 1}, {"time_t", 8, 1},
		{"hrtime_t", 8, 1}, {"dev_t", 8, 0}, {"major_t", 4, 0},
		{"minor_t", 4, 0}, {"boolean_t", 4, 1}, {"uintmax_t", 8, 0},
		{"intmax_t", 8, 1}, {"mode_t", 4, 0}, {"ino_t", 8, 0},
		{"u_int", 4, 0}, {"u_char", 1, 0}, {"u_short", 2, 0},
		{"u_long", 8, 0}, {"int_t", 4, 1}, {"diskaddr_t", 8, 0},
		{"clock_t", 8, 1}, {"key_t", 4, 1}, {"nlink_t", 4, 0},
		{"ipaddr_t", 4, 0}, {"uint", 4, 0}, {"ulong", 8, 0},
		{"ushort", 2, 0}, {"u8", 1, 0}, {"u16", 2, 0}, {"u32", 4, 0},
		{"u64", 8, 0}, {"s8", 1, 1}, {"s16", 2, 1}, {"s32", 4, 1},
		{"s64", 8, 1}, {"__u8", 1, 0}, {"__u16", 2, 0}, {"__u32", 4, 0},
		{"__u64", 8, 0}, {"__s8", 1, 1}, {"__s16", 2, 1}, {"__s32", 4, 1},
		{"__s64", 8, 1}, {"bool", 1, 0}, {"loff_t", 8, 1},
	};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		def_alias(cc, ints[i].n, ty_int(cc, ints[i].size, ints[i].sgn));
	def_alias(cc, "caddr_t", cc->t_charp);
	cc->t_int8 = ty_lookup(cc, "int8_t");
	cc->t_uint8 = ty_lookup(cc, "uint8_t");
	cc->t_int16 = ty_lookup(cc, "int16_t");
	cc->t_uint16 = ty_lookup(cc, "uint16_t");
	cc->t_int32 = ty_lookup(cc, "int32_t");
	cc->t_uint32 = ty_lookup(cc, "uint32_t");
	cc->t_int64 = ty_lookup(cc, "int64_t");
	cc->t_uint64 = ty_lookup(cc, "uint64_t");
	cc->t_uintptr = ty_lookup(cc, "uintptr_t");
	cc->t_size = ty_lookup(cc, "size_t");

	/* dtrace's special types for stack() and sym() values */
	cc->t_stack = ty_new(cc, T_INT, 8, "stack");
	cc->t_symaddr = ty_typedef(cc, cc->t_uint64, "_symaddr");
	cc->t_usymaddr = ty_typedef(cc, cc->t_uint64, "_usymaddr");
	cc->t_void_fn = ty_new(cc, T_VOID, 0, "void");
}

/*
 * A member by name.  A member of an anonymous struct/union member (GNU
 * Mach's struct thread: `union { struct { unsigned state:16; ... };
 * event_t event_key; }`) comes back as a copy whose offset counts from
 * the start of t, not from the anonymous member's.
 */
struct member *ty_member(struct cc *cc, struct type *t, const char *name)
{
	for (struct member *m = t->canon->members; m; m = m->next) {
		if (m->name && strcmp(m->name, name) == 0)
			return m;
		if (!m->name || !*m->name) {
			struct member *r = ty_member(cc, m->type, name), *c;
			if (!r)
				continue;
			if (m->off == 0)
				return r;
			c = cc_alloc(cc, sizeof(*c));
			*c = *r;
			c->off += m->off;
			c->next = NULL;
			return c;
		}
	}
	return NULL;
}

int ty_same(struct type *a, struct type *b)
{
	a = a->canon;
	b = b->canon;
	if (a == b)
		return 1;
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case T_INT:
	case T_FLOAT:
		return a->size == b->size && a->is_signed == b->is_signed;
	case T_PTR:
		return ty_same(a->base, b->base);
	case T_ARRAY:
		return a->nelems == b->nelems && ty_same(a->base, b->base);
	case T_STRUCT:
	case T_UNION:
	case T_ENUM:
		return a->tag && b->tag && strcmp(a->tag, b->tag) == 0;
	case T_VOID:
	case T_STRING:
		return 1;
	default:
		return 0;
	}
}

int ty_is_integral(struct type *t)
{
	return TY_K(t) == T_INT || TY_K(t) == T_ENUM;
}

int ty_is_arith(struct type *t)
{
	return ty_is_integral(t) || TY_K(t) == T_FLOAT;
}

int ty_is_scalar(struct type *t)
{
	return ty_is_arith(t) || TY_K(t) == T_PTR || TY_K(t) == T_ARRAY;
}

int ty_is_ptrlike(struct type *t)
{
	return TY_K(t) == T_PTR || TY_K(t) == T_ARRAY;
}

int ty_is_string(struct type *t)
{
	return TY_K(t) == T_STRING;
}

int ty_is_sou(struct type *t)
{
	return TY_K(t) == T_STRUCT || TY_K(t) == T_UNION;
}

int ty_is_void(struct type *t)
{
	return TY_K(t) == T_VOID;
}

int ty_is_charptr(struct type *t)
{
	if (!ty_is_ptrlike(t))
		return 0;
	struct type *b = t->canon->base;
	return TY_K(b) == T_INT && b->canon->size == 1;
}

/* Assignment compatibility (dt_node_is_argcompat / dt_node_is_ptrcompat). */
int ty_compat(struct type *a, struct type *b)
{
	if (ty_is_arith(a) && ty_is_arith(b))
		return 1;
	if (ty_is_string(a) && (ty_is_string(b) || ty_is_charptr(b)))
		return 1;
	if (ty_is_string(b) && ty_is_charptr(a))
		return 1;
	if (ty_is_string(a) && TY_K(b) == T_PTR && ty_is_void(b->canon->base))
		return 1;
	if (ty_is_ptrlike(a) && ty_is_ptrlike(b)) {
		struct type *x = a->canon->base, *y = b->canon->base;
		if (ty_is_void(x) || ty_is_void(y))
			return 1;
		return ty_same(x, y);
	}
	if (ty_is_ptrlike(a) && ty_is_integral(b))
		return 0;
	return ty_same(a, b);
}
