/* SPDX-License-Identifier: GPL-2.0 */
/*
 * writes_pending: counter of in-flight array writes with an exact,
 * non-blocking zero test used to mark the array clean.
 *
 * Contract with the md core (Documentation/writes_pending.rst has the
 * full protocol):
 *  - wp_start() before a write may touch a member.  It returns false when
 *    the counter is closed (array marked clean); the caller then marks the
 *    array dirty, waits until that superblock is durable, calls wp_open()
 *    and retries.  wp_start() never sleeps; it may spin for a short,
 *    bounded time while a wp_try_close() is in progress.
 *  - wp_end() when that write completed (any CPU, any context).  Returns
 *    true when the caller should (re)arm the safe-mode timer.
 *  - wp_try_close() is the clean check: it succeeds and closes the counter
 *    only if no write is in flight or past wp_start().  Never sleeps and
 *    never waits for an RCU grace period.
 *  - wp_try_close() and wp_open() may be called concurrently with each
 *    other (they serialise on an internal lock) but wp_open() must only
 *    be used to reopen after the caller saw the counter closed.
 */
#ifndef _MD_WRITES_PENDING_H
#define _MD_WRITES_PENDING_H

#include "writes_pending_seam.h"

struct wp_stats {
	u64 closes;		/* successful wp_try_close() */
	u64 close_fails;	/* wp_try_close() that found writes */
	u64 opens;		/* wp_open() after a close */
	u64 check_ns_total;	/* time spent inside wp_try_close() */
	u64 check_ns_max;
};

struct writes_pending {
	/* Read by every wp_start(); written only by close/open. */
	int gate ____cacheline_aligned_in_smp;
	/* Per-CPU: starts minus ends done on that CPU (wraps freely). */
	unsigned long __percpu *slots;

	/* Slow path only: never touched by wp_start()/wp_end(). */
	raw_spinlock_t lock ____cacheline_aligned_in_smp;
	struct wp_stats stats;
};

int wp_init(struct writes_pending *wp);
void wp_exit(struct writes_pending *wp);
bool wp_start(struct writes_pending *wp);
bool wp_end(struct writes_pending *wp);
bool wp_try_close(struct writes_pending *wp);
void wp_open(struct writes_pending *wp);
bool wp_is_closed(struct writes_pending *wp);
/*
 * Number of writes in flight; slow, for sysfs/debug only.  Exact while
 * closed or quiescent, otherwise a snapshot that may be off by the
 * writes starting or ending during the call (never negative).
 */
long wp_read(struct writes_pending *wp);
void wp_get_stats(struct writes_pending *wp, struct wp_stats *out);

/*
 * Safe-mode timing, pure functions of jiffies values.
 *
 * wp_safe_mode_expiry(): when the clean check should run after a write
 * that ended at @now, for a delay of @delay (>= 1) jiffies.  Always
 * @delay to 2 * @delay - 1 jiffies after @now, the range in-tree md's
 * rounded timer picks from, also across the jiffies wrap.  @late
 * false: the end of the delay-long window after the one @now falls in,
 * the instant in-tree picks.  @late true: within max(@delay / 4, 1)
 * jiffies of the end of the range.
 *
 * wp_safe_mode_late(): safe_mode_adaptive's rule.  A clean period that
 * lasted @clean_len jiffies has just ended with a write: was it shorter
 * than @delay, so that marking clean bought little and cost the writer a
 * superblock write?  Then the following clean checks come late.
 */
unsigned long wp_safe_mode_expiry(unsigned long now, unsigned long delay,
				  bool late);
bool wp_safe_mode_late(unsigned long clean_len, unsigned long delay);

#endif
