/* Console classification and -initrd quoting of the GNU Mach target. */
#include <stdlib.h>

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
