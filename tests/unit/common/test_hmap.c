/* The one hash map (common/hmap.c): find, put, delete, growth. */
#include <stdlib.h>
#include "../mt_test.h"
#include "machtrace/hmap.h"

#define N 5000

static int
eq_int(const void *ctx, uintptr_t val)
{
	return *(const int *)ctx == ((const int *)val)[0];
}

/* A hash with many collisions, so that probing and deletes are exercised. */
static uint64_t
weak_hash(int k)
{
	return (uint64_t)(k % 97);
}

TEST(hmap_hashes)
{
	/* FNV-1a 64 of "a", the published test vector */
	CHECK_EQ_INT(mt_hash_str("a"), (long long)0xaf63dc4c8601ec8cull);
	CHECK_EQ_INT(mt_hash_bytes("ab", 2, MT_HASH_INIT), mt_hash_str("ab"));
	CHECK_EQ_INT(mt_hash_str(""), (long long)MT_HASH_INIT);
	CHECK_EQ_INT(mt_hash_u64(1), 0x9E3779B9ull);
}

TEST(hmap_put_find_del)
{
	static int keys[N];
	struct mt_hmap m = { 0 };

	CHECK(mt_hmap_find(&m, 1, eq_int, &keys[0]) == 0);
	for (int i = 0; i < N; i++) {
		keys[i] = i;
		CHECK(mt_hmap_put(&m, weak_hash(i), (uintptr_t)&keys[i]) == 0);
	}
	CHECK_EQ_INT(m.n, N);
	CHECK(m.nslot >= 2 * N && (m.nslot & (m.nslot - 1)) == 0);
	for (int i = 0; i < N; i++)
		CHECK(mt_hmap_find(&m, weak_hash(i), eq_int, &i) == (uintptr_t)&keys[i]);
	/* delete every third: the rest must still be found */
	for (int i = 0; i < N; i += 3)
		CHECK(mt_hmap_del(&m, weak_hash(i), (uintptr_t)&keys[i]) == 0);
	CHECK(mt_hmap_del(&m, weak_hash(0), (uintptr_t)&keys[0]) == -1);
	for (int i = 0; i < N; i++) {
		uintptr_t v = mt_hmap_find(&m, weak_hash(i), eq_int, &i);

		CHECK(v == (i % 3 ? (uintptr_t)&keys[i] : 0));
	}
	CHECK_EQ_INT(m.n, N - (N + 2) / 3);
	mt_hmap_free(&m);
	CHECK(m.slot == NULL && m.n == 0 && m.nslot == 0);
}

TEST(hmap_reserve_and_order)
{
	struct mt_hmap a = { 0 }, b = { 0 };
	static int keys[300];

	CHECK(mt_hmap_reserve(&a, 256) == 0);
	CHECK_EQ_INT(a.nslot, 256);
	CHECK(mt_hmap_reserve(&a, 1024) == 0);
	CHECK_EQ_INT(a.nslot, 256);
	/* the same puts and deletes give the same slot order */
	for (int pass = 0; pass < 2; pass++) {
		struct mt_hmap *m = pass ? &b : &a;

		for (int i = 0; i < 300; i++) {
			keys[i] = i;
			CHECK(mt_hmap_put(m, mt_hash_u64((uint64_t)i * 7),
					  (uintptr_t)&keys[i]) == 0);
		}
		for (int i = 0; i < 300; i += 5)
			CHECK(mt_hmap_del(m, mt_hash_u64((uint64_t)i * 7),
					  (uintptr_t)&keys[i]) == 0);
	}
	CHECK_EQ_INT(a.nslot, b.nslot);
	for (size_t i = 0; i < a.nslot; i++)
		CHECK(a.slot[i].val == b.slot[i].val);
	mt_hmap_free(&a);
	mt_hmap_free(&b);
}
MT_TEST_MAIN()
