/*
 * Locals and source lines of the stock kernel's DWARF (image/kimg_locals.c,
 * kimg_lines.c): at vm_fault's first instruction its parameters are in
 * the SysV argument registers (map in rdi, regs[4]; vaddr in rsi,
 * regs[3]) and vaddr moves elsewhere further in (a location list), a
 * name no scope declares is an error, and vm_fault's line
 * rows name files as the source tree does (no "../"), its first at its
 * entry.
 */
#include <string.h>

#include "targets/mach/image/dwloc.h"
#include "tests/unit/mach/stock_kernel.h"
#include "tests/unit/mt_test.h"

TEST(klocals_params_at_entry)
{
	const struct mt_kfunc *f;
	struct dwloc_res res;
	char type[256], err[256];

	CHECK(kernel() != NULL);
	CHECK((f = mt_kimg_lookup(kernel(), "vm_fault")) != NULL);
	CHECK_EQ_INT(mt_kimg_local(kernel(), f->addr, "vaddr", type, sizeof type, &res,
				   err, sizeof err), 0);
	CHECK_EQ_INT(res.kind, DWLOC_VALUE);
	CHECK(!strcmp(res.text, "regs[3]"));
	CHECK(!strcmp(type, "vm_offset_t"));
	CHECK_EQ_INT(mt_kimg_local(kernel(), f->addr, "map", type, sizeof type, &res,
				   err, sizeof err), 0);
	CHECK(!strcmp(res.text, "regs[4]"));
	CHECK_EQ_INT(mt_kimg_local(kernel(), f->addr, "no_such_local", type, sizeof type,
				   &res, err, sizeof err), -1);
	CHECK(!strcmp(err, "no local variable or parameter no_such_local"));
}

struct rows {
	uint64_t first;
	int n, own, up;		/* rows, of vm/vm_fault.c, with "../" */
};

static int row(void *arg, const char *file, int line, uint64_t addr)
{
	struct rows *r = arg;

	if (!r->n++ || addr < r->first)
		r->first = addr;
	r->own += strcmp(file, "vm/vm_fault.c") == 0;
	r->up += strstr(file, "../") != NULL;
	return line > 0 ? 0 : 1;
}

TEST(klines_of_vm_fault)
{
	const struct mt_kfunc *f;
	struct rows r = { 0, 0, 0, 0 };

	CHECK(kernel() != NULL);
	CHECK((f = mt_kimg_lookup(kernel(), "vm_fault")) != NULL);
	CHECK_EQ_INT(mt_kimg_lines(kernel(), f->addr, f->addr + f->size, row, &r), 0);
	CHECK(r.own >= 10);
	CHECK_EQ_INT(r.up, 0);
	CHECK(r.first == f->addr);
}

/* vaddr's location at each of vm_fault's line rows */
struct vaddr_locs {
	char text[4][DWLOC_TEXT];
	int n, rows, located;
};

static int vaddr_at(void *arg, const char *file, int line, uint64_t addr)
{
	struct vaddr_locs *v = arg;
	struct dwloc_res res;
	char type[256], err[256];
	int i;

	v->rows++;
	if (mt_kimg_local(kernel(), addr, "vaddr", type, sizeof type, &res, err, sizeof err))
		return 0;
	v->located++;
	for (i = 0; i < v->n && strcmp(v->text[i], res.text); i++)
		;
	if (i == v->n && v->n < 4)
		snprintf(v->text[v->n++], DWLOC_TEXT, "%s", res.text);
	return 0;
}

/* A location list (DWARF 5 .debug_loclists in this build): vaddr is in
   rsi at vm_fault's entry and elsewhere further in, each read at its pc */
TEST(klocals_location_list)
{
	const struct mt_kfunc *f;
	struct vaddr_locs v = { .n = 0 };

	CHECK(kernel() != NULL);
	CHECK((f = mt_kimg_lookup(kernel(), "vm_fault")) != NULL);
	CHECK_EQ_INT(mt_kimg_lines(kernel(), f->addr, f->addr + f->size, vaddr_at, &v), 0);
	CHECK(v.located >= 10);
	CHECK(v.n >= 2);
	CHECK(!strcmp(v.text[0], "regs[3]"));
}

/* At an inlined copy's entry the copy's parameters are its own and the
   caller's variables are still in scope (the DIE tree's scopes, not
   dwarf_getscopes' abstract ones, which named neither) */
TEST(klocals_in_inlined_copies)
{
	const struct mt_kinline *in;
	size_t n = mt_kimg_inlines(kernel(), "ipc_entry_lookup", &in);
	struct dwloc_res res;
	char type[256], err[256];
	int own = 0, caller = 0, copies = 0;

	CHECK(n >= 10);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(in[i].caller, "ipc_kmsg_copyin_header") != 0)
			continue;
		copies++;
		own += mt_kimg_local(kernel(), in[i].entry, "name", type, sizeof type, &res,
				     err, sizeof err) == 0 && !strcmp(type, "mach_port_name_t");
		caller += mt_kimg_local(kernel(), in[i].entry, "msg", type, sizeof type, &res,
					err, sizeof err) == 0 && !strcmp(type, "mach_msg_header_t *");
		CHECK(mt_kimg_local(kernel(), in[i].entry, "no_such_local", type, sizeof type,
				    &res, err, sizeof err) == -1);
	}
	CHECK(copies >= 2);
	CHECK_EQ_INT(own, copies);
	CHECK(caller >= 1);
}

MT_TEST_MAIN()
