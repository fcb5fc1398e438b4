/*
 * record --events GROUPS: the Mach providers' events as LTTng's kernel
 * events, written as D clauses compiled with the user's program, so the
 * counts are the providers' own.  Each clause's trace() calls are the
 * event's fields in order; the table names them (LTTng's names, see
 * docs/recording.md; a trailing '#': shown in hex).  A trailing '@' names
 * a field no trace() records: the MIG routine of the field before it,
 * named on the host (probe context stores the id, not mach_msgname()'s
 * string, as top does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/record/record.h"

/* LTTng's prev_state: 0 (TASK_RUNNING) for a preempted thread, 1
   (TASK_INTERRUPTIBLE) for one that leaves to wait (Mach's TH_WAIT, set
   while the thread still runs) */
#define PREV_STATE "(int64_t)(curthread->state & TH_WAIT ? 1 : 0)"

static const struct rec_gen gens[] = {
	{ EV_SCHED, "sched:::off-cpu\n{\n\ttrace(execname); trace((int)tid); "
	  "trace((int)curlwpsinfo->pr_pri); trace(" PREV_STATE ");\n"
	  "\ttrace(stringof(args[1]->pr_fname)); trace((int)args[0]->pr_lwpid); "
	  "trace((int)args[0]->pr_pri);\n}\n", "sched_switch", 0,
	  "prev_comm,prev_tid,prev_prio,prev_state,next_comm,next_tid,next_prio" },
	{ EV_SCHED, "sched:::wakeup\n{\n\ttrace(stringof(args[1]->pr_fname)); "
	  "trace((int)args[0]->pr_lwpid); trace((int)args[0]->pr_pri); "
	  "trace((int)cpu);\n}\n", "sched_wakeup", 0,
	  "comm,tid,prio,target_cpu" },
	{ EV_PROC, "proc:::lwp-create\n{\n\ttrace(execname); trace((int)tid); "
	  "trace((int)pid);\n\ttrace(stringof(args[1]->pr_fname)); "
	  "trace((int)args[0]->pr_lwpid); trace((int)args[1]->pr_pid);\n}\n",
	  "sched_process_fork", 0,
	  "parent_comm,parent_tid,parent_pid,child_comm,child_tid,child_pid" },
	{ EV_PROC, "proc:::lwp-exit\n{\n\ttrace(stringof(args[1]->pr_fname)); "
	  "trace((int)args[0]->pr_lwpid); trace((int)args[0]->pr_pri);\n}\n",
	  "sched_process_exit", 0, "comm,tid,prio" },
	{ EV_TRAP, "mach_trap:::entry\n{\n\ttrace(arg0); trace(arg1); "
	  "trace(arg2);\n}\n", "syscall_entry_", 1, "arg0#,arg1#,arg2#" },
	{ EV_TRAP, "mach_trap:::return\n{\n\ttrace((int64_t)(int)arg1);\n}\n",
	  "syscall_exit_", 1, "ret" },
	{ EV_IPC, "ipc:::send\n{\n\ttrace(args[0]->msg_id); "
	  "trace(args[0]->msg_size);\n"
	  "\ttrace(args[0]->msg_addr); trace(args[0]->msg_remote_port); "
	  "trace(args[0]->msg_local_port);\n\ttrace(execname); trace((int)tid); "
	  "trace((int)pid);\n}\n", "ipc_send", 0,
	  "msg_id,msg_name@,msg_size,kmsg#,remote_port#,local_port#,comm,tid,pid" },
	{ EV_IPC, "ipc:::receive\n{\n\ttrace(args[0]->msg_id); "
	  "trace(args[0]->msg_size);\n"
	  "\ttrace(args[0]->msg_addr); trace(args[0]->msg_remote_port); "
	  "trace(args[0]->msg_local_port);\n\ttrace(execname); trace((int)tid); "
	  "trace((int)pid);\n}\n", "ipc_receive", 0,
	  "msg_id,msg_name@,msg_size,kmsg#,remote_port#,local_port#,comm,tid,pid" },
	{ EV_VM, "vm:::fault\n{\n\ttrace((uint64_t)arg0); trace((int)arg1); "
	  "trace(execname); trace((int)tid); trace((int)pid);\n}\n", NULL, 0,
	  "address#,fault_type,comm,tid,pid" },
	{ EV_VM, "vm:::fault-done\n{\n\ttrace((int)arg0); trace((uint64_t)arg1); "
	  "trace(execname); trace((int)tid); trace((int)pid);\n}\n",
	  "mach_vm_fault_done", 0, "result,latency_ns,comm,tid,pid" },
};

static const struct { const char *name; unsigned bit; } groups[] = {
	{ "sched", EV_SCHED }, { "ipc", EV_IPC }, { "vm", EV_VM },
	{ "proc", EV_PROC }, { "trap", EV_TRAP },
};

int
rec_events_parse(const char *list, unsigned *mask, char *err, size_t len)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		size_t i;

		for (i = 0; i < sizeof(groups) / sizeof(*groups); i++)
			if (strlen(groups[i].name) == n &&
			    strncmp(p, groups[i].name, n) == 0)
				break;
		if (n == 0 || i == sizeof(groups) / sizeof(*groups)) {
			snprintf(err, len, "--events: unknown event group '%.*s' "
				 "(groups: sched, ipc, vm, proc, trap)", (int)n, p);
			return -1;
		}
		*mask |= groups[i].bit;
		p += n + (p[n] == ',');
	}
	if (*mask == 0) {
		snprintf(err, len, "--events: no event group given");
		return -1;
	}
	return 0;
}

char *
rec_events_program(unsigned mask, uint32_t *nclauses)
{
	size_t len = 1;
	char *s;

	*nclauses = 0;
	for (size_t i = 0; i < sizeof(gens) / sizeof(*gens); i++)
		if (mask & gens[i].group)
			len += strlen(gens[i].d);
	if ((s = malloc(len)) == NULL)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < sizeof(gens) / sizeof(*gens); i++)
		if (mask & gens[i].group) {
			strcat(s, gens[i].d);
			++*nclauses;
		}
	return s;
}

const struct rec_gen *
rec_events_clause(unsigned mask, uint32_t k)
{
	for (size_t i = 0; i < sizeof(gens) / sizeof(*gens); i++)
		if ((mask & gens[i].group) && k-- == 0)
			return &gens[i];
	return NULL;
}

/*
 * The event name of generated clause g for probe function func: LTTng's
 * page fault events for vm:::fault in user_trap and kernel_trap, our
 * mach_vm_fault for the wiring pseudo-faults.
 */
void
rec_events_name(const struct rec_gen *g, const char *func, char *buf,
		size_t len)
{
	if (g->name == NULL)
		snprintf(buf, len, "%s", strcmp(func, "user_trap") == 0 ?
			 "x86_exceptions_page_fault_user" :
			 strcmp(func, "kernel_trap") == 0 ?
			 "x86_exceptions_page_fault_kernel" : "mach_vm_fault");
	else
		snprintf(buf, len, "%s%s", g->name, g->by_func ? func : "");
}
