/*
 * The runtime's mt_plat_* hooks in GNU Mach (probe context).
 *
 * Loads: an address is loadable when it is a kernel address (upper 2 GiB,
 * where GNU Mach maps everything), outside the reserved region, and either
 * in the direct map of RAM (always mapped) or mapped by the current page
 * tables to RAM below the direct map's end (no device memory).  The page
 * tables are read through the direct map, so checking never faults.  Thread, task and execname are read with the
 * same checks through the offsets the host found in the kernel's DWARF.
 */
#include "runtime/kernel/kern.h"
#include "runtime/idtab.h"

#define PTE_P		0x1ull
#define PTE_PS		0x80ull
#define PTE_ADDR	0x000ffffffffff000ull

static uint64_t cur_thread(void);

static int pt_entry(uint64_t table_pa, uint32_t idx, uint64_t *e)
{
	uint64_t pa = table_pa + 8ull * idx;

	if (pa + 8 > lk.ctl->k.directmap_end)
		return 0;
	*e = *(volatile uint64_t *)LK_KVA(pa);
	return (*e & PTE_P) != 0;
}

/* Physical address of va, ~0 if not mapped; *span = bytes to the page end. */
static uint64_t translate(uint64_t va, uint64_t *span)
{
	uint64_t t = lk_cr3() & PTE_ADDR, e = 0;

	for (int lvl = 4; lvl >= 1; lvl--) {
		uint32_t shift = 12 + 9 * (lvl - 1);
		if (!pt_entry(t, (uint32_t)((va >> shift) & 511), &e))
			return ~0ull;
		if (lvl == 1 || ((lvl == 2 || lvl == 3) && (e & PTE_PS))) {
			uint64_t mask = (1ull << shift) - 1;
			*span = mask + 1 - (va & mask);
			return ((e & PTE_ADDR) & ~mask) | (va & mask);
		}
		t = e & PTE_ADDR;
	}
	return ~0ull;
}

/* The entry that maps va in the current page tables (through the direct
   map): *level 1 for a 4 KiB page, 2 or 3 for a large one; 0 if none. */
volatile uint64_t *lk_kpte(uint64_t va, int *level)
{
	uint64_t t = lk_cr3() & PTE_ADDR, e = 0;

	for (int lvl = 4; lvl >= 1; lvl--) {
		uint32_t idx = (uint32_t)((va >> (12 + 9 * (lvl - 1))) & 511);
		if (!pt_entry(t, idx, &e))
			return 0;
		if (lvl == 1 || ((lvl == 2 || lvl == 3) && (e & PTE_PS))) {
			*level = lvl;
			return (volatile uint64_t *)LK_KVA(t + 8ull * idx);
		}
		t = e & PTE_ADDR;
	}
	return 0;
}

/* Bytes loadable at addr (page tables, RAM only), at most size. */
static uint64_t lk_loadable(uint64_t addr, uint64_t size)
{
	uint64_t done = 0;

	if (addr < LK_KERNEL_MAP_BASE || !lk.ctl)
		return 0;
	/* GNU Mach maps all RAM below directmap_end at KERNEL_MAP_BASE (its
	   phystokv): no walk there, only our region is excluded */
	if (addr + size >= addr && addr + size <= LK_KERNEL_MAP_BASE + lk.ctl->k.directmap_end &&
	    (addr + size <= lk.resv_va || addr >= lk.resv_end))
		return size;
	while (done < size) {
		uint64_t va = addr + done, span, pa;
		if (va < addr || (va >= lk.resv_va && va < lk.resv_end))
			break;
		pa = translate(va, &span);
		if (pa == ~0ull || pa >= lk.ctl->k.directmap_end)
			break;
		done += span;
	}
	return done > size ? size : done;
}

int lk_load64(uint64_t addr, uint64_t *v)
{
	if (lk_loadable(addr, 8) < 8)
		return 0;
	*v = *(volatile uint64_t *)addr;
	return 1;
}

int lk_load_n(uint64_t addr, uint32_t n, uint64_t *v)
{
	if (n == 0 || n > 8 || lk_loadable(addr, n) < n)
		return 0;
	*v = 0;
	for (uint32_t i = 0; i < n; i++)
		*v |= (uint64_t)((volatile const uint8_t *)addr)[i] << (8 * i);
	return 1;
}

uint64_t mt_plat_time(void)
{
	return lk_ns(lk_rdtsc());
}

uint64_t mt_plat_walltime(void)
{
	return lk.ctl->k.boot_walltime_ns + lk_ns(lk_rdtsc());
}

/*
 * The kernel's number of the current CPU: an SMP kernel's cpu_id_lut[] at
 * the CPU's initial APIC ID (CPUID leaf 1, EBX bits 31-24), as its
 * cpu_number_slow() reads it; %gs holds the user's value when a probe
 * interrupts user mode, so the per-CPU area is not read through it.  The
 * table is a global of the kernel image's .bss (the host took it from the
 * symbol table): read as entry.S reads it, not through a safe load.
 */
uint32_t mt_plat_cpu(void)
{
	uint32_t a = 1, b, c = 0, d;
	int32_t v;

	if (!lk_cpu_lut)
		return 0;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	v = ((const volatile int32_t *)lk_cpu_lut)[b >> 24];
	return v > 0 && (uint32_t)v < lk.ctl->k.ncpus ? (uint32_t)v : 0;
}

uint64_t mt_plat_loadable(const struct mt_pctx *ctx, uint64_t addr,
			  uint64_t size)
{
	return lk_loadable(addr, size);
}

uint64_t lk_kva_pa(uint64_t va)
{
	uint64_t span, pa;

	if (va < LK_KERNEL_MAP_BASE || !lk.ctl)
		return ~0ull;
	if (va - LK_KERNEL_MAP_BASE < lk.ctl->k.directmap_end)
		return va - LK_KERNEL_MAP_BASE;
	pa = translate(va, &span);
	return pa;
}

static uint64_t cur_thread(void)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	uint64_t th = 0;

	if (!k->percpu_array ||
	    !lk_load64(k->percpu_array + mt_plat_cpu() * k->percpu_stride +
		       k->off_active_thread, &th))
		return 0;
	return th;
}

static uint64_t cur_task(void)
{
	uint64_t th = cur_thread(), task = 0;

	if (!th || !lk_load64(th + lk.ctl->k.off_thread_task, &task))
		return 0;
	return task;
}

static uint64_t caller(const struct lk_fire *f)
{
	uint64_t v = 0;

	if (f && f->sp && lk_load64(f->sp, &v))
		return v;
	return 0;
}

/*
 * pid and tid: GNU Mach's tasks and threads have no ids, so the blob
 * numbers them (runtime/idtab.h), keyed by address and creation time.
 * At GO kernel_task is pid 0 and its threads (the kernel threads that
 * exist at bootstrap_create) get tids from 1 in creation order; every
 * task or thread created later gets the next number as it is created
 * (the blob's hooks on ipc_task_enable / ipc_thread_enable, which
 * task_create_kernel and thread_create call once the object is complete;
 * LK_SF_INTERNAL_BORN_*), so numbers follow creation order and the boot
 * modules, created first after GO, are pids 1, 2, ... in boot order.
 * An object a probe sees before its hook ran (proc:::create fires at the
 * call of ipc_task_enable) is numbered then, and the hook keeps it.
 * creation_time has the clock tick's resolution: a thread destroyed and
 * another created at its address within a tick would look alike, so the
 * blob's destruction hooks (pcb_terminate: a thread, machine_task_terminate:
 * a task; LK_SF_INTERNAL_FORGET) forget the object.
 */
#define LK_TASKS_CAP	1024
#define LK_THREADS_CAP	4096
#define LK_GO_THREADS	128

static struct mt_ident task_ents[LK_TASKS_CAP], thread_ents[LK_THREADS_CAP];
static struct mt_idtab tasks, threads;

static uint64_t ctime_stamp(uint64_t obj, uint32_t off)
{
	uint64_t s = 0, ns = 0;

	if (!lk.ctl->k.kernel_task || !lk_load64(obj + off, &s) ||
	    !lk_load64(obj + off + 8, &ns))
		return 0;
	return s * 1000000000ull + ns;
}

static uint64_t kernel_task(void)
{
	uint64_t t = 0;

	if (!lk.ctl->k.kernel_task || !lk_load64(lk.ctl->k.kernel_task, &t))
		return 0;
	return t;
}

/* The RPCs the kernel served (kernel_task->messages_received), 0 unknown. */
uint64_t lk_kernel_rpcs(void)
{
	uint64_t t = kernel_task(), n = 0;

	if (!t || !lk.ctl->off_krpcs || !lk_load64(t + lk.ctl->off_krpcs, &n))
		return 0;
	return n;
}

/* The kfn[] entry (+ 1) naming the thread's continuation, 0 if none. */
static uint32_t kfn_of(uint64_t th)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	uint64_t c = 0;

	if (!k->off_thread_cont || !lk_load64(th + k->off_thread_cont, &c))
		return 0;
	for (uint32_t i = 0; i < k->nkfn && i < LK_KFN_MAX; i++)
		if (k->kfn[i].addr == c)
			return i + 1;
	return 0;
}

/*
 * Per-thread memo (lk.thr): a thread's tid and its execname's place never
 * change while it lives, and finding them costs page-table walks (its
 * creation time, its task).  Each CPU has its own, which only it fills
 * (compiled code reads it without a lock).  Emptied whenever a thread or
 * task is destroyed (lk_ids_forget: the address may come back as
 * another) and at each session's start.
 */
static void thr_clear(void)
{
	uint32_t n = lk.ctl->k.ncpus ? lk.ctl->k.ncpus : 1;

	/* only the kernel's CPUs' memos are used (mt_plat_cpu, thr_memo):
	   each thread's end comes here, a sweep of all LK_NCPU_MAX cost a
	   uniprocessor ~950 instructions a thread */
	if (n > LK_NCPU_MAX)
		n = LK_NCPU_MAX;
	for (uint32_t c = 0; c < n; c++)
		for (uint32_t i = 0; i < LK_THR_CACHE; i++)
			lk.thr[c][i].th = 0;
}

/* The current CPU's memo (CPU 0's for a CPU beyond LK_NCPU_MAX, as
   entry.S's stacks). */
static struct lk_thr *thr_memo(void)
{
	uint32_t cpu = mt_plat_cpu();

	return lk.thr[cpu < LK_NCPU_MAX ? cpu : 0];
}

static uint32_t thr_slot(uint64_t th)
{
	return (uint32_t)(th >> 6) % LK_THR_CACHE;
}

/* Thread th's memo entry, taken over (emptied) if it held another. */
static struct lk_thr *thr_take(uint64_t th)
{
	struct lk_thr *m = &thr_memo()[thr_slot(th)];

	if (m->th != th) {
		m->th = th;
		m->name = 0;
		m->tid_ok = 0;
		m->pid_ok = 0;
	}
	return m;
}

struct mt_ident *lk_thread_ent(uint64_t th)
{
	struct mt_ident *e;
	int isnew;

	e = mt_idtab_enter(&threads, th,
			   ctime_stamp(th, lk.ctl->k.off_thread_ctime), -1, &isnew);
	if (e && isnew) {
		e->aux = kfn_of(th);
		thr_clear();		/* a full table may have reused an entry */
	}
	return e;
}

static int64_t task_id(uint64_t task)
{
	return mt_idtab_id(&tasks, task,
			   ctime_stamp(task, lk.ctl->k.off_task_ctime));
}

static int64_t thread_id(uint64_t th)
{
	struct mt_ident *e;
	struct lk_thr *m;

	if (!th)
		return -1;
	m = &thr_memo()[thr_slot(th)];
	if (m->th == th && m->tid_ok)
		return m->tid;
	e = lk_thread_ent(th);
	if (!e)
		return (int64_t)th;
	m = thr_take(th);
	m->tid = e->id;
	m->tid_ok = 1;
	return e->id;
}

/* The current thread's pid: its task never changes while it lives. */
static int64_t cur_pid(void)
{
	uint64_t th = cur_thread(), task = cur_task();
	struct lk_thr *m;
	int64_t pid;

	m = th ? &thr_memo()[thr_slot(th)] : 0;
	if (m && m->th == th && m->pid_ok)
		return m->pid;
	pid = task ? task_id(task) : -1;
	if (th && task) {
		m = thr_take(th);
		m->pid = pid;
		m->pid_ok = 1;
	}
	return pid;
}

/* The -c/-p target (ctl->target_pid) is running once created (pid 0:
   at GO), exited once destroyed. */
static void target_mark(int64_t pid, uint32_t state)
{
	if (lk.ctl->target_pid >= 0 && pid == lk.ctl->target_pid &&
	    lk.ctl->target_state < state)
		lk.ctl->target_state = state;
}

void lk_ids_born(uint64_t obj, int thread)
{
	if (thread)
		(void)thread_id(obj);
	else
		target_mark(task_id(obj), LK_TGT_RUNNING);
}

void lk_ids_forget(uint64_t obj)
{
	struct mt_ident *e = mt_idtab_find(&tasks, obj);

	if (e)
		target_mark(e->id, LK_TGT_EXITED);
	mt_idtab_forget(&threads, obj);
	mt_idtab_forget(&tasks, obj);
	thr_clear();
}

/*
 * The objects on a Mach queue (head: its queue_head_t; each object's
 * chain at link, whose first word is the next object's address, as
 * queue_enter links them) sorted by creation time, at most max.  The
 * walk is bounded and every load checked.
 */
static uint32_t queue_sorted(uint64_t head, uint32_t link, uint32_t ctime,
			     uint64_t *obj, uint64_t *st, uint32_t max)
{
	uint64_t t = 0;
	uint32_t n = 0;

	if (!lk_load64(head, &t))
		return 0;
	while (t && t != head && n < max) {
		uint32_t i = n++;

		obj[i] = t;
		st[i] = ctime_stamp(t, ctime);
		for (; i > 0 && st[i - 1] > st[i]; i--) {
			uint64_t a = obj[i], b = st[i];
			obj[i] = obj[i - 1], st[i] = st[i - 1];
			obj[i - 1] = a, st[i - 1] = b;
		}
		if (!lk_load64(t + link, &t))
			break;
	}
	return n;
}

/* A task's threads numbered in creation order. */
static void number_threads(uint64_t task)
{
	static uint64_t th[LK_GO_THREADS], st[LK_GO_THREADS];
	const struct lk_kdesc *k = &lk.ctl->k;
	uint32_t n = queue_sorted(task + k->off_task_threads, k->off_thread_link,
				  k->off_thread_ctime, th, st, LK_GO_THREADS);

	for (uint32_t i = 0; i < n; i++)
		lk_thread_ent(th[i]);
}

/* At GO (outside probe context, before BEGIN): empty tables, kernel_task
   pid 0, its threads numbered by creation time. */
void lk_ids_start(void)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	uint64_t kt = kernel_task();

	mt_idtab_init(&tasks, task_ents, LK_TASKS_CAP, 1);
	mt_idtab_init(&threads, thread_ents, LK_THREADS_CAP, 1);
	thr_clear();
	if (!kt)
		return;
	mt_idtab_enter(&tasks, kt, ctime_stamp(kt, k->off_task_ctime), 0, 0);
	target_mark(0, LK_TGT_RUNNING);
	number_threads(kt);
}

/*
 * Attach mode: the tables live in the blob's .bss, which stays resident
 * between sessions, so a task keeps its number across sessions (its
 * entry is validated by creation_time).  Tasks born between sessions
 * were not seen by the creation hooks: at GO every task on the
 * kernel's list (default_pset.tasks) is numbered in creation order (the
 * boot modules, created first, are 1, 2, ... as in a boot session), its
 * threads after it, and its user sites are armed (it runs already).
 */
#define LK_GO_TASKS	256

static int ids_ready;

void lk_ids_attach(void)
{
	static uint64_t tk[LK_GO_TASKS], st[LK_GO_TASKS];
	const struct lk_kdesc *k = &lk.ctl->k;
	uint64_t head = k->all_tasks, kt = kernel_task();
	uint32_t n;

	thr_clear();
	if (!ids_ready) {
		lk_ids_start();
		ids_ready = 1;
	} else if (kt) {
		target_mark(0, LK_TGT_RUNNING);
	}
	for (uint32_t i = 0; i < LK_THREADS_CAP; i++)	/* an earlier session's clocks */
		for (uint32_t k = 0; k < MT_IDENT_NDATA; k++)
			thread_ents[i].data[k] = 0;
	if (!head || !k->off_task_pset_link)
		return;
	n = queue_sorted(head, k->off_task_pset_link, k->off_task_ctime, tk, st,
			 LK_GO_TASKS);
	for (uint32_t i = 0; i < n; i++) {
		int64_t pid;

		if (tk[i] == kt)
			continue;
		pid = task_id(tk[i]);
		target_mark(pid, LK_TGT_RUNNING);
		number_threads(tk[i]);
		lk_usites_install_in((uint64_t)pid, lk_task_pml4_of(tk[i]));
	}
}

/*
 * errno, uid, gid and ppid have no GNU Mach meaning (no errno in a
 * microkernel's traps, users live in the Hurd's auth server, a task does
 * not record its parent): -1, documented, rather than a plausible 0.
 */
uint64_t mt_plat_var(const struct mt_pctx *ctx, uint32_t var)
{
	const struct lk_fire *f = ctx ? ctx->plat : 0;
	uint64_t pcs[64];

	switch (var) {
	case MT_VAR_CURTHREAD:
		return cur_thread();
	case MT_VAR_TID:
		return (uint64_t)thread_id(cur_thread());
	case MT_VAR_VTIMESTAMP:
		return lk_vtime();
	case MT_VAR_TASK:
		return cur_task();
	case MT_VAR_PID:
		return (uint64_t)cur_pid();
	case MT_VAR_PPID:
	case MT_VAR_UID:
	case MT_VAR_GID:
	case MT_VAR_ERRNO:
		return (uint64_t)-1;
	case MT_VAR_CALLER:
		return caller(f);
	case MT_VAR_STACKDEPTH:
		return mt_plat_stack(ctx, 0, pcs, 64);
	case MT_VAR_USTACKDEPTH:
		return mt_plat_stack(ctx, 1, pcs, 64);
	case MT_VAR_UCALLER:
		return mt_plat_stack(ctx, 1, pcs, 2) == 2 ? pcs[1] : 0;
	case MT_VAR_CPU:
	case MT_VAR_CURCPU:
	case MT_VAR_IPL:
	default:
		return 0;
	}
}

int64_t mt_plat_objid(const struct mt_pctx *ctx, int thread, uint64_t addr)
{
	if (!addr)
		return -1;
	return thread ? thread_id(addr) : task_id(addr);
}

/* Copy at most len - 1 bytes of the kernel string at addr (max n). */
static void kstr(uint64_t addr, uint32_t n, char *buf, uint32_t len)
{
	uint32_t i = 0;

	if (n > len - 1)
		n = len - 1;
	n = (uint32_t)lk_loadable(addr, n);
	for (; i < n; i++) {
		char ch = *(volatile char *)(addr + i);
		if (!ch)
			break;
		buf[i] = ch;
	}
	buf[i] = 0;
}

static void copy_str(const char *s, uint32_t n, char *buf, uint32_t len)
{
	uint32_t i = 0;

	for (; i < n && i < len - 1 && s[i]; i++)
		buf[i] = s[i];
	buf[i] = 0;
}

/*
 * A kernel thread's own name: thread_create copies the task's name
 * ("gnumach") into every new thread, so only another name counts.
 */
static int named_thread(uint64_t th, uint64_t task, char *buf, uint32_t len)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	char tn[32];
	uint32_t i;

	kstr(th + k->off_thread_name, k->thread_name_size, buf, len);
	if (!buf[0])
		return 0;
	if (!k->task_name_size)
		return 1;
	kstr(task + k->off_task_name, k->task_name_size, tn, sizeof tn);
	for (i = 0; buf[i] && buf[i] == tn[i]; i++)
		;
	return buf[i] != tn[i];
}

/*
 * execname of a thread: its task's name; a thread of kernel_task (whose
 * name is "gnumach") is named by thread->name when the kernel set one
 * (idle/0, pageout) other than the task's, else by the function it started or blocked in
 * (reaper_thread, sched_thread, ...), else "kernel_thread".
 */
void mt_plat_objname(const struct mt_pctx *ctx, uint64_t th, char *buf,
		     uint32_t len)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	struct mt_ident *e;
	uint64_t task = 0;

	if (len == 0)
		return;
	buf[0] = 0;
	if (!th || !lk_load64(th + k->off_thread_task, &task) || !task)
		return;
	if (task != kernel_task() || !k->kernel_task) {
		if (k->task_name_size)
			kstr(task + k->off_task_name, k->task_name_size, buf, len);
		return;
	}
	if (k->thread_name_size && named_thread(th, task, buf, len))
		return;
	e = lk_thread_ent(th);
	if (e && !e->aux)
		e->aux = kfn_of(th);
	if (e && e->aux && e->aux <= LK_KFN_MAX)
		copy_str(k->kfn[e->aux - 1].name, sizeof k->kfn[0].name, buf, len);
	else
		copy_str("kernel_thread", 14, buf, len);
}

/*
 * Compiled code's execname: a user task's own name in place (no copy:
 * the task is not kernel_task, its name array has MT_JIT_PLATNAME bytes
 * and they are loadable), else mt_plat_objname's copy in the blob.
 * A thread's task never changes and its name stays where it is: the
 * place is kept per thread (lk.thr, thread_id's memo).
 */
uint64_t lk_jit_execname(void)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	uint64_t th = cur_thread(), task = 0, name;
	const struct lk_thr *m = &thr_memo()[thr_slot(th)];
	uint32_t cpu = mt_plat_cpu();

	if (th && m->th == th && m->name)
		return m->name;
	if (th && k->task_name_size >= MT_JIT_PLATNAME && k->kernel_task &&
	    lk_load64(th + k->off_thread_task, &task) && task && task != kernel_task()) {
		name = task + k->off_task_name;
		if (lk_loadable(name, MT_JIT_PLATNAME) == MT_JIT_PLATNAME) {
			thr_take(th)->name = name;
			return name;
		}
	}
	if (cpu >= LK_NCPU_MAX)
		cpu = 0;
	mt_plat_objname(0, th, lk.jit_name[cpu], sizeof lk.jit_name[cpu]);
	return (uint64_t)lk.jit_name[cpu];
}

uint64_t lk_jit_curthread_at(uint32_t cpu)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	uint64_t at = k->percpu_array + cpu * k->percpu_stride + k->off_active_thread;

	return k->percpu_array && lk_loadable(at, 8) == 8 ? at : 0;
}

/* The pair { base, limit } of [base, end): a - base < limit has 8 bytes. */
static void loadable_range(uint64_t *pair, uint64_t base, uint64_t end)
{
	pair[0] = base;
	pair[1] = end > base && end - base >= 8 ? end - base - 7 : 0;
}

/* lk_loadable's walk-free ranges: the direct map below and above our
   region. */
uint64_t lk_jit_loadable_at(void)
{
	uint64_t end = LK_KERNEL_MAP_BASE + lk.ctl->k.directmap_end;

	loadable_range(&lk.loadable[0], LK_KERNEL_MAP_BASE,
		       lk.resv_va < end ? lk.resv_va : end);
	loadable_range(&lk.loadable[2], lk.resv_end, end);
	return (uint64_t)lk.loadable;
}

void mt_plat_strvar(const struct mt_pctx *ctx, uint32_t var, char *buf,
		    uint32_t len)
{
	uint32_t i = 0;

	if (len == 0)
		return;
	buf[0] = 0;
	if (var != MT_VAR_EXECNAME && var != MT_VAR_EXECARGS) {
		if (var == MT_VAR_ZONENAME && len > 6)
			for (i = 0; i < 7; i++)
				buf[i] = "global"[i];
		return;
	}
	mt_plat_objname(ctx, cur_thread(), buf, len);
}

/*
 * regs[] in illumos' x86-64 order is not modelled; rip/rsp/rbp by name.
 * regs[0..14] are the saved registers (rax rcx rdx rsi rdi r8-r11 rbx rbp
 * r12-r15), regs[15] rsp at a site's instruction (locals' CFA, dwloc.c).
 * uregs[]: the user registers saved at the thread's entry to the kernel
 * (kuser.c); a kernel thread has none: invalid address 0, as illumos.
 */
uint64_t mt_plat_reg(const struct mt_pctx *ctx, int uregs, uint64_t idx,
		     int *ok)
{
	const struct lk_fire *f = ctx ? ctx->plat : 0;
	const struct lk_regs *r = f ? f->r : 0;
	const uint64_t *g = (const uint64_t *)r;
	struct lk_uregs_loc loc;
	uint64_t v = 0;

	*ok = 0;
	if (uregs) {
		*ok = lk_user_iss(cur_thread(), &loc) ? lk_user_reg(&loc, idx, &v) : -1;
		return v;
	}
	if (!r || idx > 15 || (idx == 15 && !f->rsp))
		return 0;
	*ok = 1;
	if (idx == 15)
		return f->rsp;
	return g[14 - idx];	/* 0 = rax, 1 = rcx, ... as saved */
}

uint64_t mt_plat_ucopy(const struct mt_pctx *ctx, void *dst, uint64_t src,
		       uint64_t n, int str)
{
	uint64_t pml4;

	if (src >= LK_USER_TOP)
		return MT_UCOPY_NOTUSER;
	if (!(pml4 = lk_task_pml4(cur_thread())))
		return 0;
	return lk_user_copy(pml4, dst, src, n, str);
}

/*
 * The user stack of the current thread: the pc saved at its entry to the
 * kernel, then the return address of each frame of the rbp chain from the
 * saved rbp, read through the task's page tables (a frame that cannot be
 * read, is misaligned, or does not move up the stack ends the walk).  A
 * frameless function (a trap stub) hides its caller: the first return
 * address is then that caller's caller's, as in illumos.  At a pid entry
 * probe (f->user with f->sp: the user rsp at the function's first
 * instruction) the frame is not built yet: the caller's return address
 * is at rsp and rbp is still the caller's, so it is taken from there
 * first, as illumos does under CPU_DTRACE_ENTRY.
 */
static uint32_t user_stack(const struct lk_fire *f, uint64_t *pcs, uint32_t n)
{
	uint64_t th = cur_thread(), pml4 = lk_task_pml4(th), fp = 0, fr[2];
	struct lk_uregs_loc loc;
	uint32_t i = 0;

	if (!n || !pml4 || !lk_user_iss(th, &loc) ||
	    lk_user_reg(&loc, LK_UREG_RIP, &pcs[0]) != 1 || !pcs[0])
		return 0;
	i = 1;
	if (f && f->user && f->sp && i < n &&
	    lk_user_copy(pml4, &fr[1], f->sp, 8, 0) == 8 && fr[1])
		pcs[i++] = fr[1];
	if (lk_user_reg(&loc, LK_UREG_RBP, &fp) != 1)
		return i;
	while (i < n && fp && !(fp & 7) && fp < LK_USER_TOP) {
		if (lk_user_copy(pml4, fr, fp, 16, 0) != 16 || !fr[1])
			break;
		pcs[i++] = fr[1];
		if (fr[0] <= fp)
			break;
		fp = fr[0];
	}
	return i;
}

/* Frame-pointer walk: the probe's pc (after machtrace`tracer for a
   profile sample of tracer time, sample.c), its caller, then each saved
   rbp, up to the stack's base (lk_kdesc.stack_start_ret). */
uint32_t mt_plat_stack(const struct mt_pctx *ctx, int user, uint64_t *pcs,
		       uint32_t n)
{
	const struct lk_fire *f = ctx ? ctx->plat : 0;
	uint64_t fp, pc;
	uint32_t i = 0;

	if (user)
		return user_stack(f, pcs, n);
	if (!f || !n)
		return 0;
	if (f->tracer)
		pcs[i++] = f->tracer;
	if (f->pc && i < n)
		pcs[i++] = f->pc;
	pc = caller(f);
	if (pc && pc == lk.ctl->k.stack_start_ret)
		return i;
	if (pc && i < n)
		pcs[i++] = pc;
	fp = f->fp;
	while (i < n && fp && !(fp & 7)) {
		uint64_t next;
		if (!lk_load64(fp + 8, &pc) || !lk_load64(fp, &next))
			break;
		if (pc < LK_KERNEL_MAP_BASE || pc == lk.ctl->k.stack_start_ret)
			break;
		pcs[i++] = pc;
		if (next <= fp)
			break;
		fp = next;
	}
	return i;
}

/*
 * panic(): the kernel's own panic(), whose console line says why, then
 * KDB; breakpoint(): an int3 that is no site of ours, which vector 3
 * passes to the kernel's handler: KDB.  Neither returns unless someone
 * continues from the debugger.
 */
void mt_plat_destructive(const struct mt_pctx *ctx, uint32_t act)
{
	const struct lk_kdesc *k = &lk.ctl->k;

	/* GNU Mach's panic(s...) is Panic(__FILE__, __LINE__, __func__, s...) */
	if (act == MT_ACT_PANIC && k->panic_fn)
		((void (*)(const char *, int, const char *, const char *, ...))k->panic_fn)
			("machtrace", 0, "panic", "panic() action in probe context");
	__asm__ volatile("int3");
}
