/*
 * Kernel image reader: struct layouts from DWARF.  The first query indexes
 * every complete (non-declaration) named struct and union at CU level by
 * name; members are then read from that DIE, descending into anonymous
 * struct/union members with their offsets added.
 */
#include <stdlib.h>
#include <string.h>

#include "targets/mach/image/kimg_int.h"
#include "targets/mach/mach_int.h"

static int cmp_struct(const void *a, const void *b)
{
	return strcmp(((const struct kimg_struct *)a)->name, ((const struct kimg_struct *)b)->name);
}

static void index_cu(struct mt_kimg *k, Dwarf_Die *cu, size_t *cap)
{
	Dwarf_Die c;
	Dwarf_Attribute a;

	if (dwarf_child(cu, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		const char *name = dwarf_diename(&c);
		if ((tag != DW_TAG_structure_type && tag != DW_TAG_union_type) || !name ||
		    dwarf_attr(&c, DW_AT_declaration, &a))
			continue;
		if (k->nstructs == *cap) {
			size_t n = *cap ? 2 * *cap : 1024;
			struct kimg_struct *p = realloc(k->structs, n * sizeof *p);
			if (!p)
				return;
			k->structs = p;
			*cap = n;
		}
		k->structs[k->nstructs].name = name;
		k->structs[k->nstructs++].die = dwarf_dieoffset(&c);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void index_structs(struct mt_kimg *k)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	k->structs_indexed = 1;
	if (!k->dw)
		return;
	while (dwarf_nextcu(k->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(k->dw, off + hsize, &cu))
			index_cu(k, &cu, &cap);
		off = next;
	}
	if (k->nstructs > 1)
		qsort(k->structs, k->nstructs, sizeof *k->structs, cmp_struct);
}

static int find_struct(struct mt_kimg *k, const char *name, Dwarf_Die *d)
{
	struct kimg_struct key = { .name = name }, *r;

	if (strncmp(name, "struct ", 7) == 0)
		name += 7, key.name = name;
	if (!k->structs_indexed)
		index_structs(k);
	/* no DWARF: no structs, and structs is NULL (which bsearch may not see) */
	if (k->nstructs == 0)
		return -1;
	r = bsearch(&key, k->structs, k->nstructs, sizeof *k->structs, cmp_struct);
	return r && dwarf_offdie(k->dw, r->die, d) ? 0 : -1;
}

int mt_kimg_struct_size(struct mt_kimg *k, const char *name, uint64_t *size)
{
	Dwarf_Die d;
	Dwarf_Word n;
	Dwarf_Attribute a;

	if (find_struct(k, name, &d) < 0 ||
	    dwarf_formudata(dwarf_attr(&d, DW_AT_byte_size, &a), &n) != 0)
		return -1;
	*size = n;
	return 0;
}

static int member_offset(Dwarf_Die *m, uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word w = 0;

	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		*off = 0;               /* union members */
	else if (dwarf_formudata(&a, &w) == 0)
		*off = w;
	else
		return -1;
	return 0;
}

static int find_member(Dwarf_Die *s, const char *member, uint64_t base,
		       uint64_t *offset, Dwarf_Die *mdie, int depth)
{
	Dwarf_Die c, t;
	Dwarf_Attribute a;

	if (depth > 8 || dwarf_child(s, &c) != 0)
		return -1;
	do {
		const char *name = dwarf_diename(&c);
		uint64_t off;
		if (dwarf_tag(&c) != DW_TAG_member || member_offset(&c, &off) < 0)
			continue;
		if (name && strcmp(name, member) == 0) {
			*offset = base + off;
			*mdie = c;
			return 0;
		}
		if (!name && dwarf_formref_die(dwarf_attr(&c, DW_AT_type, &a), &t) &&
		    find_member(&t, member, base + off, offset, mdie, depth + 1) == 0)
			return 0;
	} while (dwarf_siblingof(&c, &c) == 0);
	return -1;
}

/* The type of member die m, through typedefs and qualifiers; -1 if none. */
static int member_type(Dwarf_Die *m, Dwarf_Die *t)
{
	Dwarf_Attribute a;

	if (!dwarf_formref_die(dwarf_attr(m, DW_AT_type, &a), t))
		return -1;
	for (int depth = 0; depth < 8; depth++) {
		int tag = dwarf_tag(t);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type)
			return 0;
		if (!dwarf_formref_die(dwarf_attr(t, DW_AT_type, &a), t))
			return -1;
	}
	return -1;
}

/*
 * member may be a path through nested structs and unions
 * ("saved.receive.rcv_size"): the offset is the sum along it, the type
 * the last member's.
 */
int mt_kimg_member(struct mt_kimg *k, const char *sname, const char *member,
		   uint64_t *offset, char *type, size_t typelen)
{
	Dwarf_Die s, m, t;
	Dwarf_Attribute a;
	char head[128];
	uint64_t off;

	if (find_struct(k, sname, &s) < 0)
		return -1;
	*offset = 0;
	for (const char *rest = member;;) {
		const char *dot = strchr(rest, '.');
		size_t n = dot ? (size_t)(dot - rest) : strlen(rest);
		if (n >= sizeof head)
			return -1;
		memcpy(head, rest, n);
		head[n] = 0;
		if (find_member(&s, head, 0, &off, &m, 0) < 0)
			return -1;
		*offset += off;
		if (!dot)
			break;
		if (member_type(&m, &s) < 0)
			return -1;
		rest = dot + 1;
	}
	if (type && typelen) {
		if (dwarf_formref_die(dwarf_attr(&m, DW_AT_type, &a), &t))
			kimg_type_name(&t, type, typelen);
		else
			type[0] = 0;
	}
	return 0;
}
