/*
 * Another local user against the VMs' state (issue 22): a state root made
 * by someone else (or open to others) is refused, not used; the --disk
 * directory named in info is removed only when it is a real directory of
 * ours; the RAM file is refused through a link or when not ours; a VM
 * being started is not taken for a dead one.  No QEMU: fake state under
 * a private XDG_RUNTIME_DIR.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "machtrace/vm.h"
#include "tests/unit/mt_test.h"

static char base[64];

static void sh(const char *fmt, const char *a, const char *b)
{
	char cmd[8192];

	snprintf(cmd, sizeof cmd, fmt, a, b);
	if (system(cmd) != 0)
		printf("(setup failed: %s)\n", cmd);
}

/* A fresh XDG_RUNTIME_DIR, and a victim directory with a file in it. */
static void fresh(char *victim, size_t len)
{
	if (base[0])
		sh("rm -rf %s%s", base, "");
	strcpy(base, "/tmp/mt-vmhostile.XXXXXX");
	if (!mkdtemp(base))
		abort();
	setenv("XDG_RUNTIME_DIR", base, 1);
	umask(077);
	snprintf(victim, len, "%s/victim", base);
	sh("mkdir -p %s && echo precious >%s/keep", victim, victim);
}

static int kept(const char *victim)
{
	char p[4096];

	snprintf(p, sizeof p, "%s/keep", victim);
	return access(p, F_OK) == 0;
}

/* Stale state in a root open to others: refused, nothing deleted. */
TEST(vm_root_open_to_others)
{
	char victim[256], d[4096], err[512], info[8192];
	struct mt_vm vm;
	int n;

	fresh(victim, sizeof victim);
	mt_vm_dir("x", d, sizeof d);
	sh("mkdir -p %s && chmod 777 %s/machtrace", d, base);
	snprintf(info, sizeof info, "ln -s %s %s/machtrace-disk-1 && printf 'memory=256\\n"
		 "resv_size=1\\ndisk_dir=%s/machtrace-disk-1/.\\n' >%%s/info", victim, base, base);
	sh(info, d, "");
	CHECK(mt_vm_find("x", &vm, err, sizeof err) == -1);
	CHECK(strstr(err, "/machtrace has mode 0777, not 0700") != NULL);
	CHECK(strstr(err, "refusing it") != NULL);
	CHECK(kept(victim));
	CHECK(mt_vm_names(&n, err, sizeof err) == NULL && n == -1);
	CHECK(strstr(err, "has mode 0777") != NULL);
}

/* The same made by another user (root only: chown). */
TEST(vm_root_of_another_user)
{
	char victim[256], d[4096], err[512];
	struct mt_vm vm;

	if (getuid() != 0) {
		printf("(vm_root_of_another_user needs root: mode checks only)\n");
		return;
	}
	fresh(victim, sizeof victim);
	mt_vm_dir("x", d, sizeof d);
	sh("mkdir -p %s && chown -R 65534 %s/machtrace", d, base);
	sh("printf 'memory=256\\nresv_size=1\\n' >%s/info", d, "");
	CHECK(mt_vm_find("x", &vm, err, sizeof err) == -1);
	CHECK(strstr(err, "/machtrace is owned by uid 65534, not by you (uid 0)") != NULL);
	CHECK(access(d, F_OK) == 0);
}

/* A symlink for the root's directory: refused. */
TEST(vm_root_symlink)
{
	char victim[256], err[512], link[1024];
	struct mt_vm vm;

	fresh(victim, sizeof victim);
	snprintf(link, sizeof link, "mkdir -p %s/vm/x && ln -s %s %s/machtrace", victim,
		 victim, base);
	sh(link, "", "");
	CHECK(mt_vm_find("x", &vm, err, sizeof err) == -1);
	CHECK(strstr(err, "/machtrace is a symbolic link") != NULL);
	CHECK(kept(victim));
}

/* disk_dir reached through a link, in our own state: not followed. */
TEST(vm_disk_dir_link)
{
	char victim[256], d[4096], err[512], info[8192];
	struct mt_vm vm;

	fresh(victim, sizeof victim);
	mt_vm_dir("x", d, sizeof d);
	sh("mkdir -p %s%s", d, "");
	snprintf(info, sizeof info, "ln -s %s %s/machtrace-disk-1 && printf 'memory=256\\n"
		 "resv_size=1\\nshm=/dev/shm/none\\ndisk_dir=%s/machtrace-disk-1/.\\n' >%%s/info",
		 victim, base, base);
	sh(info, d, "");
	CHECK(mt_vm_find("x", &vm, err, sizeof err) == -1);
	CHECK(strstr(err, "its QEMU is gone") != NULL);
	CHECK(access(d, F_OK) != 0);
	CHECK(kept(victim));
}

/* The RAM file through a link, or not ours: refused. */
TEST(vm_ram_not_ours)
{
	char victim[256], file[512], err[512];
	struct mt_vm vm;
	size_t size;

	fresh(victim, sizeof victim);
	memset(&vm, 0, sizeof vm);
	strcpy(vm.name, "x");
	vm.mem_mb = 1;
	snprintf(file, sizeof file, "%s/ram", base);
	sh("cd %s && truncate -s 1M ram && ln -s ram link%s", base, "");
	snprintf(vm.shm, sizeof vm.shm, "%s/link", base);
	CHECK(mt_vm_map_ram(&vm, &size, err, sizeof err) == NULL);
	if (getuid() != 0)
		return;
	sh("chown 65534 %s%s", file, "");
	snprintf(vm.shm, sizeof vm.shm, "%s", file);
	CHECK(mt_vm_map_ram(&vm, &size, err, sizeof err) == NULL);
	CHECK(strstr(err, "owner uid 65534): refusing it") != NULL);
}

/* While its start holds the start lock a VM without a QEMU yet is
   "starting", and its state stays. */
TEST(vm_find_while_starting)
{
	char victim[256], d[4096], lock[4096], err[512];
	struct mt_vm vm;
	int p[2], st;
	pid_t child;

	fresh(victim, sizeof victim);
	mt_vm_dir("s", d, sizeof d);
	sh("mkdir -p %s%s", d, "");
	snprintf(lock, sizeof lock, "%s/machtrace/vm/.s.lock", base);
	CHECK(pipe(p) == 0);
	child = fork();
	if (child == 0) {
		int fd = open(lock, O_RDWR | O_CREAT, 0600);
		char c;
		flock(fd, LOCK_EX);
		close(p[0]);
		if (write(p[1], "x", 1) != 1 || read(0, &c, 0) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	{
		char c;
		CHECK(read(p[0], &c, 1) == 1);
	}
	CHECK_EQ_INT(mt_vm_find("s", &vm, err, sizeof err), -2);
	CHECK(access(d, F_OK) == 0);
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	CHECK(mt_vm_find("s", &vm, err, sizeof err) == -1);
	CHECK(access(d, F_OK) != 0);
	CHECK(access(lock, F_OK) != 0);
}

TEST(vm_hostile_cleanup)
{
	sh("rm -rf %s%s", base, "");
}

MT_TEST_MAIN()
