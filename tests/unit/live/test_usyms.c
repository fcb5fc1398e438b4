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
	char err[256], buf[256];
	struct usyms *u = usyms_load(MACHLOAD, err, sizeof err);
	unsigned long long pages = nm_addr("do_pages"), rt = nm_addr("do_rt");

	CHECK(u != NULL);
	CHECK(pages != 0 && rt != 0);
	CHECK_EQ_INT(usyms_format(u, pages, buf, sizeof buf), 0);
	CHECK_EQ_STR(buf, "machload`do_pages");
	CHECK_EQ_INT(usyms_format(u, pages + 0x1c, buf, sizeof buf), 0);
	CHECK_EQ_STR(buf, "machload`do_pages+0x1c");
	CHECK_EQ_INT(usyms_format(u, rt + 1, buf, sizeof buf), 0);
	CHECK_EQ_STR(buf, "machload`do_rt+0x1");
	usyms_free(u);
}

TEST(usyms_trap_stubs_and_outside)
{
	char err[256], buf[256];
	struct usyms *u = usyms_load(MACHLOAD, err, sizeof err);
	unsigned long long stub = nm_addr("mach_msg_trap");

	CHECK(u != NULL && stub != 0);
	/* the stub's syscall returns to stub + 10 (mov, mov, syscall) */
	CHECK_EQ_INT(usyms_format(u, stub + 10, buf, sizeof buf), 0);
	CHECK_EQ_STR(buf, "machload`mach_msg_trap+0xa");
	CHECK(usyms_covers(u, stub));
	/* not machload's text: the stack, the kernel, page 0 */
	CHECK(!usyms_covers(u, 0x7fff0000ull));
	CHECK_EQ_INT(usyms_format(u, 0xffffffff81000000ull, buf, sizeof buf), -1);
	CHECK_EQ_INT(usyms_format(u, 0x10, buf, sizeof buf), -1);
	usyms_free(u);
}

/* Data goes by its objects' sizes, as dtrace's user symbols: phases (a
   192-byte table in .rodata, the last symbol there) at an offset, and
   past its end no symbol. */
TEST(usyms_data_objects)
{
	char err[256], buf[256], want[64];
	struct usyms *u = usyms_load(MACHLOAD, err, sizeof err);
	unsigned long long phases = nm_addr("phases");

	CHECK(u != NULL && phases != 0);
	CHECK(usyms_covers(u, phases + 0x10));
	CHECK_EQ_INT(usyms_format(u, phases + 0x10, buf, sizeof buf), 0);
	CHECK_EQ_STR(buf, "machload`phases+0x10");
	CHECK_EQ_INT(usyms_format(u, phases, buf, sizeof buf), 0);
	CHECK_EQ_STR(buf, "machload`phases");
	CHECK_EQ_INT(usyms_format(u, phases + 192, buf, sizeof buf), 0);
	snprintf(want, sizeof want, "machload`0x%llx", phases + 192);
	CHECK_EQ_STR(buf, want);
	usyms_free(u);
}

TEST(usyms_unreadable)
{
	char err[256];

	CHECK(usyms_load("/nonexistent/prog", err, sizeof err) == NULL);
	CHECK(strstr(err, "/nonexistent/prog") != NULL);
}

MT_TEST_MAIN()
