/* The one growable array (common/vec.c): doubling from first, keeping
   the elements, refusing sizes that overflow. */
#include <stdint.h>
#include <stdlib.h>
#include "../mt_test.h"
#include "machtrace/vec.h"

TEST(vec_doubles_from_first)
{
	int *v = NULL;
	size_t n = 0, cap = 0;

	for (int i = 0; i < 1000; i++) {
		CHECK(MT_VEC_ROOM(v, n, cap, 16) == 0);
		CHECK(cap > n);
		v[n++] = i;
	}
	CHECK_EQ_INT(cap, 1024);	/* 16, 32, .. 1024 */
	for (int i = 0; i < 1000; i++)
		CHECK_EQ_INT(v[i], i);
	free(v);
}

TEST(vec_reserve_many)
{
	char *b = NULL;
	size_t cap = 0;

	CHECK(mt_vec_reserve(&b, &cap, 100, 1, 64) == 0);
	CHECK_EQ_INT(cap, 128);
	CHECK(mt_vec_reserve(&b, &cap, 100, 1, 64) == 0);
	CHECK_EQ_INT(cap, 128);
	CHECK(mt_vec_reserve(&b, &cap, 1000, 1, 64) == 0);
	CHECK_EQ_INT(cap, 1024);
	free(b);
}

TEST(vec_overflow_refused)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	CHECK(mt_vec_reserve(&v, &cap, SIZE_MAX / 4, sizeof(*v), 16) == -1);
	CHECK(v == NULL && cap == 0);
	CHECK(mt_vec_reserve(&v, &cap, SIZE_MAX, 1, 16) == -1);
	CHECK(v == NULL && cap == 0);
}
MT_TEST_MAIN()
