/*
 * Unix-socket helpers of the VM's clients (QMP, gdbstub, console):
 * connect, and read with a time limit.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "targets/mach/mach_int.h"
#include "targets/mach/vm/vm_int.h"

int vm_sock_connect(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un a;
	int fd;

	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof a.sun_path) {
		mt_seterr(err, errlen, "socket path too long: %s", path);
		return -1;
	}
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		mt_seterr(err, errlen, "cannot connect to %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* One read of up to n bytes within ms; bytes read, 0 at EOF, -1 timeout/error. */
ssize_t vm_sock_read(int fd, void *buf, size_t n, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -1;
	return read(fd, buf, n);
}
