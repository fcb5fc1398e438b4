/*
 * The live target's probe sites, decided on the host (targets/mach/live/
 * sites.c), on the stock kernel: jmp trampolines, int3 out-of-line copies
 * with relocation, ret sites, merging; the kernel description (kdesc.c).
 */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "machtrace/kimg.h"
#include "machtrace/mach.h"
#include "targets/mach/live/live_int.h"
#include "tests/unit/mach/stock_kernel.h"
#include "tests/unit/mt_test.h"

#define TRAMP_VA (LK_KERNEL_MAP_BASE + LK_RESV_PA + LK_TRAMP_OFF)
#define ENTRY_VA (LK_KERNEL_MAP_BASE + LK_RESV_PA + 0xe8)

static void set_init(struct site_set *s)
{
	memset(s, 0, sizeof *s);
	s->tramp_va = TRAMP_VA;
	s->fbt_entry_va = ENTRY_VA;
}

static int add_entry(struct site_set *s, const char *fn, uint32_t probe, uint32_t flags)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), fn);
	struct site_req r = { 0 };

	if (!f)
		return -1;
	r.addr = f->addr;
	r.f = f;
	r.kind = f->patch == MT_PATCH_JMP ? LK_SK_JMP : LK_SK_INT3;
	r.flags = flags;
	r.probe = probe;
	return sites_add(s, &r);
}

static int32_t rel_at(const uint8_t *p)
{
	int32_t d;

	memcpy(&d, p, 4);
	return d;
}

TEST(jmp_site_and_trampoline)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), "mach_msg_trap");
	struct site_set s;
	char err[256];

	CHECK(f && f->patch == MT_PATCH_JMP);
	set_init(&s);
	CHECK(add_entry(&s, "mach_msg_trap", 7, LK_SF_FIRE) == 0);
	CHECK(sites_build(&s, kernel(), err, sizeof err) == 0);
	CHECK_EQ_INT(s.nsites, 1);
	const struct lk_site *st = &s.sites[0];
	CHECK_EQ_INT(st->kind, LK_SK_JMP);
	CHECK_EQ_INT(st->plen, 5);
	CHECK(memcmp(st->orig, mt_kimg_bytes(kernel(), f->addr, 5), 5) == 0);
	/* patch: jmp to the trampoline */
	CHECK_EQ_INT(st->patch[0], 0xe9);
	CHECK(f->addr + 5 + (int64_t)rel_at(st->patch + 1) == st->ool);
	/* trampoline: push $0 (site index); jmp lk_fbt_entry; displaced; jmp back */
	const uint8_t *t = s.tramp + (st->ool - TRAMP_VA);
	CHECK_EQ_INT(t[0], 0x68);
	CHECK_EQ_INT(rel_at(t + 1), 0);
	CHECK_EQ_INT(t[5], 0xe9);
	CHECK(st->ool + 10 + (int64_t)rel_at(t + 6) == ENTRY_VA);
	CHECK(memcmp(t + 10, mt_kimg_bytes(kernel(), f->addr, f->displaced), f->displaced) == 0);
	CHECK_EQ_INT(t[10 + f->displaced], 0xe9);
	CHECK(st->ool + 15 + f->displaced + (int64_t)rel_at(t + 11 + f->displaced) ==
	      f->addr + f->displaced);
	sites_free(&s);
}

/* hardclock: "push %rbp; mov 0x...(%rip),%edi": kimg says int3, but a jmp
   fits with the rip-relative displacement relocated */
TEST(jmp_entry_relocated)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), "hardclock");
	struct site_set s;
	struct site_req r = { 0 };
	char err[256];

	CHECK(f && f->patch == MT_PATCH_INT3);
	set_init(&s);
	r.range = sites_entry_range(&s, kernel(), f);
	CHECK_EQ_INT(r.range, 7);
	r.addr = f->addr;
	r.f = f;
	r.kind = LK_SK_JMP;
	r.flags = LK_SF_FIRE;
	CHECK(sites_add(&s, &r) == 0);
	CHECK(sites_build(&s, kernel(), err, sizeof err) == 0);
	const struct lk_site *st = &s.sites[0];
	const uint8_t *orig = mt_kimg_bytes(kernel(), f->addr, 7);
	const uint8_t *t = s.tramp + (st->ool - TRAMP_VA) + 10;
	uint64_t tva = st->ool + 10;
	CHECK_EQ_INT(st->len, 7);
	CHECK(memcmp(t, orig, 3) == 0);		/* push %rbp; 8b 3d */
	CHECK(tva + 7 + (int64_t)rel_at(t + 3) == f->addr + 7 + (int64_t)rel_at(orig + 3));
	CHECK_EQ_INT(t[7], 0xe9);
	CHECK(tva + 12 + (int64_t)rel_at(t + 8) == f->addr + 7);
	/* a function whose first 5 bytes hold its ret keeps an int3 entry */
	sites_free(&s);
}

/* cnpollc starts with "mov 0x...(%rip),%eax" (8b 05 disp32) */
TEST(int3_site_relocates_rip_relative)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), "cnpollc");
	struct site_set s;
	char err[256];

	CHECK(f && f->patch == MT_PATCH_INT3);
	set_init(&s);
	CHECK(add_entry(&s, "cnpollc", 3, LK_SF_FIRE) == 0);
	CHECK(sites_build(&s, kernel(), err, sizeof err) == 0);
	const struct lk_site *st = &s.sites[0];
	const uint8_t *orig = mt_kimg_bytes(kernel(), f->addr, 16);
	const uint8_t *t = s.tramp + (st->ool - TRAMP_VA);
	CHECK_EQ_INT(st->kind, LK_SK_INT3);
	CHECK_EQ_INT(st->patch[0], 0xcc);
	CHECK_EQ_INT(st->plen, 1);
	CHECK_EQ_INT(st->orig[0], orig[0]);
	CHECK_EQ_INT(st->len, f->first_len);
	/* same opcode bytes, displacement moved so the target stays put */
	unsigned n = f->first_len;
	CHECK_EQ_INT(n, 6);
	CHECK(memcmp(t, orig, 2) == 0);
	CHECK(st->ool + n + (int64_t)rel_at(t + 2) == f->addr + n + (int64_t)rel_at(orig + 2));
	CHECK_EQ_INT(t[n], 0xe9);
	CHECK(st->ool + n + 5 + (int64_t)rel_at(t + n + 1) == f->addr + n);
	sites_free(&s);
}

TEST(ret_sites_and_merge)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), "vm_fault");
	struct site_set s;
	struct site_req r = { 0 };
	char err[256];

	CHECK(f && f->nrets >= 1);
	set_init(&s);
	r.f = f;
	r.kind = LK_SK_RET;
	r.flags = LK_SF_FIRE;
	r.probe = 9;
	for (unsigned i = 0; i < f->nrets; i++) {
		r.addr = f->addr + f->rets[i];
		r.func_off = f->rets[i];
		CHECK(sites_add(&s, &r) == 0);
	}
	/* the entry twice: a probe and an internal hook merge into one site */
	CHECK(add_entry(&s, "vm_fault", 8, LK_SF_FIRE | LK_SF_FAST) == 0);
	CHECK(add_entry(&s, "vm_fault", 0, LK_SF_INTERNAL_TICK) == 0);
	CHECK(sites_build(&s, kernel(), err, sizeof err) == 0);
	CHECK_EQ_INT(s.nsites, 1 + f->nrets);
	CHECK_EQ_INT(s.sites[0].addr, f->addr);
	CHECK_EQ_INT(s.sites[0].probe, 8);
	CHECK(s.sites[0].flags & LK_SF_INTERNAL_TICK);
	CHECK(!(s.sites[0].flags & LK_SF_FAST));
	for (uint32_t i = 1; i < s.nsites; i++) {
		CHECK(s.sites[i].addr > s.sites[i - 1].addr);
		CHECK_EQ_INT(s.sites[i].kind, LK_SK_RET);
		CHECK_EQ_INT(s.sites[i].patch[0], 0xcc);
		CHECK_EQ_INT(s.sites[i].probe, 9);
		CHECK_EQ_INT(s.sites[i].addr - f->addr, s.sites[i].func_off);
	}
	sites_free(&s);
}

/* mach_msg_trap ends "pop %rbx; pop %r12; pop %r13; pop %r14; pop %r15;
   pop %rbp; ret": a jmp fits over the last instructions */
TEST(jmp_return_site)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), "mach_msg_trap");
	struct site_set s;
	struct site_req r = { 0 };
	uint64_t start = 0;
	char err[256];

	CHECK(f && f->nrets >= 1);
	set_init(&s);
	s.fbt_ret_va = ENTRY_VA + 8;
	r.range = sites_ret_range(&s, kernel(), f, f->rets[0], &start);
	CHECK(r.range >= 5);
	CHECK(start > f->addr + f->displaced);
	CHECK_EQ_INT(start + r.range, f->addr + f->rets[0] + 1);
	r.f = f;
	r.kind = LK_SK_JMPRET;
	r.addr = start;
	r.ret_at = f->addr + f->rets[0];
	r.func_off = f->rets[0];
	r.flags = LK_SF_FIRE;
	CHECK(sites_add(&s, &r) == 0);
	CHECK(sites_build(&s, kernel(), err, sizeof err) == 0);
	const struct lk_site *st = &s.sites[0];
	const uint8_t *t = s.tramp + (st->ool - TRAMP_VA);
	uint32_t pre = (uint32_t)(r.ret_at - start);
	CHECK_EQ_INT(st->patch[0], 0xe9);
	CHECK(start + 5 + (int64_t)rel_at(st->patch + 1) == st->ool);
	CHECK(memcmp(t, mt_kimg_bytes(kernel(), start, pre), pre) == 0);	/* the pops */
	CHECK_EQ_INT(t[pre], 0x68);
	CHECK_EQ_INT(t[pre + 5], 0xe9);
	CHECK(st->ool + pre + 10 + (int64_t)rel_at(t + pre + 6) == ENTRY_VA + 8);
	sites_free(&s);
}

TEST(fast_count_trampoline)
{
	struct site_set s;
	char err[256];

	set_init(&s);
	CHECK(add_entry(&s, "mach_msg_trap", 1, LK_SF_FIRE | LK_SF_FAST) == 0);
	CHECK(sites_build(&s, kernel(), err, sizeof err) == 0);
	const struct lk_site *st = &s.sites[0];
	CHECK(st->flags & LK_SF_FAST);
	CHECK(st->fast != 0);
	const uint8_t *t = s.tramp + (st->fast - TRAMP_VA);
	CHECK(memcmp(t, "\x48\xff\x04\x25", 4) == 0);	/* incq disp32 */
	sites_free(&s);
}

TEST(kernel_description)
{
	struct lk_kdesc d;
	char err[256];
	uint64_t v;

	CHECK(kdesc_fill(kernel(), &d, 512ull << 20, err, sizeof err) == 0);
	CHECK(mt_kimg_symbol(kernel(), "percpu_array", &v) == 0 && v == d.percpu_array);
	CHECK_EQ_INT(d.off_active_thread, 0x480);	/* mach_task_self's load */
	CHECK_EQ_INT(d.off_thread_task, 0x18);
	CHECK(d.task_name_size >= 16);
	CHECK(d.text_start < d.text_end);
	CHECK_EQ_INT(d.directmap_end, 512ull << 20);
	CHECK(d.tsc_hz > 100000000ull);
	CHECK(d.ncpus == 1 && d.cpu_id_lut == 0);	/* a uniprocessor kernel */
}

/* An SMP kernel: the runtime's CPU number from cpu_id_lut, NCPUS CPUs'
   per-CPU areas percpu_stride apart. */
TEST(kernel_description_smp)
{
	char path[PATH_MAX], err[256];
	struct mt_kimg *k;
	struct lk_kdesc d;
	uint64_t v, size;

	if (!smp_kernel(path, sizeof path, "kernel_description_smp"))
		return;
	k = mt_kimg_open(path, err, sizeof err);
	CHECK(k && kdesc_fill(k, &d, 512ull << 20, err, sizeof err) == 0);
	CHECK(k && mt_kimg_symbol(k, "cpu_id_lut", &v) == 0 && v == d.cpu_id_lut);
	CHECK_EQ_INT(d.ncpus, 8);
	CHECK(k && mt_kimg_symbol_size(k, "percpu_array", &v, &size) == 0 &&
	      v == d.percpu_array && size == d.ncpus * d.percpu_stride);
	mt_kimg_close(k);
}

/* D declarations from DWARF: dependencies first, zero-sized members left
   out, pointers need only a forward declaration, D keywords renamed */
TEST(kernel_type_decls)
{
	char *d = live_decls(kernel(), "struct ipc_port *");
	char *p = live_decls(kernel(), "struct percpu");

	CHECK(d != NULL && p != NULL);
	CHECK(strstr(d, "struct ipc_object { ipc_object_refs_t io_references;") != NULL);
	CHECK(strstr(d, "simple_lock_data_empty") == NULL);
	CHECK(strstr(d, "struct ipc_space;\n") != NULL);
	CHECK(strstr(d, "struct ipc_object {") < strstr(d, "struct ipc_port {"));
	CHECK(strstr(p, "struct percpu *self_;") != NULL);
	CHECK(live_decls(kernel(), "struct no_such_struct") == NULL);
	free(d);
	free(p);
}

/* Relocate the one instruction in bytes b (as if at kernel address at). */
static int reloc_bytes(const uint8_t *b, size_t n, uint64_t at, uint8_t *out, int *ends)
{
	cs_insn *in = NULL;
	csh cs;
	int r = -2;

	if (x86_open(&cs) < 0)
		return -2;
	if (cs_disasm(cs, b, n, at, 1, &in) == 1)
		r = reloc_insn(in, TRAMP_VA, out, ends);
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	return r;
}

/* call *reg runs out of line as "push $next; jmp *reg" (issue 7, item 12) */
TEST(reloc_call_indirect)
{
	static const uint8_t call_rax[] = { 0xff, 0xd0 }, call_r8[] = { 0x41, 0xff, 0xd0 },
		call_mem[] = { 0xff, 0x50, 0x10 }, call_rsp[] = { 0xff, 0x54, 0x24, 0x08 },
		jmp_rax[] = { 0xff, 0xe0 }, ret_imm[] = { 0xc2, 0x08, 0x00 };
	uint64_t at = 0xffffffff81069e80ull;
	uint8_t out[32];
	int ends = 0, n;
	int32_t next;

	n = reloc_bytes(call_rax, sizeof call_rax, at, out, &ends);
	CHECK_EQ_INT(n, 7);
	CHECK(ends);
	memcpy(&next, out + 1, 4);
	CHECK(out[0] == 0x68 && (uint64_t)(int64_t)next == at + 2);
	CHECK(out[5] == 0xff && out[6] == 0xe0);		/* jmp *%rax */
	n = reloc_bytes(call_r8, sizeof call_r8, at, out, &ends);
	CHECK(n == 8 && out[5] == 0x41 && out[6] == 0xff && out[7] == 0xe0);
	n = reloc_bytes(call_mem, sizeof call_mem, at, out, &ends);
	CHECK(n == 8 && out[6] == 0x60 && out[7] == 0x10);	/* jmp *0x10(%rax) */
	CHECK_EQ_INT(reloc_bytes(call_rsp, sizeof call_rsp, at, out, &ends), -1);
	n = reloc_bytes(jmp_rax, sizeof jmp_rax, at, out, &ends);
	CHECK(n == 2 && ends && out[0] == 0xff && out[1] == 0xe0);
	n = reloc_bytes(ret_imm, sizeof ret_imm, at, out, &ends);
	CHECK(n == 3 && ends);
}

/* kinst lists only what an int3 site can run out of line: all of it */
TEST(kinst_listed_are_relocatable)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), "vm_fault");
	uint32_t offs[1024];
	int n;

	CHECK(f);
	n = sites_insn_offsets(kernel(), f, offs, 1024);
	CHECK(n > 500);
	for (int i = 0; i < n; i++) {
		struct site_set s;
		struct site_req r = { 0 };
		char err[256];
		set_init(&s);
		r.addr = f->addr + offs[i];
		r.f = f;
		r.kind = LK_SK_INT3;
		r.flags = LK_SF_FIRE;
		CHECK(sites_add(&s, &r) == 0);
		if (sites_build(&s, kernel(), err, sizeof err) != 0) {
			printf("# vm_fault+%u: %s\n", offs[i], err);
			sites_free(&s);
			CHECK(0);
		}
		sites_free(&s);
	}
}

/* a kinst site's frame rule comes from .eh_frame (issue 7, item 8) */
TEST(kinst_site_frame)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), "vm_fault");
	static const uint32_t off[3] = { 0, 1, 1096 };
	struct lk_site st[3];

	CHECK(f);
	for (int i = 0; i < 3; i++) {
		struct site_set s;
		struct site_req r = { 0 };
		char err[256];
		set_init(&s);
		r.addr = f->addr + off[i];
		r.f = f;
		r.kind = LK_SK_INT3;
		r.flags = LK_SF_FIRE;
		CHECK(sites_add(&s, &r) == 0);
		CHECK(sites_build(&s, kernel(), err, sizeof err) == 0);
		st[i] = s.sites[0];
		sites_free(&s);
	}
	/* entry: return address at rsp, caller's rbp in rbp */
	CHECK(!(st[0].flags & (LK_SF_FRAME | LK_SF_NOFRAME)));
	/* after push %rbp: CFA = rsp + 16, rbp saved at CFA - 16 */
	CHECK((st[1].flags & (LK_SF_FRAME | LK_SF_CFA_RBP | LK_SF_RBP_SAVED)) ==
	      (LK_SF_FRAME | LK_SF_RBP_SAVED));
	CHECK(st[1].cfa_off == 16 && st[1].rbp_off == -16);
	/* in the body: CFA = rbp + 16 */
	CHECK((st[2].flags & (LK_SF_FRAME | LK_SF_CFA_RBP | LK_SF_RBP_SAVED)) ==
	      (LK_SF_FRAME | LK_SF_CFA_RBP | LK_SF_RBP_SAVED));
	CHECK(st[2].cfa_off == 16 && st[2].rbp_off == -16);
}

/*
 * An int3 site may take its raw arguments from registers (LK_SF_REGARGS,
 * an SDT site's DWARF variables): the registers reach the site; a second
 * probe there must read the same ones, or the plan is refused.
 */
/* An int3 request at mach_msg_trap's call of ipc_kobject_server; -1
   without the function. */
static int int3_req(struct site_req *r)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), "mach_msg_trap");

	memset(r, 0, sizeof *r);
	if (!f)
		return -1;
	r->addr = f->addr + 2219;
	r->f = f;
	r->kind = LK_SK_INT3;
	return 0;
}

TEST(regargs_site)
{
	struct site_req r;
	struct site_set s;
	char err[256];

	CHECK(int3_req(&r) == 0);
	if (!r.f)
		return;
	r.flags = LK_SF_FIRE | LK_SF_REGARGS;
	r.probe = 1;
	memcpy(r.argreg, (uint8_t[]){ 15, LK_REG_CURTHREAD, LK_REG_ZERO, LK_REG_ZERO }, 4);
	set_init(&s);
	CHECK(sites_add(&s, &r) == 0);
	r.probe = 2;
	CHECK(sites_add(&s, &r) == 0);
	CHECK(sites_build(&s, kernel(), err, sizeof err) == 0);
	CHECK_EQ_INT(s.nsites, 1);
	CHECK(s.sites[0].flags & LK_SF_REGARGS);
	CHECK(s.sites[0].flags & LK_SF_FIRE2);
	CHECK_EQ_INT(s.sites[0].argreg[0], 15);
	CHECK_EQ_INT(s.sites[0].argreg[1], LK_REG_CURTHREAD);
	sites_free(&s);

	set_init(&s);
	r.probe = 1;
	CHECK(sites_add(&s, &r) == 0);
	r.probe = 2;
	r.flags = LK_SF_FIRE;		/* a kinst probe: the entry's registers */
	CHECK(sites_add(&s, &r) == 0);
	CHECK(sites_build(&s, kernel(), err, sizeof err) < 0);
	CHECK(strstr(err, "different registers") != NULL);
	sites_free(&s);
}

/*
 * A kernel <sys/sdt.h> site (LK_SF_UARGS) carries its note's operands to
 * the trampoline area, where the blob reads them; a second probe there
 * reading the entry's registers (kinst) is refused.
 */
TEST(uargs_site)
{
	const struct lk_uarg ops[2] = {
		{ .size = -4, .kind = LK_UA_MEM, .reg = 3, .idx = LK_UA_NOREG, .val = 60 },
		{ .size = 8, .kind = LK_UA_REG, .reg = 4, .idx = LK_UA_NOREG },
	};
	struct site_req r;
	struct site_set s;
	char err[256];

	CHECK(int3_req(&r) == 0);
	if (!r.f)
		return;
	r.flags = LK_SF_FIRE | LK_SF_UARGS;
	r.probe = 1;
	r.uargs = ops;
	r.nuargs = 2;
	set_init(&s);
	CHECK(sites_add(&s, &r) == 0);
	CHECK(sites_build(&s, kernel(), err, sizeof err) == 0);
	CHECK_EQ_INT(s.nsites, 1);
	CHECK(s.sites[0].flags & LK_SF_UARGS);
	CHECK_EQ_INT(s.sites[0].nuargs, 2);
	CHECK(s.sites[0].uargs >= TRAMP_VA && s.sites[0].uargs + sizeof ops <= TRAMP_VA + s.tramp_used);
	if (s.sites[0].uargs >= TRAMP_VA && s.sites[0].uargs + sizeof ops <= TRAMP_VA + s.tramp_used)
		CHECK(memcmp(s.tramp + (s.sites[0].uargs - TRAMP_VA), ops, sizeof ops) == 0);
	sites_free(&s);

	set_init(&s);
	CHECK(sites_add(&s, &r) == 0);
	r.probe = 2;
	r.flags = LK_SF_FIRE;
	r.uargs = NULL;
	r.nuargs = 0;
	CHECK(sites_add(&s, &r) == 0);
	CHECK(sites_build(&s, kernel(), err, sizeof err) < 0);
	sites_free(&s);
}

/*
 * The type index is the kernel image's: two images opened one after the
 * other each get their own, freed with the image (it was once a set of
 * file-scope statics keyed by the image's address, and leaked its names
 * when rebuilt -- a report of the sanitizer pass).
 */
TEST(kernel_type_index_per_image)
{
	char path[PATH_MAX], err[512], *d[2];

	for (int i = 0; i < 2; i++) {
		struct mt_kimg *k = mt_kimg_open(mt_stock_kernel(path, sizeof path),
						 err, sizeof err);
		CHECK(k != NULL);
		d[i] = live_decls(k, "struct ipc_port");
		mt_kimg_close(k);
		CHECK(d[i] != NULL);
	}
	CHECK_EQ_STR(d[1], d[0]);
	free(d[0]);
	free(d[1]);
}

MT_TEST_MAIN()
