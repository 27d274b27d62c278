/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit build of writes_pending.c (kunit/wp_kunit.c): included by
 * writes_pending_seam.h after the kernel headers when WP_SEAM_KUNIT is
 * defined, never in md-mod.ko.
 *
 * Why simulate CPUs in the kernel: the scenarios in
 * tests/unit/wp_scenarios.h start a write on one CPU, end it on another
 * and act on a third between two slot reads of a wp_try_close() pass,
 * which itself runs with interrupts off.  A test cannot migrate itself
 * there, and the guest has two CPUs.  So, exactly as
 * tests/unit/seam/wp_user.h does, a "CPU" is an index the test sets with
 * wp_user_set_cpu() and each has one cache line of a plain allocation;
 * everything else writes_pending.c uses stays the kernel's own: the raw
 * spinlock and irqsave (lockdep), preempt_disable(), smp_mb() and the
 * acquire/release accessors, local_clock(), WARN_ON_ONCE(), and KASAN and
 * UBSAN over every access.  The real per-CPU binding is exercised by the
 * VM tests through md-mod.ko.
 *
 * The test runs in one KUnit thread, so the simulated CPU and the walk
 * hook are plain statics (user space: thread-locals).  Only the test
 * thread writes them; no locking.
 */
#ifndef _MD_KUNIT_WP_SEAM_H
#define _MD_KUNIT_WP_SEAM_H

#include <linux/slab.h>

#define WP_NR_CPUS	4
#define WP_SIM_LINE	64

/* the simulated CPU the next call runs on */
static int wp_user_cpu;
/* called before each slot read of a pass, and with WP_NR_CPUS at its end */
static void (*wp_user_walk_hook)(int cpu);

static inline void wp_user_set_cpu(int cpu)
{
	if (WARN_ON_ONCE(cpu < 0 || cpu >= WP_NR_CPUS))
		return;
	wp_user_cpu = cpu;
}

static inline int wp_user_walk(int cpu)
{
	if (wp_user_walk_hook)
		wp_user_walk_hook(cpu);
	return cpu;
}

static inline void *wp_sim_alloc_percpu(size_t size)
{
	if (size > WP_SIM_LINE)
		return NULL;
	return kcalloc(WP_NR_CPUS, WP_SIM_LINE, GFP_KERNEL);
}

#undef for_each_possible_cpu
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; wp_user_walk(cpu) < WP_NR_CPUS; (cpu)++)

#undef alloc_percpu
#define alloc_percpu(type)	((type *)wp_sim_alloc_percpu(sizeof(type)))
#define free_percpu(p)		kfree(p)

#undef per_cpu_ptr
#define per_cpu_ptr(p, cpu) \
	((typeof(p))((char *)(p) + (size_t)(cpu) * WP_SIM_LINE))

/*
 * The slots are unsigned longs.  One test thread: a plain read-modify-
 * write, as the kernel's this_cpu op is on its own CPU.
 */
static inline void wp_sim_add(unsigned long *slots, long v)
{
	unsigned long *p = (unsigned long *)((char *)slots +
					     wp_user_cpu * WP_SIM_LINE);

	WRITE_ONCE(*p, READ_ONCE(*p) + v);
}

#undef this_cpu_add
#define this_cpu_add(pcp, v)	wp_sim_add(&(pcp), (v))
#undef this_cpu_inc
#define this_cpu_inc(pcp)	this_cpu_add(pcp, 1)
#undef this_cpu_dec
#define this_cpu_dec(pcp)	this_cpu_add(pcp, -1)

#endif
