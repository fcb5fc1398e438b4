/*
 * Scopes (compiler/ident.c) find a name at a cost that does not grow with
 * the scope (issue 22 item 16: 40,000 globals took 13.7 s to compile, each
 * lookup walking every name).  The work of a lookup is the slots its
 * hash map probes; summed over every name of a scope of 60,000 it stays
 * a small multiple of 60,000.
 */
#include <stdio.h>
#include <stdlib.h>
#include "../mt_test.h"
#include "compiler/cc.h"

#define N 60000

static struct cc cc;

/* The arena's blocks, each starting with the next one's address. */
static void
arena_free(void)
{
	while (cc.arena) {
		void *next = *(void **)cc.arena;

		free(cc.arena);
		cc.arena = next;
	}
}

/* Slots lookup(name) probes before it finds id (hmap.h: linear probing
   from the hash's slot). */
static unsigned long
work(struct scope *s, struct ident *id)
{
	size_t mask = s->map.nslot - 1, i = mt_hash_str(id->name) & mask;
	unsigned long n = 1;

	for (; s->map.slot[i].val != (uintptr_t)id; i = (i + 1) & mask)
		n++;
	return n;
}

TEST(scope_lookup_work_linear)
{
	static struct ident *ids[N];
	struct scope s = { 0 };
	unsigned long total = 0;
	char name[16];

	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "g%d", i);
		ids[i] = id_add(&cc, &s, name, ID_VAR);
	}
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "g%d", i);
		CHECK(id_lookup(&s, name) == ids[i]);
		total += work(&s, ids[i]);
	}
	CHECK(total < 3UL * N);
	mt_hmap_free(&s.map);
	arena_free();
}

TEST(scope_shadow_and_remove)
{
	struct scope s = { 0 };
	struct ident *a, *b;

	a = id_add(&cc, &s, "x", ID_VAR);
	for (int i = 0; i < 1000; i++) {	/* through several rehashes */
		char name[16];

		snprintf(name, sizeof name, "y%d", i);
		id_add(&cc, &s, name, ID_VAR);
	}
	b = id_add(&cc, &s, "x", ID_VAR);
	CHECK(id_lookup(&s, "x") == b);
	id_remove(&s, b);
	CHECK(id_lookup(&s, "x") == a);
	id_remove(&s, a);
	CHECK(id_lookup(&s, "x") == NULL);
	CHECK(id_lookup(&s, "y999") != NULL);
	/* an older one taken out from under a newer one */
	a = id_add(&cc, &s, "z", ID_VAR);
	b = id_add(&cc, &s, "z", ID_VAR);
	CHECK(id_add(&cc, &s, "z", ID_VAR) != b);
	id_remove(&s, b);
	id_remove(&s, id_lookup(&s, "z"));
	CHECK(id_lookup(&s, "z") == a);
	mt_hmap_free(&s.map);
	arena_free();
}
MT_TEST_MAIN()
