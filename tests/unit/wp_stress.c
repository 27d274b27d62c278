// SPDX-License-Identifier: GPL-2.0
/*
 * Stress test of writes_pending against an independent ground truth.
 *
 * Threads play CPUs (the seam's thread-local CPU index).  Writers start
 * writes on one CPU and end them on the same CPU, after migrating to
 * another, or hand them to "completion" threads (bio end_io in another
 * CPU's interrupt).  Refused writers take a slow path like md's: under
 * md_mutex, if the counter is closed, write a dirty superblock and
 * wp_open().  A checker thread plays the md thread: under md_mutex,
 * wp_try_close(), and on success check and "write the clean superblock".
 *
 * Ground truth and why the checks are sound:
 *  - truth: writers add 1 after wp_start() admitted them and subtract 1
 *    just before wp_end(), separated from it by a release fence.  The
 *    checker reads truth after a successful wp_try_close() behind an
 *    acquire fence.  If the pass read a write's decrement, the fences
 *    make that write's truth-- visible; truth is one location, so it
 *    reads > 0 only if some admitted write's end was not seen by the
 *    pass, i.e. the counter closed on a write it should have counted
 *    (invariant 1, closer side).
 *  - sb: the superblock state, seq_cst.  An admitted write checks that
 *    it is DIRTY (durable) when it reaches a member (invariant 2) and
 *    again just before it ends; CLEAN there means a close succeeded while
 *    it was in flight (invariant 1, writer side).  The clean state is
 *    held for a while by the checker so such a write has time to see it.
 */
#include "writes_pending.c"

#include <sched.h>
#include <unistd.h>

enum { SB_DIRTY, SB_CLEAN, SB_WRITING_DIRTY };

#define MAX_THREADS 16

static struct writes_pending wp;
static pthread_mutex_t md_mutex = PTHREAD_MUTEX_INITIALIZER;
static long truth;
static int sb;
static int stop, stop_completers;
static int nr_started;
static long handoff;		/* writes waiting for a completion thread */
static unsigned long violations;
static unsigned long nr_writes, nr_closes, nr_dirty, nr_transient;

struct config {
	const char *name;
	int writers;
	int completers;
	int nr_modes;
	int modes[3];		/* 0 end on same CPU, 1 migrate, 2 handoff */
	bool own_cpu;		/* writer i always runs on CPU i */
};

static __thread u64 rng;

static unsigned int rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng >> 11);
}

static void violation(const char *what, long v)
{
	if (__atomic_fetch_add(&violations, 1, __ATOMIC_RELAXED) < 5)
		printf("# VIOLATION: %s (%ld)\n", what, v);
}

static void busy(unsigned int n)
{
	while (n--)
		cpu_relax();
}

static void end_write(void)
{
	int s = __atomic_load_n(&sb, __ATOMIC_SEQ_CST);

	if (s != SB_DIRTY)
		violation("superblock not dirty while write in flight", s);
	__atomic_fetch_sub(&truth, 1, __ATOMIC_RELAXED);
	/* Pairs with the acquire fence in the checker. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	wp_end(&wp);
}

static void slow_path(void)
{
	pthread_mutex_lock(&md_mutex);
	if (wp_is_closed(&wp)) {
		__atomic_store_n(&sb, SB_WRITING_DIRTY, __ATOMIC_SEQ_CST);
		sched_yield();		/* the superblock write */
		__atomic_store_n(&sb, SB_DIRTY, __ATOMIC_SEQ_CST);
		wp_open(&wp);
		__atomic_fetch_add(&nr_dirty, 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&nr_transient, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&md_mutex);
}

static void *writer(void *arg)
{
	const struct config *cfg = arg;
	unsigned long n = 0;
	int self = __atomic_fetch_add(&nr_started, 1, __ATOMIC_RELAXED) %
		   WP_NR_CPUS;

	rng = (u64)(uintptr_t)&n | 1;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned int r = rnd();
		int mode, s;

		/* Quiet spells let in-flight writes drain so closes happen. */
		if ((ktime_get_ns() / 250000) % 4 == 0) {
			usleep(20);
			continue;
		}
		wp_user_set_cpu(cfg->own_cpu ? self : (int)(r % WP_NR_CPUS));
		if (!wp_start(&wp)) {
			slow_path();
			continue;
		}
		__atomic_fetch_add(&truth, 1, __ATOMIC_RELAXED);
		s = __atomic_load_n(&sb, __ATOMIC_SEQ_CST);
		if (s != SB_DIRTY)
			violation("write reached a member before dirty sb", s);
		busy(r >> 24);
		mode = cfg->modes[(r >> 8) % cfg->nr_modes];
		if (mode == 2) {
			__atomic_fetch_add(&handoff, 1, __ATOMIC_RELEASE);
		} else {
			if (mode == 1)
				wp_user_set_cpu((r + 1 + (r >> 4) % 3) %
						WP_NR_CPUS);
			end_write();
		}
		n++;
		if ((r & 15) == 0)	/* idle now and then */
			busy(2000);
		if ((r & 255) == 1)
			usleep(50);
	}
	__atomic_fetch_add(&nr_writes, n, __ATOMIC_RELAXED);
	return NULL;
}

static bool take_handoff(void)
{
	long h = __atomic_load_n(&handoff, __ATOMIC_RELAXED);

	while (h > 0)
		if (__atomic_compare_exchange_n(&handoff, &h, h - 1, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

static void *completer(void *arg)
{
	(void)arg;
	rng = (u64)(uintptr_t)&arg | 1;
	for (;;) {
		if (take_handoff()) {
			wp_user_set_cpu(rnd() % WP_NR_CPUS);
			end_write();
		} else if (__atomic_load_n(&stop_completers, __ATOMIC_ACQUIRE)) {
			if (!take_handoff())
				break;
			wp_user_set_cpu(rnd() % WP_NR_CPUS);
			end_write();
		} else {
			sched_yield();
		}
	}
	return NULL;
}

/* Now and then stretch the pass, widening every race window in it. */
static void slow_walk(int cpu)
{
	(void)cpu;
	if (rnd() & 1)
		busy(rnd() % 1024);
}

static void *checker(void *arg)
{
	(void)arg;
	rng = (u64)(uintptr_t)&arg | 1;
	wp_user_walk_hook = slow_walk;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		busy(rnd() % 4000);
		pthread_mutex_lock(&md_mutex);
		if (!wp_is_closed(&wp) && wp_try_close(&wp)) {
			long t;

			/* Pairs with the release fence in end_write(). */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			t = __atomic_load_n(&truth, __ATOMIC_RELAXED);
			if (t != 0)
				violation("closed with writes in flight", t);
			__atomic_store_n(&sb, SB_CLEAN, __ATOMIC_SEQ_CST);
			nr_closes++;
			busy(3000);	/* the clean superblock write */
		}
		pthread_mutex_unlock(&md_mutex);
	}
	return NULL;
}

/* Whether the last run() failed only for too little having happened. */
static bool too_little;

static bool run(const struct config *cfg, unsigned int ms)
{
	pthread_t w[MAX_THREADS], c[MAX_THREADS], chk;
	struct wp_stats st;
	int i;
	bool ok;

	if (wp_init(&wp))
		return false;
	truth = handoff = 0;
	sb = SB_DIRTY;
	stop = stop_completers = nr_started = 0;
	violations = nr_writes = nr_closes = nr_dirty = nr_transient = 0;
	for (i = 0; i < cfg->writers; i++)
		pthread_create(&w[i], NULL, writer, (void *)cfg);
	for (i = 0; i < cfg->completers; i++)
		pthread_create(&c[i], NULL, completer, NULL);
	pthread_create(&chk, NULL, checker, NULL);
	usleep(ms * 1000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < cfg->writers; i++)
		pthread_join(w[i], NULL);
	__atomic_store_n(&stop_completers, 1, __ATOMIC_RELEASE);
	for (i = 0; i < cfg->completers; i++)
		pthread_join(c[i], NULL);
	pthread_join(chk, NULL);

	wp_get_stats(&wp, &st);
	printf("# %s: writes=%lu closes=%lu close_fails=%llu dirty_sb=%lu transient_refusals=%lu check_ns_max=%llu\n",
	       cfg->name, nr_writes, nr_closes,
	       (unsigned long long)st.close_fails, nr_dirty, nr_transient,
	       (unsigned long long)st.check_ns_max);
	ok = violations == 0;
	too_little = false;
	if (truth != 0 || wp_read(&wp) != 0) {
		printf("# leftover: truth=%ld wp_read=%ld\n", truth,
		       wp_read(&wp));
		ok = false;
	}
	/* Not vacuous: closes, failed closes and reopenings all happened. */
	if (nr_writes < 1000 || nr_closes < 10 || st.close_fails < 10 ||
	    nr_dirty < 10) {
		printf("# too little happened to mean anything\n");
		too_little = ok;
		ok = false;
	}
	wp_exit(&wp);
	return ok;
}

/*
 * With WP_USER_OWNED_CPUS the per-CPU ops are plain load+store, as in the
 * kernel, which is only right if one thread uses each CPU index: then
 * writers own their CPU and end there.  This is the build in which a
 * missing barrier can show on x86 (locked RMWs would hide it).
 */
static const struct config configs[] = {
#ifdef WP_USER_OWNED_CPUS
	{ "owned_cpus",		WP_NR_CPUS, 0, 1, { 0 }, true },
#else
	{ "end_same_cpu",	4, 0, 1, { 0 }, false },
	{ "end_migrated",	4, 0, 1, { 1 }, false },
	{ "end_in_completion",	4, 2, 1, { 2 }, false },
	{ "mixed_shared_cpus",	7, 2, 3, { 0, 1, 2 }, false },
	{ "own_cpus",		4, 0, 1, { 0 }, true },
#endif
};

int main(void)
{
	unsigned int i, n = sizeof(configs) / sizeof(configs[0]);
	const char *env = getenv("WP_STRESS_MS");
	unsigned int ms = env ? (unsigned int)atoi(env) : 1500;
	int bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		unsigned int t = ms, tries = 0;
		bool ok = run(&configs[i], t);

		/*
		 * A loaded host can schedule the threads so that no close
		 * fails in the time given: that run proves nothing either
		 * way, so it runs again, longer (a violation never does).
		 */
		while (!ok && too_little && ++tries < 3) {
			t *= 2;
			printf("# %s: again for %u ms\n", configs[i].name, t);
			ok = run(&configs[i], t);
		}

		printf("%sok %u %s\n", ok ? "" : "not ", i + 1,
		       configs[i].name);
		bad += !ok;
	}
	return bad ? 1 : 0;
}
