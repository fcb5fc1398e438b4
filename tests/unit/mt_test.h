/*
 * A small unit-test harness: each TEST(name) is a function; mt_test_main()
 * runs them and prints "PASS name" or "FAIL name: file:line: expr" per
 * test, exiting non-zero when any failed.  tests/run-all.sh counts the lines.
 */
#ifndef MT_TEST_H
#define MT_TEST_H

#include <stdio.h>
#include <string.h>

struct mt_test {
	const char *name;
	void (*fn)(void);
	struct mt_test *next;
};

extern struct mt_test *mt_tests_head;
extern int mt_test_failed_now;

#define TEST(name)							\
	static void test_##name(void);					\
	static struct mt_test mt_test_rec_##name = { #name, test_##name, 0 }; \
	__attribute__((constructor)) static void mt_test_reg_##name(void) \
	{ struct mt_test **p = &mt_tests_head;				\
	  while (*p)							\
		p = &(*p)->next;					\
	  *p = &mt_test_rec_##name; }					\
	static void test_##name(void)

#define CHECK(expr) do {						\
	if (!(expr)) {							\
		printf("FAIL %s: %s:%d: %s\n", mt_test_current,		\
		       __FILE__, __LINE__, #expr);			\
		mt_test_failed_now = 1;					\
		return;							\
	} } while (0)

#define CHECK_EQ_INT(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		printf("FAIL %s: %s:%d: %s == %lld, expected %lld\n",	\
		       mt_test_current, __FILE__, __LINE__, #a, _a, _b); \
		mt_test_failed_now = 1;					\
		return;							\
	} } while (0)

#define CHECK_EQ_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (!_a || !_b || strcmp(_a, _b) != 0) {			\
		printf("FAIL %s: %s:%d: %s == \"%s\", expected \"%s\"\n", \
		       mt_test_current, __FILE__, __LINE__, #a,		\
		       _a ? _a : "(null)", _b ? _b : "(null)");		\
		mt_test_failed_now = 1;					\
		return;							\
	} } while (0)

extern const char *mt_test_current;

#define MT_TEST_MAIN()							\
	struct mt_test *mt_tests_head;					\
	int mt_test_failed_now;						\
	const char *mt_test_current;					\
	int main(void)							\
	{								\
		int failed = 0;						\
		for (struct mt_test *t = mt_tests_head; t; t = t->next) { \
			mt_test_current = t->name;			\
			mt_test_failed_now = 0;				\
			t->fn();					\
			if (mt_test_failed_now)				\
				failed++;				\
			else						\
				printf("PASS %s\n", t->name);		\
		}							\
		return failed != 0;					\
	}

#endif /* MT_TEST_H */
