/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The deterministic writes_pending scenarios, shared by two front ends:
 * tests/unit/wp_basic.c (user space, tests/unit/seam/wp_user.h) and
 * kunit/wp_kunit.c (a KUnit suite in the debug kernel, kunit/wp_seam.h).
 * There is one copy of the cases; each front end only says how a failed
 * check is reported and how the cases are run.
 *
 * Single-threaded sequences, plus actions injected between the steps of
 * a wp_try_close() pass through the per-CPU slots (the seam's walk hook),
 * which is where the summation races live.  Both seams simulate
 * WP_NR_CPUS CPUs: the test picks the CPU a call runs on with
 * wp_user_set_cpu(), and the walk hook runs before each slot is read.
 *
 * Before including this file a front end includes writes_pending.c and
 * defines CHECK(cond): record a failure of @cond and carry on.
 * WP_SCENARIOS(X) lists the cases as X(name, function).
 */
#ifndef _MD_WP_SCENARIOS_H
#define _MD_WP_SCENARIOS_H

static unsigned long slot(struct writes_pending *wp, int cpu)
{
	return READ_ONCE(*per_cpu_ptr(wp->slots, cpu));
}

static void test_open_close(struct writes_pending *wp)
{
	struct wp_stats st;

	CHECK(!wp_is_closed(wp));
	CHECK(wp_read(wp) == 0);
	CHECK(wp_start(wp));
	CHECK(wp_read(wp) == 1);
	CHECK(!wp_try_close(wp));	/* a write is in flight */
	CHECK(!wp_is_closed(wp));
	CHECK(wp_end(wp));
	CHECK(wp_try_close(wp));
	CHECK(wp_is_closed(wp));
	CHECK(wp_try_close(wp));	/* closing a closed counter: true */
	CHECK(!wp_start(wp));		/* closed: refused, no count left */
	CHECK(wp_read(wp) == 0);
	wp_open(wp);
	wp_open(wp);			/* no-op when open */
	CHECK(!wp_is_closed(wp));
	CHECK(wp_start(wp));
	CHECK(wp_end(wp));
	wp_get_stats(wp, &st);
	CHECK(st.closes == 1);
	CHECK(st.close_fails == 1);
	CHECK(st.opens == 1);
	CHECK(st.check_ns_total >= st.check_ns_max);
}

/* Writes ending on other CPUs leave slots that only add up as a whole. */
static void test_cross_cpu(struct writes_pending *wp)
{
	int i;

	wp_user_set_cpu(0);
	for (i = 0; i < 1000; i++)
		CHECK(wp_start(wp));
	wp_user_set_cpu(3);
	for (i = 0; i < 999; i++)
		wp_end(wp);
	CHECK(slot(wp, 3) == (unsigned long)-999);
	CHECK(wp_read(wp) == 1);
	CHECK(!wp_try_close(wp));
	wp_user_set_cpu(1);
	wp_end(wp);
	CHECK(wp_read(wp) == 0);
	CHECK(wp_try_close(wp));
	wp_open(wp);
	wp_user_set_cpu(0);
}

/* --- races in the middle of the pass, driven from the walk hook --- */
static struct writes_pending *hook_wp;
static int hook_at, hook_end_cpu, hook_restore_cpu;
static bool hook_start_result, hook_fired;
static enum { HOOK_END, HOOK_START } hook_action;

static void hook(int cpu)
{
	if (hook_fired || cpu != hook_at)
		return;
	hook_fired = true;
	CHECK(READ_ONCE(hook_wp->gate) == WP_CLOSING);
	hook_restore_cpu = wp_user_cpu;
	wp_user_set_cpu(hook_end_cpu);
	if (hook_action == HOOK_END)
		wp_end(hook_wp);
	else
		hook_start_result = wp_start(hook_wp);
	wp_user_set_cpu(hook_restore_cpu);
}

static bool close_with_hook(struct writes_pending *wp, int at, int cpu,
			    int action)
{
	bool ok;

	hook_wp = wp;
	hook_at = at;
	hook_end_cpu = cpu;
	hook_action = action;
	hook_fired = false;
	wp_user_walk_hook = hook;
	ok = wp_try_close(wp);
	wp_user_walk_hook = NULL;
	CHECK(hook_fired);
	return ok;
}

/*
 * Started on CPU 0, ends on CPU 2 after CPU 0 was read but before CPU 2
 * is: +1 and -1 are both seen, the write really ended, zero is right.
 */
static void test_end_ahead_of_walk(struct writes_pending *wp)
{
	wp_user_set_cpu(0);
	CHECK(wp_start(wp));
	CHECK(close_with_hook(wp, 1, 2, HOOK_END));
	CHECK(wp_is_closed(wp));
	wp_open(wp);
}

/*
 * Started on CPU 2, ends on CPU 0 after CPU 0 was read: the end is
 * missed, the start is seen, so the close conservatively fails.
 */
static void test_end_behind_walk(struct writes_pending *wp)
{
	wp_user_set_cpu(2);
	CHECK(wp_start(wp));
	CHECK(!close_with_hook(wp, 1, 0, HOOK_END));
	CHECK(!wp_is_closed(wp));
	CHECK(wp_read(wp) == 0);
	CHECK(wp_try_close(wp));
	wp_open(wp);
}

/*
 * A start during the pass sees CLOSING, spins (bounded: nobody can
 * finish the pass here), is refused and leaves no count behind, on a
 * CPU already read and on one not yet read.
 */
static void test_start_during_pass(struct writes_pending *wp)
{
	CHECK(close_with_hook(wp, 2, 3, HOOK_START));
	CHECK(!hook_start_result);
	CHECK(slot(wp, 3) == 0);
	wp_open(wp);
	CHECK(close_with_hook(wp, 2, 0, HOOK_START));
	CHECK(!hook_start_result);
	CHECK(wp_read(wp) == 0);
	wp_open(wp);
	/* With a write in flight the pass fails and reopens. */
	wp_user_set_cpu(1);
	CHECK(wp_start(wp));
	CHECK(!close_with_hook(wp, 0, 2, HOOK_START));
	CHECK(!hook_start_result);
	CHECK(!wp_is_closed(wp));
	CHECK(wp_start(wp));
	wp_end(wp);
	wp_end(wp);
	wp_user_set_cpu(0);
}

/*
 * Safe-mode expiry: delay to 2 * delay - 1 jiffies after the write end
 * (invariant 3's bound), plain equal to in-tree's roundup(now, delay) +
 * delay, late within delay / 4 of the bound, and never earlier for a
 * later write end; the bounds hold across the jiffies wrap too.
 */
static void check_expiry_range(unsigned long from, unsigned long n)
{
	unsigned long d, now, i, e, prev[2] = { 0, 0 }, g;
	int late;

	for (d = 1; d <= 70; d++) {
		g = d / 4 ? d / 4 : 1;
		for (late = 0; late < 2; late++) {
			for (i = 0; i < n; i++) {
				now = from + i;
				e = wp_safe_mode_expiry(now, d, late);
				CHECK(e - now >= d);
				CHECK(e - now <= 2 * d - 1);
				if (late)
					CHECK(e - now >= 2 * d - g);
				else if (now <= ULONG_MAX - d)
					CHECK(e == (now + d - 1) / d * d + d);
				/*
				 * Not earlier than for the previous jiffy, away
				 * from the wrap (across it only the bounds hold:
				 * 2^64 is no multiple of the window).
				 */
				if (i && now != 0 && now <= ULONG_MAX - 2 * d)
					CHECK(e >= prev[late]);
				prev[late] = e;
			}
		}
	}
}

static void test_safe_mode_expiry(struct writes_pending *wp)
{
	(void)wp;
	check_expiry_range(0, 1000);
	/* jiffies starts 5 minutes before the wrap */
	check_expiry_range(ULONG_MAX - 500, 1000);
	/* in-tree's numbers at HZ=250, delay 51: 51..101 jiffies */
	CHECK(wp_safe_mode_expiry(1000, 51, false) == 1020 + 51);
	CHECK(wp_safe_mode_expiry(1020, 51, false) == 1020 + 51);
	CHECK(wp_safe_mode_expiry(1021, 51, false) == 1071 + 51);
	CHECK(wp_safe_mode_expiry(1021, 51, true) == 1032 + 102 - 12);
	CHECK(wp_safe_mode_late(0, 51));
	CHECK(wp_safe_mode_late(50, 51));
	CHECK(!wp_safe_mode_late(51, 51));
	CHECK(!wp_safe_mode_late(10000, 51));
}

#define WP_SCENARIOS(X)						\
	X(open_close, test_open_close)					\
	X(cross_cpu_slots, test_cross_cpu)				\
	X(end_ahead_of_walk, test_end_ahead_of_walk)			\
	X(end_behind_walk, test_end_behind_walk)			\
	X(start_during_pass, test_start_during_pass)			\
	X(safe_mode_expiry, test_safe_mode_expiry)

/* What every case must leave behind: no write in flight. */
static void wp_scenario_after(struct writes_pending *wp)
{
	CHECK(wp_read(wp) == 0);
}

#endif
