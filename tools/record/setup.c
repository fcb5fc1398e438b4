/*
 * machtrace record's session from its command line: the trace directory
 * (-o), the clauses --events generates (compiled before the user's, so
 * that record.c knows them by their index), and what the trace's env
 * shows.
 */
#include <stdio.h>
#include <string.h>
#include "tools/record/record.h"

int
tool_record_setup(struct tool_record *r, const struct tool_record_args *a,
		  char **gen, char **gen_name, struct mt_session_client *h)
{
	*gen = *gen_name = NULL;
	if (a->dir == NULL) {
		fprintf(a->err, "machtrace: record: -o DIR is required\n");
		return -1;
	}
	r->dir = a->dir;
	r->mask = a->events;
	r->events = a->events_list;
	r->opts = a->opts;
	if (a->events) {
		if ((*gen = rec_events_program(a->events, &r->nclauses)) == NULL)
			return -1;
		if (asprintf(gen_name, "--events %s", a->events_list) < 0) {
			*gen_name = NULL;
			return -1;
		}
	} else if (a->nprogs == 0) {
		fprintf(a->err, "machtrace: record: nothing to record: give "
			"--events or a D program (-n, -s, -P, ...)\n");
		return -1;
	}
	tool_record_client(r, h);
	return 0;
}

void
tool_record_program(struct tool_record *r, int is_file, const char *s)
{
	size_t len = sizeof(r->progbuf);
	int k;

	if (r->proglen >= len)
		return;
	k = snprintf(r->progbuf + r->proglen, len - r->proglen, "%s%s%s",
		     r->proglen ? "  " : "", is_file ? "-s " : "", s);
	r->proglen += k > 0 ? (size_t)k : 0;
	r->program = r->progbuf[0] ? r->progbuf : NULL;
}

void
tool_record_machine(struct tool_record *r, const struct mt_session_machine *m)
{
	r->workload = m->cmd_c ? m->cmd_c : m->mach.nmodules ? m->mach.modules[0] :
		m->mach.workload ? m->mach.workload : "machload (its default words)";
	r->kernel = m->disk_entry ? m->disk_entry : m->mach.kernel ? m->mach.kernel :
		"Debian's gnumach-image-1.8-amd64-up-dbg";
}
