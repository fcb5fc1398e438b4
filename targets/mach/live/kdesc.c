/*
 * The kernel description the blob needs (struct lk_kdesc): addresses from
 * the kernel's symbols, struct offsets from its DWARF, so that one blob
 * serves any GNU Mach build.  The TSC rate is measured on the host (under
 * TCG the guest's rdtsc runs at the host's TSC rate).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "targets/mach/image/kimg_int.h"
#include "targets/mach/live/live_int.h"
#include "targets/mach/mach_int.h"

static uint64_t host_tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tsc_hz(void)
{
	static uint64_t hz;
	uint64_t t0, c0, t1, c1;
	struct timespec d = { 0, 20000000 };

	if (hz)
		return hz;
	t0 = mono_ns();
	c0 = host_tsc();
	nanosleep(&d, NULL);
	t1 = mono_ns();
	c1 = host_tsc();
	hz = (uint64_t)((double)(c1 - c0) * 1e9 / (double)(t1 - t0));
	return hz;
}

static int member(struct mt_kimg *k, const char *s, const char *m, uint32_t *off,
		  char *type, size_t tlen, char *err, size_t errlen)
{
	uint64_t o;
	char t[256];

	if (mt_kimg_member(k, s, m, &o, type ? type : t, type ? tlen : sizeof t) < 0) {
		mt_seterr(err, errlen, "kernel DWARF: no member %s in struct %s", m, s);
		return -1;
	}
	*off = (uint32_t)o;
	return 0;
}

/*
 * Every CPU's IDT (lkabi.h): the boot CPU's `idt`, the others' in their
 * mp_desc_table entries, and idt_inittab for those started later.  What
 * the DWARF lacks stays 0 and the blob hooks less.
 */
static void idts(struct mt_kimg *k, struct lk_kdesc *d)
{
	uint64_t size = 0, vec = 0, type = 0, idt = 0;
	char t[256];

	if (mt_kimg_symbol(k, "idt", &d->idt) < 0)
		d->idt = 0;
	if (d->ncpus < 2 || mt_kimg_symbol(k, "mp_desc_table", &d->mp_desc_table) < 0 ||
	    mt_kimg_member(k, "mp_desc_table", "idt", &idt, t, sizeof t) < 0)
		d->mp_desc_table = 0;
	d->off_mpdesc_idt = (uint32_t)idt;
	if (mt_kimg_symbol(k, "idt_inittab", &d->idt_inittab) < 0 ||
	    mt_kimg_struct_size(k, "idt_init_entry", &size) < 0 || size > 0xffff ||
	    mt_kimg_member(k, "idt_init_entry", "vector", &vec, t, sizeof t) < 0 ||
	    mt_kimg_member(k, "idt_init_entry", "type", &type, t, sizeof t) < 0 ||
	    vec > 0xff || type > 0xff)
		d->idt_inittab = size = vec = type = 0;
	d->iie_size = (uint16_t)size;
	d->iie_off_vector = (uint8_t)vec;
	d->iie_off_type = (uint8_t)type;
}

/* The interrupt dispatch code a profile probe looks for in the frames. */
static void intr_code(struct mt_kimg *k, struct lk_kdesc *d)
{
	static const char *const names[2] = { "interrupt", "all_intrs" };

	for (int i = 0; i < 2; i++) {
		const struct mt_kfunc *f = mt_kimg_lookup(k, names[i]);
		if (f && f->size && !f->inline_only) {
			d->intr_code[i][0] = f->addr;
			d->intr_code[i][1] = f->addr + f->size;
		}
	}
}

/*
 * GNU Mach's kernel threads (kern/startup.c start_kernel_threads, the
 * drivers' threads): kernel_thread() ignores its name, so a thread of
 * kernel_task without thread->name is named by the function it started
 * in, or the continuation it blocked in (reaper_thread_continue names
 * reaper_thread).  The names execname gives them, for the functions this
 * kernel has.
 */
static const char *const kthread_fns[] = {
	"reaper_thread", "swapin_thread", "sched_thread", "idle_thread",
	"io_done_thread", "net_thread", "intr_thread", "action_thread",
	"vm_pageout", "vm_object_cache_thread",
};

static void kthreads(struct mt_kimg *k, struct lk_kdesc *d)
{
	const struct mt_kfunc *f;
	char cont[64];

	for (size_t i = 0; i < sizeof kthread_fns / sizeof *kthread_fns; i++) {
		for (int c = 0; c < 2 && d->nkfn < LK_KFN_MAX; c++) {
			snprintf(cont, sizeof cont, "%s%s", kthread_fns[i],
				 c ? "_continue" : "");
			if ((f = mt_kimg_lookup(k, cont)) == NULL || !f->addr ||
			    f->inline_only)
				continue;
			d->kfn[d->nkfn].addr = f->addr;
			snprintf(d->kfn[d->nkfn].name, sizeof d->kfn[0].name, "%s",
				 kthread_fns[i]);
			d->nkfn++;
		}
	}
}

/* Every task: default_pset.tasks, chained through task.pset_tasks (GNU
   Mach has one processor set on a uniprocessor); 0s when missing. */
static void all_tasks(struct mt_kimg *k, struct lk_kdesc *d)
{
	char err[128];
	uint64_t pset = 0;
	uint32_t off = 0;

	if (mt_kimg_symbol(k, "default_pset", &pset) < 0 ||
	    member(k, "processor_set", "tasks", &off, NULL, 0, err, sizeof err) ||
	    member(k, "task", "pset_tasks", &d->off_task_pset_link, NULL, 0, err, sizeof err)) {
		d->off_task_pset_link = 0;
		return;
	}
	d->all_tasks = pset + off;
}

/* pid/tid numbering and kernel threads' names: 0s when missing. */
static void ids(struct mt_kimg *k, struct lk_kdesc *d)
{
	char type[256], err[128];
	const char *br;

	if (mt_kimg_symbol(k, "kernel_task", &d->kernel_task) < 0 ||
	    member(k, "task", "thread_list", &d->off_task_threads, NULL, 0, err, sizeof err) ||
	    member(k, "thread", "thread_list", &d->off_thread_link, NULL, 0, err, sizeof err) ||
	    member(k, "task", "creation_time", &d->off_task_ctime, NULL, 0, err, sizeof err) ||
	    member(k, "thread", "creation_time", &d->off_thread_ctime, NULL, 0, err, sizeof err) ||
	    member(k, "thread", "swap_func", &d->off_thread_cont, NULL, 0, err, sizeof err)) {
		d->kernel_task = 0;
		return;
	}
	if (member(k, "thread", "name", &d->off_thread_name, type, sizeof type,
		   err, sizeof err) == 0 && (br = strchr(type, '[')) != NULL)
		d->thread_name_size = (uint32_t)strtoul(br + 1, NULL, 10);
	kthreads(k, d);
	all_tasks(k, d);
}

/*
 * User memory and registers (runtime/kernel/kuser.c): the task's pmap
 * through task->map->pmap->l4base, the registers GNU Mach saved at the
 * trap in thread->pcb->iss (struct i386_saved_state, whose x86-64 fields
 * keep their i386 names: eip, uesp, efl).  Each dtrace uregs[] slot is
 * the saved state's member of that name; segment registers the kernel
 * does not save (ds, es, fs, gs in 64-bit mode) are LK_UREG_NONE.  A
 * kernel without these members gets off_task_map = 0: no user memory.
 */
static const char *const iss_names[LK_UREG_N] = {
	[LK_UREG_R15] = "r15", [LK_UREG_R14] = "r14", [LK_UREG_R13] = "r13",
	[LK_UREG_R12] = "r12", [LK_UREG_RBP] = "ebp", [LK_UREG_RBX] = "ebx",
	[LK_UREG_R11] = "r11", [LK_UREG_R10] = "r10", [LK_UREG_R9] = "r9",
	[LK_UREG_R8] = "r8", [LK_UREG_RAX] = "eax", [LK_UREG_RCX] = "ecx",
	[LK_UREG_RDX] = "edx", [LK_UREG_RSI] = "esi", [LK_UREG_RDI] = "edi",
	[LK_UREG_ERR] = "err", [LK_UREG_RIP] = "eip", [LK_UREG_CS] = "cs",
	[LK_UREG_RFL] = "efl", [LK_UREG_RSP] = "uesp", [LK_UREG_SS] = "ss",
	[LK_UREG_TRAPNO] = "trapno",
};

static void user_state(struct mt_kimg *k, struct lk_kdesc *d)
{
	char err[128];
	uint32_t off;

	for (int i = 0; i < LK_UREG_N; i++)
		d->iss_off[i] = LK_UREG_NONE;
	if (member(k, "task", "map", &d->off_task_map, NULL, 0, err, sizeof err) ||
	    member(k, "vm_map", "pmap", &d->off_map_pmap, NULL, 0, err, sizeof err) ||
	    member(k, "pmap", "l4base", &d->off_pmap_l4, NULL, 0, err, sizeof err))
		d->off_task_map = d->off_map_pmap = d->off_pmap_l4 = 0;
	if (member(k, "thread", "pcb", &d->off_thread_pcb, NULL, 0, err, sizeof err) ||
	    member(k, "pcb", "iss", &d->off_pcb_iss, NULL, 0, err, sizeof err)) {
		d->off_thread_pcb = d->off_pcb_iss = 0;
		return;
	}
	for (int i = 0; i < LK_UREG_N; i++)
		if (iss_names[i] && member(k, "i386_saved_state", iss_names[i], &off,
					   NULL, 0, err, sizeof err) == 0 &&
		    off < LK_UREG_NONE)
			d->iss_off[i] = (uint16_t)off;
}

/*
 * Where every kernel stack starts (pcb.c stack_attach): Thread_continue
 * zeroes rbp and calls the thread's continuation, which never returns.
 * The return address of that call is the stack's base, not a caller.
 */
static void stack_start(struct mt_kimg *k, struct lk_kdesc *d)
{
	const uint8_t *code;
	cs_insn *in = NULL;
	uint64_t a;
	size_t n = 0;
	csh cs;

	if (mt_kimg_symbol(k, "Thread_continue", &a) < 0 || !(code = mt_kimg_bytes(k, a, 16)) ||
	    x86_open(&cs) < 0)
		return;
	n = cs_disasm(cs, code, 16, a, 0, &in);
	for (size_t i = 0; i < n; i++)
		if (x86_in_group(&in[i], CS_GRP_CALL)) {
			d->stack_start_ret = in[i].address + in[i].size;
			break;
		}
	if (n)
		cs_free(in, n);
	cs_close(&cs);
}

int kdesc_fill(struct mt_kimg *k, struct lk_kdesc *d, uint64_t ram_bytes,
	       char *err, size_t errlen)
{
	uint64_t size = 0;
	char type[256];
	const char *br;

	memset(d, 0, sizeof *d);
	if (mt_kimg_symbol(k, "_start", &d->text_start) < 0 ||
	    mt_kimg_symbol(k, "etext", &d->text_end) < 0) {
		mt_seterr(err, errlen, "kernel has no _start/etext symbols");
		return -1;
	}
	/* curthread/execname: without these (another GNU Mach layout) they
	   read as 0 and "" rather than refusing to trace */
	if (mt_kimg_symbol(k, "percpu_array", &d->percpu_array) < 0 ||
	    member(k, "percpu", "active_thread", &d->off_active_thread, NULL, 0, err, errlen) ||
	    member(k, "thread", "task", &d->off_thread_task, NULL, 0, err, errlen) ||
	    member(k, "task", "name", &d->off_task_name, type, sizeof type, err, errlen)) {
		d->percpu_array = 0;
	} else {
		if (mt_kimg_struct_size(k, "percpu", &size) < 0)
			size = 0;
		d->percpu_stride = size;
		br = strchr(type, '[');
		d->task_name_size = br ? (uint32_t)strtoul(br + 1, NULL, 10) : 0;
		if (!d->task_name_size)
			d->task_name_size = 32;
	}
	intr_code(k, d);
	stack_start(k, d);
	ids(k, d);
	user_state(k, d);
	if (mt_kimg_symbol(k, "Panic", &d->panic_fn) < 0)
		d->panic_fn = 0;
	/* the kernel's local APIC mapping, if it made one (runtime/x86_64/
	   apic.c borrows a page of its own otherwise) */
	if (mt_kimg_symbol(k, "lapic", &d->lapic_var) < 0 ||
	    mt_kimg_symbol(k, "dummy_lapic", &d->dummy_lapic) < 0)
		d->lapic_var = d->dummy_lapic = 0;
	d->ncpus = (uint32_t)mt_kimg_ncpus(k);
	if (d->ncpus < 2 || mt_kimg_symbol(k, "cpu_id_lut", &d->cpu_id_lut) < 0)
		d->cpu_id_lut = 0;
	idts(k, d);
	d->kernel_map_base = LK_KERNEL_MAP_BASE;
	d->directmap_end = ram_bytes < 0x60000000ull ? ram_bytes : 0x60000000ull;
	d->tsc_hz = tsc_hz();
	return 0;
}
