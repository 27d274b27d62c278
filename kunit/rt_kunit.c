// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit front end of the resync throttle scenarios: the cases of
 * tests/unit/rt_scenarios.h (one copy, also run in user space by
 * tests/unit/rt_scenarios.c) as the KUnit suite "md_resync_throttle",
 * built only against the debug kernel (tests/check-debug.sh) and loaded in
 * the guest by tests/vm/tests/t01-kunit.sh.  resync_throttle.c is a pure
 * function of its inputs and builds here with its normal kernel seam.
 *
 * The environment the scenarios ask for: notes go to the test log, memory
 * is kvmalloc'ed (the latency arrays reach megabytes), sorting is the
 * kernel's sort(), and giving up is a failed KUnit assertion, which ends
 * the case.  A scenario's failed expectations are counted in test_bad and
 * turned into one KUnit failure per case.  Cases run one at a time in the
 * suite's thread, so rt_kunit_test needs no lock.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "resync_throttle.c"

/* the running case: set and cleared around each case (test thread only) */
static struct kunit *rt_kunit_test;

#define RT_NOTE(fmt, ...)	kunit_info(rt_kunit_test, fmt, ##__VA_ARGS__)
#define rt_alloc(size)		kvmalloc((size), GFP_KERNEL)
#define rt_free(p)		kvfree(p)
#define rt_realloc(p, old, new)	kvrealloc((p), (old), (new), GFP_KERNEL)
#define rt_sort(b, n, s, cmp)	sort((b), (n), (s), (cmp), NULL)
#define rt_abort()	KUNIT_ASSERT_FAILURE(rt_kunit_test, "simulation gave up")
/* a case takes minutes on the debug kernel under TCG: no soft lockup */
#define rt_yield()	cond_resched()

#include "tests/unit/rt_scenarios.h"

static void rt_kunit_run(struct kunit *test, void (*fn)(void))
{
	rt_kunit_test = test;
	test_bad = 0;
	fn();
	KUNIT_EXPECT_EQ_MSG(test, test_bad, 0,
			    "%d expectation(s) failed, see the notes above",
			    test_bad);
	rt_kunit_test = NULL;
}

#define RT_KUNIT_FN(name, fn)						\
static void rt_kunit_##name(struct kunit *test)				\
{									\
	rt_kunit_run(test, fn);						\
}

RT_SCENARIOS(RT_KUNIT_FN)

/* named as in the user-space front end */
#define RT_KUNIT_CASE(id, fn)	{ .run_case = rt_kunit_##id, .name = #id },
static struct kunit_case rt_kunit_cases[] = {
	RT_SCENARIOS(RT_KUNIT_CASE)
	{}
};

/* the latency arrays live across cases; freed once the suite is done */
static void rt_kunit_suite_exit(struct kunit_suite *suite)
{
	rt_scenarios_cleanup();
}

static struct kunit_suite rt_kunit_suite = {
	.name = "md_resync_throttle",
	.suite_exit = rt_kunit_suite_exit,
	.test_cases = rt_kunit_cases,
};

kunit_test_suite(rt_kunit_suite);

MODULE_DESCRIPTION("KUnit: resync throttle scenarios of the md stack");
MODULE_LICENSE("GPL");
