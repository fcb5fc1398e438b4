/*
 * machtrace's D library for the GNU Mach kernel, compiled before every
 * program that runs in the kernel (as dtrace compiles /usr/lib/dtrace/*.d
 * first).  DTrace's process model (illumos procfs.d, sched.d): psinfo_t,
 * lwpsinfo_t and cpuinfo_t, with translators from GNU Mach's struct task,
 * struct thread and struct processor (kernel types from the kernel's
 * DWARF), and curpsinfo, curlwpsinfo and curcpu.  The providers pass
 * threads: psinfo_t from a struct thread * describes the thread's task.
 *
 * pr_pid and pr_lwpid are pid and tid (machtrace's per-boot numbers:
 * mach_pid(), mach_tid()); pr_fname is execname (mach_execname()).
 * Fields with no Mach meaning hold -1 (documented in docs/live-kernel.md):
 * a Mach task records no parent, session or process group, and users and
 * groups live in the Hurd's auth server, not in the kernel.
 */

typedef int psetid_t;
typedef int chipid_t;
typedef int lgrp_id_t;

/* pr_state (illumos' values) */
inline char SSLEEP = 1;
inline char SRUN = 2;
inline char SZOMB = 3;
inline char SSTOP = 4;
inline char SIDL = 5;
inline char SONPROC = 6;
inline char SWAIT = 7;

/* GNU Mach's thread state bits (kern/thread.h) */
inline int TH_WAIT = 0x01;
inline int TH_SUSP = 0x02;
inline int TH_RUN = 0x04;
inline int TH_HALTED = 0x10;
inline int TH_IDLE = 0x80;

inline int PR_MODEL_LP64 = 2;

typedef struct psinfo {
	int	pr_flag;	/* 0 */
	int	pr_nlwp;	/* the task's threads */
	pid_t	pr_pid;		/* pid */
	pid_t	pr_ppid;	/* -1: Mach tasks record no parent */
	pid_t	pr_pgid;	/* -1 */
	pid_t	pr_sid;		/* -1 */
	uid_t	pr_uid;		/* -1: no users in the kernel */
	uid_t	pr_euid;	/* -1 */
	gid_t	pr_gid;		/* -1 */
	gid_t	pr_egid;	/* -1 */
	uintptr_t pr_addr;	/* the struct task */
	char	pr_fname[16];	/* execname */
	char	pr_psargs[80];	/* the task's name (no arguments in Mach) */
	int	pr_argc;	/* -1 */
	int	pr_dmodel;	/* PR_MODEL_LP64 */
	zoneid_t pr_zoneid;	/* 0: the global zone */
} psinfo_t;

typedef struct lwpsinfo {
	int	pr_flag;	/* 0 */
	id_t	pr_lwpid;	/* tid */
	uintptr_t pr_addr;	/* the struct thread */
	uintptr_t pr_wchan;	/* the event it waits for, 0 if none */
	char	pr_stype;	/* 0 */
	char	pr_state;	/* SSLEEP, SRUN, SONPROC, SSTOP, SZOMB, SIDL */
	char	pr_sname;	/* 'S', 'R', 'O', 'T', 'Z', 'I' */
	char	pr_nice;	/* 0 */
	short	pr_syscall;	/* 0 */
	int	pr_pri;		/* sched_pri: Mach's, 0 highest */
	char	pr_clname[8];	/* "TS" or "FX" from the thread's policy */
	char	pr_name[16];	/* execname of the thread */
	processorid_t pr_onpro;	/* 0 while running (one CPU), else -1 */
	processorid_t pr_bindpro; /* bound processor, -1 if none */
	psetid_t pr_bindpset;	/* -1 */
	lgrp_id_t pr_lgrp;	/* 0 */
} lwpsinfo_t;

typedef struct cpuinfo {
	processorid_t cpu_id;	/* the processor's slot */
	psetid_t cpu_pset;	/* 0: the default processor set, else -1 */
	chipid_t cpu_chip;	/* 0 */
	lgrp_id_t cpu_lgrp;	/* 0 */
} cpuinfo_t;

translator psinfo_t < struct task *T > {
	pr_flag = 0;
	pr_nlwp = T->thread_count;
	pr_pid = mach_pid(T);
	pr_ppid = -1;
	pr_pgid = -1;
	pr_sid = -1;
	pr_uid = -1;
	pr_euid = -1;
	pr_gid = -1;
	pr_egid = -1;
	pr_addr = (uintptr_t)T;
	pr_fname = stringof(T->name);
	pr_psargs = stringof(T->name);
	pr_argc = -1;
	pr_dmodel = PR_MODEL_LP64;
	pr_zoneid = 0;
};

translator psinfo_t < struct thread *T > {
	pr_flag = 0;
	pr_nlwp = T->task->thread_count;
	pr_pid = mach_pid(T->task);
	pr_ppid = -1;
	pr_pgid = -1;
	pr_sid = -1;
	pr_uid = -1;
	pr_euid = -1;
	pr_gid = -1;
	pr_egid = -1;
	pr_addr = (uintptr_t)T->task;
	pr_fname = mach_execname(T);
	pr_psargs = stringof(T->task->name);
	pr_argc = -1;
	pr_dmodel = PR_MODEL_LP64;
	pr_zoneid = 0;
};

translator lwpsinfo_t < struct thread *T > {
	pr_flag = 0;
	pr_lwpid = mach_tid(T);
	pr_addr = (uintptr_t)T;
	pr_wchan = (uintptr_t)T->wait_event;
	pr_stype = 0;
	pr_state = (T->state & TH_HALTED) ? SZOMB :
	    (T->state & TH_RUN) ? ((uintptr_t)T == (uintptr_t)curthread ?
	    SONPROC : SRUN) : (T->state & TH_WAIT) ? SSLEEP :
	    (T->state & TH_SUSP) ? SSTOP : (T->state & TH_IDLE) ? SIDL : SSLEEP;
	pr_sname = (T->state & TH_HALTED) ? 'Z' :
	    (T->state & TH_RUN) ? ((uintptr_t)T == (uintptr_t)curthread ?
	    'O' : 'R') : (T->state & TH_WAIT) ? 'S' :
	    (T->state & TH_SUSP) ? 'T' : (T->state & TH_IDLE) ? 'I' : 'S';
	pr_nice = 0;
	pr_syscall = 0;
	pr_pri = T->sched_pri;
	/* strjoin: a zero-filled copy (a literal would bring the string
	   table bytes after it into the char[8]) */
	pr_clname = strjoin(T->policy == 2 ? "FX" : "TS", "");
	pr_name = mach_execname(T);
	pr_onpro = (uintptr_t)T == (uintptr_t)curthread ? 0 : -1;
	pr_bindpro = T->bound_processor != NULL ?
	    T->bound_processor->slot_num : -1;
	pr_bindpset = -1;
	pr_lgrp = 0;
};

translator cpuinfo_t < struct processor *P > {
	cpu_id = P->slot_num;
	cpu_pset = P->processor_set == &`default_pset ? 0 : -1;
	cpu_chip = 0;
	cpu_lgrp = 0;
};

inline psinfo_t *curpsinfo = xlate <psinfo_t *> (curthread);
inline lwpsinfo_t *curlwpsinfo = xlate <lwpsinfo_t *> (curthread);
inline cpuinfo_t *curcpu = xlate <cpuinfo_t *> (`master_processor);

/*
 * The ipc provider's message (targets/mach/live/prov_ipc.c): a Mach
 * message in transit, from GNU Mach's struct ipc_kmsg.  Its ports are the
 * kernel's port objects then (names exist only in a task's space): the
 * port fields hold their addresses.  msg_name is rpctrace's: the MIG
 * routine, ROUTINE-reply for a reply, the id in decimal when unknown
 * (mach_msgname()).
 */
inline int MACH_MSGH_BITS_COMPLEX = 0x80000000;

typedef struct msginfo {
	int	msg_id;		/* msgh_id */
	string	msg_name;	/* mach_msgname(msg_id) */
	string	msg_subsystem;	/* mach_msgsubsystem(msg_id), "" if unknown */
	uint32_t msg_size;	/* msgh_size: bytes of the message */
	uintptr_t msg_remote_port;	/* the destination (struct ipc_port *) */
	uintptr_t msg_local_port;	/* the reply port, 0 if none */
	int	msg_complex;	/* 1: carries ports or out-of-line memory */
	uint32_t msg_bits;	/* msgh_bits */
	uintptr_t msg_addr;	/* the struct ipc_kmsg */
} msginfo_t;

translator msginfo_t < struct ipc_kmsg *K > {
	msg_id = K->ikm_header.msgh_id;
	msg_name = mach_msgname(K->ikm_header.msgh_id);
	msg_subsystem = mach_msgsubsystem(K->ikm_header.msgh_id);
	msg_size = K->ikm_header.msgh_size;
	msg_remote_port = (uintptr_t)K->ikm_header.msgh_remote_port;
	msg_local_port = (uintptr_t)K->ikm_header.msgh_local_port;
	msg_complex = (K->ikm_header.msgh_bits & MACH_MSGH_BITS_COMPLEX) != 0;
	msg_bits = K->ikm_header.msgh_bits;
	msg_addr = (uintptr_t)K;
};
