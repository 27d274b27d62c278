// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit front end of the writes_pending scenarios: the cases of
 * tests/unit/wp_scenarios.h (one copy, also run in user space by
 * tests/unit/wp_basic.c) as the KUnit suite "md_writes_pending", built
 * only against the debug kernel (tests/check-debug.sh) and loaded in the
 * guest by tests/vm/tests/t01-kunit.sh.  writes_pending.c is compiled
 * into this module with the simulated-CPU seam of kunit/wp_seam.h; md-mod
 * is neither needed nor touched.
 *
 * Each case gets a fresh counter from the suite's init and gives it back
 * in exit.  A KUnit suite runs its cases one after the other in one
 * thread, so the current test and counter are plain statics.
 */
#include <kunit/test.h>

#define WP_SEAM_KUNIT
#include "writes_pending.c"

/* the running case: set by init, cleared by exit (test thread only) */
static struct kunit *wp_kunit_test;

#define CHECK(cond)	KUNIT_EXPECT_TRUE(wp_kunit_test, cond)

#include "tests/unit/wp_scenarios.h"

static int wp_kunit_init(struct kunit *test)
{
	struct writes_pending *wp;

	wp = kunit_kzalloc(test, sizeof(*wp), GFP_KERNEL);
	if (!wp || wp_init(wp))
		return -ENOMEM;
	wp_kunit_test = test;
	wp_user_set_cpu(0);
	wp_user_walk_hook = NULL;
	test->priv = wp;
	return 0;
}

static void wp_kunit_exit(struct kunit *test)
{
	struct writes_pending *wp = test->priv;

	wp_scenario_after(wp);
	wp_exit(wp);
	wp_kunit_test = NULL;
}

#define WP_KUNIT_FN(name, fn)						\
static void wp_kunit_##name(struct kunit *test)				\
{									\
	fn(test->priv);							\
}

WP_SCENARIOS(WP_KUNIT_FN)

/* named as in the user-space front end */
#define WP_KUNIT_CASE(id, fn)	{ .run_case = wp_kunit_##id, .name = #id },
static struct kunit_case wp_kunit_cases[] = {
	WP_SCENARIOS(WP_KUNIT_CASE)
	{}
};

static struct kunit_suite wp_kunit_suite = {
	.name = "md_writes_pending",
	.init = wp_kunit_init,
	.exit = wp_kunit_exit,
	.test_cases = wp_kunit_cases,
};

kunit_test_suite(wp_kunit_suite);

MODULE_DESCRIPTION("KUnit: writes_pending scenarios of the md stack");
MODULE_LICENSE("GPL");
