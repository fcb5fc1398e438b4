/* The QEMU command line the launcher builds (no QEMU is started). */
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/mach.h"
#include "targets/mach/qemu/boot_int.h"
#include "tests/unit/mach/stock_kernel.h"
#include "tests/unit/mt_test.h"

static int has_arg(const struct qemu_cmd *c, const char *opt, const char *val)
{
	for (int i = 0; i + 1 < c->argc; i++)
		if (strcmp(c->argv[i], opt) == 0 && (!val || strcmp(c->argv[i + 1], val) == 0))
			return 1;
	return 0;
}

static const char *arg_of(const struct qemu_cmd *c, const char *opt)
{
	for (int i = 0; i + 1 < c->argc; i++)
		if (strcmp(c->argv[i], opt) == 0)
			return c->argv[i + 1];
	return NULL;
}

TEST(qemu_cmd_default_guest)
{
	static struct qemu_cmd c;
	struct mt_boot_opts o = { .workload = "rt=5" };
	char err[512], kernel[PATH_MAX];

	CHECK(mt_qemu_cmd(&o, "/dev/shm/x", &c, err, sizeof err) == 0);
	CHECK_EQ_STR(c.argv[0], "qemu-system-x86_64");
	CHECK(has_arg(&c, "-accel", "tcg"));
	CHECK(has_arg(&c, "-machine", "pc,memory-backend=ram0"));
	CHECK(has_arg(&c, "-object", "memory-backend-file,id=ram0,size=512M,mem-path=/dev/shm/x,share=on"));
	CHECK(!has_arg(&c, "-append", NULL));
	CHECK(c.argv[c.argc] == NULL);
	mt_stock_kernel(kernel, sizeof kernel);
	CHECK(strncmp(arg_of(&c, "-initrd"), kernel, strlen(kernel)) == 0);
	CHECK(strstr(arg_of(&c, "-initrd"), " console=com0,"));
	CHECK(strstr(arg_of(&c, "-initrd"),
		     "/guest/machload ${host-port} ${device-port} rt=5 $(task-create) $(task-resume)"));
}

TEST(qemu_cmd_reserve_and_modules)
{
	static struct qemu_cmd c;
	struct mt_boot_opts o = {
		.modules = { "/bin/sh a,b", "/bin/sh $(task-create) $(task-resume)" },
		.nmodules = 2, .mem_mb = 256,
		.reserve_pa = 0x2000000, .reserve_size = 0x400000, .reserve_fill = 1,
	};
	char err[512];

	CHECK(mt_qemu_cmd(&o, "/dev/shm/y", &c, err, sizeof err) == 0);
	CHECK(has_arg(&c, "-append", "reserve=0x2000000:0x400000 reserve-fill"));
	CHECK(has_arg(&c, "-m", "256"));
	CHECK(strstr(arg_of(&c, "-initrd"), " console=com0,/bin/sh a,,b"));
	CHECK(!strstr(arg_of(&c, "-initrd"), "machload"));
	/* no line resumes a task: the kernel would idle for ever */
	o.nmodules = 1;
	CHECK(mt_qemu_cmd(&o, "/dev/shm/y", &c, err, sizeof err) < 0);
	CHECK(strstr(err, "no boot module would run"));
}

TEST(qemu_cmd_bad_input)
{
	static struct qemu_cmd c;
	struct mt_boot_opts o = { .kernel = "/bin/sh" };
	char err[512];

	CHECK(mt_qemu_cmd(&o, "/dev/shm/z", &c, err, sizeof err) < 0);
	CHECK(strstr(err, "not an x86_64 ELF64 executable"));
	o.kernel = NULL;
	/* the shim keeps 1023 bytes of a module string (its path's basename on) */
	static char longmod[1100];
	memset(longmod, 'x', sizeof longmod - 1);
	memcpy(longmod, "/bin/sh ", 8);
	longmod[1023 + 5] = 0;          /* "sh " + 1020 more: 1023, fits */
	o.modules[0] = longmod;
	o.modules[1] = "/bin/sh $(task-create) $(task-resume)";
	o.nmodules = 2;
	CHECK(mt_qemu_cmd(&o, "/dev/shm/z", &c, err, sizeof err) == 0);
	longmod[1023 + 5] = 'x';
	longmod[1024 + 5] = 0;
	CHECK(mt_qemu_cmd(&o, "/dev/shm/z", &c, err, sizeof err) < 0);
	CHECK(strstr(err, "module string of /bin/sh longer than the boot shim's 1023 bytes"));
	o.modules[0] = "/nonexistent/mod x";
	o.nmodules = 1;
	CHECK(mt_qemu_cmd(&o, "/dev/shm/z", &c, err, sizeof err) < 0);
	CHECK(strstr(err, "module /nonexistent/mod: No such file"));
}

/* --disk: the image is IDE disk 0, raw; snapshot=on only when asked */
TEST(qemu_cmd_disk)
{
	static struct qemu_cmd c;
	struct mt_boot_opts o = { .disk = "/bin/sh" };
	char err[512];

	CHECK(mt_qemu_cmd(&o, "/dev/shm/d", &c, err, sizeof err) == 0);
	CHECK(has_arg(&c, "-drive", "file=/bin/sh,format=raw,if=ide,index=0,media=disk"));
	o.disk_snapshot = 1;
	CHECK(mt_qemu_cmd(&o, "/dev/shm/d", &c, err, sizeof err) == 0);
	CHECK(has_arg(&c, "-drive", "file=/bin/sh,format=raw,if=ide,index=0,media=disk,snapshot=on"));
	o.disk = "/nonexistent/disk.img";
	CHECK(mt_qemu_cmd(&o, "/dev/shm/d", &c, err, sizeof err) < 0);
	CHECK(strstr(err, "disk image /nonexistent/disk.img: No such file"));
	if (symlink("/bin/sh", "/tmp/mt-unit-a,b.img") == 0 || errno == EEXIST) {
		o.disk_snapshot = 0;
		o.disk = "/tmp/mt-unit-a,b.img";
		CHECK(mt_qemu_cmd(&o, "/dev/shm/d", &c, err, sizeof err) == 0);
		unlink("/tmp/mt-unit-a,b.img");
		CHECK(has_arg(&c, "-drive", "file=/tmp/mt-unit-a,,b.img,format=raw,if=ide,"
			      "index=0,media=disk"));
	}
	o.disk = NULL;
	CHECK(mt_qemu_cmd(&o, "/dev/shm/d", &c, err, sizeof err) == 0);
	CHECK(!has_arg(&c, "-drive", NULL));
}

/* QEMU gets only the -icount machtrace uses: rr=record,rrfile=PATH
   would have QEMU create or truncate PATH. */
TEST(qemu_cmd_icount)
{
	static const char *const bad[] = {
		"shift=0,rr=record,rrfile=/tmp/mt-unit-rr", "shift=11", "shift=",
		"shift=0,sleep=off", "shift=auto", "bogus", "shift=-1", "shift=010", NULL
	};
	static struct qemu_cmd c;
	struct mt_boot_opts o = { .workload = "rt=5" };
	char err[512];

	setenv("MACHTRACE_ICOUNT", "shift=0", 1);
	CHECK(mt_qemu_cmd(&o, "/dev/shm/i", &c, err, sizeof err) == 0);
	CHECK(has_arg(&c, "-icount", "shift=0"));
	setenv("MACHTRACE_ICOUNT", "shift=10", 1);
	CHECK(mt_qemu_cmd(&o, "/dev/shm/i", &c, err, sizeof err) == 0);
	CHECK(has_arg(&c, "-icount", "shift=10"));
	for (int i = 0; bad[i]; i++) {
		setenv("MACHTRACE_ICOUNT", bad[i], 1);
		CHECK(mt_qemu_cmd(&o, "/dev/shm/i", &c, err, sizeof err) < 0);
		CHECK(strstr(err, "MACHTRACE_ICOUNT: icount '") && strstr(err, "shift=N, N 0 to 10"));
		CHECK(mt_icount_check(bad[i], err, sizeof err) < 0);
	}
	unsetenv("MACHTRACE_ICOUNT");
	CHECK(mt_qemu_cmd(&o, "/dev/shm/i", &c, err, sizeof err) == 0);
	CHECK(!has_arg(&c, "-icount", NULL));
}

/* --cpus: -smp N (a host thread each unless -icount) when the kernel's
   NCPUS allows it; a uniprocessor kernel with more than one is an error. */
TEST(qemu_cmd_cpus)
{
	static struct qemu_cmd c;
	struct mt_boot_opts o = { .workload = "rt=5" };
	char err[512], smp[PATH_MAX];

	CHECK(mt_qemu_cmd(&o, "/dev/shm/c", &c, err, sizeof err) == 0);
	CHECK(!has_arg(&c, "-smp", NULL) && has_arg(&c, "-accel", "tcg"));
	o.cpus = 2;
	CHECK(mt_qemu_cmd(&o, "/dev/shm/c", &c, err, sizeof err) < 0);
	CHECK(strstr(err, "--cpus 2: ") && strstr(err, "is a uniprocessor GNU Mach (built for 1 CPU)"));
	if (!(o.kernel = smp_kernel(smp, sizeof smp, "qemu_cmd_cpus on an SMP kernel")))
		return;
	CHECK(mt_qemu_cmd(&o, "/dev/shm/c", &c, err, sizeof err) == 0);
	CHECK(has_arg(&c, "-smp", "2") && has_arg(&c, "-accel", "tcg,thread=multi"));
	setenv("MACHTRACE_ICOUNT", "shift=0", 1);
	CHECK(mt_qemu_cmd(&o, "/dev/shm/c", &c, err, sizeof err) == 0);
	unsetenv("MACHTRACE_ICOUNT");
	CHECK(has_arg(&c, "-smp", "2") && has_arg(&c, "-accel", "tcg"));
	o.cpus = 9;
	CHECK(mt_qemu_cmd(&o, "/dev/shm/c", &c, err, sizeof err) < 0);
	CHECK(strstr(err, "--cpus 9: ") && strstr(err, "is built for at most 8 CPUs"));
}

MT_TEST_MAIN()
