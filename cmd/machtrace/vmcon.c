/*
 * machtrace vm console: the VM's console log so far, then
 *   - on a terminal: the console itself (its socket), keys to the guest
 *     (KDB's prompt takes them), until Ctrl-] or the VM's end;
 *   - otherwise: the log as it grows (tail -f), until the VM ends or a
 *     signal; --no-follow stops after what is there.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "cmd/machtrace/cli.h"
#include "machtrace/vm.h"

#define CTRL_RBRACKET	0x1d

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int copy_new(int fd)
{
	char buf[8192];
	ssize_t n;
	int any = 0;

	while ((n = read(fd, buf, sizeof buf)) > 0) {
		if (write(1, buf, (size_t)n) < 0)
			return -1;
		any = 1;
	}
	return any;
}

static int alive(const struct mt_vm *vm)
{
	return kill(vm->qemu_pid, 0) == 0 || errno != ESRCH;
}

static int follow_log(const struct mt_vm *vm, int fd)
{
	while (!stop && alive(vm)) {
		if (copy_new(fd) < 0)
			return E_ERROR;
		usleep(100000);
	}
	copy_new(fd);
	return E_SUCCESS;
}

static int sock_open(const struct mt_vm *vm)
{
	struct sockaddr_un a;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	if (s < 0 || mt_vm_path(vm, "console.sock", a.sun_path, sizeof a.sun_path) < 0 ||
	    connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
		if (s >= 0)
			close(s);
		return -1;
	}
	return s;
}

/* Relay the terminal and the console socket until Ctrl-] or the end. */
static int interactive(const struct mt_vm *vm)
{
	struct termios old, raw;
	int s = sock_open(vm);
	char buf[4096];

	if (s < 0) {
		fprintf(stderr, "machtrace: vm %s: cannot connect to its console (another "
			"console attached?)\n", vm->name);
		return E_ERROR;
	}
	fprintf(stderr, "machtrace: vm %s: console attached (Ctrl-] leaves)\r\n", vm->name);
	tcgetattr(0, &old);
	raw = old;
	cfmakeraw(&raw);
	tcsetattr(0, TCSANOW, &raw);
	while (!stop) {
		struct pollfd p[2] = { { .fd = 0, .events = POLLIN }, { .fd = s, .events = POLLIN } };
		ssize_t n;
		if (poll(p, 2, 500) < 0 && errno != EINTR)
			break;
		if (p[1].revents & (POLLIN | POLLHUP)) {
			if ((n = read(s, buf, sizeof buf)) <= 0 || write(1, buf, (size_t)n) < 0)
				break;
		}
		if (p[0].revents & POLLIN) {
			if ((n = read(0, buf, sizeof buf)) <= 0 || memchr(buf, CTRL_RBRACKET, (size_t)n))
				break;
			if (write(s, buf, (size_t)n) < 0)
				break;
		}
		if (!alive(vm))
			break;
	}
	tcsetattr(0, TCSANOW, &old);
	close(s);
	fprintf(stderr, "\nmachtrace: vm %s: console detached\n", vm->name);
	return E_SUCCESS;
}



int cli_vm_console(const struct mt_vm *vm, int follow)
{
	char path[4096];
	int fd, rc;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (mt_vm_path(vm, "console.log", path, sizeof path) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "machtrace: vm %s: no console log: %s\n", vm->name,
			strerror(errno));
		return E_ERROR;
	}
	if (copy_new(fd) < 0) {
		close(fd);
		return E_ERROR;
	}
	if (!follow)
		rc = E_SUCCESS;
	else if (isatty(0) && isatty(1))
		rc = interactive(vm);
	else
		rc = follow_log(vm, fd);
	close(fd);
	return rc;
}
