/* Console classification, -initrd quoting and probe listing of the GNU Mach target. */
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

static int list(const char *desc, int verbose, char **text)
{
	char err[256];
	size_t len;
	FILE *f = open_memstream(text, &len);
	const char *d[1] = { desc };
	int n = mt_mach_list(NULL, d, desc ? 1 : 0, verbose, 4, f, err, sizeof err);

	fclose(f);
	return n;
}

TEST(list_filters_like_dtrace)
{
	char *t = NULL;

	CHECK_EQ_INT(list("fbt::vm_fault:entry", 0, &t), 1);
	CHECK(strstr(t, "        fbt           gnumach                          vm_fault entry\n"));
	free(t);
	CHECK_EQ_INT(list("vm_fault", 0, &t), 0);       /* one field = probe name */
	free(t);
	CHECK_EQ_INT(list("vm_fault:", 0, &t), 2);      /* func:name */
	free(t);
	CHECK(list("fbt::vm_*:entry", 0, &t) > 20);
	free(t);
	CHECK(list("a:b:c:d:e", 0, &t) < 0);
	free(t);
}

TEST(list_counts_and_verbose)
{
	char *t = NULL;

	CHECK(list("fbt:::entry", 0, &t) >= 1500);
	CHECK(strstr(t, " thread_invoke entry\n") && strstr(t, " mach_msg_trap entry\n"));
	free(t);
	CHECK_EQ_INT(list("fbt::mach_msg_trap:", 1, &t), 2);
	CHECK(strstr(t, "\tArgument Types\n\t\targs[0]: mach_msg_user_header_t *\n"));
	CHECK(strstr(t, "\t\targs[1]: mach_msg_return_t\n"));
	free(t);
}

MT_TEST_MAIN()
