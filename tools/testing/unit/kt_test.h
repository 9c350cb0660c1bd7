/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A very small TAP unit-test harness for the userspace tests of
 * drivers/target/proto. Each test is a function; a failed expectation marks
 * the test "not ok" and is reported with file and line, the test goes on.
 */
#ifndef KT_TEST_H
#define KT_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kt_test {
	const char *name;
	void (*fn)(void);
};

#define KT_TEST_ENTRY(fn)	{ #fn, fn }

extern int kt_test_failed;

#define KT_EXPECT(cond) \
	do { \
		if (!(cond)) { \
			printf("#   %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
			kt_test_failed = 1; \
		} \
	} while (0)

#define KT_EXPECT_EQ(a, b) \
	do { \
		unsigned long long _a = (a), _b = (b); \
		if (_a != _b) { \
			printf("#   %s:%d: %s == %llu, expected %s == %llu\n", \
			       __FILE__, __LINE__, #a, _a, #b, _b); \
			kt_test_failed = 1; \
		} \
	} while (0)

#define KT_TEST_MAIN(tests) \
	int kt_test_failed; \
	int main(void) \
	{ \
		size_t i, n = sizeof(tests) / sizeof(tests[0]); \
		int bad = 0; \
		printf("1..%zu\n", n); \
		for (i = 0; i < n; i++) { \
			kt_test_failed = 0; \
			tests[i].fn(); \
			bad |= kt_test_failed; \
			printf("%sok %zu - %s\n", kt_test_failed ? "not " : "", \
			       i + 1, tests[i].name); \
		} \
		return bad; \
	}

#endif
