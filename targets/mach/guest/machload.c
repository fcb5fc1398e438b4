/*
 * machload: a load generator run as GNU Mach's bootstrap task.
 *
 *   machload ${host-port} ${device-port} [WORD...] $(task-create) $(task-resume)
 *
 * argv = {"machload", host_priv name, device master name, WORD...}.  Words:
 *   rt=N        N IPC round trips to a port of our own (send, then receive)
 *   spin=N      a known cost on rt's server side: each later rt round trip
 *               spins N iterations of a volatile loop between its send
 *               and its receive, while the message waits in the queue
 *               (machtrace baseline's regression test; docs/baselines.md)
 *   pingpong=N  N round trips with a second thread: both sides block in
 *               receive, so every round trip switches threads twice
 *   pages=N     vm_allocate N pages, touch each (one fault per page), free
 *   threads=N   create, start, await and terminate N threads
 *   tasks=N     create and terminate N tasks
 *   ports=N     N times: mach_port_allocate a receive right,
 *               mach_port_insert_right a send right, mach_port_deallocate
 *               it, mach_port_destroy the port
 *   taskinfo=N  N task_info(TASK_BASIC_INFO) calls
 *   vmmaps=N    N times: vm_map a page, touch it, vm_deallocate it
 *   forks=N     N children sharing our memory copy-on-write, one at a
 *               time, each making 5 rt round trips of its own
 *   rpcs=N      N machload_echo RPCs (machload.defs) answered by a
 *               server thread through MIG's server stub, which replies and
 *               receives the next request in one mach_msg
 *   cpus=N      one worker thread per available CPU (two on one CPU),
 *               each making N IPC round trips on a port of its own, all
 *               at once; every worker but the first is moved into the
 *               processor set holding the other CPUs (GNU Mach puts all
 *               but the boot CPU in slave_pset), so they run in parallel.
 *               Prints the CPUs and, per worker, its processor set and
 *               the processor it last ran on (thread_info's
 *               THREAD_SCHED_INFO); with no second CPU it says so and
 *               runs the workers on the boot CPU
 *   hammer=N    as cpus=N, each worker making N task_info RPCs on our
 *               task instead, which take our task's simple lock
 *               (task_lock) at once: lockstat's spin-spin on 2 CPUs
 *   contend=N   N times: a thread wires a page whose pager is machload
 *               (pager.c, answering 20 ms late) while holding our
 *               vm_map's lock, and meanwhile we vm_allocate, sleeping
 *               for that lock (lockstat's lock-block; toolkit/lockstat)
 *   panic       enter the kernel debugger (host_reboot RB_DEBUGGER)
 *   hang        spin forever (for time-limit tests)
 *   exit        at the end, terminate this task instead of rebooting the
 *               machine (the machine stays up: -c tests end on the exit)
 *   serve[=MS]  a system that stays busy: run the other counted words
 *               (else rt=100 rpcs=20 pingpong=10 pages=8 threads=1
 *               tasks=1) as one round, then pause MS ms (default 1000),
 *               forever; round k runs between phase-start and
 *               phase-done ("serve", k) and prints "machload: serve
 *               round=k".  Only stopping the machine ends it.
 * Without words: rt=1000 pingpong=100 pages=256 threads=4 tasks=4.
 *
 * Every kernel RPC goes through MIG's user stubs (build/guest/mig/).
 *
 * Static probes (<sys/sdt.h>, machtrace's usdt provider machload<pid>):
 *   machload:::phase-start, phase-done  arg0 = the phase's name (a string
 *                                       in machload), arg1 = its count N
 *   machload:::round-trip               each rt round trip, arg0 = its index
 *
 * Output, one line per phase, then the machine reboots:
 *   machload: start
 *   machload: rt n=1000 ok=1000 cycles=... per=...
 *   machload: done
 * and, for the first 3 calls of each RPC the phases make (thread_create,
 * task_create, task_info, vm_map, mach_port_*, machload_echo), what was
 * sent and got, as rpcsnoop decodes it (show_rpc; not in serve rounds):
 *   machload: rpc machload_echo (0 "echo a") = 0 1
 */
#include <sys/sdt.h>
#include "mach.h"

#define RB_DEBUGGER     0x1000
#define STACK_SIZE      (64 * 1024)
#define MSG_ID          4242

struct int_msg {
	mach_msg_header_t h;
	mach_msg_type_t t;
	u32 value, pad;
};

union rcv_msg {
	struct int_msg m;
	u8 b[256];
};

struct worker {
	int kind;               /* WORK_* */
	mach_port_t done;       /* receive right of the creator; we make a send right */
	mach_port_t ping, pong; /* pingpong: receive on ping, answer on pong */
	u32 count;
	u32 ok;                 /* cpus: round trips that came back */
	int processor;          /* cpus: the processor it last ran on */
	u64 addr;               /* contend: the pager's pages */
};
enum { WORK_EXIT, WORK_PONG, WORK_SERVE, WORK_FORK, WORK_CPU, WORK_PAGER, WORK_WIRE,
       WORK_HAMMER };

static mach_port_t task, host_priv;
static int exit_at_end;                 /* the word "exit" */
static kern_return_t first_error;       /* of the current phase */
static u32 rt_spin;                     /* the word spin=N */

static kern_return_t check(kern_return_t kr)
{
	if (kr && !first_error)
		first_error = kr;
	return kr;
}

kern_return_t send_int(mach_port_t to, u32 value)
{
	struct int_msg m;

	memset(&m, 0, sizeof m);
	m.h.msgh_bits = MACH_MSGH_BITS(MACH_MSG_TYPE_MAKE_SEND, 0);
	m.h.msgh_size = sizeof m;
	m.h.msgh_remote_port = to;
	m.h.msgh_id = MSG_ID;
	m.t.msgt_name = MACH_MSG_TYPE_INTEGER_32;
	m.t.msgt_size = 32;
	m.t.msgt_number = 1;
	m.t.msgt_inline = 1;
	m.value = value;
	return mach_msg(&m.h, MACH_SEND_MSG, sizeof m, 0, 0, 0, 0);
}

/* Blocks until a message arrives on port; its value, or -1 on error. */
long receive_int(mach_port_t port, u32 timeout_ms)
{
	union rcv_msg in;
	int opt = MACH_RCV_MSG | (timeout_ms ? MACH_RCV_TIMEOUT : 0);

	if (mach_msg(&in.m.h, opt, 0, sizeof in, port, timeout_ms, 0))
		return -1;
	return in.m.h.msgh_id == MSG_ID ? (long)in.m.value : -1;
}

static mach_port_t new_port(void)
{
	mach_port_t p = 0;

	trap_mach_port_allocate(task, MACH_PORT_RIGHT_RECEIVE, &p);
	return p;
}

static void report(const char *what, u64 n, u64 ok, u64 cycles)
{
	con_puts("machload: ");
	con_puts(what);
	con_puts(" n=");
	con_dec((long)n);
	con_puts(" ok=");
	con_dec((long)ok);
	con_puts(" cycles=");
	con_dec((long)cycles);
	con_puts(" per=");
	con_dec(n ? (long)(cycles / n) : 0);
	if (first_error) {
		con_puts(" error=");
		con_hex((u64)(u32)first_error);
	}
	con_puts(ok == n ? " OK\n" : " FAIL\n");
	first_error = 0;
}

/* machload.defs' routine, called by MIG's machload_server demux. */
kern_return_t S_machload_echo(mach_port_t server, int value, machload_text_t text,
			      int *result)
{
	(void)server;
	(void)text;
	*result = value + 1;
	return KERN_SUCCESS;
}

/*
 * The first SHOW_RPCS calls of a phase print what they sent and got,
 * as rpcsnoop decodes the messages (tests/e2e/live_toolkit.sh compares):
 *   machload: rpc ROUTINE (ARGS) = RETURN OUTS
 * fmt: %d a long, %s a quoted string, %p a send right (send:NAME: the
 * kernel shows its port instead), %r the return code (0, else 0x...),
 * %a a u32 count then an int array: [1 2 3], 16 elements at most, as
 * rpcsnoop shows them.  Serve rounds print none: a system kept busy for
 * top and baselines makes the same calls every round.
 */
#define SHOW_RPCS 3

static int serving;		/* in serve rounds: show_rpc prints nothing */

static void show_rpc(u32 i, const char *routine, const char *fmt, ...)
{
	__builtin_va_list ap;

	if (i >= SHOW_RPCS || serving)
		return;
	con_puts("machload: rpc ");
	con_puts(routine);
	con_puts(" ");
	__builtin_va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			char c[2] = { *fmt, 0 };
			con_puts(c);
			continue;
		}
		switch (*++fmt) {
		case 'd':
			con_dec(__builtin_va_arg(ap, long));
			break;
		case 's':
			con_puts("\"");
			con_puts(__builtin_va_arg(ap, const char *));
			con_puts("\"");
			break;
		case 'p':
			con_puts("send:");
			con_dec(__builtin_va_arg(ap, long));
			break;
		case 'r': {
			u32 kr = __builtin_va_arg(ap, u32);
			int d = 28;

			con_puts(kr ? "0x" : "0");
			while (kr && !(kr >> d))
				d -= 4;
			for (; kr && d >= 0; d -= 4) {
				char c[2] = { "0123456789abcdef"[(kr >> d) & 15], 0 };
				con_puts(c);
			}
			break;
		}
		case 'a': {
			u32 n = __builtin_va_arg(ap, u32);
			const int *a = __builtin_va_arg(ap, const int *);

			con_puts("[");
			for (u32 k = 0; k < n && k < 16; k++) {
				con_puts(k ? " " : "");
				con_dec(a[k]);
			}
			con_puts(n > 16 ? " ...]" : "]");
			break;
		}
		}
	}
	__builtin_va_end(ap);
	con_puts("\n");
}

union rpc_buf {
	mach_msg_header_t h;
	u8 b[256];
};

/*
 * A MIG server loop (mach_msg_server's shape): demux a request into the
 * other buffer, then send that reply and receive the next request in one
 * mach_msg, the way Hurd servers run.  Returns the requests answered.
 */
static u32 serve(mach_port_t port, u32 count)
{
	union rpc_buf a, b;
	mach_msg_header_t *in = &a.h, *out = &b.h, *t;
	u32 n = 0;

	if (count == 0 || mach_msg(in, MACH_RCV_MSG, 0, sizeof a, port, 0, 0))
		return 0;
	for (;;) {
		if (!machload_server(in, out))
			break;
		n++;
		if (n == count)
			return mach_msg(out, MACH_SEND_MSG, out->msgh_size, 0, 0, 0, 0) ? n - 1 : n;
		if (mach_msg(out, MACH_SEND_MSG | MACH_RCV_MSG, out->msgh_size, sizeof a, port, 0, 0))
			break;
		t = in, in = out, out = t;
	}
	return n;
}

#define CONTEND_MS	20	/* contend: how long the pager sits on a request */

/* cpus=N's worker: its round trips (hammer=N's: its task_info RPCs),
   then where the kernel last ran it. */
static void cpu_work(struct worker *w, mach_port_t port)
{
	struct thread_sched_info si;
	mach_msg_type_number_t count = THREAD_SCHED_INFO_COUNT;

	for (u32 i = 0; i < w->count; i++) {
		struct task_basic_info info;
		mach_msg_type_number_t n = TASK_BASIC_INFO_COUNT;

		if (w->kind == WORK_HAMMER ?
		    !task_info(task, TASK_BASIC_INFO, (task_info_t)&info, &n) :
		    !send_int(port, i) && receive_int(port, 0) == (long)i)
			w->ok++;
	}
	w->processor = -1;
	if (!thread_info(mach_thread_self(), THREAD_SCHED_INFO, (thread_info_t)&si, &count))
		w->processor = si.last_processor;
}

/* Entry of threads we create (x86_64/start.S thread_start). */
void thread_main(struct worker *w)
{
	mach_port_t idle = mach_reply_port();
	u32 n = 0;

	if (w->kind == WORK_FORK) {	/* in a child task: see do_forks */
		for (; n < w->count; n++)
			rt_once(idle, n);
		trap_task_terminate(mach_task_self());
	}
	if (w->kind == WORK_PAGER)
		pager_loop(w->ping, w->pong, CONTEND_MS);
	if (w->kind == WORK_WIRE)
		for (; n < w->count && receive_int(w->ping, 0) == (long)n; n++)
			if (vm_wire(host_priv, task, w->addr + n * 4096, 4096, VM_PROT_READ) ||
			    send_int(w->pong, n))
				break;
	if (w->kind == WORK_CPU || w->kind == WORK_HAMMER)
		cpu_work(w, idle);
	else if (w->kind == WORK_SERVE)
		n = serve(w->ping, w->count);
	else if (w->kind == WORK_PONG)
		for (; n < w->count; n++) {
			long v = receive_int(w->ping, 0);
			if (v < 0 || send_int(w->pong, (u32)v + 1))
				break;
		}
	send_int(w->done, n);
	for (;;)        /* the creator terminates us */
		receive_int(idle, 0);
}

struct thread {
	mach_port_t port;
	u64 stack;
};

static u32 threads_shown;	/* thread_create calls shown (show_rpc) */

/* A thread running w; pset: the processor set it runs in (0: ours). */
static kern_return_t thread_spawn_in(struct worker *w, struct thread *t, mach_port_t pset)
{
	struct i386_thread_state st;
	kern_return_t kr;
	u64 *top;

	t->stack = 0;
	kr = check(trap_vm_allocate(task, &t->stack, STACK_SIZE, 1));
	if (kr)
		return kr;
	kr = check(thread_create(task, &t->port));
	show_rpc(threads_shown++, "thread_create", "() = %r %p", kr, (long)t->port);
	if (kr)
		return kr;
	top = (u64 *)(t->stack + STACK_SIZE - 16);
	top[0] = (u64)w;
	memset(&st, 0, sizeof st);
	st.rip = (u64)thread_start;
	st.rsp = st.ursp = (u64)top;
	st.rfl = 0x202;
	kr = check(thread_set_state(t->port, i386_THREAD_STATE, (thread_state_t)&st,
				    i386_THREAD_STATE_COUNT));
	if (!kr && pset)
		kr = check(thread_assign(t->port, pset));
	if (!kr)
		kr = check(thread_resume(t->port));
	return kr;
}

static kern_return_t thread_spawn(struct worker *w, struct thread *t)
{
	return thread_spawn_in(w, t, 0);
}

static kern_return_t thread_reap(struct thread *t)
{
	kern_return_t kr = check(thread_terminate(t->port));

	if (!kr)
		kr = check(vm_deallocate(task, t->stack, STACK_SIZE));
	return kr;
}

/*
 * One rt round trip: 1 if it came back.  Kept a real function (noipa: not
 * inlined, cloned or renamed) called exactly once per round trip: the pid
 * provider's e2e test (tests/e2e/live_pid.sh) counts its entries and
 * returns against rt=N.
 */
/* spin=N: N iterations the compiler cannot drop or fold (a volatile
   counter), so the instructions they take are the same every time. */
static __attribute__((noinline)) void spin(u32 n)
{
	volatile u32 k = 0;

	while (k < n)
		k = k + 1;
}

__attribute__((noipa)) int rt_once(mach_port_t p, u32 i)
{
	DTRACE_PROBE1(machload, round__trip, i);
	if (send_int(p, i))
		return 0;
	if (rt_spin)
		spin(rt_spin);
	return receive_int(p, 0) == (long)i;
}

/* The phases stay functions of their own (noinline), so that ustack()
   names them: machload`do_pages, not the caller they were inlined in. */
#define PHASE static __attribute__((noinline)) void
PHASE do_rt(u32 n)
{
	mach_port_t p = new_port();
	u64 ok = 0, t0 = rdtsc();

	for (u32 i = 0; i < n; i++)
		ok += (u64)rt_once(p, i);
	report("rt", n, ok, rdtsc() - t0);
}

PHASE do_pingpong(u32 n)
{
	struct worker w = { .kind = WORK_PONG, .done = new_port(), .ping = new_port(), .pong = new_port(),
			    .count = n };
	struct thread t;
	u64 ok = 0, t0 = rdtsc();

	if (thread_spawn(&w, &t) == 0) {
		for (u32 i = 0; i < n; i++)
			if (!send_int(w.ping, 2 * i) && receive_int(w.pong, 0) == 2 * (long)i + 1)
				ok++;
		if (receive_int(w.done, 0) != (long)n || thread_reap(&t))
			ok = 0;
	}
	report("pingpong", n, ok, rdtsc() - t0);
}

PHASE do_pages(u32 n)
{
	u64 addr = 0, ok = 0, t0 = rdtsc(), size = (u64)n * 4096;

	if (n && check(trap_vm_allocate(task, &addr, size, 1)) == 0) {
		volatile u32 *p = (volatile u32 *)addr;
		for (u32 i = 0; i < n; i++)
			p[i * 1024] = 0xdead0000 + i;
		for (u32 i = 0; i < n; i++)
			ok += p[i * 1024] == 0xdead0000 + i;
		if (check(vm_deallocate(task, addr, size)))
			ok = 0;
	}
	report("pages", n, ok, rdtsc() - t0);
}

PHASE do_threads(u32 n)
{
	struct worker w = { .kind = WORK_EXIT, .done = new_port() };
	u64 ok = 0, t0 = rdtsc();

	for (u32 i = 0; i < n; i++) {
		struct thread t;
		if (thread_spawn(&w, &t) == 0 && receive_int(w.done, 0) == 0 && thread_reap(&t) == 0)
			ok++;
	}
	report("threads", n, ok, rdtsc() - t0);
}

PHASE do_tasks(u32 n)
{
	u64 ok = 0, t0 = rdtsc();

	for (u32 i = 0; i < n; i++) {
		mach_port_t child = 0;
		kern_return_t kr = check(task_create(task, 0, &child));

		show_rpc(i, "task_create", "(%d) = %r %p", 0L, kr, (long)child);
		if (kr == 0 && check(task_terminate(child)) == 0)
			ok++;
	}
	report("tasks", n, ok, rdtsc() - t0);
}

PHASE do_ports(u32 n)
{
	u64 ok = 0, t0 = rdtsc();

	for (u32 i = 0; i < n; i++) {
		mach_port_name_t p = 0;
		kern_return_t kr = check(mach_port_allocate(task, MACH_PORT_RIGHT_RECEIVE, &p));

		show_rpc(i, "mach_port_allocate", "(%d) = %r %d", (long)MACH_PORT_RIGHT_RECEIVE, kr, (long)p);
		if (kr)
			continue;
		kr = check(mach_port_insert_right(task, p, p, MACH_MSG_TYPE_MAKE_SEND));
		show_rpc(i, "mach_port_insert_right", "(%d %p) = %r", (long)p, (long)p, kr);
		if (kr)
			continue;
		kr = check(mach_port_deallocate(task, p));
		show_rpc(i, "mach_port_deallocate", "(%d) = %r", (long)p, kr);
		if (kr)
			continue;
		kr = check(mach_port_destroy(task, p));
		show_rpc(i, "mach_port_destroy", "(%d) = %r", (long)p, kr);
		if (kr == 0)
			ok++;
	}
	report("ports", n, ok, rdtsc() - t0);
}

PHASE do_taskinfo(u32 n)
{
	u64 ok = 0, t0 = rdtsc();

	for (u32 i = 0; i < n; i++) {
		struct task_basic_info info;
		mach_msg_type_number_t count = TASK_BASIC_INFO_COUNT;

		kern_return_t kr = check(task_info(task, TASK_BASIC_INFO, (task_info_t)&info, &count));

		show_rpc(i, "task_info", "(%d %d) = %r %a", (long)TASK_BASIC_INFO,
			 (long)TASK_BASIC_INFO_COUNT, kr, kr ? 0 : count, (const int *)&info);
		if (kr == 0 && count == TASK_BASIC_INFO_COUNT && info.virtual_size > 0)
			ok++;
	}
	report("taskinfo", n, ok, rdtsc() - t0);
}

PHASE do_vmmaps(u32 n)
{
	u64 ok = 0, t0 = rdtsc();

	for (u32 i = 0; i < n; i++) {
		vm_address_t addr = 0;

		kern_return_t kr = check(vm_map(task, &addr, 4096, 0, 1, MACH_PORT_NULL, 0, 0,
						VM_PROT_READ | VM_PROT_WRITE, VM_PROT_ALL,
						VM_INHERIT_COPY));

		show_rpc(i, "vm_map", "(%d %d %d %d %d %d %d %d %d %d) = %r %d", 0L, 4096L, 0L, 1L,
			 (long)MACH_PORT_NULL, 0L, 0L, (long)(VM_PROT_READ | VM_PROT_WRITE),
			 (long)VM_PROT_ALL, (long)VM_INHERIT_COPY, kr, (long)addr);
		if (kr)
			continue;
		*(volatile u32 *)addr = i;
		if (*(volatile u32 *)addr == i && check(vm_deallocate(task, addr, 4096)) == 0)
			ok++;
	}
	report("vmmaps", n, ok, rdtsc() - t0);
}

/* The server's port needs a send right of ours: MIG's requests copy one. */
PHASE do_rpcs(u32 n)
{
	struct worker w = { .kind = WORK_SERVE, .done = new_port(), .ping = new_port(), .count = n };
	struct thread t;
	u64 ok = 0, t0 = rdtsc();

	if (check(mach_port_insert_right(task, w.ping, w.ping, MACH_MSG_TYPE_MAKE_SEND)) == 0 &&
	    thread_spawn(&w, &t) == 0) {
		for (u32 i = 0; i < n; i++) {
			machload_text_t text = "echo ";
			kern_return_t kr;
			int r = 0;

			text[5] = (char)('a' + i % 26);
			kr = check(machload_echo(w.ping, (int)i, text, &r));
			show_rpc(i, "machload_echo", "(%d %s) = %r %d", (long)i, text, kr, (long)r);
			if (kr == 0 && r == (int)i + 1)
				ok++;
		}
		if (receive_int(w.done, 0) != (long)n || thread_reap(&t))
			ok = 0;
	}
	report("rpcs", n, ok, rdtsc() - t0);
}

#define FORK_RT 5

/* Wait (polling, 2 ms apart, 4 s at most) until task is gone; 1 if it is. */
static int wait_gone(mach_port_t child)
{
	mach_port_t idle = new_port();

	for (int i = 0; i < 2000; i++) {
		struct task_basic_info info;
		mach_msg_type_number_t count = TASK_BASIC_INFO_COUNT;

		if (task_info(child, TASK_BASIC_INFO, (task_info_t)&info, &count))
			return 1;
		receive_int(idle, 2);
	}
	return 0;
}

/* One child sharing our memory copy-on-write, running w from a stack
   allocated before it was made; 1 when it ran to its end. */
static int fork_one(struct worker *w)
{
	struct i386_thread_state st;
	mach_port_t child, th;
	u64 stack = 0, *top;
	int ok = 0;

	if (check(trap_vm_allocate(task, &stack, STACK_SIZE, 1)))
		return 0;
	top = (u64 *)(stack + STACK_SIZE - 16);
	top[0] = (u64)w;
	if (check(task_create(task, 1, &child)) == 0) {
		memset(&st, 0, sizeof st);
		st.rip = (u64)thread_start;
		st.rsp = st.ursp = (u64)top;
		st.rfl = 0x202;
		if (check(thread_create(child, &th)) == 0 &&
		    check(thread_set_state(th, i386_THREAD_STATE, (thread_state_t)&st,
					   i386_THREAD_STATE_COUNT)) == 0 &&
		    check(thread_resume(th)) == 0)
			ok = wait_gone(child);
		if (!ok)
			task_terminate(child);
	}
	check(vm_deallocate(task, stack, STACK_SIZE));
	return ok;
}

/*
 * forks=N: N children made with our memory (copy-on-write: they share
 * our text pages, int3s of our pid probes included), one after the
 * other, each making FORK_RT round trips through rt_once on a port of
 * its own, then terminating itself.  tests/e2e/live_pid.sh: a probe of
 * pid 1 does not fire in them, and they run on.
 */
PHASE do_forks(u32 n)
{
	struct worker w = { .kind = WORK_FORK, .count = FORK_RT };
	u64 ok = 0, t0 = rdtsc();

	for (u32 i = 0; i < n; i++)
		ok += (u64)fork_one(&w);
	report("forks", n, ok, rdtsc() - t0);
}

#define MAX_CPUS 16

/* The host's available CPUs (host_info), 1 if it does not say. */
static int avail_cpus(void)
{
	struct host_basic_info hi;
	mach_msg_type_number_t count = HOST_BASIC_INFO_COUNT;

	if (host_info(host_priv, HOST_BASIC_INFO, (host_info_t)&hi, &count) || hi.avail_cpus < 1)
		return 1;
	return hi.avail_cpus;
}

/*
 * The control port of a processor set other than the default one that
 * holds processors (GNU Mach's slave_pset on an SMP kernel), 0 if none.
 */
static mach_port_t other_pset(void)
{
	processor_set_name_array_t names = 0;
	mach_msg_type_number_t n = 0;
	mach_port_t dflt = 0, pset = 0;

	if (processor_set_default(host_priv, &dflt) || host_processor_sets(host_priv, &names, &n))
		return 0;
	for (u32 i = 0; i < n && !pset; i++) {
		struct processor_set_basic_info bi;
		mach_msg_type_number_t count = PROCESSOR_SET_BASIC_INFO_COUNT;
		mach_port_t h = 0;

		if (names[i] == dflt ||
		    processor_set_info(names[i], PROCESSOR_SET_BASIC_INFO, &h,
				       (processor_set_info_t)&bi, &count) ||
		    bi.processor_count < 1)
			continue;
		host_processor_set_priv(host_priv, names[i], &pset);
	}
	vm_deallocate(task, (vm_address_t)names, n * sizeof *names);
	return pset;
}

/* cpus=N and hammer=N: the workers of kind, at once, on every CPU; each
   worker's line starts with "machload: WHO worker=". */
static void parallel(const char *name, const char *who, int kind, u32 n)
{
	static struct worker w[MAX_CPUS];
	struct thread t[MAX_CPUS];
	int ncpu = avail_cpus(), nw = ncpu > 1 ? ncpu : 2, started = 0;
	mach_port_t done = new_port(), pset = ncpu > 1 ? other_pset() : 0;
	u64 ok = 0, t0 = rdtsc();

	nw = nw > MAX_CPUS ? MAX_CPUS : nw;
	con_puts("machload: ");
	con_puts(name);
	con_puts(" avail=");
	con_dec(ncpu);
	con_puts(pset ? " other-pset=yes\n" : " other-pset=no\n");
	if (!pset)
	{
		con_puts("machload: ");
		con_puts(name);
		con_puts(": no second CPU to run on: the workers share the boot CPU\n");
	}
	for (int i = 0; i < nw; i++) {
		w[i] = (struct worker){ .kind = kind, .done = done, .count = n, .processor = -1 };
		if (thread_spawn_in(&w[i], &t[i], i ? pset : 0) == 0)
			started++;
	}
	for (int i = 0; i < started; i++)
		receive_int(done, 0);
	for (int i = 0; i < nw; i++) {
		con_puts("machload: ");
		con_puts(who);
		con_puts(" worker=");
		con_dec(i);
		con_puts(i && pset ? " pset=other" : " pset=default");
		con_puts(" processor=");
		con_dec(w[i].processor);
		con_puts(" ok=");
		con_dec(w[i].ok);
		con_puts("\n");
		ok += w[i].ok;
	}
	for (int i = 0; i < started; i++)
		thread_reap(&t[i]);
	report(name, (u64)n * nw, ok, rdtsc() - t0);
}

PHASE do_cpus(u32 n)
{
	parallel("cpus", "cpu", WORK_CPU, n);
}

/*
 * hammer=N: as cpus=N, but each worker makes N task_info(TASK_BASIC_INFO)
 * RPCs on our task at once, each of which takes our task's simple lock
 * (task_lock, kern/task.c): on two CPUs the workers contend for it
 * (lockstat:::spin-spin with args[0] == &curthread->task->lock).
 */
PHASE do_hammer(u32 n)
{
	parallel("hammer", "hammer", WORK_HAMMER, n);
}


/*
 * contend=N: N times, a thread of ours wires a page of a region whose
 * pager is machload (pager.c): vm_wire holds our vm_map's lock (read)
 * while its fault waits CONTEND_MS for the pager, and meanwhile we
 * vm_allocate, which must take that lock to write: it sleeps until the
 * wiring ends (lockstat:::lock-block, about CONTEND_MS).  Reports the
 * rounds where the wire, the pager's request and the allocation all
 * happened.
 */
PHASE do_contend(u32 n)
{
	struct worker pw = { .kind = WORK_PAGER, .ping = new_port(), .pong = new_port() };
	struct worker ww = { .kind = WORK_WIRE, .ping = new_port(), .pong = new_port(), .count = n };
	struct thread pt, wt;
	u64 ok = 0, t0 = rdtsc(), size = (u64)n * 4096;
	vm_address_t addr = 0;

	if (!n || check(mach_port_insert_right(task, pw.ping, pw.ping, MACH_MSG_TYPE_MAKE_SEND)) ||
	    check(vm_map(task, &addr, size, 0, 1, pw.ping, 0, 0, VM_PROT_READ | VM_PROT_WRITE,
			 VM_PROT_ALL, VM_INHERIT_NONE))) {
		report("contend", n, 0, rdtsc() - t0);
		return;
	}
	ww.addr = addr;
	if (thread_spawn(&pw, &pt) == 0 && thread_spawn(&ww, &wt) == 0) {
		for (u32 i = 0; i < n; i++) {
			u64 a = 0;

			send_int(ww.ping, i);
			if (receive_int(pw.pong, 1000) != (long)i)
				break;
			if (check(trap_vm_allocate(task, &a, 4096, 1)) == 0 &&
			    check(vm_deallocate(task, a, 4096)) == 0 &&
			    receive_int(ww.pong, 0) == (long)i)
				ok++;
		}
		thread_reap(&wt);
		thread_reap(&pt);
	}
	check(vm_deallocate(task, addr, size));
	report("contend", n, ok, rdtsc() - t0);
}

static const struct phase {
	const char *name;	/* the word before '=' */
	void (*run)(u32 n);
} phases[] = {
	{ "rt", do_rt }, { "pingpong", do_pingpong }, { "pages", do_pages },
	{ "threads", do_threads }, { "tasks", do_tasks }, { "ports", do_ports },
	{ "taskinfo", do_taskinfo }, { "vmmaps", do_vmmaps }, { "rpcs", do_rpcs },
	{ "forks", do_forks }, { "cpus", do_cpus }, { "contend", do_contend },
	{ "hammer", do_hammer },
};

/* NAME=N: its phase between machload:::phase-start and phase-done. */
static int run_phase(const char *w)
{
	for (unsigned i = 0; i < sizeof phases / sizeof phases[0]; i++) {
		const char *v = prefix(w, phases[i].name);
		u32 n;

		if (!v || *v != '=')
			continue;
		n = (u32)atou(v + 1);
		DTRACE_PROBE2(machload, phase__start, phases[i].name, n);
		phases[i].run(n);
		DTRACE_PROBE2(machload, phase__done, phases[i].name, n);
		return 1;
	}
	return 0;
}

static void run_word(const char *w)
{
	if (run_phase(w))
		return;
	if (streq(w, "panic")) {
		con_puts("machload: entering the kernel debugger\n");
		host_reboot(host_priv, RB_DEBUGGER);
	} else if (prefix(w, "serve")) {
		/* serve_rounds() takes it before any word runs */
	} else if (streq(w, "exit")) {
		exit_at_end = 1;
	} else if (prefix(w, "spin=")) {
		rt_spin = (u32)atou(w + 5);
		con_puts("machload: spin n=");
		con_dec((long)rt_spin);
		con_puts(" OK\n");
	} else if (streq(w, "hang")) {
		con_puts("machload: hanging\n");
		for (;;)
			;
	} else {
		con_puts("machload: unknown word ");
		con_puts(w);
		con_puts("\n");
	}
}

/* A counted word (NAME=N): one of the phases. */
static int counted(const char *w)
{
	if (prefix(w, "spin="))
		return 0;
	for (; *w; w++)
		if (*w == '=')
			return 1;
	return 0;
}

/*
 * serve[=MS] among words[0..n): the round's words (the counted ones, in
 * order) forever, a pause of MS ms after each round.  Returns only when
 * there is no serve word.
 */
static void serve_rounds(char **words, long n)
{
	static const char *const mix[] = {
		"rt=100", "rpcs=20", "pingpong=10", "pages=8", "threads=1", "tasks=1",
	};
	const char *const *round = mix;
	const char *own[64];
	long nround = sizeof mix / sizeof mix[0], nown = 0, ms = -1;

	for (long i = 0; i < n; i++) {
		const char *v = prefix(words[i], "serve");
		if (v && (*v == 0 || *v == '='))
			ms = *v ? (long)atou(v + 1) : 1000;
		else if (counted(words[i]) && nown < 64)
			own[nown++] = words[i];
	}
	if (ms < 0)
		return;
	for (long i = 0; i < n; i++)
		if (prefix(words[i], "spin="))
			run_word(words[i]);
	if (nown)
		round = own, nround = nown;
	serving = 1;
	for (u32 k = 1;; k++) {
		DTRACE_PROBE2(machload, phase__start, "serve", k);
		for (long i = 0; i < nround; i++)
			run_word(round[i]);
		DTRACE_PROBE2(machload, phase__done, "serve", k);
		con_puts("machload: serve round=");
		con_dec((long)k);
		con_puts("\n");
		if (ms)
			receive_int(new_port(), (u32)ms);
	}
}

void task_main(long *sp)
{
	static const char *const defaults[] = {
		"rt=1000", "pingpong=100", "pages=256", "threads=4", "tasks=4",
	};
	long argc = sp[0];
	char **argv = (char **)(sp + 1);
	mach_port_t master = argc > 2 ? (mach_port_t)atou(argv[2]) : 0;

	host_priv = argc > 1 ? (mach_port_t)atou(argv[1]) : 0;
	task = mach_task_self();
	con_open(master);
	con_puts("machload: start\n");
	serve_rounds(argv + 3, argc > 3 ? argc - 3 : 0);
	if (argc > 3)
		for (long i = 3; i < argc; i++)
			run_word(argv[i]);
	else
		for (unsigned i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
			run_word(defaults[i]);
	con_puts("machload: done\n");
	receive_int(new_port(), 20);    /* let the serial line drain */
	if (!exit_at_end)
		host_reboot(host_priv, 0);
	trap_task_terminate(task);
	for (;;)
		;
}
