// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of one write start/end pair, ns, per thread, for 1..8 threads:
 *   wp       - wp_start()/wp_end() (per-CPU slot, smp_mb, gate load)
 *   atomic   - one shared atomic counter (lock xadd on one line)
 *   percpu   - per-CPU slot add/sub, no gate, no barrier (the floor)
 *   wp+close - wp with a thread calling wp_try_close()/wp_open() in a
 *              loop (far harsher than md's few checks per second)
 * plus the longest single wp_start() seen in the wp+close run.
 *
 * Built with WP_USER_OWNED_CPUS (plain per-CPU load+store, as the
 * kernel's this_cpu ops) and WP_USER_KERNEL_MB (smp_mb() is the
 * kernel's locked add): thread i is CPU i and pinned to host CPU i when
 * there are enough.
 */
#define _GNU_SOURCE
#include "writes_pending.c"

#include <sched.h>
#include <unistd.h>

#define ITERS	2000000UL

enum kind { K_WP, K_ATOMIC, K_PERCPU, K_WP_CLOSE, NR_KINDS };

static struct writes_pending wp;
static long shared_ctr __attribute__((aligned(64)));
static unsigned long __percpu *plain;
static int go, stop_closer;
static u64 max_start_ns;

struct arg {
	int cpu;
	enum kind kind;
	double ns;
};

static void pin(int cpu)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n <= 1)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu % n, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *worker(void *p)
{
	struct arg *a = p;
	unsigned long i;
	u64 t0, t, worst = 0;

	wp_user_set_cpu(a->cpu);
	pin(a->cpu);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		cpu_relax();
	t0 = ktime_get_ns();
	switch (a->kind) {
	case K_WP:
		for (i = 0; i < ITERS; i++) {
			if (!wp_start(&wp))
				abort();
			wp_end(&wp);
		}
		break;
	case K_ATOMIC:
		for (i = 0; i < ITERS; i++) {
			__atomic_fetch_add(&shared_ctr, 1, __ATOMIC_SEQ_CST);
			__atomic_fetch_sub(&shared_ctr, 1, __ATOMIC_SEQ_CST);
		}
		break;
	case K_PERCPU:
		for (i = 0; i < ITERS; i++) {
			this_cpu_inc(*plain);
			barrier();
			this_cpu_dec(*plain);
			barrier();
		}
		break;
	case K_WP_CLOSE:
		for (i = 0; i < ITERS; i++) {
			bool ok;

			if ((i & 63) == 0) {
				t = ktime_get_ns();
				ok = wp_start(&wp);
				t = ktime_get_ns() - t;
				if (t > worst)
					worst = t;
			} else {
				ok = wp_start(&wp);
			}
			if (ok) {
				wp_end(&wp);
			} else {
				/* md's slow path, cut short: reopen. */
				wp_open(&wp);
				i--;
			}
		}
		break;
	default:
		break;
	}
	a->ns = (double)(ktime_get_ns() - t0) / ITERS;
	if (a->kind == K_WP_CLOSE) {
		u64 m = __atomic_load_n(&max_start_ns, __ATOMIC_RELAXED);

		while (worst > m &&
		       !__atomic_compare_exchange_n(&max_start_ns, &m, worst,
						    false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED))
			;
	}
	return NULL;
}

static void *closer(void *p)
{
	(void)p;
	wp_user_set_cpu(WP_NR_CPUS - 1);
	while (!__atomic_load_n(&stop_closer, __ATOMIC_ACQUIRE)) {
		if (wp_try_close(&wp))
			wp_open(&wp);
		usleep(10);
	}
	return NULL;
}

static double run(enum kind kind, int threads)
{
	pthread_t t[WP_NR_CPUS], c;
	struct arg a[WP_NR_CPUS];
	double sum = 0;
	int i;

	go = stop_closer = 0;
	for (i = 0; i < threads; i++) {
		a[i].cpu = i;
		a[i].kind = kind;
		pthread_create(&t[i], NULL, worker, &a[i]);
	}
	if (kind == K_WP_CLOSE)
		pthread_create(&c, NULL, closer, NULL);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		sum += a[i].ns;
	}
	if (kind == K_WP_CLOSE) {
		__atomic_store_n(&stop_closer, 1, __ATOMIC_RELEASE);
		pthread_join(c, NULL);
	}
	return sum / threads;
}

int main(void)
{
	static const int nthreads[] = { 1, 2, 4, 8 };
	struct wp_stats st;
	unsigned int i;
	int k;

	if (wp_init(&wp))
		return 1;
	plain = alloc_percpu(unsigned long);
	if (!plain)
		return 1;
	printf("host CPUs online: %ld, %lu start/end pairs per thread\n",
	       sysconf(_SC_NPROCESSORS_ONLN), ITERS);
	printf("%-8s %10s %10s %10s %10s %14s\n", "threads", "wp",
	       "atomic", "percpu", "wp+close", "max_start_ns");
	for (i = 0; i < sizeof(nthreads) / sizeof(nthreads[0]); i++) {
		double r[NR_KINDS];

		max_start_ns = 0;
		for (k = 0; k < NR_KINDS; k++)
			r[k] = run(k, nthreads[i]);
		printf("%-8d %10.1f %10.1f %10.1f %10.1f %14llu\n",
		       nthreads[i], r[K_WP], r[K_ATOMIC], r[K_PERCPU],
		       r[K_WP_CLOSE], (unsigned long long)max_start_ns);
	}
	wp_get_stats(&wp, &st);
	printf("closes %llu, failed closes %llu, check max %llu ns, mean %llu ns\n",
	       (unsigned long long)st.closes,
	       (unsigned long long)st.close_fails,
	       (unsigned long long)st.check_ns_max,
	       (unsigned long long)(st.check_ns_total /
				    (st.closes + st.close_fails + !st.closes)));
	free_percpu(plain);
	wp_exit(&wp);
	return 0;
}
