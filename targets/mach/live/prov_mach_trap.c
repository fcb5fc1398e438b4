/*
 * mach_trap::NAME:entry/return: Mach's system calls, named from the
 * kernel's mach_trap_table; each is the fbt probe of its trap function
 * under the trap's name.
 */
#include <stdio.h>
#include <string.h>
#include "targets/mach/image/kimg_int.h"
#include "targets/mach/live/live_int.h"

/*
 * mach_trap_table: struct mach_trap { int arg_count; int (*function)();
 * boolean_t stack; const char *name; } (offsets from DWARF when present).
 */
/* Has the provider (probes from first on) a probe for trap name yet? */
static int have_trap(const struct live *l, uint32_t first, const char *name)
{
	for (uint32_t i = first; i < l->nprobes; i++)
		if (strcmp(l->probes[i].func, name) == 0)
			return 1;
	return 0;
}

static int mach_trap_populate(struct live *l)
{
	uint32_t first = l->nprobes;
	uint64_t table, count_va, fn_off = 8, name_off = 24, size = 32, v;
	const uint8_t *cnt, *e;
	uint32_t n;
	char tn[64];

	if (mt_kimg_symbol(l->k, "mach_trap_table", &table) < 0 ||
	    mt_kimg_symbol(l->k, "mach_trap_count", &count_va) < 0 ||
	    !(cnt = mt_kimg_bytes(l->k, count_va, 4)))
		return 0;
	mt_kimg_struct_size(l->k, "mach_trap", &size);
	mt_kimg_member(l->k, "mach_trap", "mach_trap_function", &fn_off, NULL, 0);
	mt_kimg_member(l->k, "mach_trap", "mach_trap_name", &name_off, NULL, 0);
	memcpy(&n, cnt, 4);
	for (uint32_t i = 0; i < n && i < 1024; i++) {
		const struct mt_kfunc *f;
		const char *name;
		if (!(e = mt_kimg_bytes(l->k, table + i * size, size)))
			break;
		memcpy(&v, e + fn_off, 8);
		f = mt_kimg_func_at(l->k, v);
		if (!f || f->addr != v || f->patch == MT_PATCH_REFUSED ||
		    strcmp(f->name, "kern_invalid") == 0)
			continue;
		memcpy(&v, e + name_off, 8);
		name = v ? (const char *)mt_kimg_bytes(l->k, v, 1) : NULL;
		snprintf(tn, sizeof tn, "%s", name && *name ? name : f->name);
		if (have_trap(l, first, tn))
			continue;	/* unused slots all point at one stub */
		name = kimg_strdup(l->k, tn);
		if (!live_probe_add(l, "mach_trap", name, "entry", MT_PK_FBT_ENTRY, 0, f) ||
		    (f->nrets && !live_probe_add(l, "mach_trap", name, "return", MT_PK_FBT_RETURN, 0, f)))
			return -1;
	}
	return 0;
}

const struct live_provider live_prov_mach_trap = {
	.name = "mach_trap",
	.populate = mach_trap_populate,
};
