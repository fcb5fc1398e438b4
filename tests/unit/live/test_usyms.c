/*
 * The live target's user symboliser (targets/mach/live/usyms.c) against
 * build/guest/machload: names from its .symtab as dtrace prints user
 * frames, the assembly trap stubs (untyped, unsized labels), and pcs
 * outside the program.  Addresses come from nm(1), not from the code
 * under test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../mt_test.h"
#include "targets/mach/live/live_int.h"

#define MACHLOAD "build/guest/machload"

static unsigned long long nm_addr(const char *sym)
{
	char cmd[256], line[256], name[128], type;
	unsigned long long a, found = 0;
	FILE *p;

	snprintf(cmd, sizeof cmd, "nm %s", MACHLOAD);
	if (!(p = popen(cmd, "r")))
		return 0;
	while (fgets(line, sizeof line, p))
		if (sscanf(line, "%llx %c %127s", &a, &type, name) == 3 &&
		    strcmp(name, sym) == 0)
			found = a;
	pclose(p);
	return found;
}

TEST(usyms_machload_functions)
{
	char err[256];
	struct usyms *u = usyms_load(MACHLOAD, err, sizeof err);
	unsigned long long pages = nm_addr("do_pages"), rt = nm_addr("do_rt");
	const char *mod, *func;
	uint64_t off;

	CHECK(u != NULL);
	CHECK(pages != 0 && rt != 0);
	CHECK_EQ_INT(usyms_lookup(u, pages, &mod, &func, &off), 0);
	CHECK_EQ_STR(mod, "machload");
	CHECK_EQ_STR(func, "do_pages");
	CHECK_EQ_INT(off, 0);
	CHECK_EQ_INT(usyms_lookup(u, pages + 0x1c, &mod, &func, &off), 0);
	CHECK_EQ_STR(func, "do_pages");
	CHECK_EQ_INT(off, 0x1c);
	CHECK_EQ_INT(usyms_lookup(u, rt + 1, &mod, &func, &off), 0);
	CHECK_EQ_STR(func, "do_rt");
	CHECK_EQ_INT(off, 1);
	usyms_free(u);
}

TEST(usyms_trap_stubs_and_outside)
{
	char err[256];
	struct usyms *u = usyms_load(MACHLOAD, err, sizeof err);
	unsigned long long stub = nm_addr("mach_msg_trap");
	const char *mod, *func;
	uint64_t off;

	CHECK(u != NULL && stub != 0);
	/* the stub's syscall returns to stub + 10 (mov, mov, syscall) */
	CHECK_EQ_INT(usyms_lookup(u, stub + 10, &mod, &func, &off), 0);
	CHECK_EQ_STR(func, "mach_msg_trap");
	CHECK_EQ_INT(off, 10);
	CHECK(usyms_covers(u, stub));
	/* not machload's text: the stack, the kernel, page 0 */
	CHECK(!usyms_covers(u, 0x7fff0000ull));
	CHECK_EQ_INT(usyms_lookup(u, 0xffffffff81000000ull, &mod, &func, &off), -1);
	CHECK_EQ_INT(usyms_lookup(u, 0x10, &mod, &func, &off), -1);
	usyms_free(u);
}

TEST(usyms_unreadable)
{
	char err[256];

	CHECK(usyms_load("/nonexistent/prog", err, sizeof err) == NULL);
	CHECK(strstr(err, "/nonexistent/prog") != NULL);
}

MT_TEST_MAIN()
