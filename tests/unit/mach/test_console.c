/* Console classification and -initrd quoting of the GNU Mach target. */
#include <stdlib.h>
#include <string.h>

#include "machtrace/lkabi.h"
#include "machtrace/mach.h"
#include "targets/mach/mach_int.h"
#include "tests/unit/mt_test.h"

TEST(console_classify)
{
	char l1[] = "\rpanic ../kern/bootstrap.c:812: user_bootstrap: Cannot load\r";
	char l2[] = "Kernel Breakpoint trap, eip 0xffffffff81014dd6, code 0";

	CHECK_EQ_INT(mt_console_classify(mt_console_clean(l1)), MT_CON_PANIC);
	CHECK_EQ_STR(l1, "panic ../kern/bootstrap.c:812: user_bootstrap: Cannot load");
	CHECK_EQ_INT(mt_console_classify(l2), MT_CON_TRAP);
	CHECK_EQ_INT(mt_console_classify("Debugger invoked: Debugger"), MT_CON_DEBUGGER);
	CHECK_EQ_INT(mt_console_classify("db> "), MT_CON_PROMPT);
	CHECK_EQ_INT(mt_console_classify("machload: start"), MT_CON_PLAIN);
	CHECK_EQ_INT(mt_console_classify("shim: error: no kernel module"), MT_CON_SHIM_ERROR);
	CHECK_EQ_INT(mt_console_classify("db>x"), MT_CON_PLAIN);
}

/* An SMP kernel's assertion ("{cpu0}" first, "Debugger invoked" on the
   same line) and its prompt "db{0}> ". */
TEST(console_classify_smp)
{
	CHECK_EQ_INT(mt_console_classify("{cpu0} ../i386/i386at/biosmem.c:1005: "
		"biosmem_free_usable_range: Assertion `page != NULL' failed.Debugger "
		"invoked: assertion failure"), MT_CON_DEBUGGER);
	CHECK_EQ_INT(mt_console_classify("panic {cpu1} ../kern/sched_prim.c:1: x"), MT_CON_PANIC);
	CHECK_EQ_INT(mt_console_classify("db{0}> "), MT_CON_PROMPT);
	CHECK_EQ_INT(mt_console_classify("{cpu0} hello"), MT_CON_PLAIN);
}

/* The kernel's message buffer in guest RAM: KDB's prompt at its end gives
   the assertion; without the prompt, or out of RAM, nothing. */
TEST(kmsg_stop)
{
	static uint8_t ram[0x3000];
	static const char text[] = "GNU Mach 1.8\nvm_page: DMA: pages: 4079\n{cpu0} "
		"../i386/i386at/biosmem.c:1005: biosmem_free_usable_range: Assertion "
		"`page != NULL' failed.Debugger invoked: assertion failure\nKernel "
		"Breakpoint trap, eip 0xffffffff81053316\n>>>>> user space <<<<<\ndb{0}> ";
	uint64_t va = LK_KERNEL_MAP_BASE + 0x1000;
	char why[256];

	memcpy(ram + 0x1000, text, sizeof text);
	CHECK(mt_kmsg_stop(ram, sizeof ram, va, 0x1000, why, sizeof why) == 1);
	CHECK(strstr(why, "biosmem_free_usable_range: Assertion `page != NULL' failed.") != NULL);
	CHECK(mt_kmsg_stop(ram, sizeof ram, va, 0x3000, why, sizeof why) == 0);
	CHECK(mt_kmsg_stop(ram, sizeof ram, va, 0, why, sizeof why) == 0);
	ram[0x1000 + sizeof text - 8] = 0;	/* no prompt yet */
	CHECK(mt_kmsg_stop(ram, sizeof ram, va, 0x1000, why, sizeof why) == 0);
}

TEST(initrd_quoting)
{
	char buf[128] = "", small[12] = "", path[64];

	CHECK(mt_initrd_append(buf, sizeof buf, "k console=com0", 1) == 0);
	CHECK(mt_initrd_append(buf, sizeof buf, "m a,b ${host-port}", 0) == 0);
	CHECK_EQ_STR(buf, "k console=com0,m a,,b ${host-port}");
	CHECK(mt_initrd_append(small, sizeof small, "0123456789abc", 1) < 0);
	CHECK(mt_module_path("/x/machload 1 2", path, sizeof path) == 0);
	CHECK_EQ_STR(path, "/x/machload");
	CHECK(mt_module_path(" x", path, sizeof path) < 0);
}

MT_TEST_MAIN()
