/*
 * Following a VM's console.log (QEMU's chardev logfile): lines as they
 * come, the kernel's panic line and the KDB prompt "db> " (a partial
 * line: the debugger waits for input after it).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/vm.h"
#include "targets/mach/mach_int.h"

int mt_vm_log_open(const struct mt_vm *vm, struct mt_vm_log *l, int from_end)
{
	char path[PATH_MAX];

	memset(l, 0, sizeof *l);
	if (mt_vm_path(vm, "console.log", path, sizeof path) < 0)
		return -1;
	l->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0)
		return -1;
	if (from_end)
		lseek(l->fd, 0, SEEK_END);
	return 0;
}

static void log_line(void *arg, char *line, int partial)
{
	struct mt_vm_log *l = arg;

	mt_console_clean(line);
	/* in KDB = the log ends at its prompt: a line after it (the user's
	   command at `vm console`, the kernel continuing) ends that */
	if (!partial && mt_console_classify(line) != MT_CON_PROMPT)
		l->kdb = 0;
	if (!partial) {
		if (l->echo)
			fprintf(l->echo, "%s\n", line), fflush(l->echo);
		if (l->copy)
			fprintf(l->copy, "%s\n", line), fflush(l->copy);
		if (l->marker && strstr(line, l->marker))
			l->seen_marker = 1;
	}
	switch (mt_console_classify(line)) {
	case MT_CON_PANIC:
	case MT_CON_DEBUGGER:
	case MT_CON_TRAP:
		if (!partial && (!l->panic[0] || mt_console_classify(line) == MT_CON_PANIC))
			snprintf(l->panic, sizeof l->panic, "%.255s", line);
		break;
	case MT_CON_PROMPT:
		l->kdb = 1;
		break;
	case MT_CON_SHIM_ERROR:
		if (!partial)
			snprintf(l->shim, sizeof l->shim, "%.255s", line);
		break;
	default:
		break;
	}
}

int mt_vm_log_poll(struct mt_vm_log *l)
{
	char chunk[4096];
	ssize_t n;

	if (l->fd < 0)
		return l->kdb;
	while ((n = read(l->fd, chunk, sizeof chunk)) > 0)
		mt_console_feed(l->line, sizeof l->line, &l->used, chunk, (size_t)n,
				log_line, l);
	return l->kdb;
}

void mt_vm_log_close(struct mt_vm_log *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
