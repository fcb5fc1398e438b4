/*
 * The proc, vm and vminfo SDT probes' sites on the stock kernel (sdt.c,
 * prov_proc.c, prov_vm.c): each call site calls what its probe says, the
 * vm:::fault sites include the trap handlers', the continuation's call of
 * vm_fault is no fault site, fault-done's latency is stamped at the fault
 * sites, and a vminfo probe sits on exactly the instructions that add to
 * its vm_stat counter.
 */
#include <stdlib.h>
#include <string.h>

#include "machtrace/kimg.h"
#include "targets/mach/live/live_int.h"
#include "tests/unit/mach/stock_kernel.h"
#include "tests/unit/mt_test.h"

static struct live *L;

static struct live *catalog(void)
{
	if (!L && kernel()) {
		L = calloc(1, sizeof *L);
		L->k = kernel();
		if (live_probes_init(L) < 0)
			L = NULL;
	}
	return L;
}

static const struct lprobe *probe(const char *prov, const char *func, const char *name)
{
	struct live *l = catalog();

	for (uint32_t i = 0; l && i < l->nprobes; i++)
		if (strcmp(l->probes[i].prov, prov) == 0 && strcmp(l->probes[i].func, func) == 0 &&
		    strcmp(l->probes[i].name, name) == 0)
			return &l->probes[i];
	return NULL;
}

/* The target of the direct call at addr, 0 if it is none. */
static uint64_t call_target(uint64_t addr)
{
	const uint8_t *b = mt_kimg_bytes(kernel(), addr, 5);
	int32_t rel;

	if (!b || b[0] != 0xe8)
		return 0;
	memcpy(&rel, b + 1, 4);
	return addr + 5 + (uint64_t)(int64_t)rel;
}

static int calls(const struct lprobe *p, const char *callee)
{
	const struct mt_kfunc *c = mt_kimg_lookup(kernel(), callee);

	if (!p || !c || !p->nlocs)
		return 0;
	for (uint32_t i = 0; i < p->nlocs; i++)
		if (p->locs[i].where != SDT_CALL || call_target(p->locs[i].addr) != c->addr)
			return 0;
	return 1;
}

TEST(proc_sites_call_what_they_say)
{
	if (!catalog())
		return;
	CHECK(calls(probe("proc", "task_create_kernel", "create"), "ipc_task_enable"));
	CHECK(calls(probe("proc", "task_terminate", "exit"), "task_dowait"));
	CHECK(calls(probe("proc", "thread_create", "lwp-create"), "ipc_thread_enable"));
	CHECK(calls(probe("proc", "thread_terminate", "lwp-exit"), "thread_halt"));
	CHECK(calls(probe("proc", "thread_force_terminate", "lwp-exit"), "thread_deallocate"));
	CHECK(calls(probe("proc", "thread_halt_self", "lwp-exit"), "ipc_thread_terminate"));
	/* one site each: each fires once per task or thread */
	CHECK_EQ_INT(probe("proc", "task_terminate", "exit")->nlocs, 1);
	CHECK_EQ_INT(probe("proc", "thread_create", "lwp-create")->nlocs, 1);
}

TEST(fault_sites_are_the_fresh_calls_of_vm_fault)
{
	const struct lprobe *st[8];
	const struct lprobe *done;
	int n;

	if (!catalog())
		return;
	CHECK(calls(probe("vm", "user_trap", "fault"), "vm_fault"));
	CHECK(calls(probe("vm", "kernel_trap", "fault"), "vm_fault"));
	CHECK(calls(probe("vm", "vm_fault_wire", "fault"), "vm_fault"));
	CHECK(probe("vm", "vm_fault_continue", "fault") == NULL);
	done = probe("vm", "user_page_fault_continue", "fault-done");
	CHECK(done && done->nlocs == 1 && done->locs[0].where == SDT_ENTRY);
	n = done ? sdt_stampers(catalog(), done, st, 8) : 0;
	CHECK_EQ_INT(n, 4);
	for (int i = 0; i < n; i++)
		CHECK(strcmp(st[i]->name, "fault") == 0);
	/* vm:::fault has no elapsed argument: nothing stamps for it */
	CHECK_EQ_INT(sdt_stampers(catalog(), probe("vm", "user_trap", "fault"), st, 8), 0);
}

/* p's sites are exactly the "addl $1, vm_stat+off(%rip)" of f */
static int adds_to(const struct lprobe *p, const char *member, const char *fn)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), fn);
	uint64_t vm_stat, off, want = 0;
	char type[64];
	const uint8_t *b;
	uint32_t have = 0;

	if (!p || !f || mt_kimg_symbol(kernel(), "vm_stat", &vm_stat) != 0 ||
	    mt_kimg_member(kernel(), "vm_statistics", member, &off, type, sizeof type) != 0 ||
	    !(b = mt_kimg_bytes(kernel(), f->addr, f->size)))
		return 0;
	for (uint64_t i = 0; i + 7 <= f->size; i++) {
		int32_t d;
		memcpy(&d, b + i + 2, 4);
		if (b[i] == 0x83 && b[i + 1] == 0x05 && b[i + 6] == 1 &&
		    f->addr + i + 7 + (uint64_t)(int64_t)d == vm_stat + off)
			want++;
	}
	for (uint32_t i = 0; i < p->nlocs; i++) {
		const struct sdt_loc *lo = &p->locs[i];
		uint64_t o = lo->addr - f->addr;
		int32_t d;
		if (lo->where != SDT_COUNTER || lo->f != f || lo->inc != 1 ||
		    lo->counter != vm_stat + off || b[o] != 0x83 || b[o + 1] != 0x05)
			return 0;
		memcpy(&d, b + o + 2, 4);
		if (lo->addr + 7 + (uint64_t)(int64_t)d != vm_stat + off)
			return 0;
		have++;
	}
	return want && have == want;
}

TEST(vminfo_sites_are_the_counter_increments)
{
	if (!catalog())
		return;
	CHECK(adds_to(probe("vminfo", "vm_fault_page", "zfod"), "zero_fill_count", "vm_fault_page"));
	CHECK(adds_to(probe("vminfo", "vm_fault_page", "cow_fault"), "cow_faults", "vm_fault_page"));
	CHECK(adds_to(probe("vminfo", "vm_fault_page", "pgin"), "pageins", "vm_fault_page"));
	CHECK(adds_to(probe("vminfo", "vm_pageout_setup", "pgout"), "pageouts", "vm_pageout_setup"));
	CHECK(adds_to(probe("vminfo", "vm_fault_page", "as_fault"), "faults", "vm_fault_page"));
	CHECK(adds_to(probe("vminfo", "vm_fault_wire_fast", "as_fault"), "faults",
		      "vm_fault_wire_fast"));
	CHECK_EQ_INT(probe("vminfo", "vm_fault_page", "zfod")->nlocs, 2);
}

MT_TEST_MAIN()
