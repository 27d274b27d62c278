/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-ins for the kernel interfaces writes_pending.c uses.
 *
 * A "CPU" is an index in [0, WP_NR_CPUS) held in a thread-local variable
 * that the test sets with wp_user_set_cpu(); moving a thread between
 * CPUs is only allowed with "preemption" enabled, which is checked.
 * Per-CPU slots are padded to a cache line and accessed with relaxed
 * atomics (that is what kernel this_cpu ops are, and it lets TSan see
 * them); barriers are real fences.
 *
 * Build switches (test/bench only):
 *   WP_NR_CPUS=n          number of CPUs (default 4)
 *   WP_USER_OWNED_CPUS    each CPU index is used by one thread only:
 *                         this_cpu ops become plain load+store like the
 *                         kernel's, instead of locked read-modify-writes
 *   WP_USER_KERNEL_MB     smp_mb() is the kernel's x86-64 locked add
 *   WP_USER_BREAK_MB      smp_mb() is only a compiler barrier (to show
 *                         that the tests notice)
 *
 * Tests include writes_pending.c directly, so this header may define
 * the thread-local state it needs.
 */
#ifndef _WP_USER_H
#define _WP_USER_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t u64;
typedef uint32_t u32;

#ifndef WP_NR_CPUS
#define WP_NR_CPUS 4
#endif
#define WP_USER_LINE 64

#define __percpu
#define ____cacheline_aligned_in_smp __attribute__((aligned(WP_USER_LINE)))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* --- CPUs and preemption --- */
static __thread int wp_user_cpu;
static __thread int wp_user_preempt;

static inline void wp_user_set_cpu(int cpu)
{
	if (wp_user_preempt || cpu < 0 || cpu >= WP_NR_CPUS) {
		fprintf(stderr, "wp_user: bad CPU switch to %d\n", cpu);
		abort();
	}
	wp_user_cpu = cpu;
}

#define barrier()		__atomic_signal_fence(__ATOMIC_SEQ_CST)
#define preempt_disable()	do { wp_user_preempt++; barrier(); } while (0)
#define preempt_enable()	do { barrier(); wp_user_preempt--; } while (0)
#define smp_processor_id()	(wp_user_cpu)

/*
 * Called before each step of for_each_possible_cpu() with the CPU about
 * to be visited (WP_NR_CPUS at the end): lets a test act in the middle
 * of a wp_try_close() pass.
 */
static __thread void (*wp_user_walk_hook)(int cpu);

static inline int wp_user_walk(int cpu)
{
	if (wp_user_walk_hook)
		wp_user_walk_hook(cpu);
	return cpu;
}

#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; wp_user_walk(cpu) < WP_NR_CPUS; (cpu)++)

/* --- barriers and marked accesses --- */
#if defined(WP_USER_BREAK_MB)
#define smp_mb()	barrier()
#elif defined(WP_USER_KERNEL_MB) && defined(__x86_64__)
#define smp_mb()	__asm__ __volatile__("lock; addl $0,-4(%%rsp)" \
					     ::: "memory", "cc")
#else
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	barrier()
#endif

/* --- per-CPU data --- */
static inline void *wp_user_alloc_percpu(size_t size)
{
	void *p;

	if (size > WP_USER_LINE)
		abort();
	p = aligned_alloc(WP_USER_LINE, WP_NR_CPUS * WP_USER_LINE);
	if (p)
		memset(p, 0, WP_NR_CPUS * WP_USER_LINE);
	return p;
}

#define alloc_percpu(type)	((type *)wp_user_alloc_percpu(sizeof(type)))
#define free_percpu(p)		free(p)
#define per_cpu_ptr(p, cpu) \
	((__typeof__(p))((char *)(p) + (size_t)(cpu) * WP_USER_LINE))
#define this_cpu_ptr(p)		per_cpu_ptr(p, wp_user_cpu)

#ifdef WP_USER_OWNED_CPUS
#define this_cpu_add(pcp, v) do {					\
	__typeof__(&(pcp)) __p = this_cpu_ptr(&(pcp));			\
	__atomic_store_n(__p, __atomic_load_n(__p, __ATOMIC_RELAXED) +	\
			 (v), __ATOMIC_RELAXED);			\
} while (0)
#else
#define this_cpu_add(pcp, v) \
	((void)__atomic_fetch_add(this_cpu_ptr(&(pcp)), (v), __ATOMIC_RELAXED))
#endif
#define this_cpu_inc(pcp)	this_cpu_add(pcp, 1)
#define this_cpu_dec(pcp)	this_cpu_add(pcp, -1)

/* --- lock, time, diagnostics --- */
typedef pthread_mutex_t raw_spinlock_t;
#define raw_spin_lock_init(l)	pthread_mutex_init((l), NULL)
#define raw_spin_lock_irqsave(l, f) \
	do { (f) = 0; pthread_mutex_lock(l); } while (0)
#define raw_spin_unlock_irqrestore(l, f) \
	do { (void)(f); pthread_mutex_unlock(l); } while (0)

static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

/* The kernel build times the clean check with the scheduler clock. */
static inline u64 local_clock(void)
{
	return ktime_get_ns();
}

#define WARN_ON_ONCE(c) ({						\
	bool __c = !!(c);						\
	if (__c)							\
		fprintf(stderr, "WARNING: %s:%d: %s\n",			\
			__FILE__, __LINE__, #c);			\
	__c;								\
})

#endif
