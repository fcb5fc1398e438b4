/*
 * The persistent VMs' state (targets/mach/vm/state.c, log.c): names, where
 * a VM's files are, the session lock (a second session is refused with the
 * holder's pid), stale state removed by mt_vm_find, the console log's KDB
 * prompt.  No QEMU: a fake state directory under a private
 * XDG_RUNTIME_DIR.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "machtrace/vm.h"
#include "tests/unit/mt_test.h"

static char root[64];

static void setup(void)
{
	if (root[0])
		return;
	strcpy(root, "/tmp/mt-vmstate.XXXXXX");
	if (!mkdtemp(root))
		abort();
	setenv("XDG_RUNTIME_DIR", root, 1);
	umask(077);	/* state directories are private (targets/mach/vm/private.c) */
}

static void put(const char *dir, const char *file, const char *text)
{
	char p[8192];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, file);
	if ((f = fopen(p, "w"))) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(vm_names)
{
	CHECK(mt_vm_name_ok("default"));
	CHECK(mt_vm_name_ok("e2e-123_a.b"));
	CHECK(!mt_vm_name_ok(""));
	CHECK(!mt_vm_name_ok(".hidden"));
	CHECK(!mt_vm_name_ok("-x"));
	CHECK(!mt_vm_name_ok("a/b"));
	CHECK(!mt_vm_name_ok("0123456789012345678901234567890123"));
}

TEST(vm_paths)
{
	char d[512], s[512];

	setup();
	CHECK(mt_vm_dir("n1", d, sizeof d) == 0);
	CHECK(strncmp(d, root, strlen(root)) == 0);
	CHECK(strcmp(d + strlen(root), "/machtrace/vm/n1") == 0);
	CHECK(mt_vm_shm("n1", s, sizeof s) == 0);
	CHECK(strncmp(s, "/dev/shm/machtrace-vm-", 22) == 0);
}

/* A state directory whose QEMU is gone: not found, and removed with its
   RAM file (NAME.XXXXXX, or NAME from an older build's VM). */
TEST(vm_find_stale)
{
	struct mt_vm vm;
	char d[4096], err[256], cmd[8192], name[32], shm[600], old[512], info[1024];

	setup();
	snprintf(name, sizeof name, "stale%d", (int)getpid());
	mt_vm_shm(name, old, sizeof old);
	snprintf(shm, sizeof shm, "%s.abcdef", old);
	for (int pass = 0; pass < 2; pass++) {
		mt_vm_dir(name, d, sizeof d);
		snprintf(cmd, sizeof cmd, "mkdir -p %s && touch %s %s", d, shm, old);
		CHECK(system(cmd) == 0);
		put(d, "qemu.pid", "999999999\n");
		snprintf(info, sizeof info, "memory=256\nresv_size=0x2000000\n%s%s\n",
			 pass ? "" : "shm=", pass ? "" : shm);
		put(d, "info", info);
		CHECK(mt_vm_find(name, &vm, err, sizeof err) < 0);
		CHECK(strstr(err, "its QEMU is gone") != NULL);
		CHECK(access(d, F_OK) != 0);
		CHECK(access(pass ? old : shm, F_OK) != 0);
		CHECK(access(pass ? shm : old, F_OK) == 0);	/* not that VM's */
		unlink(pass ? shm : old);
	}
	CHECK(mt_vm_find("nosuch", &vm, err, sizeof err) < 0);
	CHECK(strstr(err, "no VM named nosuch") != NULL);
	CHECK(mt_vm_find("a/b", &vm, err, sizeof err) < 0);
	CHECK(strstr(err, "invalid VM name") != NULL);
}

/* One session at a time: the second is told who holds the lock. */
TEST(vm_session_lock)
{
	struct mt_vm vm;
	char err[256], cmd[8192];
	int fd, st;
	pid_t child;

	setup();
	memset(&vm, 0, sizeof vm);
	strcpy(vm.name, "locked");
	mt_vm_dir("locked", vm.dir, sizeof vm.dir);
	snprintf(cmd, sizeof cmd, "mkdir -p %s", vm.dir);
	CHECK(system(cmd) == 0);
	CHECK_EQ_INT(mt_vm_session_pid(&vm), 0);
	CHECK(mt_vm_lock(&vm, &fd, err, sizeof err) == 0);
	CHECK_EQ_INT(mt_vm_session_pid(&vm), getpid());
	child = fork();
	if (child == 0) {
		int fd2;
		char e2[256], w2[128];
		snprintf(w2, sizeof w2, "vm locked: a session (pid %d) is attached; one "
			 "session at a time", (int)getppid());
		_exit(mt_vm_lock(&vm, &fd2, e2, sizeof e2) < 0 && strcmp(e2, w2) == 0 ? 0 : 1);
	}
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	mt_vm_unlock(&vm, fd);
	CHECK_EQ_INT(mt_vm_session_pid(&vm), 0);
	CHECK(mt_vm_lock(&vm, &fd, err, sizeof err) == 0);
	mt_vm_unlock(&vm, fd);
}

/* The KDB prompt is a partial line; the panic line before it is kept. */
TEST(vm_log_kdb)
{
	struct mt_vm vm;
	struct mt_vm_log l;
	char cmd[8192];

	setup();
	memset(&vm, 0, sizeof vm);
	mt_vm_dir("logged", vm.dir, sizeof vm.dir);
	snprintf(cmd, sizeof cmd, "mkdir -p %s", vm.dir);
	CHECK(system(cmd) == 0);
	put(vm.dir, "console.log", "machload: start\r\n");
	CHECK(mt_vm_log_open(&vm, &l, 0) == 0);
	l.marker = "machload: start";
	CHECK_EQ_INT(mt_vm_log_poll(&l), 0);
	CHECK(l.seen_marker);
	put(vm.dir, "console.log", "machload: start\r\npanic: oops\r\nStopped at Debugger\r\ndb> ");
	CHECK_EQ_INT(mt_vm_log_poll(&l), 1);
	CHECK(strcmp(l.panic, "panic: oops") == 0);
	/* continued at the console: no longer in KDB */
	put(vm.dir, "console.log", "machload: start\r\npanic: oops\r\nStopped at Debugger\r\n"
	    "db> c\r\nmachload: serve round=9\r\n");
	CHECK_EQ_INT(mt_vm_log_poll(&l), 0);
	mt_vm_log_close(&l);
}

TEST(vm_cleanup)
{
	char cmd[8192];

	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

MT_TEST_MAIN()
