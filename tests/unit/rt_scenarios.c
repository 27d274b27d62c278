// SPDX-License-Identifier: GPL-2.0
/*
 * User-space front end of the resync throttle scenarios
 * (tests/unit/rt_scenarios.h; kunit/rt_kunit.c runs the same cases as a
 * KUnit suite in the debug kernel).  Prints KTAP, exits non-zero if a
 * scenario failed.  An argument runs only the cases whose name contains
 * it (the others are reported as skipped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resync_throttle.c"

#define RT_NOTE(fmt, ...)	printf("    # " fmt "\n", ##__VA_ARGS__)
#define rt_alloc(size)		malloc(size)
#define rt_free(p)		free(p)
#define rt_realloc(p, old, new)	realloc((p), (new))
#define rt_sort(b, n, s, cmp)	qsort((b), (n), (s), (cmp))
#define rt_abort()		abort()
#define rt_yield()		do { } while (0)

#include "rt_scenarios.h"

struct rt_case {
	const char *name;
	void (*fn)(void);
};

#define RT_CASE(name, fn) { #name, fn },
static const struct rt_case cases[] = {
	RT_SCENARIOS(RT_CASE)
};

int main(int argc, char **argv)
{
	unsigned int i, n = sizeof(cases) / sizeof(cases[0]), failed = 0;

	printf("KTAP version 1\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		if (argc > 1 && !strstr(cases[i].name, argv[1])) {
			printf("ok %u %s # SKIP not selected\n", i + 1,
			       cases[i].name);
			continue;
		}
		test_bad = 0;
		cases[i].fn();
		printf("%sok %u %s\n", test_bad ? "not " : "", i + 1,
		       cases[i].name);
		failed += !!test_bad;
	}
	rt_scenarios_cleanup();
	printf("# rt_scenarios: %u/%u passed\n", n - failed, n);
	return failed ? 1 : 0;
}
