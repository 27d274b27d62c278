/* SPDX-License-Identifier: GPL-2.0 */
/*
 * writes_pending: counter of in-flight array writes with an exact,
 * non-blocking zero test used to mark the array clean.
 *
 * Contract with the md core:
 *  - wp_start() before a write may touch a member.  It returns false when
 *    the counter is closed (array marked clean); the caller then marks the
 *    array dirty, waits until that superblock is durable, calls wp_open()
 *    and retries.  wp_start() never sleeps.
 *  - wp_end() when that write completed (any CPU, any context).  Returns
 *    true when the caller should (re)arm the safe-mode timer.
 *  - wp_try_close() is the clean check: it succeeds and closes the counter
 *    only if no write is in flight or past wp_start().  Never sleeps and
 *    never waits for an RCU grace period.
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
	wp_spinlock_t lock;	/* protects count, closed, stats */
	long count;
	bool closed;
	struct wp_stats stats;
};

int wp_init(struct writes_pending *wp);
void wp_exit(struct writes_pending *wp);
bool wp_start(struct writes_pending *wp);
bool wp_end(struct writes_pending *wp);
bool wp_try_close(struct writes_pending *wp);
void wp_open(struct writes_pending *wp);
bool wp_is_closed(struct writes_pending *wp);
/* Exact number of writes in flight; slow, for sysfs/debug only. */
long wp_read(struct writes_pending *wp);
void wp_get_stats(struct writes_pending *wp, struct wp_stats *out);

#endif
