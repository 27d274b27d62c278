// SPDX-License-Identifier: GPL-2.0
/*
 * writes_pending - count in-flight array writes, and decide "none" exactly
 * without waiting for anybody.
 *
 * md records an array as clean in the superblock once no write has been
 * in flight for a while, and must keep every new write away from the
 * members until a dirty superblock is durable again.  Writes start and end
 * on every CPU all the time; the clean check runs in the md thread a few
 * times a second at most.  So all the cost goes to the check.
 *
 * State.  Every possible CPU owns one unsigned long slot.  wp_start() adds
 * one to the slot of the CPU it runs on; wp_end() subtracts one from the
 * slot of the CPU *it* runs on, which may be another.  One slot means
 * nothing and may wrap; the sum of all slots, modulo 2^BITS_PER_LONG, is
 * the number of writes in flight.  A gate word says whether writes may
 * start:
 *
 *	OPEN    --wp_try_close()--> CLOSING --sum != 0--> OPEN
 *	                                    --sum == 0--> CLOSED
 *	CLOSED  --wp_open()-------> OPEN
 *
 * Only wp_try_close() and wp_open() write the gate, both under ->lock
 * with interrupts off, so CLOSING lasts one pass over the slots on a CPU
 * that cannot be preempted or interrupted.
 *
 * Writer (wp_start): with preemption off, increment the local slot, full
 * barrier (A), load the gate.  OPEN: the write is admitted.  CLOSING:
 * spin until the gate changes, at most WP_CLOSING_SPINS times.  Anything
 * else: subtract the increment again on the same CPU and return false.
 *
 * Closer (wp_try_close): store CLOSING, full barrier (B), read every slot
 * once and add them up.
 *
 * A and B pair as store buffering: for one wp_start() and one
 * wp_try_close(), it cannot happen both that the writer's gate load misses
 * CLOSING and that the closer's read of the writer's slot misses the
 * increment.  Hence, per write, what the sum contains:
 *
 *  - admitted before CLOSING (its load saw the old OPEN): the increment
 *    is in the sum; its decrement may or may not be.  Adds 1 or 0, and
 *    0 only if wp_end() has already run.
 *  - refused: increment and undo hit one slot, and a read of a slot sees
 *    every update to it up to some point.  Adds 1 or 0, never -1.  This
 *    is why preemption stays off from the increment to the undo.
 *  - admitted by the reopen after a nonzero sum: that attempt fails
 *    anyway, whatever the sum was.
 *  - started after the gate went CLOSED: refused (above).
 *
 * No write adds less than zero, and every write still in flight adds one,
 * so a zero sum proves that none is in flight; the gate is CLOSING already,
 * so none can be admitted before it turns CLOSED.  Reading the slots one
 * by one while writes move between CPUs does not matter: a write whose
 * decrement is read but whose increment is not would need an increment
 * the sum missed, which only refused writes have, and those undo on the
 * slot of their increment.
 *
 * Cost.  wp_start(): one local per-CPU add, one full barrier, one load of
 * a cache line that only changes when the array goes clean or dirty.
 * wp_end(): one local per-CPU subtract, no barrier.  Neither writes a
 * cache line another CPU writes.  wp_try_close(): one read per possible
 * CPU with interrupts off; no sleeping, no grace period, no IPIs.
 */
#include "writes_pending.h"

enum { WP_OPEN, WP_CLOSING, WP_CLOSED };

/*
 * A writer that finds the gate CLOSING waits at most this many
 * cpu_relax() for the closer to finish its pass, then takes the md
 * core's slow path; this bounds the stall even if the closer's CPU is
 * itself stalled (e.g. a preempted vCPU).  0 sends every writer that
 * meets a pass to the slow path (the unit tests build both).
 */
#ifndef WP_CLOSING_SPINS
#define WP_CLOSING_SPINS	1000
#endif

int wp_init(struct writes_pending *wp)
{
	wp->slots = alloc_percpu(unsigned long);
	if (!wp->slots)
		return -ENOMEM;
	wp->gate = WP_OPEN;
	raw_spin_lock_init(&wp->lock);
	memset(&wp->stats, 0, sizeof(wp->stats));
	return 0;
}

void wp_exit(struct writes_pending *wp)
{
	WARN_ON_ONCE(wp_read(wp) != 0);
	free_percpu(wp->slots);
	wp->slots = NULL;
}

static unsigned long wp_sum(struct writes_pending *wp)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(wp->slots, cpu));
	return sum;
}

bool wp_start(struct writes_pending *wp)
{
	int spins = WP_CLOSING_SPINS;
	int gate;

	preempt_disable();
	this_cpu_inc(*wp->slots);
	/* A: pairs with B in wp_try_close(). */
	smp_mb();
	/* Acquire: pairs with the release stores of the gate. */
	gate = smp_load_acquire(&wp->gate);
	while (unlikely(gate == WP_CLOSING) && spins-- > 0) {
		cpu_relax();
		/* Acquire: as above. */
		gate = smp_load_acquire(&wp->gate);
	}
	if (unlikely(gate != WP_OPEN)) {
		/* Same CPU as the increment: see "refused" above. */
		this_cpu_dec(*wp->slots);
		preempt_enable();
		return false;
	}
	preempt_enable();
	return true;
}

/*
 * No barrier: the sum needs none from us (a decrement read early or late
 * only makes a close fail).  Always asks for the safe-mode timer to be
 * re-armed, as in-tree md does on every write end; deciding "maybe last"
 * locally would need a shared cache line.
 */
bool wp_end(struct writes_pending *wp)
{
	this_cpu_dec(*wp->slots);
	return true;
}

static void wp_account_check(struct writes_pending *wp, u64 t0)
{
	u64 dt = local_clock() - t0;

	wp->stats.check_ns_total += dt;
	if (dt > wp->stats.check_ns_max)
		wp->stats.check_ns_max = dt;
}

bool wp_try_close(struct writes_pending *wp)
{
	unsigned long flags;
	bool closed;
	u64 t0;

	raw_spin_lock_irqsave(&wp->lock, flags);
	if (wp->gate == WP_CLOSED) {
		raw_spin_unlock_irqrestore(&wp->lock, flags);
		return true;
	}
	t0 = local_clock();	/* same CPU, irqs off: cheap and monotonic */
	WRITE_ONCE(wp->gate, WP_CLOSING);
	/* B: pairs with A in wp_start(). */
	smp_mb();
	closed = wp_sum(wp) == 0;
	/*
	 * Release: pairs with the acquire in wp_start(), so a writer let in
	 * by the reopen sees what the md core did before this check.
	 */
	smp_store_release(&wp->gate, closed ? WP_CLOSED : WP_OPEN);
	if (closed)
		wp->stats.closes++;
	else
		wp->stats.close_fails++;
	wp_account_check(wp, t0);
	raw_spin_unlock_irqrestore(&wp->lock, flags);
	return closed;
}

void wp_open(struct writes_pending *wp)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&wp->lock, flags);
	if (wp->gate == WP_CLOSED) {
		/*
		 * Release: pairs with the acquire in wp_start(); an admitted
		 * writer sees the superblock state the caller set up.
		 */
		smp_store_release(&wp->gate, WP_OPEN);
		wp->stats.opens++;
	}
	raw_spin_unlock_irqrestore(&wp->lock, flags);
}

bool wp_is_closed(struct writes_pending *wp)
{
	return READ_ONCE(wp->gate) == WP_CLOSED;
}

long wp_read(struct writes_pending *wp)
{
	long n = (long)wp_sum(wp);

	return n > 0 ? n : 0;
}

void wp_get_stats(struct writes_pending *wp, struct wp_stats *out)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&wp->lock, flags);
	*out = wp->stats;
	raw_spin_unlock_irqrestore(&wp->lock, flags);
}

/*
 * Rounding by adding what is missing to the next multiple rather than
 * roundup(): it stays right when now + g wraps (jiffies are modular).
 */
static unsigned long wp_round_up(unsigned long now, unsigned long g)
{
	unsigned long r = now % g;

	return r ? now + (g - r) : now;
}

unsigned long wp_safe_mode_expiry(unsigned long now, unsigned long delay,
				  bool late)
{
	unsigned long g;

	if (!late)
		return wp_round_up(now, delay) + delay;
	/* write ends within g of each other share an expiry (cheap re-arm) */
	g = delay / 4 ? delay / 4 : 1;
	return wp_round_up(now, g) + 2 * delay - g;
}

bool wp_safe_mode_late(unsigned long clean_len, unsigned long delay)
{
	return clean_len < delay;
}
