// SPDX-License-Identifier: GPL-2.0
/*
 * User-space front end of the writes_pending scenarios
 * (tests/unit/wp_scenarios.h; kunit/wp_kunit.c runs the same cases as a
 * KUnit suite).  Prints KTAP, exits non-zero if a check failed.
 */
#include "writes_pending.c"

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: check failed: %s\n",			\
		       __FILE__, __LINE__, #cond);			\
		failures++;						\
	}								\
} while (0)

#include "wp_scenarios.h"

struct wp_case {
	const char *name;
	void (*fn)(struct writes_pending *wp);
};

#define WP_CASE(name, fn) { #name, fn },
static const struct wp_case cases[] = {
	WP_SCENARIOS(WP_CASE)
};

int main(void)
{
	unsigned int i, n = sizeof(cases) / sizeof(cases[0]);
	int bad = 0;

	printf("KTAP version 1\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		struct writes_pending wp;

		failures = 0;
		if (wp_init(&wp)) {
			printf("not ok %u %s # wp_init\n", i + 1, cases[i].name);
			bad++;
			continue;
		}
		cases[i].fn(&wp);
		wp_scenario_after(&wp);
		wp_exit(&wp);
		printf("%sok %u %s\n", failures ? "not " : "", i + 1,
		       cases[i].name);
		bad += !!failures;
	}
	return bad ? 1 : 0;
}
