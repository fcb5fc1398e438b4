/*
 * Scopes (compiler/ident.c) find a name at a cost that does not grow with
 * the scope (issue 22 item 16: 40,000 globals took 13.7 s to compile, each
 * lookup walking every name).  The work of a lookup is the identifiers
 * its hash chain makes it compare; summed over every name of a scope of
 * 60,000 it stays a small multiple of 60,000.
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

/* Identifiers lookup(name) compares before it finds id. */
static unsigned long
work(struct scope *s, struct ident *id)
{
	unsigned long n = 1;

	for (struct ident *i = s->buckets[cc_hash_str(id->name) % s->nbuckets];
	     i != id; i = i->hnext)
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
	arena_free();
}
MT_TEST_MAIN()
