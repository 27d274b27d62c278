// SPDX-License-Identifier: GPL-2.0
/*
 * writes_pending: simple locked implementation of the contract in
 * writes_pending.h.  Correct but every start/end takes one shared lock;
 * the batched per-CPU counter replaces it.
 */
#include "writes_pending.h"

int wp_init(struct writes_pending *wp)
{
	wp_lock_init(&wp->lock);
	wp->count = 0;
	wp->closed = false;
	memset(&wp->stats, 0, sizeof(wp->stats));
	return 0;
}

void wp_exit(struct writes_pending *wp)
{
}

bool wp_start(struct writes_pending *wp)
{
	unsigned long flags;
	bool ok;

	wp_lock(&wp->lock, flags);
	ok = !wp->closed;
	if (ok)
		wp->count++;
	wp_unlock(&wp->lock, flags);
	return ok;
}

bool wp_end(struct writes_pending *wp)
{
	unsigned long flags;
	bool last;

	wp_lock(&wp->lock, flags);
	last = --wp->count == 0;
	wp_unlock(&wp->lock, flags);
	return last;
}

bool wp_try_close(struct writes_pending *wp)
{
	u64 t0 = wp_now_ns(), dt;
	unsigned long flags;
	bool ok;

	wp_lock(&wp->lock, flags);
	ok = wp->count == 0;
	if (ok) {
		wp->closed = true;
		wp->stats.closes++;
	} else {
		wp->stats.close_fails++;
	}
	dt = wp_now_ns() - t0;
	wp->stats.check_ns_total += dt;
	if (dt > wp->stats.check_ns_max)
		wp->stats.check_ns_max = dt;
	wp_unlock(&wp->lock, flags);
	return ok;
}

void wp_open(struct writes_pending *wp)
{
	unsigned long flags;

	wp_lock(&wp->lock, flags);
	if (wp->closed)
		wp->stats.opens++;
	wp->closed = false;
	wp_unlock(&wp->lock, flags);
}

bool wp_is_closed(struct writes_pending *wp)
{
	unsigned long flags;
	bool closed;

	wp_lock(&wp->lock, flags);
	closed = wp->closed;
	wp_unlock(&wp->lock, flags);
	return closed;
}

long wp_read(struct writes_pending *wp)
{
	unsigned long flags;
	long n;

	wp_lock(&wp->lock, flags);
	n = wp->count;
	wp_unlock(&wp->lock, flags);
	return n;
}

void wp_get_stats(struct writes_pending *wp, struct wp_stats *out)
{
	unsigned long flags;

	wp_lock(&wp->lock, flags);
	*out = wp->stats;
	wp_unlock(&wp->lock, flags);
}
