/* The runtime's numbers for kernel objects (pid/tid on GNU Mach). */
#include "../mt_test.h"
#include "runtime/idtab.h"

static struct mt_ident store[64];

TEST(idtab_stable_numbers)
{
	struct mt_idtab t;

	mt_idtab_init(&t, store, 64, 1);
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff0000a000ull, 5), 1);
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff0000b000ull, 6), 2);
	/* the same object: the same number, whatever the order */
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff0000a000ull, 5), 1);
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff0000b000ull, 6), 2);
	CHECK_EQ_INT(t.n, 2);
	/* no object */
	CHECK_EQ_INT(mt_idtab_id(&t, 0, 0), -1);
}

TEST(idtab_reused_address)
{
	struct mt_idtab t;

	mt_idtab_init(&t, store, 64, 1);
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff0000a000ull, 5), 1);
	/* freed, and a new object at the same address: a new number, and
	   no slot is lost */
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff0000a000ull, 9), 2);
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff0000a000ull, 9), 2);
	CHECK_EQ_INT(t.n, 1);
}

TEST(idtab_forced_number)
{
	struct mt_idtab t;
	int isnew = 0;

	mt_idtab_init(&t, store, 64, 1);
	CHECK(mt_idtab_enter(&t, 0xffff00001000ull, 0, 0, &isnew) != NULL);
	CHECK_EQ_INT(isnew, 1);
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff00001000ull, 0), 0);
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff00002000ull, 3), 1);
	mt_idtab_enter(&t, 0xffff00001000ull, 0, -1, &isnew);
	CHECK_EQ_INT(isnew, 0);
}

TEST(idtab_full)
{
	struct mt_idtab t;
	int64_t i, last = 0;

	mt_idtab_init(&t, store, 64, 1);
	/* 7/8 of 64: 56 objects get numbers 1..56 */
	for (i = 0; i < 56; i++) {
		last = mt_idtab_id(&t, 0xffff000000000000ull + 0x1000 * (i + 1), 1);
		CHECK_EQ_INT(last, i + 1);
	}
	/* beyond: the address (unique, never small), known ones unchanged */
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff00000f000000ull, 1),
		     (int64_t)0xffff00000f000000ull);
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff000000001000ull, 1), 1);
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff000000038000ull, 1), 56);
	CHECK_EQ_INT(t.n, 56);
}

TEST(idtab_forget)
{
	struct mt_idtab t;
	int64_t i;

	mt_idtab_init(&t, store, 64, 1);
	for (i = 0; i < 40; i++)
		mt_idtab_id(&t, 0xffff000000000000ull + 0x40 * (i + 1), 7);
	/* a destroyed object's address comes back, same stamp: new number */
	mt_idtab_forget(&t, 0xffff000000000000ull + 0x40 * 5);
	CHECK_EQ_INT(t.n, 39);
	CHECK_EQ_INT(mt_idtab_id(&t, 0xffff000000000000ull + 0x40 * 5, 7), 41);
	/* every other object is still found with its number */
	for (i = 0; i < 40; i++)
		if (i != 4)
			CHECK_EQ_INT(mt_idtab_id(&t, 0xffff000000000000ull +
						 0x40 * (i + 1), 7), i + 1);
	CHECK_EQ_INT(t.n, 40);
	mt_idtab_forget(&t, 0xffff0000deadbe00ull);	/* unknown: nothing */
	CHECK_EQ_INT(t.n, 40);
}

TEST(idtab_find)
{
	struct mt_idtab t;

	mt_idtab_init(&t, store, 64, 1);
	mt_idtab_id(&t, 0xffff000000000040ull, 3);
	mt_idtab_id(&t, 0xffff000000000080ull, 3);
	/* found whatever its stamp, nothing created for an unknown address */
	CHECK(mt_idtab_find(&t, 0xffff000000000080ull) != NULL);
	CHECK_EQ_INT(mt_idtab_find(&t, 0xffff000000000080ull)->id, 2);
	CHECK(mt_idtab_find(&t, 0xffff0000000000c0ull) == NULL);
	CHECK(mt_idtab_find(&t, 0) == NULL);
	CHECK_EQ_INT(t.n, 2);
	mt_idtab_forget(&t, 0xffff000000000040ull);
	CHECK(mt_idtab_find(&t, 0xffff000000000040ull) == NULL);
}

MT_TEST_MAIN()
