/*
 * lk_pc_in_patch and lk_tick_unsafe (runtime/kernel/kern.h): the pcs at
 * which the attach tick must not patch.  Only the bytes strictly inside a site's write
 * are unsafe: its first byte and the original bytes after the write are
 * instruction boundaries.
 */
#include <stdint.h>
#include "../mt_test.h"

#include "runtime/kernel/kern.h"

/* a 5-byte jmp, a 1-byte int3, two jmps back to back, sorted by addr */
static const struct lk_site sites[4] = {
	{ .addr = 0x1000, .plen = 5, .len = 7 },
	{ .addr = 0x1007, .plen = 1, .len = 1 },
	{ .addr = 0x2000, .plen = 5, .len = 5 },
	{ .addr = 0x2005, .plen = 5, .len = 6 },
};

TEST(inside_a_write_is_unsafe)
{
	static const uint64_t bad[] = { 0x1001, 0x1002, 0x1004, 0x2001, 0x2004,
					0x2006, 0x2009 };

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK_EQ_INT(lk_pc_in_patch(sites, 4, bad[i]), 1);
	CHECK_EQ_INT(lk_pc_in_patch(sites + 2, 1, 0x2003), 1);
}

TEST(boundaries_are_safe)
{
	static const uint64_t ok[] = { 0, 0xfff, 0x1000, 0x1005, 0x1006, 0x1007,
				       0x1008, 0x2000, 0x2005, 0x200a, 0x200b, ~0ull };

	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
		CHECK_EQ_INT(lk_pc_in_patch(sites, 4, ok[i]), 0);
	CHECK_EQ_INT(lk_pc_in_patch(sites, 0, 0x1001), 0);
}

TEST(tick_policy)
{
	/* user mode: no kernel pc to resume at; pc 0: a nested interrupt */
	CHECK_EQ_INT(lk_tick_unsafe(sites, 4, 1, 0x1002), 0);
	CHECK_EQ_INT(lk_tick_unsafe(sites, 4, 0, 0), 1);
	CHECK_EQ_INT(lk_tick_unsafe(sites, 4, 0, 0x1002), 1);
	CHECK_EQ_INT(lk_tick_unsafe(sites, 4, 0, 0x1005), 0);
}

MT_TEST_MAIN()
