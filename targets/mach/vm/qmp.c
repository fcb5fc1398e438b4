/*
 * A minimal QMP client: connect to the VM's qmp.sock, leave capability
 * negotiation, run one command, return its answer line (events, which
 * QEMU may send at any time, are skipped).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "targets/mach/mach_int.h"
#include "targets/mach/vm/vm_int.h"

#define QMP_MS	3000

/* The next line that is not an event into buf; -1 on timeout or EOF. */
static int qmp_line(int fd, char *buf, size_t len)
{
	size_t used = 0;

	for (;;) {
		char c;
		if (vm_sock_read(fd, &c, 1, QMP_MS) != 1)
			return -1;
		if (c != '\n') {
			if (used < len - 1)
				buf[used++] = c;
			continue;
		}
		buf[used] = 0;
		if (!strstr(buf, "\"event\""))
			return 0;
		used = 0;
	}
}

static int qmp_exec(int fd, const char *cmd, char *ans, size_t len)
{
	char req[256];

	snprintf(req, sizeof req, "{\"execute\": \"%s\"}\n", cmd);
	if (mt_write_all(fd, req, strlen(req)) < 0)
		return -1;
	return qmp_line(fd, ans, len);
}

int vm_qmp(const struct mt_vm *vm, const char *cmd, char *ans, size_t len,
	   char *err, size_t errlen)
{
	char path[PATH_MAX], line[4096];
	int fd;

	if (mt_vm_path(vm, "qmp.sock", path, sizeof path) < 0 ||
	    (fd = vm_sock_connect(path, err, errlen)) < 0)
		return -1;
	if (qmp_line(fd, line, sizeof line) < 0 || !strstr(line, "\"QMP\"") ||
	    qmp_exec(fd, "qmp_capabilities", line, sizeof line) < 0 ||
	    qmp_exec(fd, cmd, ans, len) < 0) {
		/* quit may close the socket before its answer */
		close(fd);
		if (strcmp(cmd, "quit") == 0)
			return 0;
		mt_seterr(err, errlen, "vm %s: no answer from QMP to %s", vm->name, cmd);
		return -1;
	}
	close(fd);
	if (strstr(ans, "\"error\"")) {
		mt_seterr(err, errlen, "vm %s: QMP %s: %.200s", vm->name, cmd, ans);
		return -1;
	}
	return 0;
}

int mt_vm_cont(const struct mt_vm *vm, char *err, size_t errlen)
{
	char ans[256];

	return vm_qmp(vm, "cont", ans, sizeof ans, err, errlen);
}

/* "running", "paused", ... from query-status, or NULL. */
const char *mt_vm_status(const struct mt_vm *vm, char *buf, size_t len)
{
	char ans[1024], err[256], *p, *e;

	if (vm_qmp(vm, "query-status", ans, sizeof ans, err, sizeof err) < 0 ||
	    !(p = strstr(ans, "\"status\"")) || !(p = strchr(p + 8, '"')) ||
	    !(e = strchr(p + 1, '"')))
		return NULL;
	snprintf(buf, len, "%.*s", (int)(e - p - 1), p + 1);
	return buf;
}
