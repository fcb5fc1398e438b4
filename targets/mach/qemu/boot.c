/*
 * The QEMU launcher.  One guest = one qemu-system-x86_64 process (TCG) in
 * its own process group, with
 *   - guest RAM in a memfd we create, size and map before QEMU starts;
 *     QEMU inherits it as fd 3 and maps it through /proc/self/fd/3
 *     (offset = guest physical address).  It has no name in /dev/shm:
 *     whatever kills us, the memory goes with the last of us and QEMU;
 *   - the serial console on QEMU's stdout (a pipe to us; stderr too), read
 *     line by line, copied to the echo stream and the log file, and scanned
 *     for panics and the KDB prompt;
 *   - -no-reboot, so a guest reboot ends QEMU by itself;
 *   - -name machtrace-PID-HEX, by which tests find it.
 * QEMU never outlives the launcher: mt_boot_stop() kills what is left, the
 * child dies with us (PR_SET_PDEATHSIG, unless opts.survive, checked
 * against a parent that died before the prctl) and SIGINT/SIGTERM/SIGHUP
 * are caught while a guest runs so that poll() returns and stops it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "machtrace/kimg.h"
#include "machtrace/mach.h"
#include "targets/mach/qemu/boot_int.h"
#include "targets/mach/mach_int.h"

static volatile sig_atomic_t caught_signal;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP (int)(sizeof stop_signals / sizeof stop_signals[0])

static void on_signal(int sig)
{
	caught_signal = sig;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void catch_signals(struct mt_boot *b)
{
	struct sigaction sa;

	b->own_signals = 0;
	if (b->caller_signals)
		return;
	b->own_signals = 1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	caught_signal = 0;
	for (int i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &sa, &b->old_sa[i]);
}

static void restore_signals(struct mt_boot *b)
{
	if (!b->own_signals)
		return;
	for (int i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &b->old_sa[i], NULL);
}

#define QEMU_RAM_FD	3		/* the memfd in QEMU: /proc/self/fd/3 */

/* In the child: become QEMU.  Reports exec failure through errpipe. */
static void exec_qemu(char **argv, int out, int errpipe, int ram_fd, int survive,
		      pid_t parent)
{
	int devnull = open("/dev/null", O_RDONLY);
	sigset_t none;

	setpgid(0, 0);
	if (!survive) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)	/* it died before the prctl */
			_exit(1);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int i = 0; i < NSTOP; i++)
		signal(stop_signals[i], SIG_DFL);
	if (devnull >= 0)
		dup2(devnull, 0);
	dup2(out, 1);
	dup2(out, 2);
	if (errpipe <= QEMU_RAM_FD)
		errpipe = fcntl(errpipe, F_DUPFD_CLOEXEC, QEMU_RAM_FD + 1);
	if (ram_fd == QEMU_RAM_FD)
		fcntl(ram_fd, F_SETFD, 0);
	else
		dup2(ram_fd, QEMU_RAM_FD);	/* without FD_CLOEXEC */
	execvp(argv[0], argv);
	int e = errno;
	if (write(errpipe, &e, sizeof e) < 0)
		_exit(126);
	_exit(127);
}

static int spawn(struct mt_boot *b, char **argv, int survive, char *err, size_t errlen)
{
	int out[2], ep[2], e = 0;
	pid_t parent = getpid();
	ssize_t n;

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
		mt_seterr(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	b->pid = fork();
	if (b->pid < 0) {
		mt_seterr(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (b->pid == 0)
		exec_qemu(argv, out[1], ep[1], b->ram_fd, survive, parent);
	setpgid(b->pid, b->pid);
	close(out[1]);
	close(ep[1]);
	do
		n = read(ep[0], &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(ep[0]);
	b->fd = out[0];
	if (n == sizeof e) {
		waitpid(b->pid, NULL, 0);
		b->pid = 0;
		mt_seterr(err, errlen, "cannot run %s: %s (install qemu-system-x86)",
			  argv[0], strerror(e));
		return -1;
	}
	fcntl(b->fd, F_SETFL, O_NONBLOCK);
	return 0;
}

static void finish(struct mt_boot *b, enum mt_boot_status st, const char *reason)
{
	if (b->done)
		return;
	b->done = 1;
	b->res.status = st;
	if (reason && !b->res.reason[0])
		snprintf(b->res.reason, sizeof b->res.reason, "%s", reason);
}

static void kill_qemu(struct mt_boot *b)
{
	if (b->pid > 0) {
		kill(-b->pid, SIGKILL);
		kill(b->pid, SIGKILL);
		while (waitpid(b->pid, &b->res.qemu_status, 0) < 0 && errno == EINTR)
			;
		b->pid = 0;
	}
}

/* One complete console line (or the pending prompt). */
static void console_line(void *arg, char *line, int partial)
{
	struct mt_boot *b = arg;

	mt_console_clean(line);
	if (!partial) {
		if (b->echo)
			fprintf(b->echo, "%s\n", line), fflush(b->echo);
		if (b->log)
			fprintf(b->log, "%s\n", line), fflush(b->log);
		if (b->res.marker_seconds < 0 && strstr(line, b->marker))
			b->res.marker_seconds = now() - b->t0;
		if (strncmp(line, "qemu-system", 11) == 0 && !b->qemu_msg[0])
			snprintf(b->qemu_msg, sizeof b->qemu_msg, "%s", line);
		else if (line[0] && strncmp(line, "shim:", 5) != 0)
			b->console_up = 1;
	}
	switch (mt_console_note(&b->kdb, line)) {
	case MT_CON_PROMPT:
		if (b->echo)
			fprintf(b->echo, "%s\n", line), fflush(b->echo);
		if (b->log)
			fprintf(b->log, "%s\n", line), fflush(b->log);
		finish(b, b->kdb.panic[0] ? MT_BOOT_PANIC : MT_BOOT_DEBUGGER,
		       mt_console_why(&b->kdb));
		break;
	case MT_CON_SHIM_ERROR:
		finish(b, MT_BOOT_SHIM_FAILED, line);
		break;
	default:
		break;
	}
}

/* Reads what QEMU wrote; returns 0 at end of file. */
static int read_console(struct mt_boot *b)
{
	char chunk[4096];
	ssize_t n = read(b->fd, chunk, sizeof chunk);

	if (n == 0)
		return 0;
	if (n > 0)
		mt_console_feed(b->line, sizeof b->line, &b->used, chunk, (size_t)n,
				console_line, b);
	return 1;
}

static void reap(struct mt_boot *b)
{
	char why[sizeof b->res.reason];
	int st;

	while (waitpid(b->pid, &st, 0) < 0 && errno == EINTR)
		;
	b->pid = 0;
	b->res.qemu_status = st;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		finish(b, MT_BOOT_REBOOTED, NULL);
		return;
	}
	if (WIFEXITED(st))
		snprintf(why, sizeof why, "QEMU exited with status %d%s%.200s", WEXITSTATUS(st),
			 b->qemu_msg[0] ? ": " : "", b->qemu_msg);
	else
		snprintf(why, sizeof why, "QEMU killed by signal %d", WTERMSIG(st));
	finish(b, MT_BOOT_QEMU_FAILED, why);
}

/* Before the console exists KDB's words are only in the message buffer. */
static void watch_kmsg(struct mt_boot *b)
{
	char why[200], reason[256];

	if (b->console_up || !b->kmsg_size ||
	    !mt_kmsg_stop(b->ram, b->ram_size, b->kmsg_va, b->kmsg_size, why, sizeof why))
		return;
	snprintf(reason, sizeof reason, "%s (before its console existed: its message buffer)",
		 why);
	finish(b, MT_BOOT_DEBUGGER, reason);
}

int mt_boot_poll(struct mt_boot *b, int timeout_ms, struct mt_boot_result *r)
{
	double until = timeout_ms < 0 ? 0 : now() + timeout_ms / 1000.0;

	while (!b->done) {
		struct pollfd p = { .fd = b->fd, .events = POLLIN };
		double t = now();
		int slice = 100;

		if (caught_signal) {
			char why[64];
			snprintf(why, sizeof why, "stopped by signal %d", (int)caught_signal);
			finish(b, MT_BOOT_INTERRUPTED, why);
			break;
		}
		if (b->deadline && t >= b->deadline) {
			finish(b, MT_BOOT_TIMEOUT, "time limit reached");
			break;
		}
		if (b->deadline && (b->deadline - t) * 1000 < slice)
			slice = (int)((b->deadline - t) * 1000) + 1;
		if (until && (until - t) * 1000 < slice)
			slice = until > t ? (int)((until - t) * 1000) + 1 : 0;
		if (poll(&p, 1, slice) > 0 && !read_console(b))
			reap(b);
		watch_kmsg(b);
		if (!b->done && until && now() >= until)
			return 1;
	}
	if (b->pid > 0)
		kill_qemu(b);
	b->res.seconds = now() - b->t0;
	if (r)
		*r = b->res;
	return 0;
}

void *mt_boot_ram(struct mt_boot *b, size_t *size)
{
	if (size)
		*size = b->ram_size;
	return b->ram;
}

void mt_boot_stop(struct mt_boot *b)
{
	if (!b)
		return;
	kill_qemu(b);
	restore_signals(b);
	if (b->fd >= 0)
		close(b->fd);
	if (b->ram)
		munmap(b->ram, b->ram_size);
	if (b->ram_fd >= 0)
		close(b->ram_fd);
	if (b->log)
		fclose(b->log);
	free(b);
}

/* The guest RAM: an anonymous shared file of mem_mb MiB, mapped. */
static int make_ram(struct mt_boot *b, unsigned mem_mb, char *err, size_t errlen)
{
	size_t size = (size_t)mem_mb << 20;
	void *p;

	b->ram_fd = memfd_create(b->name, MFD_CLOEXEC);
	if (b->ram_fd < 0 || ftruncate(b->ram_fd, (off_t)size) < 0) {
		mt_seterr(err, errlen, "guest RAM (%u MiB): %s", mem_mb, strerror(errno));
		return -1;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, b->ram_fd, 0);
	if (p == MAP_FAILED) {
		mt_seterr(err, errlen, "guest RAM (%u MiB): mmap: %s", mem_mb, strerror(errno));
		return -1;
	}
	b->ram = p;
	b->ram_size = size;
	return 0;
}

/*
 * Guest RAM files that launchers of earlier versions left behind (SIGKILL):
 * /dev/shm/machtrace-PID-* whose PID no longer exists.
 */
static void remove_stale_ram(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300];
		int pid;
		if (sscanf(e->d_name, "machtrace-%d-", &pid) != 1 || pid <= 0 ||
		    kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
		unlink(path);
	}
	closedir(d);
}

struct mt_boot *mt_boot_start(const struct mt_boot_opts *o, char *err, size_t errlen)
{
	struct mt_boot *b = calloc(1, sizeof *b);
	struct qemu_cmd cmd;

	if (!b) {
		mt_seterr(err, errlen, "out of memory");
		return NULL;
	}
	b->fd = -1;
	b->ram_fd = -1;
	b->echo = o->echo;
	b->marker = o->marker ? o->marker : "machload: start";
	b->res.marker_seconds = -1;
	snprintf(b->name, sizeof b->name, "machtrace-%d-%lx", (int)getpid(),
		 (unsigned long)(uintptr_t)b & 0xffffff);
	if (mt_qemu_cmd(o, "/proc/self/fd/3", &cmd, err, errlen) < 0) {
		free(b);
		return NULL;
	}
	if (cmd.argc + 2 >= QEMU_MAX_ARGS) {
		mt_seterr(err, errlen, "QEMU command line too long");
		free(b);
		return NULL;
	}
	b->kmsg_va = o->kmsg_va;
	b->kmsg_size = o->kmsg_size;
	if (!b->kmsg_size && mt_kernel_kmsg(cmd.kernel, &b->kmsg_va, &b->kmsg_size) < 0)
		b->kmsg_size = 0;
	cmd.argv[cmd.argc++] = "-name";
	cmd.argv[cmd.argc++] = b->name;
	cmd.argv[cmd.argc] = NULL;
	if (make_ram(b, cmd.mem_mb, err, errlen) < 0) {
		mt_boot_stop(b);
		return NULL;
	}
	if (o->log_path && !(b->log = fopen(o->log_path, "w"))) {
		mt_seterr(err, errlen, "cannot write %s: %s", o->log_path, strerror(errno));
		mt_boot_stop(b);
		return NULL;
	}
	remove_stale_ram();
	b->caller_signals = o->caller_signals;
	catch_signals(b);
	b->t0 = now();
	b->deadline = o->timeout_ms ? b->t0 + o->timeout_ms / 1000.0 : 0;
	if (spawn(b, cmd.argv, o->survive, err, errlen) < 0) {
		mt_boot_stop(b);
		return NULL;
	}
	return b;
}

int mt_boot_run(const struct mt_boot_opts *o, struct mt_boot_result *r, char *err, size_t errlen)
{
	struct mt_boot *b = mt_boot_start(o, err, errlen);

	if (!b)
		return -1;
	mt_boot_poll(b, -1, r);
	mt_boot_stop(b);
	return 0;
}

const char *mt_boot_status_name(enum mt_boot_status s)
{
	static const char *const names[] = {
		"rebooted", "panic", "debugger", "timeout", "interrupted", "qemu-failed",
		"shim-failed",
	};

	return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}
